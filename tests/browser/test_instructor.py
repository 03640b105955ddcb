"""The instructor tab in a real browser: locked without the token (and again once it is unset),
tokens per course, a build and batch questions, a rebuild that asks first while learners keep
being answered, the course workspace (a file added, the course's details edited, the file
removed), and file actions that cannot lose work (issue 21, point 3): an upload whose name is
taken asks "replace or keep both" (drawn under the upload box, inside the viewport) before
anything is stored; files land in the folder picked; a removed or replaced file is restored
from the trash. Every step waits for a settled page.

One app serves the module (tests/browser_app.py: in a thread, over private copies of the built
sample data, the course folders and the course list); each test opens its own browser
context, a separate Gradio session. The tests share the module's course folders, in order:
each leaves csc3100 with the files it found (what it adds it removes again).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM, TOKEN, line_count, open_app, screenshot, unlock
from tests.browser_support import ask, citations, duplicate_ids, settle

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)


def test_instructor_tab_is_locked_without_the_token_and_works_with_it(page, server, monkeypatch):
    answer = ask(page, "Who won the 1966 World Cup?")
    assert citations(answer) == []  # refused, so it is a content gap
    page.get_by_role("tab", name="Instructor").click()
    # no INSTRUCTOR_TOKEN on the server: everything stays locked, whatever is typed
    page.fill("#cr-token input", TOKEN)
    page.click("#cr-unlock")
    page.wait_for_selector("#cr-instr-status:has-text('turned off')")
    assert not page.locator("#cr-instr-panel").is_visible()

    monkeypatch.setenv("INSTRUCTOR_TOKEN", TOKEN)
    page.fill("#cr-token input", "not-the-token")
    page.click("#cr-unlock")
    page.wait_for_selector("#cr-instr-status:has-text('not correct')")
    assert not page.locator("#cr-instr-panel").is_visible()

    page.fill("#cr-token input", TOKEN)
    page.click("#cr-unlock")
    page.wait_for_selector("#cr-instr-status:has-text('Unlocked')")
    page.wait_for_selector("#cr-stats:has-text('passages indexed')")
    assert "local" in page.inner_text("#cr-stats")
    assert "syllabus.md" in page.inner_text("#cr-files-table")

    page.click("#cr-build")
    page.wait_for_selector("#cr-build-summary:has-text('csc3100: 8 files')")
    assert "0 failed" in page.inner_text("#cr-build-summary")

    page.fill("#cr-batch-questions textarea", "What is the late policy for homework?\nWho won the 1998 World Cup?")
    page.click("#cr-batch-run")
    page.wait_for_selector("#cr-batch-table:has-text('refused')")
    table = page.inner_text("#cr-batch-table")
    assert "answered" in table and "syllabus.md" in table
    assert "Who won the 1966 World Cup?" in page.inner_text("#cr-gaps-table")  # refused in the Study tab
    body = page.inner_text("body")
    assert TOKEN not in body and TOKEN not in page.content()

    # the token is checked on every call: once it is unset on the server, the tab locks again
    monkeypatch.delenv("INSTRUCTOR_TOKEN")
    page.click("#cr-refresh")
    page.wait_for_selector("#cr-instr-status:has-text('turned off')")
    assert not page.locator("#cr-instr-panel").is_visible()


def test_a_rebuild_asks_first_and_learners_keep_being_answered_until_it_switches(browser, page, server, instructor):
    refused_log = server.data / "refused_questions.jsonl"
    unlock(page)
    page.click("#cr-rebuild")
    page.wait_for_selector("#cr-rebuild-question:has-text('Rebuild')")
    assert "current index" in page.inner_text("#cr-rebuild-question")
    page.click("#cr-rebuild-no")
    page.wait_for_selector("#cr-rebuild-question", state="hidden")
    assert page.inner_text("#cr-build-summary") == ""  # nothing happened

    server.gate.arm("Late policy", threads=["instructor-build"])  # syllabus.md, the last file
    learner_ctx, learner = open_app(browser, server)
    try:
        page.click("#cr-rebuild")
        page.click("#cr-rebuild-yes")
        page.wait_for_selector("#cr-instr-progress progress")
        assert server.gate.holding.wait(60), "the rebuild never reached syllabus.md"
        page.wait_for_selector("#cr-instr-progress:has-text('8: syllabus.md')")
        before = line_count(refused_log)
        answer = ask(learner, "What is the late policy for homework?")
        assert any(c["origin"] == "course" for c in citations(answer)), "the course went offline during the rebuild"
        learner.reload()
        learner.wait_for_function("/indexed/.test(document.querySelector('#cr-course-card')?.innerText || '')")
        assert line_count(refused_log) == before
    finally:
        server.gate.release()
        learner_ctx.close()
    page.wait_for_selector("#cr-build-summary:has-text('csc3100: 8 files, 8 indexed')")
    assert server.engine.index_status("csc3100").state == "ready"


@pytest.mark.screenshots
def test_the_instructor_workspace_adds_edits_and_removes_course_material(browser, page, server, instructor, tmp_path):
    unlock(page)
    addition = tmp_path / "week09_tries.md"
    addition.write_text(
        "# Week 9: Tries\n\nA trie stores the quagga dictionary with one node per letter.\n", encoding="utf-8"
    )
    page.set_input_files("#cr-instr-upload input[type=file]", [str(addition)])
    page.wait_for_selector("#cr-build-summary:has-text('week09_tries.md was added')")
    assert "1 indexed" in page.inner_text("#cr-build-summary")
    page.wait_for_selector("#cr-files-table:has-text('week09_tries.md')")
    assert (server.root / "courses" / "csc3100" / "week09_tries.md").is_file()

    learner_ctx, learner = open_app(browser, server)
    try:
        answer = ask(learner, "How does a trie store the quagga dictionary?")
        assert any(c["file"] == "week09_tries.md" and c["origin"] == "course" for c in citations(answer))
    finally:
        learner_ctx.close()

    page.fill("#cr-course-name input, #cr-course-name textarea", "CSC3100 Data Structures and Algorithms")
    page.click("#cr-course-save")
    page.wait_for_selector("#cr-details-note:has-text('Saved')")
    assert "CSC3100 Data Structures and Algorithms" in (server.root / "course_directory.yaml").read_text(
        encoding="utf-8"
    )
    learner_ctx, learner = open_app(browser, server)
    try:
        learner.wait_for_selector("#cr-course-card:has-text('CSC3100 Data Structures and Algorithms')")
        learner.click("#cr-course input")
        assert learner.get_by_role("option", name="CSC3100 Data Structures and Algorithms").count() == 1
    finally:
        learner_ctx.close()
    page.fill("#cr-course-name input, #cr-course-name textarea", "CSC3100 Data Structures")
    page.click("#cr-course-save")
    page.wait_for_function(
        "document.querySelector('#cr-course-name input, #cr-course-name textarea').value === 'CSC3100 Data Structures'"
    )
    screenshot(page, "instructor_workspace.png")

    page.click("#cr-file-pick input")
    page.get_by_role("option", name="week09_tries.md").click()
    page.click("#cr-file-remove")
    page.wait_for_selector("#cr-remove-question:has-text('week09_tries.md')")
    page.click("#cr-remove-yes")
    page.wait_for_selector("#cr-build-summary:has-text('moved to the course')")
    assert not (server.root / "courses" / "csc3100" / "week09_tries.md").exists()
    assert "week09_tries.md" not in page.inner_text("#cr-files-table")
    assert "week09_tries.md" not in {r.source for r in server.engine.course_files("csc3100")}


def test_instructor_tokens_can_be_per_course(page, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_TOKENS", "ds2010=ds-only-token-3e9a")
    unlock(page, "ds-only-token-3e9a")
    page.wait_for_selector("#cr-stats:has-text('ds2010')")
    page.click("#cr-instr-course input")
    options = [o.inner_text().replace("✓", "").strip() for o in page.get_by_role("option").all()]
    assert options == ["DS2010 数据科学导论"], options


# -- file actions that cannot lose work --------------------------------------------------------

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


# Every cell of a table with text in it: inside the viewport and inside the table's own box
# (nothing cut off, nothing out of sight behind a sideways scroll), its text not clipped; and
# no header broken inside a word or over more than two lines.
TABLE_PROBLEMS_JS = """
(sel) => {
  const table = document.querySelector(sel);
  if (!table) return ['no ' + sel];
  const outer = table.getBoundingClientRect(), width = document.documentElement.clientWidth;
  const cells = [...table.querySelectorAll('th, td, [role=gridcell], [role=columnheader]')]
    .filter((c) => c.offsetParent !== null && c.innerText.trim() && !c.parentElement.closest('th, td, [role=gridcell]'));
  if (!cells.length) return ['no cells in ' + sel];
  const problems = [];
  for (const c of cells) {
    const r = c.getBoundingClientRect(), text = c.innerText.trim().slice(0, 30);
    if (r.left < Math.max(outer.left, 0) - 0.5 || r.right > Math.min(outer.right, width) + 0.5) problems.push(`out of sight: ${text}`);
    else if (c.scrollWidth > c.clientWidth + 1) problems.push(`clipped: ${text}`);
  }
  for (const h of cells.filter((c) => c.matches('th, [role=columnheader]'))) {
    const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT), tops = new Set();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const lines = (a, b) => { const r = document.createRange(); r.setStart(n, a); r.setEnd(n, b);
        return new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))); };
      lines(0, n.nodeValue.length).forEach((t) => tops.add(t));
      for (const m of n.nodeValue.matchAll(/[A-Za-z]+/g)) {
        if (lines(m.index, m.index + m[0].length).size > 1) problems.push(`header word broken: ${m[0]}`);
      }
    }
    if (tops.size > 2) problems.push(`header over ${tops.size} lines: ${h.innerText.trim()}`);
  }
  return problems;
}
"""


@pytest.mark.parametrize(("width", "locale"), [(1366, "en-US"), (1366, "zh-CN"), (420, "en-US"), (360, "zh-CN")])
def test_the_content_gaps_and_files_tables_are_readable_at_every_width(browser, server, instructor, width, locale):
    """Issue 43, item 9: the gaps table's headers wrapped a letter per line and its files were
    cut at 1366 px; at 420 px only its question column showed, and the files table scrolled
    sideways. Each is readable in place at every width (a phone stacks each row's cells)."""
    from courserag.instructor.feedback import FeedbackLog

    log = FeedbackLog(server.data)
    cites = [
        {"n": 1, "source": "lectures/week03_hashing.pdf", "locator": "page 2", "origin": "course"},
        {"n": 2, "source": "syllabus.md", "locator": "Late policy", "origin": "course"},
    ]
    question = f"Does the hashing lecture say how open addressing handles deletions with tombstones? ({width} {locale})"
    record = log.record_vote(
        question=question, answer="Tombstones mark deleted slots [1] [2].", citations=cites, course_id="csc3100",
        vote="down", comment="It never says when the table is rebuilt.",
    )  # fmt: skip
    log.mark_wrong(record)
    context, page = open_app(browser, server, width=width, height=800, locale=locale)
    try:
        unlock(page)
        page.wait_for_selector(f"#cr-gaps-table:has-text('({width} {locale})')")
        page.wait_for_selector("#cr-files-table:has-text('syllabus.md')")
        settle(page)
        for table in ("#cr-gaps-table", "#cr-files-table"):
            assert page.evaluate(TABLE_PROBLEMS_JS, table) == [], table
        gaps = page.inner_text("#cr-gaps-table")
        assert "week03_hashing.pdf" in gaps and "rebuilt" in gaps
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    finally:
        context.close()
        log.resolve_gap("csc3100", question)
