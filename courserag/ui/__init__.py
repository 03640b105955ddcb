"""The Gradio app: `build_demo(engine, settings) -> gr.Blocks` (built in app.py).

The shell, at the top of this package:
- app.py: `build_demo`, the page's frame and the events that span the tabs
- launch.py: `launch(demo, settings)`, the one way the app is served (as `app.py` does);
  theme.py: the look, the launch options and the page's script (client.js, the source panel)
- server.py: the server guard (CSP, body caps, the upload route); clients.py: who a client is
- files.py: the route that opens course files at the cited place

The features, one sub-package each, importing the shell and rendering/ but not each other:
- study/: the Study tab: handlers.py (`StudyApp`) + uploads.py (its upload handlers),
  layout.py (widgets and wiring), persist.py (what a reload keeps), turns.py (the chat's
  turns), sessions.py (which browser tab owns which upload pool)
- instructor/: the Instructor tab (token-checked on every call): tab.py (handlers),
  layout.py (widgets and wiring), views.py (its tables and choices), files.py (file actions)
- roadmap/: the catalog's tab: tab.py (handlers and widgets), views.py (a program's roadmap
  and a course's card)

Shared by them, importing no feature: rendering/: render.py (every HTML/Markdown block:
answers, citations, uploads, course card), sanitize.py (the one HTML path), mathtext.py,
numbering.py, sources.py (what the source panel shows of a passage), labels.py (one table of
translated labels). The interface's words are in courserag/i18n/ (ui_texts.py, locators.py).
"""

from __future__ import annotations

from courserag.ui.app import build_demo
from courserag.ui.rendering.render import (
    escape_markdown_html,
    format_answer,
    render_citations,
    render_upload_log,
    upload_line,
)
from courserag.ui.study.handlers import StudyApp
from courserag.ui.theme import launch_options

__all__ = [
    "StudyApp",
    "build_demo",
    "launch_options",
    "escape_markdown_html",
    "format_answer",
    "render_citations",
    "render_upload_log",
    "upload_line",
]
