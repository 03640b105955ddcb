"""Kinds of facts a sentence holds: dates, times, places, people, e-mail, phone numbers,
amounts, durations, complexities. In English and Chinese, by pattern.

A question asks for one of these kinds ("when" asks for a date or a time, "which room" for
a place); a sentence that holds none of the asked-for kinds does not answer it. These are
deliberately course-independent patterns (no room or person names of a sample course).
"""

from __future__ import annotations

import re
from typing import Iterable

from courserag.lang.script import IDEOGRAPHS

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?|monday|tuesday|wednesday|thursday|friday|saturday|sunday"

# Rooms are short hyphenated codes (SCI-201, LH-1; course codes have 4 digits) or a place
# word with a name or number after it ("Room 101", "理学楼 305 教室").
_ROOM = (
    r"\b[A-Z]{1,4}-\d{1,3}[A-Z]?\b(?!-\d)"
    r"|\b(?i:room|lab|hall|building|library|auditorium|theat(?:re|er)|classroom|office)\s+[A-Z0-9][\w-]*"
    rf"|[{IDEOGRAPHS}]{{1,6}}(?:楼|馆|中心)\s*[A-Z\d]+\s*(?:区|室|教室|机房)?|[{IDEOGRAPHS}]{{1,6}}(?:楼|馆|中心)\s*[A-Z\d]*\s*(?:区|室|教室|机房)"
    r"|\d+\s*(?:教室|室|号楼)"
)

PATTERNS: dict[str, re.Pattern] = {
    "date": re.compile(
        rf"\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\b{_MONTH}\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{_MONTH}\b|\b(?:{_WEEKDAY})\b"
        r"|\d{1,2}\s*月\s*\d{1,2}\s*日|\d{4}\s*年\s*\d{1,2}\s*月|(?:周|星期|礼拜)[一二三四五六日天]|(?:today|tomorrow|tonight)\b"
        r"|第\s*\d+\s*周|\bweek\s+\d+\b|大[一二三四]|第[一二三四]学年|[春秋]季|学期"
        r"|\b(?:first|second|third|fourth|final) year\b|\b(?:fall|spring|autumn|summer|winter) (?:term|semester)\b"
        # A year on its own ("in 1963", "1963年"): what "in what year" and "when" ask of history.
        r"|\b(?i:in|since|from|by|until|till|before|after|around|circa|between|and|to|of|year)\s+(?:1[0-9]|20)\d{2}\b(?![%-]|[.,:/]\d)"
        r"|\d{4}\s*年",
        re.IGNORECASE,
    ),
    # A time of day, or how often ("nightly", "every Monday", 每周): both answer a "when".
    "time": re.compile(
        r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}\s*(?:点|时)(?:\d{1,2}\s*分)?|(?:上午|下午|晚上|中午)"
        r"|\b(?:midnight|noon|hourly|daily|nightly|weekly|fortnightly|monthly|yearly|annually)\b"
        r"|\bevery\s+(?:other\s+)?(?:day|night|morning|evening|week|month|year|term|semester|hour|\w+day)\b"
        r"|每(?:天|日|晚|周|星期|月|年|小时|学期)",
        re.IGNORECASE,
    ),
    # A place is a room, or a place said by its kind ("online", "lecture hall").
    "place": re.compile(_ROOM + r"|\b(?i:lecture hall|computer lab|online|zoom)\b"),
    "room": re.compile(_ROOM),
    "email": re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"),
    "phone": re.compile(
        r"(?<![\d-])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)\s?)?\d{3,4}[\s-]\d{3,4}(?:[\s-]\d{2,4})?(?![\d-])|(?<!\d)1[3-9]\d{9}(?!\d)"
    ),
    "person": re.compile(
        r"\b(?:Dr|Prof|Professor|Mr|Mrs|Ms|Mx)\.?\s+[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?"
        rf"|[{IDEOGRAPHS}]{{2,3}}(?=\s*(?:教授|副教授|讲师|老师|助教|博士))|(?:教授|副教授|讲师|老师|助教)\s*[{IDEOGRAPHS}]{{2,3}}"
        r"|\b[A-Z][a-z]+\s+[A-Z][a-z]+\b"
    ),
    "messaging": re.compile(
        r"(?:we-?chat|qq|whatsapp|telegram)(?:\s*(?:id|号))?\s*[:：]\s*[\w.-]{4,}|微信号?\s*[:：]?\s*[a-z][\w-]{5,}",
        re.IGNORECASE,
    ),
    "percent": re.compile(r"\d+(?:\.\d+)?\s*%|百分之[\d一二三四五六七八九十百]+"),
    "number": re.compile(
        r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.])|[一二三四五六七八九十两]+\s*(?:个|次|分|学分|周|天|人|页|张)"
        r"|\b(?i:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
        r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million"
        r"|dozen|once|twice|single|double|half)\b"
    ),
    "duration": re.compile(
        r"\b\d+\s*(?:days?|hours?|minutes?|mins?|weeks?|months?|years?)\b|\d+\s*(?:天|小时|分钟|周|个月)|(?<!\d)\d{1,2}\s*年",
        re.IGNORECASE,
    ),
    "complexity": re.compile(r"\b(?:O|Θ|Ω|Theta|Omega)\s*\([^)]{1,40}\)"),
    # What is allowed, required or forbidden, or plainly not the case: the sentence that
    # answers "Can I…?", "Will graphs be on the midterm?", "可以…吗？".
    "rule": re.compile(
        r"\b(?i:allowed|permitted|prohibited|forbidden|must|may|cannot|can't|required|not accepted|no credit)\b"
        r"|\b(?i:(?:does|do|is|are|will|was|were) not|isn't|aren't|won't|doesn't|never)\b"
        r"|允许|禁止|不得|不可|不能|必须|须|不予|严禁|不接受|不会|不在|不包括|不考"
    ),
    # "when it holds 37 keys": a condition answers a "when" as well as a date does.
    "condition": re.compile(r"\b(?i:when|whenever|once|if|as soon as|until)\b|当.{0,30}(?:时|后)|一旦|如果|只要"),
}
KINDS = tuple(PATTERNS)


def kinds_in(text: str, people: Iterable[str] = ()) -> frozenset[str]:
    """The kinds of facts the text holds; `people` are names known to the course (staff)."""
    found = {kind for kind, pattern in PATTERNS.items() if pattern.search(text)}
    if "person" not in found and any(name and name in text for name in people):
        found.add("person")
    return frozenset(found)
