"""Parse-time text cleaning: what a PDF's layout puts into its text layer that is not the text.

Pure functions, called by the parsers before anything is chunked, so citations show clean
passages and retrieval matches whole words:

- `fix_ligatures`: typographic ligature characters ("ﬁ", "ﬂ", "ﬀ"…) become their letters,
  so "deﬁnition" matches "definition".
- `join_hyphenated`: a word hyphenated across a line break ("func-\\ntion") is joined
  ("function"), unless the document also writes it with the hyphen on one line
  ("well-known"), which says the hyphen is part of the word.
- `strip_running_lines`: running headers and footers are removed: the same line at the top or
  bottom of most pages, numbers allowed to differ ("Page 3 of 9", a bare "3", "第 3 页").
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

# Unicode's Alphabetic Presentation Forms (U+FB00-FB06) that PDF text layers keep.
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    }
)

# A word broken at the end of a line by a hyphen, continued in lower case on the next line.
_BROKEN_WORD = re.compile(r"(\w*[a-zà-ÿ])-[ \t]*\n[ \t]*([a-zà-ÿ]\w*)([^\S\n]*)")
_HYPHENATED = re.compile(r"\b\w+(?:-\w+)+\b")

_DIGITS = re.compile(r"\d+")
EDGE_LINES = 2  # lines at the top and at the bottom of a page that may be running lines
MIN_PAGES = 3  # a running line must be seen on at least this many pages…
MIN_SHARE = 0.5  # …and on at least half of them


def fix_ligatures(text: str) -> str:
    """ "ﬁ" -> "fi", "ﬂ" -> "fl", "ﬀ" -> "ff", "ﬃ" -> "ffi", "ﬄ" -> "ffl"."""
    return text.translate(_LIGATURES)


def join_hyphenated(text: str, keep: frozenset[str] = frozenset()) -> str:
    """Join words hyphenated across a line break; `keep` lists (lower-case) hyphenated words
    the document writes on one line, whose hyphen stays. The joined word stays on the first
    line, and the rest of the second line keeps its own line."""

    def join(match: re.Match) -> str:
        head, tail = match.group(1), match.group(2)
        if f"{head}-{tail}".lower() in keep:
            return f"{head}-{tail}\n"
        return f"{head}{tail}\n"

    return _BROKEN_WORD.sub(join, text)


def hyphenated_words(texts: Sequence[str]) -> frozenset[str]:
    """Hyphenated words written on one line anywhere in `texts` (lower case)."""
    return frozenset(word.lower() for text in texts for word in _HYPHENATED.findall(text))


def _signature(line: str) -> str:
    """A line with its numbers blanked, so "Page 3 of 9" and "Page 4 of 9" are one running line."""
    return _DIGITS.sub("#", " ".join(line.split()).lower())


def _edges(lines: list[str]) -> list[int]:
    """Indexes of the first and last EDGE_LINES non-empty lines of a page."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:EDGE_LINES] + filled[-EDGE_LINES:]))


def strip_running_lines(pages: Sequence[str]) -> list[str]:
    """Each page without its running headers and footers.

    A line near the top or bottom of a page is running when the same line (numbers aside)
    is near the top or bottom of at least MIN_PAGES pages and of at least MIN_SHARE of them.
    Text in the middle of a page is never touched, and a page is never emptied by this (its
    text then stays whole).
    """
    split = [page.split("\n") for page in pages]
    seen: Counter[str] = Counter()
    for lines in split:
        seen.update({_signature(lines[i]) for i in _edges(lines)})
    running = {sig for sig, count in seen.items() if sig and count >= MIN_PAGES and count >= MIN_SHARE * len(pages)}
    out: list[str] = []
    for page, lines in zip(pages, split):
        drop = {i for i in _edges(lines) if _signature(lines[i]) in running}
        kept = [line for i, line in enumerate(lines) if i not in drop]
        out.append("\n".join(kept).strip() if any(line.strip() for line in kept) else page)
    return out


def clean_pages(pages: Sequence[str]) -> list[str]:
    """Everything above, for the pages of one PDF: ligatures, running lines, then hyphenation
    (after the running lines are gone, a footer cannot be joined to a page's last word)."""
    fixed = [fix_ligatures(page) for page in pages]
    stripped = strip_running_lines(fixed) if len(fixed) >= MIN_PAGES else fixed
    keep = hyphenated_words(stripped)
    return [join_hyphenated(page, keep) for page in stripped]
