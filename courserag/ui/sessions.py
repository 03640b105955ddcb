"""Which upload pool belongs to which browser tab, decided on the server.

The engine keys a tab's upload pool by a session id. That id is derived here from the
session Gradio's own protocol carries with every event (`request.session_hash`), with a key
that never leaves the server: it is not kept in Gradio's per-session state, so when that
store evicts a session (it keeps 10,000 and drops the oldest; ~10,000 cheap requests with
new session hashes pushed real learners out) the learner keeps their notes, and no pool is
orphaned. Pools are released when the tab closes (`demo.unload`), when Gradio deletes the
session's state, or by the engine's idle sweep; a request never creates a pool before an
upload, and the engine caps how many exist.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid

_SID = re.compile(r"^[0-9a-f]{32}$")


def new_sid() -> str:
    return uuid.uuid4().hex


def valid_sid(sid: object) -> str | None:
    """The id if it is one we could have issued, else None (client input is untrusted)."""
    return sid if isinstance(sid, str) and _SID.match(sid) else None


class SessionIndex:
    """Gradio's session hash -> our session id (an HMAC under a key made per process)."""

    def __init__(self, release):
        self._release = release  # engine.end_session
        self._key = secrets.token_bytes(32)

    def sid_of_hash(self, session_hash: str) -> str:
        return hmac.new(self._key, session_hash.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]

    def sid_for(self, request, fallback: object = None) -> str | None:
        """The session id of the tab that sent `request`; without a request (direct calls in
        tests and tools), the id the caller holds, if it is well formed."""
        session_hash = getattr(request, "session_hash", None) if request is not None else None
        if isinstance(session_hash, str) and session_hash:
            return self.sid_of_hash(session_hash)
        return valid_sid(fallback)

    def release_hash(self, session_hash: str | None) -> None:
        if session_hash:
            self._release(self.sid_of_hash(session_hash))

    def release_sid(self, sid: object) -> None:
        if isinstance(sid, str) and sid:
            self._release(sid)
