"""The Gradio app: `build_demo(engine, settings) -> gr.Blocks`.

Handlers only translate between widgets and the engine; every answer, upload and index
operation is the engine's (or the indexer's) job. Layout:

- Study tab: course picker and course card, scope, "Your notes" (upload, per-file results,
  list, remove), the streaming chat with a citations block inside every answer, thumbs
  up/down with an optional comment, example questions, clear.
- Instructor tab: unlocked by INSTRUCTOR_TOKEN; every handler re-checks the token.

Session identity: each browser tab gets its own random id in a `gr.State` (set on load, or
on first upload for API clients). The id keys the engine's upload pool; it is released when
the tab closes (`demo.unload`), when Gradio drops the state (`delete_callback`), or by the
engine's idle sweep.

Stable API names for gradio_client: ask, upload, remove_upload, list_uploads, select_course,
clear. The instructor handlers are private (not callable through the client libraries) and
check the token on every call anyway.
"""

from __future__ import annotations

import html
import logging
import re
import threading
import time
import urllib.parse
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

import gradio as gr

from courserag.engine import Answer, RagEngine
from courserag.messages import unit_word
from courserag.results import UNIT_OF_DOC_TYPE
from courserag.errors import CourseRagError
from courserag.feedback import FeedbackLog
from courserag.instructor import InstructorTools, check_token
from courserag.parsers import SUPPORTED_EXTENSIONS
from courserag.settings import Settings
from courserag.ui_text import LANG_CHOICES, normalize_lang, t

log = logging.getLogger(__name__)

MAX_EXAMPLES = 4
INDEX_INFO_TTL_S = 30.0
UPLOAD_TYPES = sorted(SUPPORTED_EXTENSIONS)
_SID = re.compile(r"^[0-9a-f]{32}$")
_PAGE = re.compile(r"\b(?:page|p\.|第)\s*(\d+)", re.IGNORECASE)
_CODE_SPANS = re.compile(r"(```[\s\S]*?```|`[^`\n]+`)")

CSS = """
.cr-header h1 { margin-bottom: 0.1em; }
.cr-header p { margin-top: 0; color: var(--body-text-color-subdued); }
#cr-lang { margin-left: auto; align-self: center; }
#cr-lang .wrap { flex-wrap: nowrap; }
#cr-course-status { min-height: 0; }
#cr-sidebar { gap: 0.8em; }
#cr-examples { align-items: center; flex-wrap: wrap; gap: 0.4em; }
#cr-examples-label { flex: 0 0 auto !important; min-width: 0 !important; }
#cr-clear-row { justify-content: flex-end; }
#cr-remove { margin: 0.3em 0.6em 0.3em auto; max-width: 12em; }
#cr-course-card { padding: 0.2em 0.2em; }
#cr-course-card .cr-desc { color: var(--body-text-color-subdued); margin: 0.2em 0 0.4em 0; }
#cr-course-card .cr-meta { font-size: 0.9em; }
.cr-hint { font-size: 0.9em; border-left: 3px solid #f59e0b; background: rgba(245, 158, 11, 0.08);
  padding: 0.4em 0.6em; border-radius: 4px; margin-top: 0.4em; }
#cr-course-status { font-size: 0.9em; min-height: 1.2em; }
#cr-course-status p { color: var(--color-accent); }
.cr-privacy { font-size: 0.85em; color: var(--body-text-color-subdued); }
.cr-log div { font-size: 0.9em; padding: 0.15em 0; }
.cr-log .cr-ok { color: #15803d; }
.cr-log .cr-fail { color: #b91c1c; }
.cr-log .cr-info { color: var(--body-text-color-subdued); }
table.cr-notes { width: 100%; font-size: 0.88em; border-collapse: collapse; }
table.cr-notes th, table.cr-notes td { text-align: left; padding: 0.2em 0.4em;
  border-bottom: 1px solid var(--border-color-primary); }
.cr-empty { font-size: 0.9em; color: var(--body-text-color-subdued); }
.cr-sources { margin-top: 0.7em; padding-top: 0.4em; border-top: 1px solid var(--border-color-primary);
  font-size: 0.92em; }
.cr-sources-title { font-weight: 600; margin-bottom: 0.2em; }
details.cr-cite { margin: 0.15em 0; }
details.cr-cite > summary { cursor: pointer; list-style-position: outside; margin-left: 1.1em; }
.cr-n { font-weight: 600; }
.cr-loc { color: var(--body-text-color-subdued); }
.cr-badge { display: inline-block; font-size: 0.78em; line-height: 1.5; padding: 0 0.55em;
  border-radius: 999px; margin-left: 0.35em; vertical-align: 0.08em; white-space: nowrap; }
.cr-badge.cr-course { background: #e0e7ff; color: #3730a3; }
.cr-badge.cr-upload { background: #dcfce7; color: #166534; }
.cr-passage { margin: 0.3em 0 0.5em 1.1em; padding: 0.4em 0.7em; border-left: 3px solid #a5b4fc;
  background: var(--background-fill-secondary); max-height: 16em; overflow: auto; font-size: 0.95em; }
#cr-examples button { flex: 0 1 auto !important; min-width: 0 !important; font-weight: normal; }
#cr-feedback { border: 1px solid var(--border-color-accent); }
#cr-upload.block { border: 2px dashed #a5b4fc !important; }
#cr-token-row { align-items: flex-end; }
#cr-token-row button, #cr-instr-actions button { max-height: 3.2em; align-self: flex-end; }
#cr-instr-actions { align-items: flex-end; }
"""


