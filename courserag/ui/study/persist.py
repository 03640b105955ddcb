"""What a reload (F5) brings back: the tab's session, conversation and choices, kept in the
browser's storage (`gr.BrowserState`), and what to say when it cannot.

The stored value is plain data: the session's reload key (sessions.py; never the session id
itself), when it was saved, the course, language and scope, the names of the uploaded notes,
and the answered turns (question, answer text and citations, and what else their message
showed: the notes not yet searched, the warnings, a reply said instead of the answer, the
learner's 👍/👎). The conversation is rendered again from that data on load
(rendering/render.py), exactly as it was shown, never taken from stored HTML. Within
SESSION_IDLE_MINUTES of the last save the conversation comes back, and the notes too while the
server still holds the session's pool; otherwise the learner is told plainly what was cleared.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from courserag.i18n.messages import Notice
from courserag.ui.study.sessions import valid_sid
from courserag.ui.study.turns import ChatTurn

VERSION = 1
MAX_TURNS = 20  # the last answers kept (each carries its cited passages)
_CITATION_KEYS = ("n", "source", "locator", "origin", "course_id", "text", "doc_type")


_FEEDBACK_ID = re.compile(r"^[0-9a-f]{32}$")
SAID = frozenset({"no_notes_to_search"})  # replies shown instead of the answer (ChatTurn.said)


def notice_to_dict(notice: Notice) -> dict:
    params = {k: notice_to_dict(v) if isinstance(v, Notice) else v for k, v in dict(notice.params).items()}
    return {"code": notice.code, "params": params}


def notice_from_dict(raw: object, depth: int = 0) -> Notice | None:
    """A stored warning as a Notice, or None: only known codes and plain values come back."""
    if not isinstance(raw, dict) or not isinstance(raw.get("code"), str) or depth > 2:
        return None
    params = {}
    for key, value in (raw.get("params") if isinstance(raw.get("params"), dict) else {}).items():
        if isinstance(value, dict):
            value = notice_from_dict(value, depth + 1)
        elif isinstance(value, str):
            value = _text(value, 2000)
        elif not isinstance(value, (int, float)) or isinstance(value, bool):
            value = None
        if value is None:
            return None
        params[str(key)[:40]] = value
    try:
        return Notice(raw["code"][:80], params)
    except KeyError:
        return None


def _vote_to_dict(feedback: dict | None) -> dict | None:
    if not feedback or feedback.get("vote") not in ("up", "down"):
        return None
    return {"id": feedback.get("id"), "vote": feedback["vote"], "wrong": bool(feedback.get("wrong"))}


def _clean_vote(raw: object) -> dict | None:
    if not isinstance(raw, dict) or raw.get("vote") not in ("up", "down"):
        return None
    if not isinstance(raw.get("id"), str) or not _FEEDBACK_ID.match(raw["id"]):
        return None
    return {"id": raw["id"], "vote": raw["vote"], "wrong": raw.get("wrong") is True}


def turn_to_dict(turn: ChatTurn) -> dict:
    return {
        "question": turn.question,
        "answer": turn.answer,
        "course": turn.course,
        "scope": turn.scope,
        "refused": turn.refused,
        "mode": turn.mode,
        "citations": [{k: c.get(k) for k in _CITATION_KEYS if k in c} for c in turn.citations],
        "said": turn.said,
        "pending": list(turn.pending),
        "notices": [notice_to_dict(n) for n in turn.notices if isinstance(n, Notice)],
        "vote": _vote_to_dict(turn.feedback),
    }


def snapshot(
    key: str | None, course: str | None, lang: str, scope: str, turns: list[ChatTurn], uploads: list[str]
) -> dict:
    """The value to store in the browser after a change (`key`: the session's reload key)."""
    return {
        "v": VERSION,
        "key": key,
        "saved": time.time(),
        "course": course,
        "lang": lang,
        "scope": scope,
        "uploads": list(uploads),
        "turns": [turn_to_dict(turn) for turn in turns[-MAX_TURNS:]],
    }


@dataclass(frozen=True)
class Restored:
    """What the stored value says to bring back, after checking it."""

    key: str | None = None  # the reload key (valid_sid-shaped), to be looked up by SessionIndex.adopt
    course: str | None = None
    lang: str | None = None
    scope: str | None = None
    turns: tuple[dict, ...] = ()
    uploads: tuple[str, ...] = ()
    expired: bool = False  # there was a session, but it is older than the idle limit


def _text(value: object, limit: int = 20000) -> str:
    return str(value or "")[:limit]


def _clean_turn(raw: object) -> dict | None:
    """A stored turn as trusted data, or None: the browser's storage is client input."""
    if not isinstance(raw, dict) or not raw.get("question"):
        return None
    citations = []
    for cite in raw.get("citations") or []:
        if isinstance(cite, dict) and isinstance(cite.get("n"), int):
            citations.append({k: (_text(cite.get(k)) if k not in ("n",) else cite["n"]) for k in _CITATION_KEYS})
    for cite in citations:
        cite["origin"] = "upload" if cite.get("origin") == "upload" else "course"
        cite["course_id"] = cite.get("course_id") or None
    return {
        "question": _text(raw.get("question"), 4000),
        "answer": _text(raw.get("answer")),
        "course": _text(raw.get("course"), 100),
        "scope": _text(raw.get("scope"), 10) or "both",
        "refused": bool(raw.get("refused")),
        "mode": _text(raw.get("mode"), 20),
        "citations": citations[:20],
        "said": raw.get("said") if raw.get("said") in SAID else "",
        "pending": [_text(name, 200) for name in (raw.get("pending") or [])[:20] if isinstance(name, str)],
        "notices": [n for n in (notice_from_dict(x) for x in (raw.get("notices") or [])[:10]) if n is not None],
        "vote": _clean_vote(raw.get("vote")),
    }


def restore(stored: object, idle_minutes: float, now: float | None = None) -> Restored:
    """Check the stored value: a recent one comes back whole, an old one says it expired."""
    if not isinstance(stored, dict) or stored.get("v") != VERSION:
        return Restored()
    key = valid_sid(stored.get("key"))
    saved = stored.get("saved")
    now = time.time() if now is None else now
    if not isinstance(saved, (int, float)) or now - saved > idle_minutes * 60:
        had_something = bool(stored.get("turns") or stored.get("uploads"))
        return Restored(expired=had_something)
    turns = tuple(t for t in (_clean_turn(raw) for raw in (stored.get("turns") or [])[-MAX_TURNS:]) if t)
    uploads = tuple(_text(name, 200) for name in (stored.get("uploads") or []) if isinstance(name, str))
    lang = stored.get("lang") if stored.get("lang") in ("en", "zh") else None
    scope = stored.get("scope") if stored.get("scope") in ("both", "course", "notes") else None
    course = stored.get("course") if isinstance(stored.get("course"), str) else None
    return Restored(key, course, lang, scope, turns, uploads[:50])
