"""The one way HTML reaches the page: an allow-list sanitizer (nh3, the binding of Ammonia).

Answers, questions, citations, file names and tables all contain text from outside: course
files and learners' uploads (which may carry instructions for the model), and the model's
answer itself. Escaping by regular expression was bypassed with an escaped backtick (a
password form, a fake citation card), and a markdown image in an answer sent a learner's
notes to another site on display. So:

- Markdown (answers, notices) is rendered here, on the server, by a CommonMark parser with
  raw HTML turned off, and the result is sanitized with the content allow-list: text
  formatting, lists, code, tables. No image, form, input, iframe, `details`, style or
  script survives, and no link does (`markdown_html`).
- HTML the app builds itself (citation cards, notes and upload tables, the course card) is
  sanitized with the page allow-list, which adds the few structural tags the app uses; a
  link survives only when it points at one of the course files the caller names
  (`clean_html`).
- Whatever is sent to the chat is one line beginning with a tag, so the chat's own Markdown
  renderer takes it as one raw HTML block and never reinterprets text inside it
  (`one_block`). Newlines become `&#10;`, which is still a line break inside `<pre>`.

LaTeX in any of them (`$θ_0$`) is delimited for the page's KaTeX by courserag/ui/rendering/mathtext.py.

The Content-Security-Policy of courserag/ui/server.py forbids remote images and scripts
as a second line of defence.
"""

from __future__ import annotations

import functools
import html
from html.parser import HTMLParser
from typing import Callable, Collection

import nh3

from courserag.ui.rendering.mathtext import normalize, protect, restore

__all__ = ["answer_html", "clean_html", "markdown_html", "one_block", "text_html", "text_nodes"]

_CONTENT_TAGS = frozenset(
    {
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
        "span",
    }
)
_PAGE_TAGS = _CONTENT_TAGS | {"div", "details", "summary", "button", "mark", "progress"}
# Text from materials, notes or a model keeps no attribute that can carry its words: no href
# (no link survives), no target, no style, no title or class (the page's KaTeX step reads math
# out of the whole message, attribute values included). "*" is given so that none of nh3's
# default attributes for every tag (title, lang) is kept either.
_ATTRIBUTES = {"*": set(), "ol": {"start"}, "th": {"align"}, "td": {"align"}}
# The app's own markup also carries state and accessible names (never an event handler), and
# its links to cited course files open in a new tab.
_PAGE_ATTRIBUTES = {
    **_ATTRIBUTES,
    "*": {"class", "hidden", "title", "aria-label"},
    "a": {"href", "title", "target"},
    "button": {"type", "data-name"},
    "progress": {"value", "max"},
    "th": {"align", "scope"},
    "td": {"align", "colspan"},
}


@functools.cache
def _markdown():
    from markdown_it import MarkdownIt

    # CommonMark with raw HTML off: "<form>" in an answer is text, never a tag.
    return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")


def _links_only(allowed: Collection[str]):
    def keep(tag: str, attribute: str, value: str) -> str | None:
        if attribute == "href":
            return value if value in allowed else None
        return value

    return keep


def markdown_html(text: str) -> str:
    """Markdown from outside (an answer, a notice) as sanitized HTML without links or images;
    its LaTeX is kept out of the Markdown and delimited for the page's KaTeX (mathtext.py).

    The sanitizer runs last, after the math is back: math restored into a sanitized link's
    title once closed the attribute with a quote and added a page-wide link of its own."""
    source, maths = protect(str(text or ""))
    rendered = restore(_markdown().render(source), maths)
    return nh3.clean(rendered, tags=set(_CONTENT_TAGS), attributes=_ATTRIBUTES, attribute_filter=_links_only(()))


def clean_html(fragment: str, links: Collection[str] = ()) -> str:
    """HTML the app assembled (text in it already escaped), on the page allow-list, as one
    block; a link is kept only if its href is one of `links` (cited course files)."""
    cleaned = nh3.clean(
        fragment, tags=set(_PAGE_TAGS), attributes=_PAGE_ATTRIBUTES, attribute_filter=_links_only(frozenset(links))
    )
    return one_block(cleaned)


class _TextNodes(HTMLParser):
    """Sanitized HTML written back as it came, each text node through `change`."""

    def __init__(self, change: Callable[[str], str], literal: Collection[str]):
        super().__init__(convert_charrefs=True)
        self.change, self.literal, self.out, self.inside = change, frozenset(literal), [], []

    def handle_starttag(self, tag, attrs):
        self.out.append(self.get_starttag_text())
        if tag in self.literal:
            self.inside.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.out.append(self.get_starttag_text())

    def handle_endtag(self, tag):
        self.out.append(f"</{tag}>")
        if self.inside and self.inside[-1] == tag:
            self.inside.pop()

    def handle_data(self, data):
        self.out.append(html.escape(data) if self.inside else self.change(data))


def text_nodes(fragment: str, change: Callable[[str], str], literal: Collection[str] = ()) -> str:
    """`fragment` (HTML this module sanitized) with the text between its tags replaced by
    `change(text)`, which returns HTML; tags and attributes are written back untouched, and the
    text inside a `literal` tag is only escaped. What a change puts in stays between tags."""
    parser = _TextNodes(change, literal)
    parser.feed(fragment)
    parser.close()
    return "".join(parser.out)


def one_block(fragment: str) -> str:
    """One line, so the chat's Markdown renderer treats it as a single raw HTML block."""
    return fragment.replace("\r", "").replace("\n", "&#10;")


def answer_html(markdown_text: str, safe_tail: str = "") -> str:
    """An assistant message: the Markdown rendered and sanitized, then `safe_tail` (HTML that
    already went through `clean_html`, e.g. the citation cards)."""
    return one_block(f'<div class="cr-md">{markdown_html(markdown_text)}</div>{safe_tail}')


def text_html(text: str) -> str:
    """Plain text (a learner's question) shown as text: nothing in it is markup."""
    escaped = html.escape(normalize(str(text or ""))).replace("\n", "<br>")
    return one_block(f'<div class="cr-text">{escaped}</div>')
