"""Reading one cell of a catalog row, each with its check: lists, numbers, dates, codes.

Every reader takes the row (`Where`) and the field, and adds a problem when the cell is not
what the field holds, returning a harmless value so that checking goes on.
"""

from __future__ import annotations

import re
from datetime import date

from courserag.catalog.codes import is_code, normalize_code
from courserag.catalog.model import Where
from courserag.catalog.problems import Problems

# A language code (ISO 639, with an optional region or script): en, zh, fr, yue, zh-Hant, pt-BR.
_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


def split(cell: str) -> tuple[str, ...]:
    """ "a; b;c" -> ("a", "b", "c"); an empty cell -> ()."""
    if not cell:
        return ()
    if ";" not in cell:
        return (cell.strip(),)
    return tuple(part.strip() for part in cell.split(";") if part.strip())


def number(where: Where, field: str, text: str, problems: Problems) -> float:
    """A number >= 0 (credits)."""
    try:
        value = float(text)
        if not value >= 0 or value == float("inf"):
            raise ValueError
        return value
    except ValueError:
        problems.add(where, field, f"must be a number >= 0, but got {text!r}")
        return 0.0


def whole(where: Where, field: str, text: str, problems: Problems, low: int = 1) -> int | None:
    """A whole number >= `low` (a capacity); None for an empty cell."""
    if not text:
        return None
    if not text.isdigit() or int(text) < low:
        problems.add(where, field, f"must be a whole number >= {low}, but got {text!r}")
        return None
    return int(text)


def day(where: Where, field: str, text: str, problems: Problems) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        problems.add(where, field, f"must be a date like 2026-09-01, but got {text!r}")
        return date.min


def codes(where: Where, field: str, cell: str, problems: Problems) -> tuple[str, ...]:
    out = []
    for part in split(cell):
        if not is_code(part):
            problems.add(where, field, f"{part!r} is not a course code")
        else:
            out.append(normalize_code(part))
    return tuple(out)


def languages(where: Where, field: str, cell: str, problems: Problems) -> tuple[str, ...]:
    """ "en;zh" -> ("en", "zh"): language codes, the language part in lower case."""
    out = []
    for part in split(cell):
        head, _, rest = part.partition("-")
        code = head.lower() + (f"-{rest}" if rest else "")
        if not _LANGUAGE.match(code):
            problems.add(where, field, f"{part!r} is no language code (en, zh, fr, zh-Hant…; several: en;zh)")
        elif code in out:
            problems.add(where, field, f"{part} is listed twice")
        else:
            out.append(code)
    return tuple(out)
