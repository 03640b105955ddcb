"""The checks every file passes before a parsing library sees its bytes.

In order: the extension is one we read (`refuse_type` says why not), the file is neither
empty nor over the size limit (`check_size`), its magic bytes agree with its extension
(`check_magic`), and, for .docx/.pptx, the zip container is not a bomb and carries no
DTD/entity declarations (`check_ooxml`). Each refusal is an `IngestError` with a message
code of courserag/i18n/messages.py, so the learner is told in their own language.

Size alone does not bound a parser's work: an 18 KB DOCX can hold two million paragraphs.
So the structure that costs work is counted first, cheaply, on the raw bytes: XML elements,
paragraphs and styles of a DOCX, shapes of a PPTX (`check_ooxml`), the decoded drawing
instructions of a PDF's pages with a shared stream counted once per page (`check_pdf_content`),
the cells and JSON values of a notebook (`check_notebook`). Whatever slips past these is
stopped by the worker's budget (courserag/ingest/parsers/sandbox.py).
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections import Counter
from typing import NoReturn

from courserag.config.settings import Limits
from courserag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    FileTooLargeError,
    TooComplexError,
    UnsupportedFileError,
)
from courserag.i18n.messages import Notice

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
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".bmp",
    ".tif",
    ".tiff",
    ".emf",
    ".wmf",
    ".svg",
    ".wdp",
    ".jfif",
    ".webp",
    ".ico",
    ".mp3",
    ".mp4",
    ".m4a",
    ".wav",
    ".wma",
    ".wmv",
    ".mov",
    ".avi",
    ".mpg",
    ".mpeg",
    ".bin",
    ".xlsx",
    ".xlsb",
    ".docx",
    ".pptx",
    ".ttf",
    ".otf",
    ".odttf",
    ".fntdata",
)
_DTD_MARKERS = tuple(  # lower-cased, in every encoding an XML part may use
    marker.encode(encoding) for marker in ("<!doctype", "<!entity") for encoding in ("ascii", "utf-16-le", "utf-16-be")
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
        counts: Counter[str] = Counter()
        for info in infos:
            if info.flag_bits & 0x1:
                raise EncryptedFileError(name, "file_locked")
            if not info.is_dir() and not info.filename.lower().endswith(_MEDIA_SUFFIXES):
                _scan_part(archive, info, name, doc_type, limits, counts)


# Start tags by local name, whatever the namespace prefix (XML lets a file rename "w:" freely).
_START_TAG = re.compile(rb"<[A-Za-z_]")
_PARAGRAPH = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?p[\s/>]")
_STYLE = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?style[\s/>]")
_SHAPE = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:sp|grpSp|graphicFrame|pic|cxnSp|contentPart)[\s/>]")


def _scan_part(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, doc_type: str, limits: Limits, counts: Counter
) -> None:
    """Stream one XML part once: refuse DTDs (entity bombs, XXE), and count the structure
    python-docx/python-pptx would spend work on, before they build a tree of it."""
    part = info.filename.lower()
    elements = 0
    carry = b""
    with archive.open(info) as member:
        while True:
            chunk = member.read(MB)
            window = carry + chunk
            # Cut before the last "<" so that no tag is split between two windows.
            cut = window.rfind(b"<", max(0, len(window) - 256)) if chunk else len(window)
            body, carry = (window[:cut], window[cut:]) if cut > 0 else (window, b"")
            lowered = body.lower()
            if any(marker in lowered for marker in _DTD_MARKERS):
                raise CorruptFileError(name, "xml_declarations")
            text = body.replace(b"\x00", b"")  # UTF-16 parts count like UTF-8 ones
            elements += len(_START_TAG.findall(text))
            if elements > limits.max_xml_elements:
                raise TooComplexError(name, "complex_xml", limit=limits.max_xml_elements)
            if doc_type == "docx":
                counts["paragraphs"] += len(_PARAGRAPH.findall(text))
                if "styles" in part:
                    counts["styles"] += len(_STYLE.findall(text))
            elif part.startswith("ppt/slides/"):
                counts["shapes"] += len(_SHAPE.findall(text))
            _check_counts(name, counts, limits)
            if not chunk:
                return


def _check_counts(name: str, counts: Counter, limits: Limits) -> None:
    if counts["paragraphs"] > limits.max_docx_paragraphs:
        raise TooComplexError(name, "complex_paragraphs", count=counts["paragraphs"], limit=limits.max_docx_paragraphs)
    if counts["styles"] > limits.max_office_styles:
        raise TooComplexError(name, "complex_styles", count=counts["styles"], limit=limits.max_office_styles)
    if counts["shapes"] > limits.max_pptx_shapes:
        raise TooComplexError(name, "complex_shapes", count=counts["shapes"], limit=limits.max_pptx_shapes)


# --------------------------------------------------------------------------- PDF drawing instructions


def check_pdf_content(reader, name: str, limits: Limits) -> None:
    """Refuse a PDF whose pages hold more decoded drawing instructions than the limit.

    Each page's content streams and form XObjects are counted as that page will interpret
    them: a stream shared by 2,000 pages counts 2,000 times (an 8 KB file of 20 pages
    sharing one compressed stream cost 106 s). Flate streams are measured by inflating
    them in pieces up to the limit, never whole.
    """
    budget = int(limits.max_pdf_content_mb * MB)
    sizes: dict[object, int] = {}
    total = 0
    for page in reader.pages:
        for key, stream in _page_streams(page):
            if key not in sizes:
                sizes[key] = _decoded_size(stream, budget - total + 1)
            total += sizes[key]
            if total > budget:
                raise TooComplexError(name, "complex_pdf_content", limit_mb=limits.max_pdf_content_mb)


def page_drawing_key(page) -> tuple | None:
    """What a page's text depends on: its content streams (by identity), its resources (fonts)
    and rotation. Two pages with the same key extract the same text, so the parser reads it
    once: 20 pages sharing one heavy stream took over 30 s, interpreted 20 times. None when the
    page draws nothing that can be told apart (it is then read on its own)."""
    streams = tuple(key for key, _ in _page_streams(page))
    if not streams or not all(isinstance(key, tuple) for key in streams):
        return None  # direct streams have no identity that outlives this call
    try:
        return streams, repr(page.get("/Resources")), repr(page.get("/Rotate"))
    except Exception:  # noqa: BLE001 - a broken page is read (and reported) on its own
        return None


def _page_streams(page, max_depth: int = 5):
    """(identity, stream) of a page's content streams and of the form XObjects it can draw."""
    seen: set = set()

    def resolve(value):
        key = (value.idnum, value.generation) if hasattr(value, "idnum") else None
        return key, value.get_object()

    def visit(value, depth: int):
        key, obj = resolve(value)
        if isinstance(obj, list):
            for item in obj:
                yield from visit(item, depth)
            return
        if not hasattr(obj, "get_data"):
            return
        key = key or id(obj)
        if key in seen:
            return
        seen.add(key)
        yield key, obj
        if depth < max_depth:
            yield from forms(obj.get("/Resources"), depth + 1)

    def forms(resources, depth: int):
        try:
            xobjects = resources.get_object().get("/XObject") if resources is not None else None
            values = list(xobjects.get_object().values()) if xobjects is not None else []
        except Exception:  # noqa: BLE001 - a broken resource dictionary is the parser's problem
            return
        for value in values:
            try:
                if value.get_object().get("/Subtype") == "/Form":
                    yield from visit(value, depth)
            except Exception:  # noqa: BLE001
                continue

    try:
        contents = page.get("/Contents")
        if contents is not None:
            yield from visit(contents, 0)
        yield from forms(page.get("/Resources"), 1)
    except Exception:  # noqa: BLE001 - counting never decides that a file is damaged
        return


