"""The one way the app is started: `app.py` and the tests' app fixture both call `launch`.

So a defence that `launch_options` fails to install (the server guard was once replaced by the
course-file route's `app_kwargs`) fails the tests too, instead of only the running app.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from courserag.config.settings import Settings
from courserag.ui.theme import launch_options


def launch(demo: gr.Blocks, settings: Settings, **overrides: Any):
    """`demo.queue().launch(...)` at the settings' host and port with every launch option;
    `overrides` (e.g. `prevent_thread_lock`, a scaled-down `state_session_capacity`) win."""
    options: dict[str, Any] = {
        "server_name": settings.host,
        "server_port": settings.port,
        "show_error": False,
        **launch_options(settings, demo),
    }
    options.update(overrides)
    return demo.queue().launch(**options)
