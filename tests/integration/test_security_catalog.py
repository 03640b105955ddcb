"""A bad or costly catalog never stops the app or hides a warning: at `python app.py`'s start and
in `rag_engine.py ask --json` (both run as real processes), and on the engine's answer
(issue 40's catalog findings).

- Finding 4: a prerequisites cell nested 400 brackets deep (or a 3,000-course chain, in the
  cycle check) raised RecursionError, which is no CatalogError: app.py and `ask` stopped
  with a traceback. Now the bad catalog is refused, with its row and field in the log, and
  the app starts without it; the long chain is a valid catalog, and the Catalog tab shows it.
- Finding 11: when the catalog answered a question the course's own materials also answer,
  the warnings of the retrieval that ran beside it (the course store down, the local copy
  answering) were dropped from `ask --json` and from the page whenever the materials had
  nothing to add.

Every wait is on a condition (the app answering, the process ending); nothing is timed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.app_helpers import free_port
from tests.conftest import PROJECT_ROOT
from tests.launched_app import wait_until
from tests.unit.catalog.test_catalog_limits import chain_catalog, nested_catalog

pytestmark = pytest.mark.slow

# Both about the workspace's own course, so the materials are searched beside the catalog.
PREREQUISITES = "What are the prerequisites of CSC3100?"
ELIGIBILITY = "I have taken CSC1001 and MAT1001, can I take CSC3100?"


def environment(**extra) -> dict[str, str]:
    """The test's environment (MODEL_CACHE_DIR, …) with no real service and no secret."""
    drop = {"WEAVIATE_URL", "WEAVIATE_GRPC_URL", "WEAVIATE_API_KEY", "LLM_BASE_URL", "LLM_API_KEY"}
    drop |= {"COURSE_DIRECTORY", "SPACE_ID", "CATALOG", "INSTRUCTOR_TOKEN", "PORT", "GRADIO_SERVER_PORT"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", GRADIO_ANALYTICS_ENABLED="False")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def catalog_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(PROJECT_ROOT / "catalog", folder)
    return folder


def ask_json(question: str, **env) -> tuple[subprocess.CompletedProcess, dict | None]:
    proc = subprocess.run(
        [sys.executable, "rag_engine.py", "ask", "--course", "csc3100", "--json", question],
        cwd=PROJECT_ROOT,
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc, (json.loads(proc.stdout) if proc.returncode == 0 else None)


# -- finding 4: the catalog cannot stop the app --------------------------------------------------------


@pytest.mark.parametrize("kind", ["nested-400-deep", "chain-of-3000"])
def test_app_py_starts_whatever_the_catalog_holds(kind, embedder, tmp_path):
    """Before: `python app.py` exited with a RecursionError traceback for both catalogs."""
    folder = catalog_copy(tmp_path)
    row = nested_catalog(folder) if kind.startswith("nested") else None
    chain = chain_catalog(folder) if row is None else []
    port = free_port()
    log_path = tmp_path / "app.log"
    env = environment(CATALOG=folder, DATA_DIR=tmp_path / "data", PORT=port, HOST="127.0.0.1")
    url = f"http://127.0.0.1:{port}/"

    def serving() -> bool:
        if proc.poll() is not None:
            return True  # it ended: said below, with its log
        try:
            return httpx.get(url + "config", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=PROJECT_ROOT, env=env, stdout=log, stderr=log)
    try:
        assert wait_until(serving, timeout=300), "the app did not start"
        said = log_path.read_text(encoding="utf-8", errors="replace")
        assert proc.poll() is None, f"app.py exited with {proc.returncode}:\n{said[-3000:]}"
        config = httpx.get(url + "config", timeout=30).text
        assert httpx.get(url, timeout=30).status_code == 200
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert "Traceback" not in said and "RecursionError" not in said, said[-3000:]
    if row is not None:  # refused, with the cell named, and the app serves without the Catalog tab
        assert f"was not loaded: catalog: courses.csv:{row}: prerequisites: nested too deep" in said, said
        assert "cr-tab-catalog" not in config
    else:  # a valid catalog: loaded, and its tab is there
        assert "was not loaded" not in said and "cr-tab-catalog" in config, said[-3000:]
        assert len(chain) == 3000


def test_ask_json_with_a_catalog_nested_too_deep_answers_without_it(tmp_path):
    """Before: `ask --json` ended with a RecursionError traceback and no JSON."""
    folder = catalog_copy(tmp_path)
    row = nested_catalog(folder)
    proc, result = ask_json(PREREQUISITES, CATALOG=folder, DATA_DIR=tmp_path / "data")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert f"courses.csv:{row}: prerequisites: nested too deep" in proc.stderr
    assert result["mode"] != "catalog"  # the materials' path answers (here: refuses, no index)


# -- finding 11: the retrieval's warnings reach the catalog's answer ---------------------------------


def store_warnings(result_or_answer, url: str) -> list[str]:
    warnings = result_or_answer["warnings"] if isinstance(result_or_answer, dict) else result_or_answer.warnings
    return [w for w in warnings if url in w and "unavailable" in w]


@pytest.mark.parametrize(
    "local_index, question",
    [
        (True, PREREQUISITES),  # the local copy's syllabus answers after the catalog
        (True, ELIGIBILITY),  # the local copy has nothing to add
        (False, PREREQUISITES),  # no local copy: nothing but the catalog answers
    ],
    ids=["with-local-fallback-materials-answer", "with-local-fallback-materials-refuse", "no-local-index"],
)
def test_ask_json_keeps_the_course_stores_warning_when_the_catalog_answers(
    local_index, question, sample_data, tmp_path
):
    """Before: `warnings` was [] although Weaviate was down, whenever the materials had
    nothing to add (their refusal took the warning with it): the last two cases."""
    url = f"http://127.0.0.1:{free_port()}"
    data_dir = sample_data if local_index else tmp_path / "empty-data"
    proc, result = ask_json(question, WEAVIATE_URL=url, WEAVIATE_TIMEOUT_S=2, DATA_DIR=data_dir)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert result["mode"] == "catalog" and not result["refused"], result
    assert result["citations"][0]["catalog"]["file"] == "catalog/courses.csv"
    warnings = store_warnings(result, url)
    assert len(warnings) == 1, result["warnings"]
    if local_index:
        assert "local copy" in warnings[0]


def test_the_page_shows_the_course_stores_warning_beside_the_catalogs_answer(monkeypatch, tmp_path, cached_embedder):
    """The same answer on the engine as the UI gets it, and as the page shows it."""
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine
    from tests.integration.test_faults import shown

    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("WEAVIATE_URL", url)
    monkeypatch.setenv("WEAVIATE_TIMEOUT_S", "2")
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "empty-data"))
    engine = RagEngine.from_settings(Settings.from_env())
    engine.embedder = cached_embedder
    answer = engine.ask("csc3100", PREREQUISITES)
    assert answer.mode == "catalog" and not answer.refused and "CSC1001" in answer.answer
    assert len(store_warnings(answer, url)) == 1, answer.warnings
    page = shown(answer)
    assert url in page and "⚠️" in page
