"""A follow-up about one item of the previous answer ("What about the second one?") is
answered about that item, not with the whole list again.

The retriever names the item (`Retrieval.focus`) and its siblings. Of the units the
composer or the reader chose, those that hold the item and none of its siblings are kept;
when none does (or the answer was refused), the item itself is quoted from the source that
holds it. Pure functions.
"""

from __future__ import annotations

import re
from typing import Sequence

from courserag.answers.extractive.units import source_units
from courserag.lang.textnorm import normalize
from courserag.retrieval.packing import ContextItem


def _plain(text: str) -> str:
    """The text compared: NFKC, lower case, one space, no closing punctuation (an item of
    the earlier answer lost its full stop)."""
    return normalize(text).rstrip("。.;；,， ")


def mentions(text: str, item: str) -> bool:
    """`text` holds `item`, or is part of it (a unit without the lead-in the item has);
    a Latin item only as whole words ("LL" is not in "all")."""
    text, item = _plain(text), _plain(item)
    if not text or not item:
        return False
    if len(text) >= 8 and text in item:
        return True
    head = r"(?<![\w])" if item[0].isascii() and item[0].isalnum() else ""
    tail = r"(?![\w])" if item[-1].isascii() and item[-1].isalnum() else ""
    return re.search(head + re.escape(item) + tail, text) is not None


def about_item(text: str, item: str, siblings: Sequence[str]) -> bool:
    """A unit about the item alone: it holds the item and none of the other items."""
    return mentions(text, item) and not any(mentions(text, other) for other in siblings if other)


def source_of(item: str, sources: Sequence[ContextItem]) -> int | None:
    """The number of the first source that holds the item, in its text or in one of its
    quotable units (a table row is quoted as its cells beside their headers, as the earlier
    answer listed it), or None."""
    return next((source.n for source in sources if mentions(source.text, item) or _in_units(source, item)), None)


def _in_units(source: ContextItem, item: str) -> bool:
    chunk = source.hit.chunk
    return any(mentions(unit.text, item) for unit in source_units(source.text, chunk.doc_type, chunk.locator))
