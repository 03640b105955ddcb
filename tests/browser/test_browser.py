"""The app in a real browser (Playwright + Debian's Chromium), as learners and instructors use it.

One app serves the module (in a thread, over private copies of the built sample data and of
the course folders and course list, so instructor edits touch nothing in the repository, and
the tests can look at the engine's session pools and at DATA_DIR). Each test opens its own
browser context, which is a separate Gradio session. Indexing goes through a Gate
(tests/browser_support.py), so "while a file is being indexed" and "while the course is
rebuilt" are states a test waits for, never a race. Screenshots of the main screens are saved
(see SHOTS in tests/browser_app.py).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import (
    CHROMIUM,
    TIMEOUT_MS,
    TOKEN,
    line_count,
    new_lines,
    open_app,
    screenshot,
    select_course,
    unlock,
)
from tests.browser_support import (
    DEJAVU,
    ask,
    axe_violations,
    bot_messages,
    choose_scope,
    citations,
    close_source,
    docx,
    docx_with_equation_and_image,
    duplicate_ids,
    open_source,
    pdf,
    upload,
    wait_for_answer,
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
def test_pdf_and_docx_uploads_are_cited_with_the_right_place_and_removed(page, tmp_path):
    notes = pdf(
        tmp_path / "protocol_notes.pdf",
        [
            "Study notes, page one. Arrays store elements contiguously in memory.",
            "The quokka protocol requires exactly seventeen handshakes before a transfer starts.",
            "Page three: linked lists trade random access for cheap insertion.",
        ],
    )
    zebra = docx(
        tmp_path / "zebra_notes.docx",
        [
            ("h1", "Zebra cache notes"),
            ("p", "The zebra cache evicts the least recently striped entry when it holds 64 entries."),
        ],
    )
    log = upload(page, notes, zebra)
    assert "✓ protocol_notes.pdf" in log and "3 pages" in log and "✓ zebra_notes.docx" in log
    assert "protocol_notes.pdf" in page.inner_text("#cr-notes") and "zebra_notes.docx" in page.inner_text("#cr-notes")

    answer = ask(page, "How many handshakes does the quokka protocol require?")
    cites = [c for c in citations(answer) if c["origin"] == "upload"]
    assert cites and cites[0]["file"] == "protocol_notes.pdf" and cites[0]["locator"] == "page 2", citations(answer)
    assert cites[0]["badge"] == "your notes" and cites[0]["href"] is None
    assert "seventeen" in answer.inner_text()

    answer = ask(page, "When does the zebra cache evict an entry?")
    assert any(c["file"] == "zebra_notes.docx" and c["origin"] == "upload" for c in citations(answer))
    screenshot(page, "uploads.png")

    page.locator("#cr-notes .cr-remove-file[data-name='protocol_notes.pdf']").click()
    page.wait_for_function("!document.querySelector('#cr-notes')?.innerText.includes('protocol_notes.pdf')")
    assert "zebra_notes.docx" in page.inner_text("#cr-notes")
    choose_scope(page, "My notes")
    answer = ask(page, "How many handshakes does the quokka protocol require?")
    assert all(c["file"] != "protocol_notes.pdf" for c in citations(answer))
    assert "seventeen" not in answer.inner_text()


def test_two_browser_sessions_never_see_each_other(browser, server, tmp_path):
    (tmp_path / "alice_secret.md").write_text(
        "# Alice's notes\n\nThe pangolin heap keeps nineteen levels of scaly buckets.\n", encoding="utf-8"
    )
    alice_ctx, alice = open_app(browser, server)
    bob_ctx, bob = open_app(browser, server)
    try:
        upload(alice, tmp_path / "alice_secret.md")
        alice.fill("#cr-question textarea", "How many levels does the pangolin heap keep?")
        bob.fill("#cr-question textarea", "What is the late policy for homework?")
        alice.press("#cr-question textarea", "Enter")
        bob.press("#cr-question textarea", "Enter")
        for pg in (alice, bob):
            pg.wait_for_function("document.querySelector('#cr-chat [data-testid=\"bot\"] .cr-sources') !== null")
        assert any(c["origin"] == "upload" for c in citations(bot_messages(alice).last))
        assert "pangolin" not in bob.inner_text("#cr-chat") and "late" in bob.inner_text("#cr-chat").lower()
        assert "late policy" not in alice.inner_text("#cr-chat").lower()
        assert "alice_secret.md" not in bob.inner_text("#cr-notes")

        choose_scope(bob, "My notes")
        answer = ask(bob, "How many levels does the pangolin heap keep?")
        assert citations(answer) == [] and "nineteen" not in answer.inner_text()
        choose_scope(bob, "Course materials + my notes")
        answer = ask(bob, "How many levels does the pangolin heap keep?")
        assert all(c["origin"] == "course" for c in citations(answer))
        assert "nineteen" not in bob.inner_text("#cr-chat")
    finally:
        bob_ctx.close()
        alice_ctx.close()


def test_closing_the_tab_releases_the_session_uploads(browser, server, tmp_path):
    (tmp_path / "tab_notes.txt").write_text("The tapir tree rotates left twice.\n", encoding="utf-8")
    sessions = server.engine.sessions
    before = set(sessions._pools)
    context, page = open_app(browser, server)
    upload(page, tmp_path / "tab_notes.txt")
    [sid] = set(sessions._pools) - before
    assert [f.name for f in server.engine.uploads(sid)] == ["tab_notes.txt"]
    context.close()
    deadline = time.monotonic() + TIMEOUT_MS / 1000  # a condition, polled: on a busy machine the unload comes late
    while sessions.peek(sid) is not None and time.monotonic() < deadline:
        time.sleep(0.25)
    assert sessions.peek(sid) is None, "the upload pool outlived its browser tab"


def test_a_bad_file_shows_its_error_and_the_session_keeps_working(page, tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(os.urandom(4096))
    good = tmp_path / "good_notes.md"
    good.write_text("# Notes\n\nThe ocelot queue serves the oldest whisker first.\n", encoding="utf-8")
    log = upload(page, bad, good)
    failed = page.locator("#cr-upload-log .cr-fail").inner_text()
    assert failed.startswith("✗ broken.pdf") and len(failed) > len("✗ broken.pdf: ")
    assert "✓ good_notes.md" in log
    assert "broken.pdf" not in page.inner_text("#cr-notes")
    answer = ask(page, "Which element does the ocelot queue serve first?")
    assert any(c["file"] == "good_notes.md" for c in citations(answer))
    answer = ask(page, "What is the late policy for homework?")
    assert any(c["origin"] == "course" for c in citations(answer))  # the course is still answered


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
def test_interface_follows_the_browser_language_and_the_switch(browser, server):
    context, page = open_app(browser, server, locale="zh-CN")
    try:
        page.wait_for_selector("#cr-send:has-text('发送')")
        assert "课程学习助手" in page.inner_text(".cr-header")
        assert "课程资料 + 我的笔记" in page.inner_text("#cr-scope")
        assert "授课语言" in page.inner_text("#cr-course-card") and "还没有上传笔记" in page.inner_text("#cr-notes")
        select_course(page, "DS2010 数据科学导论")
        answer = ask(page, "期中考试在什么时间、什么地点？")
        assert citations(answer) and "课程资料" in answer.locator(".cr-badge").first.inner_text()
        open_source(page, answer, 1)
        screenshot(page, "chat_zh.png")
        close_source(page)
        page.locator("#cr-lang").get_by_text("English").click()
        page.wait_for_selector("#cr-send:has-text('Send')")
        assert "Taught in Chinese" in page.inner_text("#cr-course-card")
        assert "Course materials + my notes" in page.inner_text("#cr-scope")
    finally:
        context.close()


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


# -- indexing, rebuilds, citations, language, feedback and layout, as learners meet them (issue 12) --


def test_a_question_asked_while_a_file_is_indexing_says_so_and_is_no_content_gap(page, server, tmp_path):
    refused_log = server.data / "refused_questions.jsonl"
    before = line_count(refused_log)
    pages = [f"Page {i}. The wombatium alloy melts at exactly 1234 kelvin, say the lab notes." for i in range(1, 13)]
    notes = pdf(tmp_path / "alloy_notes.pdf", pages)
    server.gate.arm("wombatium", threads=["upload"])
    try:
        page.set_input_files("#cr-upload input[type=file]", [str(notes)])
        page.wait_for_selector("#cr-notes .cr-pending:has-text('alloy_notes.pdf')")
        assert "indexing" in page.inner_text("#cr-notes .cr-pending") or "reading" in page.inner_text(
            "#cr-notes .cr-pending"
        )
        question = "At what temperature does the wombatium alloy melt?"
        answer = ask(page, question)
        shown = answer.inner_text()
        assert "⏳" in shown and "alloy_notes.pdf" in shown and "not searched" in shown
        assert "1234" not in shown and all(c["file"] != "alloy_notes.pdf" for c in citations(answer))
        assert "upload the notes" not in shown.lower()  # no advice to upload what is being uploaded
    finally:
        server.gate.release()
    wait_ready(page, "alloy_notes.pdf")
    assert question not in json.dumps(new_lines(refused_log, before), ensure_ascii=False)
    answer = ask(page, question)
    assert any(c["file"] == "alloy_notes.pdf" for c in citations(answer)) and "1234" in answer.inner_text()


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


def test_upload_progress_counts_pages_in_one_bar(page, server, tmp_path):
    pages = [f"Page {n}: the numbat ledger records entry {n} of the burrow census." for n in range(1, 41)]
    notes = pdf(tmp_path / "numbat_ledger.pdf", pages)
    server.gate.arm("numbat", threads=["upload"], after=1)  # hold after the first slice of passages
    try:
        page.set_input_files("#cr-upload input[type=file]", [str(notes)])
        page.wait_for_function(
            "() => { const m = /(\\d+) of 40 pages/.exec(document.querySelector('#cr-notes .cr-pending')?.innerText || '');"
            " return m && +m[1] > 0 && +m[1] < 40; }"
        )
        bar = page.locator("#cr-notes progress")
        assert bar.count() == 1 and 0 < int(bar.get_attribute("value")) < int(bar.get_attribute("max")) == 40
        overlays = page.locator("#cr-sidebar [data-testid='status-tracker']:not(.hide)")
        assert overlays.count() == 0, "Gradio's progress overlay is drawn over the sidebar"
        assert "0.0%" not in page.inner_text("#cr-sidebar")
    finally:
        server.gate.release()
    wait_ready(page, "numbat_ledger.pdf")
    assert "✓ numbat_ledger.pdf: 40 pages read" in page.inner_text("#cr-upload-log")


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


def test_the_chinese_interface_is_chinese_throughout(browser, server, tmp_path, instructor):
    context, page = open_app(browser, server, locale="zh-CN")
    try:
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        assert "点击上传" in page.inner_text("#cr-upload")  # Gradio's own dropzone words
        bad = tmp_path / "损坏.pdf"
        bad.write_bytes(os.urandom(2048))
        upload(page, bad)
        error = page.inner_text("#cr-upload-log .cr-fail")
        assert "损坏.pdf：" in error and not re.search(r"[A-Za-z]{4,}", error.replace("PDF", "")), error
        select_course(page, "DS2010 数据科学导论")
        answer = ask(page, "岭回归和 Lasso 有什么区别？")
        locators = [c["locator"] for c in citations(answer)]
        assert locators and not any(re.match(r"(page|slide|lines?|cells?|paragraphs?) \d", loc) for loc in locators), (
            locators
        )
        answer = ask(page, "线性回归的损失函数是什么？")
        pages = [c["locator"] for c in citations(answer) if c["file"].endswith(".pdf")]
        assert pages and all(re.fullmatch(r"第 \d+ 页", loc) for loc in pages), citations(answer)
        answer = ask(page, "火星上的咖啡馆几点开门？")
        hint = answer.inner_text()
        assert "换个说法" in hint and "课程资料 + 我的笔记" not in hint  # "both" was already searched

        unlock(page)
        page.wait_for_selector("#cr-instr-status:has-text('已解锁')")
        page.wait_for_selector("#cr-stats:has-text('已索引')")
        panel = page.inner_text("#cr-instr-panel")
        for english in (
            "Unlocked",
            "passages indexed",
            "Store in use",
            "times cited",
            "Index statistics",
            "Update index",
        ):
            assert english not in panel and english not in page.inner_text("#cr-instr-status"), english
        assert "文件" in page.inner_text("#cr-files-table") and "段落" in page.inner_text("#cr-files-table")
        page.click("#cr-build")
        page.wait_for_selector("#cr-build-summary:has-text('共 8 个文件')")

        page.get_by_role("tab", name="学习").click()
        page.locator("#cr-lang").get_by_text("English").click()
        page.wait_for_function("document.documentElement.lang === 'en'")
        page.wait_for_selector("#cr-upload:has-text('Click to Upload')")
    finally:
        context.close()


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
    rows = [r.locator("[role=gridcell]").all_inner_texts() for r in page.locator("#cr-gaps-table .virtual-row").all()]
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


@pytest.mark.screenshots
def test_narrow_screens_put_the_chat_first_and_ids_are_unique(browser, server):
    context, page = open_app(browser, server, width=420, height=820)
    try:
        title_lines = page.evaluate(
            """() => { const h = document.querySelector('.cr-header h1'); const r = document.createRange();
                const node = [...h.childNodes].find(n => n.textContent.includes('Assistant'));
                const start = node.textContent.indexOf('Assistant'); r.setStart(node, start); r.setEnd(node, start + 9);
                return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"""
        )
        assert title_lines == 1, "the title breaks inside a word"
        chat = page.locator("#cr-chat").bounding_box()
        assert chat["y"] < 400, chat
        assert not page.locator("#cr-course").is_visible()
        toggle = page.locator("#cr-sidebar-toggle")
        assert toggle.get_attribute("aria-expanded") == "false"
        toggle.click()
        page.wait_for_selector("#cr-course", state="visible")
        assert toggle.get_attribute("aria-expanded") == "true"
        assert page.locator("#cr-course").bounding_box()["y"] >= -1  # opened at the top of the page (issue 21)
        answer = ask(page, "What is the late policy for homework?")
        screenshot(page, "narrow.png")
        assert duplicate_ids(page) == []
        open_source(page, answer, 1)
        screenshot(page, "narrow_source_panel.png", full_page=False)
    finally:
        context.close()


@pytest.mark.parametrize("width", [1366, 420])
@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_accessibility_scan_finds_nothing_serious(browser, server, instructor, width, locale):
    context, page = open_app(browser, server, width=width, height=900, locale=locale)
    try:
        if width < 768:
            page.click("#cr-sidebar-toggle")
        answer = ask(page, "What is the late policy for homework?" if locale == "en-US" else "作业迟交怎么办？")
        if citations(answer):
            open_source(page, answer, int(citations(answer)[0]["n"]))
            assert axe_violations(page) == [], "study tab with the source panel open"
            close_source(page)
        assert axe_violations(page) == [], "study tab"
        unlock(page)
        page.wait_for_selector("#cr-stats:has-text('csc3100')")
        assert axe_violations(page) == [], "instructor tab"
        assert duplicate_ids(page) == []
    finally:
        context.close()


def test_a_reload_keeps_the_conversation_and_notes_or_says_they_were_cleared(browser, server, tmp_path):
    notes = tmp_path / "dingo_notes.md"
    notes.write_text("# Dingo\n\nThe dingo scheduler runs every 11 minutes.\n", encoding="utf-8")
    sessions = server.engine.sessions
    before = set(sessions._pools)
    context, page = open_app(browser, server)
    try:
        upload(page, notes)
        [sid] = set(sessions._pools) - before
        ask(page, "How often does the dingo scheduler run?")
        page.wait_for_function(
            "document.querySelector('#cr-saved textarea, #cr-saved input')?.value === '1 turns, 1 files'"
        )
        page.reload()
        page.wait_for_selector("#cr-session-note:has-text('Welcome back')")
        assert "How often does the dingo scheduler run?" in page.inner_text("#cr-chat")
        assert "dingo_notes.md" in page.inner_text("#cr-notes") and [f.name for f in server.engine.uploads(sid)] == [
            "dingo_notes.md"
        ]
        answer = bot_messages(page).last
        assert citations(answer) and "11 minutes" in answer.inner_text()
        answer = ask(page, "And what does the dingo scheduler do every 11 minutes?")  # the session still works
        assert any(c["file"] == "dingo_notes.md" for c in citations(answer))

        server.engine.end_session(sid)  # as after SESSION_IDLE_MINUTES, or a server restart
        page.reload()
        page.wait_for_selector("#cr-session-note:has-text('were cleared')")
        assert "dingo_notes.md" in page.inner_text("#cr-session-note")
        assert "dingo_notes.md" not in page.inner_text("#cr-notes")
    finally:
        context.close()


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


def test_dropped_images_are_named_and_equations_kept(page, tmp_path):
    log = upload(page, docx_with_equation_and_image(tmp_path / "capybara_physics.docx"))
    assert "✓ capybara_physics.docx" in log
    assert "1 image was left out" in log and "equation" not in log  # issue 21.7: equations are read


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
