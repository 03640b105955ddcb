"""The one way the tests start the web app: through `courserag.ui.launch.launch`, the function
`app.py` calls, so every launch option (the server guard, the course-file route, the blocked
paths) is the one production gets. A defence that the launch path does not install fails the
tests that use this (issue 20: `launch_options` once dropped the guard and no test noticed,
because the test fixture built its own options).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import replace
from types import SimpleNamespace
from typing import Iterator

from tests.app_helpers import free_port


@contextmanager
def launched(engine, settings, **overrides) -> Iterator[SimpleNamespace]:
    """The real Blocks over `engine`, served on a free port of 127.0.0.1 until the block ends.
    `overrides` go to `demo.launch` (e.g. a scaled-down `state_session_capacity`)."""
    from courserag.ui import build_demo
    from courserag.ui.launch import launch

    settings = replace(settings, host="127.0.0.1", port=free_port())
    demo = build_demo(engine, settings)
    launch(demo, settings, prevent_thread_lock=True, quiet=True, **overrides)
    try:
        yield SimpleNamespace(url=f"http://127.0.0.1:{settings.port}/", engine=engine, demo=demo, settings=settings)
    finally:
        _stop_streams(demo)
        demo.close()


def _stop_streams(demo) -> None:
    """Set the app's stop event on the server's own loop before `demo.close()` sets it from
    this thread: Gradio's close() calls asyncio.Event.set() off the loop, which races a
    streaming request's wait on it being cancelled (InvalidStateError at teardown, seen on a
    busy machine), and then skips closing the server. Set first, close()'s set is a no-op."""
    event = getattr(getattr(demo, "app", None), "stop_event", None)
    loop = getattr(event, "_loop", None)  # bound when the first request waited on it
    if event is None or loop is None or not loop.is_running():
        return
    done = threading.Event()

    def stop() -> None:
        event.set()
        done.set()

    loop.call_soon_threadsafe(stop)
    done.wait(10)  # the loop runs it at once unless it is shutting down


def wait_until(condition, timeout: float = 30.0) -> bool:
    """Poll a condition on another thread's progress (no fixed sleep decides the outcome)."""
    tick = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():
            return True
        tick.wait(0.01)
    return condition()