def _decoded_size(stream, cap: int) -> int:
    """The stream's decoded length, or anything over `cap` once it is known to exceed it."""
    try:
        filters = stream.get("/Filter")
        names = [str(f) for f in filters] if isinstance(filters, list) else ([str(filters)] if filters else [])
        raw = stream._data  # the encoded bytes as stored
        if not names:
            return len(raw)
        if names == ["/FlateDecode"]:
            inflater = zlib.decompressobj()
            size = 0
            for start in range(0, len(raw), 64 * 1024):
                size += len(inflater.decompress(raw[start : start + 64 * 1024], cap - size + 1))
                while inflater.unconsumed_tail and size <= cap:
                    size += len(inflater.decompress(inflater.unconsumed_tail, cap - size + 1))
                if size > cap:
                    return size
            return size
        return len(stream.get_data())
    except Exception:  # noqa: BLE001 - undecodable: the page will be reported unreadable
        return 0


# --------------------------------------------------------------------------- notebooks


def check_notebook(data: bytes, name: str, limits: Limits) -> None:
    """Count a notebook's cells and JSON values on its bytes, before `json` builds an object
    for each (a 20 MB notebook of one-line cells peaked at 570 MB)."""
    cells = data.count(b'"cell_type"')
    if cells > limits.max_notebook_cells:
        raise TooComplexError(name, "complex_cells", count=cells, limit=limits.max_notebook_cells)
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    if values > limits.max_notebook_values:
        raise TooComplexError(name, "complex_json", limit=limits.max_notebook_values)
