"""How the app looks: the Gradio theme, our CSS, and the launch options that carry them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from courserag.settings import Settings
from courserag.ui.server import server_options

CSS = """
.cr-header h1 { margin-bottom: 0.1em; }
.cr-header p { margin-top: 0; color: var(--body-text-color-subdued); }
#cr-lang { margin-left: auto; align-self: center; }
#cr-lang .wrap { flex-wrap: nowrap; }
#cr-course-status { min-height: 0; }
#cr-sidebar { gap: 0.8em; }
#cr-examples { align-items: center; flex-wrap: wrap; gap: 0.4em; }
#cr-examples-label { flex: 0 0 auto !important; min-width: 0 !important; }
#cr-clear-row { justify-content: flex-end; }
#cr-remove { margin: 0.3em 0.6em 0.3em auto; max-width: 12em; }
#cr-course-card { padding: 0.2em 0.2em; }
#cr-course-card .cr-desc { color: var(--body-text-color-subdued); margin: 0.2em 0 0.4em 0; }
#cr-course-card .cr-meta { font-size: 0.9em; }
.cr-hint { font-size: 0.9em; border-left: 3px solid #f59e0b; background: rgba(245, 158, 11, 0.08);
  padding: 0.4em 0.6em; border-radius: 4px; margin-top: 0.4em; }
#cr-course-status { font-size: 0.9em; min-height: 1.2em; }
#cr-course-status p { color: var(--color-accent); }
.cr-privacy { font-size: 0.85em; color: var(--body-text-color-subdued); }
.cr-log div { font-size: 0.9em; padding: 0.15em 0; }
.cr-log .cr-ok { color: #15803d; }
.cr-log .cr-fail { color: #b91c1c; }
.cr-log .cr-info { color: var(--body-text-color-subdued); }
table.cr-notes { width: 100%; font-size: 0.88em; border-collapse: collapse; }
table.cr-notes th, table.cr-notes td { text-align: left; padding: 0.2em 0.4em;
  border-bottom: 1px solid var(--border-color-primary); }
.cr-empty { font-size: 0.9em; color: var(--body-text-color-subdued); }
.cr-sources { margin-top: 0.7em; padding-top: 0.4em; border-top: 1px solid var(--border-color-primary);
  font-size: 0.92em; }
.cr-sources-title { font-weight: 600; margin-bottom: 0.2em; }
details.cr-cite { margin: 0.15em 0; }
details.cr-cite > summary { cursor: pointer; list-style-position: outside; margin-left: 1.1em; }
.cr-n { font-weight: 600; }
.cr-loc { color: var(--body-text-color-subdued); }
.cr-badge { display: inline-block; font-size: 0.78em; line-height: 1.5; padding: 0 0.55em;
  border-radius: 999px; margin-left: 0.35em; vertical-align: 0.08em; white-space: nowrap; }
.cr-badge.cr-course { background: #e0e7ff; color: #3730a3; }
.cr-badge.cr-upload { background: #dcfce7; color: #166534; }
.cr-passage { margin: 0.3em 0 0.5em 1.1em; padding: 0.4em 0.7em; border-left: 3px solid #a5b4fc;
  background: var(--background-fill-secondary); max-height: 16em; overflow: auto; font-size: 0.95em; }
#cr-examples button { flex: 0 1 auto !important; min-width: 0 !important; font-weight: normal; }
#cr-feedback { border: 1px solid var(--border-color-accent); }
#cr-upload.block { border: 2px dashed #a5b4fc !important; }
#cr-token-row { align-items: flex-end; }
#cr-token-row button, #cr-instr-actions button { max-height: 3.2em; align-self: flex-end; }
#cr-instr-actions { align-items: flex-end; }
"""


def theme() -> gr.themes.Base:
    return gr.themes.Soft(primary_hue="indigo", secondary_hue="slate", neutral_hue="slate")


def launch_options(settings: Settings) -> dict[str, Any]:
    """What `demo.launch` needs besides host and port (Gradio 6 takes theme and CSS here)."""
    return {
        "theme": theme(),
        "css": CSS,
        "blocked_paths": [str(Path(settings.data_dir).resolve())],
        **server_options(settings),  # CSP, body caps, the upload route's limits (courserag/ui/server.py)
    }
