"""Small display rules of the study tab, each as a learner meets it in the browser: citation
numbers start at [1], a too-long question is a clear warning that keeps the text, "My notes"
without notes says nothing was searched, a notebook's Markdown cell opens as prose (issue 21,
point 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

import docgen
from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM
from tests.browser_support import ask, bot_messages, choose_scope, citations, open_source, settle, upload, wait_ready

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)

QUESTIONS = [
    "What is the late policy for homework?",
    "What is the default maximum load factor before rehashing?",
    "Why is merge sort stable?",
    "When is the midterm exam and what does it cover?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_cited_sources_are_numbered_from_1_and_the_consulted_ones_follow(page, question):
    answer = ask(page, question)
    cites = citations(answer)
    # text_content: the consulted sources sit in a closed <details>, where inner_text is empty
    numbers = [int(n.strip("[]")) for n in answer.locator(".cr-cite .cr-n").all_text_contents()]
    cited = [n for n, c in zip(numbers, cites) if c["cited"]]
    assert cites and cited, cites
    assert numbers == list(range(1, len(numbers) + 1)), cites  # never [2] first with [1] folded away
    assert cited == list(range(1, len(cited) + 1)), cites


def test_a_question_over_the_length_limit_is_a_warning_that_keeps_the_text(page):
    question = ("How does a hash table resize when its load factor grows? " * 80)[:4425]
    before = bot_messages(page).count()
    page.fill("#cr-question textarea", question)
    page.press("#cr-question textarea", "Enter")
    shown = page.locator(".toast-body", has_text="4425 characters long").first
    shown.wait_for()
    toast = shown.text_content()  # read at once: a toast closes itself
    settle(page)
    assert "shorten it to 2000 or fewer" in toast and "Something went wrong" not in toast, toast
    assert page.input_value("#cr-question textarea") == question  # kept, to be shortened
    assert bot_messages(page).count() == before
    assert page.locator("#cr-chat button[aria-label='Like'], #cr-chat button[aria-label='Dislike']").count() == 0


def test_my_notes_without_notes_says_nothing_was_searched(page):
    choose_scope(page, "My notes")
    answer = ask(page, "What is the late policy for homework?").inner_text()
    assert "not uploaded any notes" in answer and "this course's materials" not in answer, answer


def test_a_notebooks_markdown_cell_opens_as_prose(page, tmp_path):
    cells = [
        {
            "markdown": "# Wombat heaps\n\nA wombat heap keeps the smallest burrow at its root, so the next burrow is found first."
        },
        {"code": "import heapq\nburrows = [5, 2, 9]\nheapq.heapify(burrows)\nprint(burrows[0])"},
    ]
    upload(page, docgen.write(tmp_path, "wombat_heaps.ipynb", docgen.notebook_bytes(cells)))
    wait_ready(page, "wombat_heaps.ipynb")
    choose_scope(page, "My notes")
    answer = ask(page, "What does a wombat heap keep at its root?")
    cited = [c for c in citations(answer) if c["file"] == "wombat_heaps.ipynb"]
    assert cited, citations(answer)
    open_source(page, answer, int(cited[0]["n"]))
    body = page.locator("#cr-sp-body")
    assert "smallest burrow" in body.inner_text()
    assert "cr-code" not in (body.get_attribute("class") or "")
    font = body.locator(".cr-para").first.evaluate("(e) => getComputedStyle(e).fontFamily")
    assert "mono" not in font.lower(), font
