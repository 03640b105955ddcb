"""Exact answers from the catalog, in the question's language, each fact cited to its row.

`answer_question` detects the question (questions.py) and writes the reply; every sentence
ends with the number of the catalog record it states ([1] = `courses.csv row 15`), the way
an answer from the materials cites its passages. An unknown code is refused: "CSC3170 is
not in the catalog", never the nearest real course, whose codes it only names ("Did you
mean CSC3100, CSC3150 or CSC3180?").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Callable

from courserag.catalog.codes import Resolved
from courserag.catalog.model import ANY_YEAR, Catalog, CatalogCourse, Program, Requirement, Section, Where
from courserag.catalog.prereq import missing, satisfied, say
from courserag.catalog.questions import CatalogQuestion, detect
from courserag.i18n.messages import render

_DAYS = {
    "en": {
        "Mon": "Mondays",
        "Tue": "Tuesdays",
        "Wed": "Wednesdays",
        "Thu": "Thursdays",
        "Fri": "Fridays",
        "Sat": "Saturdays",
        "Sun": "Sundays",
    },
    "zh": {"Mon": "周一", "Tue": "周二", "Wed": "周三", "Thu": "周四", "Fri": "周五", "Sat": "周六", "Sun": "周日"},
}


@dataclass(frozen=True)
class CatalogFact:
    """One cited catalog record: where it is, its id, and the record as the source panel shows it."""

    where: Where
    record: str
    text: str
    rows: tuple[int, ...] = ()  # when one citation stands for several rows of a file

    @property
    def locator(self) -> str:
        rows = self.rows or (self.where.row,)
        label = f"row {rows[0]}" if len(rows) == 1 else f"rows {', '.join(map(str, rows))}"
        return f"{label} · {self.record}"


@dataclass
class CatalogReply:
    """The answer text (with [n] markers into `facts`) and what it asked."""

    text: str
    facts: list[CatalogFact] = field(default_factory=list)
    refused: bool = False
    question: CatalogQuestion | None = None


class _Writer:
    """Collects sentences and numbers each record the first time it is cited."""

    def __init__(self, catalog: Catalog, lang: str):
        self.catalog, self.lang = catalog, lang
        self.facts: list[CatalogFact] = []
        self.lines: list[str] = []

    def cite(self, fact: CatalogFact) -> str:
        for n, known in enumerate(self.facts, start=1):
            if known.where == fact.where and known.rows == fact.rows:
                return f"[{n}]"
        self.facts.append(fact)
        return f"[{len(self.facts)}]"

    def say(self, message: str, **params) -> None:
        self.lines.append(render(message, params, self.lang))

    def name(self, code: str) -> str:
        course = self.catalog.course(code)
        return f"{code} {course.title(self.lang)}" if course else code

    def course_fact(self, course: CatalogCourse) -> str:
        return self.cite(CatalogFact(course.where, course.code, record_text(course)))

    def text(self) -> str:
        return "\n".join(self.lines)


def record_text(course: CatalogCourse) -> str:
    """A course row as the source panel shows it."""
    parts = [
        f"{course.code} {course.title_en} / {course.title_zh}",
        f"credits: {_num(course.credits)}",
        f"prerequisites: {course.prerequisites_text or 'none'}",
    ]
    for label, codes in (
        ("co-requisites", course.corequisites),
        ("exclusions", course.exclusions),
        ("cross-listed as", course.cross_listed),
        ("formerly", course.former_codes),
    ):
        if codes:
            parts.append(f"{label}: {', '.join(codes)}")
    if course.effective_term:
        parts.append(f"current code since: {course.effective_term}")
    if course.former_titles:
        parts.append(f"former titles: {', '.join(course.former_titles)}")
    return " · ".join(parts) + (f"\n{course.description_en}" if course.description_en else "")


def section_text(section: Section, catalog: Catalog | None = None) -> str:
    """A sections.csv row as the source panel shows it (room and instructors by name when
    the catalog has rooms.csv and instructors.csv)."""
    room = catalog.room_label(section) if catalog else section.room
    who = catalog.instructor_names(section, "en") if catalog else list(section.instructors)
    return (
        f"{section.term} {section.code} {section.section} ({section.kind}) · {';'.join(section.days)} "
        f"{section.start}-{section.end} · {room} · {'; '.join(who)} · {section.language}"
    )


KNOWN_KINDS = ("lecture", "tutorial", "lab", "seminar", "project", "studio", "workshop", "discussion")
KNOWN_KINDS += ("practicum", "fieldwork", "online")


def languages_words(section: Section, lang: str) -> str:
    """ ", taught in English", ", taught in English and Chinese", ", taught in fr"; "" when not given."""
    if len(section.languages) == 1 and section.languages[0] in ("en", "zh"):
        return render(f"cat_lang_{section.languages[0]}", None, lang)
    if not section.languages:
        return ""
    names = [render(f"cat_language_{code}", None, lang) if code in ("en", "zh") else code for code in section.languages]
    return render("cat_lang_list", {"languages": _join(names, lang)}, lang)


_ZH_NUMBERS = "零一二三四五六七八"


def year_words(year: int, lang: str) -> str:
    """ "2" in English; "二学年（大二）" in Chinese, the way a Chinese study scheme says it."""
    if year == ANY_YEAR:
        return "任一学年" if lang == "zh" else "any year"
    if lang != "zh":
        return str(year)
    number = _ZH_NUMBERS[year] if 0 < year < len(_ZH_NUMBERS) else str(year)
    return f"{number}学年（大{number}）" if year <= 4 else f"{number}学年"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _join(items: list[str], lang: str) -> str:
    if lang == "zh":
        return "、".join(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _when(section: Section, lang: str) -> str:
    days = [_DAYS[lang].get(d, d) for d in section.days]
    if lang == "zh":
        return f"每{'、'.join(days)} {section.start}–{section.end}"
    return f"{_join(days, lang)} {section.start}–{section.end}"


def _credits(w: _Writer, course: CatalogCourse) -> None:
    w.say(
        "cat_credits",
        course=w.name(course.code),
        credits=_num(course.credits),
        unit="credit" if course.credits == 1 else "credits",
        cite=w.course_fact(course),
    )


def _credits_total(w: _Writer, courses: list[CatalogCourse]) -> None:
    """ "Together, CSC3100 … and DS2010 … are worth 6 credits." cited to each course's row."""
    w.say(
        "cat_credits_total",
        courses=_join([w.name(c.code) for c in courses], w.lang),
        credits=_num(sum(c.credits for c in courses)),
        cite=" ".join(w.course_fact(c) for c in courses),
    )


