"""The UI's pure parts: locators in both languages, cited vs consulted sources, highlighted
passages, inert links, the notes table with progress, what a reload restores, the course-file
URLs, and that every interface text has a Chinese version."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from courserag.answers.cited import cited_numbers, split_cited
from courserag.i18n.locators import say_locator
from courserag.i18n.ui_texts import t
from courserag.ingest.progress import PendingUpload
from courserag.ui.files import file_url, heading_lines, resolve
from courserag.ui.rendering.render import format_reply, inert_links, render_citations, render_notes
from courserag.ui.rendering.sources import highlight, paragraphs
from courserag.ui.study.persist import restore, snapshot
from courserag.ui.study.turns import ChatTurn

PROJECT_ROOT = Path(__file__).resolve().parents[3]
DOCS = {"csc3100": PROJECT_ROOT / "courses" / "csc3100", "ds2010": PROJECT_ROOT / "courses" / "ds2010"}


@pytest.mark.parametrize(
    ("locator", "en", "zh"),
    [
        ("page 3", "page 3", "第 3 页"),
        ("slide 6", "slide 6", "第 6 张幻灯片"),
        ("cell 4", "cell 4", "第 4 个单元格"),
        ("lines 10-42", "lines 10–42", "第 10–42 行"),
        ("lines 7-7", "line 7", "第 7 行"),
        ("paragraphs 1-3", "paragraphs 1–3", "第 1–3 段"),
        ("Week 5 > AVL rotations", "Week 5 › AVL rotations", "Week 5 › AVL rotations"),
        ("CSC3100 Data Structures — Syllabus (Fall 2026) > Late policy", "… › Late policy", "… › Late policy"),
        (
            "Course handbook for students > Policies > Late work > Exceptions",
            "… › Late work › Exceptions",
            "… › Late work › Exceptions",
        ),
    ],
)
def test_locators_are_said_short_and_in_the_ui_language(locator, en, zh):
    assert say_locator(locator, "en") == en
    assert say_locator(locator, "zh") == zh


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Late work loses 10% [1]. Exams excluded [2][3].", [1, 2, 3]),
        ("See [2, 1] and 【3】 and [1、4]", [2, 1, 3, 4]),
        ("No markers at all.", []),
        ("An array a[i] is not a marker, [12] is.", [12]),
    ],
)
def test_cited_numbers(text, numbers):
    assert cited_numbers(text) == numbers


CITES = [
    {
        "n": 1,
        "source": "mine.txt",
        "locator": "lines 1-3",
        "origin": "upload",
        "course_id": None,
        "text": "The okapi index stores exactly 42 stripes per bucket.\nIt was invented in 2019.",
    },
    {
        "n": 2,
        "source": "syllabus.md",
        "locator": "Late policy",
        "origin": "course",
        "course_id": "csc3100",
        "text": "A late submission loses 10% per day.",
    },
    {
        "n": 3,
        "source": "lectures/week03_hashing.pdf",
        "locator": "page 4",
        "origin": "course",
        "course_id": "csc3100",
        "text": "Load factor of 0.75",
        "doc_type": "pdf",
    },
]


def test_only_cited_sources_are_listed_the_rest_are_folded_away():
    cited, consulted = split_cited(CITES, "The okapi index stores 42 stripes per bucket [1].")
    assert [c["n"] for c in cited] == [1] and [c["n"] for c in consulted] == [2, 3]
    assert split_cited(CITES, "no markers") == (CITES, [])
    block = render_citations(CITES, "en", DOCS, "The okapi index stores 42 stripes per bucket [1].")
    head, folded = block.split('<details class="cr-consulted">')
    assert "mine.txt" in head and "syllabus.md" not in head
    assert (
        "Also consulted, not cited (2)" in folded and "syllabus.md" in folded and "week03_hashing.pdf#page=4" in folded
    )
    assert "\n" not in block and block.count("<a ") == 2  # course files link; the upload does not


def test_the_passage_marks_what_the_answer_drew_on():
    answer = "From the materials:\n- The okapi index stores exactly 42 stripes per bucket. [1]"
    pieces = highlight(CITES[0]["text"], answer, 1)
    assert pieces == [
        ("The okapi index stores exactly 42 stripes per bucket.", True),
        ("\nIt was invented in 2019.", False),
    ]
    assert highlight(CITES[0]["text"], answer, 2) == [(CITES[0]["text"], False)]  # [2] is not cited for it
    block = render_citations(CITES, "en", DOCS, answer)
    assert "<mark>The okapi index stores exactly 42 stripes per bucket.</mark>" in block


@pytest.mark.parametrize(
    ("text", "doc_type", "shown"),
    [
        (
            "A late submission loses 10% of the\nscore for each day.\n- Exams are excluded.",
            "pdf",
            ["A late submission loses 10% of the score for each day.", "- Exams are excluded."],
        ),
        ("数据清洗是数据\n科学的第一步。", "pdf", ["数据清洗是数据科学的第一步。"]),
        ("def f(x):\n    return x", "py", ["def f(x):", "    return x"]),
        ("Title\nBullet one\nBullet two", "pptx", ["Title", "Bullet one", "Bullet two"]),
    ],
)
def test_passages_are_shown_as_paragraphs(text, doc_type, shown):
    assert paragraphs(text, doc_type) == shown


@pytest.mark.parametrize(
    "raw",
    [
        "see [the portal](https://evil.example/x)",
        "see https://evil.example/x or www.evil.example",
        "![x](https://evil.example/p.png)",
        "[1](https://evil.example)",
        "mail someone@evil.example",
    ],
)
def test_links_from_sources_are_inert(raw):
    """Nothing Markdown (or GFM's autolinks) would turn into a link or an image is left."""
    shown = inert_links(raw)
    for live in ("](", "://", "www.", "@", "!["):
        assert live not in shown, (raw, shown)
    assert inert_links("a [1] b [2][3]") == "a [1] b [2][3]"  # source markers stay
    assert inert_links("code `[a](http://b)` stays") == "code `[a](http://b)` stays"  # code spans are literal


def test_the_refusal_hint_fits_what_was_searched():
    both = format_reply("I could not find this.", True, [], "en", DOCS, "both")
    assert "Course materials + my notes" not in both and "upload the notes" in both
    assert "Course materials + my notes" in format_reply("x", True, [], "en", DOCS, "course")
    pending = [PendingUpload("big.pdf", "indexing", 12, 118, "page")]
    shown = format_reply("I could not find this.", True, [], "zh", DOCS, "both", pending=pending)
    assert "big.pdf" in shown and "仍在建立索引" in shown and "上传" not in shown


def test_the_notes_table_shows_progress_until_a_file_is_searchable():
    from courserag.retrieval.session_pool import UploadedFile

    ready = UploadedFile("a.md", "h", "md", 3, 20, 100, (), "line")
    pending = [PendingUpload("big.pdf", "indexing", 12, 118, "page"), PendingUpload("c.docx")]
    html = render_notes([ready], "en", pending)
    assert "indexing… 12 of 118 pages" in html and 'value="12" max="118"' in html and "reading…" in html
    assert html.count("cr-remove-file") == 1 and 'data-name="a.md"' in html  # only ready files can be removed
    assert "第" not in html and "正在建立索引… 12/118 页" in render_notes([ready], "zh", pending)
    assert "No notes uploaded yet." in render_notes([], "en")


def test_a_reload_finds_its_session_by_key_and_the_id_never_leaves_the_server():
    from courserag.ui.study.sessions import SessionIndex

    released = []
    index = SessionIndex(released.append, grace_s=0)
    sid = "b" * 32
    key = index.reload_key(sid)
    assert key != sid and index.reload_key(sid) == key and index.adopt(key) == sid
    assert index.adopt(sid) is None and index.adopt("../x") is None  # the id itself opens nothing
    old, new = type("R", (), {"session_hash": "old"})(), type("R", (), {"session_hash": "new"})()
    index.bind(old, sid)
    index.bind(new, sid)  # the reloaded page adopts it
    index.release_hash("old")  # the old page's unload
    index.release_sid(sid)  # ...and, an hour later, Gradio dropping the old page's state
    assert sid not in released  # (the old page's own derived id, never used, may go)
    index.release_hash("new")
    deadline = time.monotonic() + 5
    while sid not in released and time.monotonic() < deadline:
        time.sleep(0.01)
    assert released[-1] == sid


def test_a_reload_restores_recent_tabs_and_says_when_they_expired():
    key = "a" * 32
    turn = ChatTurn(1, "q?", "a [1]", (CITES[1],), "csc3100", "both", False, "extractive")
    stored = snapshot(key, "csc3100", "zh", "course", [turn], ["notes.pdf"])
    back = restore(stored, idle_minutes=60)
    assert back.key == key and back.lang == "zh" and back.scope == "course" and back.uploads == ("notes.pdf",)
    assert back.turns[0]["question"] == "q?" and back.turns[0]["citations"][0]["source"] == "syllabus.md"
    old = restore(stored, idle_minutes=60, now=time.time() + 61 * 60)
    assert old.key is None and old.expired and old.turns == ()
    assert restore({"v": 1, "key": "../../etc", "saved": time.time()}, 60).key is None  # client input is checked
    assert restore("garbage", 60) == restore(None, 60)


@pytest.mark.parametrize(
    ("course", "source", "locator", "url"),
    [
        ("csc3100", "lectures/week03_hashing.pdf", "page 4", "course-file/csc3100/lectures/week03_hashing.pdf#page=4"),
        ("csc3100", "announcements.txt", "lines 14-31", "course-file/csc3100/announcements.txt?lines=14-31#L14"),
        (
            "csc3100",
            "syllabus.md",
            "Syllabus > Late policy",
            "course-file/csc3100/syllabus.md?heading=Syllabus%20%3E%20Late%20policy",
        ),
        (
            "csc3100",
            "notebooks/sorting_lab.ipynb",
            "cell 2",
            "course-file/csc3100/notebooks/sorting_lab.ipynb?cell=2#cell-2",
        ),
        ("csc3100", "slides/week07_graphs.pptx", "slide 3", "course-file/csc3100/slides/week07_graphs.pptx"),
        (
            "ds2010",
            "课程大纲.md",
            "lines 1-3",
            "course-file/ds2010/%E8%AF%BE%E7%A8%8B%E5%A4%A7%E7%BA%B2.md?lines=1-3#L1",
        ),
    ],
)
def test_course_file_urls_open_the_cited_place(course, source, locator, url):
    assert file_url(course, source, locator) == url


def test_only_files_inside_the_course_folder_resolve(tmp_path):
    docs = tmp_path / "course"
    docs.mkdir()
    (docs / "ok.md").write_text("# ok\n", encoding="utf-8")
    (docs / ".hidden.md").write_text("# no\n", encoding="utf-8")
    (docs / "tool.exe").write_bytes(b"MZ")
    (tmp_path / "secret.md").write_text("# secret\n", encoding="utf-8")
    (docs / "link.md").symlink_to(tmp_path / "secret.md")
    assert resolve(docs, "ok.md") == docs / "ok.md"
    for bad in ("../secret.md", "link.md", ".hidden.md", "tool.exe", "missing.md", "/etc/passwd"):
        assert resolve(docs, bad) is None, bad


def test_a_markdown_heading_path_resolves_to_its_lines():
    text = "# Syllabus\nintro\n## Grading\nexams\n## Late policy\n10% per day\nno exams\n"
    assert heading_lines(text, "Syllabus > Late policy") == (5, 8)
    assert heading_lines(text, "Syllabus > Grading") == (3, 4)
    assert heading_lines(text, "Nope") is None


def test_the_instructor_words_come_from_the_same_catalog():
    assert t("zh", "instr_unlocked") == "🔓 已解锁。"


def test_a_reload_restores_what_each_message_showed_and_its_vote():
    from courserag.i18n.messages import Notice

    vote = {"id": "c" * 32, "vote": "down", "wrong": True}
    turn = ChatTurn(
        1,
        "What is the late policy?",
        "I could not find this.",
        (),
        "csc3100",
        "notes",
        True,
        "refusal",
        feedback=dict(vote, question="x"),
        notices=(Notice("llm_fallback", {"reason": Notice("llm_deadline", {"host": "h", "seconds": 30})}),),
        pending=("big.pdf",),
        said="no_notes_to_search",
    )
    back = restore(snapshot("a" * 32, "csc3100", "en", "notes", [turn], []), idle_minutes=60).turns[0]
    assert back["said"] == "no_notes_to_search" and back["pending"] == ["big.pdf"] and back["vote"] == vote
    assert [n.text("en") for n in back["notices"]] == [n.text("en") for n in turn.notices]


@pytest.mark.parametrize(
    "stored, kept",
    [
        ({"said": "answer_not_found"}, {"said": ""}),  # only the replies the app says instead of an answer
        ({"vote": {"id": "c" * 32, "vote": "sideways"}}, {"vote": None}),
        ({"vote": {"id": "../feedback.jsonl", "vote": "up"}}, {"vote": None}),  # a feedback id is 32 hex digits
        (
            {"notices": [{"code": "no_such_code"}, {"code": "llm_fallback", "params": {"reason": ["x"]}}]},
            {"notices": []},
        ),
        ({"pending": ["a.pdf", 3, None]}, {"pending": ["a.pdf"]}),
    ],
)
def test_what_a_reload_brings_back_is_checked_like_all_client_input(stored, kept):
    raw = {"question": "q?", "answer": "a", **stored}
    back = restore({"v": 1, "key": "a" * 32, "saved": time.time(), "turns": [raw]}, 60).turns[0]
    assert {k: back[k] for k in kept} == kept


@pytest.mark.parametrize(
    "said_in, hint, other",
    [("en", "Try rephrasing", "换个说法"), ("zh", "换个说法", "Try rephrasing")],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refusal_and_its_hint_are_in_one_language_whatever_the_interface(lang, said_in, hint, other):
    pending = [PendingUpload("big.pdf", "indexing", 12, 118, "page")]
    shown = format_reply("…", True, [], lang, DOCS, "both", said_in=said_in)
    assert hint in shown and other not in shown
    noted = format_reply("…", True, [], lang, DOCS, "both", pending=pending, said_in=said_in)
    assert ("仍在建立索引" in noted) is (said_in == "zh")
