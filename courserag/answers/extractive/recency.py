"""Which statements are newer: dated notices, and sentences that say something changed.

Course materials disagree when plans change: the syllabus names one room, and a later
announcement moves the exam to another. An announcement says when it was issued (a dated
heading such as "[2026-10-06] Midterm: room and rules", or a date line under a notice, "2026年
10月9日"), and a change says so ("moved to", "now in", "改为", "调整"). A unit of such a
source is the newer statement of what it is about, and is quoted first. Patterns only:
no course's file names.
"""

from __future__ import annotations

import re
from functools import lru_cache

# A date at the start of a line, alone or as a bracketed stamp before a heading, or after
# "posted/updated/date:"; not a date inside a sentence or a table row.
_ISO = r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
_ZH = r"\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*日"
_STAMP = re.compile(
    rf"^[ \t]*(?:[\[【(（]\s*(?P<a>{_ISO}|{_ZH})\s*[\]】)）]"  # "[2026-10-06] Midterm…"
    rf"|(?:posted|updated|issued|date|published|发布(?:日期|时间)?|更新(?:日期|时间)?|日期)\s*(?:on)?\s*[:：]?\s*(?P<b>{_ISO}|{_ZH})"
    rf"|(?P<c>{_ISO}|{_ZH})[ \t]*$)",  # a line that is only a date (a notice's signature)
    re.IGNORECASE | re.MULTILINE,
)
# Words that say a statement replaces an earlier one.
CHANGE = re.compile(
    r"\b(?:changed?|changes|moved?|moves|updated?|updates|rescheduled|postponed|brought forward|relocated|instead|"
    r"no longer|now (?:in|at|on|held|due|takes?)|not (?:our|the) usual|new (?:room|date|time|location|venue|deadline))\b"
    r"|改为|改到|改在|改至|调整|更改|变更|更新|推迟|延期至|提前至|不再|取代|原定",
    re.IGNORECASE,
)


def _as_date(text: str) -> tuple[int, int, int]:
    y, m, d = (int(n) for n in re.findall(r"\d+", text)[:3])
    return (y, m, d)


@lru_cache(maxsize=4096)
def _stamps(text: str) -> tuple[tuple[int, tuple[int, int, int]], ...]:
    """Where the text is stamped with a date, and the date (cached: every unit of a source asks)."""
    return tuple((m.start(), _as_date(m.group("a") or m.group("b") or m.group("c"))) for m in _STAMP.finditer(text))


def issued(text: str, quote: str = "") -> tuple[int, int, int] | None:
    """The date the statement `quote` of the text was issued: the last stamp before it (the
    dated entry it belongs to), else the first after it (a notice signed with its date);
    without a quote, the latest stamp. None: the text is not a dated notice."""
    stamps = _stamps(text)
    if not stamps:
        return None
    at = _find(text, quote) if quote else None
    if at is None:
        return max(date for _, date in stamps)
    before = [date for start, date in stamps if start <= at]
    return before[-1] if before else next(date for start, date in stamps if start > at)


def _find(text: str, quote: str) -> int | None:
    """Where the quote starts in the text, its line breaks and spacing aside."""
    words = quote.split()[:6]
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return match.start() if match else None


def states_change(text: str) -> bool:
    """Whether the sentence says that it replaces something said before."""
    return bool(CHANGE.search(text))


def say_date(date: tuple[int, int, int], lang: str) -> str:
    y, m, d = date
    return f"{y}年{m}月{d}日" if lang == "zh" else f"{y:04d}-{m:02d}-{d:02d}"
