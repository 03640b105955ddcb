"""Answer-unit vectors kept per source (embedders/groups.py)."""

import numpy as np
import pytest

from courserag.embedders.groups import GroupVectors, token_match, token_matches
from tests.conftest import FakeEmbedder

SYLLABUS = ["The midterm is on 2026-10-20.", "Late work loses 10% per day.", "Office hours: Monday 14:00."]
NOTICE = ["The midterm moved to LH-1.", "期中考试在第八周。"]


def test_a_group_is_embedded_once_and_in_calls_of_its_own(fake_embedder):
    groups = GroupVectors()
    first = groups.vectors(fake_embedder, SYLLABUS, False, batch_size=8)
    groups.vectors(fake_embedder, NOTICE, False, batch_size=8)
    again = groups.vectors(fake_embedder, SYLLABUS, False, batch_size=8)
    assert np.array_equal(first, again)
    # never two groups in one batch, never one twice (the base class sorts a batch by length)
    assert [sorted(batch) for batch in fake_embedder.batches] == [sorted(SYLLABUS), sorted(NOTICE)]
    assert groups.embedded == 2


def test_a_question_across_languages_gets_its_own_vectors(fake_embedder):
    groups = GroupVectors()
    groups.vectors(fake_embedder, NOTICE, False, 8)
    groups.vectors(fake_embedder, NOTICE, True, 8)
    assert groups.embedded == 2


@pytest.mark.parametrize(
    "max_vectors, kept",
    [
        (100, 3),  # everything fits
        (5, 2),  # 3 + 2 vectors: the oldest group (3) goes when the third arrives
        (1, 1),  # a group larger than the limit is still kept, alone
    ],
)
def test_the_least_recently_used_groups_are_forgotten_first(fake_embedder, max_vectors, kept):
    groups = GroupVectors(max_vectors)
    for group in (SYLLABUS, NOTICE, ["A third source."]):
        groups.vectors(fake_embedder, group, False, 8)
    assert len(groups) == kept
    groups.vectors(fake_embedder, ["A third source."], False, 8)
    assert groups.embedded == 3  # the newest is always kept


def test_an_empty_group_and_a_bad_limit():
    class NoModel:
        dim, name = 4, "none"

    assert GroupVectors().vectors(NoModel(), [], False, 8).shape == (0, 4)
    with pytest.raises(ValueError, match="max_vectors"):
        GroupVectors(0)
    with pytest.raises(ValueError, match="max_tokens"):
        GroupVectors(max_tokens=0)


class TokenEmbedder(FakeEmbedder):
    """The fake model with token states: one unit row per word of a text."""

    def embed_passages_with_tokens(self, texts, across_languages, batch_size=32):
        return self.embed_batch(texts, batch_size), [self.embed_batch(text.split(), batch_size) for text in texts]


@pytest.mark.parametrize(
    "max_tokens, kept",
    [
        (100, 3),  # 12 + 9 + 3 token states: everything fits
        (12, 2),  # 12 + 9 is over: the oldest group goes when the second arrives, 9 + 3 fit
        (1, 1),  # a group larger than the limit is still kept, alone
    ],
)
def test_token_states_are_kept_within_their_own_limit(max_tokens, kept):
    groups, embedder = GroupVectors(max_tokens=max_tokens), TokenEmbedder()
    for group in (SYLLABUS, NOTICE, ["A third source."]):
        found = groups.group(embedder, group, False, 8)
        assert [len(t) for t in found.tokens] == [len(text.split()) for text in group]
    assert len(groups) == kept


def test_kept_vectors_do_not_depend_on_what_was_asked_before(embedder):
    """The int8 model's vectors move a little with what shares their batch; a group embedded
    alone gets the same vectors whether it is asked first, after others, or again."""
    question = "When is the midterm exam?"
    query = embedder.embed_query_for(question, False)
    fresh = GroupVectors().similarity(embedder, query, False, 8, question)(SYLLABUS)
    warm = GroupVectors()
    warm.vectors(embedder, NOTICE + ["Quizzes (10 total) are online."], False, 8)
    asked_after = warm.similarity(embedder, query, False, 8, question)(SYLLABUS)
    again = warm.similarity(embedder, query, False, 8, question)(SYLLABUS)
    for matches in (asked_after, again):
        assert np.array_equal(fresh.meaning, matches.meaning)
        assert np.array_equal(fresh.tokens, matches.tokens)


def test_the_model_s_token_states_match_a_question_s_tokens(embedder):
    """E5 gives token states from the run that gives the vectors (the same vectors as without
    them); the unit that says what the question asks about matches its tokens best."""
    question = "When is the midterm exam?"
    vectors, tokens = embedder.embed_passages_with_tokens(SYLLABUS, False, 8)
    assert np.array_equal(vectors, embedder.embed_passages_for(SYLLABUS, False, 8))
    assert [len(t) for t in tokens] == [embedder.count_tokens(text) for text in SYLLABUS]
    matches = GroupVectors().similarity(embedder, embedder.embed_query_for(question, False), False, 8, question)
    found = matches(SYLLABUS).tokens
    assert found.argmax() == 0 and 0 < found.min() < found.max() <= 1
    # without the question's text only the vectors are compared
    assert (
        GroupVectors().similarity(embedder, embedder.embed_query_for(question, False), False, 8)(SYLLABUS).tokens
        is None
    )


def _rows(*vectors):
    return np.array(vectors, dtype=np.float16)


@pytest.mark.parametrize(
    "question, unit, expected",
    [
        (_rows([1, 0]), _rows([1, 0]), 1.0),  # the same token
        (_rows([1, 0], [0, 1]), _rows([1, 0]), 0.5),  # one of two tokens found, one orthogonal
        (_rows([1, 0], [0, 1]), _rows([0, 1], [1, 0], [0.6, 0.8]), 1.0),  # each finds its best, in any order
        (_rows([1, 0]), _rows([0.6, 0.8], [0, 1]), 0.6),  # the best match counts, not the mean
        (_rows([1, 0]), np.zeros((0, 2), np.float16), 0.0),  # nothing to match
        (np.zeros((0, 2), np.float16), _rows([1, 0]), 0.0),
    ],
)
def test_token_match(question, unit, expected):
    assert token_match(question, unit) == pytest.approx(expected, abs=1e-3)


def test_another_model_does_not_read_the_vectors_kept_for_the_first():
    groups, first, second = GroupVectors(), FakeEmbedder(), FakeEmbedder()
    groups.vectors(first, SYLLABUS, False, 8)
    groups.vectors(second, SYLLABUS, False, 8)
    assert second.batches and groups.embedded == 2  # embedded again, by the new model
    assert len(groups) == 1  # the first model's vectors are gone


def test_token_matches_of_a_group_are_each_unit_s_token_match():
    rng = np.random.default_rng(7)

    def unit_rows(n):
        rows = rng.normal(size=(n, 6))
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float16)

    question, units = unit_rows(4), [unit_rows(3), unit_rows(0), unit_rows(1), unit_rows(7)]
    assert token_matches(question, units) == pytest.approx([token_match(question, u) for u in units], abs=1e-6)
    assert list(token_matches(unit_rows(0), units)) == [0, 0, 0, 0]
    assert len(token_matches(question, [])) == 0
