"""Reading a catalog folder: five CSV files, each checked row by row.

Spreadsheets are where registrars keep this data, so the format is CSV (UTF-8, a header
row, one record a row; several values in one cell are separated by ";"). Every problem is
reported with its file, row and field, all of them at once (up to `MAX_PROBLEMS`), so one
round of fixes is enough. A catalog with any problem is refused whole: `CatalogSource`
keeps the last good one in its place.
"""

from __future__ import annotations

import csv
import logging
import re
import threading
from datetime import date
from pathlib import Path

from courserag.catalog.codes import digit_counts, is_code, normalize_code, slip_index, title_tables
from courserag.catalog.model import Catalog, CatalogCourse, Program, Requirement, Section, Term, Where
from courserag.catalog.prereq import PrereqSyntaxError, codes_of, parse_prereq
from courserag.errors import ConfigError

log = logging.getLogger(__name__)

MAX_PROBLEMS = 20
FILES = {
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
REQUIRED = {  # fields that may not be empty
    "terms.csv": ("term", "name_en", "start", "end"),
    "courses.csv": ("code", "title_en", "credits"),
    "sections.csv": ("term", "code", "section", "days", "start", "end"),
    "programs.csv": ("program", "name_en"),
    "requirements.csv": ("program", "year", "module_en", "code", "kind"),
}
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
KINDS = ("required", "elective")
_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


class CatalogError(ConfigError):
    """A catalog that cannot be used; `problems` names each file, row and field."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = f" (and {len(problems) - MAX_PROBLEMS} more)" if len(problems) > MAX_PROBLEMS else ""
        super().__init__("catalog: " + "; ".join(problems[:MAX_PROBLEMS]) + more)


def _split(cell: str) -> tuple[str, ...]:
    if not cell:
        return ()
    if ";" not in cell:
        return (cell.strip(),)
    return tuple(part.strip() for part in (cell or "").split(";") if part.strip())


def _rows(folder: Path, name: str, problems: list[str]) -> list[tuple[Where, dict[str, str]]]:
    path = folder / name
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            header = tuple(h.strip() for h in next(reader, ()))
            lacking = [f for f in FILES[name] if f not in header]
            if lacking:
                problems.append(f"{name}: the header lacks {', '.join(lacking)}")
                return []
            required = REQUIRED[name]
            rows = []
            width = len(header)
            for cells in reader:
                if len(cells) != width:
                    if len(cells) > width:
                        problems.append(f"{Where(name, reader.line_num)}: more cells than the header has")
                        continue
                    cells = cells + [""] * (width - len(cells))  # a spreadsheet drops trailing empty cells
                cells = [c.strip() for c in cells]
                if not any(cells):
                    continue
                where = Where(name, reader.line_num)
                values = dict(zip(header, cells))
                empty = [f for f in required if not values[f]]
                if empty:
                    problems.append(f"{where}, {', '.join(empty)}: empty")
                    continue
                rows.append((where, values))
            return rows
    except FileNotFoundError:
        problems.append(f"{name}: missing from {folder}")
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        problems.append(f"{name}: cannot be read ({exc})")
    return []


def _number(where: Where, field: str, text: str, problems: list[str]) -> float:
    try:
        value = float(text)
        if value < 0:
            raise ValueError
        return value
    except ValueError:
        problems.append(f"{where}, {field}: must be a number >= 0, but got {text!r}")
        return 0.0


def _day(where: Where, field: str, text: str, problems: list[str]) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        problems.append(f"{where}, {field}: must be a date like 2026-09-01, but got {text!r}")
        return date.min


def _codes(where: Where, field: str, cell: str, problems: list[str]) -> tuple[str, ...]:
    out = []
    for part in _split(cell):
        if not is_code(part):
            problems.append(f"{where}, {field}: {part!r} is not a course code")
        else:
            out.append(normalize_code(part))
    return tuple(out)


def _terms(rows, problems) -> tuple[Term, ...]:
    terms, seen = [], set()
    for where, r in rows:
        if r["term"] in seen:
            problems.append(f"{where}, term: {r['term']!r} is listed twice")
        seen.add(r["term"])
        start, end = _day(where, "start", r["start"], problems), _day(where, "end", r["end"], problems)
        if start > end:
            problems.append(f"{where}, end: {r['end']} is before the start {r['start']}")
        terms.append(Term(r["term"], r["name_en"], r["name_zh"], start, end, where))
    return tuple(terms)


def _courses(rows, problems) -> dict[str, CatalogCourse]:
    courses: dict[str, CatalogCourse] = {}
    for where, r in rows:
        if not is_code(r["code"]):
            problems.append(f"{where}, code: {r['code']!r} is not a course code (letters then digits, like CSC3100)")
            continue
        code = normalize_code(r["code"])
        if code in courses:
            problems.append(f"{where}, code: {code} is listed twice (first at {courses[code].where})")
            continue
        try:
            expr = parse_prereq(r["prerequisites"])
        except PrereqSyntaxError as exc:
            problems.append(f"{where}, prerequisites: {exc}")
            expr = None
        courses[code] = CatalogCourse(
            code,
            r["title_en"],
            r["title_zh"],
            _number(where, "credits", r["credits"], problems),
            where,
            expr,
            r["prerequisites"],
            _codes(where, "corequisites", r["corequisites"], problems),
            _codes(where, "exclusions", r["exclusions"], problems),
            _codes(where, "cross_listed", r["cross_listed"], problems),
            _codes(where, "former_codes", r["former_codes"], problems),
            _split(r["former_titles"]),
            r["workspace"],
            r["description_en"],
            r["description_zh"],
        )
    return courses


def _aliases(courses: dict[str, CatalogCourse], problems: list[str]) -> dict[str, str]:
    aliases = {code: code for code in courses}
    for course in courses.values():
        for field, codes in (("cross_listed", course.cross_listed), ("former_codes", course.former_codes)):
            for code in codes:
                if aliases.get(code, course.code) != course.code:
                    problems.append(f"{course.where}, {field}: {code} already names {aliases[code]}")
                aliases[code] = course.code
    return aliases


def _check_links(courses, aliases, problems) -> dict[str, tuple[str, ...]]:
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
                    problems.append(f"{course.where}, {field}: {code} is not in courses.csv")
                elif field == "prerequisites" and course.code not in needed_by.setdefault(aliases[code], []):
                    needed_by[aliases[code]].append(course.code)
    _check_cycles(courses, aliases, problems)
    return {code: tuple(sorted(users)) for code, users in needed_by.items()}


MAX_CYCLE_SHOWN = 12  # codes of a cycle named in its problem; a longer one is shortened


def _check_cycles(courses, aliases, problems) -> None:
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
                problems.append(f"{courses[code].where}, prerequisites: a cycle {_say_cycle(path + [code])}")
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


def _sections(rows, aliases, term_ids, problems) -> tuple[Section, ...]:
    sections, seen = [], {}
    days_of: dict[str, tuple[str, ...]] = {}  # a timetable repeats few distinct cells: check each once
    times_ok: dict[str, bool] = {}
    for where, r in rows:
        code = aliases.get(normalize_code(r["code"]))
        if code is None:
            problems.append(f"{where}, code: {r['code']} is not in courses.csv")
            continue
        if r["term"] not in term_ids:
            problems.append(f"{where}, term: {r['term']!r} is not in terms.csv")
        key = (r["term"], code, r["section"])
        if key in seen:
            problems.append(
                f"{where}, section: {r['section']} of {code} in {r['term']} is listed twice (first at {seen[key]})"
            )
        seen[key] = where
        days = days_of.get(r["days"])
        if days is None:
            days = days_of[r["days"]] = _split(r["days"])
            bad = [d for d in days if d not in DAYS]
            if bad:
                del days_of[r["days"]]
                problems.append(f"{where}, days: {', '.join(bad)} is no day ({', '.join(DAYS)}, separated by ';')")
        start, end = r["start"], r["end"]
        for field, value in (("start", start), ("end", end)):
            ok = times_ok.get(value)
            if ok is None:
                ok = times_ok[value] = bool(_TIME.match(value))
            if not ok:
                problems.append(f"{where}, {field}: must be a time like 09:30, but got {value!r}")
        if start >= end and times_ok[start] and times_ok[end]:
            problems.append(f"{where}, end: {end} is not after the start {start}")
        if r["language"] and r["language"] not in ("en", "zh"):
            problems.append(f"{where}, language: must be en or zh, but got {r['language']!r}")
        sections.append(
            Section(
                r["term"],
                code,
                r["section"],
                r["kind"] or "lecture",
                days,
                start,
                end,
                r["room"],
                _split(r["instructors"]),
                r["language"],
                where,
            )
        )
    return tuple(sections)


def _programs(program_rows, requirement_rows, aliases, problems):
    programs = {}
    for where, r in program_rows:
        if r["program"] in programs:
            problems.append(f"{where}, program: {r['program']!r} is listed twice")
        credits = _number(where, "total_credits", r["total_credits"], problems) if r["total_credits"] else 0.0
        programs[r["program"]] = Program(r["program"], r["name_en"], r["name_zh"], credits, where)
    requirements = []
    for where, r in requirement_rows:
        code = normalize_code(r["code"])
        if r["program"] not in programs:
            problems.append(f"{where}, program: {r['program']!r} is not in programs.csv")
        if code not in aliases:
            problems.append(f"{where}, code: {r['code']} is not in courses.csv")
            continue
        if r["kind"] not in KINDS:
            problems.append(f"{where}, kind: must be required or elective, but got {r['kind']!r}")
        if not r["year"].isdigit() or not 1 <= int(r["year"]) <= 8:
            problems.append(f"{where}, year: must be a whole number 1-8, but got {r['year']!r}")
            continue
        requirements.append(
            Requirement(r["program"], int(r["year"]), r["module_en"], r["module_zh"], code, r["kind"], where)
        )
    return programs, tuple(requirements)


def load_catalog(folder: Path) -> Catalog:
    """Read and check the whole catalog folder; CatalogError lists every problem found."""
    folder = Path(folder)
    problems: list[str] = []
    rows = {name: _rows(folder, name, problems) for name in FILES}
    terms = _terms(rows["terms.csv"], problems)
    courses = _courses(rows["courses.csv"], problems)
    aliases = _aliases(courses, problems)
    needed_by = _check_links(courses, aliases, problems)
    sections = _sections(rows["sections.csv"], aliases, {t.id for t in terms}, problems)
    programs, requirements = _programs(rows["programs.csv"], rows["requirements.csv"], aliases, problems)
    if problems:
        raise CatalogError(problems)
    by_code: dict[str, list[Section]] = {}
    for section in sections:
        by_code.setdefault(section.code, []).append(section)
    required: dict[str, list[Requirement]] = {}
    for requirement in requirements:
        required.setdefault(aliases[requirement.code], []).append(requirement)
    titles_en, titles_other = title_tables(courses.values())
    return Catalog(
        str(folder),
        courses,
        terms,
        sections,
        programs,
        requirements,
        aliases,
        {code: tuple(s) for code, s in by_code.items()},
        needed_by,
        {code: tuple(r) for code, r in required.items()},
        titles_en,
        titles_other,
        digit_counts(aliases),
        slip_index(aliases),
    )


class CatalogSource:
    """The catalog in use: loaded once, and reloaded on request. A broken catalog never
    replaces a good one: `reload` keeps the current one and returns the error."""

    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self._catalog: Catalog | None = None
        self._loaded = False
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

    def _load(self) -> CatalogError | None:
        if self.folder is None or not self.folder.is_dir():
            return None
        try:
            self._catalog, self.error = load_catalog(self.folder), None
        except CatalogError as exc:
            log.error("the catalog in %s was not loaded: %s", self.folder, exc)
            self.error = exc
        except Exception as exc:  # noqa: BLE001 - a catalog is data: whatever it holds, the app starts without it
            # No catalog may stop the app (a RecursionError once did, issue 40): any other
            # failure is refused like a problem, and logged whole, since it is a bug to fix.
            log.exception("the catalog in %s was not loaded", self.folder)
            self.error = CatalogError([f"the catalog could not be read ({type(exc).__name__}: {exc})"])
        return self.error
