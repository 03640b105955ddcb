"""PDFs (fpdf2): plain text pages for tests and benchmarks, lecture handouts for the sample
courses, and encrypted or enormous ones for the parser's guards."""

from __future__ import annotations

import datetime as dt
import io
import os
import re
from pathlib import Path
from typing import Sequence

CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
CJK_FONT_CANDIDATES = [
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
]

Page = str | None | tuple[str, str]


def find_cjk_font() -> Path | None:
    """A CJK TrueType font: COURSERAG_CJK_FONT, else the first Debian font path that exists
    (`apt-get install fonts-wqy-microhei` provides the first one)."""
    for candidate in [os.environ.get("COURSERAG_CJK_FONT", "")] + CJK_FONT_CANDIDATES:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def _latin(text: str) -> str:
    """fpdf2's core fonts are Latin-1: replace what they cannot draw."""
    return text.encode("latin-1", "replace").decode("latin-1")


def pdf_bytes(
    pages: Sequence[Page], cjk_font: Path | None = None, font_size: float = 11, line_height: float = 6
) -> bytes:
    """A PDF with one page per item: text; (heading, text) with a bold heading above the
    text; or None, a page with only a drawn rectangle (an "image" with no text layer).

    Without `cjk_font` the core font Helvetica is used, which draws Latin-1 only.
    """
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_compression(True)
    if cjk_font is not None:
        pdf.add_font("cjk", fname=str(cjk_font), collection_font_number=0)
    font = "cjk" if cjk_font is not None else "Helvetica"
    draw = (lambda text: text) if cjk_font is not None else _latin
    for page in pages:
        pdf.add_page()
        if page is None:
            pdf.set_fill_color(30, 90, 160)
            pdf.rect(20, 30, 80, 60, style="F")
            continue
        if isinstance(page, tuple):
            heading, page = page
            pdf.set_font(font, "" if cjk_font is not None else "B", size=font_size + 2)
            pdf.cell(0, line_height + 2, draw(heading), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font(font, size=font_size)
        pdf.multi_cell(0, line_height, draw(page))
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


# --------------------------------------------------------------------------- lecture handouts


def _check_glyphs(font_path: Path, texts: list[str]) -> None:
    """Fail loudly instead of producing a PDF with missing (blank) glyphs."""
    from fontTools.ttLib import TTCollection, TTFont

    font = TTCollection(str(font_path)).fonts[0] if font_path.suffix.lower() == ".ttc" else TTFont(str(font_path))
    cmap = font.getBestCmap()
    missing = sorted({ch for t in texts for ch in t if not ch.isspace() and ord(ch) not in cmap})
    if missing:
        raise ValueError(f"font {font_path} lacks glyphs for: {''.join(missing)!r}")


_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef\u201c\u201d\u2018\u2019"
_TOKEN = re.compile(rf"\s+|[{_CJK}]|[^\s{_CJK}]+")
_NO_LINE_START = set("，。、；：！？）》”’")
_NO_LINE_END = set("（《“‘")


def _wrap_mixed(pdf, text: str, width: float) -> str:
    """Break Chinese text between any two CJK characters, but never inside a Latin word,
    never before closing punctuation and never after opening punctuation; returns the text
    with explicit newlines (so multi_cell does not re-wrap it)."""
    lines: list[list[str]] = []
    line: list[str] = []
    for tok in _TOKEN.findall(text):
        if pdf.get_string_width("".join(line) + tok) <= width:
            line.append(tok)
            continue
        if tok.isspace():
            lines.append(line)
            line = []
            continue
        carry: list[str] = []
        if tok in _NO_LINE_START and line:  # keep the previous token with the punctuation
            carry.insert(0, line.pop())
        while line and line[-1] in _NO_LINE_END:  # an opening bracket moves down as well
            carry.insert(0, line.pop())
        lines.append(line)
        line = carry + [tok]
    lines.append(line)
    return "\n".join(t for t in ("".join(part).strip() for part in lines) if t)


def _handout_element(pdf, kind: str, text: str, fonts: dict, line_h: float, cjk: bool) -> None:
    """One element of a handout page: "h" heading, "p" paragraph, "b" bullet, "code"."""
    from fpdf.enums import XPos, YPos

    width = pdf.epw
    if kind == "h":
        pdf.set_font(*fonts["bold"], size=16)
        pdf.multi_cell(width, 9, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(2)
    elif kind == "p":
        pdf.set_font(*fonts["body"], size=10.5)
        if cjk:
            text = _wrap_mixed(pdf, text, width - 2 * pdf.c_margin - 0.5)
        pdf.multi_cell(width, line_h, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(2)
    elif kind == "b":
        pdf.set_font(*fonts["body"], size=10.5)
        pdf.set_x(pdf.l_margin + 4)
        text = "- " + text
        if cjk:
            text = _wrap_mixed(pdf, text, width - 4 - 2 * pdf.c_margin - 0.5)
        pdf.multi_cell(width - 4, line_h, text, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(1)
    elif kind == "code":
        pdf.set_font(*fonts["mono"], size=9.5)
        pdf.set_fill_color(242, 242, 242)
        pdf.set_x(pdf.l_margin + 4)
        pdf.multi_cell(width - 4, 5, text, fill=True, align="L", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(2)
    else:
        raise ValueError(kind)


def handout_pdf_bytes(
    title: str,
    pages: Sequence[Sequence[tuple[str, str]]],
    *,
    lang: str,
    author: str,
    creator: str,
    created: dt.datetime,
    cjk_font: Path | None = None,
) -> bytes:
    """An A4 lecture handout: the title atop every page, elements ("h" | "p" | "b" | "code",
    text), "Page n of N" at the foot. Fixed metadata, so a rebuild gives the same bytes.

    English handouts use the core fonts and must be ASCII; Chinese ones embed `cjk_font`
    and are line-broken between characters (never inside a Latin word). A page whose
    text does not fit is an error, not a silent second page.
    """
    from fpdf import FPDF
    from fpdf.enums import XPos, YPos

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_creation_date(created)
    pdf.set_title(title)
    pdf.set_author(author)
    pdf.set_lang(lang)
    pdf.set_creator(creator)
    pdf.set_margins(20, 18, 20)
    pdf.set_auto_page_break(False)
    if cjk_font is not None:
        pdf.add_font("cjk", "", str(cjk_font))
        fonts = {"body": ("cjk", ""), "bold": ("cjk", ""), "mono": ("cjk", "")}
        _check_glyphs(cjk_font, [title] + [t for page in pages for _, t in page])
    else:
        fonts = {"body": ("Helvetica", ""), "bold": ("Helvetica", "B"), "mono": ("Courier", "")}
        for page in pages:  # the core fonts only cover Latin-1; keep the English text ASCII
            for _, t in page:
                if not t.isascii():
                    raise ValueError(f"non-ASCII text in English PDF: {t!r}")
    line_h = 5.6 if cjk_font is None else 6.6
    for number, page in enumerate(pages, start=1):
        pdf.add_page()
        pdf.set_font(*fonts["body"], size=8)
        pdf.set_text_color(110, 110, 110)
        pdf.cell(pdf.epw, 5, title, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(3)
        pdf.set_text_color(0, 0, 0)
        for kind, text in page:
            _handout_element(pdf, kind, text, fonts, line_h, cjk_font is not None)
        if pdf.get_y() > pdf.h - 20:
            raise ValueError(f"{title}: page {number} overflows; shorten its text")
        pdf.set_y(pdf.h - 14)
        pdf.set_font(*fonts["body"], size=8)
        pdf.set_text_color(110, 110, 110)
        pdf.cell(pdf.epw, 5, f"Page {number} of {len(pages)}", align="C")
        pdf.set_text_color(0, 0, 0)
    return bytes(pdf.output())