def required_credits(rows: list[Requirement], catalog: Catalog) -> float:
    """The credits of a year's required rows: a choice group ("take one of") counts once, at
    its smallest course."""
    singles = [catalog.course(r.code).credits for r in rows if r.kind == "required" and not r.group]
    groups: dict[str, list[float]] = {}
    for r in rows:
        if r.kind == "required" and r.group:
            groups.setdefault(r.group, []).append(catalog.course(r.code).credits)
    return sum(singles) + sum(min(group) for group in groups.values())


def _prerequisites(w: _Writer, course: CatalogCourse, q: CatalogQuestion) -> None:
    cite = w.course_fact(course)
    if course.prerequisites is None:
        w.say("cat_no_prereq", course=w.name(course.code), cite=cite)
    else:
        w.say("cat_prereq", course=w.name(course.code), prereq=say(course.prerequisites, w.lang, w.name), cite=cite)
    if course.corequisites:
        w.say("cat_coreq", codes=_join([w.name(c) for c in course.corequisites], w.lang), cite=cite)
    if course.exclusions:
        w.say("cat_exclusions", codes=_join([w.name(c) for c in course.exclusions], w.lang), cite=cite)
    lacking = [r.course.code for r in q.not_taken if r.course is not None]
    if lacking and course.prerequisites is not None:
        # Met by some set of courses without them? Then they are not indispensable.
        others = set(w.catalog.courses) - set(lacking)
        message = "cat_prereq_without_ok" if satisfied(course.prerequisites, others) else "cat_prereq_without_unmet"
        w.say(message, lacking=_join([w.name(c) for c in lacking], w.lang), course=course.code, cite=cite)
    known = [r.course for r in q.completed if r.course is not None]
    if q.completed:
        done = {c.code for c in known}
        listed = _join([w.name(c.code) for c in known] or [r.typed for r in q.completed], w.lang)
        unknown = [r.typed for r in q.completed if r.course is None]
        if unknown:
            w.say("cat_unknown_code", code=_join(unknown, w.lang))
        excluded = [c for c in course.exclusions if w.catalog.aliases.get(c) in done]
        if excluded:
            w.say("cat_excluded", done=_join([w.name(c) for c in excluded], w.lang), course=course.code, cite=cite)
        elif satisfied(course.prerequisites, done):
            w.say("cat_prereq_met", done=listed, course=course.code, cite=cite)
        else:
            w.say(
                "cat_prereq_unmet",
                done=listed,
                course=course.code,
                left=say(missing(course.prerequisites, done), w.lang, w.name),
                cite=cite,
            )


