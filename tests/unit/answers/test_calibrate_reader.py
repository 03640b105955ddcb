"""What the reader's calibration reports at a threshold (scripts/calibrate_reader.py), as a table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def calibrate():
    sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("calibrate_reader", ROOT / "scripts" / "calibrate_reader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROWS = [
    {"answerable": True, "refused_by": None, "p": 0.9, "correct_if_answered": True},
    {"answerable": True, "refused_by": None, "p": 0.3, "correct_if_answered": True},
    {"answerable": True, "refused_by": "retrieval"},  # refused before the reader, at any threshold
    {"answerable": True, "scored": False, "refused_by": None, "p": 0.1},  # not scored: a false refusal only
    {"answerable": False, "refused_by": None, "p": 0.2},
    {"answerable": False, "refused_by": None, "p": 0.6},
]


@pytest.mark.parametrize(
    ("threshold", "correct", "no_answer_refused", "false_refusals"),
    [
        (0.0, 0.4, 0.0, 0.25),  # answers all it can: 2 of 3 answerable right, no refusal right
        (0.5, 0.4, 0.5, 0.75),  # refuses p 0.3 (an answerable one) and p 0.2 (a "no answer")
        (0.7, 0.6, 1.0, 0.75),
        (0.95, 0.4, 1.0, 1.0),
    ],
)
def test_the_figures_at_a_threshold_count_refusals_before_the_reader(
    calibrate, threshold, correct, no_answer_refused, false_refusals
):
    got = calibrate.figures(ROWS, threshold)
    assert got == {
        "questions": 6,
        "correct": correct,
        "no_answer_refused": no_answer_refused,
        "false_refusals": false_refusals,
    }


class Scorer:
    """answer_eval's three calls, simplified: words are split on spaces, a reference answer
    is correct when it stands in the window."""

    @staticmethod
    def words(text):
        return text.lower().split()

    @staticmethod
    def window(text):
        return " ".join(Scorer.words(text)[:120])

    @staticmethod
    def judge(gold, window):
        return any(answer.lower() in window for answer in gold["answers"])


SOURCE = "The final exam is on 12 December.\nIt lasts three hours."
OTHER = "The midterm is on 20 October.\nIt is worth 30 percent."


def question(set_name: str, answer: str, runner_up_holds_it: bool) -> dict:
    """A fitting question whose best reading is the first source's first sentence and whose
    runner-up (score 1 lower) is the second source's first sentence."""
    gold = {"question": "When?", "answers": [answer], "answer_spans": None, "question_type": None}
    sources = [
        {"n": 1, "text": SOURCE, "doc_type": "md", "locator": "lines 1-2"},
        {"n": 2, "text": OTHER, "doc_type": "md", "locator": "lines 1-2"},
    ]
    readings = [[0, 21, 32, 5.0, 0.9], [1, 18, 28, 4.0, 0.8]]
    return {
        "set": set_name,
        "role": "fit",
        "qid": answer,
        "kind": "answerable",
        "answerable": True,
        "scored": True,
        "refused_by": None,
        "p": 0.9,
        "gold": gold,
        "wants_list": False,
        "sources": sources,
        "readings": readings,
        "correct_if_answered": not runner_up_holds_it,
    }


def test_the_quotes_are_recomposed_from_the_kept_readings(calibrate):
    from courserag.answers.extractive.read_calibration import ReadParams

    row = question("squad_v1_dev", "20 October", runner_up_holds_it=True)
    [alone] = calibrate.recomposed([row], ReadParams(spans=1), Scorer)
    [both] = calibrate.recomposed([row], ReadParams(spans=2, margin=2.0), Scorer)
    assert (alone["correct_if_answered"], both["correct_if_answered"]) == (False, True)
    assert both["words"] > alone["words"]


def test_the_kept_cosines_let_the_grid_weigh_e5_beside_the_reader(calibrate):
    from courserag.answers.extractive.read_calibration import ReadParams

    row = question("squad_v1_dev", "20 October", runner_up_holds_it=True)
    row["sources"][0]["meanings"], row["sources"][1]["meanings"] = [0.70, 0.60], [0.90, 0.60]
    [reader_alone] = calibrate.recomposed([row], ReadParams(spans=1), Scorer)
    [blended] = calibrate.recomposed([row], ReadParams(spans=1, similarity=10.0), Scorer)  # +2.0 against 1.0
    assert (reader_alone["correct_if_answered"], blended["correct_if_answered"]) == (False, True)


@pytest.mark.parametrize(
    ("median_limit", "spans"),
    [
        (100, 2),  # room for the runner-up, which holds half the answers: quoted
        (16, 1),  # answers must stay as short as one sentence: the best span alone
    ],
)
def test_the_fitted_quotes_take_runner_ups_only_within_the_composer_s_length(
    calibrate, monkeypatch, median_limit, spans
):
    monkeypatch.setattr(calibrate, "COMPOSER_MEDIAN_WORDS", {"squad_v1_dev": median_limit})
    monkeypatch.setattr(calibrate, "QUOTE_GRID", {"spans": (1, 2), "margin": (2.0,), "words": (60,)})
    rows = [question("squad_v1_dev", "20 October", True), question("squad_v1_dev", "12 December", False)]
    chosen, table = calibrate.fit_quotes(rows, Scorer)
    assert chosen.spans == spans
    assert [entry["by_set"]["squad_v1_dev"]["correct_answering_all"] for entry in table] == [0.5, 1.0]


