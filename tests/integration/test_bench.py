"""The benchmarks, run small (bench.run.tiny_plan): behaviour only, no timing assertions.

Every benchmark must produce every figure, the cached session pool must do no index work
per query while the reference baseline rebuilds once per query, and the table and targets
must render from the results.
"""

from __future__ import annotations

import json
import math

import pytest

from bench import data


@pytest.fixture(scope="module")
def results(tmp_path_factory, embedder):
    if not (data.EVAL_DIR / "squad_v1_dev" / "corpus.jsonl").exists():
        pytest.skip(f"benchmark data not found under {data.EVAL_DIR}")
    cache = tmp_path_factory.mktemp("bench-cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("BENCH_CACHE_DIR", str(cache))
    mp.setenv("DATA_DIR", str(cache / "data"))
    try:
        from bench.run import run, tiny_plan

        yield run(tiny_plan())
    finally:
        mp.undo()


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not (isinstance(x, float) and math.isnan(x))


def _stats_ok(stats: dict, n: int) -> None:
    assert stats["n"] == n
    for key in ("median_ms", "p95_ms", "min_ms", "mean_ms"):
        assert _is_number(stats[key]) and stats[key] >= 0, (key, stats)
    assert stats["p95_ms"] >= stats["median_ms"] >= stats["min_ms"]


def test_retrieval_reports_every_figure_at_every_size(results):
    assert set(results["retrieval"]) == {"200", "600"}
    for size, entry in results["retrieval"].items():
        assert entry["course_chunks"] == int(size)
        for name in ("courserag", "courserag_warm", "faiss_raw", "bm25_raw", "embed_query", "llamaindex"):
            _stats_ok(entry["stats"][name], 3)
        assert _is_number(entry["speedup_vs_llamaindex"])
        assert _is_number(entry["warm_over_raw_search"])
        assert _is_number(entry["p95_over_median"])
        assert entry["llamaindex_build_ms"] > 0
        assert entry["machine_load"]["before"]["calibration_ms"] > 0
        assert {
            "embed_question",
            "course_vector_search",
            "course_bm25_search",
            "session_vector_search",
            "session_bm25_search",
            "merge",
            "rerank",
            "pack",
            "other",
            "sources_packed",
        } <= set(entry["stages"])


def test_cached_pool_never_rebuilds_while_the_reference_rebuilds_every_query(results):
    sizes = results["rebuild_baseline"]["sizes"]
    assert set(sizes) == {"500", "2000"}
    for entry in sizes.values():
        assert entry["cached_rebuilds_per_query"] == 0
        assert entry["cached_extends_per_query"] == 0
        assert entry["reference_rebuilds_per_query"] == 1
        assert entry["index_rebuilds_per_query"] == 1
        for name in (
            "vector_cached",
            "vector_rebuild_faiss",
            "pool_stage_cached",
            "pool_stage_rebuild_index",
            "retrieve_cached",
            "retrieve_rebuild_faiss",
        ):
            _stats_ok(entry["stats"][name], 3)
        for name in ("speedup_vector_path", "speedup_pool_stage", "speedup_retrieve"):
            assert _is_number(entry[name])


def test_ask_upload_build_and_embedders_report_their_figures(results):
    ask = results["ask"]
    _stats_ok(ask["stats"]["ask"], 2)
    _stats_ok(ask["stats"]["retrieve"], 2)

    files = results["upload"]["files"]
    assert {label.split("_")[0] for label in files} == {"pdf", "pptx"}
    for entry in files.values():
        assert set(entry["configs"]) == {"torch_batch1", "torch_batch32", "torch"}
        for config in entry["configs"].values():
            _stats_ok(config["total"], 1)
            assert config["chunks"] > 0 and config["hits"] > 0
            assert set(config["breakdown_median_ms"]) == {"parse", "chunk", "embed", "index", "first_query"}
            assert all(v >= 0 for v in config["breakdown_median_ms"].values())
            assert _is_number(config["speedup_vs_baseline"])

    mixed, text = results["build"]["mixed_course"], results["build"]["text_course"]
    assert mixed["files"] == 3 and mixed["chunks"] > 0 and mixed["full_build_chunks_per_s"] > 0
    _stats_ok(mixed["incremental_nothing_changed"], 2)
    assert text["files"] == 40
    _stats_ok(text["incremental_nothing_changed"], 2)
    assert isinstance(text["target_met"], bool)

    speed = results["embedders"]["speed"]["backends"]["torch"]
    assert speed["passages_per_s"] > 0 and speed["speedup_batch_vs_torch"] > 0
    quality = results["embedders"]["quality"]["backends"]["torch"]
    assert quality["top5_overlap_with_torch"] == 1.0 and quality["within_0.01"] is True


def test_memory_figures_come_from_a_child_process(results):
    sessions = results["memory"]["sessions"]
    assert sessions["sessions"] == 2 and sessions["chunks_per_session"] == 20
    assert _is_number(sessions["rss_per_session_mb"]) and sessions["baseline_payload_per_session_mb"] > 0
    assert sessions["idle_released"] == 2
    course = results["memory"]["course"]
    assert course["course_chunks"] == 600 and course["baseline_payload_mb"] > 0 and _is_number(course["rss_delta_mb"])


def test_table_targets_and_json_render(results):
    from bench.run import format_table

    text = format_table(results)
    assert (
        "retrieve, 600 chunks (+500 session) [calibration" in text
        and "LlamaIndex" in text
        and "rebuild pool index per query" in text
    )
    assert "upload pdf_2_pages" in text and "incremental re-run, 40 files" in text and "RSS per session" in text
    names = [t["target"] for t in results["targets"]]
    assert any("LlamaIndex" in n for n in names) and any("rebuild" in n for n in names)
    assert all(isinstance(t["met"], bool) for t in results["targets"])
    assert results["machine"]["cpus"] >= 1 and "calibration_ms" in results["machine"]["load_at_start"]
    json.dumps(results)  # the results are what bench/results/*.json holds


def test_variants_and_derived_vectors_are_distinct_and_unit_length():
    import numpy as np

    text = (
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty"
    )
    variants = {data.variant_text(text, v) for v in range(5)}
    assert len(variants) == 5 and data.variant_text(text, 0) == text
    assert len({data.variant_text("第一句。第二句。第三句。", v) for v in range(1, 4)}) == 3
    base = np.ones(384, dtype=np.float32) / np.sqrt(384)
    v = data.derived_vector(base, seed=3)
    assert abs(float(np.linalg.norm(v)) - 1) < 1e-5 and 0.9 < float(v @ base) < 0.99
    assert np.array_equal(v, data.derived_vector(base, seed=3))


def test_onnx_backends_give_the_torch_vectors(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")

    from courserag.embedders import get_embedder
    from courserag.embedders.onnx import OnnxEmbedder

    embedder = get_embedder("all-MiniLM-L6-v2", "torch")

    texts = ["Hash tables resolve collisions by chaining.", "哈希表用链地址法解决冲突。", "x" * 3000]
    reference = embedder.embed_batch(texts)
    for backend, floor in (("onnx", 0.9999), ("onnx-int8", 0.97)):
        onnx = OnnxEmbedder("all-MiniLM-L6-v2", backend, tmp_path, threads=1)
        vectors = onnx.embed_batch(texts)
        assert vectors.shape == reference.shape and onnx.dim == embedder.dim
        assert float((vectors * reference).sum(axis=1).min()) > floor, backend
        assert onnx.name.endswith("+" + backend) and onnx.count_tokens(texts[0]) == embedder.count_tokens(texts[0])
