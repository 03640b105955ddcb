"""Word and PowerPoint files from simple block and slide lists (python-docx, python-pptx).

With a `DocMeta` the file gets core properties and fixed timestamps (also on every ZIP
member), so rebuilding it gives the same bytes; without one the libraries' defaults apply.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class DocMeta:
    """Core properties of a generated Office file, and the one timestamp it carries."""

    title: str
    author: str
    language: str
    created: dt.datetime


def fixed_zip(data: bytes, date_time: tuple[int, int, int, int, int, int]) -> bytes:
    """The OOXML package rewritten with one timestamp on every member (byte-identical rebuilds)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zin:
        members = [(info.filename, zin.read(info.filename)) for info in zin.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, content in members:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zout.writestr(info, content)
    return out.getvalue()


def _finish(document, meta: DocMeta | None) -> bytes:
    """Core properties (with a DocMeta), save, and fix the timestamps."""
    if meta is not None:
        naive = meta.created.replace(tzinfo=None)
        props = document.core_properties
        props.title, props.author, props.last_modified_by = meta.title, meta.author, meta.author
        props.language, props.created, props.modified, props.revision = meta.language, naive, naive, 1
    out = io.BytesIO()
    document.save(out)
    if meta is None:
        return out.getvalue()
    created = meta.created
    return fixed_zip(
        out.getvalue(), (created.year, created.month, created.day, created.hour, created.minute, created.second)
    )


# --------------------------------------------------------------------------- Word


def _set_east_asian_font(document, font: str) -> None:
    from docx.oxml.ns import qn

    for name in ["Normal", "Title", "Heading 1", "Heading 2", "List Bullet"]:
        rpr = document.styles[name].element.get_or_add_rPr()
        rfonts = rpr.find(qn("w:rFonts"))
        if rfonts is None:
            rfonts = rpr.makeelement(qn("w:rFonts"), {})
            rpr.insert(0, rfonts)
        rfonts.set(qn("w:eastAsia"), font)


def _add_table(document, rows: Sequence[Sequence[str]], kind: str) -> None:
    """ "table": plain cells; "merged": its first row one cell across all columns; "grid":
    a bold header row, grid lines, and an empty paragraph after it (as a lecturer writes)."""
    if kind == "grid":
        header, *body = rows
        table = document.add_table(rows=1, cols=len(header))
        table.style = "Table Grid"
        for cell, text in zip(table.rows[0].cells, header):
            cell.text = text
            for run in cell.paragraphs[0].runs:
                run.bold = True
        for row in body:
            for cell, text in zip(table.add_row().cells, row):
                cell.text = text
        document.add_paragraph()
        return
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    if kind == "merged":
        merged = table.cell(0, 0).merge(table.cell(0, len(rows[0]) - 1))
        merged.text = rows[0][0]


def docx_bytes(
    blocks: Sequence[tuple],
    meta: DocMeta | None = None,
    east_asian_font: str | None = None,
    normal_pt: float | None = None,
) -> bytes:
    """A Word file from blocks: ("title", text), ("h1".."h9", text), ("p", text),
    ("b", bullet), ("n", numbered item), ("table" | "merged" | "grid", rows).

    Numbered items carry their number in the text ("1. ..."), so text extraction keeps it.
    """
    import docx
    from docx.shared import Pt

    document = docx.Document()
    if normal_pt is not None:
        document.styles["Normal"].font.size = Pt(normal_pt)
    if east_asian_font:
        _set_east_asian_font(document, east_asian_font)
    number = 0
    for kind, content in blocks:
        number = number + 1 if kind == "n" else 0
        if kind == "title":
            document.add_heading(content, level=0)
        elif kind.startswith("h") and kind[1:].isdigit():
            document.add_heading(content, level=int(kind[1:]))
        elif kind == "p":
            document.add_paragraph(content)
        elif kind == "b":
            document.add_paragraph(content, style="List Bullet")
        elif kind == "n":
            document.add_paragraph(f"{number}. {content}").paragraph_format.left_indent = Pt(18)
        elif kind in ("table", "merged", "grid"):
            _add_table(document, content, kind)
        else:
            raise ValueError(f"unknown block kind {kind!r}")
    return _finish(document, meta)


# --------------------------------------------------------------------------- PowerPoint


def _title_slide(deck, title: str, subtitle: str, widescreen: bool) -> None:
    from pptx.util import Inches

    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = title
    first.placeholders[1].text = subtitle
    if widescreen:
        for shape in first.placeholders:
            shape.left, shape.width = Inches(0.8), Inches(11.7)


def _lay_out_widescreen(slide) -> None:
    """Title and body spread over a 16:9 slide, the title at 34 pt."""
    from pptx.util import Inches, Pt

    title, body = slide.shapes.title, slide.placeholders[1]
    title.left, title.top, title.width, title.height = Inches(0.6), Inches(0.3), Inches(12.1), Inches(1.1)
    title.text_frame.paragraphs[0].runs[0].font.size = Pt(34)
    body.left, body.top, body.width, body.height = Inches(0.6), Inches(1.5), Inches(12.1), Inches(5.6)
    body.text_frame.word_wrap = True


def _add_slide(deck, spec: dict, widescreen: bool, body_pt: float | None) -> None:
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches, Pt

    if "title" not in spec:
        slide = deck.slides.add_slide(deck.slide_layouts[6])
        slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(1), Inches(2), Inches(2))
        return
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = spec["title"]
    if widescreen:
        _lay_out_widescreen(slide)
    frame = slide.placeholders[1].text_frame
    for i, line in enumerate(spec.get("body", [])):
        level = 1 if line.startswith("  ") else 0
        para = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        para.text = line.strip()
        para.level = level
        if body_pt is not None:
            for run in para.runs:
                run.font.size = Pt(body_pt - 2 * level)
    if "table" in spec:
        rows = spec["table"]
        shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(1), Inches(4), Inches(6), Inches(1))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                shape.table.cell(r, c).text = value
    if spec.get("notes") is not None:
        slide.notes_slide.notes_text_frame.text = spec["notes"]


def pptx_bytes(
    slides: Sequence[dict],
    meta: DocMeta | None = None,
    title_slide: tuple[str, str] | None = None,
    widescreen: bool = False,
    body_pt: float | None = None,
) -> bytes:
    """A PowerPoint file; each slide is {"title", "body": [lines], "notes", "table": rows}.

    A body line starting with two spaces is a second-level bullet. A slide without "title"
    uses the blank layout and gets only a shape with no text. `title_slide` (title,
    subtitle) opens the deck; `widescreen` makes it 16:9 with the text spread to fit;
    `body_pt` sizes the body text (2 pt less per level).
    """
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    if widescreen:
        deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
    if title_slide is not None:
        _title_slide(deck, *title_slide, widescreen=widescreen)
    for spec in slides:
        _add_slide(deck, spec, widescreen, body_pt)
    return _finish(deck, meta)
