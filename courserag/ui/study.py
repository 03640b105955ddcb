"""The Study tab's handlers: course, uploads, chat and feedback.

Handlers only translate between widgets and the engine; every answer, upload and index
operation is the engine's job, every word and HTML block comes from courserag/ui/render.py
and courserag/ui/texts.py. Layout and wiring are in courserag/ui/layout.py.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import gradio as gr

from courserag.errors import CourseRagError
from courserag.feedback import FeedbackLog
from courserag.results import Answer, IndexStatus
from courserag.settings import Settings
from courserag.ui.render import escape_markdown_html, format_answer, render_course_card, render_notes, render_upload_log, upload_line
from courserag.ui.sanitize import text_html
from courserag.messages import render
from courserag.ui.sessions import SessionIndex, new_sid
from courserag.ui.texts import normalize_lang, t
from courserag.ui.turns import ChatTurn, find_turn, replace_turn

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


def unique_files(paths: list[Path], limit: int) -> tuple[list[Path], int]:
    """The files of one upload call, each once (by path and by file identity), at most
    `limit` of them; and how many were left out over the limit (one upload referenced ten
    times in a call used to be parsed ten times)."""
    seen: set = set()
    unique: list[Path] = []
    for path in paths:
        try:
            stat = path.stat()
            key = (stat.st_dev, stat.st_ino)
        except OSError:
            key = str(path)
        if key not in seen and str(path) not in seen:
            seen.update((key, str(path)))
            unique.append(path)
    return unique[:limit], max(0, len(unique) - limit)


class StudyApp:
    """The learner-facing handlers, bound to one engine."""

    def __init__(self, engine, settings: Settings):
        self.engine = engine
        self.settings = settings
        self.feedback = FeedbackLog(settings.data_dir)
        self.sessions = SessionIndex(engine.end_session)
        self.docs_by_course = {c.id: c.docs for c in engine.courses}
        self._index_info: dict[str, tuple[float, IndexStatus]] = {}
        self._index_lock = threading.Lock()

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

    # -- notes --------------------------------------------------------------------------

    def notes_html(self, sid: str | None, lang: str) -> str:
        return render_notes(self.engine.uploads(sid) if sid else [], lang)

    def remove_choices(self, sid: str | None, lang: str):
        names = [f.name for f in self.engine.uploads(sid)] if sid else []
        return gr.update(choices=names, value=[], label=t(lang, "remove_label"), interactive=bool(names))

    # -- session ------------------------------------------------------------------------

    def on_load(self, sid, course_id, lang, request: gr.Request):
        lang = normalize_lang(lang)
        sid = self.sessions.sid_for(request, sid) or new_sid()
        course_id = course_id or self.default_course()
        return (
            sid, lang, self.course_card(course_id, lang), self.notes_html(sid, lang),
            self.remove_choices(sid, lang), *self.example_updates(course_id),
        )

    def on_unload(self, request: gr.Request):
        self.sessions.release_hash(getattr(request, "session_hash", None))

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

    # -- uploads ------------------------------------------------------------------------

    def upload(self, files, sid, lang, request: gr.Request, progress=gr.Progress()):
        """Parse and index each file into this session's pool; one result line per file."""
        lang = normalize_lang(lang)
        sid = self.sessions.sid_for(request, sid) or new_sid()
        if isinstance(files, (str, Path)):
            files = [files]
        paths, skipped = unique_files([Path(getattr(f, "name", f)) for f in (files or []) if f],
                                      self.settings.limits.max_files_per_upload)
        lines: list[tuple[str, str]] = []
        if not paths:
            lines.append(("info", t(lang, "no_files_given")))
        for i, path in enumerate(paths, start=1):
            progress((i - 1) / len(paths), desc=t(lang, "upload_progress", name=path.name, i=i, n=len(paths)))
            try:
                lines.append(upload_line(self.engine.add_upload(sid, path, path.name), lang))
            except Exception as exc:  # noqa: BLE001 - one bad file never ends the session
                log.exception("upload of %s failed", path.name)
                lines.append(("fail", f"✗ {path.name}: {type(exc).__name__}"))
        if skipped:
            lines.append(("info", render("upload_too_many_files", {"count": len(paths) + skipped,
                                                                  "limit": len(paths)}, lang)))
        if paths:
            progress(1.0, desc=t(lang, "upload_done"))
        return render_upload_log(lines), self.notes_html(sid, lang), self.remove_choices(sid, lang), None, sid

    def remove_upload(self, names, sid, lang, request: gr.Request = None):
        lang = normalize_lang(lang)
        sid = self.sessions.sid_for(request, sid)
        if isinstance(names, str):
            names = [names]
        names = [n for n in (names or []) if n]
        if not names:
            log_html = render_upload_log([("info", t(lang, "nothing_selected"))])
        else:
            removed = [n for n in names if sid and self.engine.remove_upload(sid, n)]
            log_html = render_upload_log([("info", t(lang, "removed", names=", ".join(removed or names)))])
        return log_html, self.notes_html(sid, lang), self.remove_choices(sid, lang)

    def list_uploads(self, sid, request: gr.Request = None):
        sid = self.sessions.sid_for(request, sid)
        return [
            {"name": f.name, "doc_type": f.doc_type, "chunks": f.chunks, "units": f.units, "size_bytes": f.size_bytes}
            for f in (self.engine.uploads(sid) if sid else [])
        ]

    # -- chat ---------------------------------------------------------------------------

    def ask(self, question, history, course_id, scope, sid, lang, turns, request: gr.Request = None):
        """Stream the answer into the chat; the final message carries the citations."""
        lang = normalize_lang(lang)
        history = recent_messages(history, self.settings.server.max_history_chars)  # client-sent: bounded first
        turns = [turn for turn in (turns or []) if isinstance(turn, ChatTurn)]
        question = (question or "").strip()
        sid = self.sessions.sid_for(request, sid)
        if not question:
            gr.Warning(t(lang, "empty_question"))
            yield list(history), "", turns, None
            return
        history.append({"role": "user", "content": text_html(question)})
        history.append({"role": "assistant", "content": f"*{t(lang, 'thinking')}*"})
        yield list(history), "", gr.skip(), gr.skip()
        previous = [turn.question for turn in turns if turn.course == course_id]
        final: Answer | None = None
        try:
            for update in self.engine.answer_stream(course_id, question, sid, scope or "both", previous):
                if isinstance(update, Answer):
                    final = update
                else:
                    history[-1] = {"role": "assistant", "content": escape_markdown_html(update)}
                    yield list(history), gr.skip(), gr.skip(), gr.skip()
        except Exception as exc:  # noqa: BLE001 - the learner gets a message, never a stuck spinner
            detail = self._error_detail(exc, question, lang)
            history[-1] = {"role": "assistant", "content": escape_markdown_html("⚠️ " + t(lang, "error", detail=detail))}
            yield list(history), gr.skip(), turns, {"error": detail}
            return
        assert final is not None
        history[-1] = {"role": "assistant", "content": format_answer(final, lang, self.docs_by_course)}
        turns.append(ChatTurn(
            index=len(history) - 1, question=question, answer=final.answer, citations=tuple(final.citations),
            course=course_id, scope=scope, refused=final.refused, mode=final.mode,
        ))
        yield list(history), gr.skip(), turns, final.to_json()

    @staticmethod
    def _error_detail(exc: Exception, question: str, lang: str) -> str:
        if isinstance(exc, CourseRagError):
            return exc.say(lang)
        if isinstance(exc, ValueError):
            return str(exc)
        log.exception("answering %r failed", question[:80])
        return t(lang, "internal_error", kind=type(exc).__name__)

    def clear(self):
        return [], [], None, gr.update(visible=False), None

    # -- feedback -----------------------------------------------------------------------

    def on_like(self, turns, lang, data: gr.LikeData):
        """Thumbs up/down: store the vote at once, then offer the comment box."""
        lang = normalize_lang(lang)
        turns = list(turns or [])
        index = data.index[0] if isinstance(data.index, (list, tuple)) else data.index
        turn = find_turn(turns, index)
        if turn is None:
            return turns, gr.update(visible=False), None, "", ""
        if data.liked is True or data.liked is False:
            vote = "up" if data.liked else "down"
            record = self.feedback.record_vote(
                question=turn.question, answer=turn.answer, citations=list(turn.citations),
                course_id=turn.course, vote=vote, scope=turn.scope or "both",
                refused=turn.refused, mode=turn.mode,
                feedback_id=turn.feedback["id"] if turn.feedback else None,
            )
            prompt = t(lang, "feedback_thanks_up" if vote == "up" else "feedback_thanks_down")
            return replace_turn(turns, turn.rated(record)), gr.update(visible=True), index, f"**{prompt}**", ""
        if turn.feedback:
            turns = replace_turn(turns, turn.rated(self.feedback.withdraw(turn.feedback)))
        return turns, gr.update(visible=True), None, t(lang, "feedback_removed"), ""

    def send_comment(self, comment, target, turns, lang):
        lang = normalize_lang(lang)
        turns = list(turns or [])
        turn = find_turn(turns, target)
        comment = (comment or "").strip()
        if turn is None or not turn.feedback or not comment:
            return turns, gr.update(visible=False), None, "", ""
        turns = replace_turn(turns, turn.rated(self.feedback.add_comment(turn.feedback, comment)))
        return turns, gr.update(visible=True), None, t(lang, "feedback_saved"), ""