def _reverse(w: _Writer, course: CatalogCourse) -> None:
    users = [w.catalog.courses[c] for c in w.catalog.needed_by.get(course.code, ())]
    if not users:
        w.say("cat_needed_by_none", course=w.name(course.code), cite=w.course_fact(course))
        return
    lines = [f"{w.name(u.code)} ({say(u.prerequisites, w.lang, lambda c: c)}) {w.course_fact(u)}" for u in users]
    w.say(
        "cat_needed_by",
        course=w.name(course.code),
        count=len(users),
        courses=("；" if w.lang == "zh" else "; ").join(lines),
    )


def _sections(w: _Writer, course: CatalogCourse, q: CatalogQuestion) -> None:
    offered = w.catalog.sections_by_code.get(course.code, ())
    terms = list(q.terms) or sorted(w.catalog.terms, key=lambda t: t.start)
    for term in terms:
        sections = [s for s in offered if s.term == term.id]
        chosen = [s for s in sections if s.kind in q.kinds] or sections
        if not chosen:
            other = [
                t.name(w.lang)
                for t in sorted(w.catalog.terms, key=lambda t: t.start)
                if any(s.term == t.id for s in offered)
            ]
            if other:
                w.say(
                    "cat_not_offered",
                    course=w.name(course.code),
                    term=term.name(w.lang),
                    terms=_join(other, w.lang),
                    cite=w.course_fact(course),
                )
            else:
                w.say("cat_never_offered", course=w.name(course.code), cite=w.course_fact(course))
            continue
        parts = []
        for s in chosen:
            cite = w.cite(CatalogFact(s.where, f"{s.term} {s.code} {s.section}", section_text(s, w.catalog)))
            parts.append(
                render(
                    "cat_section",
                    {
                        "section": s.section,
                        "kind": render(
                            f"cat_kind_{s.kind}" if s.kind in KNOWN_KINDS else "plain", {"text": s.kind}, w.lang
                        ),
                        "when": _when(s, w.lang),
                        "room": w.catalog.room_label(s) or "—",
                        "who": _join(w.catalog.instructor_names(s, w.lang), w.lang) if s.instructors else "—",
                        "language": languages_words(s, w.lang),
                        "cite": cite,
                    },
                    w.lang,
                )
            )
        w.say(
            "cat_sections",
            course=w.name(course.code),
            term=term.name(w.lang),
            sections=("；" if w.lang == "zh" else "; ").join(parts),
        )


