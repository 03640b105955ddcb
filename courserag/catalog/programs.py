"""Programs and their requirements: `programs.csv` and `requirements.csv`, checked.

A requirement row places a course in a program's year and module as required or elective.
An elective may leave its year empty (taken in any year: `ANY_YEAR`). Rows of a program that
share a `group` are a choice: take one of them (they share year, module and kind, and there
are at least two). `module_min_credits` is the least a module must add up to (any of its rows
may give it; those that do agree, and the module's courses can reach it); a program's
`year_credits` (`30;32;34;32`) are the credits required in each year.
"""

from __future__ import annotations

from courserag.catalog import cells
from courserag.catalog.codes import normalize_code
from courserag.catalog.model import ANY_YEAR, CatalogCourse, Program, Requirement, Where
from courserag.catalog.problems import Problems

KINDS = ("required", "elective")
MAX_YEAR = 8


def programs(rows, problems: Problems) -> dict[str, Program]:
    found: dict[str, Program] = {}
    for where, r in rows:
        if r["program"] in found:
            problems.add(where, "program", f"{r['program']!r} is listed twice")
        total = cells.number(where, "total_credits", r["total_credits"], problems) if r["total_credits"] else 0.0
        years = tuple(cells.number(where, "year_credits", part, problems) for part in cells.split(r["year_credits"]))
        if total and sum(years) > total:
            problems.add(where, "year_credits", f"add up to {sum(years):g}, more than the total_credits {total:g}")
        found[r["program"]] = Program(r["program"], r["name_en"], r["name_zh"], total, where, years)
    return found


def _year(where: Where, r: dict, problems: Problems) -> int | None:
    if not r["year"] and r["kind"] == "elective":
        return ANY_YEAR
    if not r["year"].isdigit() or not 1 <= int(r["year"]) <= MAX_YEAR:
        detail = " (only an elective may leave it empty)" if not r["year"] else ""
        problems.add(where, "year", f"must be a whole number 1-{MAX_YEAR}, but got {r['year']!r}{detail}")
        return None
    return int(r["year"])


def _requirement(where: Where, r: dict, known: tuple[dict, dict], problems: Problems) -> Requirement | None:
    found, aliases = known
    code = normalize_code(r["code"])
    if r["program"] not in found:
        problems.add(where, "program", f"{r['program']!r} is not in programs.csv")
    if code not in aliases:
        problems.add(where, "code", f"{r['code']} is not in courses.csv")
        return None
    if r["kind"] not in KINDS:
        problems.add(where, "kind", f"must be required or elective, but got {r['kind']!r}")
    year = _year(where, r, problems)
    minimum = r["module_min_credits"]
    minimum = cells.number(where, "module_min_credits", minimum, problems) if minimum else None
    if year is None:
        return None
    return Requirement(r["program"], year, r["module_en"], r["module_zh"], code, r["kind"], where, r["group"], minimum)


def requirements(rows, found: dict[str, Program], aliases: dict[str, str], problems: Problems):
    """The rows of requirements.csv, each checked, then their groups and modules as wholes."""
    out, listed = [], {}
    for where, r in rows:
        requirement = _requirement(where, r, (found, aliases), problems)
        if requirement is None:
            continue
        key = (requirement.program, aliases[requirement.code])
        if key in listed:
            problems.add(where, "code", f"{requirement.code} is listed twice in {key[0]} (first at row {listed[key]})")
        listed[key] = where.row
        out.append(requirement)
    _check_groups(out, problems)
    return tuple(out)


def _check_groups(rows: list[Requirement], problems: Problems) -> None:
    groups: dict[tuple[str, str], list[Requirement]] = {}
    for r in rows:
        if r.group:
            groups.setdefault((r.program, r.group), []).append(r)
    for (program, group), members in groups.items():
        first = members[0]
        if len(members) < 2:
            problems.add(first.where, "group", f"{group} is a choice of one course (a group needs at least two rows)")
        for r in members[1:]:
            for field in ("year", "module_en", "kind"):
                if getattr(r, field) != getattr(first, field):
                    problems.add(
                        r.where,
                        field,
                        f"differs from row {first.where.row} of the same choice group {group} "
                        f"({getattr(r, field)!r}, not {getattr(first, field)!r})",
                    )


def module_minimums(
    rows: tuple[Requirement, ...], courses: dict[str, CatalogCourse], aliases: dict[str, str], problems: Problems
) -> dict[tuple[str, str], float]:
    """(program, module_en) -> the module's minimum credits, where rows give one; the rows that
    give it agree, and the module's courses add up to at least that much."""
    minimums: dict[tuple[str, str], tuple[float, Where]] = {}
    for r in rows:
        if r.module_min_credits is None:
            continue
        key = (r.program, r.module_en)
        if key in minimums and minimums[key][0] != r.module_min_credits:
            first, at = minimums[key]
            problems.add(
                r.where, "module_min_credits", f"{r.module_min_credits:g} differs from {first:g} given at row {at.row}"
            )
            continue
        minimums.setdefault(key, (r.module_min_credits, r.where))
    for (program, module), (minimum, at) in minimums.items():
        offered = sum(courses[aliases[r.code]].credits for r in rows if r.program == program and r.module_en == module)
        if offered < minimum:
            problems.add(
                at,
                "module_min_credits",
                f"{minimum:g} cannot be met: the courses of {module} in {program} add up to {offered:g}",
            )
    return {key: minimum for key, (minimum, _) in minimums.items()}
