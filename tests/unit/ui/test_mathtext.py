"""LaTeX in answers and passages (issue 21.7): found on the server, kept out of the Markdown,
handed to KaTeX between the chat's delimiters; money and code stay text."""

from __future__ import annotations

import pytest

from courserag.ui.rendering.mathtext import normalize
from courserag.ui.rendering.render import answer_text_html, render_citations
from courserag.ui.rendering.sanitize import markdown_html


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("the bias $θ_0$ here", r"the bias \(θ_0\) here"),
        ("displayed $$J(\\theta)$$ cost", r"displayed \[J(\theta)\] cost"),
        (r"already \(x^2\) and \[y\]", r"already \(x^2\) and \[y\]"),
        ("costs $5 and $10 each", "costs $5 and $10 each"),  # money is not math
        ("a $ b $ c", "a $ b $ c"),  # a space just inside: not math
        ("US$5 or $3$4", "US$5 or $3$4"),
        ("code `$x$` stays", "code `$x$` stays"),
    ],
)
def test_math_is_delimited_for_katex_and_money_is_not(text, shown):
    assert normalize(text) == shown


def test_markdown_leaves_latex_backslashes_and_underscores_alone():
    shown = markdown_html(r"Rows $$\begin{matrix}a & b \\ c & d\end{matrix}$$ and $x_1 * y_1$ and *this*")
    assert r"\[\begin{matrix}a &amp; b \\ c &amp; d\end{matrix}\]" in shown
    assert r"\(x_1 * y_1\)" in shown and "<em>this</em>" in shown


def test_a_bracketed_number_inside_math_is_no_source_marker():
    shown = answer_text_html(r"The root $\sqrt[3]{x}$ is used [1].", "en")
    assert shown.count('class="cr-ref"') == 1 and r"\sqrt&#91;3&#93;{x}" in shown


def test_a_passage_shows_its_math_delimited_for_the_source_panel():
    cite = {
        "n": 1,
        "source": "week3.ipynb",
        "locator": "cell 2",
        "doc_type": "ipynb",
        "text": "The bias $θ_0$ shifts it.",
    }
    shown = render_citations([cite], "en", {}, "The bias shifts it [1].")
    assert r"\(θ_0\)" in shown and "$θ_0$" not in shown


def test_markup_inside_math_stays_text():
    shown = answer_text_html("See $<img src=x onerror=alert(1)>[a](https://evil.example)$ here", "en")
    assert "<img" not in shown and "https://" not in shown and "&lt;img" in shown
