"""The Study tab's handlers: course, chat, feedback, and what a reload brings back (uploads: uploads.py).

Handlers only translate between widgets and the engine; every answer, upload and index
operation is the engine's job, every word and HTML block comes from courserag/ui/rendering/render.py
and courserag/i18n/ui_texts.py. Layout and wiring are in courserag/ui/study/layout.py.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import gradio as gr

from courserag.config.settings import Settings
from courserag.errors import CourseRagError, QuestionError
from courserag.i18n.ui_texts import normalize_lang, t
from courserag.instructor.feedback import FeedbackLog
from courserag.instructor.gap_rules import REDIRECT_MODE
from courserag.lang.script import script_of
from courserag.results import Answer, IndexStatus
from courserag.ui.clients import ClientPolicy, PerClientLimit, request_client
from courserag.ui.rendering.render import (
    answer_citations,
    escape_markdown_html,
    format_reply,
    inert_links,
    render_course_card,
    render_course_chip,
    render_notes,
)
from courserag.ui.rendering.sanitize import text_html
from courserag.ui.study.persist import Restored, restore, snapshot
from courserag.ui.study.sessions import SessionIndex, new_sid
from courserag.ui.study.turns import ChatTurn, conversation, find_turn, replace_turn
from courserag.ui.study.uploads import UploadHandlers

log = logging.getLogger(__name__)

MAX_EXAMPLES = 4
INDEX_INFO_TTL_S = 30.0


def recent_messages(history, max_chars: int) -> list:
    """The newest chat messages the client sent back, at most `max_chars` of content in all
    (a 5 MB history once cost 42 s of server time per question)."""
    kept: list = []
    used = 0
    for message in reversed(list(history or [])[-200:]):
        content = message.get("content") if isinstance(message, dict) else None
        used += len(str(content))
        if used > max_chars:
            break
        kept.append(message)
    return kept[::-1]


class StudyApp(UploadHandlers):
    """The learner-facing handlers, bound to one engine."""

    def __init__(self, engine, settings: Settings):
        self.engine = engine
        self.settings = settings
        self.feedback = FeedbackLog(settings.data_dir)
        self.sessions = SessionIndex(engine.end_session)
        self.clients = ClientPolicy.from_settings(settings)
        self.feedback_limit = PerClientLimit(settings.server.feedback_per_client)  # per client, not per tab
        self._index_info: dict[str, tuple[float, IndexStatus]] = {}
        self._index_lock = threading.Lock()

    @property
    def docs_by_course(self) -> dict[str, Path]:
        return {c.id: c.docs for c in self.engine.courses}

    # -- course -------------------------------------------------------------------------

    def default_course(self) -> str | None:
        return self.engine.courses[0].id if self.engine.courses else None

    def course_choices(self) -> list[tuple[str, str]]:
        return [(c.name, c.id) for c in self.engine.courses]

    def index_status(self, course_id: str, fresh: bool = False) -> IndexStatus:
        """The engine's index status, cached briefly (every page load shows it)."""
        now = time.monotonic()
        with self._index_lock:
            cached = self._index_info.get(course_id)
            if cached and not fresh and now - cached[0] < INDEX_INFO_TTL_S:
                return cached[1]
        status = self.engine.index_status(course_id)
        with self._index_lock:
            self._index_info[course_id] = (now, status)
        return status

    def forget_index_status(self, course_id: str) -> None:
        with self._index_lock:
            self._index_info.pop(course_id, None)

    def course_card(self, course_id: str | None, lang: str) -> str:
        if not course_id:
            return ""
        try:
            course = self.engine.course(course_id)
        except CourseRagError as exc:
            return escape_markdown_html(exc.say(lang))
        return render_course_card(course, self.index_status(course.id), lang)

    def course_chip(self, course_id: str | None, lang: str) -> str:
        """The course in use, in one line (shown above the chat on narrow screens)."""
        try:
            course = self.engine.course(course_id) if course_id else None
        except CourseRagError:
            course = None
        return render_course_chip(course.name if course else "", normalize_lang(lang))

    def example_updates(self, course_id: str | None) -> list:
        examples: tuple[str, ...] = ()
        if course_id:
            try:
                examples = self.engine.course(course_id).examples
            except CourseRagError:
                examples = ()
        return [
            gr.update(value=examples[i], visible=True) if i < len(examples) else gr.update(value="", visible=False)
            for i in range(MAX_EXAMPLES)
        ]

    def select_course(self, course_id, sid, lang, request: gr.Request = None):
        """Switch course: the card, the status line and the example questions change."""
        lang = normalize_lang(lang)
        try:
            course = self.engine.course(course_id)
        except CourseRagError as exc:
            return self.course_card(None, lang), f"⚠️ {exc.say(lang)}", *self.example_updates(None)
        sid = self.sessions.sid_for(request, sid)
        count = len(self.engine.uploads(sid)) if sid else 0
        notes = t(lang, "switched_notes_kept", count=count) if count else t(lang, "switched_no_notes")
        status = t(lang, "switched", course=course.name, notes=notes).strip()
        return self.course_card(course.id, lang), status, *self.example_updates(course.id)

    # -- notes --------------------------------------------------------------------------

    def notes_html(self, sid: str | None, lang: str) -> str:
        if not sid:
            return render_notes([], lang)
        return render_notes(self.engine.uploads(sid), lang, self.engine.pending_uploads(sid))

    def upload_names(self, sid: str | None) -> list[str]:
        return [f.name for f in self.engine.uploads(sid)] if sid else []

    def remove_choices(self, sid: str | None, lang: str):
        names = self.upload_names(sid)
        return gr.update(choices=names, value=[], label=t(lang, "remove_label"), interactive=bool(names))

    # -- session: load, reload, unload --------------------------------------------------

    def on_load(self, stored, sid, course_id, lang, request: gr.Request):
        """A page load: a new session, or a reload that adopts the stored one (see persist.py).
        Outputs: sid, lang, course, scope, card, session note, notes, upload names, chat,
        turns, examples…"""
        restored = restore(stored, self.settings.session_idle_minutes)
        lang = restored.lang or normalize_lang(lang)
        adopted = self.sessions.adopt(restored.key)
        if adopted:
            self.sessions.bind(request, adopted)
        sid = adopted or self.sessions.sid_for(request, sid) or new_sid()
        known = {c.id for c in self.engine.courses}
        course_id = restored.course if restored.course in known else course_id or self.default_course()
        history, turns = self._restored_chat(restored, lang)
        return (
            sid,
            lang,
            gr.update(value=course_id, choices=self.course_choices()),
            restored.scope or gr.skip(),
            self.course_card(course_id, lang),
            self._restore_note(restored, sid, lang, adopted is not None),
            self.notes_html(sid, lang),
            self.upload_names(sid),
            history,
            turns,
            *self.example_updates(course_id),
        )

    def _restored_chat(self, restored: Restored, lang: str) -> tuple[dict, list[ChatTurn]]:
        """The chat as it was shown (each message, its 👍/👎) and its turns, from the stored data."""
        history: list[dict] = []
        turns: list[ChatTurn] = []
        votes: list[str | None] = []
        for turn in restored.turns:
            history.append({"role": "user", "content": text_html(turn["question"])})
            history.append({"role": "assistant", "content": ""})
            restored_turn = ChatTurn(
                index=len(history) - 1,
                question=turn["question"],
                answer=turn["answer"],
                citations=tuple(turn["citations"]),
                course=turn["course"],
                scope=turn["scope"],
                refused=turn["refused"],
                mode=turn["mode"],
                notices=tuple(turn["notices"]),
                pending=tuple(turn["pending"]),
                said=turn["said"],
            )
            restored_turn = restored_turn.rated(self._restored_vote(restored_turn, turn["vote"]))
            history[-1]["content"] = self.shown(restored_turn, lang)
            turns.append(restored_turn)
            votes.append({"up": "Like", "down": "Dislike"}.get((turn["vote"] or {}).get("vote")))
        return gr.update(value=history, feedback_value=votes if any(votes) else None), turns

    def _restored_vote(self, turn: ChatTurn, vote: dict | None) -> dict | None:
        """The feedback record of a restored turn's vote, as it was stored (never stored again)."""
        if not vote:
            return None
        record = self.feedback.vote_record(
            question=turn.question,
            answer=turn.answer,
            citations=list(turn.citations),
            course_id=turn.course,
            vote=vote["vote"],
            scope=turn.scope or "both",
            refused=turn.refused,
            mode=turn.mode,
            feedback_id=vote["id"],
        )
        return dict(record, wrong=True) if vote.get("wrong") else record

    def shown(self, turn: ChatTurn, lang: str) -> str:
        """The assistant message of a turn, as it is shown when asked, after a reload and after a
        language switch: in its question's language, the sources' labels in `lang`."""
        said_in = script_of(turn.question)
        if turn.said:
            return format_reply(
                t(said_in, turn.said), False, [], lang, self.docs_by_course, turn.scope, said_in=said_in
            )
        notices = [n.text(said_in) for n in turn.notices if hasattr(n, "text")]
        return format_reply(
            turn.answer,
            turn.refused,
            turn.citations,
            lang,
            self.docs_by_course,
            turn.scope,
            notices,
            turn.pending,
            mode=turn.mode,
            said_in=said_in,
        )

    def _restore_note(self, restored: Restored, sid: str, lang: str, adopted: bool) -> str:
        minutes = f"{self.settings.session_idle_minutes:g}"
        if restored.expired:
            return t(lang, "session_expired", minutes=minutes)
        if not restored.key or not (restored.turns or restored.uploads):
            return ""
        names = self.upload_names(sid) if adopted else []  # an unknown key: the server restarted
        missing = [name for name in restored.uploads if name not in names]
        if missing:
            return t(lang, "restored_notes_cleared", files=", ".join(missing), minutes=minutes)
        return t(lang, "restored")

    def save_state(self, sid, course_id, lang, scope, turns, request: gr.Request = None):
        """The browser's copy of this tab, after a change (see persist.py), and a line saying
        what it holds (a hidden element: tests wait on it before they reload)."""
        sid = self.sessions.sid_for(request, sid)
        turns = [turn for turn in (turns or []) if isinstance(turn, ChatTurn)]
        key = self.sessions.reload_key(sid) if sid else None
        value = snapshot(key, course_id, normalize_lang(lang), scope or "both", turns, self.upload_names(sid))
        rated = sum(1 for turn in value["turns"] if turn["vote"])
        return value, f"{len(value['turns'])} turns, {len(value['uploads'])} files" + (
            f", {rated} rated" if rated else ""
        )

    def on_unload(self, request: gr.Request):
        self.sessions.release_hash(getattr(request, "session_hash", None))

    # -- chat ---------------------------------------------------------------------------

    def ask(self, question, history, course_id, scope, sid, lang, turns, request: gr.Request = None):
        """Stream the answer into the chat; the final message carries the citations."""
        lang = normalize_lang(lang)
        history = recent_messages(history, self.settings.server.max_history_chars)  # client-sent: bounded first
        turns = [turn for turn in (turns or []) if isinstance(turn, ChatTurn)]
        sid = self.sessions.sid_for(request, sid)
        try:
            question = self.engine.check_question(question or "")  # the engine's one check
        except QuestionError as exc:  # not an error, and not a message to rate
            gr.Warning(t(lang, exc.code, **exc.params))  # the interface's wording of the same check
            # An empty box is cleared; a long question stays in the box to be shortened.
            yield list(history), ("" if exc.code == "empty_question" else gr.skip()), turns, None
            return
        scope = scope or "both"
        # Files still being indexed now are not searched for this answer: it says so.
        pending = self.engine.pending_uploads(sid) if scope != "course" else []
        history.append({"role": "user", "content": text_html(question)})
        history.append({"role": "assistant", "content": f"*{t(lang, 'thinking')}*"})
        yield list(history), "", gr.skip(), gr.skip()
        previous = conversation(turns, course_id)
        final: Answer | None = None
        try:
            for update in self.engine.answer_stream(course_id, question, session_id=sid, scope=scope, history=previous):
                if isinstance(update, Answer):
                    final = update
                else:
                    history[-1] = {"role": "assistant", "content": inert_links(escape_markdown_html(update))}
                    yield list(history), gr.skip(), gr.skip(), gr.skip()
        except Exception as exc:  # noqa: BLE001 - the learner gets a message, never a stuck spinner
            detail = self._error_detail(exc, question, lang)
            history[-1] = {"role": "assistant", "content": escape_markdown_html("⚠️ " + t(lang, "error", detail=detail))}
            yield list(history), gr.skip(), turns, {"error": detail}
            return
        assert final is not None
        # Nothing was searched: say so, not "not in this course's materials" (the API keeps the refusal).
        nothing_searched = final.refused and scope == "notes" and not pending and not (sid and self.engine.uploads(sid))
        turn = ChatTurn(
            index=len(history) - 1,
            question=question,
            answer=final.answer,
            citations=tuple(answer_citations(final)),
            course=course_id,
            scope=scope,
            refused=final.refused,
            mode=REDIRECT_MODE if final.redirected else final.mode,  # its 👎 is no content gap
            notices=tuple(final.notices),
            pending=tuple(p.name for p in pending) if scope in ("both", "notes") else (),
            said="no_notes_to_search" if nothing_searched else "",
        )
        history[-1] = {"role": "assistant", "content": self.shown(turn, lang)}
        turns.append(turn)
        yield list(history), gr.skip(), turns, final.to_json()

    def chat_in(self, history, turns, lang) -> list:
        """The chat said again in `lang` (a language switch): each answer's hint, notices,
        source badges and places ("page 3" / "第 3 页"); the answers' own words stay."""
        lang = normalize_lang(lang)
        history = list(history or [])
        for turn in turns or []:
            if isinstance(turn, ChatTurn) and 0 <= turn.index < len(history):
                history[turn.index] = {"role": "assistant", "content": self.shown(turn, lang)}
        return history

    @staticmethod
    def _error_detail(exc: Exception, question: str, lang: str) -> str:
        if isinstance(exc, CourseRagError):
            return exc.say(lang)
        if isinstance(exc, ValueError):
            return str(exc)
        log.exception("answering %r failed", question[:80])
        return t(lang, "internal_error", kind=type(exc).__name__)

    def clear(self):
        return gr.update(value=[], feedback_value=None), [], None, gr.update(visible=False), None

    # -- feedback -----------------------------------------------------------------------

    def _feedback_allowed(self, request) -> bool:
        """One more feedback write for this request's client (FEEDBACK_PER_CLIENT in 10 minutes):
        one client once wrote 8,582 records in 330 s."""
        return self.feedback_limit.allow(request_client(request, self.clients))

    def on_like(self, turns, lang, data: gr.LikeData, request: gr.Request = None):
        """Thumbs up/down: store the vote at once, then offer the comment box."""
        lang = normalize_lang(lang)
        turns = list(turns or [])
        index = data.index[0] if isinstance(data.index, (list, tuple)) else data.index
        if not self._feedback_allowed(request):  # every call counts, found or not
            return turns, gr.update(visible=True), None, t(lang, "feedback_throttled"), ""
        turn = find_turn(turns, index)
        if turn is None:
            return turns, gr.update(visible=False), None, "", ""
        if data.liked is True or data.liked is False:
            vote = "up" if data.liked else "down"
            record = self.feedback.record_vote(
                question=turn.question,
                answer=turn.answer,
                citations=list(turn.citations),
                course_id=turn.course,
                vote=vote,
                scope=turn.scope or "both",
                refused=turn.refused,
                mode=turn.mode,
                feedback_id=turn.feedback["id"] if turn.feedback else None,
            )
            prompt = t(lang, "feedback_thanks_up" if vote == "up" else "feedback_thanks_down")
            about = inert_links(escape_markdown_html(t(lang, "feedback_about", question=turn.question[:120])))
            note = f"**{prompt}**  \n{about}"
            return replace_turn(turns, turn.rated(record)), gr.update(visible=True), index, note, ""
        if turn.feedback:
            turns = replace_turn(turns, turn.rated(self.feedback.withdraw(turn.feedback)))
        return turns, gr.update(visible=True), None, t(lang, "feedback_removed"), ""

    def send_comment(self, comment, target, turns, lang, request: gr.Request = None):
        lang = normalize_lang(lang)
        turns = list(turns or [])
        turn = find_turn(turns, target)
        comment = (comment or "").strip()
        if not self._feedback_allowed(request):
            return turns, gr.update(visible=True), None, t(lang, "feedback_throttled"), ""
        if turn is None or not turn.feedback or not comment:
            return turns, gr.update(visible=False), None, "", ""
        turns = replace_turn(turns, turn.rated(self.feedback.add_comment(turn.feedback, comment)))
        return turns, gr.update(visible=True), None, t(lang, "feedback_saved"), ""

    def mark_wrong(self, target, turns, lang):
        """The learner marks the rated answer wrong: a 👎 that says so (a content gap unless
        it drew on their own notes). Outputs: as send_comment."""
        lang = normalize_lang(lang)
        turns = list(turns or [])
        turn = find_turn(turns, target)
        if turn is None:
            return turns, gr.update(visible=False), None, "", gr.skip()
        record = turn.feedback or self.feedback.record_vote(
            question=turn.question,
            answer=turn.answer,
            citations=list(turn.citations),
            course_id=turn.course,
            vote="down",
            scope=turn.scope or "both",
            refused=turn.refused,
            mode=turn.mode,
        )
        turns = replace_turn(turns, turn.rated(self.feedback.mark_wrong(record)))
        return turns, gr.update(visible=True), target, t(lang, "feedback_marked_wrong"), gr.skip()
