"""bench/answers.py: reading answer_eval.py's printout and course_qa's report into one table."""

from __future__ import annotations

import pytest

from bench.answers import SETS, Row, main, markdown, parse_answer_eval, row_of_course_qa

PRINTOUT = """# answerable       n= 300 correct=0.710 evidence=0.820 top_chunk=0.600 false_refuse=0.150
# build 3s, ask 60s for 300 questions (200 ms each, model loading included), the CLI's own total per question: median 123 ms, p95 177 ms
squad_v1_dev course n=300 correct=0.710 evidence=0.820 top_chunk=0.600 false_refuse=0.150 words=74
"""

UNANSWERABLE = """# no answer        n= 100 refused=0.440
# single factual   n= 200 correct=0.500 evidence=0.800 top_chunk=0.510 false_refuse=0.210
# build 1s, ask 10s for 300 questions (33 ms each, model loading included)
syllabusqa_dev course n=300 correct=0.490 evidence=0.810 top_chunk=0.510 false_refuse=0.210 words=61 refuse_unans=0.440 (n_unans=100)
"""


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            PRINTOUT,
            dict(
                name="squad_v1_dev",
                scope="course",
                n=300,
                correct=0.71,
                evidence=0.82,
                top_chunk=0.6,
                false_refuse=0.15,
                words=74,
                ms_median=123.0,
                ms_p95=177.0,
                refuse_unans=None,
            ),
        ),
        (UNANSWERABLE, dict(name="syllabusqa_dev", n=300, refuse_unans=0.44, words=61, ms_median=None)),
    ],
)
def test_parse_answer_eval(text, expected):
    row = parse_answer_eval(text)
    assert {k: getattr(row, k) for k in expected} == expected


def test_parse_answer_eval_keeps_figures_by_type():
    row = parse_answer_eval(UNANSWERABLE)
    assert row.by_kind["no answer"] == {"n": 100.0, "refused": 0.44}
    assert row.by_kind["single factual"]["correct"] == 0.5


@pytest.mark.parametrize("text", ["", "# build 3s, ask 60s\n"])
def test_parse_answer_eval_without_summary_says_so(text):
    with pytest.raises(ValueError, match="no summary line"):
        parse_answer_eval(text)


def test_course_qa_row_and_table():
    report = {
        "summary": {
            "questions": 121,
            "correct": 0.86,
            "top_chunk": 0.4,
            "cited": 0.95,
            "false_refusals": 0.047,
            "refuse_ok": 1.0,
            "words": 40,
            "ms_median": 74.0,
            "ms_p95": 120.0,
        },
        "by_kind": {},
    }
    row = row_of_course_qa(report)
    line = markdown([row]).splitlines()[-1]
    assert line == "| course_qa_dev | course | 121 | 0.860 | 0.400 | 0.950 | 0.047 | 1.000 | 40 | 74 | 120 |"


def test_empty_figures_print_as_dashes():
    assert markdown([Row("x", "global", 3)]).splitlines()[-1] == "| x | global | 3 | – | – | – | – | – | – | – | – |"


def test_every_reported_set_is_known_and_unknown_names_are_refused(capsys):
    assert [s.name for s in SETS][0] == "course_qa_dev" and len(SETS) == 7
    assert main(["--sets", "nope"]) == 2
    assert "unknown set(s) nope" in capsys.readouterr().err
