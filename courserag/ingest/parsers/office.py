"""Word (.docx, python-docx) and PowerPoint (.pptx, python-pptx), after the zip guards.

DOCX: one section per heading, located by its heading path ("Week 5 > AVL rotations"; WPS's
"标题 1" styles count too), tables as "a | b" rows, and "paragraphs N-M" sections for text
before the first heading. PPTX: one "slide N" section per slide with text: its title, the
text of its shapes (groups and tables included) and its speaker notes.

Equations (Office Math) are read as LaTeX where they stand (office_math.py, omml.py), so a
formula is searched and shown with its sentence. Images are left out, and a warning says how
many, so a student knows why a figure on slide 6 is not found.
"""

from __future__ import annotations

import io
import re
from typing import Iterator

from courserag.config.settings import Limits
from courserag.errors import EmptyFileError, FileTooLargeError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers.guard import check_ooxml
from courserag.ingest.parsers.office_math import ALTERNATE, MC, has_math, in_fallback, paragraph_text, paragraphs_text
from courserag.ingest.parsers.text import (
    MAX_HEADING_CHARS,
    SECTION_MAX_CHARS,
    Extracted,
    TextBudget,
    clean,
    heading_path,
    numbered,
    path_text,
    squash,
    truncation_warning,
)
from courserag.records import Section

MAX_SHAPE_DEPTH = 20  # nested PowerPoint groups deeper than this are ignored
_DRAWING = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}drawing"
_VML_PICTURE = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}pict"
_PICTURE = "{http://schemas.openxmlformats.org/presentationml/2006/main}pic"


def dropped_warnings(images: int) -> list[Notice]:
    """What was left out of a file, said by count ("3 images were left out…")."""
    warnings = []
    if images:
        warnings.append(Notice("image_dropped" if images == 1 else "images_dropped", {"count": images}))
    return warnings


def _count(element, tag: str) -> int:
    """Elements `tag` under `element`, not counting those nested in another one nor the
    fallback copies of alternate content (PowerPoint's picture of an equation)."""
    return sum(
        1 for node in element.iter(tag) if not any(a.tag == tag for a in node.iterancestors()) and not in_fallback(node)
    )


# --------------------------------------------------------------------------- DOCX

_HEADING_STYLE = re.compile(r"(?:heading|标题)\s*([1-9])", re.IGNORECASE)  # WPS names them "标题 1"


def _style_names(document) -> dict[str | None, str]:
    """Paragraph style id -> its name (None -> the default paragraph style's), read once.

    python-docx's `paragraph.style` finds a style by scanning every style of the document, so
    asking each paragraph costs styles x paragraphs (20,000 styles x 1,000 paragraphs: 58 s).
    """
    from docx.enum.style import WD_STYLE_TYPE

    names: dict[str | None, str] = {}
    try:
        for style in document.styles:
            if style.type == WD_STYLE_TYPE.PARAGRAPH and style.style_id not in names:
                names[style.style_id] = (style.name or "").strip()
        default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
        names[None] = (default.name or "").strip() if default is not None else ""
    except Exception:  # noqa: BLE001 - broken styles: no paragraph is a heading
        return {}
    return names


def _docx_heading_level(paragraph, style_names: dict[str | None, str]) -> int | None:
    try:
        style_id = paragraph._p.style
    except Exception:  # noqa: BLE001 - a broken style reference is just not a heading
        return None
    match = _HEADING_STYLE.fullmatch(style_names.get(style_id, style_names.get(None, "")))
    return int(match.group(1)) if match else None


def _paragraph_text(paragraph) -> str:
    """A paragraph's text, its equations as LaTeX in place (python-docx reads runs only)."""
    return paragraph_text(paragraph._p) if has_math(paragraph._p) else paragraph.text


def _cell_text(cell) -> str:
    return "\n".join(_paragraph_text(p) for p in cell.paragraphs)


def _docx_table_text(table) -> str:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if cell is previous:  # a horizontally merged cell repeats the same object
                continue
            previous = cell
            cells.append(" ".join(squash(_cell_text(cell)).split("\n")))
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def _docx_blocks(document) -> Iterator[tuple[int | None, str]]:
    """(heading level or None, text) for each non-empty paragraph and table, in order."""
    from docx.table import Table

    style_names = _style_names(document)
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            text = _docx_table_text(item)
            level = None
        else:
            text = squash(_paragraph_text(item))
            level = _docx_heading_level(item, style_names) if text else None
        if text:
            yield level, text


