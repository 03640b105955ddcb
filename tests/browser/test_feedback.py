"""Feedback and content gaps in a real browser: a 👎 and its comment written to DATA_DIR, the
feedback box beside the answer it rates (with the example chips that send a question and the
one-click removal of a note on the same page), and what the instructor sees of it: a 👎 charged
only to the files its answer cited, a refused question asked twice grouped into one gap, and
the gap resolved.

One app serves the module (tests/browser_app.py: in a thread, over private copies of the built
sample data, the course folders and the course list); each test opens its own browser
context, a separate Gradio session.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM, line_count, new_lines, open_app, screenshot, unlock
from tests.browser_support import ask, bot_messages, citations, upload, wait_for_answer, wait_ready

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)


def test_feedback_is_written_to_data_dir(page, server):
    feedback_file = server.data / "feedback.jsonl"
    before = line_count(feedback_file)
    answer = ask(page, "Why is merge sort stable?")
    assert citations(answer)
    page.locator("#cr-chat button[aria-label='Dislike']").last.click()
    page.wait_for_selector("#cr-feedback-note:has-text('What was wrong')")
    page.fill("#cr-comment textarea, #cr-comment input", "It should mention equal keys keep their order.")
    page.click("#cr-comment-send")
    page.wait_for_selector("#cr-feedback-note:has-text('comment was saved')")
    lines = new_lines(feedback_file, before)
    assert [r["vote"] for r in lines] == ["down", "down"] and lines[0]["id"] == lines[1]["id"]
    record = lines[-1]
    assert record["question"] == "Why is merge sort stable?" and record["course"] == "csc3100"
    assert record["comment"] == "It should mention equal keys keep their order."
    assert record["citations"] and all(set(c) == {"n", "source", "locator", "origin"} for c in record["citations"])


@pytest.mark.screenshots
def test_feedback_and_gaps_are_charged_to_the_right_file_grouped_and_resolvable(page, server, tmp_path, instructor):
    from courserag.instructor.feedback import FeedbackLog

    log = FeedbackLog(server.data)
    cited_before = {row[0]: row for row in log.most_cited("csc3100", limit=100)}
    notes = tmp_path / "okapi_notes.md"
    notes.write_text("# Okapi\n\nThe okapi index stores exactly 42 stripes per bucket.\n", encoding="utf-8")
    upload(page, notes)
    question = "How many stripes per bucket does the okapi index store?"
    answer = ask(page, question)
    assert any(c["file"] == "okapi_notes.md" and c["cited"] for c in citations(answer))
    page.locator("#cr-chat button[aria-label='Dislike']").last.click()
    page.wait_for_selector("#cr-feedback-note:has-text('What was wrong')")
    cited_after = {row[0]: row for row in log.most_cited("csc3100", limit=100)}
    for source, row in cited_after.items():  # no course file was charged the 👎 on the notes' answer
        assert row[3] == cited_before.get(source, (source, 0, 0, 0))[3], source

    for wording in ("Is there a field trip to the zoo?", "is there a field trip to the zoo"):
        ask(page, wording)
    unlock(page)
    page.wait_for_selector("#cr-gaps-table:has-text('field trip')")
    rows = [r.locator("td").all_inner_texts() for r in page.locator("#cr-gaps-table tbody tr").all()]
    rows = [cells for cells in rows if "field trip" in " ".join(cells).lower()]
    assert len(rows) == 1 and rows[0][1].strip() == "2", rows
    assert question not in page.inner_text("#cr-gaps-table")  # a question about private notes is no gap
    page.click("#cr-gap-pick input")
    page.get_by_role("option", name=re.compile("field trip", re.IGNORECASE)).click()
    page.keyboard.press("Escape")
    page.click("#cr-gap-resolve")
    page.wait_for_selector("#cr-gap-note:has-text('resolved')")
    assert "field trip" not in page.inner_text("#cr-gaps-table").lower()
    screenshot(page, "instructor.png")


def test_feedback_sits_beside_its_answer_chips_send_and_removal_is_one_click(page, tmp_path):
    assert page.locator("#cr-notes .cr-remove-file").count() == 0 and not page.locator("#cr-remove-names").is_visible()
    before = bot_messages(page).count()
    page.locator("#cr-examples button", has_text="Why is merge sort stable?").click()
    answer = wait_for_answer(page, before)
    assert citations(answer) and bot_messages(page).count() == before + 1
    page.locator("#cr-chat button[aria-label='Dislike']").last.click()
    page.wait_for_selector("#cr-feedback-note:has-text('What was wrong')")
    box = page.locator("#cr-feedback-note").bounding_box()
    rated, chat = answer.bounding_box(), page.locator("#cr-chat").bounding_box()
    # The box opens right under the chat (a fixed height), with the rated answer in view
    # above it: how far below the answer it sits depends on the answer's length.
    assert chat["y"] <= rated["y"] and rated["y"] + rated["height"] <= chat["y"] + chat["height"] + 1, (rated, chat)
    assert 0 <= box["y"] - (chat["y"] + chat["height"]) < 60, (box, chat)
    assert "Why is merge sort stable?" in page.inner_text("#cr-feedback-note")

    notes = tmp_path / "emu_notes.txt"
    notes.write_text("The emu stack pops two feathers at a time.\n", encoding="utf-8")
    upload(page, notes)
    wait_ready(page, "emu_notes.txt")
    page.locator("#cr-notes .cr-remove-file[data-name='emu_notes.txt']").click()
    page.wait_for_function("!document.querySelector('#cr-notes')?.innerText.includes('emu_notes.txt')")


@pytest.mark.parametrize(
    "width, locale, question, thumb, selected",
    [
        (1366, "en-US", "Why is merge sort stable?", "Dislike", "Disliked"),
        (420, "zh-CN", "Why is merge sort stable?", "踩", "已踩"),
        (360, "en-US", "What is the late policy for homework?", "Like", "Liked"),
    ],
)
def test_a_vote_shows_selected_after_a_reload(browser, server, width, locale, question, thumb, selected):
    """Issue 43, item 7: the 👍/👎 a learner gave showed unselected after F5."""
    context, page = open_app(browser, server, width=width, height=800, locale=locale)
    try:
        ask(page, question)
        page.locator(f"#cr-chat button[aria-label='{thumb}']").last.click()
        page.wait_for_function(
            "document.querySelector('#cr-saved textarea, #cr-saved input')?.value === '1 turns, 0 files, 1 rated'"
        )
        page.reload()
        page.wait_for_selector("#cr-session-note:has-text('Welcome back'), #cr-session-note:has-text('欢迎回来')")
        page.wait_for_selector(f"#cr-chat button[aria-label='{selected}']")
        assert bot_messages(page).count() == 1
        assert page.locator(f"#cr-chat button[aria-label='{thumb}']").count() == 0  # only the other thumb is left
    finally:
        context.close()
