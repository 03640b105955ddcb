"""The embedders package: the one CachingEmbedder, and `dim` without loading a model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from courserag.embedders import (
    CachingEmbedder,
    SentenceTransformerEmbedder,
    dim_from_config,
    get_embedder,
    resolve_model_path,
    vector_space,
)

# -- CachingEmbedder --------------------------------------------------------------------------


def test_each_text_is_embedded_once_across_runs(tmp_path, fake_embedder):
    first = CachingEmbedder(fake_embedder, tmp_path)
    vectors = first.embed_batch(["alpha", "beta", "alpha"])
    assert sorted(fake_embedder.seen) == ["alpha", "beta"]
    again = CachingEmbedder(fake_embedder, tmp_path)  # a new run reads the disk cache
    assert np.allclose(again.embed_batch(["beta", "alpha"]), vectors[[1, 0]])
    assert len(fake_embedder.seen) == 2 and again.embedded == 0


def test_questions_and_passages_are_cached_apart(fake_embedder):
    cached = CachingEmbedder(fake_embedder)
    passage = cached.embed_batch(["what is a heap?"])[0]
    question = cached.embed_query("what is a heap?")
    assert np.allclose(passage, question)  # the fake embeds both alike
    assert fake_embedder.seen == ["what is a heap?"] * 2  # but a model may not: asked twice
    cached.embed_query("what is a heap?")
    cached.embed_queries(["what is a heap?"])
    assert len(fake_embedder.seen) == 2 and cached.embedded == 2


def test_nothing_is_read_from_disk_before_first_use(tmp_path, fake_embedder, monkeypatch):
    CachingEmbedder(fake_embedder, tmp_path).embed_batch(["alpha"])
    loads = []
    real_load = np.load
    monkeypatch.setattr(np, "load", lambda *args, **kwargs: loads.append(args) or real_load(*args, **kwargs))
    cached = CachingEmbedder(fake_embedder, tmp_path)
    assert loads == []
    cached.embed_batch(["alpha"])
    assert len(loads) == 1 and fake_embedder.seen == ["alpha"]


def test_a_damaged_cache_file_costs_only_a_re_embed(tmp_path, fake_embedder):
    CachingEmbedder(fake_embedder, tmp_path).embed_batch(["alpha"])
    for path in tmp_path.rglob("*.npz"):
        path.write_bytes(b"not a zip")
    assert CachingEmbedder(fake_embedder, tmp_path).embed_batch(["alpha"]).shape == (1, fake_embedder.dim)
    assert fake_embedder.seen == ["alpha", "alpha"]


def test_max_entries_forgets_the_least_recently_used(fake_embedder):
    cached = CachingEmbedder(fake_embedder, max_entries=2)
    for question in ("a", "b", "a", "c", "a", "b"):
        cached.embed_query(question)
    assert fake_embedder.seen == ["a", "b", "c", "b"]  # "b" was the least recently used when "c" came


def test_questions_only_passes_passages_through(fake_embedder):
    cached = CachingEmbedder(fake_embedder, cache_passages=False)
    cached.embed_batch(["x", "y"])
    cached.embed_batch(["x", "y"])
    cached.embed_query("q")
    cached.embed_query("q")
    assert fake_embedder.seen == ["x", "y", "x", "y", "q"]


def test_remembered_vectors_are_used_and_clear_forgets(fake_embedder):
    cached = CachingEmbedder(fake_embedder)
    known = np.eye(fake_embedder.dim, dtype=np.float32)[:2]
    cached.remember(["one", "two"], known)
    assert np.array_equal(cached.embed_batch(["two", "one"]), known[[1, 0]])
    assert fake_embedder.seen == []
    cached.clear()
    cached.embed_batch(["one"])
    assert fake_embedder.seen == ["one"]


def test_cached_vectors_cannot_be_changed_by_a_caller(fake_embedder):
    cached = CachingEmbedder(fake_embedder)
    first = cached.embed_query("q")
    first += 1.0  # the caller's copy
    assert np.allclose(np.linalg.norm(cached.embed_query("q")), 1.0)


def test_the_product_embedder_caches_questions_only():
    embedder = get_embedder("all-MiniLM-L6-v2")
    assert isinstance(embedder, CachingEmbedder) and not embedder.cache_passages
    assert isinstance(embedder.inner, SentenceTransformerEmbedder)


# -- dim from the model folder's configuration ---------------------------------------------------


def write_model(folder: Path, modules: list[tuple[str, str, dict]] | None, config: dict | None = None) -> Path:
    """A model folder with modules.json (type, path, config.json of that module)."""
    folder.mkdir(parents=True)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    if modules is not None:
        entries = []
        for i, (kind, path, module_config) in enumerate(modules):
            entries.append({"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"})
            if path:
                (folder / path).mkdir()
                (folder / path / "config.json").write_text(json.dumps(module_config), encoding="utf-8")
        (folder / "modules.json").write_text(json.dumps(entries), encoding="utf-8")
    return folder


MEAN = {"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False}


@pytest.mark.parametrize(
    "modules, config, expected",
    [
        ([("Transformer", "", {}), ("Pooling", "1_Pooling", MEAN), ("Normalize", "", {})], {"hidden_size": 384}, 384),
        (
            [("Transformer", "", {}), ("Pooling", "1_Pooling", MEAN | {"pooling_mode_max_tokens": True})],
            {"hidden_size": 384},
            768,
        ),
        (
            [("Transformer", "", {}), ("Pooling", "1_Pooling", MEAN), ("Dense", "2_Dense", {"out_features": 256})],
            {"hidden_size": 384},
            256,
        ),
        (None, {"hidden_size": 768}, 768),  # a plain transformer: sentence-transformers mean-pools it
        (
            [("Transformer", "", {}), ("Pooling", "1_Pooling", MEAN), ("SomethingNew", "2_New", {})],
            {"hidden_size": 384},
            None,
        ),
        (
            [("Transformer", "", {}), ("Pooling", "1_Pooling", {"word_embedding_dimension": 384})],
            {"hidden_size": 384},
            None,
        ),
        (None, None, None),
    ],
)
def test_dim_from_config(tmp_path, modules, config, expected):
    assert dim_from_config(write_model(tmp_path / "model", modules, config)) == expected


def test_the_bundled_model_declares_its_dim():
    path, bundled = resolve_model_path("all-MiniLM-L6-v2")
    assert bundled and dim_from_config(Path(path)) == 384


def test_dim_does_not_load_the_model():
    embedder = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    assert embedder.dim == 384
    assert embedder._model is None


@pytest.mark.slow  # loads MiniLM on torch
def test_an_english_only_model_is_known_not_to_read_chinese(embedder):
    """MiniLM's vocabulary reads most Chinese characters as [UNK], so ranking leaves Chinese
    questions to BM25 with it (ranking.LEXICAL_ONLY_WEIGHTS); the default ensemble reads both."""
    assert SentenceTransformerEmbedder("all-MiniLM-L6-v2").reads_chinese is False
    assert embedder.reads_chinese is True


def test_a_question_in_one_language_skips_the_part_it_does_not_weigh(embedder, monkeypatch):
    """In one language the default ensemble searches with E5 alone: computing USE's block
    (scaled by 0) only cost time. The vectors and scores are the same as computing it."""
    import numpy as np

    ensemble = embedder.inner
    use_model = next(model for model, _ in ensemble.parts if model.name.startswith("use-"))
    question, units = "When is the midterm exam?", ["The midterm is on 2026-10-20.", "期中考试在第八周。"]
    full = embedder.query_for(embedder.embed_query(question), False)
    scores = embedder.embed_batch(units) @ full
    calls = []
    monkeypatch.setattr(use_model, "embed_queries", lambda *a, **k: calls.append(a) or pytest.fail("USE ran"))
    monkeypatch.setattr(use_model, "embed_batch", lambda *a, **k: calls.append(a) or pytest.fail("USE ran"))
    fast = embedder.embed_query_for(question, False)
    assert np.allclose(fast, full, atol=1e-5)
    assert np.allclose(embedder.embed_passages_for(units, False) @ fast, scores, atol=1e-5)
    assert calls == []
    monkeypatch.undo()
    across = embedder.embed_query_for("期中考试是什么时候？", True)  # across languages both parts count
    assert np.allclose(across, embedder.query_for(embedder.embed_query("期中考试是什么时候？"), True), atol=1e-6)


def test_passage_batches_on_two_threads_give_the_same_vectors(embedder, monkeypatch):
    """Uploads embed E5's passage batches on two threads (e5.PASSAGE_WORKERS); the batches are
    those one thread would run, so the vectors are identical (int8 activations are quantized
    per batch: a different split would move them)."""
    import numpy as np

    from courserag.embedders import e5 as e5_module

    model = embedder.inner.parts[0][0]
    texts = [f"Passage {i}: the late policy deducts {i}% per day; 迟交第 {i} 天扣分。" + " word" * i for i in range(40)]
    together = model.embed_batch(texts, 8)
    monkeypatch.setattr(e5_module, "PASSAGE_WORKERS", 1)
    one_thread = model.embed_batch(texts, 8)
    assert np.array_equal(together, one_thread)


# -- vector_space -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "backend", "space"),
    [
        (
            "multilingual-e5-small+use-multilingual-v3",
            "onnx-int8",
            "multilingual-e5-small+use-multilingual-v3 (E5 int8 r3)",
        ),
        ("multilingual-e5-small", "onnx-int8", "multilingual-e5-small (E5 int8 r3)"),
        ("intfloat/multilingual-e5-small", "onnx-int8", "intfloat/multilingual-e5-small (E5 int8 r3)"),
        ("multilingual-e5-small+use-multilingual-v3", "onnx", "multilingual-e5-small+use-multilingual-v3"),  # fp32
        ("multilingual-e5-small", "torch", "multilingual-e5-small"),
        ("all-MiniLM-L6-v2", "onnx-int8", "all-MiniLM-L6-v2"),  # not E5: its recipe never changed
        ("use-multilingual-v3", "onnx-int8", "use-multilingual-v3"),
    ],
)
def test_a_store_s_vector_space_names_e5_s_int8_recipe_only_where_e5_is_quantized(model, backend, space):
    assert vector_space(model, backend) == space
