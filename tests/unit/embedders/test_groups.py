"""Answer-unit vectors kept per source (embedders/groups.py)."""

import numpy as np
import pytest

from courserag.embedders.groups import GroupVectors

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


def test_kept_vectors_do_not_depend_on_what_was_asked_before(embedder):
    """The int8 model's vectors move a little with what shares their batch; a group embedded
    alone gets the same vectors whether it is asked first, after others, or again."""
    query = embedder.embed_query_for("When is the midterm exam?", False)
    fresh = GroupVectors().similarity(embedder, query, False, 8)(SYLLABUS)
    warm = GroupVectors()
    warm.vectors(embedder, NOTICE + ["Quizzes (10 total) are online."], False, 8)
    asked_after = warm.similarity(embedder, query, False, 8)(SYLLABUS)
    assert np.array_equal(fresh, asked_after)
    assert np.array_equal(asked_after, warm.similarity(embedder, query, False, 8)(SYLLABUS))


def test_another_model_does_not_read_the_vectors_kept_for_the_first():
    from tests.conftest import FakeEmbedder

    groups, first, second = GroupVectors(), FakeEmbedder(), FakeEmbedder()
    groups.vectors(first, SYLLABUS, False, 8)
    groups.vectors(second, SYLLABUS, False, 8)
    assert second.batches and groups.embedded == 2  # embedded again, by the new model
    assert len(groups) == 1  # the first model's vectors are gone
