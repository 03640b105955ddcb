"""Quoted text shown as written (courserag/ui/rendering/quoting.py): whatever a file says,
rendered as Markdown it reads the same; only our own frame (the bold fact, the bullets) is
markup. Issue 43, item 5."""

from __future__ import annotations

import html
import re

import pytest

from courserag.ui.rendering.quoting import escape_markdown, quoted_markdown
from courserag.ui.rendering.render import format_reply
from courserag.ui.rendering.sanitize import markdown_html


def shown_text(markdown: str) -> str:
    """The text a reader sees of rendered Markdown (tags dropped, entities decoded, and the
    invisible word joiner that keeps a stray backslash from a bracket)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markdown_html(markdown))).replace("\u2060", "").strip()


QUOTES = [
    "55:text/x-diff:*.patch 50:text/x-diff:*.diff",
    "snake_case_name and __init__ and **kwargs",
    "# not a heading",
    "1. not a list",
    "- not a bullet",
    "> not a quote",
    "see [the docs](http://example.com) and ![img](x.png)",
    "a &lt; b &amp; <c> `not code` ~~not struck~~",
    r"C:\temp\new and a \* star",
    "| a | b |",
    "===",
    "x + y = z, 10% off, e-mail: a@b.c",
    "调用 *args 与 **kwargs 时",
    # Only looks like math: a quote or a delimiter of its own between the dollars.
    'see [x](http://e.com "t $a\\) " href="http://e.com" x=\\($") now',
    'costs $5 "or" $6',
]


@pytest.mark.parametrize("quote", QUOTES)
def test_a_quote_reads_exactly_as_written(quote):
    assert shown_text(escape_markdown(quote)) == quote


@pytest.mark.parametrize(
    "text, kept",
    [
        ("$θ_0$ is the intercept", r"\(θ_0\)"),  # math is left whole for KaTeX
        (r"\(x^2 + y_1\)", r"\(x^2 + y_1\)"),
    ],
)
def test_math_in_a_quote_stays_math(text, kept):
    assert kept in markdown_html(escape_markdown(text))


def test_only_our_frame_is_markup():
    answer = (
        "From the materials:\n**3 *credits*** [1]\n- 55:text/x-diff:*.patch 50:text/x-diff:*.diff [1]\n- # Week 1 [2]"
    )
    rendered = markdown_html(quoted_markdown(answer))
    assert "<strong>3 *credits*</strong> [1]" in rendered
    assert "<li>55:text/x-diff:*.patch 50:text/x-diff:*.diff [1]</li>" in rendered
    assert "<li># Week 1 [2]</li>" in rendered and "<em>" not in rendered and "<h1>" not in rendered


@pytest.mark.parametrize(
    "mode, italic",
    [("extractive", False), ("catalog", False), ("refusal", False), ("llm", True)],
)
def test_only_a_models_answer_is_read_as_markdown(mode, italic):
    quote = "55:text/x-diff:*.patch 50:text/x-diff:*.diff"
    shown = format_reply(f"- {quote} [1]", False, [], "en", {}, mode=mode)
    assert ("<em>" in shown) is italic and (quote in html.unescape(shown)) is not italic


@pytest.mark.parametrize(
    "quote",
    [
        r"a stray \( opens nothing",
        r"x=\($ and $a\) planted",
        r"matrix rows end in \\ and \[ brackets \]",
    ],
)
def test_a_stray_math_delimiter_in_a_quote_reaches_the_chat_as_no_delimiter(quote):
    """The chat's KaTeX reads the answer's HTML as a string: a stray "\\(" once took the rest of
    the answer, its tags included, into one formula."""
    shown = format_reply("From the materials:\n- " + quote + " [1]", False, [], "en", {}, "both", mode="extractive")
    assert not re.search(r"\\[()\[\]]", shown), shown
