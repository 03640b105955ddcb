"""Office Math as LaTeX (issue 21.7): the converter element by element, then real Word and
PowerPoint files whose equations must reach the chunks where they stand."""

from __future__ import annotations

import pytest
from lxml import etree

import docgen.math as om
from courserag.ingest.chunking import chunk_sections
from courserag.ingest.parsers import parse_bytes
from courserag.ingest.parsers.omml import latex

CASES = [
    ("plain run", om.r("x+1"), "$x+1$"),
    ("greek letters named", om.r("α+β"), r"$\alpha +\beta$"),
    ("fraction", om.frac(om.r("a+b"), om.r("2")), r"$\frac{a+b}{2}$"),
    ("linear fraction", om.frac(om.r("a"), om.r("b"), kind="lin"), "$a/b$"),
    ("subscript", om.sub(om.r("θ"), om.r("0")), r"$\theta_{0}$"),
    ("superscript", om.sup(om.r("x"), om.r("2")), "$x^{2}$"),
    ("sub and superscript", om.subsup(om.r("x"), om.r("i"), om.r("2")), "$x_{i}^{2}$"),
    ("grouped base", om.sup(om.r("ab"), om.r("n")), "${ab}^{n}$"),
    ("square root", om.rad(om.r("x")), r"$\sqrt{x}$"),
    ("cube root", om.rad(om.r("x"), om.r("3")), r"$\sqrt[3]{x}$"),
    ("sum", om.nary("∑", om.r("i=1"), om.r("n"), om.r("i")), r"$\sum_{i=1}^{n} i$"),
    ("integral by default", om.nary("", om.r("0"), om.r("1"), om.r("f")), r"$\int_{0}^{1} f$"),
    ("product", om.nary("∏", om.r("k"), "", om.r("k")), r"$\prod_{k} k$"),
    ("parentheses", om.delim(om.r("x")), r"$\left(x\right)$"),
    ("braces", om.delim(om.r("x"), begin="{", end="}"), r"$\left\{x\right\}$"),
    (
        "matrix in brackets",
        om.delim(om.matrix([[om.r("1"), om.r("0")], [om.r("0"), om.r("1")]]), begin="[", end="]"),
        r"$\left[\begin{matrix}1 & 0 \\ 0 & 1\end{matrix}\right]$",
    ),
    ("known function", om.func("sin", om.r("x")), r"$\sin x$"),
    ("other function", om.func("softmax", om.r("z")), r"$\operatorname{softmax}z$"),
    ("normal text", om.r("if x", normal=True), r"$\text{if x}$"),
    ("specials escaped", om.r("50%{#}"), r"$50\%\{\#\}$"),
    ("dollar escaped", om.r("$5"), r"$\$5$"),
]


@pytest.mark.parametrize(("body", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_office_math_reads_as_latex(body, expected):
    assert latex(etree.fromstring(om.omath(body))) == expected


def test_a_displayed_equation_is_between_double_dollars():
    assert latex(etree.fromstring(om.omath_para(om.sup(om.r("e"), om.r("iπ"))))) == r"$$e^{i\pi}$$"


def test_an_unknown_element_keeps_the_text_it_holds():
    body = f"<m:box><m:e>{om.r('y')}</m:e></m:box><m:phant><m:e>{om.r('z')}</m:e></m:phant>"
    assert latex(etree.fromstring(om.omath(body))) == "$yz$"


def _text(doc) -> str:
    return "\n".join(section.text for section in doc.sections)


def test_word_equations_reach_the_chunks_in_their_sentences():
    doc = parse_bytes(om.math_docx_bytes(), "regression_notes.docx")
    assert doc.warnings == []
    text = _text(doc)
    assert r"The hypothesis is $\theta_{0}+\theta_{1}x$ for a single capybara feature." in text
    assert r"For a quadratic the roots are $x=\frac{-b\pm \sqrt{b^{2}-4ac}}{2a}$." in text
    assert r"Identity matrix | $I=\left[\begin{matrix}1 & 0 \\ 0 & 1\end{matrix}\right]$" in text
    cost = r"$$J\left(\theta \right)=\frac{1}{2m}\sum_{i=1}^{m} {\left(h_{\theta}\left(x_{i}\right)-y_{i}\right)}^{2}$$"
    lines = text.split("\n")
    assert lines[lines.index(cost) - 1].startswith("The cost function averages")  # in its place
    chunks = chunk_sections(doc.sections)
    assert any(cost in chunk.text for chunk in chunks)
    assert any(r"$$\theta ={\left(X^{T}X\right)}^{-1}X^{T}y$$" in c.text and "Closed form" in c.locator for c in chunks)


def test_powerpoint_equations_are_read_from_the_choice_not_the_fallback():
    doc = parse_bytes(om.math_pptx_bytes(), "descent.pptx")
    text = _text(doc)
    assert r"$$\theta :=\theta -\alpha \frac{\partial }{\partial \theta }J\left(\theta \right)$$" in text
    assert "Update rule:" in text and "FALLBACK" not in text
    assert doc.warnings == []


def test_an_equation_in_a_slide_table_cell_is_read_in_its_row():
    import io

    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Losses"
    table = slide.shapes.add_table(1, 2, Inches(1), Inches(2), Inches(6), Inches(1)).table
    table.cell(0, 0).text = "Squared error"
    paragraph = table.cell(0, 1).text_frame.paragraphs[0]._p
    paragraph.append(
        etree.fromstring(f'<a14:m xmlns:a14="{om.A14_NS}">{om.omath(om.sup(om.r("e"), om.r("2")))}</a14:m>')
    )
    buffer = io.BytesIO()
    deck.save(buffer)
    assert "Squared error | $e^{2}$" in _text(parse_bytes(buffer.getvalue(), "losses.pptx"))
