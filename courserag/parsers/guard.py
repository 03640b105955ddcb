"""The checks every file passes before a parsing library sees its bytes.

In order: the extension is one we read (`refuse_type` says why not), the file is neither
empty nor over the size limit (`check_size`), its magic bytes agree with its extension
(`check_magic`), and, for .docx/.pptx, the zip container is not a bomb and carries no
DTD/entity declarations (`check_ooxml`). Each refusal is an `IngestError` with a message
code of courserag/messages.py, so the learner is told in their own language.
"""

from __future__ import annotations

import io
import zipfile
from typing import NoReturn

from courserag.errors import CorruptFileError, EmptyFileError, EncryptedFileError, FileTooLargeError, UnsupportedFileError
from courserag.messages import Notice
from courserag.settings import Limits

MB = 1024 * 1024

# What a file of each checked type is called in "not a valid {kind}" and "not a {expected}".
_KIND = {"pdf": "kind_pdf", "docx": "kind_docx", "pptx": "kind_pptx"}
_TEXT_KIND = "kind_text"


def refuse_type(name: str, ext: str) -> NoReturn:
    """Raise the UnsupportedFileError for an extension the registry does not know."""
    supported = Notice("supported_types")
    if not ext:
        raise UnsupportedFileError(name, "no_extension", supported=supported)
    if ext in (".doc", ".ppt"):
        raise UnsupportedFileError(name, "old_office_format", ext=ext)
    raise UnsupportedFileError(name, "unsupported_type", ext=ext, supported=supported)


def check_size(name: str, size: int, limits: Limits) -> None:
    """The one size check (empty, or over `limits.max_file_mb`), for uploads and course files."""
    if size == 0:
        raise EmptyFileError(name, "file_empty")
    if size > limits.max_file_mb * MB:
        shown = f"{size / MB:.1f} MB" if size >= MB / 10 else f"{size / 1024:.0f} KB"
        raise FileTooLargeError(name, "file_over_limit", size=shown, limit_mb=f"{limits.max_file_mb:g}")


# Leading bytes of formats people upload by mistake, with the message code that names them.
# `True` marks formats that can never be a text file, so a .txt/.md/.py/.ipynb starting with
# them is rejected.
_SIGNATURES: tuple[tuple[bytes, str, bool], ...] = (
    (b"%PDF-", "looks_pdf", True),
    (b"PK\x03\x04", "zip", True),
    (b"PK\x05\x06", "zip", True),
    (b"\x89PNG\r\n\x1a\n", "looks_png", True),
    (b"\xff\xd8\xff", "looks_jpeg", True),
    (b"GIF87a", "looks_gif", True),
    (b"GIF89a", "looks_gif", True),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "looks_old_office", True),
    (b"\x1f\x8b", "looks_gzip", True),
    (b"Rar!\x1a\x07", "looks_rar", True),
    (b"7z\xbc\xaf\x27\x1c", "looks_7z", True),
    (b"\x7fELF", "looks_program", True),
    (b"II*\x00", "looks_tiff", True),
    (b"MM\x00*", "looks_tiff", True),
    (b"MZ", "looks_windows_program", False),
    (b"{\\rtf", "looks_rtf", False),
    (b"ID3", "looks_mp3", False),
    (b"OggS", "looks_audio", False),
    (b"RIFF", "looks_media", False),
)


def _describe_zip(data: bytes) -> tuple[str, str]:
    """(doc_type or "", description code) of a zip, from member names in its central directory."""
    if b"word/document" in data:
        return "docx", "looks_docx"
    if b"ppt/presentation" in data:
        return "pptx", "looks_pptx"
    if b"xl/workbook" in data:
        return "", "looks_xlsx"
    if b"mimetypeapplication/vnd.oasis.opendocument" in data:
        return "", "looks_opendocument"
    return "", "looks_zip"


def _sniff(data: bytes) -> tuple[str, str, bool] | None:
    """(doc_type or "", description code, never-text) of what the bytes look like, if recognised."""
    for magic, description, binary in _SIGNATURES:
        if data.startswith(magic):
            if description == "zip":
                return (*_describe_zip(data), True)
            return ("pdf" if magic == b"%PDF-" else ""), description, binary
    if b"%PDF" in data[:1024]:  # PDF readers accept junk before the header; text files may mention it
        return "pdf", "looks_pdf", False
    if data[4:8] == b"ftyp":
        return "", "looks_mp4", True
    return None