def theme() -> gr.themes.Base:
    return gr.themes.Soft(primary_hue="indigo", secondary_hue="slate", neutral_hue="slate")


def launch_options(settings: Settings) -> dict[str, Any]:
    """What `demo.launch` needs besides host and port (Gradio 6 takes theme and CSS here)."""
    return {
        "theme": theme(),
        "css": CSS,
        "blocked_paths": [str(Path(settings.data_dir).resolve())],
        "max_file_size": f"{int(settings.limits.max_file_mb)}mb",
    }


# -- pure rendering helpers (unit-tested) -------------------------------------------------


def escape_markdown_html(text: str) -> str:
    """Answer text may quote sources verbatim: make '<' literal outside code spans."""
    parts = _CODE_SPANS.split(text)
    return "".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


def course_file_url(docs: Path, source: str, locator: str) -> str | None:
    """A link to a course file served from its docs folder, at the cited page for PDFs.

    Only files that resolve inside the course folder get a link; anything else (an upload,
    a path that escapes the folder, a missing file) gets none.
    """
    try:
        root = Path(docs).resolve()
        path = (root / source).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
    except (OSError, ValueError):
        return None
    url = "gradio_api/file=" + urllib.parse.quote(path.as_posix())
    match = _PAGE.search(locator or "")
    if match and path.suffix.lower() == ".pdf":
        url += f"#page={int(match.group(1))}"
    return url


def render_citations(citations: list[dict], lang: str, docs_by_course: dict[str, Path]) -> str:
    """The sources block under an answer, as one HTML block (no blank lines for Markdown)."""
    if not citations:
        return ""
    rows = []
    for cite in citations:
        origin = "upload" if cite.get("origin") == "upload" else "course"
        name = html.escape(str(cite.get("source", "")))
        locator = html.escape(str(cite.get("locator", "")))
        url = None
        if origin == "course" and cite.get("course_id") in docs_by_course:
            url = course_file_url(docs_by_course[cite["course_id"]], str(cite.get("source", "")), str(cite.get("locator", "")))
        title = (
            f'<a class="cr-file" href="{html.escape(url)}" target="_blank" rel="noopener" '
            f'title="{html.escape(t(lang, "open_file"))}">{name}</a>'
            if url
            else f'<span class="cr-file">{name}</span>'
        )
        badge = f'<span class="cr-badge cr-{origin}">{t(lang, "origin_course" if origin == "course" else "origin_upload")}</span>'
        text = str(cite.get("text", "")).replace("**", "")
        passage = "<br>".join(html.escape(line) for line in text.splitlines() if line.strip())
        rows.append(
            f'<details class="cr-cite cr-cite-{origin}">'
            f'<summary><span class="cr-n">[{int(cite.get("n", 0))}]</span> {title} '
            f'<span class="cr-loc">· {locator}</span>{badge}</summary>'
            f'<div class="cr-passage">{passage}</div></details>'
        )
    return (
        f'<div class="cr-sources"><div class="cr-sources-title">📚 {t(lang, "sources")}</div>'
        + "".join(rows)
        + "</div>"
    )


def format_answer(answer: Answer, lang: str, docs_by_course: dict[str, Path]) -> str:
    """The assistant message: answer text, warnings, then the citations block."""
    parts = [escape_markdown_html(answer.answer.strip())]
    if answer.refused:
        parts.append(f"*{t(lang, 'refused_hint')}*")
    for notice in answer.notices:
        parts.append(f"> ⚠️ **{t(lang, 'warning')}:** {escape_markdown_html(notice.text(lang))}")
    block = render_citations(answer.citations, lang, docs_by_course)
    if block:
        parts.append(block)
    return "\n\n".join(parts)


def answer_payload(answer: Answer) -> dict:
    """The `ask` endpoint's machine-readable result (the CLI's JSON contract)."""
    return answer.to_json()


def unit_name(doc_type: str, lang: str, count: int = 2) -> str:
    return unit_word(UNIT_OF_DOC_TYPE.get(doc_type, "section"), count, lang)


def upload_line(result, lang: str) -> tuple[str, str]:
    """One line of the upload log for an UploadResult, in the UI language."""
    return ("ok" if result.ok else "fail"), result.say(lang)


def render_upload_log(lines: list[tuple[str, str]]) -> str:
    """Per-file results: (kind, text) with kind in ok / fail / info."""
    if not lines:
        return ""
    return '<div class="cr-log">' + "".join(
        f'<div class="cr-{kind}">{html.escape(text)}</div>' for kind, text in lines
    ) + "</div>"


# -- the app ------------------------------------------------------------------------------


