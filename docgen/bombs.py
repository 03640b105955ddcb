"""Parse bombs: small, valid files that cost a parser far more time or memory than their size.

Each one passed every size and zip limit of the parsers before they had a work budget (the
red-team figures are in SECURITY.md). The tests make them at a size that finishes in seconds
once budgets exist; `scripts`-style callers can scale them up to reproduce the originals.
"""

from __future__ import annotations

import io
import json
import zipfile

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _docx(document_body: str, styles: str = "") -> bytes:
    """A minimal, valid .docx: content types, relationships, the document and its styles."""
    content_types = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        '<Override PartName="/word/styles.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
        "</Types>"
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'officeDocument" Target="word/document.xml"/></Relationships>'
    )
    doc_rels = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'styles" Target="styles.xml"/></Relationships>'
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", content_types)
        archive.writestr("_rels/.rels", rels)
        archive.writestr("word/_rels/document.xml.rels", doc_rels)
        archive.writestr(
            "word/document.xml",
            f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{_W}"><w:body>{document_body}</w:body></w:document>',
        )
        archive.writestr(
            "word/styles.xml", f'<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="{_W}">{styles}</w:styles>'
        )
    return out.getvalue()


def docx_style_bomb(styles: int = 20_000, paragraphs: int = 1_000) -> bytes:
    """Many paragraph styles, and paragraphs that each name the last one: python-docx looks a
    paragraph's style up by scanning every style, so the cost is styles x paragraphs
    (20,000 x 1,000 in 136 KB took 58 s)."""
    defined = "".join(
        f'<w:style w:type="paragraph" w:styleId="S{i}"><w:name w:val="Style {i}"/></w:style>' for i in range(styles)
    )
    last = f"S{styles - 1}"
    body = "".join(
        f'<w:p><w:pPr><w:pStyle w:val="{last}"/></w:pPr><w:r><w:t>Paragraph {i}</w:t></w:r></w:p>'
        for i in range(paragraphs)
    )
    return _docx(body, defined)


def docx_paragraph_bomb(paragraphs: int = 2_000_000, prefix: str = "w") -> bytes:
    """Millions of empty paragraphs, which compress to almost nothing (80 KB took 110 s and
    1.15 GB). `prefix` renames the namespace prefix, which XML allows and a naive count misses."""
    body = f"<{prefix}:p/>" * paragraphs
    document = (
        f'<?xml version="1.0" encoding="UTF-8"?><{prefix}:document xmlns:{prefix}="{_W}"><{prefix}:body>'
        f"{body}<{prefix}:p><{prefix}:r><{prefix}:t>end</{prefix}:t></{prefix}:r></{prefix}:p>"
        f"</{prefix}:body></{prefix}:document>"
    )
    data = _docx("")
    from docgen.hostile import rewrite_zip

    return rewrite_zip(data, {"word/document.xml": document.encode("utf-8")})


def pptx_shape_bomb(base: bytes, shapes: int = 200_000) -> bytes:
    """The presentation `base` with `shapes` empty shapes added to its first slide."""
    from docgen.hostile import rewrite_zip

    with zipfile.ZipFile(io.BytesIO(base)) as archive:
        member = "ppt/slides/slide1.xml"
        slide = archive.read(member).decode("utf-8")
    shape = '<p:sp><p:nvSpPr><p:cNvPr id="{i}" name="s"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/></p:sp>'
    extra = "".join(shape.format(i=1000 + i) for i in range(shapes))
    slide = slide.replace("</p:spTree>", extra + "</p:spTree>", 1)
    return rewrite_zip(base, {member: slide.encode("utf-8")})


def pdf_shared_stream_bomb(pages: int = 20, decoded_mb: float = 8.0) -> bytes:
    """`pages` pages that all draw one Flate-compressed content stream of `decoded_mb` MB of
    cheap operators: a few KB on disk, re-decoded and re-interpreted for every page
    (an 8 KB, 20-page file held an upload slot for 106 s)."""
    import zlib

    operator = b"1 0 0 1 0 0 cm\n"
    raw = operator * int(decoded_mb * 1024 * 1024 / len(operator))
    raw += b"BT /F1 12 Tf 72 720 Td (Shared page text) Tj ET\n"
    stream = zlib.compress(raw, 9)
    objects: list[bytes] = []
    kids = " ".join(f"{5 + i} 0 R" for i in range(pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
    for _ in range(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
        )
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def notebook_bomb(megabytes: float = 20.0) -> bytes:
    """A valid notebook of one cell whose source is `megabytes` MB of short strings: json
    builds one Python object per string (a 20 MB file peaked at 570 MB before it was refused)."""
    line = "x = 1\n"
    count = int(megabytes * 1024 * 1024 / (len(line) + 4))
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": [line] * count}
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}
    return json.dumps(notebook, separators=(",", ":")).encode("utf-8")


def notebook_cells_bomb(megabytes: float = 20.0) -> bytes:
    """A valid notebook of hundreds of thousands of one-line cells: `json` builds a dict per
    cell and the parser a section per cell before any limit on passages is reached."""
    cell = '{"cell_type":"markdown","metadata":{},"source":["note %d"]}'
    count = int(megabytes * 1024 * 1024 / (len(cell) + 4))
    cells = ",".join(cell % i for i in range(count))
    return ('{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[' + cells + "]}").encode("utf-8")
