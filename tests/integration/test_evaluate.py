"""The evaluation harness: pure helpers, and a small real run on the shared question sets.

The real runs ingest a few titles of ../shared/eval through the product's own chunking,
embedder, local store and engine, and check the metrics (they are the same code paths as
`python -m bench.evaluation`, only on a sample; docs/EVALUATION.md has the full numbers).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.common import EVAL_DIR
from bench.evaluation import ingest, load, run, score, systems
from bench.evaluation import report as rep
from courserag.records import Chunk, ScoredChunk


def hit(locator: str, text: str = "x") -> ScoredChunk:
    return ScoredChunk(Chunk.make(text + locator, "f.txt", locator, "course", "c"), vector=0.5)


# -- pure helpers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "locators, gold, expected",
    [
        (["a", "b", "c"], {"a"}, 1),
        (["a", "b", "c"], {"c", "b"}, 2),
        (["a", "b"], {"z"}, None),
        ([], {"a"}, None),
        (["x"] * 10 + ["a"], {"a"}, None),  # beyond MRR@10
    ],
)
def test_first_gold_rank(locators, gold, expected):
    assert score.first_gold_rank(locators, frozenset(gold)) == expected


def test_system_result_metrics():
    result = score.SystemResult("s")
    result.add(["g", "x"], frozenset({"g"}), 1.0)  # rank 1
    result.add(["x", "x", "g"], frozenset({"g"}), 2.0)  # rank 3
    result.add([], frozenset({"g"}), 3.0)  # refused
    result.add(["x"] * 6 + ["g"], frozenset({"g"}), 4.0)  # rank 7
    m = result.metrics()
    assert m["R@1"] == pytest.approx(0.25)
    assert m["R@5"] == pytest.approx(0.5)
    assert m["MRR@10"] == pytest.approx((1 + 1 / 3 + 1 / 7) / 4)
    assert m["refused"] == pytest.approx(0.25)
    assert m["p50_ms"] == pytest.approx(2.5)


def test_reciprocal_rank_fusion_prefers_agreement():
    a, b, c = hit("a"), hit("b"), hit("c")
    fused = systems.reciprocal_rank_fusion([[a, b, c], [b, c]])
    assert [h.chunk.locator for h in fused] == ["b", "c", "a"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


@pytest.mark.parametrize("title", ["1973_oil_crisis", "战国无双3", "A" * 200, "untitled-DEV_12", "  --  "])
def test_course_ids_are_store_safe_and_distinct(title):
    from courserag.stores.local import _SAFE_ID

    cid = ingest.course_id_for(title)
    assert _SAFE_ID.match(cid) and len(cid) <= 64
    assert cid != ingest.course_id_for(title + "x")


def write_set(root: Path) -> Path:
    corpus = [
        {"doc_id": f"T{t}#p{i}", "title": f"T{t}", "text": f"title {t} passage {i}"} for t in range(4) for i in range(3)
    ]
    queries = [
        {
            "qid": f"q{t}{i}",
            "question": f"passage {i} of {t}?",
            "gold_doc_ids": [f"T{t}#p{i}"],
            "title": f"T{t}",
            "lang": "en",
            "answerable": True,
        }
        for t in range(4)
        for i in range(3)
    ]
    root.mkdir()
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in corpus), encoding="utf-8")
    (root / "queries.jsonl").write_text("\n".join(json.dumps(r) for r in queries), encoding="utf-8")
    return root


def test_load_set_samples_titles_and_questions_deterministically(tmp_path):
    root = write_set(tmp_path / "tiny")
    full = load.load_set(root)
    assert len(full.passages) == 12 and len(full.questions) == 12 and full.titles == ["T0", "T1", "T2", "T3"]
    two = load.load_set(root, titles=2, seed=3)
    assert len(two.titles) == 2 and {q.title for q in two.questions} == set(two.titles)
    assert load.load_set(root, titles=2, seed=3) == two
    limited = load.load_set(root, limit=5, seed=1)
    assert len(limited.questions) == 5 and len(limited.passages) == 12


def test_load_set_names_a_folder_that_is_not_a_set(tmp_path):
    with pytest.raises(FileNotFoundError, match="not an evaluation set"):
        load.load_set(tmp_path)


@dataclass(frozen=True)
class RefuseEverything:
    """A proposed ranking that refuses every question (`--ranking tests.integration.test_evaluate`)."""

    name: str = "refuse-everything"

    def rank(self, candidates, query, top_k):
        return []


def ranker_for(retrieval):
    return RefuseEverything()


def test_a_proposed_ranking_is_measured_without_patching_the_product(tmp_path, fake_embedder):
    import courserag.engine.retriever as engine_module

    ranking_before = engine_module.ranking
    root = write_set(tmp_path / "tiny")
    proposed = run.evaluate(
        root,
        "course",
        embedder=fake_embedder,
        cache_dir=tmp_path / "cache",
        ranking_module="tests.integration.test_evaluate",
    )
    assert list(proposed.systems) == [
        "product (hybrid, top_k=10)",
        "product (hybrid, top_k=4)",
        "dense",
        "bm25",
        "rrf k=60",
        "reference rerank",
    ]
    assert proposed.systems["product (hybrid, top_k=10)"]["refused"] == 1.0
    assert (
        proposed.refusals["right_course_refused"] == 1.0
        and proposed.settings["ranking"] == "tests.integration.test_evaluate"
    )
    assert proposed.systems["bm25"]["refused"] == 0.0
    assert engine_module.ranking is ranking_before
    product = run.evaluate(root, "course", embedder=fake_embedder, cache_dir=tmp_path / "cache")
    assert product.systems["product (hybrid, top_k=10)"]["refused"] < 1.0
    assert product.settings["ranking"] == "courserag.retrieval.ranking"
    assert "tiny, course scope (12 questions, 12 passages, 12 chunks, 4 courses)" in rep.format_report(product)


# -- real runs on samples of the shared sets ----------------------------------------------------


def eval_set(name: str) -> Path:
    path = EVAL_DIR / name
    if not (path / "queries.jsonl").is_file():
        pytest.skip(f"the shared evaluation sets are not at {EVAL_DIR} (expected beside the repository)")
    return path


@pytest.mark.slow
def test_squad_sample_course_scope(embedder, tmp_path):
    started = time.perf_counter()
    # seed 25 draws two short articles (1973_oil_crisis, Jacksonville,_Florida: 45 passages,
    # 60 questions), so that embedding them stays within the test's time budget.
    report = run.evaluate(eval_set("squad_v1_dev"), "course", titles=2, seed=25, embedder=embedder, cache_dir=tmp_path)
    product = report.systems["product (hybrid, top_k=10)"]
    assert report.questions == 60 and report.courses == 2
    assert product["R@5"] >= 0.9
    for baseline in ("dense", "bm25"):
        assert product["R@5"] >= report.systems[baseline]["R@5"] - 0.02, baseline
        assert product["MRR@10"] >= report.systems[baseline]["MRR@10"] - 0.02, baseline
    assert report.refusals["right_course_refused"] <= 0.05
    assert report.refusals["wrong_course_refused"] >= 0.8
    assert "squad_v1_dev, course scope" in rep.format_report(report)
    assert time.perf_counter() - started < 60


@pytest.mark.slow
def test_cmrc_sample_global_scope(embedder, tmp_path):
    report = run.evaluate(eval_set("cmrc2018_dev"), "global", titles=15, seed=0, embedder=embedder, cache_dir=tmp_path)
    product = report.systems["product (hybrid, top_k=10)"]
    assert report.courses == 1 and report.passages == 15
    assert product["R@1"] >= 0.9
    for baseline in ("dense", "bm25"):
        assert product["R@1"] >= report.systems[baseline]["R@1"] - 0.02, baseline
    assert report.refusals["wrong_course_refused"] >= 0.8
