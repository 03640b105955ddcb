"""A Word or PowerPoint paragraph's text with its equations in place, as LaTeX.

python-docx and python-pptx read a paragraph's runs only, so an equation between two runs
("the energy $E=mc^{2}$ of the cart") disappeared and the sentence read "the energy of the
cart". This walk reads the runs and the Office Math between them in document order: inline
math as `$…$`, a displayed equation (`m:oMathPara`) on its own line as `$$…$$`. PowerPoint
keeps its equations in `mc:AlternateContent` (`a14:m` in the choice, a picture as the
fallback), so the choice is read and the fallback skipped.
"""

from __future__ import annotations

from courserag.ingest.parsers.omml import M, latex

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
MATH = f"{{{M}}}oMath"
MATH_PARA = f"{{{M}}}oMathPara"
ALTERNATE = f"{{{MC}}}AlternateContent"
_TEXT = {f"{{{W}}}t", f"{{{A}}}t"}
_BREAK = {f"{{{W}}}br", f"{{{W}}}cr", f"{{{A}}}br"}
_TAB = f"{{{W}}}tab"
# Text boxes (python-docx leaves them out of a paragraph's text) and the fallback of an
# alternate content (a copy, often a picture, of what the choice holds).
_SKIP = {f"{{{W}}}txbxContent", f"{{{MC}}}Fallback", f"{{{W}}}delText", f"{{{W}}}rPr", f"{{{A}}}rPr", f"{{{A}}}pPr"}


def has_math(element) -> bool:
    return element.find(f".//{MATH}") is not None


def _walk(node, parts: list[str]) -> None:
    for child in node:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _SKIP:
            continue
        if tag == MATH_PARA:
            parts.append("\n" + latex(child) + "\n")
        elif tag == MATH:
            parts.append(latex(child))
        elif tag in _TEXT:
            parts.append(child.text or "")
        elif tag in _BREAK:
            parts.append("\n")
        elif tag == _TAB:
            parts.append("\t")
        else:
            _walk(child, parts)


def paragraph_text(paragraph) -> str:
    """The text of a `w:p` or `a:p` element, its equations as LaTeX where they stand."""
    parts: list[str] = []
    _walk(paragraph, parts)
    return "".join(parts)


def paragraphs_text(container) -> str:
    """The text of every `a:p` under a PowerPoint text body (or anything holding one), one
    paragraph a line."""
    return "\n".join(paragraph_text(p) for p in container.iter(f"{{{A}}}p"))


def in_fallback(element) -> bool:
    """Whether `element` is only the fallback copy of an alternate content (a picture of an
    equation PowerPoint keeps for old readers, not an image of the slide)."""
    return any(a.tag == f"{{{MC}}}Fallback" for a in element.iterancestors())
