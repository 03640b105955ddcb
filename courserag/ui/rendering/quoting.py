"""Text quoted from materials or notes, shown as it is written: never read as Markdown.

An answer that no model wrote (quotes, a catalog reply, a refusal) is plain text in a small
frame of our own: the fact asked for in bold ("**3** [1]") and one bullet per quote
("- text [1]"). Only that frame is Markdown; in everything else each character that Markdown
would take as markup ("*.patch" as italics, "# " as a heading, "1. " as a list, "](" as a
link, "&lt;" as an entity) is escaped, so the learner reads what the file says. Math spans
("$θ_0$", "\\(x^2\\)") are left whole for the page's KaTeX (mathtext.py). A model's answer
(mode "llm") is Markdown by design and is not passed through here.
"""

from __future__ import annotations

import re

from courserag.ui.rendering.mathtext import math_spans

# Characters that may start or end Markdown inline markup, escaped wherever they stand.
_INLINE = re.compile(r"([\\`*_~<>&#])")
# What opens a block at the start of a line: a list item, a quote, a heading underline.
_BLOCK_START = re.compile(r"^(\s*)(?:([-+=])|(\d{1,9})([.)]))")
# Never inside a formula: a double quote, or another math delimiter.
_NOT_MATH = re.compile(r'"|\\[()\[\]]|\$')
# An escaped backslash ("\\\\" in the Markdown) before a bracket: KaTeX's "\(" "\)" "\[" "\]".
_KATEX_DELIMITER = re.compile(r"\\\\([()\[\]])")
# Our frame: the bold fact with its markers, and a bullet.
_FACT_LINE = re.compile(r"^\*\*(.+)\*\*((?:\s*\[\d{1,3}\])+)\s*$")
_BULLET = "- "


def escape_markdown(text: str) -> str:
    """`text` with every Markdown markup character escaped, math spans kept whole: rendered
    as Markdown it reads exactly as `text` does."""
    out, position = [], 0
    for start, end in math_spans(text):
        out.append(_escape_plain(text[position:start]))
        span = text[start:end]
        # What only looks like math (a quote or a delimiter inside it: an attribute list
        # planted between two dollar signs) is text, its dollars escaped too.
        out.append(span if _is_math(span) else _escape_plain(span).replace("$", "\\$"))
        position = end
    out.append(_escape_plain(text[position:]))
    escaped = "".join(out)
    return _BLOCK_START.sub(
        lambda m: m.group(1) + (f"\\{m.group(2)}" if m.group(2) else f"{m.group(3)}\\{m.group(4)}"), escaped
    )


def _is_math(span: str) -> bool:
    """A math span's body holds no double quote and no math delimiter of its own."""
    body = span[2:-2] if span.startswith(("$$", "\\(", "\\[")) else span[1:-1]
    return _NOT_MATH.search(body) is None


def _escape_plain(text: str) -> str:
    # "](" would make a link of "[text](url)": its bracket written as an entity instead.
    escaped = _INLINE.sub(r"\\\1", text).replace("](", "]&#40;")
    # A backslash before a bracket would open or close math for the chat's KaTeX, which
    # reads the answer's HTML as a string: a stray "\(" took the rest of the answer, its
    # tags included, into one formula. An invisible word joiner keeps them apart.
    return _KATEX_DELIMITER.sub("\\\\\u2060\\1", escaped)


def quoted_markdown(text: str) -> str:
    """An answer no model wrote, as Markdown: its bold fact and bullets stay markup, every
    other character is the text itself (escape_markdown)."""
    lines = []
    for line in text.split("\n"):
        fact = _FACT_LINE.match(line)
        if fact:
            lines.append(f"**{escape_markdown(fact.group(1))}**{fact.group(2)}")
        elif line.startswith(_BULLET):
            lines.append(_BULLET + escape_markdown(line[len(_BULLET) :]))
        else:
            lines.append(escape_markdown(line))
    return "\n".join(lines)
