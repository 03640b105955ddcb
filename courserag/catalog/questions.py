"""Which questions the catalog answers, and what they ask.

A catalog question asks for one of its facts (credits, prerequisites, what needs a course,
sections, a program's requirements, a description), as the fitted intent model reads it
(intents.py), about a course (a code, a title, or the workspace's own course) or a program.
Questions about a course's own materials (exams, homework, a note's rooms) are read as no
intent and left to retrieval.

Pure functions; the model and the word lists (programs, terms, years) are read once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Callable

import yaml

from courserag.catalog.codes import Resolved, fold_title, mentions
from courserag.catalog.model import Catalog, CatalogCourse, Program, Term
from courserag.lang.script import script_of

WORDS_FILE = Path(__file__).with_name("words.yaml")
# Facts a course's own syllabus may also state: answered from the catalog first, then from
# the materials (sections, rooms and instructors: the catalog alone).
MERGED_INTENTS = frozenset({"prerequisites", "credits", "description"})


@lru_cache(maxsize=1)
def words() -> dict:
    return yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))


def _pattern(cue: str) -> re.Pattern:
    cue = fold_title(cue)
    if cue.isascii() and re.match(r"\w", cue) and re.search(r"\w$", cue):
        return re.compile(rf"(?<![\w]){re.escape(cue)}(?![\w])")
    return re.compile(re.escape(cue))


@lru_cache(maxsize=4096)
def _compiled(cue: str) -> re.Pattern:
    return _pattern(cue)


def find_cues(folded: str, cues: dict | list) -> list[tuple[int, int]]:
    """(start, end) of every cue of an {en: […], zh: […]} list (or a plain list) in `folded`."""
    items = [c for lang in ("en", "zh") for c in cues.get(lang, [])] if isinstance(cues, dict) else list(cues)
    return [(m.start(), m.end()) for cue in items for m in _compiled(str(cue)).finditer(folded)]


def has_cue(folded: str, cues) -> bool:
    return bool(find_cues(folded, cues))


_SENTENCE_END = re.compile(r"(?<=[?!;？！。；])\s*|(?<=\.)\s+")  # "3.5 credits" is one sentence


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks several things: split after each sentence's end,
    and before "and"/"also" followed by a word that opens a question; one part otherwise."""
    openers = "|".join(re.escape(w) for w in words()["question_openers"]["en"])
    joined = re.compile(rf"(?:,\s*|\s+)(?:and|also|and also)\s+(?=(?:{openers})\b)", re.IGNORECASE)
    parts = [p for sentence in _SENTENCE_END.split(question) for p in joined.split(sentence)]
    return [p.strip() for p in parts if p.strip()]


def read_parts(question: str, read_intents: Callable[[str], tuple[str, ...]]) -> tuple[list[str], list[str]]:
    """(what the question asks as a whole, what its other parts ask besides, each part read
    alone, in order); nothing besides when the whole asks nothing of the catalog."""
    whole = list(read_intents(question))
    parts = question_parts(question)
    besides: list[str] = []
    if whole and len(parts) > 1:
        for part in parts:
            besides += [i for i in read_intents(part) if i not in whole and i not in besides]
    return whole, besides


@dataclass(frozen=True)
class CatalogQuestion:
    """What a catalog question asks."""

    intents: tuple[str, ...]  # in answering order
    targets: tuple[Resolved, ...]  # the courses asked about (may include unknown codes)
    completed: tuple[Resolved, ...] = ()  # the learner's completed courses, when named
    program: Program | None = None
    year: int | None = None
    terms: tuple[Term, ...] = ()  # the terms asked about (sections)
    all_terms: bool = False
    kinds: tuple[str, ...] = ()  # section kinds singled out
    lang: str = "en"
    own_course: bool = False  # the target is the workspace's course, unnamed
    not_taken: tuple[Resolved, ...] = ()  # courses the learner says they have not taken


def _program_keys(program: Program) -> list[str]:
    """How a question may name a program: its id, names, and names without degree words."""
    degree = words()["degree_words"]
    keys = {fold_title(program.id), fold_title(program.name_en), fold_title(program.name_zh)}
    for name in (program.name_en, program.name_zh):
        folded = fold_title(name)
        for word in sorted((fold_title(w) for w in degree["en"] + degree["zh"]), key=len, reverse=True):
            folded = re.sub(rf"(?<![\w]){re.escape(word)}(?![\w])" if word.isascii() else re.escape(word), " ", folded)
        bare = " ".join(folded.split())
        keys.add(bare)
        if name == program.name_en and len(bare.split()) >= 2:  # "computer science" -> "cs" ("the CS major")
            keys.add("".join(word[0] for word in bare.split()))
    return [k for k in keys if len(k) >= 2]


def find_program(folded: str, catalog: Catalog) -> Program | None:
    """The one program the question names (the longest match wins)."""
    best: tuple[int, Program] | None = None
    for program in catalog.programs.values():
        for key in _program_keys(program):
            if has_cue(folded, [key]) and (best is None or len(key) > best[0]):
                best = (len(key), program)
    return best[1] if best else None


_ORDINAL_YEAR = re.compile(r"(?:year|第)\s*(\d)\s*(?:年|学年)?|(\d)(?:st|nd|rd|th)[ -]year|([1-8])\s*年级")
_WORD_YEAR = re.compile(r"year (one|two|three|four)\b")


