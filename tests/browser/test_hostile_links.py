"""No answer carries a link that covers the page, whatever it quotes.

A Markdown link whose title holds a `$…$` math span once came out with attributes of its own
(`href`, `target="_blank"`, `style="position:fixed;…;width:100vw;height:100vh"`): the math was
put back after the sanitizer, so its quote closed the title. A click anywhere on the page then
opened the other site. It reached the page four ways, each tested here in the launched app: a
learner's note quoted by the extractive answer, an LLM's answer, a catalog course's title and
description, and a course file an instructor added from the instructor tab. Each test clicks
the middle of the page and asserts that nothing navigated, nothing opened, and no element of
the answer is a link or carries a style.
"""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest

from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM, PROJECT_ROOT, unlock
from tests.browser_support import ask, settle, upload

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)

# Port 9 (discard) on the loopback: nothing listens, nothing leaves the machine.
EVIL = "http://127.0.0.1:9/evil"
# The math span closes its own delimiters inside the title ("\\)" … "\\("), so the page's
# KaTeX step, which takes what stands between them, leaves the planted attributes as they are.
OVERLAY = (
    f'[the page]({EVIL} "Page $a\\) " href="{EVIL}" target="_blank" '
    'style="position:fixed;top:0;left:0;width:100vw;height:100vh;opacity:0.01;z-index:9999" x=\\($")'
)


def server_settings(root: Path) -> dict:
    """This module's app reads a catalog with one hostile course, CSC4990."""
    catalog = root / "catalog"
    shutil.copytree(PROJECT_ROOT / "catalog", catalog)
    path = catalog / "courses.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    hostile = dict.fromkeys(rows[0], "")
    hostile.update(
        code="CSC4990",
        title_en=f"Overlay Studio {OVERLAY}",
        title_zh="叠加工作室",
        credits="3",
        description_en=f"A studio course. {OVERLAY}",
        description_zh="工作室课程。",
    )
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows([*rows, hostile])
    return {"catalog": catalog}


def assert_nothing_takes_a_click(page, answer) -> None:
    """The answer holds no link but the app's own to cited course files, and no style (but
    KaTeX's, drawn in the page); the element at the page's middle is no link; a click there
    opens nothing and leaves the page where it was."""
    planted = answer.evaluate(
        "(a) => [...a.querySelectorAll('a[href], [target], [style]')]"
        ".filter((e) => !e.closest('.katex'))"
        ".filter((e) => !(e.matches('a.cr-file') && e.getAttribute('href').startsWith('course-file/')))"
        ".map((e) => e.outerHTML)"
    )
    assert planted == [], planted
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    at_middle = page.evaluate(
        "([x, y]) => { const e = document.elementFromPoint(x, y); return e && e.closest('a[href]') ? "
        "e.closest('a[href]').outerHTML : ''; }",
        [width // 2, height // 2],
    )
    assert at_middle == "" or EVIL not in at_middle, at_middle
    url, pages = page.url, len(page.context.pages)
    page.mouse.click(width // 2, height // 2)
    page.evaluate("() => new Promise(requestAnimationFrame)")  # the click's default action has run
    settle(page)
    assert page.url == url and len(page.context.pages) == pages


def test_a_learners_note_quoted_by_the_extractive_answer_cannot_cover_the_page(page, tmp_path):
    note = tmp_path / "quokka_seminar.md"
    note.write_text(
        f"# Quokka seminar\n\nThe quokka seminar meets on Fridays in the rooftop garden; see {OVERLAY} "
        "for the schedule.\n",
        encoding="utf-8",
    )
    upload(page, note)
    answer = ask(page, "What is the quokka seminar?")
    assert "rooftop garden" in answer.inner_text()  # the quote that carries the link is shown
    assert_nothing_takes_a_click(page, answer)


def test_an_llm_answer_cannot_cover_the_page(page, server):
    from courserag.answers.llm import ChatAnswerer
    from tests.llm_server import start_fake_llm

    fake = start_fake_llm()
    fake.reply = f"The late policy is explained on {OVERLAY} [1]."
    server.engine.answerer = ChatAnswerer(fake.base_url, "fake-model", "sk-test-not-secret", timeout_s=30)
    try:
        answer = ask(page, "What is the late policy for homework?")
        assert "late policy is explained" in answer.inner_text()
        assert_nothing_takes_a_click(page, answer)
    finally:
        server.engine.answerer = None
        fake.stop()


def test_a_catalog_title_and_description_cannot_cover_the_page(page):
    answer = ask(page, "What is CSC4990 about?")
    assert "Overlay Studio" in answer.inner_text()
    assert_nothing_takes_a_click(page, answer)


def test_a_course_file_added_from_the_instructor_tab_cannot_cover_the_page(page, server, instructor, tmp_path):
    unlock(page)
    policy = tmp_path / "wombat_lab.md"
    policy.write_text(
        f"# Wombat lab\n\nThe wombat lab is open on Sundays for extra practice; see {OVERLAY} for the rota.\n",
        encoding="utf-8",
    )
    page.set_input_files("#cr-instr-upload input[type=file]", [str(policy)])
    page.wait_for_function(
        "() => /wombat_lab\\.md was added/.test(document.querySelector('#cr-build-summary')?.innerText || '')"
    )
    settle(page)
    page.get_by_role("tab", name=re.compile("Study")).click()
    settle(page)
    answer = ask(page, "What is the wombat lab?")
    assert "Sundays" in answer.inner_text()
    assert_nothing_takes_a_click(page, answer)
