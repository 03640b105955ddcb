"""A question read once (lang/query.py): its language, whether it crosses into the other
language of the materials, its words and what it asks for."""

import pytest

from courserag.lang.query import read_query


@pytest.mark.parametrize(
    "asked, searched, materials, language, reply, across",
    [
        ("When is the final exam?", None, "en", "en", "en", False),
        ("期末考试是哪一天？", None, "en", "zh", "zh", True),  # a Chinese question of an English course
        ("When is the final exam?", None, "zh", "en", "en", True),
        ("期末考试是哪一天？", None, "zh", "zh", "zh", False),
        ("期末考试是哪一天？", None, None, "zh", "zh", False),  # no materials named: within its own language
        # an LLM's rewrite searched in English; the reply keeps the learner's language
        ("那期末考试呢？", "When is the final exam?", "en", "en", "zh", False),
    ],
)
def test_language_reply_and_crossing(asked, searched, materials, language, reply, across):
    query = read_query(asked, searched, materials)
    assert (query.language, query.reply_language, query.across) == (language, reply, across)
    assert query.chinese is (language == "zh")
    assert query.asked == asked and query.text == (searched or asked)


def test_tokens_ask_and_vector():
    query = read_query("When is the CSC3100 midterm?")
    assert "midterm" in query.tokens and query.ask.labels == ("when",)
    assert query.vector is None and query.floor == 0.0
    placed = query.with_vector([0.6, 0.8], 0.3)
    assert placed.vector == [0.6, 0.8] and placed.floor == 0.3 and placed.tokens == query.tokens
