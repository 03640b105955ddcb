"""Which units an answer quotes, once the best one is known: what it leaves out, its neighbours, a newer notice.

A unit is added for each asked kind of fact the chosen ones lack (the place of a "when and
where" question, `complete_needs`), and a dated statement of a change about the same thing
comes first (recency.py): both whatever chose the units. Without an embedder (`select`) the
best unit leads and more are added by hand-set reaches: to list what was asked for, to
explain a "why", or to quote the next sentence that completes a rule; with one, the fitted
passage model (passages.py) chooses them. Pure functions over compose.Candidate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from courserag.answers.extractive.params import PARAMS
from courserag.lang.intent import Ask

if TYPE_CHECKING:
    from courserag.answers.extractive.candidate import Candidate


def newer_first(
    chosen: list[Candidate], ranked: list[Candidate], ask: Ask, on_subject: Callable[[Candidate], bool]
) -> tuple[list[Candidate], tuple[int, int, int] | None]:
    """The chosen units in reading order (`reading_order`), but a dated statement of a change
    about what the best unit answers first (added when it was left out): the syllabus may
    name a room that a later announcement changed. Also the notice's date, when it is put before
    other statements (the answer says so); None otherwise."""
    best = chosen[0]
    limit = PARAMS.max_list_units if ask.wants_list else PARAMS.max_units

    def same_subject(c: Candidate) -> bool:
        # It names the question's subject about as well as the best unit does (or well enough)
        # and holds a kind of fact asked for that the best unit holds.
        return (
            on_subject(c)
            and c.score >= best.score - PARAMS.newer_reach
            and c.coverage >= min(best.coverage, PARAMS.need_coverage)
            and (not ask.needs or any(need & c.kinds and need & best.kinds for need in ask.needs))
        )

    # Only newer than the best unit: a notice's later entry is not overruled by its earlier one.
    rivals = [
        c
        for c in ranked
        if c.newer and same_subject(c) and (c is best or best.issued is None or c.issued > best.issued)
    ]
    if not rivals:
        return reading_order(chosen, best), None
    pick = max(rivals, key=lambda c: (c.issued, c.score))
    rest = [c for c in chosen if c is not pick and not contained(c, [pick])]
    rest = reading_order(rest[: limit - 1], best)
    overruled = pick is not best or any(c.issued is None or c.issued < pick.issued for c in rest)
    return [pick, *rest], pick.issued if overruled else None


def reading_order(chosen: list[Candidate], best: Candidate) -> list[Candidate]:
    """The best unit's source first, then the others by rank, each in its own order: a
    second passage from a better-ranked source does not push the best one down."""
    return sorted(chosen, key=lambda c: (c.n != best.n, c.n, c.unit.position))


def _distance(candidate: Candidate, anchor: Candidate) -> tuple[int, int]:
    """How far a unit is from the best one: another source is farther than any unit of its own."""
    return (candidate.n != anchor.n, abs(candidate.unit.position - anchor.unit.position))


def select(ranked: list[Candidate], ask: Ask, on_subject: Callable[[Candidate], bool]) -> list[Candidate]:
    """The best unit, then what it leaves out: a unit for each fact kind still missing (the
    nearest one about the subject), the best unit's neighbours when the question wants more
    than one fact (a policy, a yes/no with its reason, an explanation, a list), and for lists
    the other strong units."""
    best = ranked[0]
    chosen = [best]
    limit = PARAMS.max_list_units if ask.wants_list else PARAMS.max_units

    def fresh(c: Candidate) -> bool:
        return c not in chosen and not contained(c, chosen)

    def add_nearest_first(pool: list[Candidate]) -> None:
        for c in sorted(pool, key=lambda c: _distance(c, best)):
            if len(chosen) < limit and fresh(c):
                chosen.append(c)

    def near(c: Candidate) -> bool:
        return c.n == best.n and 0 < abs(c.unit.position - best.unit.position) <= PARAMS.near_positions

    chosen = complete_needs(chosen, ranked, ask, on_subject, limit)
    if ask.needs and best.unit.kind == "item":
        # A rule in cases (one list item per case: "within 24 hours: 20%; 24-48 hours: 50%")
        # is quoted with its other cases that state the fact asked for: which case is the
        # learner's is theirs to read, not the composer's to guess.
        add_nearest_first(
            [
                c
                for c in ranked
                if near(c)
                and c.unit.kind == "item"
                and c.unit.heading == best.unit.heading
                and c.score >= best.score - PARAMS.near_reach
                and any(need & c.kinds for need in ask.needs)
            ]
        )
    if not ask.needs or ask.yes_no or ask.explanation or ask.procedure or ask.wants_list:
        add_nearest_first(
            [
                c
                for c in ranked
                if near(c)
                and (on_subject(c) or c.unit.heading == best.unit.heading)
                and c.score >= best.score - _reach(c, best)
            ]
        )
    if ask.wants_list:
        for c in ranked:
            if len(chosen) < limit and fresh(c) and on_subject(c) and c.score >= best.score - 0.15:
                chosen.append(c)
    return chosen


def complete_needs(
    chosen: list[Candidate], ranked: list[Candidate], ask: Ask, on_subject: Callable[[Candidate], bool], limit: int
) -> list[Candidate]:
    """The chosen units (the best first), then for each asked kind of fact none of them
    holds the nearest unit about the subject that holds it (the place of a "when and
    where" question), up to `limit` units."""
    best, chosen = chosen[0], list(chosen)
    missing = [need for need in ask.needs if not any(need & c.kinds for c in chosen)]
    while missing and len(chosen) < limit:
        pool = [
            c
            for c in ranked
            if c not in chosen
            and not contained(c, chosen)
            and on_subject(c)
            and c.score >= best.score - 0.5
            and any(need & c.kinds for need in missing)
        ]
        if not pool:
            break
        pick = min(pool, key=lambda c: (_distance(c, best), -c.score))
        chosen.append(pick)
        missing = [need for need in missing if not need & pick.kinds]
    return chosen


def _reach(candidate: Candidate, best: Candidate) -> float:
    """How far below the best unit a neighbour may score and still be quoted with it: the
    sentence right after it in the same section usually completes its rule (the deadline
    for the request, the limit of the penalty), so it may score lower than one further off."""
    adjacent = candidate.unit.position == best.unit.position + 1 and candidate.unit.heading == best.unit.heading
    return PARAMS.adjacent_reach if adjacent else PARAMS.near_reach


def contained(candidate: Candidate, chosen: list[Candidate]) -> bool:
    """A unit whose text is inside one already chosen (an item inside its list) adds nothing."""
    return any(candidate.unit.text in c.unit.text or c.unit.text in candidate.unit.text for c in chosen)
