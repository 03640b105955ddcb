"""Math-heavy Word and PowerPoint files: real python-docx / python-pptx documents with Office
Math (OMML) written where Word and PowerPoint write it.

Word keeps an equation in its paragraph (`m:oMath` inline, `m:oMathPara` displayed);
PowerPoint wraps a shape holding one in `mc:AlternateContent`, `a14:m` in the choice and a
picture-like copy as the fallback. The small builders return OMML as text, so a test can
pair each piece with the LaTeX it must read as.
"""

from __future__ import annotations

import copy
import io
from typing import Sequence

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
A14_NS = "http://schemas.microsoft.com/office/drawing/2010/main"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def r(text: str, normal: bool = False) -> str:
    props = "<m:rPr><m:nor/></m:rPr>" if normal else ""
    return f"<m:r>{props}<m:t>{text}</m:t></m:r>"


def frac(num: str, den: str, kind: str = "") -> str:
    props = f'<m:fPr><m:type m:val="{kind}"/></m:fPr>' if kind else ""
    return f"<m:f>{props}<m:num>{num}</m:num><m:den>{den}</m:den></m:f>"


def sub(base: str, index: str) -> str:
    return f"<m:sSub><m:e>{base}</m:e><m:sub>{index}</m:sub></m:sSub>"


def sup(base: str, power: str) -> str:
    return f"<m:sSup><m:e>{base}</m:e><m:sup>{power}</m:sup></m:sSup>"


def subsup(base: str, index: str, power: str) -> str:
    return f"<m:sSubSup><m:e>{base}</m:e><m:sub>{index}</m:sub><m:sup>{power}</m:sup></m:sSubSup>"


def rad(body: str, degree: str = "") -> str:
    props = "" if degree else '<m:radPr><m:degHide m:val="1"/></m:radPr>'
    return f"<m:rad>{props}<m:deg>{degree}</m:deg><m:e>{body}</m:e></m:rad>"


def nary(char: str, lower: str, upper: str, body: str) -> str:
    props = f'<m:naryPr><m:chr m:val="{char}"/></m:naryPr>' if char else "<m:naryPr/>"
    return f"<m:nary>{props}<m:sub>{lower}</m:sub><m:sup>{upper}</m:sup><m:e>{body}</m:e></m:nary>"


def delim(*parts: str, begin: str = "", end: str = "") -> str:
    chars = (f'<m:begChr m:val="{begin}"/>' if begin else "") + (f'<m:endChr m:val="{end}"/>' if end else "")
    props = f"<m:dPr>{chars}</m:dPr>" if chars else ""
    return "<m:d>" + props + "".join(f"<m:e>{p}</m:e>" for p in parts) + "</m:d>"


def matrix(rows: Sequence[Sequence[str]]) -> str:
    body = "".join("<m:mr>" + "".join(f"<m:e>{cell}</m:e>" for cell in row) + "</m:mr>" for row in rows)
    return f"<m:m>{body}</m:m>"


def func(name: str, argument: str) -> str:
    return f"<m:func><m:fName>{r(name)}</m:fName><m:e>{argument}</m:e></m:func>"


def omath(body: str) -> str:
    return f'<m:oMath xmlns:m="{M_NS}">{body}</m:oMath>'


def omath_para(body: str) -> str:
    return f'<m:oMathPara xmlns:m="{M_NS}"><m:oMath>{body}</m:oMath></m:oMathPara>'


# The notes of a regression lecture, as Word would hold them.
HYPOTHESIS = sub(r("θ"), r("0")) + r("+") + sub(r("θ"), r("1")) + r("x")
COST = (
    r("J")
    + delim(r("θ"))
    + r("=")
    + frac(r("1"), r("2m"))
    + nary(
        "∑",
        r("i=1"),
        r("m"),
        sup(delim(sub(r("h"), r("θ")) + delim(sub(r("x"), r("i"))) + r("−") + sub(r("y"), r("i"))), r("2")),
    )
)
NORMAL_EQUATION = r("θ=") + sup(delim(sup(r("X"), r("T")) + r("X")), r("−1")) + sup(r("X"), r("T")) + r("y")
QUADRATIC = r("x=") + frac(r("−b±") + rad(sup(r("b"), r("2")) + r("−4ac")), r("2a"))
IDENTITY = r("I=") + delim(matrix([[r("1"), r("0")], [r("0"), r("1")]]), begin="[", end="]")


def math_docx_bytes() -> bytes:
    """Lecture notes with inline and displayed equations, one in a table cell."""
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    document.add_heading("Week 3: Linear regression", level=1)
    paragraph = document.add_paragraph("The hypothesis is ")
    paragraph._p.append(parse_xml(omath(HYPOTHESIS)))
    paragraph.add_run(" for a single capybara feature.")
    document.add_paragraph("The cost function averages the squared errors over the m examples:")
    document.add_paragraph()._p.append(parse_xml(omath_para(COST)))
    document.add_heading("Closed form", level=2)
    document.add_paragraph("The normal equation solves for the weights without gradient descent:")
    document.add_paragraph()._p.append(parse_xml(omath_para(NORMAL_EQUATION)))
    paragraph = document.add_paragraph("For a quadratic the roots are ")
    paragraph._p.append(parse_xml(omath(QUADRATIC)))
    paragraph.add_run(".")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Identity matrix"
    table.cell(0, 1).paragraphs[0]._p.append(parse_xml(omath(IDENTITY)))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def math_pptx_bytes() -> bytes:
    """A slide whose equation box is wrapped the way PowerPoint saves it: the shape with
    `a14:m` in `mc:Choice`, a copy without the math in `mc:Fallback`."""
    import pptx
    from lxml import etree
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Gradient descent"
    box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
    box.text_frame.text = "Update rule: "
    sp = box._element
    fallback_sp = copy.deepcopy(sp)
    fallback_sp.find(f".//{{{_A}}}t").text = "FALLBACK PICTURE"
    math = etree.fromstring(
        f'<a14:m xmlns:a14="{A14_NS}">'
        + omath_para(r("θ:=θ−α") + frac(r("∂"), r("∂θ")) + r("J") + delim(r("θ")))
        + "</a14:m>"
    )
    choice_p = sp.find(f".//{{{_A}}}p")
    choice_p.insert(len(choice_p) - 1 if choice_p[-1].tag.endswith("endParaRPr") else len(choice_p), math)
    alternate = etree.Element(f"{{{MC_NS}}}AlternateContent", nsmap={"mc": MC_NS})
    choice = etree.SubElement(alternate, f"{{{MC_NS}}}Choice", Requires="a14", nsmap={"a14": A14_NS})
    fallback = etree.SubElement(alternate, f"{{{MC_NS}}}Fallback")
    sp.addprevious(alternate)
    choice.append(sp)
    fallback.append(fallback_sp)
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
