"""bench/weaviate_llamaindex.py, run small: every figure the README quotes is produced
(behaviour only; no timing assertions)."""

from __future__ import annotations

import json

import pytest


def test_the_llamaindex_comparison_produces_every_figure(tmp_path, monkeypatch):
    pytest.importorskip("llama_index.vector_stores.weaviate")
    monkeypatch.delenv("WEAVIATE_API_KEY", raising=False)
    from bench.weaviate_llamaindex import main

    out = tmp_path / "result.json"
    results = main(["--chunks", "120", "--runs", "1", "--json", str(out)])
    assert json.loads(out.read_text()) == results
    for section in ("building_objects", "writes", "retrieval"):
        assert (
            results[section][
                "llamaindex_time_over_client_time" if section != "retrieval" else "llamaindex_time_over_store_time"
            ]
            > 0
        )
    assert results["writes"]["weaviate-client"]["n"] == results["writes"]["llamaindex"]["n"] == 1
    assert results["code_lines"]["weaviate-client"] > 0 and results["code_lines"]["llamaindex"] > 0
    assert results["llamaindex_install"]["distributions"] > 0 and results["llamaindex_install"]["megabytes"] > 0
    assert results["llamaindex_import_s"] > 0
