"""Office Math (OMML, the `m:` elements of Word and PowerPoint) as LaTeX, in pure Python.

Word stores an equation as a tree (`m:f` a fraction, `m:sSup` a power, `m:nary` a sum …)
that python-docx and python-pptx skip, so a formula used to vanish from the text a student
searches and from the passage shown to them. Each element becomes its LaTeX here; an element
this module does not know keeps the text of its children, so nothing inside is lost. The
characters with a LaTeX name (θ -> \\theta) are data: omml_symbols.yaml.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
_VAL = f"{{{M}}}val"
_ESCAPES = {"\\": r"\backslash ", "{": r"\{", "}": r"\}", "$": r"\$", "%": r"\%", "#": r"\#", "&": r"\&", "_": r"\_"}
_ESCAPES |= {"^": r"\hat{}", "~": r"\sim "}


@functools.cache
def _table(name: str):
    data = yaml.safe_load((Path(__file__).with_name("omml_symbols.yaml")).read_text(encoding="utf-8"))
    return data[name]


def _local(element) -> str:
    tag = element.tag if isinstance(element.tag, str) else ""
    return tag.split("}", 1)[1] if tag.startswith(f"{{{M}}}") else ""


def _child(element, name: str):
    return element.find(f"{{{M}}}{name}")


def _prop(element, pr: str, name: str, default: str | None = None) -> str | None:
    """The m:val of property `name` in the element's `pr` block (m:fPr, m:naryPr …)."""
    props = _child(element, pr)
    node = props.find(f"{{{M}}}{name}") if props is not None else None
    if node is None:
        return default
    return node.get(_VAL, default if default is not None else "")


def _command(latex: str) -> str:
    """A command name followed by a letter needs a space ("\\theta x", not "\\thetax")."""
    return latex + " " if latex[-1:].isalpha() else latex


def _text(raw: str) -> str:
    symbols = _table("symbols")
    return "".join(_ESCAPES.get(c) or (_command(symbols[c]) if c in symbols else c) for c in raw)


def _group(latex: str) -> str:
    """`latex` as one argument: bare when it is one character or one command."""
    latex = latex.strip()
    if len(latex) == 1 or (latex.startswith("\\") and latex[1:].isalpha()):
        return latex
    return "{" + latex + "}"


def _run(element) -> str:
    raw = "".join(t.text or "" for t in element.iter(f"{{{M}}}t"))
    normal = element.find(f"{{{M}}}rPr/{{{M}}}nor") is not None
    return r"\text{" + raw.replace("{", r"\{").replace("}", r"\}") + "}" if normal and raw.strip() else _text(raw)


def _arg(element, name: str) -> str:
    node = _child(element, name)
    return convert(node) if node is not None else ""


def _script(base: str, sub: str = "", sup: str = "") -> str:
    out = _group(base) if base.strip() else "{}"
    if sub.strip():
        out += "_{" + sub.strip() + "}"
    if sup.strip():
        out += "^{" + sup.strip() + "}"
    return out


def _fraction(element) -> str:
    num, den = _arg(element, "num"), _arg(element, "den")
    kind = _prop(element, "fPr", "type", "bar")
    if kind == "lin":
        return f"{_group(num)}/{_group(den)}"
    if kind == "noBar":
        return r"\genfrac{}{}{0pt}{}{" + num + "}{" + den + "}"
    return r"\frac{" + num + "}{" + den + "}"


def _radical(element) -> str:
    degree = "" if _prop(element, "radPr", "degHide", "0") in ("1", "on", "true") else _arg(element, "deg")
    return (r"\sqrt[" + degree.strip() + "]{" if degree.strip() else r"\sqrt{") + _arg(element, "e") + "}"


