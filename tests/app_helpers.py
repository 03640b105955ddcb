"""Helpers shared by the tests that talk to a running Gradio app or measure memory."""

from __future__ import annotations

import gc
import json
import socket
import uuid

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (free to bind, or closed to connect to)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def dependencies(url: str) -> dict[str, dict]:
    config = httpx.get(url + "config", timeout=10).json()
    return {d["api_name"]: d for d in config["dependencies"] if d.get("api_name")}


def queue_call(url: str, dependency: dict, data: list, timeout: float = 120.0) -> dict:
    """Call an event by fn_index through the queue, as the browser does."""
    session = uuid.uuid4().hex[:11]
    trigger = dependency["targets"][0][0] if dependency.get("targets") else None
    with httpx.Client(base_url=url, timeout=timeout) as http:
        joined = http.post(
            "gradio_api/queue/join",
            json={
                "data": data,
                "event_data": None,
                "fn_index": dependency["id"],
                "trigger_id": trigger,
                "session_hash": session,
            },
        )
        joined.raise_for_status()
        with http.stream("GET", "gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if message.get("msg") == "process_completed":
                        return message
    raise AssertionError("no process_completed message")


def rss() -> int:
    """Resident memory after a GC and, on glibc, after handing freed heap back to the OS
    (malloc_trim), so memory the allocator merely keeps cached is not counted as held."""
    import ctypes
    import ctypes.util

    import psutil

    gc.collect()
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: measure as is
        pass
    return psutil.Process().memory_info().rss
