"""How the app looks: the Gradio theme, our CSS and script, and the launch options that carry them.

Colours are chosen for a contrast of at least 4.5:1 on their backgrounds in light and dark
mode (checked by the axe-core scan in tests/browser/test_layout.py). On narrow screens (≤ 768 px)
the chat comes first and the course/notes sidebar folds behind a toggle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gradio as gr

from courserag.config.settings import Settings
from courserag.i18n.catalog import LANGUAGES
from courserag.i18n.ui_texts import t
from courserag.ui.server import server_options

NARROW = "768px"
WIDE = "769px"  # the first width that is not NARROW

CSS = """
.cr-header h1 { margin-bottom: 0.1em; overflow-wrap: normal; word-break: normal; hyphens: none;
  font-size: clamp(1.35rem, 4.5vw, 2rem); }
.cr-header p { margin-top: 0; color: var(--cr-subdued); }
:root { --cr-subdued: #4b5563; --cr-mark: #fde68a; --cr-mark-text: #111827; }
.dark { --cr-subdued: #d1d5db; --cr-mark: #854d0e; --cr-mark-text: #fefce8; }
#cr-top { align-items: center; flex-wrap: wrap; row-gap: 0.2em; }
#cr-lang { margin-left: auto; align-self: center; }
#cr-lang .wrap { flex-wrap: nowrap; }
#cr-lang label { white-space: nowrap; }
#cr-sidebar { gap: 0.8em; }
.cr-notes-heading h2 { font-size: 1.05em; margin: 0; }
.cr-section h2 { font-size: 1.2em; margin: 0.6em 0 0.2em 0; }
#cr-sidebar-toggle { display: none; }
#cr-examples { align-items: center; flex-wrap: wrap; gap: 0.4em; }
#cr-examples-label { flex: 0 0 auto !important; min-width: 0 !important; }
#cr-clear-row { justify-content: flex-end; }
#cr-course-card { padding: 0.2em 0.2em; }
#cr-course-card .cr-course-name { font-weight: 600; }
#cr-course-card .cr-desc { color: var(--cr-subdued); margin: 0.2em 0 0.4em 0; }
#cr-course-card .cr-meta { font-size: 0.9em; }
.cr-hint { font-size: 0.9em; border-left: 3px solid #b45309; background: rgba(245, 158, 11, 0.08);
  padding: 0.4em 0.6em; border-radius: 4px; margin-top: 0.4em; }
#cr-course-status { font-size: 0.9em; min-height: 1.2em; }
.cr-privacy, .cr-privacy p { font-size: 0.85em; color: var(--cr-subdued); }
.cr-log div { font-size: 0.9em; padding: 0.15em 0; }
.cr-log .cr-ok { color: #15803d; }
.cr-log .cr-fail { color: #b91c1c; }
.dark .cr-log .cr-ok { color: #86efac; }
.dark .cr-log .cr-fail { color: #fca5a5; }
.cr-log .cr-info { color: var(--cr-subdued); }
.cr-notes-wrap { max-width: 100%; overflow-x: auto; }
table.cr-notes { width: 100%; font-size: 0.88em; border-collapse: collapse; }
table.cr-notes th, table.cr-notes td { text-align: left; padding: 0.2em 0.3em;
  border-bottom: 1px solid var(--border-color-primary); }
table.cr-notes td:first-child { overflow-wrap: anywhere; word-break: break-word; min-width: 4em; }
/* "2 paragraphs" may wrap and ✕ is a small button, so the columns fit a 310 px sidebar. */
table.cr-notes th, table.cr-notes td:nth-child(n+3) { white-space: nowrap; }
#cr-course-chip { display: none; }
.cr-chip { font-size: 0.92em; overflow-wrap: anywhere; }
progress.cr-progress { width: 100%; height: 0.8em; accent-color: #4338ca; }
.cr-empty { font-size: 0.9em; color: var(--cr-subdued); }
#cr-notes button.cr-remove-file { max-width: 100%; min-width: 0; padding: 0.1em 0.4em; line-height: 1.3; }
#cr-chat .message-content .md { opacity: 1 !important; }  /* Gradio dims answers to 0.8: text below 4.5:1 */
.cr-sources { margin-top: 0.7em; padding-top: 0.4em; border-top: 1px solid var(--border-color-primary); font-size: 0.92em; }
.cr-sources-title { font-weight: 600; margin-bottom: 0.2em; }
.cr-cite { margin: 0.2em 0; }
.cr-open, .cr-ref { font: inherit; color: inherit; background: none; border: none; padding: 0; cursor: pointer; text-align: left; }
.cr-open:hover .cr-fname, .cr-open:focus-visible .cr-fname { text-decoration: underline; }
.cr-ref { font-weight: 600; color: #3730a3; padding: 0 0.05em; }
.dark .cr-ref { color: #c7d2fe; }
.cr-ref:hover, .cr-ref:focus-visible { text-decoration: underline; }
.cr-n { font-weight: 600; }
.cr-loc { color: var(--cr-subdued); }
.cr-file { margin-left: 0.4em; font-size: 0.9em; color: #3730a3 !important; }
.dark .cr-file { color: #c7d2fe !important; }
.cr-badge { display: inline-block; font-size: 0.78em; line-height: 1.5; padding: 0 0.55em;
  border-radius: 999px; margin-left: 0.35em; vertical-align: 0.08em; white-space: nowrap; }
.cr-badge.cr-course { background: #e0e7ff; color: #3730a3; }
.cr-badge.cr-upload { background: #dcfce7; color: #166534; }
.cr-passage, .cr-hl-note, .cr-note { display: none; }
details.cr-consulted { margin-top: 0.3em; }
details.cr-consulted > summary { cursor: pointer; color: var(--cr-subdued); }
#cr-examples button { flex: 0 1 auto !important; min-width: 0 !important; font-weight: normal; }
.cr-feedback { border: 1px solid var(--border-color-accent); }
#cr-upload.block { border: 2px dashed #6366f1 !important; }
#cr-token-row { align-items: flex-end; }
#cr-token-row button, #cr-instr-actions button { max-height: 3.2em; align-self: flex-end; }
#cr-instr-actions { align-items: flex-end; }
#cr-instr-progress:empty { display: none; }
mark { background: var(--cr-mark); color: var(--cr-mark-text); padding: 0 0.1em; border-radius: 2px; }
#cr-source-panel { position: fixed; top: 0; right: 0; bottom: 0; width: min(34rem, 100vw); z-index: 1000;
  box-sizing: border-box; max-width: 100vw; overflow: hidden;
  background: var(--background-fill-primary); color: var(--body-text-color); border-left: 1px solid var(--border-color-primary);
  box-shadow: -8px 0 24px rgba(0, 0, 0, 0.18); display: flex; flex-direction: column; padding: 0.8em 1em; gap: 0.5em; }
#cr-source-panel[hidden] { display: none; }
#cr-source-panel .cr-sp-head { display: flex; align-items: flex-start; gap: 0.5em; }
#cr-sp-title { font-size: 1.05em; margin: 0; flex: 1; overflow-wrap: anywhere; }
#cr-sp-close { flex: 0 0 auto; font-size: 1.5em; line-height: 1; background: none; border: 1px solid var(--border-color-primary);
  border-radius: 6px; width: 2em; height: 2em; cursor: pointer; color: var(--body-text-color); }
#cr-sp-meta .cr-loc { margin-right: 0.4em; }
#cr-sp-note { font-size: 0.85em; color: var(--cr-subdued); }
#cr-sp-body { flex: 1; min-height: 0; overflow: auto; overscroll-behavior: contain; line-height: 1.6;
  border-top: 1px solid var(--border-color-primary); padding-top: 0.5em; }
#cr-sp-body .cr-para { margin: 0 0 0.6em 0; white-space: pre-wrap; overflow-wrap: anywhere; }
#cr-sp-body.cr-code .cr-para { font-family: var(--font-mono); margin: 0; }
#cr-sp-body .cr-passage-table { white-space: normal; overflow-x: auto; }
#cr-sp-body table { border-collapse: collapse; }
#cr-sp-body th, #cr-sp-body td { border: 1px solid var(--border-color-primary); padding: 0.2em 0.5em; text-align: left;
  vertical-align: top; overflow-wrap: normal; }
#cr-sp-foot a { color: #3730a3; font-weight: 600; }
.dark #cr-sp-foot a { color: #c7d2fe; }
/* The instructor's tables (ui/instructor/views.html_table): headers on one line, long names
   wrapped; on a phone each row stacks its cells under one another, each after its header. */
.cr-table-wrap { max-width: 100%; overflow-x: auto; }
table.cr-table { width: 100%; border-collapse: collapse; font-size: 0.9em; }
table.cr-table caption { caption-side: top; text-align: left; font-weight: 600; padding: 0.2em 0 0.4em; }
table.cr-table th, table.cr-table td { text-align: left; vertical-align: top; padding: 0.3em 0.5em;
  border-bottom: 1px solid var(--border-color-primary); }
table.cr-table th { white-space: nowrap; }
table.cr-table td { overflow-wrap: anywhere; }
table.cr-table td.cr-num { white-space: nowrap; }
table.cr-table td.cr-col-text { min-width: 12em; }
table.cr-table td.cr-col-name { min-width: 10em; }
table.cr-table a { color: #3730a3; }
.dark table.cr-table a { color: #c7d2fe; }
.cr-cell-label { display: none; }
/* The chat's own icons (the trash at its top right) float over the messages as they scroll:
   the messages keep out of their column, so a message's copy icon never slides under them. */
#cr-chat .message-wrap { padding-right: 1.6rem; }
/* Issue 43: an e-mail address or a file name is broken only where it cannot fit a line alone. */
#cr-chat .message-content, #cr-chat .message-content * { overflow-wrap: break-word; word-break: normal; }
/* Wide screens: the catalog's card column stays in view beside the roadmap as it scrolls. */
@media (min-width: WIDE) {
  #cr-catalog-side { position: sticky; top: 0.5rem; align-self: flex-start; max-height: calc(100vh - 1rem); overflow-y: auto; }
}
@media (max-width: NARROW) {
  #cr-main { flex-direction: column !important; }
  #cr-chat-col { order: -1; min-width: 0 !important; width: 100% !important; }
  #cr-sidebar { order: 0; display: none !important; min-width: 0 !important; width: 100% !important; }
  /* Opened, the sidebar comes first, at the top of the page where the toggle is (client.js
     scrolls it into view); below the chat it opened off-screen and the toggle seemed dead. */
  #cr-sidebar.cr-sidebar-open { display: flex !important; order: -2; }
  #cr-sidebar-toggle { display: block; width: 100%; }
  #cr-course-chip { display: block; }
  #cr-source-panel { left: 0; right: 0; width: auto; border-left: none; padding: 0.6em 0.8em; }
  #cr-top { flex-direction: column !important; align-items: stretch !important; }
  #cr-top > * { min-width: 0 !important; width: 100% !important; }
  #cr-lang { order: -1; margin-left: auto; width: auto !important; }
  /* The question box is in view when the page opens, under the header, course line and
     toggle (~330 px on a 360 x 640 phone), with the chat as tall as the rest allows. */
  #cr-chat { height: clamp(180px, calc(100svh - 420px), 60vh) !important; }
  /* Answers take the chat's width; the question box's hint fits beside a Send button
     as wide as its word. */
  #cr-chat .message-row.bubble { max-width: 100% !important; margin-left: 0 !important; margin-right: 0 !important; }
  #cr-ask-row { gap: 0.5rem; }
  #cr-ask-row #cr-send { flex: 0 0 auto !important; min-width: 0 !important; width: auto !important; padding: 0 0.5rem; }
  #cr-question { padding-left: 4px !important; padding-right: 4px !important; }
  #cr-question textarea { padding-left: 6px !important; padding-right: 6px !important; }
  table.cr-table thead { display: none; }  /* each cell says its header (.cr-cell-label) */
  table.cr-table, table.cr-table tbody, table.cr-table tr, table.cr-table td { display: block; width: auto; }
  table.cr-table caption { display: block; }
  table.cr-table tr { border-bottom: 1px solid var(--border-color-primary); padding: 0.4em 0; }
  table.cr-table td { border: none; padding: 0.1em 0.2em; min-width: 0 !important; white-space: normal !important; }
  table.cr-table td.cr-cell-empty { display: none; }
  .cr-cell-label { display: inline; font-weight: 600; margin-right: 0.4em; }
  .cr-cell-label::after { content: ":"; }
}
""".replace("NARROW", NARROW).replace("WIDE", WIDE)


# Rules for what lies outside Gradio's container (the page's body and margins, the source
# panel): Gradio scopes every rule of `css` inside a media query to its container, so these
# are added by client.js as a style element of their own.
PAGE_CSS = """
/* Wide screens: the source opens beside the chat, which narrows (client.js marks the body). */
@media (min-width: WIDE) {
  #cr-source-panel { width: min(34rem, 42vw); }
  body.cr-sp-open { padding-right: min(34rem, 42vw) !important; box-sizing: border-box; }
}
/* A phone's width goes to the page, not its margins. */
@media (max-width: NARROW) {
  .gradio-container .main.app { padding: 0.5rem 0.5rem 1rem !important; }
}
""".replace("NARROW", NARROW).replace("WIDE", WIDE)


def theme() -> gr.themes.Base:
    """Soft, indigo, with every text at 4.5:1 or more on its background."""
    return gr.themes.Soft(primary_hue="indigo", secondary_hue="slate", neutral_hue="slate").set(
        # Soft draws white on indigo-500 (4.46:1) and indigo-500 on indigo-100 (3.6:1): one shade darker.
        color_accent="*primary_600",
        block_label_text_color="*primary_700",
        block_title_text_color="*primary_700",
        checkbox_label_background_fill_selected="*primary_600",
        button_primary_background_fill="*primary_600",
        button_primary_background_fill_hover="*primary_700",
        body_text_color_subdued="#4b5563",
        body_text_color_subdued_dark="#d1d5db",
        block_info_text_color="#4b5563",
        block_info_text_color_dark="#d1d5db",
        input_placeholder_color="#6b7280",
        input_placeholder_color_dark="#9ca3af",
    )


GRADIO_WORDS = ("close", "drop", "or", "click", "file")  # ui.gradio_<word> in the text catalog


def client_js() -> str:
    """The page's script (courserag/ui/client.js), read when the app is launched, with the
    Gradio words it redraws taken from the text catalog."""
    words = {lang: {w: t(lang, f"gradio_{w}") for w in GRADIO_WORDS} for lang in LANGUAGES}
    script = (Path(__file__).parent / "client.js").read_text(encoding="utf-8")
    script = script.replace("__CR_PAGE_CSS__", json.dumps(PAGE_CSS))
    return script.replace("__CR_GRADIO_WORDS__", json.dumps(words, ensure_ascii=False))


def launch_options(settings: Settings, demo: gr.Blocks | None = None) -> dict[str, Any]:
    """What `demo.launch` needs besides host and port (Gradio 6 takes theme, CSS and the
    page script here); with the demo, also the route that serves course files, and the course
    folders blocked for everything else."""
    options: dict[str, Any] = {
        "theme": theme(),
        "css": CSS,
        "js": client_js(),
        "blocked_paths": [str(Path(settings.data_dir).resolve()), *getattr(demo, "cr_private_paths", ())],
        **server_options(settings),  # CSP, body caps, the upload route's limits (courserag/ui/server.py)
    }
    routes = getattr(demo, "cr_routes", None)
    if routes:  # beside the guard's middleware, never instead of it (issue 20, finding 1)
        options["app_kwargs"] = {**options.get("app_kwargs", {}), "routes": list(routes)}
    return options