def find_year(folded: str) -> int | None:
    """The year of study a question names: "year 2", "2nd year", "second year", "sophomore", 大二, 第二学年."""
    table = words()["years"]
    for word, year in sorted(table["zh"].items(), key=lambda item: -len(item[0])):
        if word in folded:
            return int(year)
    match = _ORDINAL_YEAR.search(folded)
    if match:
        return int(next(g for g in match.groups() if g))
    for word, year in table["en"].items():
        if (
            re.search(rf"(?<![\w]){word}[ -]year", folded)
            or re.search(rf"(?<![\w]){word}s?(?![\w])", folded)
            and not year_word_is_ordinal(word)
        ):
            return int(year)
    match = _WORD_YEAR.search(folded)
    return {"one": 1, "two": 2, "three": 3, "four": 4}[match.group(1)] if match else None


def year_word_is_ordinal(word: str) -> bool:
    """ "second" names a year only before "year"; "sophomore" names one alone."""
    return word in ("first", "second", "third", "fourth", "fifth")


def find_terms(folded: str, catalog: Catalog, today: date) -> tuple[tuple[Term, ...], bool]:
    """(terms asked about, every term?) — the current term when the question names none."""
    table = words()["terms"]
    if has_cue(folded, table["all"]):
        return tuple(sorted(catalog.terms, key=lambda t: t.start)), True
    named = [t for t in catalog.terms if has_cue(folded, [t.id, t.name_en, t.name_zh])]
    if named:
        return tuple(named), False
    for season, cues in words()["seasons"].items():
        if has_cue(folded, cues):
            matching = [t for t in catalog.terms if has_cue(fold_title(f"{t.name_en} {t.name_zh}"), cues)]
            if matching:
                upcoming = [t for t in matching if t.end >= today] or matching
                return (min(upcoming, key=lambda t: t.start),), False
    if has_cue(folded, table["next"]):
        later = catalog.next_term(today)
        return ((later,) if later else ()), False
    current = catalog.current_term(today)
    return ((current,) if current else ()), False


def _spans(folded: str, cues, skip: list[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Where the learner lists courses after a cue ("I have taken …"), up to a clause end;
    cues inside a `skip` cue ("修过" inside "没修过") do not count."""
    spans = []
    ends = words()["clause_end"]
    for start, end in find_cues(folded, cues):
        if any(s <= start < e for s, e in skip):
            continue
        stops = [s for s, _ in find_cues(folded[end:], ends)]
        spans.append((end, end + (min(stops) if stops else len(folded) - end)))
    return spans


def _completed_spans(folded: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(spans of completed courses, spans of courses not taken)."""
    negations = find_cues(folded, words()["not_completed"])
    return _spans(folded, words()["completed"], negations), _spans(folded, words()["not_completed"])


def detect(
    question: str,
    catalog: Catalog,
    today: date,
    workspace: CatalogCourse | None,
    read_intents: Callable[[str], tuple[str, ...]],
) -> CatalogQuestion | None:
    """The catalog question `question` asks, or None when it is not one.

    `workspace` is the catalog course of the selected workspace: a question naming no
    course ("what are the prerequisites?") is about it. `read_intents` says what a question
    asks (intents.py's IntentReader)."""
    folded = fold_title(question)
    program = find_program(folded, catalog)
    # Positions are those of the NFKC text; fold_title only folds case and spaces, close enough for spans.
    named = mentions(" ".join(question.split()), catalog)
    if not named and program is None and workspace is None:
        return None  # nothing the catalog could answer about: no need to read what is asked
    intents, besides = read_parts(question, read_intents)
    if "reverse" in intents and "prerequisites" in intents:
        intents.remove("prerequisites")  # "which courses need X as a prerequisite"
    year = find_year(folded)
    if program is not None and year is not None and "program" not in intents:
        intents.insert(0, "program")  # "courses in year 2 of computer science"
    if not intents:
        return None
    spans, negated = _completed_spans(folded) if "prerequisites" in intents else ([], [])
    inside = lambda at, where: any(s <= at < e for s, e in where)  # noqa: E731
    completed = tuple(r for r, at in named if inside(at, spans) and not inside(at, negated))
    not_taken = tuple(r for r, at in named if inside(at, negated))
    targets = tuple(r for r, at in named if not inside(at, spans) and not inside(at, negated))
    if program is not None:
        program_words = set(fold_title(w) for w in _program_keys(program))
        targets = tuple(t for t in targets if not (t.how == "title" and t.typed in program_words))
    own = False
    here = workspace is not None and has_cue(folded, words()["this_course"])
    if here and intents[0] in ("prerequisites", "reverse"):
        targets = ()  # "Do I need MAT2040 before this course?": this course's prerequisites, which name MAT2040
    if not targets and workspace is not None and (not (program and "program" in intents) or here):
        targets, own = (Resolved(workspace.code, workspace, "code"),), True
    if "program" in intents and program is None and not targets:
        return None
    if "program" not in intents and not targets:
        return None
    if intents[0] == "program" and program is not None:
        intents = ["program"] + [i for i in intents if i in ("prerequisites", "reverse") and targets and not own]
        besides = besides if targets and not own else []
    intents += [i for i in besides if i not in intents]  # "… and how many credits is it?"
    terms, every = find_terms(folded, catalog, today)
    kinds = tuple(kind for kind, cues in words()["kinds"].items() if has_cue(folded, cues))
    return CatalogQuestion(
        tuple(intents), targets, completed, program, year, terms, every, kinds, script_of(question), own, not_taken
    )
