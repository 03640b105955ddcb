"""The timetable's files: sections, and the optional rooms and instructors they refer to.

`sections.csv` rows are checked against the courses, terms, rooms and instructors already
read: a section's kind is one of `SECTION_KINDS` (or a registrar's abbreviation of one), its
teaching languages are language codes, its room and instructors are ids of `rooms.csv` and
`instructors.csv` when the catalog has those files (free text without them, as before).
"""

from __future__ import annotations

import re

from courserag.catalog import cells
from courserag.catalog.codes import normalize_code
from courserag.catalog.model import Instructor, Room, Section, Where
from courserag.catalog.problems import Problems

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# What a section may be; an empty cell is a lecture. Case does not matter.
SECTION_KINDS = (
    "lecture",
    "tutorial",
    "lab",
    "seminar",
    "project",
    "studio",
    "workshop",
    "discussion",
    "practicum",
    "fieldwork",
    "online",
)
# The abbreviations registrars' exports use, read as the kind they stand for.
KIND_ABBREVIATIONS = {
    "lec": "lecture",
    "tut": "tutorial",
    "laboratory": "lab",
    "sem": "seminar",
    "prj": "project",
    "stu": "studio",
    "wks": "workshop",
    "dis": "discussion",
    "prac": "practicum",
    "fld": "fieldwork",
}
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def rooms(rows, problems: Problems) -> dict[str, Room] | None:
    """rooms.csv by room id; None when the catalog has no such file."""
    if rows is None:
        return None
    found: dict[str, Room] = {}
    for where, r in rows:
        if r["room"] in found:
            problems.add(where, "room", f"{r['room']} is listed twice (first at row {found[r['room']].where.row})")
            continue
        capacity = cells.whole(where, "capacity", r["capacity"], problems)
        found[r["room"]] = Room(r["room"], r["building"], capacity, where)
    return found


def instructors(rows, problems: Problems) -> dict[str, Instructor] | None:
    """instructors.csv by id; None when the catalog has no such file."""
    if rows is None:
        return None
    found: dict[str, Instructor] = {}
    for where, r in rows:
        if r["id"] in found:
            problems.add(where, "id", f"{r['id']} is listed twice (first at row {found[r['id']].where.row})")
            continue
        found[r["id"]] = Instructor(r["id"], r["name_en"], r["name_zh"], where)
    return found


def section_kind(where: Where, text: str, problems: Problems) -> str:
    kind = text.strip().lower() or "lecture"
    kind = KIND_ABBREVIATIONS.get(kind, kind)
    if kind not in SECTION_KINDS:
        problems.add(where, "kind", f"must be one of {', '.join(SECTION_KINDS)}, but got {text!r}")
    return kind


class _Checker:
    """Checks of the cells a timetable repeats (days, times), each distinct cell once."""

    def __init__(self, problems: Problems):
        self.problems = problems
        self.days_of: dict[str, tuple[str, ...] | None] = {}
        self.times_ok: dict[str, bool] = {}

    def days(self, where: Where, cell: str) -> tuple[str, ...]:
        if cell not in self.days_of:
            days = cells.split(cell)
            bad = [d for d in days if d not in DAYS]
            self.days_of[cell] = None if bad else days
        days = self.days_of[cell]
        if days is None:
            bad = [d for d in cells.split(cell) if d not in DAYS]
            self.problems.add(where, "days", f"{', '.join(bad)} is no day ({', '.join(DAYS)}, separated by ';')")
            return cells.split(cell)
        return days

    def times(self, where: Where, start: str, end: str) -> None:
        for field, value in (("start", start), ("end", end)):
            ok = self.times_ok.get(value)
            if ok is None:
                ok = self.times_ok[value] = bool(_TIME.match(value))
            if not ok:
                self.problems.add(where, field, f"must be a time like 09:30, but got {value!r}")
        if start >= end and self.times_ok[start] and self.times_ok[end]:
            self.problems.add(where, "end", f"{end} is not after the start {start}")


def _references(where: Where, r: dict, places: tuple, problems: Problems) -> tuple[str, ...]:
    """The section's instructors; its room and instructors checked against the optional files."""
    room_table, people = places
    if room_table is not None and r["room"] and r["room"] not in room_table:
        problems.add(where, "room", f"{r['room']} is not in rooms.csv")
    names = cells.split(r["instructors"])
    if people is not None:
        for person in names:
            if person not in people:
                problems.add(where, "instructors", f"{person} is not in instructors.csv")
    return names


def sections(rows, aliases, term_ids, places: tuple, problems: Problems) -> tuple[Section, ...]:
    """Every row of sections.csv; `places` is (rooms, instructors), None where the file is absent."""
    found, seen = [], {}
    check = _Checker(problems)
    for where, r in rows:
        code = aliases.get(normalize_code(r["code"]))
        if code is None:
            problems.add(where, "code", f"{r['code']} is not in courses.csv")
            continue
        if r["term"] not in term_ids:
            problems.add(where, "term", f"{r['term']!r} is not in terms.csv")
        key = (r["term"], code, r["section"])
        if key in seen:
            problems.add(
                where, "section", f"{r['section']} of {code} in {r['term']} is listed twice (first at row {seen[key]})"
            )
        seen[key] = where.row
        days = check.days(where, r["days"])
        check.times(where, r["start"], r["end"])
        found.append(
            Section(
                r["term"],
                code,
                r["section"],
                section_kind(where, r["kind"], problems),
                days,
                r["start"],
                r["end"],
                r["room"],
                _references(where, r, places, problems),
                cells.languages(where, "language", r["language"], problems),
                where,
            )
        )
    return tuple(found)