class _SessionIndex:
    """Browser session (Gradio's session_hash) -> our session ids, for release on unload.

    API clients have no heartbeat, so their entries are never unloaded: the map is capped
    (oldest dropped; the engine's idle sweep still frees their pools).
    """

    MAX_ENTRIES = 10000

    def __init__(self, engine: RagEngine):
        self.engine = engine
        self._by_hash: OrderedDict[str, set[str]] = OrderedDict()
        self._lock = threading.Lock()

    def bind(self, request: gr.Request | None, sid: str) -> None:
        session_hash = getattr(request, "session_hash", None) if request is not None else None
        if session_hash:
            with self._lock:
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
            self.engine.end_session(sid)

    def release_sid(self, sid: object) -> None:
        if isinstance(sid, str) and sid:
            self.engine.end_session(sid)


def _new_sid() -> str:
    return uuid.uuid4().hex


def _valid_sid(sid: object) -> str | None:
    return sid if isinstance(sid, str) and _SID.match(sid) else None


class StudyApp:
    """The handlers, bound to one engine. `build()` wires them to widgets."""

    def __init__(self, engine: RagEngine, settings: Settings):
        self.engine = engine
        self.settings = settings
        self.feedback = FeedbackLog(settings.data_dir)
        self.instructor = InstructorTools(engine, self.feedback)
        self.sessions = _SessionIndex(engine)
        self.docs_by_course = {c.id: c.docs for c in engine.courses}
        self._index_info: dict[str, tuple[float, tuple]] = {}
        self._index_lock = threading.Lock()

    # -- course -------------------------------------------------------------------------

    def default_course(self) -> str | None:
        return self.engine.courses[0].id if self.engine.courses else None

    def course_choices(self) -> list[tuple[str, str]]:
        return [(c.name, c.id) for c in self.engine.courses]

    def index_info(self, course_id: str, fresh: bool = False) -> tuple:
        """("ok", files, chunks) | ("missing",) | ("unavailable", detail), cached briefly."""
        now = time.monotonic()
        with self._index_lock:
            cached = self._index_info.get(course_id)
            if cached and not fresh and now - cached[0] < INDEX_INFO_TTL_S:
                return cached[1]
        status = self.engine.index_status(course_id)
        info: tuple = {"ready": ("ok", status.files, status.chunks), "missing": ("missing",)}.get(
            status.state, ("unavailable", status.detail)
        )
        with self._index_lock:
            self._index_info[course_id] = (now, info)
        return info

    def course_card(self, course_id: str | None, lang: str) -> str:
        if not course_id:
            return ""
        try:
            course = self.engine.course(course_id)
        except CourseRagError as exc:
            return html.escape(str(exc))
        language = t(lang, "language_zh" if course.language == "zh" else "language_en")
        info = self.index_info(course.id)
        meta = f"🌐 {t(lang, 'course_language', language=language)}"
        hint = ""
        if info[0] == "ok":
            meta += f" · 📚 {t(lang, 'index_ready', files=info[1], chunks=info[2])}"
        elif info[0] == "missing":
            hint = f'<div class="cr-hint">⚠️ {html.escape(t(lang, "index_missing", course_id=course.id))}</div>'
        else:
            hint = f'<div class="cr-hint">⚠️ {html.escape(t(lang, "index_unavailable", detail=info[1]))}</div>'
        hint = re.sub(r"`([^`]+)`", r"<code>\1</code>", hint)
        return (
            f"<div><strong>{html.escape(course.name)}</strong></div>"
            f'<div class="cr-desc">{html.escape(course.description)}</div>'
            f'<div class="cr-meta">{html.escape(meta)}</div>{hint}'
        )

    def example_updates(self, course_id: str | None) -> list:
        examples: tuple[str, ...] = ()
        if course_id:
            try:
                examples = self.engine.course(course_id).examples
            except CourseRagError:
                examples = ()
        updates = []
        for i in range(MAX_EXAMPLES):
            if i < len(examples):
                updates.append(gr.update(value=examples[i], visible=True))
            else:
                updates.append(gr.update(value="", visible=False))
        return updates

    # -- notes --------------------------------------------------------------------------

    def notes_html(self, sid: str | None, lang: str) -> str:
        files = self.engine.uploads(sid) if sid else []
        if not files:
            return f'<div class="cr-empty">{html.escape(t(lang, "no_notes"))}</div>'
        head = "<tr>" + "".join(
            f"<th>{html.escape(h.strip())}</th>" for h in t(lang, "notes_table_head").split("\n")[0].strip("|").split("|")
        ) + "</tr>"
        rows = "".join(
            f"<tr><td>{html.escape(f.name)}</td>"
            f"<td>{f.units} {html.escape(unit_name(f.doc_type, lang, f.units))}</td><td>{f.chunks}</td></tr>"
            for f in files
        )
        return f'<table class="cr-notes">{head}{rows}</table>'

    def remove_choices(self, sid: str | None, lang: str):
        names = [f.name for f in self.engine.uploads(sid)] if sid else []
        return gr.update(choices=names, value=[], label=t(lang, "remove_label"), interactive=bool(names))

    # -- handlers: session --------------------------------------------------------------

    def on_load(self, sid, course_id, lang, request: gr.Request):
        lang = normalize_lang(lang)
        sid = _valid_sid(sid) or _new_sid()
        self.sessions.bind(request, sid)
        course_id = course_id or self.default_course()
        return (
            sid,
            lang,
            self.course_card(course_id, lang),
            self.notes_html(sid, lang),
            self.remove_choices(sid, lang),
            *self.example_updates(course_id),
        )

    def on_unload(self, request: gr.Request):
        self.sessions.release_hash(getattr(request, "session_hash", None))

    # -- handlers: course and language --------------------------------------------------

    def select_course(self, course_id, sid, lang):
        """Switch course: the card, the status line and the example questions change."""
        lang = normalize_lang(lang)
        try:
            course = self.engine.course(course_id)
        except CourseRagError as exc:
            return self.course_card(None, lang), f"⚠️ {exc}", *self.example_updates(None)
        sid = _valid_sid(sid)
        count = len(self.engine.uploads(sid)) if sid else 0
        notes = t(lang, "switched_notes_kept", count=count) if count else t(lang, "switched_no_notes")
        status = t(lang, "switched", course=course.name, notes=notes).strip()
        return self.course_card(course.id, lang), status, *self.example_updates(course.id)

    # -- handlers: uploads --------------------------------------------------------------

    def upload(self, files, sid, lang, request: gr.Request, progress=gr.Progress()):
        """Parse and index each file into this session's pool; one result line per file."""
        lang = normalize_lang(lang)
        sid = _valid_sid(sid) or _new_sid()
        self.sessions.bind(request, sid)
        if isinstance(files, (str, Path)):
            files = [files]
        paths = [Path(getattr(f, "name", f)) for f in (files or []) if f]
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
        if paths:
            progress(1.0, desc=t(lang, "upload_done"))
        return (
            render_upload_log(lines),
            self.notes_html(sid, lang),
            self.remove_choices(sid, lang),
            None,
            sid,
        )

    def remove_upload(self, names, sid, lang):
        lang = normalize_lang(lang)
        sid = _valid_sid(sid)
        if isinstance(names, str):
            names = [names]
        names = [n for n in (names or []) if n]
        if not names:
            log_html = render_upload_log([("info", t(lang, "nothing_selected"))])
        else:
            removed = [n for n in names if sid and self.engine.remove_upload(sid, n)]
            log_html = render_upload_log([("info", t(lang, "removed", names=", ".join(removed or names)))])
        return log_html, self.notes_html(sid, lang), self.remove_choices(sid, lang)

    def list_uploads(self, sid):
        sid = _valid_sid(sid)
        return [
            {"name": f.name, "doc_type": f.doc_type, "chunks": f.chunks, "units": f.units, "size_bytes": f.size_bytes}
            for f in (self.engine.uploads(sid) if sid else [])
        ]

    # -- handlers: chat -----------------------------------------------------------------

    def ask(self, question, history, course_id, scope, sid, lang, turns):
        """Stream the answer into the chat; the final message carries the citations."""
        lang = normalize_lang(lang)
        history = list(history or [])
        turns = list(turns or [])
        question = (question or "").strip()
        sid = _valid_sid(sid)
        if not question:
            gr.Warning(t(lang, "empty_question"))
            yield list(history), "", turns, None
            return
        history.append({"role": "user", "content": question})
        history.append({"role": "assistant", "content": f"*{t(lang, 'thinking')}*"})
        yield list(history), "", gr.skip(), gr.skip()
        previous = [turn["question"] for turn in turns if turn.get("course") == course_id]
        final: Answer | None = None
        try:
            for update in self.engine.answer_stream(course_id, question, sid, scope or "both", previous):
                if isinstance(update, Answer):
                    final = update
                else:
                    history[-1] = {"role": "assistant", "content": escape_markdown_html(update)}
                    yield list(history), gr.skip(), gr.skip(), gr.skip()
        except Exception as exc:  # noqa: BLE001 - the learner gets a message, never a stuck spinner
            if isinstance(exc, CourseRagError):
                detail = exc.say(lang)
            elif isinstance(exc, ValueError):
                detail = str(exc)
            else:
                log.exception("answering %r failed", question[:80])
                detail = f"an internal error ({type(exc).__name__})"
            history[-1] = {"role": "assistant", "content": "⚠️ " + t(lang, "error", detail=escape_markdown_html(detail))}
            yield list(history), gr.skip(), turns, {"error": detail}
            return
        assert final is not None
        history[-1] = {"role": "assistant", "content": format_answer(final, lang, self.docs_by_course)}
        turns.append({
            "index": len(history) - 1,
            "question": question,
            "answer": final.answer,
            "citations": final.citations,
            "course": course_id,
            "scope": scope,
            "refused": final.refused,
            "mode": final.mode,
            "feedback": None,
        })
        yield list(history), gr.skip(), turns, answer_payload(final)

    def clear(self):
        return [], [], None, gr.update(visible=False), None

    # -- handlers: feedback -------------------------------------------------------------

    def on_like(self, turns, lang, data: gr.LikeData):
        """Thumbs up/down: store the vote at once, then offer the comment box."""
        lang = normalize_lang(lang)
        turns = list(turns or [])
        index = data.index[0] if isinstance(data.index, (list, tuple)) else data.index
        turn = next((tr for tr in turns if tr.get("index") == index), None)
        if turn is None:
            return turns, gr.update(visible=False), None, "", ""
        previous = turn.get("feedback")
        if data.liked is True or data.liked is False:
            vote = "up" if data.liked else "down"
            record = self.feedback.record_vote(
                question=turn["question"], answer=turn["answer"], citations=turn["citations"],
                course_id=turn["course"], vote=vote, scope=turn.get("scope", "both"),
                refused=turn.get("refused", False), mode=turn.get("mode", ""),
                feedback_id=previous["id"] if previous else None,
            )
            turn["feedback"] = record
            prompt = t(lang, "feedback_thanks_up" if vote == "up" else "feedback_thanks_down")
            return turns, gr.update(visible=True), index, f"**{prompt}**", ""
        if previous:
            turn["feedback"] = self.feedback.withdraw(previous)
        return turns, gr.update(visible=True), None, t(lang, "feedback_removed"), ""

    def send_comment(self, comment, target, turns, lang):
        lang = normalize_lang(lang)
        turns = list(turns or [])
        turn = next((tr for tr in turns if tr.get("index") == target), None)
        comment = (comment or "").strip()
        if turn is None or not turn.get("feedback") or not comment:
            return turns, gr.update(visible=False), None, "", ""
        turn["feedback"] = self.feedback.add_comment(turn["feedback"], comment)
        return turns, gr.update(visible=True), None, t(lang, "feedback_saved"), ""

    # -- handlers: instructor (token re-checked on every call) -------------------------

    def _locked(self, token, lang) -> str | None:
        state = check_token(token)
        if state == "ok":
            return None
        key = {"disabled": "instr_disabled", "missing": "instr_locked", "wrong": "instr_wrong"}[state]
        return t(lang, key)

    def _stats_outputs(self, course_id: str, lang: str) -> tuple:
        stats = self.instructor.stats(course_id)
        health = stats.health
        primary, *fallbacks = health.stores
        lines = [
            f"**Store in use:** `{primary.name}` {'✓' if primary.ok else '✗'} {html.escape(primary.detail)}",
        ]
        for fallback in fallbacks:
            lines.append(f"**Fallback store:** `{fallback.name}` {'✓' if fallback.ok else '✗'}")
        lines.append(f"**{html.escape(course_id)}:** {len(stats.files)} files, {stats.chunks} passages indexed")
        if stats.error:
            lines.append(f"⚠️ {html.escape(stats.error)}")
        mode = f"LLM `{html.escape(health.llm_model)}`" if health.answer_mode == "llm" else "extractive (no LLM configured)"
        lines.append(
            f"**Answers:** {mode} · **Embedding model:** `{html.escape(health.embedding_model)}`"
            + (f" ({html.escape(health.embedding_backend)})" if health.embedding_backend else "")
        )
        lines.append(f"**Learner sessions with uploads:** {health.sessions}")
        files = [[name, chunks] for name, chunks in stats.files]
        cited = [list(row) for row in self.feedback.most_cited(course_id)]
        gaps = [
            [str(r["timestamp"])[:16].replace("T", " "), r["kind"], r["question"], r["comment"]]
            for r in self.feedback.content_gaps(course_id)
        ]
        return "\n\n".join(lines), files, cited, gaps

    def instructor_unlock(self, token, course_id, lang):
        """Outputs: status, panel, stats, files, cited, gaps."""
        lang = normalize_lang(lang)
        locked = self._locked(token, lang)
        if locked:
            return locked, gr.update(visible=False), "", [], [], []
        try:
            return t(lang, "instr_unlocked"), gr.update(visible=True), *self._stats_outputs(course_id, lang)
        except CourseRagError as exc:
            return t(lang, "instr_unlocked"), gr.update(visible=True), f"⚠️ {html.escape(str(exc))}", [], [], []

    def instructor_build(self, token, course_id, rebuild, lang, progress=gr.Progress()):
        """Outputs: status, panel, summary, stats, files, cited, gaps."""
        lang = normalize_lang(lang)
        locked = self._locked(token, lang)
        if locked:
            return locked, gr.update(visible=False), "", "", [], [], []

        def report(done: int, total: int, name: str) -> None:
            progress((done - 1) / max(total, 1), desc=f"{name} ({done}/{total})")

        try:
            progress(0.0, desc=course_id)
            summary = self.instructor.build(course_id, bool(rebuild), report)
        except CourseRagError as exc:
            return t(lang, "instr_unlocked"), gr.update(visible=True), f"⚠️ {html.escape(str(exc))}", "", [], [], []
        if summary is None:
            text = t(lang, "instr_build_busy")
        else:
            text = "```\n" + summary.text() + "\n```"
            with self._index_lock:
                self._index_info.pop(course_id, None)
        try:
            stats = self._stats_outputs(course_id, lang)
        except CourseRagError as exc:
            stats = (f"⚠️ {html.escape(str(exc))}", [], [], [])
        return t(lang, "instr_unlocked"), gr.update(visible=True), text, *stats

    def instructor_batch(self, token, course_id, questions, lang):
        """Outputs: status, panel, results."""
        lang = normalize_lang(lang)
        locked = self._locked(token, lang)
        if locked:
            return locked, gr.update(visible=False), []
        if not (questions or "").strip():
            return t(lang, "instr_no_questions"), gr.update(visible=True), []
        try:
            rows = self.instructor.batch(course_id, questions)
        except CourseRagError as exc:
            return f"⚠️ {html.escape(str(exc))}", gr.update(visible=True), []
        return t(lang, "instr_unlocked"), gr.update(visible=True), rows

    # -- layout -------------------------------------------------------------------------

    def build(self) -> gr.Blocks:
        if self.docs_by_course:
            gr.set_static_paths([d for d in self.docs_by_course.values() if Path(d).is_dir()])
        first = self.default_course()
        lang0 = "en"
        with gr.Blocks(title=t(lang0, "title"), delete_cache=(1800, 3600)) as demo:
            sid = gr.State(None, delete_callback=self.sessions.release_sid)
            turns = gr.State([])
            feedback_target = gr.State(None)

            with gr.Row(equal_height=True, elem_id="cr-top"):
                header = gr.Markdown(self._header(lang0), elem_classes=["cr-header"], min_width=320)
                lang = gr.Radio(
                    LANG_CHOICES, value=lang0, show_label=False, container=False, elem_id="cr-lang",
                    scale=0, min_width=220,
                )

            with gr.Tabs():
                with gr.Tab(t(lang0, "tab_study"), id="study", elem_id="cr-tab-study") as study_tab:
                    with gr.Row():
                        with gr.Column(scale=1, min_width=310, elem_id="cr-sidebar"):
                            with gr.Group(elem_id="cr-course-box"):
                                course = gr.Dropdown(
                                    self.course_choices(), value=first, label=t(lang0, "course"),
                                    interactive=True, elem_id="cr-course",
                                )
                                course_card = gr.HTML(
                                    self.course_card(first, lang0) if first else "", elem_id="cr-course-card", padding=True,
                                )
                            course_status = gr.Markdown("", elem_id="cr-course-status")
                            scope = gr.Radio(
                                self._scope_choices(lang0), value="both", label=t(lang0, "scope"), elem_id="cr-scope",
                            )
                            with gr.Group(elem_id="cr-notes-box"):
                                notes_heading = gr.Markdown(f"#### 📝 {t(lang0, 'notes_heading')}", padding=True)
                                files = gr.File(
                                    file_count="multiple", file_types=UPLOAD_TYPES, label=t(lang0, "upload_label"),
                                    elem_id="cr-upload", height=150,
                                )
                                upload_log = gr.HTML("", elem_id="cr-upload-log", padding=True)
                                notes = gr.HTML(self.notes_html(None, lang0), elem_id="cr-notes", padding=True)
                                remove_names = gr.Dropdown(
                                    [], value=[], multiselect=True, label=t(lang0, "remove_label"),
                                    interactive=False, elem_id="cr-remove-names",
                                )
                                remove_btn = gr.Button(t(lang0, "remove_button"), size="sm", elem_id="cr-remove")
                                privacy = gr.Markdown(self._privacy(lang0), elem_classes=["cr-privacy"], padding=True)
                        with gr.Column(scale=3):
                            chat = gr.Chatbot(
                                label=t(lang0, "chat_label"), show_label=False, height=580, elem_id="cr-chat",
                                placeholder=t(lang0, "chat_placeholder"), buttons=["copy"],
                                feedback_options=("Like", "Dislike"),
                            )
                            with gr.Row(equal_height=True):
                                question = gr.Textbox(
                                    label=t(lang0, "question_label"), show_label=False,
                                    placeholder=t(lang0, "question_placeholder"), lines=1, max_lines=6,
                                    scale=6, elem_id="cr-question", autofocus=True,
                                )
                                send = gr.Button(t(lang0, "send"), variant="primary", scale=1, min_width=90, elem_id="cr-send")
                            with gr.Row(equal_height=True, elem_id="cr-examples"):
                                examples_label = gr.Markdown(f"**{t(lang0, 'examples')}:**", elem_id="cr-examples-label")
                                example_buttons = [
                                    gr.Button("", size="sm", visible=False, elem_classes=["cr-example"])
                                    for _ in range(MAX_EXAMPLES)
                                ]
                            with gr.Group(visible=False, elem_id="cr-feedback") as feedback_box:
                                feedback_note = gr.Markdown("", elem_id="cr-feedback-note", padding=True)
                                with gr.Row(equal_height=True):
                                    comment = gr.Textbox(
                                        label=t(lang0, "feedback_comment"), show_label=False, scale=5,
                                        placeholder=t(lang0, "feedback_comment"), elem_id="cr-comment",
                                    )
                                    comment_btn = gr.Button(t(lang0, "feedback_send"), scale=1, min_width=90, elem_id="cr-comment-send")
                            with gr.Row(elem_id="cr-clear-row"):
                                clear = gr.Button(t(lang0, "clear"), variant="secondary", size="sm", elem_id="cr-clear", scale=0)
                            last_answer = gr.JSON(visible=False, label="last answer")

                # Shown when the server was started with INSTRUCTOR_TOKEN; the handlers check the
                # token again on every call, so hiding the tab is a courtesy, not the lock.
                with gr.Tab(
                    t(lang0, "tab_instructor"), id="instructor", elem_id="cr-tab-instructor",
                    visible=self.settings.instructor_enabled,
                ) as instructor_tab:
                    instr_intro = gr.Markdown(t(lang0, "instr_intro"))
                    with gr.Row(elem_id="cr-token-row"):
                        token = gr.Textbox(
                            label=t(lang0, "instr_token"), type="password", scale=4, elem_id="cr-token",
                        )
                        unlock = gr.Button(t(lang0, "instr_unlock"), variant="primary", scale=1, elem_id="cr-unlock")
                    instr_status = gr.Markdown(t(lang0, "instr_locked"), elem_id="cr-instr-status")
                    with gr.Column(visible=False, elem_id="cr-instr-panel") as panel:
                        with gr.Row(elem_id="cr-instr-actions"):
                            instr_course = gr.Dropdown(
                                self.course_choices(), value=first, label=t(lang0, "instr_course"),
                                elem_id="cr-instr-course", scale=2,
                            )
                            rebuild = gr.Checkbox(False, label=t(lang0, "instr_rebuild_all"), scale=2, elem_id="cr-rebuild")
                            build_btn = gr.Button(t(lang0, "instr_build"), variant="primary", scale=1, elem_id="cr-build")
                            refresh_btn = gr.Button(t(lang0, "instr_refresh"), scale=1, elem_id="cr-refresh")
                        build_summary = gr.Markdown("", elem_id="cr-build-summary")
                        stats_heading = gr.Markdown(f"### {t(lang0, 'instr_stats')}")
                        stats = gr.Markdown("", elem_id="cr-stats")
                        with gr.Row():
                            files_table = gr.Dataframe(
                                headers=["file", "passages"], label=t(lang0, "instr_files"),
                                interactive=False, elem_id="cr-files-table", wrap=True,
                            )
                            cited_table = gr.Dataframe(
                                headers=["file", "times cited", "👍", "👎"], label=t(lang0, "instr_cited"),
                                interactive=False, elem_id="cr-cited-table", wrap=True,
                            )
                        gaps_table = gr.Dataframe(
                            headers=["when (UTC)", "kind", "question", "comment"], label=t(lang0, "instr_gaps"),
                            interactive=False, elem_id="cr-gaps-table", wrap=True,
                            column_widths=["22%", "12%", "36%", "30%"],
                        )
                        batch_questions = gr.Textbox(
                            label=t(lang0, "instr_batch"), lines=4, elem_id="cr-batch-questions",
                        )
                        batch_btn = gr.Button(t(lang0, "instr_batch_run"), elem_id="cr-batch-run")
                        batch_table = gr.Dataframe(
                            headers=["#", "question", "result", "answer", "sources", "ms"],
                            label=t(lang0, "instr_batch_results"), interactive=False, wrap=True,
                            elem_id="cr-batch-table", column_widths=["5%", "20%", "10%", "40%", "19%", "6%"],
                        )

            # -- wiring: session -----------------------------------------------------------
            # One load event: the browser's language is read first (js), so the session id,
            # the course card and the labels all come back in that language at once.
            demo.load(
                self.on_load, [sid, course, lang],
                [sid, lang, course_card, notes, remove_names, *example_buttons],
                api_visibility="private",
                js="(sid, course, lang) => [sid, course,"
                " (navigator.language || '').toLowerCase().startsWith('zh') ? 'zh' : 'en']",
            )
            demo.unload(self.on_unload)

            # -- wiring: language ---------------------------------------------------------
            relabel_outputs = [
                header, study_tab, instructor_tab, course, course_card, course_status, scope, notes_heading,
                files, notes, remove_names, remove_btn, privacy, chat, question, send, examples_label,
                comment, comment_btn, clear, instr_intro, token, unlock, instr_course, rebuild, build_btn,
                refresh_btn, stats_heading, files_table, cited_table, gaps_table, batch_questions, batch_btn,
                batch_table,
            ]

            def relabel(lang_value, course_id, sid_value, scope_value):
                lg = normalize_lang(lang_value)
                return (
                    self._header(lg),
                    gr.update(label=t(lg, "tab_study")),
                    gr.update(label=t(lg, "tab_instructor")),
                    gr.update(label=t(lg, "course")),
                    self.course_card(course_id, lg),
                    "",
                    gr.update(choices=self._scope_choices(lg), value=scope_value, label=t(lg, "scope")),
                    f"#### 📝 {t(lg, 'notes_heading')}",
                    gr.update(label=t(lg, "upload_label")),
                    self.notes_html(_valid_sid(sid_value), lg),
                    gr.update(label=t(lg, "remove_label")),
                    gr.update(value=t(lg, "remove_button")),
                    self._privacy(lg),
                    gr.update(label=t(lg, "chat_label"), placeholder=t(lg, "chat_placeholder")),
                    gr.update(label=t(lg, "question_label"), placeholder=t(lg, "question_placeholder")),
                    gr.update(value=t(lg, "send")),
                    f"**{t(lg, 'examples')}:**",
                    gr.update(label=t(lg, "feedback_comment"), placeholder=t(lg, "feedback_comment")),
                    gr.update(value=t(lg, "feedback_send")),
                    gr.update(value=t(lg, "clear")),
                    t(lg, "instr_intro"),
                    gr.update(label=t(lg, "instr_token")),
                    gr.update(value=t(lg, "instr_unlock")),
                    gr.update(label=t(lg, "instr_course")),
                    gr.update(label=t(lg, "instr_rebuild_all")),
                    gr.update(value=t(lg, "instr_build")),
                    gr.update(value=t(lg, "instr_refresh")),
                    f"### {t(lg, 'instr_stats')}",
                    gr.update(label=t(lg, "instr_files")),
                    gr.update(label=t(lg, "instr_cited")),
                    gr.update(label=t(lg, "instr_gaps")),
                    gr.update(label=t(lg, "instr_batch")),
                    gr.update(value=t(lg, "instr_batch_run")),
                    gr.update(label=t(lg, "instr_batch_results")),
                )

            lang.change(relabel, [lang, course, sid, scope], relabel_outputs, api_visibility="private", queue=False)

            # -- wiring: course -------------------------------------------------------------
            course.input(
                self.select_course, [course, sid, lang], [course_card, course_status, *example_buttons],
                api_name="select_course",
            )
            for button in example_buttons:
                button.click(None, button, question, js="(x) => x", api_visibility="private", queue=False)

            # -- wiring: uploads ------------------------------------------------------------
            files.upload(
                self.upload, [files, sid, lang], [upload_log, notes, remove_names, files, sid],
                api_name="upload", concurrency_limit=2, show_progress="full",
            )
            remove_btn.click(
                self.remove_upload, [remove_names, sid, lang], [upload_log, notes, remove_names],
                api_name="remove_upload",
            )
            list_json = gr.JSON(visible=False)
            list_button = gr.Button(visible=False)  # an API-only endpoint: /list_uploads
            list_button.click(self.list_uploads, [sid], [list_json], api_name="list_uploads")

            # -- wiring: chat ---------------------------------------------------------------
            ask_inputs = [question, chat, course, scope, sid, lang, turns]
            ask_outputs = [chat, question, turns, last_answer]
            question.submit(self.ask, ask_inputs, ask_outputs, api_name="ask", concurrency_limit=4)
            send.click(self.ask, ask_inputs, ask_outputs, api_visibility="private", concurrency_limit=4)
            clear.click(
                self.clear, None, [chat, turns, last_answer, feedback_box, feedback_target],
                api_name="clear", queue=False,
            )
            chat.clear(
                lambda: ([], None, gr.update(visible=False), None), None,
                [turns, last_answer, feedback_box, feedback_target], api_visibility="private", queue=False,
            )
            chat.like(
                self.on_like, [turns, lang], [turns, feedback_box, feedback_target, feedback_note, comment],
                api_visibility="private",
            )
            comment_submit = [comment, feedback_target, turns, lang]
            comment_outputs = [turns, feedback_box, feedback_target, feedback_note, comment]
            comment_btn.click(self.send_comment, comment_submit, comment_outputs, api_visibility="private")
            comment.submit(self.send_comment, comment_submit, comment_outputs, api_visibility="private")

            # -- wiring: instructor (private, token re-checked in every handler) -----------
            unlock_inputs = [token, instr_course, lang]
            unlock_outputs = [instr_status, panel, stats, files_table, cited_table, gaps_table]
            private = {"api_visibility": "private"}
            unlock.click(self.instructor_unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock", **private)
            token.submit(self.instructor_unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock_submit", **private)
            refresh_btn.click(self.instructor_unlock, unlock_inputs, unlock_outputs, api_name="instructor_refresh", **private)
            instr_course.input(self.instructor_unlock, unlock_inputs, unlock_outputs, api_name="instructor_course", **private)
            build_btn.click(
                self.instructor_build, [token, instr_course, rebuild, lang],
                [instr_status, panel, build_summary, stats, files_table, cited_table, gaps_table],
                api_name="instructor_build", concurrency_limit=1, **private,
            )
            batch_btn.click(
                self.instructor_batch, [token, instr_course, batch_questions, lang],
                [instr_status, panel, batch_table], api_name="instructor_batch", concurrency_limit=1, **private,
            )
        return demo

    def _privacy(self, lang: str) -> str:
        return t(lang, "privacy", max_mb=f"{self.settings.limits.max_file_mb:g}")

    def _header(self, lang: str) -> str:
        return f"# 📚 {t(lang, 'title')}\n{t(lang, 'tagline')}"

    @staticmethod
    def _scope_choices(lang: str) -> list[tuple[str, str]]:
        return [(t(lang, "scope_both"), "both"), (t(lang, "scope_course"), "course"), (t(lang, "scope_notes"), "notes")]


def build_demo(engine: RagEngine, settings: Settings) -> gr.Blocks:
    """The whole app over one engine; launch it with `demo.queue().launch(**launch_options(settings))`."""
    return StudyApp(engine, settings).build()