def _description(w: _Writer, course: CatalogCourse) -> None:
    w.say(
        "cat_description",
        course=w.name(course.code),
        text=course.description(w.lang) or "—",
        cite=w.course_fact(course),
    )


def _requirement_line(r: Requirement) -> str:
    year = f"year {r.year}" if r.year != ANY_YEAR else "any year"
    group = f" · one of group {r.group}" if r.group else ""
    return f"{r.program} · {year} · {r.module_en} / {r.module_zh} · {r.code} · {r.kind}{group}"


def _requirement_fact(program: Program, rows: list[Requirement], record: str) -> CatalogFact:
    text = "\n".join(_requirement_line(r) for r in rows)
    return CatalogFact(rows[0].where, record, text, tuple(r.where.row for r in rows))


def _in_program(w: _Writer, course: CatalogCourse, program: Program | None) -> None:
    programs = [program] if program else list(w.catalog.programs.values())
    for p in programs:
        rows = [r for r in w.catalog.requirements_by_code.get(course.code, ()) if r.program == p.id]
        if not rows:
            if program is not None:
                w.say(
                    "cat_not_in_program",
                    course=w.name(course.code),
                    program=p.name(w.lang),
                    cite=w.cite(CatalogFact(p.where, p.id, f"{p.id} {p.name_en} / {p.name_zh}")),
                )
            continue
        for r in rows:
            w.say(
                "cat_in_program_any" if r.year == ANY_YEAR else "cat_in_program",
                course=w.name(course.code),
                program=p.name(w.lang),
                kind=render(f"cat_{r.kind}", None, w.lang),
                year=year_words(r.year, w.lang),
                module=r.module(w.lang),
                cite=w.cite(_requirement_fact(p, [r], f"{p.id} {r.code}")),
            )
    if program is None and not w.catalog.requirements_by_code.get(course.code):
        w.say("cat_in_no_program", course=w.name(course.code))


def _program_year(w: _Writer, program: Program, year: int | None) -> None:
    rows = [r for r in w.catalog.requirements if r.program == program.id and (year is None or r.year == year)]
    if not rows:
        w.say("cat_program_empty", program=program.name(w.lang), year=year_words(year, w.lang) if year else "—")
        return
    years = sorted({r.year for r in rows}, key=lambda y: (y == ANY_YEAR, y))
    head = render("cat_program_head", {"program": program.name(w.lang), "credits": _num(program.total_credits)}, w.lang)
    w.lines.append(
        head
        + " "
        + w.cite(
            CatalogFact(
                program.where,
                program.id,
                f"{program.id} {program.name_en} / {program.name_zh} · {_num(program.total_credits)} credits",
            )
        )
    )
    for y in years:
        in_year = [r for r in rows if r.year == y]
        cite = w.cite(_requirement_fact(program, in_year, f"{program.id} year {y}"))
        parts = []
        for kind in ("required", "elective"):
            courses = _year_courses(w, [r for r in in_year if r.kind == kind])
            if courses:
                parts.append(f"{render(f'cat_{kind}', None, w.lang)}: {courses}")
        credits = program.year_credits[y - 1] if 0 < y <= len(program.year_credits) else None
        required = required_credits(in_year, w.catalog)
        message = (
            "cat_program_any_year"
            if y == ANY_YEAR
            else "cat_program_year_credits"
            if credits
            else "cat_program_year_required"
            if required
            else "cat_program_year"
        )
        w.say(
            message,
            year=year_words(y, w.lang),
            credits=_num(credits or required),
            courses=("；" if w.lang == "zh" else "; ").join(parts),
            cite=cite,
        )