def parse_docx(data: bytes, name: str, limits: Limits) -> Extracted:
    check_ooxml(data, name, "docx", limits)
    import docx

    document = docx.Document(io.BytesIO(data))
    budget = TextBudget(limits.max_text_chars)
    # (heading path, heading title, numbered blocks under it); text before any heading has no path
    groups: list[tuple[str, str, list[tuple[int, str]]]] = [("", "", [])]
    stack: list[tuple[int, str]] = []
    number = 0
    for level, text in _docx_blocks(document):
        number += 1
        text = budget.take(text)
        if level is None:
            groups[-1][2].append((number, text))
        else:
            stack = heading_path(stack, level, " ".join(text.split()))
            groups.append((path_text(stack), stack[-1][1], []))
        if budget.exhausted:
            break
    sections: list[Section] = []
    for path, title, body in groups:
        if body and path:
            text = "\n".join([title] + [t for _, t in body])
            sections.append(Section(text=text, locator=path, heading=path))
        elif body:
            sections.extend(_paragraph_sections(body))
    if not sections:
        raise EmptyFileError(name, "docx_no_text")
    warnings = [truncation_warning(limits.max_text_chars)] if budget.exhausted else []
    body = document.element.body
    warnings += dropped_warnings(_count(body, _DRAWING) + _count(body, _VML_PICTURE))
    return Extracted(sections, number, warnings)


def _paragraph_sections(blocks: list[tuple[int, str]]) -> Iterator[Section]:
    """Group numbered paragraphs without a heading into "paragraphs N-M" sections."""
    group: list[tuple[int, str]] = []
    chars = 0
    for block in blocks + [(0, "")]:
        if group and (not block[1] or chars + len(block[1]) > SECTION_MAX_CHARS):
            locator = f"paragraphs {group[0][0]}-{group[-1][0]}"
            yield Section(text="\n".join(t for _, t in group), locator=locator)
            group, chars = [], 0
        if block[1]:
            group.append(block)
            chars += len(block[1]) + 1


# --------------------------------------------------------------------------- PPTX


def _frame_text(frame) -> str:
    """A text frame's text, its equations as LaTeX in place (python-pptx reads runs only)."""
    return paragraphs_text(frame._txBody) if has_math(frame._txBody) else frame.text


def _pptx_shape_texts(shapes, skip_id: int | None, depth: int = 0) -> Iterator[str]:
    """The text of each shape in slide order; a shape PowerPoint wrapped in alternate content
    (one holding an equation) is read from its choice, which python-pptx does not list."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if depth > MAX_SHAPE_DEPTH:
        return
    known = {shape._element: shape for shape in shapes}
    for element in shapes._spTree:
        if element.tag == ALTERNATE:
            choice = element.find(f"{{{MC}}}Choice")
            text = squash(paragraphs_text(choice)) if choice is not None else ""
            if text:
                yield text
            continue
        shape = known.get(element)
        if shape is None or shape.shape_id == skip_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _pptx_shape_texts(shape.shapes, skip_id, depth + 1)
        elif shape.has_text_frame:
            text = squash(_frame_text(shape.text_frame))
            if text:
                yield text
        elif getattr(shape, "has_table", False) and shape.has_table:
            rows = (
                " | ".join(" ".join(_frame_text(cell.text_frame).split()) for cell in row.cells)
                for row in shape.table.rows
            )
            text = clean("\n".join(row for row in rows if row.strip(" |")))
            if text:
                yield text


def _slide_text(slide) -> tuple[str, str]:
    """(title, all the slide's text: title, shapes, then "Notes: …"); both may be empty."""
    title_shape = slide.shapes.title
    title = ""
    if title_shape is not None and title_shape.has_text_frame:
        title = " ".join(squash(title_shape.text_frame.text).split())[:MAX_HEADING_CHARS]
    parts = [title] if title else []
    parts.extend(_pptx_shape_texts(slide.shapes, title_shape.shape_id if title_shape is not None else None))
    if slide.has_notes_slide:
        notes_frame = slide.notes_slide.notes_text_frame
        notes = squash(notes_frame.text) if notes_frame is not None else ""
        if notes:
            parts.append(f"Notes: {notes}")
    return title, "\n".join(parts)


def parse_pptx(data: bytes, name: str, limits: Limits) -> Extracted:
    check_ooxml(data, name, "pptx", limits)
    import pptx

    presentation = pptx.Presentation(io.BytesIO(data))
    slides = list(presentation.slides)
    if len(slides) > limits.max_pages:
        raise FileTooLargeError(name, "pptx_too_many_slides", slides=len(slides), limit=limits.max_pages)
    if not slides:
        raise EmptyFileError(name, "pptx_no_slides")

    budget = TextBudget(limits.max_text_chars)
    sections: list[Section] = []
    blank: list[int] = []
    slides_read = 0
    images = 0
    for number, slide in enumerate(slides, 1):
        slides_read = number
        images += _count(slide.element, _PICTURE)
        title, text = _slide_text(slide)
        if not text:
            blank.append(number)
            continue
        sections.append(Section(text=budget.take(text), locator=f"slide {number}", heading=title))
        if budget.exhausted:
            break

    if not sections:
        raise EmptyFileError(name, "pptx_no_text")
    warnings: list[Notice] = []
    if blank:
        warnings.append(numbered("slide_no_text", "slides_no_text", blank))
    if budget.exhausted:
        warnings.append(truncation_warning(limits.max_text_chars))
    warnings += dropped_warnings(images)
    return Extracted(sections, slides_read, warnings)
