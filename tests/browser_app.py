"""The app and the browser the browser suites share (tests/browser/test_*.py): one app per test
module (in a thread, over private copies of the built sample data and of the course folders
and course list, so instructor edits touch nothing in the repository), Debian's Chromium, and
the page steps that wait for a settled page (tests/browser_support.py) before they return.

A test module uses them with `from tests.browser_app import *` (the fixtures included).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.browser_support import Gate, GatedEmbedder, new_page, settle

__all__ = [
    "CHROMIUM",
    "PROJECT_ROOT",
    "SHOTS",
    "TIMEOUT_MS",
    "TOKEN",
    "browser",
    "instructor",
    "line_count",
    "new_lines",
    "open_app",
    "page",
    "screenshot",
    "select_course",
    "server",
    "unlock",
]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Screenshots of the main screens, taken by the tests marked `screenshots`: docs/ is refreshed
# only on request (`make screenshots`), so an ordinary test run leaves the repository unchanged.
SHOTS = PROJECT_ROOT / ("docs" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else ".test-artifacts/screenshots")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "browser-instructor-token-7c1f"
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def server(request, built_sample_data, embedder, tmp_path_factory):
    from courserag.config.settings import Settings
    from courserag.courses.directory import load_course_directory
    from courserag.engine.facade import RagEngine
    from courserag.instructor.feedback import FeedbackLog
    from courserag.stores import LocalCourseStore
    from tests.launched_app import launched

    root = tmp_path_factory.mktemp("browser")
    data = root / "data"
    shutil.copytree(built_sample_data, data)
    shutil.copy(PROJECT_ROOT / "course_directory.yaml", root / "course_directory.yaml")
    shutil.copytree(PROJECT_ROOT / "courses", root / "courses")
    # A module may change its app's setting: `server_settings(root)` returns more Settings
    # fields (a catalog of its own, say), made under the module's private folder.
    more = getattr(request.module, "server_settings", lambda root: {})(root)
    # instructor_enabled shows the tab, as when the app starts with INSTRUCTOR_TOKEN set; the
    # token itself is read from the environment on every call (the instructor tests set it).
    settings = Settings(data_dir=data, course_directory=root / "course_directory.yaml", instructor_enabled=True, **more)
    gate = Gate()
    engine = RagEngine(
        settings,
        load_course_directory(settings.course_directory),
        LocalCourseStore(data / "index", embedder.dim),
        GatedEmbedder(embedder, gate),
        gap_log=FeedbackLog(data),
    )
    # As app.py launches it (tests/launched_app.py). launch() returns once the server listens;
    # Gradio's own "is localhost reachable" probe (a HEAD with a 3 s timeout) fails on a busy
    # machine and would end the module, so it is skipped: the browser's first page load waits
    # for the page under the context's timeout instead.
    with launched(engine, settings, _frontend=False) as running:
        try:
            yield SimpleNamespace(url=running.url, engine=engine, data=data, root=root, gate=gate)
        finally:
            gate.release()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_app(browser, server, width: int = 1400, height: int = 1000, locale: str = "en-US"):
    context, page = new_page(browser, width, height, locale, TIMEOUT_MS)
    page.goto(server.url)
    page.wait_for_selector("#cr-question textarea")
    page.wait_for_function("/indexed|已索引/.test(document.querySelector('#cr-course-card')?.innerText || '')")
    settle(page)
    return context, page


@pytest.fixture
def page(browser, server):
    context, page = open_app(browser, server)
    yield page
    context.close()


@pytest.fixture
def instructor(monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKEN", TOKEN)
    return TOKEN


def screenshot(page, name: str, full_page: bool = True) -> None:
    """The settled page, whole, or only the viewport (a sheet fixed over it is drawn as seen)."""
    settle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full_page)


def select_course(page, label: str) -> None:
    page.click("#cr-course input")
    page.get_by_role("option", name=label).click()
    page.wait_for_function(
        "(name) => document.querySelector('#cr-course-status')?.innerText.includes(name)",
        arg=label.split()[0],
    )
    settle(page)


def unlock(page, token: str = TOKEN) -> None:
    page.get_by_role("tab", name=re.compile("Instructor|教师")).click()
    page.fill("#cr-token input", token)
    page.click("#cr-unlock")
    page.wait_for_selector("#cr-instr-panel:visible")
    settle(page)


def new_lines(path: Path, before: int) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[before:] if line.strip()]


def line_count(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0


# -- what worked before and must keep working -------------------------------------------------
