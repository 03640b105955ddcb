"""Instructor file actions that cannot lose work, in a real browser (issue 21, point 3). An
upload whose name is taken asks "replace or keep both" (drawn under the upload box, inside
the viewport) before anything is stored; files land in the folder picked; a removed or
replaced file is restored from the trash. Every step waits for a settled page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM, open_app, unlock
from tests.browser_support import duplicate_ids, settle

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)

SLACK = 0.5  # sub-pixel rounding of bounding boxes


def box(page, selector: str) -> dict:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not drawn"
    return found


def pick(page, selector: str, option) -> None:
    page.click(f"{selector} input")
    page.get_by_role("option", name=option).first.click()
    settle(page)


def send(page, path: Path) -> None:
    page.set_input_files("#cr-instr-upload input[type=file]", [str(path)])


# (study tab, language button, instructor tab, <html lang>) before and after a switch to each language
_SWITCH = {"zh": ("Study", "中文", "教师", "zh"), "en": ("学习", "English", "Instructor", "en")}


def switch_language(page, to: str) -> None:
    """Switch the interface language on the study tab, then come back to the instructor tab."""
    study, button, instructor_tab, lang = _SWITCH[to]
    page.get_by_role("tab", name=study).click()
    page.locator("#cr-lang").get_by_text(button).click()
    page.wait_for_function("(l) => document.documentElement.lang.startsWith(l)", arg=lang)
    settle(page)
    page.get_by_role("tab", name=re.compile(instructor_tab)).click()
    settle(page)


def summary_says(page, text: str) -> None:
    page.wait_for_function(
        "(t) => (document.querySelector('#cr-build-summary')?.innerText || '').includes(t)", arg=text
    )
    settle(page)


def inside(inner: dict, outer: dict) -> bool:
    return (
        outer["x"] - SLACK <= inner["x"]
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + SLACK
        and outer["y"] - SLACK <= inner["y"]
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + SLACK
    )


def assert_prompt_in_view(page) -> None:
    """The "replace or keep both" prompt, once scrolled to, is drawn whole in the viewport,
    right under the upload box and above the file picker, its buttons inside it with their
    labels uncut, and the page does not scroll sideways: at every width a phone may have."""
    page.locator("#cr-clash-box").scroll_into_view_if_needed()
    settle(page)
    screen = {"x": 0, "y": 0, "width": page.evaluate("document.documentElement.clientWidth")}
    screen["height"] = page.evaluate("window.innerHeight")
    prompt, drop = box(page, "#cr-clash-box"), box(page, "#cr-instr-upload")
    assert inside(prompt, screen), (prompt, screen)
    assert prompt["y"] >= drop["y"] + drop["height"] - SLACK  # right under the upload box…
    assert prompt["y"] + prompt["height"] <= box(page, "#cr-file-pick")["y"] + SLACK  # …above the file picker
    for part in ("#cr-clash-question", "#cr-clash-replace", "#cr-clash-keep", "#cr-clash-no"):
        assert inside(box(page, part), prompt), part
        assert page.locator(part).first.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), f"{part} is cut off"
    wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wide <= 0, f"the page scrolls sideways by {wide} px"


def test_a_taken_name_asks_replace_or_keep_both_and_the_trash_restores(page, server, instructor, tmp_path):
    homework = server.root / "courses" / "csc3100" / "homework"
    unlock(page)
    try:
        pick(page, "#cr-folder-pick", "homework")
        upload = tmp_path / "week10_tries.md"
        upload.write_text("# Tries\n\nVersion A: a trie keeps one node per letter.\n", encoding="utf-8")
        send(page, upload)
        summary_says(page, "homework/week10_tries.md was added")
        assert "Version A" in (homework / "week10_tries.md").read_text(encoding="utf-8")

        # The same name again: a prompt under the upload box, nothing stored until answered.
        upload.write_text("# Tries\n\nVersion B: compressed tries merge chains.\n", encoding="utf-8")
        send(page, upload)
        page.wait_for_selector("#cr-clash-box:visible")
        settle(page)
        question = page.inner_text("#cr-clash-question")
        assert "week10_tries.md" in question and "week10_tries (2).md" in question and "homework" in question
        assert_prompt_in_view(page)
        assert duplicate_ids(page) == []
        # A language switch while the prompt is open asks it again in the new language.
        switch_language(page, "zh")
        assert "中已有" in page.inner_text("#cr-clash-question") and "两个都保留" in page.inner_text("#cr-clash-keep")
        switch_language(page, "en")
        assert "week10_tries (2).md" in page.inner_text("#cr-clash-question")
        assert "Version A" in (homework / "week10_tries.md").read_text(encoding="utf-8")
        page.click("#cr-clash-keep")
        summary_says(page, "homework/week10_tries (2).md was added")
        page.wait_for_selector("#cr-clash-box", state="hidden")
        assert "Version A" in (homework / "week10_tries.md").read_text(encoding="utf-8")
        assert "Version B" in (homework / "week10_tries (2).md").read_text(encoding="utf-8")

        # Replace: the old version goes to the trash, and comes back from it under a free name.
        upload.write_text("# Tries\n\nVersion C: a radix tree.\n", encoding="utf-8")
        send(page, upload)
        page.wait_for_selector("#cr-clash-box:visible")
        page.click("#cr-clash-replace")
        summary_says(page, "homework/week10_tries.md was replaced")
        assert "Version C" in (homework / "week10_tries.md").read_text(encoding="utf-8")
        pick(page, "#cr-trash-pick", re.compile(r"homework.week10_tries\.md — replaced"))
        page.click("#cr-trash-restore")
        summary_says(page, "homework/week10_tries (3).md was restored")
        assert "Version A" in (homework / "week10_tries (3).md").read_text(encoding="utf-8")
        page.wait_for_selector("#cr-files-table:has-text('week10_tries (3).md')")

        # Remove: to the trash, listed there, restored where it was.
        pick(page, "#cr-file-pick", "homework/week10_tries (2).md")
        page.click("#cr-file-remove")
        page.wait_for_selector("#cr-remove-question:has-text('trash')")
        page.click("#cr-remove-yes")
        summary_says(page, "moved to the course's trash")
        assert not (homework / "week10_tries (2).md").exists()
        assert "week10_tries (2).md" not in page.inner_text("#cr-files-table")
        page.click("#cr-trash-pick input")
        option = page.get_by_role("option", name=re.compile(r"homework.week10_tries \(2\)\.md — removed"))
        assert option.count() == 1 and option.first.is_visible()
        option.first.click()
        settle(page)
        restore = box(page, "#cr-trash-restore")
        assert restore["x"] + restore["width"] <= page.viewport_size["width"] + SLACK
        page.click("#cr-trash-restore")
        summary_says(page, "homework/week10_tries (2).md was restored")
        assert "Version B" in (homework / "week10_tries (2).md").read_text(encoding="utf-8")
        assert "homework/week10_tries (2).md" in {r.source for r in server.engine.course_files("csc3100")}
    finally:
        for added in homework.glob("week10_tries*.md"):
            added.unlink()
        server.engine.build_course("csc3100")


@pytest.mark.parametrize("width", [420, 360])
def test_the_replace_or_keep_both_prompt_fits_a_phone(browser, server, instructor, tmp_path, width):
    syllabus = server.root / "courses" / "csc3100" / "syllabus.md"
    before = syllabus.read_bytes()
    context, page = open_app(browser, server, width=width, height=800)
    try:
        unlock(page)
        taken = tmp_path / "syllabus.md"
        taken.write_text("# Syllabus\n\nA learner's copy.\n", encoding="utf-8")
        send(page, taken)
        page.wait_for_selector("#cr-clash-box:visible")
        settle(page)
        assert "syllabus.md" in page.inner_text("#cr-clash-question")
        assert_prompt_in_view(page)
        page.click("#cr-clash-no")
        page.wait_for_selector("#cr-clash-box", state="hidden")
        assert syllabus.read_bytes() == before
    finally:
        context.close()
