"""H1: parse bombs inside every size limit are refused within a budget, and cost the session.

Each bomb is made here (docgen/bombs.py), scaled so that the test runs in seconds once the
budgets exist; the originals and their figures are in SECURITY.md. Time is asserted only as
a generous upper bound that proves a budget ("refused within the 2 s budget plus 10 s").
"""

from __future__ import annotations

import threading
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest

from courserag.config.settings import Limits, ParseBudget, Settings
from courserag.errors import IngestError, TooComplexError
from courserag.ingest.parsers import parse_bytes, sandbox
from courserag.ingest.pipeline import IngestConfig, ingest_file
from courserag.retrieval.session_pool import UploadGate
from docgen import bombs, docx_bytes, pptx_bytes

SLACK_S = 10.0  # on top of a budget: process start, a loaded machine


def ingest(data: bytes, name: str, limits: Limits = Limits(), budget: ParseBudget | None = ParseBudget()):
    return ingest_file(data, name, IngestConfig(limits=limits, budget=budget), origin="upload")


def refused(data: bytes, name: str, **kwargs) -> tuple[TooComplexError, float]:
    started = time.monotonic()
    with pytest.raises(TooComplexError) as caught:
        ingest(data, name, **kwargs)
    return caught.value, time.monotonic() - started


def reason(error: IngestError) -> str:
    return error.reason_notice.params["reason"].code


# -- structure counted before any parser runs ---------------------------------------------------


def test_a_docx_of_twenty_thousand_styles_is_refused_at_once():
    """Before: 20,000 styles x 1,000 paragraphs (110 KB) parsed in 5.6-58 s, the cost growing with
    styles x paragraphs (python-docx scans every style for every paragraph)."""
    error, seconds = refused(bombs.docx_style_bomb(20_000, 3_000), "styles.docx")
    assert reason(error) == "complex_styles" and seconds < 2 + SLACK_S
    assert "too complex to read" in str(error) and "styles" in str(error)
    assert "过于复杂" in error.say("zh")


def test_many_styles_under_the_limit_cost_styles_plus_paragraphs_not_their_product():
    data = bombs.docx_style_bomb(4_000, 3_000)  # 12 million style look-ups the old way
    started = time.monotonic()
    doc = ingest(data, "styles.docx", budget=ParseBudget(wall_s=30.0, cpu_s=20.0))
    assert doc.units == 3_000 and time.monotonic() - started < 30


@pytest.mark.parametrize("prefix", ["w", "x"])  # a renamed namespace prefix is counted all the same
def test_a_docx_of_millions_of_empty_paragraphs_is_refused_at_once(prefix):
    """Before: 2 million empty paragraphs in 18 KB took 26.6 s and 476 MB (80 KB: 110 s, 1.15 GB)."""
    data = bombs.docx_paragraph_bomb(2_000_000, prefix=prefix)
    assert len(data) < 40_000
    error, seconds = refused(data, "empty.docx")
    assert reason(error) == "complex_paragraphs" and seconds < 2 + SLACK_S


def test_a_pptx_of_too_many_shapes_is_refused():
    base = pptx_bytes([{"title": "Hashing", "body": ["Load factor"]}])
    error, _ = refused(bombs.pptx_shape_bomb(base, 100_001), "shapes.pptx")
    assert reason(error) == "complex_shapes"


def test_a_pdf_whose_pages_share_one_compressed_stream_is_refused_at_once():
    """Before: 20 pages sharing one 19 KB stream held an upload slot for 189 s."""
    data = bombs.pdf_shared_stream_bomb(20, 8.0)
    assert len(data) < 30_000
    error, seconds = refused(data, "shared.pdf")
    assert reason(error) == "complex_pdf_content" and seconds < 2 + SLACK_S


def test_a_notebook_bomb_is_refused_before_it_is_loaded():
    """Before: a 20 MB notebook was loaded whole by json (232-570 MB) before any limit."""
    for data in (bombs.notebook_cells_bomb(20.0), bombs.notebook_bomb(20.0)):
        tracemalloc.start()
        try:
            with pytest.raises(TooComplexError) as caught:
                parse_bytes(data, "big.ipynb")
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert reason(caught.value) in ("complex_cells", "complex_json")
        assert peak < 5 * 1024 * 1024, f"parsing peaked at {peak / 1e6:.0f} MB before refusing"


# -- the worker's budget: whatever the counts let through -----------------------------------------

GENEROUS = Limits(max_pdf_content_mb=10_000, max_docx_paragraphs=10**9, max_xml_elements=10**9)


def test_a_parse_over_its_wall_deadline_is_killed_and_refused():
    error, seconds = refused(
        bombs.pdf_shared_stream_bomb(20, 8.0), "slow.pdf", limits=GENEROUS, budget=ParseBudget(wall_s=2.0, cpu_s=60.0)
    )
    assert reason(error) == "complex_time" and seconds < 2 + SLACK_S
    assert "2 s" in str(error) and "2 秒" in error.say("zh")


def test_a_parse_over_its_processor_time_is_refused():
    error, seconds = refused(
        bombs.pdf_shared_stream_bomb(20, 8.0), "busy.pdf", limits=GENEROUS, budget=ParseBudget(wall_s=60.0, cpu_s=1.0)
    )
    assert reason(error) == "complex_cpu" and seconds < 1 + SLACK_S + 3  # the hard limit is 2 s above


def test_a_parse_over_its_memory_is_refused():
    error, _ = refused(
        bombs.docx_paragraph_bomb(2_000_000),
        "big.docx",
        limits=GENEROUS,
        budget=ParseBudget(memory_mb=200, wall_s=60.0),
    )
    assert reason(error) == "complex_memory" and "200 MB" in str(error)


