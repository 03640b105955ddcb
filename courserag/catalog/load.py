"""Reading a catalog folder: five CSV files (and two optional ones), each checked row by row.

Spreadsheets are where registrars keep this data, so the format is CSV (UTF-8, a header
row, one record a row; several values in one cell are separated by ";"). Every problem is
reported with its file, row and field (`courses.csv:15: credits: …`, problems.py), all of
them at once, so one round of fixes is enough. A catalog with any problem is refused whole:
`CatalogSource` keeps the last good one in its place.

Columns added to the format since its first version are optional (`OPTIONAL_COLUMNS`), and
so are the files `rooms.csv` and `instructors.csv` (`OPTIONAL_FILES`): every catalog written
for an earlier version loads unchanged. Sections refer to rooms and instructors by id only
when the catalog has those files; without them the cells are free text as before.
"""

from __future__ import annotations

import csv
import logging
import os
import threading
from pathlib import Path

from courserag.catalog import cells, programs, timetable
from courserag.catalog.codes import digit_counts, is_code, normalize_code, slip_index, title_tables
from courserag.catalog.model import Catalog, CatalogCourse, Requirement, Section, Term, Where
from courserag.catalog.prereq import PrereqSyntaxError, codes_of, parse_prereq
from courserag.catalog.problems import MAX_PROBLEMS, CatalogError, Problem, Problems

__all__ = ["FILES", "MAX_PROBLEMS", "CatalogError", "CatalogSource", "Problem", "load_catalog"]

log = logging.getLogger(__name__)

FILES = {  # the five files every catalog has, with the columns each must have
    "terms.csv": ("term", "name_en", "name_zh", "start", "end"),
    "courses.csv": (
        "code",
        "title_en",
        "title_zh",
        "credits",
        "prerequisites",
        "corequisites",
        "exclusions",
        "cross_listed",
        "former_codes",
        "former_titles",
        "workspace",
        "description_en",
        "description_zh",
    ),
    "sections.csv": ("term", "code", "section", "kind", "days", "start", "end", "room", "instructors", "language"),
    "programs.csv": ("program", "name_en", "name_zh", "total_credits"),
    "requirements.csv": ("program", "year", "module_en", "module_zh", "code", "kind"),
}
OPTIONAL_FILES = {  # files a catalog may have; sections then refer to their ids
    "rooms.csv": ("room", "building", "capacity"),
    "instructors.csv": ("id", "name_en", "name_zh"),
}
OPTIONAL_COLUMNS = {  # columns added to the format later: a file without them reads as before
    "courses.csv": ("effective_term",),
    "programs.csv": ("year_credits",),
    "requirements.csv": ("group", "module_min_credits"),
}
REQUIRED = {  # fields that may not be empty
    "terms.csv": ("term", "name_en", "start", "end"),
    "courses.csv": ("code", "title_en", "credits"),
    "sections.csv": ("term", "code", "section", "days", "start", "end"),
    "programs.csv": ("program", "name_en"),
    "requirements.csv": ("program", "module_en", "code", "kind"),  # an elective may leave its year empty
    "rooms.csv": ("room",),
    "instructors.csv": ("id", "name_en"),
}
DAYS = timetable.DAYS
KINDS = programs.KINDS
SECTION_KINDS = timetable.SECTION_KINDS


def _read_rows(reader, name: str, header: tuple[str, ...], problems: Problems) -> list[tuple[Where, dict[str, str]]]:
    rows = []
    width = len(header)
    blank = dict.fromkeys(OPTIONAL_COLUMNS.get(name, ()), "")
    for cells_ in reader:
        if len(cells_) != width:
            if len(cells_) > width:
                problems.add(Where(name, reader.line_num), "", "more cells than the header has")
                continue
            cells_ = cells_ + [""] * (width - len(cells_))  # a spreadsheet drops trailing empty cells
        cells_ = [c.strip() for c in cells_]
        if not any(cells_):
            continue
        where = Where(name, reader.line_num)
        values = {**blank, **dict(zip(header, cells_))}
        empty = [f for f in REQUIRED[name] if not values[f]]
        for field in empty:
            problems.add(where, field, "empty")
        if not empty:
            rows.append((where, values))
    return rows


def _rows(folder: Path, name: str, problems: Problems, optional: bool = False) -> list | None:
    """The file's rows as (where, {column: cell}); None for an optional file that is absent."""
    path = folder / name
    columns = (OPTIONAL_FILES if optional else FILES)[name]
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            header = tuple(h.strip() for h in next(reader, ()))
            lacking = [f for f in columns if f not in header]
            if lacking:
                problems.add(name, "", f"the header lacks {', '.join(lacking)}")
                return []
            return _read_rows(reader, name, header, problems)
    except FileNotFoundError:
        if optional:
            return None  # no such file: its references are free text
        problems.add(name, "", f"missing from {folder}")
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        problems.add(name, "", f"cannot be read ({exc})")
    return []


