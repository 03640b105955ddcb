"""The catalog's typed records: courses, terms, sections, programs and their requirements.

Every record keeps where it was read (`Where`: file and row), because every answer drawn
from it cites that row, the way a passage cites its file and page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Union


@dataclass(frozen=True, slots=True)
class Where:
    """A record's file (name inside the catalog folder) and row (the spreadsheet's row
    number: the header is row 1, the first record row 2)."""

    file: str
    row: int

    def __str__(self) -> str:
        return f"{self.file} row {self.row}"


# -- prerequisite expressions: a code, all of several, or any of several ------------------


@dataclass(frozen=True, slots=True)
class Need:
    code: str


@dataclass(frozen=True, slots=True)
class AllOf:
    parts: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    parts: tuple["Expr", ...]


Expr = Union[Need, AllOf, AnyOf]


@dataclass(frozen=True, slots=True)
class CatalogCourse:
    code: str
    title_en: str
    title_zh: str
    credits: float
    where: Where
    prerequisites: Expr | None = None
    prerequisites_text: str = ""  # as written in the file
    corequisites: tuple[str, ...] = ()
    exclusions: tuple[str, ...] = ()
    cross_listed: tuple[str, ...] = ()  # other codes of the same course
    former_codes: tuple[str, ...] = ()  # codes it had before it was renamed
    former_titles: tuple[str, ...] = ()
    workspace: str = ""  # its course id in course_directory.yaml, when it has one
    description_en: str = ""
    description_zh: str = ""
    effective_term: str = ""  # the term its own code took effect, for a renamed course (terms.csv)

    @property
    def codes(self) -> tuple[str, ...]:
        """Every code the course is known by, its own first."""
        return (self.code, *self.cross_listed, *self.former_codes)

    def title(self, lang: str) -> str:
        return self.title_zh if lang == "zh" and self.title_zh else self.title_en

    def description(self, lang: str) -> str:
        return self.description_zh if lang == "zh" and self.description_zh else self.description_en


@dataclass(frozen=True, slots=True)
class Term:
    id: str
    name_en: str
    name_zh: str
    start: date
    end: date
    where: Where

    def name(self, lang: str) -> str:
        return self.name_zh if lang == "zh" and self.name_zh else self.name_en


@dataclass(frozen=True, slots=True)
class Section:
    term: str
    code: str
    section: str
    kind: str  # one of load.SECTION_KINDS: lecture, tutorial, lab, seminar, project, …
    days: tuple[str, ...]  # Mon … Sun
    start: str  # HH:MM
    end: str
    room: str  # a room id of rooms.csv when the catalog has one, else the room as written
    instructors: tuple[str, ...]  # ids of instructors.csv when the catalog has one, else names
    languages: tuple[str, ...]  # language codes, lower case: ("en",), ("en", "zh"), ("fr",)
    where: Where

    @property
    def language(self) -> str:
        """The teaching languages as the cell writes them: "en", "en;zh", "" when not given."""
        return ";".join(self.languages)


@dataclass(frozen=True, slots=True)
class Room:
    id: str
    building: str
    capacity: int | None
    where: Where


@dataclass(frozen=True, slots=True)
class Instructor:
    id: str
    name_en: str
    name_zh: str
    where: Where

    def name(self, lang: str) -> str:
        return self.name_zh if lang == "zh" and self.name_zh else self.name_en


@dataclass(frozen=True, slots=True)
class Program:
    id: str
    name_en: str
    name_zh: str
    total_credits: float
    where: Where
    year_credits: tuple[float, ...] = ()  # credits required in year 1, 2, … (when given)

    def name(self, lang: str) -> str:
        return self.name_zh if lang == "zh" and self.name_zh else self.name_en


ANY_YEAR = 0  # the year of an elective that may be taken in any year


@dataclass(frozen=True, slots=True)
class Requirement:
    program: str
    year: int  # 1, 2, …; ANY_YEAR (0) for an elective without a fixed year
    module_en: str
    module_zh: str
    code: str  # the code as the study scheme lists it (may be a cross-listed one)
    kind: str  # required or elective
    where: Where
    group: str = ""  # a choice group: take one of the program's rows sharing it
    module_min_credits: float | None = None  # the module's minimum credits, when this row gives it

    def module(self, lang: str) -> str:
        return self.module_zh if lang == "zh" and self.module_zh else self.module_en


@dataclass(frozen=True, slots=True)
class Catalog:
    """A whole validated catalog with its lookup tables (built once by `load.load_catalog`)."""

    folder: str
    courses: dict[str, CatalogCourse]  # by own code
    terms: tuple[Term, ...]
    sections: tuple[Section, ...]
    programs: dict[str, Program]
    requirements: tuple[Requirement, ...]
    aliases: dict[str, str] = field(default_factory=dict)  # any code -> own code
    sections_by_code: dict[str, tuple[Section, ...]] = field(default_factory=dict)  # own code
    needed_by: dict[str, tuple[str, ...]] = field(default_factory=dict)  # own code -> courses naming it
    requirements_by_code: dict[str, tuple[Requirement, ...]] = field(default_factory=dict)
    titles_en: dict[str, str] = field(default_factory=dict)  # English title words -> own code
    titles_other: dict[str, str] = field(default_factory=dict)  # other titles, no spaces -> own code
    digit_counts: dict[str, frozenset[int]] = field(default_factory=dict)  # code letters -> digit counts (codes.py)
    slip_index: dict[str, tuple[str, ...]] = field(default_factory=dict)  # codes.slip_index over every code
    rooms: dict[str, Room] = field(default_factory=dict)  # rooms.csv by id (empty without the file)
    instructors: dict[str, Instructor] = field(default_factory=dict)  # instructors.csv by id
    module_minimums: dict[tuple[str, str], float] = field(default_factory=dict)  # (program, module_en) -> credits

    def course(self, code: str) -> CatalogCourse | None:
        """The course any of its codes names (already normalised), or None."""
        own = self.aliases.get(code)
        return self.courses.get(own) if own else None

    def room_label(self, section: Section) -> str:
        """The section's room, with its building when rooms.csv names one: "B-201 (Business Building)"."""
        room = self.rooms.get(section.room)
        return f"{room.id} ({room.building})" if room is not None and room.building else section.room

    def instructor_names(self, section: Section, lang: str) -> list[str]:
        """The section's instructors by name in `lang` (ids of instructors.csv), else as written."""
        return [self.instructors[i].name(lang) if i in self.instructors else i for i in section.instructors]

    def choice_group(self, requirement: Requirement) -> tuple[Requirement, ...]:
        """The rows of the requirement's choice group (itself alone when it has none)."""
        if not requirement.group:
            return (requirement,)
        return tuple(r for r in self.requirements if r.program == requirement.program and r.group == requirement.group)

    def term(self, term_id: str) -> Term | None:
        return next((t for t in self.terms if t.id == term_id), None)

    def by_workspace(self, course_id: str) -> CatalogCourse | None:
        return next((c for c in self.courses.values() if c.workspace == course_id), None)

    def current_term(self, today: date) -> Term | None:
        """The term running on `today`, else the next one to start, else the last one."""
        terms = sorted(self.terms, key=lambda t: t.start)
        for term in terms:
            if term.start <= today <= term.end:
                return term
        upcoming = [t for t in terms if t.start > today]
        return upcoming[0] if upcoming else (terms[-1] if terms else None)

    def next_term(self, today: date) -> Term | None:
        current = self.current_term(today)
        later = sorted((t for t in self.terms if current and t.start > current.start), key=lambda t: t.start)
        return later[0] if later else None
