"""Helpers of the browser suite (tests/browser/): a gate that holds indexing at a chosen
point (so "while a file is indexing" is a state the test waits for, not a race), page helpers,
generated documents, and the axe-core accessibility scan."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from courserag.embedders import Embedder

PROJECT_ROOT = Path(__file__).resolve().parent.parent
AXE_VERSION = "4.14.1"  # pinned; scripts/ensure_axe.sh fetches it from the npm registry
AXE_JS = PROJECT_ROOT / ".test-artifacts" / f"axe-core-{AXE_VERSION}" / "axe.min.js"
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


# -- holding indexing at a known point -------------------------------------------------------


class Gate:
    """Blocks passage embedding in the named threads, for texts holding `marker`, after
    `after` such calls have gone through, until `release()` (or 120 s, a safety net)."""

    def __init__(self):
        self.marker: str | None = None
        self.threads: frozenset[str] = frozenset()
        self.after = 0
        self.calls = 0
        self.opened = threading.Event()
        self.holding = threading.Event()
        self._lock = threading.Lock()

    def arm(self, marker: str, threads: Sequence[str], after: int = 0) -> None:
        with self._lock:
            self.marker, self.threads, self.after, self.calls = marker, frozenset(threads), after, 0
            self.opened.clear()
            self.holding.clear()

    def release(self) -> None:
        with self._lock:
            self.marker = None
        self.opened.set()

    def check(self, texts: Sequence[str]) -> None:
        with self._lock:
            marker = self.marker
            if not marker or threading.current_thread().name not in self.threads or not any(marker in t for t in texts):
                return
            self.calls += 1
            if self.calls <= self.after:
                return
        self.holding.set()
        self.opened.wait(timeout=120)


class GatedEmbedder(Embedder):
    """The real embedder, with passage embedding going through a Gate."""

    def __init__(self, inner: Embedder, gate: Gate):
        self.inner = inner
        self.gate = gate
        self.name = inner.name
        self.dim = inner.dim
        self.window_tokens = inner.window_tokens
        self.reads_chinese = inner.reads_chinese

    def _encode(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - every call is delegated
        raise NotImplementedError

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return self.inner.truncate_to_tokens(text, max_tokens)

    def embed_batch(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        self.gate.check(texts)
        return self.inner.embed_batch(texts, batch_size)

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self.inner.embed_queries(texts, batch_size)

    def query_for(self, vector: np.ndarray, across_languages: bool) -> np.ndarray:
        return self.inner.query_for(vector, across_languages)

    def word_vectors(self, words: Sequence[str]) -> np.ndarray | None:
        return self.inner.word_vectors(words)


# -- a settled page ---------------------------------------------------------------------------

# Installed in every page before its own scripts (context.add_init_script): the time of the
# page's last DOM change, so "settled" can ask for a quiet spell rather than sleep.
QUIET_WATCH_JS = """
(() => {
  window.__crLastChange = performance.now();
  const mark = () => { window.__crLastChange = performance.now(); };
  const start = () => new MutationObserver(mark).observe(document.documentElement,
    { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""

# True when nothing on the page is still changing: no Gradio event pending or streaming (its
# status trackers are all hidden, no component is dimmed as `.pending`, no progress or ETA
# bar), no CSS transition or finite animation running, and no DOM change for `quiet` ms.
# A Gradio component waiting for its output is drawn at opacity 0.2 and fades back: text
# caught then reads as #d2d4d8 on white, which is how the accessibility scan once flaked.
SETTLED_JS = """
(quiet) => {
  const busy = document.querySelector(
    '.pending, .generating, .eta-bar, .progress-text, .progress-level');
  if (busy && busy.offsetParent !== null) return false;
  for (const tracker of document.querySelectorAll('[data-testid="status-tracker"]:not(.hide)')) {
    if (tracker.offsetParent !== null && getComputedStyle(tracker).opacity !== '0') return false;
  }
  const moving = document.getAnimations().filter((a) => a.playState === 'running'
    && Number.isFinite(a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming().endTime : 0));
  if (moving.length) return false;
  const last = window.__crLastChange;
  return last === undefined || performance.now() - last >= quiet;
}
"""
QUIET_MS = 250


def settle(page, quiet_ms: int = QUIET_MS) -> None:
    """Until the page is settled (SETTLED_JS): every assertion and the accessibility scan
    look at a finished page, however slowly a busy machine draws it. Polled each frame,
    within the context's default timeout."""
    page.wait_for_function(SETTLED_JS, arg=quiet_ms, polling="raf")


def new_page(browser, width: int, height: int, locale: str, timeout_ms: int):
    """A fresh browser context (a separate Gradio session) and its page, watched for quiet."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    context.set_default_timeout(timeout_ms)
    context.add_init_script(QUIET_WATCH_JS)
    return context, context.new_page()


# -- pages ------------------------------------------------------------------------------------

DONE_ANSWER = re.compile(r"Try rephrasing|换个说法|⚠️|⏳")


def bot_messages(page):
    return page.locator("#cr-chat [data-testid='bot']")


def ask(page, question: str):
    """Type the question, send it, and return the finished answer's locator."""
    before = bot_messages(page).count()
    page.fill("#cr-question textarea", question)
    page.press("#cr-question textarea", "Enter")
    return wait_for_answer(page, before)


def wait_for_answer(page, before: int):
    page.wait_for_function(
        """(n) => {
            const bots = document.querySelectorAll('#cr-chat [data-testid="bot"]');
            if (bots.length <= n) return false;
            const last = bots[bots.length - 1];
            // an answer with its sources, a refusal's hint, a warning, a pending note, or "no notes to search"
            return !!last.querySelector('.cr-sources') || /Try rephrasing|换个说法|⚠️|⏳|nothing to search|没有可检索/.test(last.innerText);
        }""",
        arg=before,
    )
    settle(page)
    return bot_messages(page).nth(before)


def citations(answer) -> list[dict]:
    """[{n, file, locator, origin, badge, href, cited}] read from the rendered sources block;
    `cited` is False for the sources listed under "also consulted"."""
    rows = []
    for item in answer.locator(".cr-cite").all():
        link = item.locator("a.cr-file")
        rows.append(
            {
                "n": item.locator(".cr-n").inner_text().strip("[]"),
                "file": item.locator(".cr-fname").inner_text(),
                "locator": item.locator(".cr-loc").inner_text().lstrip("· ").strip(),
                "origin": "upload" if "cr-cite-upload" in (item.get_attribute("class") or "") else "course",
                "badge": item.locator(".cr-badge").inner_text(),
                "href": link.get_attribute("href") if link.count() else None,
                "cited": item.evaluate("(e) => !e.closest('details.cr-consulted')"),
            }
        )
    return rows


def open_source(page, answer, n: int):
    """Click the [n] marker in the answer's text; return the open source panel."""
    answer.locator("button.cr-ref", has_text=f"[{n}]").first.click()
    page.wait_for_selector("#cr-source-panel:not([hidden])")
    settle(page)
    return page.locator("#cr-source-panel")


def close_source(page) -> None:
    page.keyboard.press("Escape")
    page.wait_for_selector("#cr-source-panel[hidden]", state="attached")
    settle(page)


def upload(page, *paths: Path) -> str:
    """Upload files and wait for each one's result line."""
    page.set_input_files("#cr-upload input[type=file]", [str(p) for p in paths])
    names = [p.name for p in paths]
    page.wait_for_function(
        "(names) => { const t = [...document.querySelectorAll('#cr-upload-log .cr-log > div')]"
        ".map(d => d.innerText).join('\\n');"
        " return names.every(n => t.includes(n)); }",
        arg=names,
    )
    settle(page)
    return page.inner_text("#cr-upload-log")


def wait_ready(page, name: str) -> None:
    """Until the notes table lists `name` as searchable (its row has a remove button)."""
    page.wait_for_function(
        "(name) => [...document.querySelectorAll('#cr-notes .cr-remove-file')].some(b => b.dataset.name === name)",
        arg=name,
    )
    settle(page)


@contextlib.contextmanager
def sidebar(page):
    """The course, scope and upload controls within reach: on a narrow screen the sidebar is
    opened by its toggle for the steps inside the block and closed after them."""
    toggle = page.locator("#cr-sidebar-toggle")
    narrow = toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true"
    if narrow:
        toggle.click()
        page.wait_for_selector("#cr-course", state="visible")
        settle(page)
    yield
    if narrow:
        toggle.click()
        page.wait_for_selector("#cr-course", state="hidden")
        settle(page)


def choose_scope(page, label: str) -> None:
    page.locator("#cr-scope").get_by_text(label, exact=True).click()
    settle(page)


def duplicate_ids(page) -> list:
    return page.evaluate(
        "(() => { const c = {}; document.querySelectorAll('[id]').forEach(e => { if (e.id) c[e.id] = (c[e.id] || 0) + 1; });"
        " return Object.entries(c).filter(([k, v]) => v > 1); })()"
    )


# -- documents --------------------------------------------------------------------------------


def pdf(path: Path, pages: list[str], font: Path | None = None) -> Path:
    import docgen

    return docgen.write(path.parent, path.name, docgen.pdf_bytes(pages, cjk_font=font))


def docx(path: Path, blocks: list[tuple]) -> Path:
    import docgen

    return docgen.write(path.parent, path.name, docgen.docx_bytes(blocks))


def docx_with_equation_and_image(path: Path) -> Path:
    """A Word file with one Office Math equation and one picture beside its text."""
    import io

    import docx as python_docx
    from docx.oxml import parse_xml

    document = python_docx.Document()
    document.add_heading("Kinetic energy", level=1)
    document.add_paragraph("The kinetic energy of the capybara cart is given by the formula below.")
    math = (
        '<m:oMathPara xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
        "<m:oMath><m:r><m:t>E=mv²/2</m:t></m:r></m:oMath></m:oMathPara>"
    )
    paragraph = document.add_paragraph()
    paragraph._p.append(parse_xml(math))
    from PIL import Image

    picture = io.BytesIO()
    Image.new("RGB", (4, 4), "navy").save(picture, format="PNG")
    document.add_picture(io.BytesIO(picture.getvalue()))
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(buffer.getvalue())
    return path


# -- accessibility ----------------------------------------------------------------------------


def ensure_axe() -> Path:
    """axe-core's script, fetched from the npm registry on first use (scripts/ensure_axe.sh)."""
    if not AXE_JS.exists():
        subprocess.run(
            ["bash", str(PROJECT_ROOT / "scripts" / "ensure_axe.sh")],
            check=True,
            env=dict(os.environ, AXE_CORE_VERSION=AXE_VERSION),
            timeout=300,
        )
    return AXE_JS


def axe_violations(page, impacts: Sequence[str] = ("serious", "critical")) -> list[dict]:
    """axe-core's violations of the given impact on the page once it has settled (all WCAG
    rules): a scan of a page still drawing would judge colours caught mid-fade."""
    settle(page)
    page.add_script_tag(path=str(ensure_axe()))
    found = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary.replace(/\\s+/g, ' ').slice(0, 240)),
        }))"""
    )
    return [v for v in found if v["impact"] in impacts]