def test_good_files_read_the_same_in_the_worker_as_in_this_process():
    data = docx_bytes([("h1", "Week 5"), ("p", "AVL rotations keep the tree balanced.")])
    inside, outside = ingest(data, "w.docx"), ingest(data, "w.docx", budget=None)
    assert inside == outside and inside.chunks


def test_refusals_cross_the_process_boundary_with_their_reasons():
    for data, name, code in [
        (b"", "empty.txt", "file_empty"),
        (b"%PDF-1.4 junk", "bad.pdf", "pdf_damaged"),
        (b"\x89PNG\r\n\x1a\n....", "notes.md", "type_mismatch"),
    ]:
        with pytest.raises(IngestError) as caught:
            ingest(data, name)
        assert caught.value.reason_notice.code == code
        assert caught.value.say("zh") != str(caught.value)


def test_the_worker_gets_no_secret_from_the_environment(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "sk-canary-" + "x" * 20)
    process = sandbox._Workers._start()
    try:
        environ = Path(f"/proc/{process.pid}/environ").read_bytes()
    finally:
        process.kill()
        process.communicate()
    assert b"sk-canary" not in environ and b"LLM_API_KEY" not in environ


# -- what a session may spend, and turns between sessions ----------------------------------------


def wait_until(predicate, timeout: float = 60.0) -> None:
    event = threading.Event()
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        event.wait(0.02)


@pytest.fixture
def budget_engine(built_sample_data, cached_embedder):
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.stores import LocalCourseStore
    from tests.conftest import SAMPLE_DIRECTORY

    def make(**limits):
        settings = Settings(
            data_dir=built_sample_data, limits=replace(Limits(), **limits), parse=ParseBudget(wall_s=60.0)
        )
        store = LocalCourseStore(built_sample_data / "index", cached_embedder.dim)
        return RagEngine(settings, load_course_directory(SAMPLE_DIRECTORY), store, cached_embedder)

    return make


@pytest.mark.slow
def test_refused_files_count_against_the_session_and_are_not_read_twice(budget_engine, tmp_path, monkeypatch):
    engine = budget_engine(max_session_files=3)
    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(bombs.pdf_shared_stream_bomb(20, 8.0))
    starts = []
    real = sandbox._workers.take
    monkeypatch.setattr(sandbox._workers, "take", lambda: starts.append(1) or real())
    first = engine.add_upload("s1", bomb, "bomb.pdf")
    again = engine.add_upload("s1", bomb, "copy.pdf")  # the same bytes under another name
    assert not first.ok and not again.ok and len(starts) == 1
    assert "too complex" in again.error and "copy.pdf" in again.error
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nThe capybara table resizes at 37 keys.\n", encoding="utf-8")
    assert engine.add_upload("s1", note, "note.md").ok  # the third attempt
    refused = engine.add_upload("s1", note, "note2.md")
    assert not refused.ok and "reading budget" in refused.error
    assert engine.add_upload("s2", note, "note.md").ok  # another session is not affected


@pytest.mark.slow
def test_ending_a_session_stops_its_parse(budget_engine, tmp_path):
    engine = budget_engine(max_pdf_content_mb=10_000)
    bomb = tmp_path / "slow.pdf"
    bomb.write_bytes(bombs.pdf_shared_stream_bomb(40, 8.0))
    results = []
    thread = threading.Thread(target=lambda: results.append(engine.add_upload("s1", bomb, "slow.pdf")))
    thread.start()
    wait_until(lambda: engine.sessions.peek("s1") is not None and engine.sessions.peek("s1").jobs)
    started = time.monotonic()
    engine.end_session("s1")
    thread.join(timeout=SLACK_S)
    assert not thread.is_alive() and time.monotonic() - started < SLACK_S
    assert not results[0].ok and "session ended" in results[0].error


def test_the_upload_gate_gives_other_sessions_their_turn():
    gate = UploadGate(workers=2)
    order: list[str] = []
    release_a = threading.Event()
    a_running = threading.Event()

    def upload(session: str, hold: threading.Event | None = None, running: threading.Event | None = None):
        with gate.turn(session):
            order.append(session)
            if running:
                running.set()
            if hold:
                hold.wait(30)

    a1 = threading.Thread(target=upload, args=("A", release_a, a_running))
    a1.start()
    a_running.wait(10)
    a2 = threading.Thread(target=upload, args=("A",))  # A's second file waits for A's first…
    a2.start()
    wait_until(lambda: len(gate._waiting) == 1)
    b = threading.Thread(target=upload, args=("B",))  # …while B, arriving later, goes at once
    b.start()
    b.join(10)
    assert not b.is_alive() and order == ["A", "B"] and a1.is_alive()
    release_a.set()
    for thread in (a1, a2):
        thread.join(10)
    assert order == ["A", "B", "A"]


def test_a_busy_session_takes_every_other_turn():
    gate = UploadGate(workers=1)
    order: list[str] = []
    hold = threading.Event()
    first_in = threading.Event()

    def upload(session: str, wait: bool = False):
        with gate.turn(session):
            order.append(session)
            if wait:
                first_in.set()
                hold.wait(30)

    threads = [threading.Thread(target=upload, args=("X", True))]
    threads[0].start()
    first_in.wait(10)
    for session in ("A", "A", "A", "B"):
        threads.append(threading.Thread(target=upload, args=(session,)))
        threads[-1].start()
        wait_until(lambda n=len(threads) - 1: len(gate._waiting) == n)
    hold.set()
    for thread in threads:
        thread.join(10)
    assert order[:3] == ["X", "A", "B"], order
