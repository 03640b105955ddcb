"""Every message code the parsers and ingestion use is in the catalog, in English and
Chinese, and renders with exactly the parameters the code passes.

The table below gives example parameters for each code; a scan of the source finds every
code the parsers use, so a new code without a row (or a row for a code no longer used) fails.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from courserag.i18n.catalog import table
from courserag.i18n.messages import Notice, render
from courserag.lang.script import has_ideograph

SUPPORTED = Notice("supported_types")

PARSER_CODES: dict[str, dict] = {
    # guard.py
    "supported_types": {},
    "no_extension": {"supported": SUPPORTED},
    "old_office_format": {"ext": ".doc"},
    "unsupported_type": {"ext": ".exe", "supported": SUPPORTED},
    "file_empty": {},
    "file_over_limit": {"size": "3 KB", "limit_mb": "0.001"},
    "not_valid_kind": {"ext": ".pdf", "kind": Notice("kind_pdf")},
    "type_mismatch": {"ext": ".pptx", "looks": Notice("looks_png"), "expected": Notice("kind_pptx")},
    "type_mismatch_rename": {
        "ext": ".txt",
        "looks": Notice("looks_pdf"),
        "expected": Notice("kind_text"),
        "doc_type": "pdf",
    },
    **{code: {} for code in ("kind_pdf", "kind_docx", "kind_pptx", "kind_text")},
    **{
        f"looks_{kind}": {}
        for kind in (
            "pdf",
            "docx",
            "pptx",
            "xlsx",
            "opendocument",
            "zip",
            "png",
            "jpeg",
            "gif",
            "tiff",
            "old_office",
            "gzip",
            "rar",
            "7z",
            "program",
            "windows_program",
            "rtf",
            "mp3",
            "audio",
            "media",
            "mp4",
        )
    },
    "file_locked": {},
    "zip_damaged": {},
    "zip_too_many_entries": {"limit": 10_000},
    "zip_bomb": {"unpacked_mb": 1024.4, "limit_mb": 300.0},
    "xml_declarations": {},
    # __init__.py
    "file_open_failed": {},
    "file_read_failed": {},
    "file_damaged": {"detail": "KeyError"},
    # text.py
    "not_text": {},
    "no_text": {},
    "bytes_replaced": {},
    "read_as_windows_1252": {},
    "read_as_guessed": {"encoding": "koi8_r"},
    "text_truncated": {"limit": 20_000_000},
    # pdf.py
    "pdf_damaged": {},
    "pdf_encryption_unsupported": {},
    "pdf_locked": {},
    "pdf_too_many_pages": {"pages": 3000, "limit": 2000},
    "pdf_no_pages": {},
    "pdf_pages_unreadable": {},
    "pdf_no_text": {},
    "page_no_text": {"number": 3},
    "pages_no_text": {"numbers": "2, 4-5"},
    "page_unreadable": {"number": 3},
    "pages_unreadable": {"numbers": "2, 4-5"},
    # office.py
    "docx_no_text": {},
    "pptx_too_many_slides": {"slides": 3000, "limit": 2000},
    "pptx_no_slides": {},
    "pptx_no_text": {},
    "slide_no_text": {"number": 2},
    "slides_no_text": {"numbers": "2-3"},
    # notebook.py
    "notebook_bad_json": {},
    "notebook_no_cells": {},
    "notebook_no_text": {},
    "cell_output_cut": {"number": 7},
    "cells_output_cut": {"numbers": "1, 3"},
    # work budgets: guard.py's structure counts and sandbox.py's worker limits
    "complex_xml": {"limit": 3_000_000},
    "complex_paragraphs": {"count": 349_503, "limit": 200_000},
    "complex_styles": {"count": 12_450, "limit": 5_000},
    "complex_shapes": {"count": 200_001, "limit": 100_000},
    "complex_pdf_content": {"limit_mb": 64.0},
    "complex_cells": {"count": 332_881, "limit": 20_000},
    "complex_json": {"limit": 2_000_000},
    "complex_time": {"seconds": 90.0},
    "complex_cpu": {"seconds": 60.0},
    "complex_memory": {"memory_mb": 1536},
    "complex_crash": {},
    "upload_cancelled": {},
    # ingest/pipeline.py
    "no_text_extracted": {},
    "too_many_chunks": {"chunks": 5001, "limit": 5000},
}

ROOT = Path(__file__).resolve().parents[3]
SOURCES = sorted((ROOT / "courserag" / "ingest" / "parsers").glob("*.py")) + [
    ROOT / "courserag" / "ingest" / "pipeline.py"
]


def _call_name(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")


def codes_in_source(path: Path) -> set[str]:
    """Codes passed to an error (second argument), to Notice and numbered(), or named in a table."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            positions = (
                (1,) if name.endswith("Error") else (0,) if name == "Notice" else (0, 1) if name == "numbered" else ()
            )
            for position in positions:
                if position < len(node.args) and isinstance(node.args[position], ast.Constant):
                    found.add(node.args[position].value)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith(("looks_", "kind_"))
        ):
            found.add(node.value)
    return found


def test_the_table_lists_exactly_the_codes_the_parsers_use():
    used = set().union(*(codes_in_source(path) for path in SOURCES))
    # Nested codes (the supported-types sentence, kinds) are used through other codes' params.
    assert used == set(PARSER_CODES), (sorted(used - set(PARSER_CODES)), sorted(set(PARSER_CODES) - used))


def _fields(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


@pytest.mark.parametrize("code, params", sorted(PARSER_CODES.items()), ids=sorted(PARSER_CODES))
def test_code_is_in_both_languages_and_renders_with_its_params(code, params):
    entry = {lang: table(lang)[f"message.{code}"] for lang in ("en", "zh")}
    for lang in ("en", "zh"):
        assert _fields(entry[lang]) == set(params), f"{code} [{lang}] placeholders differ from its params"
        text = render(code, params, lang)
        assert text.strip() and "{" not in text and "}" not in text
    chinese = render(code, params, "zh")
    assert chinese != render(code, params, "en") and has_ideograph(chinese)


def test_a_nested_reason_is_said_in_chinese_throughout():
    from courserag.errors import CorruptFileError

    error = CorruptFileError(
        "notes.pdf",
        "type_mismatch_rename",
        ext=".pdf",
        looks=Notice("looks_docx"),
        expected=Notice("kind_pdf"),
        doc_type="docx",
    )

    assert str(error) == (
        "notes.pdf: the file is named .pdf but looks like a Word document (.docx), not a PDF; "
        "rename it to .docx and upload it again"
    )
    assert error.say("zh").startswith("notes.pdf：文件扩展名是 .pdf，但内容看起来是一个Word文档")


def test_free_text_reasons_are_refused():
    from courserag.errors import IngestError

    with pytest.raises(KeyError):
        IngestError("a.txt", "the file is odd")
