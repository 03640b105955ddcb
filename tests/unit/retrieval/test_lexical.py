import numpy as np
import pytest

from courserag.retrieval.bm25 import BM25Index, top_k


def test_bm25_ranks_matching_documents_first():
    docs = [["hash", "table", "load", "factor"], ["binary", "tree"], ["hash", "function"], []]
    index = BM25Index(docs)
    hits = index.search(["load", "factor"], 3)
    assert hits[0][0] == 0
    assert [i for i, _ in hits] == [0]  # only positive scores


def test_bm25_add_is_incremental_and_equals_bulk():
    docs = [["a", "b"], ["b", "c"], ["c", "d", "d"]]
    bulk = BM25Index(docs)
    step = BM25Index(docs[:1])
    step.add(docs[1:])
    assert np.allclose(bulk.scores(["d", "b"]), step.scores(["d", "b"]))


def test_bm25_rare_terms_weigh_more():
    index = BM25Index([["common", "rare"], ["common"], ["common"], ["common"]])
    scores = index.scores(["common", "rare"])
    assert scores[0] > scores[1] > 0


def test_empty_index():
    assert BM25Index().search(["x"], 5) == []


@pytest.mark.parametrize(
    "scores, k, expected",
    [([0.1, 0.9, 0.5], 2, [1, 2]), ([1.0], 5, [0]), ([], 3, []), ([0.3, 0.3, 0.1], 2, [0, 1])],
)
def test_top_k(scores, k, expected):
    assert [i for i, _ in top_k(np.array(scores, dtype=np.float32), k)] == expected
