"""Which browser tab owns which upload pool, so that closing the tab frees it.

Each tab gets a random session id in a `gr.State`; the engine keys the tab's upload pool
by it. Gradio tells us a tab closed (`demo.unload`) by its own session hash, so the map
from hash to our ids lives here.

A reload (F5) is a new Gradio session that adopts the id kept in the browser's storage:
binding it moves it to the new session, so the old one's unload (seconds later) and the
deletion of the old one's state (an hour later) do not release the pool the new page uses.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections import OrderedDict

_SID = re.compile(r"^[0-9a-f]{32}$")


def new_sid() -> str:
    return uuid.uuid4().hex


def valid_sid(sid: object) -> str | None:
    """The id if it is one we could have issued, else None (client input is untrusted)."""
    return sid if isinstance(sid, str) and _SID.match(sid) else None


class SessionIndex:
    """Browser session (Gradio's session_hash) -> our session ids, for release on unload.

    API clients have no heartbeat, so their entries are never unloaded: the map is capped
    (oldest dropped; the engine's idle sweep still frees their pools).
    """

    MAX_ENTRIES = 10000

    def __init__(self, release):
        self._release = release  # engine.end_session
        self._by_hash: OrderedDict[str, set[str]] = OrderedDict()
        self._lock = threading.Lock()

    def bind(self, request, sid: str) -> None:
        session_hash = getattr(request, "session_hash", None) if request is not None else None
        if session_hash:
            with self._lock:
                for other, sids in list(self._by_hash.items()):
                    if other != session_hash and sid in sids:
                        sids.discard(sid)  # adopted by a reloaded page
                        if not sids:
                            del self._by_hash[other]
                self._by_hash.setdefault(session_hash, set()).add(sid)
                self._by_hash.move_to_end(session_hash)
                while len(self._by_hash) > self.MAX_ENTRIES:
                    self._by_hash.popitem(last=False)

    def release_hash(self, session_hash: str | None) -> None:
        if not session_hash:
            return
        with self._lock:
            sids = self._by_hash.pop(session_hash, set())
        for sid in sids:
            self._release(sid)

    def release_sid(self, sid: object) -> None:
        """Gradio dropped a state holding `sid`: release it unless a live page holds it."""
        if isinstance(sid, str) and sid:
            with self._lock:
                held = any(sid in sids for sids in self._by_hash.values())
            if not held:
                self._release(sid)
