"""Build real test files at test time: PDFs, Word and PowerPoint files, notebooks, bad inputs.

Nothing binary is committed; each helper returns bytes (or writes into a directory the test
owns, normally pytest's tmp_path), so a test shows exactly what it feeds the parser.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Sequence

CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")

# "Billion laughs": ten levels of ten references each expand to 10**9 "lol"s if resolved.
_LAUGHS = "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
BILLION_LAUGHS = (f'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol0 "lol">{_LAUGHS}]>\n', "&lol9;")
# XXE: an external entity that would pull a local file into the document.
EXTERNAL_ENTITY = ('<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n', "&xxe;")


def write(directory: Path, name: str, data: bytes) -> Path:
    """Write `data` as `directory/name` and return the path."""
    path = directory / name
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------- PDF


def pdf_bytes(pages: Sequence[str | None], cjk_font: Path | None = None) -> bytes:
    """A PDF with one page per item: text pages, or (None) a page with only a drawn rectangle."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_compression(True)
    if cjk_font is not None:
        pdf.add_font("cjk", fname=str(cjk_font), collection_font_number=0)
    for text in pages:
        pdf.add_page()
        if text is None:
            pdf.set_fill_color(30, 90, 160)
            pdf.rect(20, 30, 80, 60, style="F")  # an "image" with no text layer
            continue
        pdf.set_font("cjk" if cjk_font is not None else "Helvetica", size=11)
        pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def encrypted_pdf_bytes(user_password: str, owner_password: str, text: str = "Secret lecture notes") -> bytes:
    """A one-page text PDF encrypted with pypdf; an empty user password means owner-only."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes([text]))))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_pdf_bytes(page_count: int) -> bytes:
    """A PDF of `page_count` tiny blank pages, fast to make even for thousands of pages."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(page_count):
        writer.add_blank_page(width=72, height=72)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# --------------------------------------------------------------------------- DOCX and PPTX


def docx_bytes(blocks: Sequence[tuple]) -> bytes:
    """A Word file from ("h1".."h3", text), ("p", text), ("table", rows) and ("merged", rows).

    "merged" builds a table whose first row is one cell spanning all columns.
    """
    import docx

    document = docx.Document()
    for kind, content in blocks:
        if kind.startswith("h"):
            document.add_heading(content, level=int(kind[1:]))
        elif kind == "p":
            document.add_paragraph(content)
        elif kind in ("table", "merged"):
            table = document.add_table(rows=len(content), cols=len(content[0]))
            for r, row in enumerate(content):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
            if kind == "merged":
                merged = table.cell(0, 0).merge(table.cell(0, len(content[0]) - 1))
                merged.text = content[0][0]
        else:
            raise ValueError(f"unknown block kind {kind!r}")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_bytes(slides: Sequence[dict]) -> bytes:
    """A PowerPoint file; each slide is {"title", "body": [lines], "notes", "table": rows}.

    A slide dict without "title" uses the blank layout and gets only a shape with no text.
    """
    import pptx
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    presentation = pptx.Presentation()
    for spec in slides:
        if "title" not in spec:
            slide = presentation.slides.add_slide(presentation.slide_layouts[6])
            slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(1), Inches(2), Inches(2))
            continue
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = spec["title"]
        body = slide.placeholders[1].text_frame
        body.text = "\n".join(spec.get("body", []))
        if "table" in spec:
            rows = spec["table"]
            frame = slide.shapes.add_table(len(rows), len(rows[0]), Inches(1), Inches(4), Inches(6), Inches(1))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    frame.table.cell(r, c).text = value
        if spec.get("notes"):
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def rewrite_zip(data: bytes, replacements: dict[str, bytes | None]) -> bytes:
    """Copy a zip, replacing or adding the members named in `replacements` (None deletes one)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename not in replacements:
                target.writestr(info.filename, source.read(info))
        for member, content in replacements.items():
            if content is not None:
                target.writestr(member, content)
    return out.getvalue()


def with_doctype(
    data: bytes, member: str, attack: tuple[str, str] = BILLION_LAUGHS, encoding: str = "utf-8"
) -> bytes:
    """The Office file `data` with a DTD attack (prolog, entity reference) put into `member`."""
    prolog, reference = attack
    prolog = prolog.replace('version="1.0"', f'version="1.0" encoding="{encoding.upper()}"')
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        original = archive.read(member).decode("utf-8")
    body = original[original.index("?>") + 2 :] if original.startswith("<?xml") else original
    # Reference the entity inside the first text run so that a resolving parser would expand it.
    body = body.replace("</w:t>", f"{reference}</w:t>", 1).replace("</a:t>", f"{reference}</a:t>", 1)
    return rewrite_zip(data, {member: (prolog + body).encode(encoding)})


def zip_bomb(data: bytes, member: str, unpacked_mb: int) -> bytes:
    """The Office file `data` plus a member of `unpacked_mb` MB of zeros, streamed (low memory)."""
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open(member, "w", force_zip64=True) as stream:
            zeros = bytes(1024 * 1024)
            for _ in range(unpacked_mb):
                stream.write(zeros)
    return out.getvalue()


def many_entries(data: bytes, count: int) -> bytes:
    """The Office file `data` plus `count` tiny stored members."""
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_STORED) as archive:
        for i in range(count):
            archive.writestr(f"customXml/item{i}.txt", b"x")
    return out.getvalue()


# --------------------------------------------------------------------------- notebooks


def notebook_bytes(cells: Sequence[dict]) -> bytes:
    """An nbformat-4 notebook; cells are {"markdown": src} or {"code": src, "outputs": [...]}."""
    nb_cells = []
    for cell in cells:
        if "markdown" in cell:
            nb_cells.append({"cell_type": "markdown", "metadata": {}, "source": cell["markdown"]})
        else:
            nb_cells.append(
                {
                    "cell_type": "code",
                    "execution_count": 1,
                    "metadata": {},
                    "source": cell["code"].splitlines(keepends=True),
                    "outputs": cell.get("outputs", []),
                }
            )
    notebook = {
        "cells": nb_cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, ensure_ascii=False).encode("utf-8")


def stream_output(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def image_output(text_plain: str = "<Figure size 640x480 with 1 Axes>", base64_bytes: int = 200_000) -> dict:
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": "iVBORw0KGgo" + "A" * base64_bytes, "text/plain": text_plain},
    }


def error_output(ename: str, evalue: str) -> dict:
    return {
        "output_type": "error",
        "ename": ename,
        "evalue": evalue,
        "traceback": ["\x1b[0;31m---------------------------------------------------------------------------\x1b[0m"],
    }
