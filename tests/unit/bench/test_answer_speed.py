"""bench.run's extractive-ask speed on real questions: issue 19's bounds, read off the results."""

from __future__ import annotations

import pytest

from bench.run import (
    ASK_MEDIAN_MS,
    ASK_P95_MS,
    READER_MEDIAN_MS,
    READER_P95_MS,
    Plan,
    evaluate_targets,
    quick_plan,
    table_rows,
    tiny_plan,
)


def _answers(median: float, p95: float) -> dict:
    entry = {"questions": 957, "median_ms": median, "p95_ms": p95, "correct": 0.6, "top_chunk": 0.56, "words": 56}
    return {"answers": {"syllabusqa_dev": entry, "xquad_en2zh_dev": {"missing": "/nowhere/xquad_en2zh_dev"}}}


@pytest.mark.parametrize(
    "median, p95, median_met, p95_met",
    [
        (29.0, 153.0, True, True),
        (ASK_MEDIAN_MS, ASK_P95_MS, True, True),  # the bounds are inclusive
        (101.0, 150.0, False, True),
        (60.0, 232.0, True, False),
    ],
)
def test_each_set_is_held_to_the_issues_median_and_p95(median, p95, median_met, p95_met):
    targets = {t["target"]: t for t in evaluate_targets(_answers(median, p95), Plan())}
    by_median = targets[f"extractive ask median <= {ASK_MEDIAN_MS:.0f} ms, syllabusqa_dev"]
    by_p95 = targets[f"extractive ask p95 <= {ASK_P95_MS:.0f} ms, syllabusqa_dev"]
    assert (by_median["value"], by_median["met"]) == (median, median_met)
    assert (by_p95["value"], by_p95["met"]) == (p95, p95_met)
    assert not any("xquad_en2zh_dev" in name for name in targets)  # no data: no verdict


def test_the_table_shows_the_figures_and_says_which_set_was_missing():
    rows = table_rows(_answers(29.0, 153.0))
    labels = [row[0] for row in rows]
    assert any(label.startswith("ask (extractive), syllabusqa_dev, 957 questions (correct 0.600") for label in labels)
    measured = next(row for row in rows if row[0].startswith("ask (extractive), syllabusqa_dev"))
    assert measured[1:3] == ("29.0", "153.0")
    assert "ask (extractive), xquad_en2zh_dev: shared set not found" in labels


def test_the_full_and_quick_plans_ask_the_issues_sets_whole_and_the_tests_plan_none():
    assert Plan().answer_sets == quick_plan().answer_sets == ("syllabusqa_dev", "xquad_zh2en_dev", "xquad_en2zh_dev")
    assert tiny_plan().answer_sets == ()


def _with_reader(median: float, p95: float) -> dict:
    reader = {"questions": 957, "median_ms": median, "p95_ms": p95, "correct": 0.61, "top_chunk": 0.56, "words": 54}
    return {**_answers(29.0, 153.0), "reader_answers": {"2": {"syllabusqa_dev": reader}}}


@pytest.mark.parametrize(
    "median, p95, median_met, p95_met",
    [(180.0, 390.0, True, True), (READER_MEDIAN_MS, READER_P95_MS, True, True), (260.0, 520.0, False, False)],
)
def test_the_reader_s_ask_is_held_to_issue_41_s_median_and_p95_at_each_thread_count(median, p95, median_met, p95_met):
    targets = {t["target"]: t for t in evaluate_targets(_with_reader(median, p95), Plan())}
    by_median = targets[f"reader ask median <= {READER_MEDIAN_MS:.0f} ms, syllabusqa_dev, 2 reader thread(s)"]
    by_p95 = targets[f"reader ask p95 <= {READER_P95_MS:.0f} ms, syllabusqa_dev, 2 reader thread(s)"]
    assert (by_median["met"], by_p95["met"]) == (median_met, p95_met)


def test_the_table_gives_the_reader_s_ask_as_a_ratio_to_the_composer_s_in_the_same_run():
    rows = table_rows(_with_reader(174.0, 390.0))
    reader = next(row for row in rows if row[0].startswith("ask (reader, 2 thread(s)), syllabusqa_dev"))
    assert reader[1:] == ("174.0", "390.0", "composer's ask", "29.0", "6.00x")


def test_the_full_and_quick_plans_ask_the_reader_on_one_and_two_threads_and_the_tests_plan_not_at_all():
    assert Plan().reader_threads == quick_plan().reader_threads == (1, 2)
    assert tiny_plan().answer_sets == ()  # so no reader either