def _terms(rows, problems: Problems) -> tuple[Term, ...]:
    terms, seen = [], set()
    for where, r in rows:
        if r["term"] in seen:
            problems.add(where, "term", f"{r['term']!r} is listed twice")
        seen.add(r["term"])
        start, end = cells.day(where, "start", r["start"], problems), cells.day(where, "end", r["end"], problems)
        if start > end:
            problems.add(where, "end", f"{r['end']} is before the start {r['start']}")
        terms.append(Term(r["term"], r["name_en"], r["name_zh"], start, end, where))
    return tuple(terms)


def _course(where: Where, r: dict, term_ids: set[str], problems: Problems) -> CatalogCourse:
    try:
        expr = parse_prereq(r["prerequisites"])
    except PrereqSyntaxError as exc:
        problems.add(where, "prerequisites", str(exc))
        expr = None
    former = cells.codes(where, "former_codes", r["former_codes"], problems)
    if r["effective_term"] and not former:
        problems.add(where, "effective_term", "only a renamed course (one with former_codes) has one")
    elif r["effective_term"] and r["effective_term"] not in term_ids:
        problems.add(where, "effective_term", f"{r['effective_term']!r} is not in terms.csv")
    return CatalogCourse(
        normalize_code(r["code"]),
        r["title_en"],
        r["title_zh"],
        cells.number(where, "credits", r["credits"], problems),
        where,
        expr,
        r["prerequisites"],
        cells.codes(where, "corequisites", r["corequisites"], problems),
        cells.codes(where, "exclusions", r["exclusions"], problems),
        cells.codes(where, "cross_listed", r["cross_listed"], problems),
        former,
        cells.split(r["former_titles"]),
        r["workspace"],
        r["description_en"],
        r["description_zh"],
        r["effective_term"],
    )


def _courses(rows, term_ids: set[str], problems: Problems) -> dict[str, CatalogCourse]:
    courses: dict[str, CatalogCourse] = {}
    for where, r in rows:
        if not is_code(r["code"]):
            problems.add(
                where, "code", f"{r['code']!r} is not a course code (letters then digits, like CSC3100 or MATH-101)"
            )
            continue
        code = normalize_code(r["code"])
        if code in courses:
            problems.add(where, "code", f"{code} is listed twice (first at row {courses[code].where.row})")
            continue
        courses[code] = _course(where, r, term_ids, problems)
    return courses


def _aliases(courses: dict[str, CatalogCourse], problems: Problems) -> dict[str, str]:
    aliases = {code: code for code in courses}
    for course in courses.values():
        for field, codes in (("cross_listed", course.cross_listed), ("former_codes", course.former_codes)):
            for code in codes:
                if aliases.get(code, course.code) != course.code:
                    problems.add(course.where, field, f"{code} already names {aliases[code]}")
                aliases[code] = course.code
    return aliases


def _check_links(courses, aliases, problems: Problems) -> dict[str, tuple[str, ...]]:
    """Every code a course names exists; prerequisites have no cycle. Returns needed_by."""
    needed_by: dict[str, list[str]] = {}
    for course in courses.values():
        for field, codes in (
            ("prerequisites", codes_of(course.prerequisites)),
            ("corequisites", course.corequisites),
            ("exclusions", course.exclusions),
        ):
            for code in codes:
                if code not in aliases:
                    problems.add(course.where, field, f"{code} is not in courses.csv")
                elif field == "prerequisites" and course.code not in needed_by.setdefault(aliases[code], []):
                    needed_by[aliases[code]].append(course.code)
    _check_cycles(courses, aliases, problems)
    return {code: tuple(sorted(users)) for code, users in needed_by.items()}


MAX_CYCLE_SHOWN = 12  # codes of a cycle named in its problem; a longer one is shortened