def _nary(element) -> str:
    char = _prop(element, "naryPr", "chr", "∫")
    operator = _table("nary").get(char, _text(char))
    sub = "" if _prop(element, "naryPr", "subHide", "0") in ("1", "on", "true") else _arg(element, "sub")
    sup = "" if _prop(element, "naryPr", "supHide", "0") in ("1", "on", "true") else _arg(element, "sup")
    return _script(operator, sub, sup) + " " + _arg(element, "e")


def _delimiter_char(char: str) -> str:
    return _table("delimiters").get(char, char)


def _delimiter(element) -> str:
    begin = _delimiter_char(_prop(element, "dPr", "begChr", "("))
    end = _delimiter_char(_prop(element, "dPr", "endChr", ")"))
    separator = _delimiter_char(_prop(element, "dPr", "sepChr", "|") or "|")
    inner = f" {separator} ".join(convert(e) for e in element.findall(f"{{{M}}}e"))
    return rf"\left{begin}{inner}\right{end}"


def _matrix(element) -> str:
    rows = [" & ".join(convert(e) for e in row.findall(f"{{{M}}}e")) for row in element.findall(f"{{{M}}}mr")]
    return r"\begin{matrix}" + r" \\ ".join(rows) + r"\end{matrix}"


def _function(element) -> str:
    name_node = _child(element, "fName")
    name = convert(name_node).strip() if name_node is not None else ""
    if name in _table("functions"):
        name = "\\" + name
    elif name.isalpha() and len(name) > 1:
        name = r"\operatorname{" + name + "}"
    return _command(name) + _arg(element, "e")


def _accent(element) -> str:
    command = _table("accents").get(_prop(element, "accPr", "chr", "\u0302"), r"\hat")
    return command + "{" + _arg(element, "e") + "}"


def _bar(element) -> str:
    command = r"\underline" if _prop(element, "barPr", "pos", "bot") == "bot" else r"\overline"
    return command + "{" + _arg(element, "e") + "}"


def _group_char(element) -> str:
    below = _prop(element, "groupChrPr", "pos", "bot") == "bot"
    return (r"\underbrace{" if below else r"\overbrace{") + _arg(element, "e") + "}"


def _equation_array(element) -> str:
    rows = [convert(e) for e in element.findall(f"{{{M}}}e")]
    return r"\begin{gathered}" + r" \\ ".join(rows) + r"\end{gathered}"


_HANDLERS = {
    "r": _run,
    "f": _fraction,
    "sSub": lambda e: _script(_arg(e, "e"), sub=_arg(e, "sub")),
    "sSup": lambda e: _script(_arg(e, "e"), sup=_arg(e, "sup")),
    "sSubSup": lambda e: _script(_arg(e, "e"), _arg(e, "sub"), _arg(e, "sup")),
    "sPre": lambda e: _script("", _arg(e, "sub"), _arg(e, "sup")) + _arg(e, "e"),
    "rad": _radical,
    "nary": _nary,
    "d": _delimiter,
    "m": _matrix,
    "func": _function,
    "acc": _accent,
    "bar": _bar,
    "groupChr": _group_char,
    "limLow": lambda e: _script(_arg(e, "e"), sub=_arg(e, "lim")),
    "limUpp": lambda e: _script(_arg(e, "e"), sup=_arg(e, "lim")),
    "eqArr": _equation_array,
}


def convert(element) -> str:
    """The LaTeX of one OMML element and what it holds (no `$` around it)."""
    name = _local(element)
    if name in _HANDLERS:
        return _HANDLERS[name](element)
    if name.endswith("Pr"):  # properties (m:rPr, m:ctrlPr …) say how, never what
        return ""
    return "".join(convert(child) for child in element)


def latex(element) -> str:
    """An `m:oMath` or `m:oMathPara` as LaTeX between its delimiters: `$…$` inline, `$$…$$`
    for a displayed equation (each of a paragraph's equations on its own)."""
    if _local(element) == "oMathPara":
        return "\n".join(f"$${convert(math).strip()}$$" for math in element.iter(f"{{{M}}}oMath"))
    return f"${convert(element).strip()}$"
