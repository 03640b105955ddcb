"""Which browser tab owns which upload pool, so that closing the tab frees it.

Each tab gets a random session id in a `gr.State`; the engine keys the tab's upload pool
by it. Gradio tells us a tab closed (`demo.unload`) by its own session hash, so the map
from hash to our ids lives here.

A reload (F5) is a new Gradio session that adopts the session of the page it replaces: the
browser's storage keeps a reload key (never the id itself: the id does not leave the server,
and knowing it gives nothing), which this index maps back to the id; binding it moves it to
the new session. A closed session's ids are released RELOAD_GRACE_S
after its unload, unless a reloaded page adopted them meanwhile (the old page's unload comes
the moment it closes, before the new page has loaded); the deletion of the old session's state
(an hour later) does not release an id a live page holds either.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections import OrderedDict

_SID = re.compile(r"^[0-9a-f]{32}$")
RELOAD_GRACE_S = 10.0  # a reload finds its session again within this time; a closed tab's uploads go after it


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

    def __init__(self, release, grace_s: float = RELOAD_GRACE_S):
        self._release = release  # engine.end_session
        self.grace_s = grace_s
        self._keys: OrderedDict[str, str] = OrderedDict()  # reload key -> session id
        self._key_of: dict[str, str] = {}
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
        """The tab closed (or reloads): its ids go after the grace time unless adopted."""
        if not session_hash:
            return
        with self._lock:
            sids = self._by_hash.pop(session_hash, set())
        for sid in sids:
            timer = threading.Timer(self.grace_s, self.release_sid, args=(sid,))
            timer.daemon = True
            timer.start()

    def reload_key(self, sid: str) -> str:
        """The key a page keeps in the browser to find `sid` again after a reload."""
        with self._lock:
            key = self._key_of.get(sid)
            if key is None:
                key = uuid.uuid4().hex
                self._key_of[sid] = key
            self._keys[key] = sid
            self._keys.move_to_end(key)
            while len(self._keys) > self.MAX_ENTRIES:
                old_key, old_sid = self._keys.popitem(last=False)
                self._key_of.pop(old_sid, None)
            return key

    def adopt(self, key: object) -> str | None:
        """The session id a reload key stands for (None for an unknown or malformed key)."""
        if not valid_sid(key):
            return None
        with self._lock:
            return self._keys.get(key)

    def release_sid(self, sid: object) -> None:
        """Gradio dropped a state holding `sid`: release it unless a live page holds it."""
        if isinstance(sid, str) and sid:
            with self._lock:
                held = any(sid in sids for sids in self._by_hash.values())
            if not held:
                self._release(sid)
