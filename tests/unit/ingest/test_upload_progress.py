"""Honest upload state (courserag/ingest/progress.py and the engine): a file is listed as
pending, with units done of total, until it is searchable; a refusal meanwhile is no gap."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from courserag.ingest.progress import PendingUpload, PendingUploads, embed_with_progress, units_done


@pytest.mark.parametrize(
    ("embedded", "texts", "units", "done"),
    [(0, 40, 118, 0), (32, 40, 118, 94), (39, 40, 118, 115), (40, 40, 118, 118), (5, 5, 1, 1), (3, 10, 0, 0)],
)
def test_units_done_is_proportional_and_complete_only_at_the_end(embedded, texts, units, done):
    assert units_done(embedded, texts, units) == done


def test_embedding_reports_after_every_slice():
    reports = []
    pending = PendingUpload("big.pdf", "indexing", 0, 40, "page")
    embed = embed_with_progress(lambda texts: np.ones((len(texts), 3)), pending, reports.append, step=16)
    vectors = embed([f"t{i}" for i in range(40)])
    assert vectors.shape == (40, 3)
    assert [r.done for r in reports] == [16, 32, 40] and all(r.name == "big.pdf" for r in reports)


def test_pending_uploads_are_per_session():
    registry = PendingUploads()
    registry.set("s1", PendingUpload("a.pdf"))
    registry.set("s1", PendingUpload("a.pdf", "indexing", 3, 9, "page"))
    assert registry.of("s1") == [PendingUpload("a.pdf", "indexing", 3, 9, "page")] and registry.of("s2") == []
    registry.finish("s1", "a.pdf")
    assert registry.of("s1") == [] and registry.of(None) == []


class HeldEmbedder:
    """Wraps an embedder; passages containing `marker` wait until `go` is set."""

    def __init__(self, inner, marker):
        self.inner, self.marker = inner, marker
        self.go, self.waiting = threading.Event(), threading.Event()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed_batch(self, texts, batch_size=32):
        if any(self.marker in t for t in texts):
            self.waiting.set()
            self.go.wait(60)
        return self.inner.embed_batch(texts, batch_size)


def test_the_engine_lists_a_file_until_it_is_searchable_and_logs_no_gap_meanwhile(engine, tmp_path):
    from dataclasses import replace

    from courserag.engine.facade import RagEngine
    from courserag.instructor.feedback import FeedbackLog

    settings = replace(engine.settings, data_dir=tmp_path / "data")
    held = HeldEmbedder(engine.embedder, "gnu-marker")
    logged = RagEngine(settings, engine.directory, engine.store, held, gap_log=FeedbackLog(settings.data_dir))
    note = tmp_path / "gnu.md"
    note.write_text("# Gnu\n\nThe gnu-marker herd migrates 1300 kilometres.\n", encoding="utf-8")
    heard = []
    worker = threading.Thread(target=lambda: heard.append(logged.add_upload("s1", note, progress=heard.append)))
    worker.start()
    try:
        assert held.waiting.wait(60)
        [pending] = logged.pending_uploads("s1")
        assert pending.name == "gnu.md" and pending.phase == "indexing" and pending.total > 0
        answer = logged.ask("csc3100", "How far does the gnu herd migrate?", session_id="s1", scope="both")
        assert answer.refused and "1300" not in answer.answer
        assert FeedbackLog(settings.data_dir).refused("csc3100") == []  # not a content gap
    finally:
        held.go.set()
        worker.join(60)
    assert logged.pending_uploads("s1") == [] and heard[-1].ok
    assert [p.phase for p in heard[:-1]][:2] == ["reading", "indexing"]
    assert not logged.ask("csc3100", "How far does the gnu herd migrate?", session_id="s1", scope="both").refused
    logged.ask("csc3100", "What is the recipe for a chocolate soufflé?", session_id="s1", scope="both")
    assert [r["question"] for r in FeedbackLog(settings.data_dir).refused("csc3100")] == [
        "What is the recipe for a chocolate soufflé?"
    ]
