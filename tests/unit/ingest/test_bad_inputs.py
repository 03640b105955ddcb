"""courserag.ingest.parsers against a hostile corpus: every bad file fails with the right error class.

Each case is a real file generated into tmp_path. For each one we check the exact
IngestError subclass, that the message starts with the file's display name and reads as a
sentence (no traceback, no library dump), and, through a Python audit hook, that parsing
wrote nothing outside tmp_path.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import random
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Callable

import pytest

import docgen as gen
from courserag.config.settings import Limits
from courserag.errors import (
    CorruptFileError,
    EmptyFileError,
    EncryptedFileError,
    FileTooLargeError,
    IngestError,
    UnsupportedFileError,
)
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS, parse_bytes, parse_file, safe_display_name

# --------------------------------------------------------------------------- write guard

_RECORDERS: list[list[str]] = []
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_WRITE_EVENTS = {
    "os.mkdir",
    "os.rename",
    "os.remove",
    "os.rmdir",
    "os.symlink",
    "os.link",
    "os.truncate",
    "shutil.copyfile",
    "shutil.move",
    "tempfile.mkstemp",
    "tempfile.mkdtemp",
}


def _audit(event: str, args: tuple) -> None:
    # Audit hooks cannot be removed, so this one is installed once and does nothing unless a
    # test is recording. It must never raise.
    if not _RECORDERS:
        return
    if event == "open":
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            mode is None and isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writing and isinstance(path, (str, bytes, os.PathLike)):
            _RECORDERS[-1].append(os.fsdecode(path))
    elif event in _WRITE_EVENTS and args and isinstance(args[0], (str, bytes, os.PathLike)):
        _RECORDERS[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@contextlib.contextmanager
def record_writes():
    paths: list[str] = []
    _RECORDERS.append(paths)
    try:
        yield paths
    finally:
        _RECORDERS.remove(paths)


def test_the_write_guard_sees_writes(tmp_path):
    with record_writes() as written:
        (tmp_path / "seen.txt").write_text("x")
        os.close(os.open(tmp_path / "raw.bin", os.O_WRONLY | os.O_CREAT))
        (tmp_path / "seen.txt").read_text()
    assert written == [str(tmp_path / "seen.txt"), str(tmp_path / "raw.bin")]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """tmp_path/in for inputs; temp files and the working directory also point into tmp_path."""
    (tmp_path / "in").mkdir()
    (tmp_path / "tmp").mkdir()
    (tmp_path / "cwd").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.chdir(tmp_path / "cwd")
    return tmp_path


def parse_guarded(tmp_path: Path, path: Path, display_name: str, limits: Limits):
    """parse_file, asserting that nothing was written outside tmp_path (nor left inside it)."""
    before = sorted(p.name for p in (tmp_path / "in").iterdir())
    with record_writes() as written:
        try:
            return parse_file(path, display_name, limits)
        finally:
            outside = [p for p in written if not Path(p).resolve().is_relative_to(tmp_path.resolve())]
            assert outside == [], f"parsing wrote outside tmp_path: {outside}"
            assert sorted(p.name for p in (tmp_path / "in").iterdir()) == before
            assert list((tmp_path / "tmp").iterdir()) == [] and list((tmp_path / "cwd").iterdir()) == []


def assert_readable(error: IngestError, display_name: str) -> None:
    message = str(error)
    assert error.file_name == display_name
    assert message.startswith(f"{display_name}: ")
    assert "Traceback" not in message and 'File "' not in message and "\n" not in message
    assert "/tmp" not in message and "site-packages" not in message
    assert len(message) < 400, message


# --------------------------------------------------------------------------- the corpus


def random_bytes(size: int, low: int = 0, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(low, 256) for _ in range(size))


def text_pdf() -> bytes:
    return gen.pdf_bytes(["Week 1: asymptotic notation and the master theorem."] * 3)


def text_docx() -> bytes:
    return gen.docx_bytes([("h1", "Week 1"), ("p", "Asymptotic notation.")])


def text_pptx() -> bytes:
    return gen.pptx_bytes([{"title": "Week 1", "body": ["Asymptotic notation"]}])


def encrypted_office() -> bytes:
    # What Office writes for a password-protected .docx: an OLE container, not a zip.
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    return header + "EncryptedPackage".encode("utf-16-le") + bytes(512)


def plain_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", "just a zip")
    return out.getvalue()


PNG = b"\x89PNG\r\n\x1a\n" + bytes(13) + random_bytes(2000, seed=3)


def truncated(build: Callable[[], bytes], fraction: float) -> Callable[[], bytes]:
    return lambda: build()[: int(len(build()) * fraction)]


def docx_with(member: str, content: bytes | None) -> Callable[[], bytes]:
    return lambda: gen.rewrite_zip(text_docx(), {member: content})


def constant(data: bytes) -> Callable[[], bytes]:
    return lambda: data


def case(case_id, display_name, build, expected, *words, limits=Limits()):
    """One row: the file, the limits, the error class and words its message must contain.

    The builder is cached: both entry points get the same bytes, and the zip bomb is made once.
    """
    return pytest.param(display_name, functools.cache(build), limits, expected, words, id=case_id)


EXTENSIONS = sorted(SUPPORTED_EXTENSIONS)
CASES = [
    *[case(f"zero-bytes{ext}", f"empty{ext}", constant(b""), EmptyFileError, "empty (0 bytes)") for ext in EXTENSIONS],
    case("whitespace-only-txt", "blank.txt", constant(b" \n\t\r\n  \n"), EmptyFileError, "no text"),
    case("image-only-pdf", "scan.pdf", lambda: gen.pdf_bytes([None, None]), EmptyFileError, "scanned", "OCR"),
    case(
        "docx-without-text", "blank.docx", lambda: gen.docx_bytes([("p", ""), ("p", "  ")]), EmptyFileError, "no text"
    ),
    case("pptx-picture-slides-only", "pictures.pptx", lambda: gen.pptx_bytes([{}, {}]), EmptyFileError, "no text"),
    case(
        "notebook-empty-cells",
        "empty.ipynb",
        lambda: gen.notebook_bytes([{"markdown": ""}, {"code": ""}]),
        EmptyFileError,
        "no text",
    ),
    case("truncated-pdf", "cut.pdf", truncated(text_pdf, 0.6), CorruptFileError, "damaged"),
    case(
        "corrupt-pdf-random-after-header",
        "noise.pdf",
        lambda: b"%PDF-1.7\n" + random_bytes(20_000),
        CorruptFileError,
        "damaged",
    ),
    case(
        "pdf-without-header", "fake.pdf", constant(b"This is not a PDF.\n" * 100), CorruptFileError, "not a valid PDF"
    ),
    case("pdf-renamed-docx", "slides.docx", text_pdf, CorruptFileError, "looks like a PDF", "rename it to .pdf"),
    case("docx-renamed-pdf", "notes.pdf", text_docx, CorruptFileError, "Word document", "rename it to .docx"),
    case("pptx-renamed-docx", "deck.docx", text_pptx, CorruptFileError, "PowerPoint", "rename it to .pptx"),
    case("png-named-pptx", "photo.pptx", constant(PNG), CorruptFileError, "PNG image"),
    case("plain-zip-named-docx", "archive.docx", plain_zip, CorruptFileError, "zip archive"),
    case("truncated-docx", "cut.docx", truncated(text_docx, 0.5), CorruptFileError, "damaged"),
    case(
        "docx-garbage-xml",
        "garbage.docx",
        docx_with("word/document.xml", b"<w:document><open>"),
        CorruptFileError,
        "damaged",
    ),
    case("docx-empty-document-part", "hollow.docx", docx_with("word/document.xml", b""), CorruptFileError, "damaged"),
    case("docx-no-document-part", "missing.docx", docx_with("word/document.xml", None), CorruptFileError, "damaged"),
    case(
        "docx-entity-bomb",
        "laughs.docx",
        lambda: gen.with_doctype(text_docx(), "word/document.xml"),
        CorruptFileError,
        "DOCTYPE",
    ),
    case(
        "pptx-entity-bomb",
        "laughs.pptx",
        lambda: gen.with_doctype(text_pptx(), "ppt/slides/slide1.xml"),
        CorruptFileError,
        "DOCTYPE",
    ),
    case(
        "docx-entity-bomb-utf16",
        "laughs16.docx",
        lambda: gen.with_doctype(text_docx(), "word/document.xml", encoding="utf-16"),
        CorruptFileError,
        "DOCTYPE",
    ),
    case(
        "docx-external-entity",
        "xxe.docx",
        lambda: gen.with_doctype(text_docx(), "word/document.xml", gen.EXTERNAL_ENTITY),
        CorruptFileError,
        "DOCTYPE",
    ),
    case("binary-noise-txt", "noise.txt", lambda: random_bytes(50_000), CorruptFileError, "not look like a text file"),
    case(
        "invalid-utf8-not-gbk",
        "mystery.txt",
        lambda: random_bytes(50_000, low=1),
        CorruptFileError,
        "not look like a text file",
    ),
    case(
        "control-characters-md",
        "controls.md",
        constant(bytes(range(1, 9)) * 500),
        CorruptFileError,
        "not look like a text",
    ),
    case("pdf-named-txt", "paper.txt", text_pdf, CorruptFileError, "looks like a PDF", "rename it to .pdf"),
    case("png-named-py", "script.py", constant(PNG), CorruptFileError, "PNG image"),
    case(
        "notebook-invalid-json",
        "broken.ipynb",
        constant(b'{"cells": [{"cell_type": "code"'),
        CorruptFileError,
        "not valid JSON",
    ),
    case("notebook-not-a-notebook", "list.ipynb", constant(b"[1, 2, 3]"), CorruptFileError, "not a Jupyter notebook"),
    case(
        "notebook-nested-json",
        "deep.ipynb",
        constant(b"[" * 200_000 + b"]" * 200_000),
        CorruptFileError,
        "not valid JSON",
    ),
    case(
        "pdf-user-password",
        "locked.pdf",
        lambda: gen.encrypted_pdf_bytes("secret", "owner"),
        EncryptedFileError,
        "password-protected",
    ),
    case("office-password-docx", "locked.docx", encrypted_office, EncryptedFileError, "password-protected"),
    case(
        "pdf-3000-pages",
        "huge.pdf",
        lambda: gen.blank_pdf_bytes(3000),
        FileTooLargeError,
        "3,000 pages",
        "2,000",
        limits=Limits(max_pages=2000),
    ),
    case(
        "docx-zip-bomb-1gb",
        "bomb.docx",
        lambda: gen.zip_bomb(text_docx(), "word/bomb.xml", 1024),
        FileTooLargeError,
        "zip bomb",
    ),
    case(
        "docx-20k-entries", "entries.docx", lambda: gen.many_entries(text_docx(), 20_000), FileTooLargeError, "10,000"
    ),
    case(
        "pptx-over-slide-limit",
        "long.pptx",
        lambda: gen.pptx_bytes([{"title": f"S{i}"} for i in range(3)]),
        FileTooLargeError,
        "3 slides",
        limits=Limits(max_pages=2),
    ),
    case(
        "file-over-size-limit",
        "big.txt",
        constant(b"lecture notes\n" * 200),
        FileTooLargeError,
        "3 KB",
        "upload limit",
        limits=Limits(max_file_mb=0.001),
    ),
    case("unsupported-exe", "setup.exe", constant(b"MZ" + bytes(100)), UnsupportedFileError, "not supported"),
    case("unsupported-old-doc", "essay.doc", encrypted_office, UnsupportedFileError, "save it as .docx"),
    case("unsupported-xlsx", "marks.xlsx", plain_zip, UnsupportedFileError, "not supported"),
    case("no-extension", "README", constant(b"hello"), UnsupportedFileError, "no extension"),
]


@pytest.mark.parametrize(("display_name", "build", "limits", "expected", "words"), CASES)
def test_bad_file_fails_with_a_readable_error(sandbox, display_name, build, limits, expected, words):
    path = gen.write(sandbox / "in", display_name, build())

    with pytest.raises(IngestError) as caught:
        parse_guarded(sandbox, path, display_name, limits)

    assert type(caught.value) is expected, str(caught.value)
    assert_readable(caught.value, display_name)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(("display_name", "build", "limits", "expected", "words"), CASES)
def test_parse_bytes_gives_the_same_error(sandbox, display_name, build, limits, expected, words):
    data = build()
    with record_writes() as written:
        with pytest.raises(IngestError) as caught:
            parse_bytes(data, display_name, limits)

    assert written == []
    assert type(caught.value) is expected
    assert_readable(caught.value, display_name)


def test_a_missing_file_is_a_readable_error(sandbox):
    with pytest.raises(CorruptFileError) as caught:
        parse_file(sandbox / "in" / "gone.pdf")
    assert_readable(caught.value, "gone.pdf")


# --------------------------------------------------------------------------- hostile but readable


def test_owner_password_only_pdf_parses(sandbox):
    path = gen.write(sandbox / "in", "no-print.pdf", gen.encrypted_pdf_bytes("", "owner-only"))

    doc = parse_guarded(sandbox, path, "no-print.pdf", Limits())

    assert [s.locator for s in doc.sections] == ["page 1"]
    assert "Secret lecture notes" in doc.sections[0].text


def test_gbk_text_parses(sandbox):
    text = "数据结构与算法\n第三章：栈和队列。\n" * 20
    path = gen.write(sandbox / "in", "chapter3.txt", text.encode("gbk"))

    doc = parse_guarded(sandbox, path, "chapter3.txt", Limits())

    assert "\n".join(s.text for s in doc.sections) == text.strip()
    assert doc.warnings == []


def test_notebook_with_huge_outputs_parses_with_truncation(sandbox):
    cells = [
        {"code": "for i in range(10**6): print(i)", "outputs": [gen.stream_output("line\n" * 1_000_000)]},
        {"code": "show()", "outputs": [gen.image_output(base64_bytes=3_000_000)] * 3},
        {"code": "many()", "outputs": [gen.stream_output("y" * 1500)] * 10},
    ]
    path = gen.write(sandbox / "in", "outputs.ipynb", gen.notebook_bytes(cells))

    doc = parse_guarded(sandbox, path, "outputs.ipynb", Limits())

    assert [s.locator for s in doc.sections] == ["cell 1", "cell 2", "cell 3"]
    assert all(len(s.text) < 5000 for s in doc.sections)
    assert "iVBOR" not in doc.sections[1].text
    assert [str(w) for w in doc.warnings] == ["cells 1, 3 had long outputs, which were cut"]


@pytest.mark.parametrize("extension", [".txt", ".md", ".py"])
def test_ten_megabyte_single_line_parses_quickly(sandbox, extension):
    line = ("lorem ipsum dolor sit amet " * 400_000)[: 10 * 1024 * 1024]
    name = f"one-line{extension}"
    path = gen.write(sandbox / "in", name, line.encode())

    started = time.perf_counter()
    doc = parse_guarded(sandbox, path, name, Limits())
    elapsed = time.perf_counter() - started

    assert elapsed < 5, f"took {elapsed:.1f} s"
    assert len(doc.sections) > 100
    assert {s.locator for s in doc.sections} == {"lines 1-1"}
    assert max(len(s.text) for s in doc.sections) <= 6000
    assert "".join(s.text for s in doc.sections).replace(" ", "") == line.replace(" ", "")


def test_docx_with_svg_doctype_in_media_still_parses(sandbox):
    svg = b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg/>'
    data = gen.rewrite_zip(text_docx(), {"word/media/image1.svg": svg})
    path = gen.write(sandbox / "in", "icons.docx", data)

    doc = parse_guarded(sandbox, path, "icons.docx", Limits())

    assert [s.locator for s in doc.sections] == ["Week 1"]


def test_zip_bomb_under_a_lowered_limit_is_refused_before_decompression(sandbox):
    path = gen.write(sandbox / "in", "small-bomb.pptx", gen.zip_bomb(text_pptx(), "ppt/bomb.xml", 20))

    with pytest.raises(FileTooLargeError) as caught:
        parse_guarded(sandbox, path, "small-bomb.pptx", Limits(max_decompressed_mb=10))
    assert_readable(caught.value, "small-bomb.pptx")


def test_path_traversal_name_is_reduced_to_its_file_name(sandbox):
    path = gen.write(sandbox / "in", "upload.bin", b"plain notes\n")

    doc = parse_guarded(sandbox, path, "../../x.txt", Limits())

    assert doc.name == "x.txt"
    assert not (sandbox.parent / "x.txt").exists()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("../../x.txt", "x.txt"),
        ("..\\..\\Windows\\system32\\x.txt", "x.txt"),
        ("/etc/passwd", "passwd"),
        ("C:\\Users\\me\\Lecture 1.pdf", "Lecture 1.pdf"),
        ("lec\x00ture\n\r\t.pdf", "lecture.pdf"),
        ("invoice\u202etxt.exe", "invoicetxt.exe"),  # right-to-left override removed
        ("  notes.md  ", "notes.md"),
        ("multiple   inner  spaces.txt", "multiple inner spaces.txt"),
        ("tab\tremoved.txt", "tabremoved.txt"),
        (".hidden.txt", "hidden.txt"),
        ("第五周 讲义.pdf", "第五周 讲义.pdf"),
        ("", "unnamed file"),
        ("..", "unnamed file"),
        ("dir/", "unnamed file"),
        ("\x01\x02\x03", "unnamed file"),
    ],
)
def test_safe_display_name(raw, expected):
    assert safe_display_name(raw) == expected


@pytest.mark.parametrize("extension", [".pdf", ".ipynb", ""])
def test_safe_display_name_shortens_long_names_keeping_the_extension(extension):
    name = safe_display_name("a" * 500 + extension)

    assert len(name) <= 120
    assert name.endswith("…" + extension)
    assert name.startswith("aaaa")


def test_long_control_character_name_is_cleaned_then_shortened():
    name = safe_display_name("../" + "\x07é" * 300 + ".docx")

    assert name == "é" * (120 - len(".docx") - 1) + "….docx"


def test_notebook_source_as_a_json_number_is_not_a_crash(sandbox):
    cells = [
        {"cell_type": "code", "source": 42, "outputs": "nope"},
        "junk",
        {"cell_type": "markdown", "source": ["ok"]},
    ]
    data = json.dumps({"cells": cells}).encode()
    path = gen.write(sandbox / "in", "odd.ipynb", data)

    doc = parse_guarded(sandbox, path, "odd.ipynb", Limits())

    assert [(s.locator, s.text) for s in doc.sections] == [("cell 3", "ok")]