def _mismatch(name: str, ext: str, data: bytes, doc_type: str, expected: str) -> CorruptFileError:
    """The error for bytes that are not what the extension (read as `doc_type`) promises."""
    sniffed = _sniff(data)
    if sniffed is None or sniffed[0] == doc_type:
        return CorruptFileError(name, "not_valid_kind", ext=ext, kind=Notice(expected))
    sniffed_type, looks, _ = sniffed
    if sniffed_type and sniffed_type != doc_type:
        return CorruptFileError(
            name, "type_mismatch_rename", ext=ext, looks=Notice(looks), expected=Notice(expected), doc_type=sniffed_type
        )
    return CorruptFileError(name, "type_mismatch", ext=ext, looks=Notice(looks), expected=Notice(expected))


def _is_encrypted_office(data: bytes) -> bool:
    # Password-protected .docx/.pptx files are not zips but OLE containers holding an
    # "EncryptedPackage" stream (MS-OFFCRYPTO); the stream name is stored in UTF-16.
    return data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1") and "EncryptedPackage".encode("utf-16-le") in data


def check_magic(data: bytes, name: str, ext: str, doc_type: str) -> None:
    """Refuse bytes whose leading signature disagrees with the file's extension."""
    if doc_type == "pdf":
        if b"%PDF" not in data[:1024]:
            raise _mismatch(name, ext, data, doc_type, _KIND["pdf"])
    elif doc_type in _OOXML:
        if _is_encrypted_office(data):
            raise EncryptedFileError(name, "file_locked")
        if not data.startswith(b"PK\x03\x04"):
            raise _mismatch(name, ext, data, doc_type, _KIND[doc_type])
    else:
        sniffed = _sniff(data)
        if sniffed is not None and sniffed[2]:
            raise _mismatch(name, ext, data, doc_type, _TEXT_KIND)


# --------------------------------------------------------------------------- Office zip containers

_OOXML = {"docx": "word/", "pptx": "ppt/"}  # the folder every real document of the type has
# Members never parsed as XML by python-docx/python-pptx; scanning them (SVG icons often carry
# a harmless DOCTYPE) would only reject good files.
_MEDIA_SUFFIXES = (
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".emf", ".wmf", ".svg", ".wdp",
    ".jfif", ".webp", ".ico", ".mp3", ".mp4", ".m4a", ".wav", ".wma", ".wmv", ".mov", ".avi",
    ".mpg", ".mpeg", ".bin", ".xlsx", ".xlsb", ".docx", ".pptx", ".ttf", ".otf", ".odttf", ".fntdata",
)
_DTD_MARKERS = tuple(  # lower-cased, in every encoding an XML part may use
    marker.encode(encoding)
    for marker in ("<!doctype", "<!entity")
    for encoding in ("ascii", "utf-16-le", "utf-16-be")
)
_ZIP_CENTRAL_ENTRY = b"PK\x01\x02"


def check_ooxml(data: bytes, name: str, doc_type: str, limits: Limits) -> None:
    """Zip-bomb, type and XML-entity checks, before python-docx/python-pptx read anything."""
    # Counting central-directory signatures costs nothing and bounds the entry count before
    # zipfile builds one object per entry (a 50 MB zip can declare a million entries).
    if data.count(_ZIP_CENTRAL_ENTRY) > limits.max_zip_entries:
        raise FileTooLargeError(name, "zip_too_many_entries", limit=limits.max_zip_entries)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise CorruptFileError(name, "zip_damaged") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_zip_entries:
            raise FileTooLargeError(name, "zip_too_many_entries", limit=limits.max_zip_entries)
        # zipfile stops reading a member at its declared size (and then fails the CRC), so
        # declared sizes bound the real decompressed size.
        unpacked = sum(info.file_size for info in infos)
        if unpacked > limits.max_decompressed_mb * MB:
            raise FileTooLargeError(name, "zip_bomb", unpacked_mb=unpacked / MB, limit_mb=limits.max_decompressed_mb)
        names = {info.filename for info in infos}
        if "[Content_Types].xml" not in names or not any(n.startswith(_OOXML[doc_type]) for n in names):
            raise _mismatch(name, f".{doc_type}", data, doc_type, _KIND[doc_type])
        for info in infos:
            if info.flag_bits & 0x1:
                raise EncryptedFileError(name, "file_locked")
            if not info.is_dir() and not info.filename.lower().endswith(_MEDIA_SUFFIXES):
                _reject_dtd(archive, info, name)


def _reject_dtd(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> None:
    """Office never writes DTDs; a DOCTYPE or ENTITY declaration means an entity bomb or XXE."""
    tail = b""
    with archive.open(info) as member:
        while chunk := member.read(MB):
            window = (tail + chunk).lower()
            if any(marker in window for marker in _DTD_MARKERS):
                raise CorruptFileError(name, "xml_declarations")
            tail = window[-20:]
