"""Which upload pool belongs to which browser tab, decided on the server.

The engine keys a tab's upload pool by a session id. That id is derived here from the
session Gradio's own protocol carries with every event (`request.session_hash`), with a key
that never leaves the server: it is not kept in Gradio's per-session state, so when that
store evicts a session (it keeps 10,000 and drops the oldest; ~10,000 cheap requests with
new session hashes pushed real learners out) the learner keeps their notes, and no pool is
orphaned. Pools are released when the tab closes (`demo.unload`), when Gradio deletes the
session's state, or by the engine's idle sweep; a request never creates a pool before an
upload, and the engine caps how many exist.

A reload (F5) is a new Gradio session that adopts the session of the page it replaces: the
browser's storage keeps a reload key (never the id itself: the id does not leave the server,
and knowing it gives nothing), which `adopt` maps back to the id; `bind` ties it to the new
session hash. A closed tab's id is released RELOAD_GRACE_S after its unload, unless a
reloaded page adopted it meanwhile (the old page's unload comes the moment it closes, before
the new page has loaded).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
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
    """Gradio's session hash -> our session id: an HMAC under a key made per process, or the
    id a reloaded page adopted."""

    MAX_ENTRIES = 50000  # adopted sessions and reload keys kept (oldest forgotten first)

    def __init__(self, release, grace_s: float = RELOAD_GRACE_S):
        self._release = release  # engine.end_session
        self.grace_s = grace_s
        self._key = secrets.token_bytes(32)
        self._bound: OrderedDict[str, str] = OrderedDict()  # session hash -> adopted session id
        self._reload: OrderedDict[str, str] = OrderedDict()  # reload key -> session id
        self._reload_of: dict[str, str] = {}
        self._lock = threading.Lock()

    def sid_of_hash(self, session_hash: str) -> str:
        with self._lock:
            adopted = self._bound.get(session_hash)
        return adopted or hmac.new(self._key, session_hash.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]

    def sid_for(self, request, fallback: object = None) -> str | None:
        """The session id of the tab that sent `request`; without a request (direct calls in
        tests and tools), the id the caller holds, if it is well formed."""
        session_hash = getattr(request, "session_hash", None) if request is not None else None
        if isinstance(session_hash, str) and session_hash:
            return self.sid_of_hash(session_hash)
        return valid_sid(fallback)

    # -- reloads ------------------------------------------------------------------------

    def reload_key(self, sid: str) -> str:
        """The key a page keeps in the browser to find `sid` again after a reload."""
        with self._lock:
            key = self._reload_of.get(sid)
            if key is None:
                key = uuid.uuid4().hex
                self._reload_of[sid] = key
            self._reload[key] = sid
            self._reload.move_to_end(key)
            while len(self._reload) > self.MAX_ENTRIES:
                _, old_sid = self._reload.popitem(last=False)
                self._reload_of.pop(old_sid, None)
            return key

    def adopt(self, key: object) -> str | None:
        """The session id a reload key stands for (None for an unknown or malformed key)."""
        if not valid_sid(key):
            return None
        with self._lock:
            return self._reload.get(key)

    def bind(self, request, sid: str) -> None:
        """`request`'s session takes `sid` over (a reloaded page adopting its predecessor's)."""
        session_hash = getattr(request, "session_hash", None) if request is not None else None
        if not (isinstance(session_hash, str) and session_hash and valid_sid(sid)):
            return
        with self._lock:
            for other, bound in list(self._bound.items()):
                if bound == sid and other != session_hash:
                    del self._bound[other]
            self._bound[session_hash] = sid
            self._bound.move_to_end(session_hash)
            while len(self._bound) > self.MAX_ENTRIES:
                self._bound.popitem(last=False)

    # -- release ------------------------------------------------------------------------

    def release_hash(self, session_hash: str | None) -> None:
        """The tab closed (or reloads): its id goes after the grace time unless adopted."""
        if not session_hash:
            return
        sid = self.sid_of_hash(session_hash)
        with self._lock:
            self._bound.pop(session_hash, None)
        if self.grace_s <= 0:
            self.release_sid(sid)
            return
        timer = threading.Timer(self.grace_s, self.release_sid, args=(sid,))
        timer.daemon = True
        timer.start()

    def release_sid(self, sid: object) -> None:
        """Release `sid` unless a live page has adopted it."""
        if isinstance(sid, str) and sid:
            with self._lock:
                held = sid in self._bound.values()
            if not held:
                self._release(sid)
