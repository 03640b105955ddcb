"""Distractors (training/reader/distractors.py): a share of the questions read over the passage
of their set nearest them that does not answer them, unanswerable."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from training.reader.distractors import (
    ANSWER_REMOVED,
    OFF_TOPIC,
    SUFFIX,
    SWAPPED,
    answer_removed,
    distractors,
    nearest_passage,
    off_topic,
    sentence_spans,
    source,
    swap_term,
    swapped,
    term_kind,
    terms,
    with_readings,
    without_answer,
    written_terms,
)
from training.reader.sets import Answer, Example

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The TA's phone", {"the", "phone"}),  # words of three letters or more, lowercased
        ("Is it 2026?", {"2026"}),
        ("助教电话", {"助教", "教电", "电话"}),  # pairs of adjacent Chinese characters
        ("HW2的截止时间", {"hw2", "的截", "截止", "止时", "时间"}),
        ("", set()),
    ],
)
def test_terms_are_longer_words_and_pairs_of_chinese_characters(text, expected):
    assert terms(text) == expected


def example(qid, question, context, answer=None, set_name="s"):
    answers = (Answer(answer, context.index(answer)),) if answer else ()
    return Example(set_name, qid, question, context, answers, "en", "en")


PASSAGES = {
    "exam": "The final exam is on Friday in Hall B.",
    "hours": "Priya Nair holds office hours on Fridays in Lab C2.",
    "phone": "Priya Nair can be reached by phone at 555-0101.",
    "weather": "Rain is expected over the weekend in the valley.",
    "grading": "Homework counts for forty percent of the grade.",
}
QUESTIONS = [
    example("q1", "What is the phone number of Priya Nair?", PASSAGES["phone"], "555-0101"),
    example("q2", "When are the office hours of Priya Nair?", PASSAGES["hours"], "Fridays"),
    example("q3", "Where is the final exam?", PASSAGES["exam"], "Hall B"),
    example("q4", "How much does homework count?", PASSAGES["grading"], "forty percent"),
    example("q5", "Will it rain this weekend?", PASSAGES["weather"], "Rain"),
    # a set's worth of other passages, so that a term in three of them is still a rare one
    *[example(f"f{i}", f"What is item {i}?", f"Item {i} is a filler.", f"Item {i}") for i in range(80)],
]


def test_every_question_chosen_is_read_over_the_nearest_passage_that_does_not_answer_it():
    out = {e.qid: e for e in distractors(QUESTIONS, share=1.0)}
    assert out["q1" + SUFFIX].context == PASSAGES["hours"]  # shares "priya", "nair"
    assert out["q2" + SUFFIX].context == PASSAGES["phone"]
    assert all(not e.answers and not e.answerable for e in out.values())
    assert all(e.context != q.context for q in QUESTIONS for e in out.values() if e.qid == q.qid + SUFFIX)


def test_a_passage_holding_the_answer_is_never_a_distractor():
    twin = example("q6", "What is the phone number of Priya Nair?", "Call 555-0101 for Priya Nair.", "555-0101")
    out = {e.qid: e for e in distractors([*QUESTIONS, twin], share=1.0)}
    assert out["q6" + SUFFIX].context == PASSAGES["hours"]
    assert out["q1" + SUFFIX].context == PASSAGES["hours"]


def test_a_question_sharing_no_term_is_read_over_a_seeded_other_passage():
    lone = example("q7", "文档在哪里？", PASSAGES["weather"])
    first = [e.context for e in distractors([*QUESTIONS, lone], share=1.0, seed=3) if e.qid == "q7" + SUFFIX]
    again = [e.context for e in distractors([*QUESTIONS, lone], share=1.0, seed=3) if e.qid == "q7" + SUFFIX]
    assert first == again and first[0] != PASSAGES["weather"]


def test_the_share_is_a_seeded_choice_within_each_set_and_none_at_zero():
    many = [example(f"q{i}", f"Where is room {i}?", f"Room {i} is on floor {i}.", f"floor {i}") for i in range(200)]
    other = [example(f"o{i}", f"Who is tutor {i}?", f"Tutor {i} is Ann {i}.", f"Ann {i}", "t") for i in range(200)]
    chosen = distractors(many + other, share=0.25, seed=0)
    assert 30 <= sum(e.set_name == "s" for e in chosen) <= 70 and 30 <= sum(e.set_name == "t" for e in chosen) <= 70
    assert [e.qid for e in chosen] == [e.qid for e in distractors(many + other, share=0.25, seed=0)]
    assert {e.context for e in chosen if e.set_name == "t"} <= {e.context for e in other}
    assert distractors(many, share=0.0) == []


def test_a_set_of_one_passage_has_no_distractor():
    assert distractors(QUESTIONS[:1], share=1.0) == []


@pytest.mark.parametrize(
    ("probability", "refused"),
    [(0.2, 1.0), (0.9, 0.0)],
)
def test_held_out_readings_over_distractors_are_scored_apart_as_refused_or_not(probability, refused):
    from training.reader.evaluate import Prediction, score

    question = QUESTIONS[2]
    (distractor,) = [e for e in distractors(QUESTIONS[:5], share=1.0) if e.qid == "q3" + SUFFIX]
    scores = score([question, distractor], [Prediction("Hall B", 0.9), Prediction("Lab C2", probability)])
    assert scores["s"]["questions"] == 1 and scores["s"]["em"] == 1.0  # the distractor counts in no other score
    assert scores["s"]["distractors_refused"] == scores["all"]["distractors_refused"] == refused


def multi_source_examples():
    english = [
        example(f"e{i}", f"Where is room {i}?", f"Room {i} is on floor {i}.", f"floor {i}", "squad_v1_train")
        for i in range(60)
    ]
    chinese = [
        Example("cmrc2018_trial_train", f"c{i}", f"{i}号楼在哪里？", f"{i}号楼在东区{i}街。", (), "zh", "zh")
        for i in range(20)
    ]
    parallel = [
        example(f"m{i}", f"Who wrote book {i}?", f"Book {i} was written by Ann.", "Ann", "mlqa_dev_en")
        for i in range(20)
    ]
    twins = [
        example(f"t{i}", f"谁写了第{i}本书？", f"Book {i} was written by Ann.", "Ann", "mlqa_dev_zh_q_en_p")
        for i in range(20)
    ]
    return english + chinese + parallel + twins


@pytest.mark.parametrize(
    ("set_name", "expected"),
    [
        ("mlqa_dev_en_q_zh_p", "mlqa"),
        ("squad_v1_train", "squad"),
        ("syllabusqa_train", "syllabusqa"),
        ("covid", "covid"),
    ],
)
def test_a_set_s_source_is_the_first_part_of_its_name(set_name, expected):
    assert source(set_name) == expected


def test_off_topic_readings_are_passages_of_another_source_in_the_passage_s_language():
    examples = multi_source_examples()
    passages = {e.context: e for e in examples}
    out = off_topic(examples, share=1.0, seed=0)
    assert len(out) == len(examples)
    for reading in out:
        origin = passages[reading.context]
        assert reading.qid.endswith(OFF_TOPIC) and not reading.answerable
        assert source(origin.set_name) != source(reading.set_name)  # never MLQA's parallel articles
        assert reading.context_lang == origin.context_lang
    # English questions are read over the one Chinese set as often as over each of the two other sets (1/3)
    drawn = Counter(r.context_lang for r in out if r.set_name == "squad_v1_train")
    assert 12 <= drawn["zh"] <= 30 and drawn["zh"] + drawn["en"] == 60


def test_off_topic_readings_are_a_seeded_share_and_none_from_a_single_source():
    examples = multi_source_examples()
    chosen = off_topic(examples, share=0.25, seed=4)
    assert 15 <= len(chosen) <= 50
    assert chosen == off_topic(examples, share=0.25, seed=4)
    assert off_topic(examples, share=0.0) == []
    assert off_topic([e for e in examples if e.set_name == "squad_v1_train"], share=1.0) == []


def test_a_passage_holding_the_answer_is_never_an_off_topic_reading():
    answer_everywhere = [example("a", "Who wrote it?", "Ann wrote it.", "Ann", "squad_v1_train")]
    others = [example(f"o{i}", "Who?", f"Ann is {i}.", "Ann", "covid_qa") for i in range(5)]
    assert [e for e in off_topic(answer_everywhere + others, share=1.0) if e.set_name == "squad_v1_train"] == []


def test_held_out_readings_over_other_sources_are_scored_apart_from_distractors():
    from training.reader.evaluate import Prediction, score

    question, *_ = QUESTIONS
    far = replace(question, qid=question.qid + OFF_TOPIC, context="Rain is expected.", answers=())
    scores = score([question, far], [Prediction("555-0101", 0.9), Prediction("Rain", 0.1)])
    assert scores["s"]["questions"] == 1 and scores["s"]["off_topic_refused"] == 1.0
    assert scores["s"]["distractors_refused"] is None


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two? Three!", ["One. ", "Two? ", "Three!"]),
        ("考试在周五。地点在B厅！带学生证", ["考试在周五。", "地点在B厅！", "带学生证"]),
        ("Week 1\nWeek 2", ["Week 1\n", "Week 2"]),
        ("v1.2 is out", ["v1.2 is out"]),  # a dot inside a word ends nothing
        ("Dr. Lee teaches. Office: B2.", ["Dr. Lee teaches. ", "Office: B2."]),  # as the product splits
        ("  Lead. Tail", ["  Lead. ", "Tail"]),  # spacing before the first sentence goes with it
        ("", []),
    ],
)
def test_sentences_tile_the_passage(text, sentences):
    assert [text[a:b] for a, b in sentence_spans(text)] == sentences


HOURS = "Priya Nair is a TA. Her office hours are on Fridays in Lab C2. She answers email within a day. "


@pytest.mark.parametrize(
    ("context", "answer", "remaining"),
    [
        # the sentence holding the answer goes; the TA's other sentences stay
        (HOURS, "Lab C2", "Priya Nair is a TA. She answers email within a day."),
        (
            "期中考试在周二。期末考试在理学楼101。考试闭卷。答疑在周一。",
            "理学楼101",
            "期中考试在周二。考试闭卷。答疑在周一。",
        ),
        # the answer stated again in another sentence: no unanswerable reading
        ("The exam is in Hall B. Bring a pen. Hall B is on the left.", "Hall B", None),
        # under half of the passage left, or a single sentence: not a near miss but a stub
        ("The final exam is on Friday 2026-12-18 in the large hall. Bring a pen.", "Friday", None),
        ("The exam is on Friday.", "Friday", None),
    ],
)
def test_answer_removed_passage_keeps_the_topic_without_the_answer(context, answer, remaining):
    assert without_answer(example("q", "Where?", context, answer)) == remaining


def test_answer_removed_readings_are_a_seeded_share_of_answerable_questions():
    many = [example(f"h{i}", f"Where are the office hours {i}?", HOURS, "Lab C2") for i in range(200)]
    unanswerable = [replace(many[0], qid="u", answers=())]
    chosen = answer_removed(many + unanswerable, share=0.25, seed=0)
    assert 30 < len(chosen) < 70 and chosen == answer_removed(many + unanswerable, share=0.25, seed=0)
    assert all(e.qid.endswith(ANSWER_REMOVED) and not e.answerable and "Lab C2" not in e.context for e in chosen)
    assert answer_removed(many, share=0.0) == [] and answer_removed(unanswerable, share=1.0) == []


def test_with_readings_puts_every_reading_after_the_questions():
    out = with_readings(QUESTIONS, {"distractors": 1.0, "answer_removed": 1.0})
    assert out[: len(QUESTIONS)] == QUESTIONS
    suffixes = Counter(e.qid[e.qid.index("#") :] for e in out[len(QUESTIONS) :])
    assert set(suffixes) == {SUFFIX} and len(out) == len(QUESTIONS) + suffixes[SUFFIX]  # one-sentence passages
    long = [example("h", "Where?", HOURS, "Lab C2")]
    assert [e.qid for e in with_readings(long, {"answer_removed": 1.0})] == ["h", "h" + ANSWER_REMOVED]
    both = with_readings(SIBLINGS, {"swapped": 1.0, "distractors": 1.0})
    suffixes = [e.qid[e.qid.index("#") :] for e in both[len(SIBLINGS) :]]
    assert suffixes == sorted(suffixes, key=[SUFFIX, SWAPPED].index)  # in READINGS' order, whatever the mapping's


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("The TA's phone", {"the": "The", "phone": "phone"}),  # the first way the text writes it
        ("the final, The Final", {"the": "the", "final": "final"}),
        ("HW2的截止时间", {"hw2": "HW2", "的截": "的截", "截止": "截止", "止时": "止时", "时间": "时间"}),
    ],
)
def test_written_terms_keep_the_way_the_text_writes_each_term(text, written):
    assert written_terms(text) == written and set(written) == terms(text)


@pytest.mark.parametrize(
    ("term", "written", "kind"),
    [("期末", "期末", "han"), ("2026", "2026", "number"), ("lee", "Lee", "name"), ("exam", "exam", "word")],
)
def test_a_term_is_a_pair_of_chinese_characters_a_number_a_name_or_a_word(term, written, kind):
    assert term_kind(term, written) == kind


RARITY = {"midterm": 2.0, "final": 2.1, "quiz": 1.0, "lee": 2.0, "chen": 2.0, "2025": 3.0, "2026": 3.0, "期中": 2.0}


@pytest.mark.parametrize(
    ("question", "anchor", "candidates", "swapped_question"),
    [
        # the candidate of the same kind whose rarity is nearest
        ("Which room is the midterm in?", "midterm", {"final": "final", "quiz": "quiz"}, "Which room is the final in?"),
        # a name for a name, written as its passage writes it; every place the anchor stands
        (
            "Is Lee's office near lee's lab?",
            "lee",
            {"chen": "Chen", "final": "final"},
            "Is Chen's office near Chen's lab?",
        ),
        ("Was it in 2026?", "2026", {"2025": "2025", "final": "final"}, "Was it in 2025?"),
        ("期中考试在哪？", "期中", {"期末": "期末"}, "期末考试在哪？"),
        # a word is swapped only where it stands whole
        ("Is the midterm in midterms week?", "midterm", {"final": "final"}, "Is the final in midterms week?"),
        # no candidate of the anchor's kind
        ("Which room is the midterm in?", "midterm", {"chen": "Chen", "2025": "2025"}, None),
    ],
)
def test_a_swapped_term_is_a_sibling_of_its_kind_and_rarity(question, anchor, candidates, swapped_question):
    rarity = {**RARITY, "期末": 2.0}
    assert swap_term(question, anchor, candidates, rarity) == swapped_question


SIBLINGS = [
    example("m", "Which room is the midterm in?", "The midterm is in Room 101 on Monday.", "Room 101"),
    example("f", "When is the final?", "The final is on Friday in the gym.", "Friday"),
    example("x", "期中考试在哪里？", "The midterm is in Room 101 on Monday.", "Room 101"),  # across languages
    # a set's worth of other passages, so that the terms above are rare ones
    *[example(f"f{i}", f"What is item {i}?", f"Item {i} is a filler.", f"Item {i}") for i in range(80)],
]


def test_swapped_readings_ask_their_own_passage_for_a_sibling_it_lacks():
    out = swapped(SIBLINGS, share=1.0)
    # the rarest term of the answer's sentence (not the answer's) for the nearest passage's term it lacks
    assert {e.qid: e.question for e in out} == {
        "m" + SWAPPED: "Which room is the final in?",
        "f" + SWAPPED: "When is the midterm?",
    }
    assert all(not e.answerable and e.context == SIBLINGS[i].context for e, i in zip(out, (0, 1)))
    assert swapped(SIBLINGS, share=1.0) == out and swapped(SIBLINGS, share=0.0) == []
    assert swapped([replace(SIBLINGS[0], answers=()), *SIBLINGS[3:]], share=1.0) == []  # answerable ones only


def test_nearest_passage_of_equal_weights_is_the_first():
    index = {"exam": [2, 0, 1], "hall": [1, 2]}
    idf = {"exam": 1.0, "hall": 1.0}
    assert nearest_passage("exam hall", index, idf, lambda p: True) == 1  # 2.0 against 2.0: passage 1 first
    assert nearest_passage("exam", index, idf, lambda p: True) == 0
    assert nearest_passage("exam hall", index, idf, lambda p: p != 1) == 2
    assert nearest_passage("weather", index, idf, lambda p: True) is None


# twenty questions each sharing one rare word with each of two passages: ties everywhere
_DISTRACTORS_OF_A_SET = """
from tests.unit.training.test_distractors import QUESTIONS, example
from training.reader.distractors import distractors
ties = [example(f"t{i}", f"Is word{i}a like word{i}b?", f"Answer {i} is here.", f"Answer {i}") for i in range(20)]
ties += [example(f"p{i}{x}", "Filler?", f"The word{i}{x} stands.", "The") for i in range(20) for x in "ab"]
print([e.context for e in distractors(QUESTIONS + ties, share=1.0)])
"""


def test_distractors_are_the_same_whatever_the_process_string_hashing():
    def run(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", _DISTRACTORS_OF_A_SET], env=env, cwd=ROOT, capture_output=True)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    assert run("1") == run("2") == run("3")
