"""Math that survives upload and is drawn as math (issue 21, point 7). A notebook with `$θ_0$`
in a Markdown cell and a Word file of Office Math equations are uploaded; the answer and the
source panel must show KaTeX's rendering (Gradio's bundled copy, no network), and no raw
dollar sign or delimiter may be left on the screen."""

from __future__ import annotations

from pathlib import Path

import pytest

import docgen
import docgen.math as om
from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM
from tests.browser_support import ask, choose_scope, citations, open_source, upload, wait_ready

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)

NOTEBOOK_CELLS = [
    {"markdown": "# Capybara regression\n\nThe bias term $θ_0$ of the capybara regression shifts the fitted line up."},
    {"code": "theta_0 = 0.5\nprint(theta_0)"},
]
RAW = ("$", "\\(", "\\)", "\\[", "\\]")


def _shows_math_only(locator, what: str) -> None:
    assert locator.locator(".katex").count() > 0, f"no KaTeX rendering in the {what}"
    shown = locator.evaluate(
        "(e) => { const c = e.cloneNode(true); c.querySelectorAll('.katex-mathml').forEach(m => m.remove());"
        " return c.innerText; }"
    )
    for raw in RAW:
        assert raw not in shown, (what, raw, shown)


def test_latex_in_a_notebook_renders_in_the_answer_and_the_source_panel(page, tmp_path):
    notebook = docgen.write(tmp_path, "capybara_regression.ipynb", docgen.notebook_bytes(NOTEBOOK_CELLS))
    upload(page, notebook)
    wait_ready(page, "capybara_regression.ipynb")
    choose_scope(page, "My notes")
    answer = ask(page, "What does the bias term of the capybara regression do?")
    assert any(c["file"] == "capybara_regression.ipynb" for c in citations(answer)), citations(answer)
    _shows_math_only(answer.locator(".cr-md"), "answer")
    open_source(page, answer, 1)
    _shows_math_only(page.locator("#cr-sp-body"), "source panel")


def test_word_equations_are_searchable_and_drawn_in_the_source_panel(page, tmp_path):
    notes = docgen.write(tmp_path, "regression_notes.docx", om.math_docx_bytes())
    log = upload(page, notes)
    assert "✓ regression_notes.docx" in log and "equation" not in log
    wait_ready(page, "regression_notes.docx")
    choose_scope(page, "My notes")
    answer = ask(page, "What is the hypothesis for a single capybara feature?")
    assert any(c["file"] == "regression_notes.docx" for c in citations(answer)), citations(answer)
    open_source(page, answer, 1)
    _shows_math_only(page.locator("#cr-sp-body"), "source panel")
