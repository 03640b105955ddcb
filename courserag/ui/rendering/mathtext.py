"""LaTeX in answers and passages, found on the server and handed to the page's KaTeX.

Course text writes math as `$…$`, `$$…$$`, `\\(…\\)` or `\\[…\\]` (Markdown notes,
notebooks, the Office Math the parsers read as LaTeX). Two things stood in its way: the
Markdown renderer eats LaTeX's backslashes and underscores (`\\\\` ends a matrix row,
`x_1 … y_1` turns italic), and a dollar sign is as often money ("$5 and $10") as math. So
the math is found here, with Pandoc's rule for a single `$` (no space just inside it, no
digit just after the closing one), kept out of the Markdown, and written back as `\\(…\\)`
or `\\[…\\]`, the only delimiters the chat gives KaTeX (`DELIMITERS`, Gradio's bundled
auto-render, no network). Money stays text.
"""

from __future__ import annotations

import html
import re

DELIMITERS = [
    {"left": "\\(", "right": "\\)", "display": False},
    {"left": "\\[", "right": "\\]", "display": True},
]
_CODE = re.compile(r"(```[\s\S]*?```|`[^`\n]+`)")
_MATH = re.compile(
    r"\$\$(?P<dd>[^$]+?)\$\$"
    r"|\\\[(?P<db>[\s\S]+?)\\\]"
    r"|\\\((?P<ib>[\s\S]+?)\\\)"
    r"|(?<![\\$\w])\$(?P<id>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?![\d$])"
)
_SLOT = re.compile("\ue000(\\d+)\ue001")


def _spans(text: str):
    """(start, end, latex, displayed) for each math span outside code."""
    offset = 0
    for i, part in enumerate(_CODE.split(text)):
        if not i % 2:
            for match in _MATH.finditer(part):
                body = next(g for g in match.groups() if g is not None)
                yield offset + match.start(), offset + match.end(), body.strip(), bool(match["dd"] or match["db"])
        offset += len(part)


def math_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each math span outside code, as `protect` will find it."""
    return [(start, end) for start, end, _, _ in _spans(text)]


def delimited(latex: str, displayed: bool) -> str:
    return f"\\[{latex}\\]" if displayed else f"\\({latex}\\)"


def normalize(text: str) -> str:
    """Plain text with every math span written between the delimiters the page renders."""
    out, position = [], 0
    for start, end, latex, displayed in _spans(text):
        out.append(text[position:start] + delimited(latex, displayed))
        position = end
    return "".join(out) + text[position:]


def protect(text: str) -> tuple[str, list[str]]:
    """Markdown with each math span replaced by a slot no Markdown rule touches, and the
    spans (delimited) to put back with `restore` once the Markdown is HTML."""
    text = text.replace("\ue000", "").replace("\ue001", "")  # no slot but ours
    maths: list[str] = []
    out, position = [], 0
    for start, end, latex, displayed in _spans(text):
        out.append(f"{text[position:start]}\ue000{len(maths)}\ue001")
        maths.append(delimited(latex, displayed))
        position = end
    return "".join(out) + text[position:], maths


def restore(rendered_html: str, maths: list[str]) -> str:
    """The HTML with each slot holding its math again, escaped as text, quotes too: a slot
    may stand inside an attribute's value (a link's title)."""
    if not maths:
        return rendered_html
    return _SLOT.sub(lambda m: html.escape(maths[int(m.group(1))]), rendered_html)
