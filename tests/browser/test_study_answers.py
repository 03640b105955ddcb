"""Asking in the study tab, in a real browser: a cited answer on each sample course, citation
numbers from [1] with the consulted sources after them, the source panel opening the cited
passage for every format and origin (course files and uploads), passages cleaned when they are
read and links in notes inert, and the small rules a learner meets: a too-long question is a
warning that keeps the text, "My notes" without notes says nothing was searched, a notebook's
Markdown cell opens as prose (issue 21, point 6).

One app serves the module (tests/browser_app.py: in a thread, over private copies of the built
sample data, the course folders and the course list); each test opens its own browser
context, a separate Gradio session.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import docgen
from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM, open_app, screenshot, select_course
from tests.browser_support import (
    DEJAVU,
    ask,
    bot_messages,
    choose_scope,
    citations,
    close_source,
    docx,
    open_source,
    pdf,
    settle,
    sidebar,
    upload,
    wait_ready,
)

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)


@pytest.mark.screenshots
def test_each_sample_course_gives_a_cited_answer(page):
    answer = ask(page, "What is the late policy for homework?")
    cites = citations(answer)
    assert cites and cites[0]["origin"] == "course" and cites[0]["badge"] == "course material"
    assert re.search(r"\[\d+\]", answer.inner_text())
    # The cited file (the syllabus, or the homework sheet that restates its policy) opens.
    href, file = cites[0]["href"], cites[0]["file"]
    assert href and href.startswith(f"course-file/csc3100/{file}")
    response = page.request.get(page.url + href.split("#")[0])
    assert response.status == 200 and "late" in response.text().lower()
    screenshot(page, "chat_cited_answer.png")

    answer = ask(page, "What is the default maximum load factor before rehashing?")
    found = [c for c in citations(answer) if c["file"].endswith("week03_hashing.pdf")]
    assert found, citations(answer)
    page_number = re.fullmatch(r"page (\d+)", found[0]["locator"]).group(1)
    assert found[0]["href"].endswith(f"week03_hashing.pdf#page={page_number}")
    response = page.request.get(page.url + found[0]["href"].split("#")[0])
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"

    select_course(page, "DS2010 数据科学导论")
    assert "DS2010" in page.inner_text("#cr-course-status")
    assert "迟交作业怎么扣分？" in page.inner_text("#cr-examples")
    answer = ask(page, "迟交作业怎么扣分？")
    cites = citations(answer)
    assert cites and all(c["origin"] == "course" for c in cites)
    assert "迟交" in answer.inner_text(), cites  # the late rule, from the syllabus or a sheet restating it


@pytest.mark.screenshots
def test_citations_open_the_cited_passage_for_every_format_and_origin(page, server, tmp_path):
    # A course PDF: [n] opens the panel; the passage is highlighted; the original opens at the page.
    answer = ask(page, "What is the default maximum load factor before rehashing?")
    cites = citations(answer)
    hashing = next(c for c in cites if c["file"].endswith("week03_hashing.pdf") and c["cited"])
    panel = open_source(page, answer, int(hashing["n"]))
    assert "week03_hashing.pdf" in panel.locator("#cr-sp-title").inner_text()
    assert re.match(r"page \d+", panel.locator("#cr-sp-meta").inner_text())  # no "·" before it
    assert panel.locator("mark").count() >= 1
    original = panel.locator("a#cr-sp-original")
    assert re.search(r"#page=\d+$", original.get_attribute("href"))
    screenshot(page, "source_panel.png")
    close_source(page)
    # Only what the answer cites is listed; what was merely consulted is folded away.
    numbers = set(re.findall(r"\[(\d+)\]", answer.locator(".md").first.inner_text().split("📚")[0]))
    assert {c["n"] for c in cites if c["cited"]} == numbers
    if any(not c["cited"] for c in cites):
        assert answer.locator("details.cr-consulted").get_attribute("open") is None

    # Text files: each chunk cites its own lines, and the original opens at them.
    answer = ask(page, "In which room is the midterm exam held?")
    notice = next(c for c in citations(answer) if c["file"] == "announcements.txt")
    first, last = map(int, re.fullmatch(r"lines (\d+)–(\d+)", notice["locator"]).groups())
    assert first > 1 and first <= 16 <= last, notice  # the midterm notice starts on line 14
    view = page.request.get(page.url + notice["href"].split("#")[0])
    assert view.status == 200 and "LH-1" in view.text() and 'class="line hl"' in view.text()

    # An upload: the passage opens the same way, with no link (the file is not kept).
    notes = docx(
        tmp_path / "axolotl_notes.docx",
        [
            ("h1", "Axolotl sorting"),
            ("p", "Axolotl sort swaps neighbours until the gills line up. It runs in quadratic time."),
        ],
    )
    upload(page, notes)
    answer = ask(page, "How does axolotl sort work?")
    mine = next(c for c in citations(answer) if c["file"] == "axolotl_notes.docx")
    panel = open_source(page, answer, int(mine["n"]))
    assert "gills line up" in panel.locator("#cr-sp-body").inner_text()
    assert panel.locator("a#cr-sp-original").count() == 0 and "not kept" in panel.locator("#cr-sp-foot").inner_text()
    close_source(page)

    # Every course format opens: PDF inline, text and Markdown as highlighted lines in their
    # real encoding, notebooks by cell, Word and PowerPoint as a download.
    base = page.url + "course-file/"
    gbk = page.request.get(base + "ds2010/%E9%80%9A%E7%9F%A5_gbk.txt?lines=1-3")
    assert gbk.status == 200 and "期中考试" in gbk.text() and "charset=utf-8" in gbk.headers["content-type"]
    heading = page.request.get(
        base
        + "csc3100/syllabus.md?heading="
        + "CSC3100%20Data%20Structures%20%E2%80%94%20Syllabus%20%28Fall%202026%29%20%3E%20Late%20policy"
    )
    assert heading.status == 200 and 'class="line hl"' in heading.text()
    notebook = page.request.get(base + "csc3100/notebooks/sorting_lab.ipynb?cell=2")
    assert notebook.status == 200 and 'id="cell-2"' in notebook.text()
    deck = page.request.get(base + "csc3100/slides/week07_graphs.pptx")
    assert deck.status == 200 and "attachment" in deck.headers["content-disposition"]
    for forbidden in ("csc3100/../../course_directory.yaml", "csc3100/.hidden.md", "nope/syllabus.md"):
        assert page.request.get(base + forbidden).status == 404


def test_passages_are_cleaned_at_parse_time_and_links_in_notes_stay_inert(page, tmp_path):
    ligature = "\ufb01" if DEJAVU.exists() else "fi"  # the core PDF font cannot draw "ﬁ"
    header = "Kangaroo Systems - internal handbook"
    pages = [
        f"{header}\nThe jerboa proto-\ncol requires exactly nine acknowledgements for each de{ligature}nition it sends.",
        f"{header}\nPage two is about something else entirely: quolls and their burrows.",
        f"{header}\nPage three lists the glossary of marsupial networking terms.",
    ]
    notes = pdf(tmp_path / "jerboa_handbook.pdf", pages, font=DEJAVU if DEJAVU.exists() else None)
    link_notes = tmp_path / "wallaby_links.md"
    link_notes.write_text(
        "# Wallaby links\n\nThe wallaby index is rebuilt nightly; see [the portal](https://evil.example/steal) "
        "or https://evil.example/raw and ![x](https://evil.example/pixel.png) for details.\n",
        encoding="utf-8",
    )
    upload(page, notes, link_notes)
    answer = ask(page, "How many acknowledgements does the jerboa protocol require?")
    mine = next(c for c in citations(answer) if c["file"] == "jerboa_handbook.pdf")
    text = open_source(page, answer, int(mine["n"])).locator("#cr-sp-body").inner_text()
    assert "protocol requires" in text and "proto-" not in text and "definition" in text
    assert header not in text
    close_source(page)

    answer = ask(page, "When is the wallaby index rebuilt?")
    assert any(c["file"] == "wallaby_links.md" for c in citations(answer))
    assert answer.locator("a[href*='evil.example'], img[src*='evil.example']").count() == 0


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


@pytest.mark.parametrize(
    "question, said",
    [
        ("What is CSC3200?", "CSC3200"),  # a former code in the sample catalog
        ("What is CSC9999?", "CSC9999"),  # a code of the course's shape that exists nowhere
        ("CSC3020 是什么课？", "CSC3020"),  # a cross-listed code, asked in Chinese
    ],
)
def test_a_code_nothing_answers_is_refused_with_its_reason_not_an_error(page, question, said):
    answer = ask(page, question).inner_text()
    assert "Something went wrong" not in answer and "出错了" not in answer, answer
    assert said in answer, answer


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


def test_original_opens_a_markdown_file_with_the_cited_lines_below_its_header(page):
    """Issue 43, item 12: the file page scrolled to the cited lines, but its sticky header
    hid the first two of them (the section's heading)."""
    answer = ask(page, "What is the late policy for homework?")
    cite = next(c for c in citations(answer) if c["file"] == "syllabus.md" and c["href"])
    page.set_viewport_size({"width": 1366, "height": 500})  # the file runs far below the fold
    page.goto(page.url.split("?")[0].rstrip("/") + "/" + cite["href"])
    page.wait_for_selector(".line.hl")
    page.wait_for_function("() => window.scrollY > 0")  # scrolled to the cited lines
    settle(page)
    header = page.locator("header").bounding_box()
    first = page.locator(".line.hl").first.bounding_box()
    assert first["y"] >= header["y"] + header["height"] - 0.5, ("the header hides the cited lines", first, header)
    assert first["y"] + first["height"] <= page.viewport_size["height"], first


# -- issue 43: the source panel's tables and sentences, quotes shown as written ----------------


@pytest.mark.parametrize("width, locale", [(1366, "en-US"), (420, "zh-CN")])
def test_a_markdown_table_opens_as_a_table_and_the_highlight_runs_past_an_abbreviation(browser, server, width, locale):
    """Issue 43, item 4: the panel showed a table's raw pipes and "|------|" row, and its
    highlight stopped at "…go to Dr." (an abbreviation taken for a sentence's end)."""
    context, page = open_app(browser, server, width=width, height=800, locale=locale)
    try:
        # The cited section holds the teaching assistants' table and "…go to Dr. Marsh. Please…".
        answer = ask(page, "Who do questions about exams and extensions go to?")
        cited = next(c for c in citations(answer) if c["file"] == "syllabus.md" and c["cited"])
        panel = open_source(page, answer, int(cited["n"]))
        body = panel.locator("#cr-sp-body")
        marked = " ".join(body.locator("mark").all_inner_texts())
        assert "go to Dr. Marsh." in marked, marked
        assert "|---" not in body.inner_text() and "| Name |" not in body.inner_text(), body.inner_text()
        table = body.locator("table").first
        assert table.is_visible() and table.locator("th").first.inner_text() == "Name", body.inner_html()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # no page-wide scroll
    finally:
        context.close()


SCOPE_NOTES = {"en-US": "My notes", "zh-CN": "我的笔记"}
PATCH_MAP = "55:text/x-diff:*.patch 50:text/x-diff:*.diff"


@pytest.mark.parametrize("width, locale", [(1366, "en-US"), (360, "zh-CN")])
def test_text_quoted_from_notes_is_shown_as_written_never_as_markdown(browser, server, tmp_path, width, locale):
    """Issue 43, item 5: a quote holding "*.patch … *.diff" showed italics, its asterisks eaten."""
    notes = tmp_path / "quokka_mime.txt"
    notes.write_text(
        f"The quokka mime map lists {PATCH_MAP} for patches.\n\n"
        "The quokka heading rule: # is not a heading and 1. is not a list here.\n",
        encoding="utf-8",
    )
    context, page = open_app(browser, server, width=width, height=800, locale=locale)
    try:
        with sidebar(page):
            upload(page, notes)
            wait_ready(page, notes.name)
            choose_scope(page, SCOPE_NOTES[locale])
        answer = ask(page, "What does the quokka mime map list for patches?")
        words = answer.locator(".cr-md")
        assert PATCH_MAP in words.inner_text(), words.inner_text()
        assert words.locator("em, strong em, h1, h2, ol").count() == 0, words.inner_html()
    finally:
        context.close()
