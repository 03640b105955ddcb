"""Citation locators in the learner's language, short: "page 3" is "第 3 页" in Chinese.

Parsers write locators in one fixed English form ("page 3", "slide 6", "cell 4",
"lines 10-42", "paragraphs 1-3", or a heading path "Week 5 > AVL rotations"); the UI says
them here, and keeps long heading paths to their last two headings.
"""

from __future__ import annotations

import re

from courserag.i18n.catalog import say

_NUMBERED = re.compile(r"^(page|slide|cell) (\d+)$")
_RANGE = re.compile(r"^(lines|paragraphs) (\d+)-(\d+)$")
MAX_PATH_CHARS = 40  # a heading path longer than this keeps its last one or two headings


def say_locator(locator: str, lang: str = "en") -> str:
    """The locator as the learner reads it ("第 3 页", "lines 10–42", "… › Heaps › Push")."""
    locator = " ".join(str(locator or "").split())
    lang = "zh" if lang == "zh" else "en"
    match = _NUMBERED.match(locator)
    if match:
        return say(f"locator.{match.group(1)}", lang, a=match.group(2))
    match = _RANGE.match(locator)
    if match:
        kind, a, b = match.groups()
        if a == b:
            return say(f"locator.{kind[:-1]}", lang, a=a)
        return say(f"locator.{kind}", lang, a=a, b=b)
    parts = [part.strip() for part in locator.split(" > ") if part.strip()]
    if len(locator) > MAX_PATH_CHARS and len(parts) > 1:
        # The top heading is usually the document's title, which the file name already says.
        kept = parts[-2:] if len(parts) > 2 and len(" › ".join(parts[-2:])) <= MAX_PATH_CHARS else parts[-1:]
        parts = ["…"] + kept
    return " › ".join(parts)


def page_of(locator: str) -> int | None:
    """The page number of a "page N" locator (for links that open a PDF at that page)."""
    match = _NUMBERED.match(" ".join(str(locator or "").split()))
    return int(match.group(2)) if match and match.group(1) == "page" else None


def line_range(locator: str) -> tuple[int, int] | None:
    """(first, last) of a "lines A-B" locator."""
    match = _RANGE.match(" ".join(str(locator or "").split()))
    return (int(match.group(2)), int(match.group(3))) if match and match.group(1) == "lines" else None
