"""bench/start.py's figures: the app's start and first answers with the reader beside the
composer's, read off the children's readings and held to issue 41's bounds."""

from __future__ import annotations

import pytest

from bench.run import Plan, evaluate_targets, quick_plan, start_rows, tiny_plan
from bench.start import EXTRA_MEMORY_MB, FIRST_ANSWER_S, start_targets, summarize


def reading(ready_s, first_ms, rss_mb, refused=()):
    courses = {"csc3100": first_ms[0], "ds2010": first_ms[1]}
    return {
        "ready_s": ready_s,
        "first_answers": {c: {"ms": ms, "refused": c in refused, "question": "?"} for c, ms in courses.items()},
        "rss_mb": rss_mb,
    }


def test_a_start_is_summarized_by_medians_over_starts_and_its_slowest_course():
    readings = [
        reading(4.0, (600, 300), 630),
        reading(5.0, (400, 900), 650, refused=("ds2010",)),
        reading(9.0, (500, 200), 700),
    ]
    assert summarize(readings) == {"ready_s": 5.0, "first_answer_ms": 600.0, "rss_mb": 650.0, "refused": ["ds2010"]}


def start(first_answer_ms: float, extra_mb: float) -> dict:
    composer = {"ready_s": 4.0, "first_answer_ms": 450.0, "rss_mb": 430.0, "refused": []}
    reader = {"ready_s": 4.5, "first_answer_ms": first_answer_ms, "rss_mb": 430.0 + extra_mb, "refused": []}
    return {"start": {"composer": composer, "reader": reader, "extra_memory_mb": extra_mb, "rounds": 2}}


@pytest.mark.parametrize(
    ("first_answer_ms", "extra_mb", "first_met", "memory_met"),
    [
        (660.0, 200.0, True, True),
        (FIRST_ANSWER_S * 1000, EXTRA_MEMORY_MB, True, True),  # the bounds are inclusive
        (2400.0, 120.0, False, True),
        (900.0, 320.0, True, False),
    ],
)
def test_the_reader_s_first_answer_and_memory_are_held_to_the_issue_s_bounds(
    first_answer_ms, extra_mb, first_met, memory_met
):
    targets = {t["target"]: t for t in evaluate_targets(start(first_answer_ms, extra_mb), Plan())}
    first = targets[f"reader: first answer after start <= {FIRST_ANSWER_S:.0f} s"]
    memory = targets[f"reader: app memory <= {EXTRA_MEMORY_MB:.0f} MB above the composer's"]
    assert (first["value"], first["met"]) == (round(first_answer_ms / 1000, 2), first_met)
    assert (memory["value"], memory["met"]) == (extra_mb, memory_met)


def test_without_a_start_reading_there_is_no_verdict_and_no_row():
    assert start_targets({}) == [] and start_rows({}) == []


def test_the_table_puts_the_reader_s_start_beside_the_composer_s():
    rows = {row[0]: row for row in start_rows(start(900.0, 200.0))}
    first = rows["first answer after start (slowest course), reader"]
    assert first[1] == "900.0" and first[3:] == ("composer", "450.0", "0.50x")
    assert rows["app memory after the first answers, reader, MB"][1:] == (
        "630.0",
        "",
        "composer, MB",
        "430.0",
        "1.47x size",
    )


def test_the_full_and_quick_plans_start_the_app_and_the_tests_plan_does_not():
    assert (Plan().start_rounds, quick_plan().start_rounds, tiny_plan().start_rounds) == (2, 1, 0)