def refusal_row(set_name: str, answerable: bool, p: float, across: bool, kind: str = "answerable") -> dict:
    return {
        "set": set_name,
        "role": "fit",
        "kind": kind,
        "answerable": answerable,
        "refused_by": None,
        "p": p,
        "across": across,
    }


def test_the_fitted_refusal_answers_questions_across_languages_the_head_alone_would_refuse(calibrate):
    from courserag.answers.extractive.read_calibration import ReaderCalibration

    # in one language the head separates answerable from "no answer" at 0.5; across languages
    # its answerable questions read 0.2 and the off-topic ones 0.02
    rows = (
        [refusal_row("syllabusqa_dev", True, 0.8, False)] * 20
        + [refusal_row("syllabusqa_dev", False, 0.2, False, "no answer")] * 20
        + [refusal_row("xquad_zh2en_dev", True, 0.2, True)] * 20
        + [refusal_row("off_topic", False, 0.02, True, "cmrc2018_dev in syllabusqa_dev")] * 20
    )
    calibration = ReaderCalibration(threshold=0.5, refusal=calibrate.fit_refusal_model(rows))
    assert calibration.confidence(0.2, across=True) >= 0.5 > calibration.confidence(0.02, across=True)
    assert calibration.confidence(0.8, across=False) >= 0.5 > calibration.confidence(0.2, across=False)


def test_the_fitted_refusal_reads_e5_s_cosine_where_the_rows_kept_it(calibrate):
    from courserag.answers.extractive.read_calibration import ReaderCalibration

    # the head reads 0.6 for every question; only E5's cosine tells answerable from off-topic
    rows = [
        {**refusal_row("squad_v1_dev", True, 0.6, False), "cosine": 0.85},
        {**refusal_row("off_topic", False, 0.6, False, "syllabusqa_dev in squad_v1_dev"), "cosine": 0.70},
    ] * 20
    refusal = calibrate.fit_refusal_model(rows)
    assert "cosine" in refusal.names
    calibration = ReaderCalibration(threshold=0.5, refusal=refusal)
    assert calibration.confidence(0.6, False, 0.85) >= 0.5 > calibration.confidence(0.6, False, 0.70)
    # rows collected before the cosines were kept: fitted without them
    assert "cosine" not in calibrate.fit_refusal_model([refusal_row("squad_v1_dev", True, 0.6, False)] * 4).names


def test_the_fitted_refusal_asks_more_of_e5_s_cosine_for_a_question_in_chinese(calibrate):
    from courserag.answers.extractive.read_calibration import ReaderCalibration

    # E5's cosines run higher in Chinese: an off-topic Chinese question reads 0.83, above the
    # answerable English ones (0.80), below the answerable Chinese ones (0.90)
    rows = [
        {**refusal_row("squad_v1_dev", True, 0.6, False), "cosine": 0.80, "chinese": False},
        {**refusal_row("off_topic", False, 0.6, False, "syllabusqa_dev in squad_v1_dev"), "cosine": 0.70},
        {**refusal_row("cmrc2018_dev", True, 0.6, False), "cosine": 0.90, "chinese": True},
        {
            **refusal_row("off_topic", False, 0.6, False, "xquad_zh_dev in cmrc2018_dev"),
            "cosine": 0.83,
            "chinese": True,
        },
    ] * 20
    calibration = ReaderCalibration(threshold=0.5, refusal=calibrate.fit_refusal_model(rows))
    assert (
        calibration.confidence(0.6, False, 0.83, chinese=False)
        >= 0.5
        > calibration.confidence(0.6, False, 0.83, chinese=True)
    )


def test_the_chinese_pairs_are_fitted_in_a_course_of_the_host_s_fitting_articles_alone(
    calibrate, tmp_path, monkeypatch
):
    import json

    shared = tmp_path / "eval"
    (shared / "cmrc2018_dev").mkdir(parents=True)
    titles = ["甲", "乙", "丙", "丁"]  # fitting: the even places, 甲 and 丙
    for part, rows in (
        ("corpus.jsonl", [{"id": f"p{i}", "title": t, "text": f"{t}的文章。"} for i, t in enumerate(titles)]),
        ("queries.jsonl", [{"qid": f"q{i}", "title": t, "question": f"{t}是什么？"} for i, t in enumerate(titles)]),
    ):
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (shared / "cmrc2018_dev" / part).write_text(lines, encoding="utf-8")
    monkeypatch.setattr(calibrate.fit_refusal, "SHARED", shared)
    subset = calibrate.fitting_set("cmrc2018_dev", tmp_path / "subset")
    for part in ("corpus.jsonl", "queries.jsonl"):
        kept = [json.loads(line)["title"] for line in (subset / part).read_text(encoding="utf-8").splitlines()]
        assert kept == ["甲", "丙"]
    in_fitting_hosts = [role for _, _, scope, role, _ in calibrate.OFF_TOPIC if scope == calibrate.FITTING]
    assert in_fitting_hosts and set(in_fitting_hosts) == {"fit"}


def test_every_set_fitted_as_off_topic_is_fitted_as_answerable_too(calibrate):
    # else the fit learns a set's kind of question instead of "not about this course"
    answerable = {name for name, _, role, _ in calibrate.SOURCES if role == "fit"}
    asked_off_topic = {asked for asked, _, _, role, _ in calibrate.OFF_TOPIC if role == "fit"}
    assert asked_off_topic <= answerable