def _year_courses(w: _Writer, rows: list[Requirement]) -> str:
    """ "CSC1001 Programming (3) and MAT1001 Calculus I (3)"; the rows of a choice group as
    one item, "one of ECON3410 … (3) or ECON3420 … (3)"."""
    items, done = [], set()
    said = lambda r: f"{w.name(r.code)} ({_num(w.catalog.course(r.code).credits)})"  # noqa: E731
    for r in rows:
        if r.group and r.group in done:
            continue
        if r.group:
            done.add(r.group)
            group = [said(g) for g in rows if g.group == r.group]
            either = "、".join(group) if w.lang == "zh" else " or ".join(group)
            items.append(render("cat_choice", {"courses": either}, w.lang))
        else:
            items.append(said(r))
    return _join(items, w.lang) if items else ""


def answer_question(
    question: str,
    catalog: Catalog,
    today: date,
    workspace: CatalogCourse | None,
    read_intents: Callable[[str], tuple[str, ...]],
) -> CatalogReply | None:
    """The catalog's answer, or None when the question is not a catalog question."""
    q = detect(question, catalog, today, workspace, read_intents)
    if q is None:
        return None
    return write_reply(q, catalog)


def _alias(w: _Writer, typed: str, course: CatalogCourse) -> None:
    """ "(CSC3200 is the former code of CSC4120 …)", with the term the new code took effect."""
    if typed not in course.former_codes:
        w.say("cat_cross_listed", typed=typed, course=w.name(course.code))
        return
    term = w.catalog.term(course.effective_term) if course.effective_term else None
    if term is None:
        w.say("cat_former", typed=typed, course=w.name(course.code))
    else:
        w.say("cat_former_since", typed=typed, course=w.name(course.code), term=term.name(w.lang))


def _either(items: list[str], lang: str) -> str:
    """ "A", "A or B", "A, B or C" (Chinese: "A、B 或 C")."""
    if len(items) == 1:
        return items[0]
    if lang == "zh":
        return "、".join(items[:-1]) + " 或 " + items[-1]
    return ", ".join(items[:-1]) + " or " + items[-1]


def not_in_catalog(unknown: list[Resolved], lang: str) -> str:
    """One sentence per unknown code, each followed by the catalog codes near it, so that
    the learner chooses: "CSC3170 is not in the catalog. Did you mean CSC3100 or CSC3150?"
    A near code is named only, never answered for (codes.py)."""
    sentences = []
    for typed, near in dict((t.typed, t.near) for t in unknown).items():
        sentences.append(render("cat_unknown_code", {"code": typed}, lang))
        if near:
            sentences.append(render("cat_did_you_mean", {"codes": _either(list(near), lang)}, lang))
    return ("" if lang == "zh" else " ").join(sentences)


def write_reply(q: CatalogQuestion, catalog: Catalog) -> CatalogReply:
    """The reply to a detected question: refused when it names only codes the catalog lacks."""
    w = _Writer(catalog, q.lang)
    unknown = [t for t in q.targets if t.course is None]
    known = [t for t in q.targets if t.course is not None]
    if unknown:
        w.lines.append(not_in_catalog(unknown, q.lang))
    if unknown and not known:
        return CatalogReply(w.text(), [], True, q)
    for target in known:
        course = target.course
        if target.how == "typo":
            w.say("cat_read_as", typed=target.typed, course=w.name(course.code))
        elif target.how == "alias":
            _alias(w, target.typed, course)
        for intent in q.intents:
            if intent == "credits":
                _credits(w, course)
            elif intent == "prerequisites":
                _prerequisites(w, course, q)
            elif intent == "reverse":
                _reverse(w, course)
            elif intent == "sections":
                _sections(w, course, q)
            elif intent == "description":
                _description(w, course)
            elif intent == "program":
                _in_program(w, course, q.program)
    courses = list({t.course.code: t.course for t in known}.values())
    if "credits" in q.intents and len(courses) > 1:
        _credits_total(w, courses)
    if not known and q.program is not None:
        _program_year(w, q.program, q.year)
    return CatalogReply(w.text(), w.facts, False, q)
