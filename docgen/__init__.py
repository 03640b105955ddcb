"""Real documents built from text at run time: PDF, Word, PowerPoint, notebooks, hostile files.

One generator for everything that needs documents and is not the product: the tests (files
the parsers must read or refuse), the benchmarks (lectures made of real passages) and
scripts/make_sample_courses.py (the sample courses' binary files, byte-identical on every
rebuild). Nothing binary is committed for tests or benchmarks; each builder returns bytes, so
a caller shows exactly what it feeds the parser.

It is a top-level package beside `bench/` rather than a module of `tests/` because three
kinds of callers use it and none is a test of another: benchmarks must not depend on the
test package, and the sample-course script is a tool. The product never imports it.
"""

from __future__ import annotations

from pathlib import Path

from docgen.hostile import BILLION_LAUGHS, EXTERNAL_ENTITY, many_entries, rewrite_zip, with_doctype, zip_bomb
from docgen.notebook import error_output, execute_cells, image_output, notebook_bytes, stream_output
from docgen.office import DocMeta, docx_bytes, pptx_bytes
from docgen.pdf import CJK_FONT, blank_pdf_bytes, encrypted_pdf_bytes, find_cjk_font, handout_pdf_bytes, pdf_bytes

__all__ = [
    "BILLION_LAUGHS",
    "CJK_FONT",
    "DocMeta",
    "EXTERNAL_ENTITY",
    "blank_pdf_bytes",
    "docx_bytes",
    "encrypted_pdf_bytes",
    "error_output",
    "execute_cells",
    "find_cjk_font",
    "handout_pdf_bytes",
    "image_output",
    "many_entries",
    "notebook_bytes",
    "pdf_bytes",
    "pptx_bytes",
    "rewrite_zip",
    "stream_output",
    "with_doctype",
    "write",
    "zip_bomb",
]


def write(directory: Path, name: str, data: bytes) -> Path:
    """Write `data` as `directory/name` and return the path."""
    path = Path(directory) / name
    path.write_bytes(data)
    return path