def _check_cycles(courses, aliases, problems: Problems) -> None:
    """Prerequisite cycles, found by a depth-first walk with its own stack: a chain of
    thousands of courses, each needing the one before, is a valid catalog (a recursive walk
    once raised RecursionError on a 3,000-course chain and stopped the app, issue 40)."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for root in courses:
        if root in state:
            continue
        path: list[str] = [root]
        pending = [iter(codes_of(courses[root].prerequisites))]
        state[root] = 1
        while pending:
            need = next(pending[-1], None)
            if need is None:
                state[path.pop()] = 2
                pending.pop()
                continue
            code = aliases.get(need)
            if code is None or state.get(code) == 2:
                continue
            if state.get(code) == 1:
                problems.add(courses[code].where, "prerequisites", f"a cycle {_say_cycle(path + [code])}")
                continue
            state[code] = 1
            path.append(code)
            pending.append(iter(codes_of(courses[code].prerequisites)))


def _say_cycle(codes: list[str]) -> str:
    """ "A -> B -> A"; a long one with its middle left out, so one problem stays one line."""
    if len(codes) <= MAX_CYCLE_SHOWN:
        return " -> ".join(codes)
    half = MAX_CYCLE_SHOWN // 2
    return " -> ".join(codes[:half]) + f" -> … ({len(codes) - 2 * half} more) … -> " + " -> ".join(codes[-half:])


def _by(items, key) -> dict:
    grouped: dict = {}
    for item in items:
        grouped.setdefault(key(item), []).append(item)
    return {k: tuple(v) for k, v in grouped.items()}


def load_catalog(folder: Path) -> Catalog:
    """Read and check the whole catalog folder; CatalogError lists every problem found."""
    folder = Path(folder)
    problems = Problems()
    rows = {name: _rows(folder, name, problems) for name in FILES}
    rows.update({name: _rows(folder, name, problems, optional=True) for name in OPTIONAL_FILES})
    terms = _terms(rows["terms.csv"], problems)
    term_ids = {t.id for t in terms}
    courses = _courses(rows["courses.csv"], term_ids, problems)
    aliases = _aliases(courses, problems)
    needed_by = _check_links(courses, aliases, problems)
    places = (timetable.rooms(rows["rooms.csv"], problems), timetable.instructors(rows["instructors.csv"], problems))
    sections = timetable.sections(rows["sections.csv"], aliases, term_ids, places, problems)
    places = tuple(found or {} for found in places)
    found = programs.programs(rows["programs.csv"], problems)
    requirements = programs.requirements(rows["requirements.csv"], found, aliases, problems)
    minimums = programs.module_minimums(requirements, courses, aliases, problems)
    if problems:
        raise CatalogError(problems)
    by_code: dict[str, tuple[Section, ...]] = _by(sections, lambda s: s.code)
    required: dict[str, tuple[Requirement, ...]] = _by(requirements, lambda r: aliases[r.code])
    titles_en, titles_other = title_tables(courses.values())
    return Catalog(
        str(folder),
        courses,
        terms,
        sections,
        found,
        requirements,
        aliases,
        by_code,
        needed_by,
        required,
        titles_en,
        titles_other,
        digit_counts(aliases),
        slip_index(aliases),
        *places,
        minimums,
    )


class CatalogSource:
    """The catalog in use: loaded once, and reloaded on request. A broken catalog never
    replaces a good one: `reload` keeps the current one (or none, at first) and returns the
    error, which stays in `error` until a load succeeds."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self._catalog: Catalog | None = None
        self._loaded = False
        self._stamp: tuple | None = None  # the files' sizes and times at the last load
        self._lock = threading.Lock()
        self.error: CatalogError | None = None

    @property
    def catalog(self) -> Catalog | None:
        """The catalog (read on first use), or None when there is none or it is broken."""
        with self._lock:
            if not self._loaded:
                self._loaded = True
                self._load()
            return self._catalog

    def reload(self) -> CatalogError | None:
        with self._lock:
            self._loaded = True
            return self._load()

    def refresh(self) -> CatalogError | None:
        """Reload when a file of the folder changed since the last load (or none was tried):
        an edited catalog is read and checked again, and kept only when it passes."""
        with self._lock:
            if not self._loaded or self._files_stamp() != self._stamp:
                self._loaded = True
                self._load()
            return self.error

    def _files_stamp(self) -> tuple:
        if self.folder is None:
            return ()
        stamp = []
        for name in (*FILES, *OPTIONAL_FILES):
            try:
                info = os.stat(self.folder / name)
                stamp.append((name, info.st_size, info.st_mtime_ns))
            except OSError:
                stamp.append((name, None, None))
        return tuple(stamp)

    def _load(self) -> CatalogError | None:
        if self.folder is None or not self.folder.is_dir():
            return None
        self._stamp = self._files_stamp()
        try:
            self._catalog, self.error = load_catalog(self.folder), None
        except CatalogError as exc:
            log.error("the catalog in %s was not loaded: %s", self.folder, exc)
            self.error = exc
        except Exception as exc:  # noqa: BLE001 - a catalog is data: whatever it holds, the app starts without it
            # No catalog may stop the app (a RecursionError once did, issue 40): any other
            # failure is refused like a problem, and logged whole, since it is a bug to fix.
            log.exception("the catalog in %s was not loaded", self.folder)
            self.error = CatalogError([Problem("", None, "", f"could not be read ({type(exc).__name__}: {exc})")])
        return self.error
