"""Jupyter notebooks (.ipynb, nbformat 3 and 4): one "cell N" section per cell with text.

Markdown cells set the heading path of the cells after them; code cells carry their
readable outputs (streams, text results, "Error: message"), each and all cut to size.
Images, HTML and embedded data URIs are dropped.
"""

from __future__ import annotations

import json
import re

from courserag.config.settings import Limits
from courserag.errors import CorruptFileError, EmptyFileError
from courserag.ingest.parsers.guard import check_notebook
from courserag.ingest.parsers.markdown import markdown_headings
from courserag.ingest.parsers.text import (
    Extracted,
    TextBudget,
    clean,
    decode_text,
    heading_path,
    numbered,
    path_text,
    squash,
    truncation_warning,
)
from courserag.records import Section

OUTPUT_MAX_CHARS = 2000  # one notebook output
CELL_OUTPUT_MAX_CHARS = 4000  # all outputs of one notebook cell

_DATA_URI = re.compile(r"data:[\w.+-]+/[\w.+-]+;base64,[A-Za-z0-9+/=\s]+")


def _join_source(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


def _output_text(output: object) -> str:
    """The readable text of one output: streams, text/plain results and error names.

    Images, HTML and other rich outputs are dropped; tracebacks are reduced to "Error: message".
    """
    if not isinstance(output, dict):
        return ""
    kind = output.get("output_type")
    if kind == "stream":
        return _join_source(output.get("text"))
    if kind in ("execute_result", "display_data", "pyout"):
        data = output.get("data")
        plain = data.get("text/plain") if isinstance(data, dict) else output.get("text")
        return _join_source(plain)
    if kind in ("error", "pyerr"):
        return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
    return ""


def _cell_outputs(outputs: object) -> tuple[str, bool]:
    """All outputs of a cell as one text, each and all cut to size; and whether anything was cut."""
    if not isinstance(outputs, list):
        return "", False
    texts: list[str] = []
    used, cut = 0, False
    for output in outputs:
        raw = _output_text(output)
        text = squash(raw[: 2 * OUTPUT_MAX_CHARS])  # never squash megabytes we would drop
        if not text:
            continue
        limit = min(OUTPUT_MAX_CHARS, CELL_OUTPUT_MAX_CHARS - used)
        if limit <= 0:
            cut = True
            break
        if len(text) > limit or len(raw) > 2 * OUTPUT_MAX_CHARS:
            text, cut = text[:limit].rstrip() + " … [output truncated]", True
        texts.append(text)
        used += len(text)
    return "\n".join(texts), cut


def _notebook_cells(text: str, name: str) -> list:
    """The notebook's list of cells (nbformat 4, or the first worksheet of nbformat 3)."""
    try:
        notebook = json.loads(text)
    except (ValueError, RecursionError):
        raise CorruptFileError(name, "notebook_bad_json") from None
    if not isinstance(notebook, dict):
        raise CorruptFileError(name, "notebook_no_cells")
    cells = notebook.get("cells")
    if cells is None and isinstance(notebook.get("worksheets"), list):  # nbformat 3
        sheets = notebook["worksheets"]
        cells = sheets[0].get("cells") if sheets and isinstance(sheets[0], dict) else None
    if not isinstance(cells, list):
        raise CorruptFileError(name, "notebook_no_cells")
    return cells


def parse_notebook(data: bytes, name: str, limits: Limits) -> Extracted:
    check_notebook(data, name, limits)
    text, note = decode_text(data, name)
    cells = _notebook_cells(text, name)
    warnings = [note] if note else []
    budget = TextBudget(limits.max_text_chars)
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    truncated: list[int] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = clean(_join_source(cell.get("source", cell.get("input")))).strip()
        if kind == "markdown":
            source = _DATA_URI.sub("[image]", source)
            for _, _, level, title in markdown_headings(source.split("\n")):
                stack = heading_path(stack, level, title)
        parts = [source] if source else []
        if kind == "code":
            outputs, cut = _cell_outputs(cell.get("outputs"))
            if outputs:
                parts.append(f"Output:\n{outputs}")
            if cut:
                truncated.append(number)
        if not parts:
            continue
        text = budget.take("\n\n".join(parts))
        sections.append(Section(text=text, locator=f"cell {number}", heading=path_text(stack)))
        if budget.exhausted:
            break
    if not sections:
        raise EmptyFileError(name, "notebook_no_text")
    if truncated:
        warnings.append(numbered("cell_output_cut", "cells_output_cut", truncated))
    if budget.exhausted:
        warnings.append(truncation_warning(limits.max_text_chars))
    return Extracted(sections, len(cells), warnings)
