"""The Instructor tab: unlock with INSTRUCTOR_TOKEN, index statistics, rebuilds, content gaps,
batch test questions.

The tab is shown when the server was started with INSTRUCTOR_TOKEN, but hiding it is a
courtesy, not the lock: every handler re-checks the token (courserag.instructor.check_token),
and the handlers are private (not callable through the client libraries).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Callable

import gradio as gr

from courserag.errors import CourseRagError
from courserag.instructor import THROTTLE, InstructorTools, check_token
from courserag.messages import Notice
from courserag.ui.server import client_address
from courserag.ui.labels import Labels
from courserag.ui.texts import normalize_lang, t

_LOCK_MESSAGE = {"disabled": "instr_disabled", "missing": "instr_locked", "wrong": "instr_wrong"}


@dataclass(frozen=True)
class InstructorView:
    """Everything an instructor handler shows; `outputs()` orders it for the wiring."""

    status: str
    unlocked: bool
    summary: str = ""
    stats: str = ""
    files: list = field(default_factory=list)
    cited: list = field(default_factory=list)
    gaps: list = field(default_factory=list)

    def outputs(self) -> tuple:
        """(status, panel, summary, stats, files, cited, gaps)."""
        return (self.status, gr.update(visible=self.unlocked), self.summary, self.stats, self.files, self.cited, self.gaps)


class InstructorTab:
    """Handlers of the tab, over the learners' engine and feedback log."""

    def __init__(self, engine, feedback, on_built: Callable[[str], None] | None = None):
        self.tools = InstructorTools(engine, feedback)
        self.feedback = feedback
        self.on_built = on_built  # e.g. forget the cached course card after a build

    def _locked(self, token, lang: str, request=None) -> InstructorView | None:
        client = client_address(request)
        state = check_token(token, client)
        if state == "throttled":
            wait = Notice("instructor_throttled", {"seconds": int(THROTTLE.retry_after(client)) + 1})
            return InstructorView(wait.text(lang), False)
        return None if state == "ok" else InstructorView(t(lang, _LOCK_MESSAGE[state]), False)

    def _stats_text(self, course_id: str) -> tuple[str, list, list, list]:
        stats = self.tools.stats(course_id)
        health = stats.health
        primary, *fallbacks = health.stores
        lines = [f"**Store in use:** `{primary.name}` {'✓' if primary.ok else '✗'} {html.escape(primary.detail)}"]
        lines += [f"**Fallback store:** `{fb.name}` {'✓' if fb.ok else '✗'}" for fb in fallbacks]
        lines.append(f"**{html.escape(course_id)}:** {len(stats.files)} files, {stats.chunks} passages indexed")
        if stats.error:
            lines.append(f"⚠️ {html.escape(stats.error)}")
        if stats.damaged:  # left out of answers until the next build repairs them
            lines.append(f"⚠️ **{len(stats.damaged)} damaged:** {html.escape(', '.join(stats.damaged))} — build to repair")
        mode = f"LLM `{html.escape(health.llm_model)}`" if health.answer_mode == "llm" else "extractive (no LLM configured)"
        backend = f" ({html.escape(health.embedding_backend)})" if health.embedding_backend else ""
        lines.append(f"**Answers:** {mode} · **Embedding model:** `{html.escape(health.embedding_model)}`{backend}")
        lines.append(f"**Learner sessions with uploads:** {health.sessions}")
        files = [[name, chunks] for name, chunks in stats.files]
        cited = [list(row) for row in self.feedback.most_cited(course_id)]
        gaps = [
            [str(r["timestamp"])[:16].replace("T", " "), r["kind"], r["question"], r["comment"]]
            for r in self.feedback.content_gaps(course_id)
        ]
        return "\n\n".join(lines), files, cited, gaps

    def _unlocked_view(self, course_id: str, lang: str, summary: str = "") -> InstructorView:
        try:
            stats, files, cited, gaps = self._stats_text(course_id)
        except CourseRagError as exc:
            return InstructorView(t(lang, "instr_unlocked"), True, summary, f"⚠️ {html.escape(exc.say(lang))}")
        return InstructorView(t(lang, "instr_unlocked"), True, summary, stats, files, cited, gaps)

    def unlock(self, token, course_id, lang, request: gr.Request = None):
        """Outputs: status, panel, stats, files, cited, gaps."""
        lang = normalize_lang(lang)
        view = self._locked(token, lang, request) or self._unlocked_view(course_id, lang)
        status, panel, _summary, *rest = view.outputs()
        return (status, panel, *rest)

    def build(self, token, course_id, rebuild, lang, request: gr.Request = None, progress=gr.Progress()):
        """Outputs: status, panel, summary, stats, files, cited, gaps."""
        lang = normalize_lang(lang)
        locked = self._locked(token, lang, request)
        if locked:
            return locked.outputs()

        def report(done: int, total: int, name: str) -> None:
            progress((done - 1) / max(total, 1), desc=f"{name} ({done}/{total})")

        try:
            progress(0.0, desc=course_id)
            summary = self.tools.build(course_id, bool(rebuild), report)
        except CourseRagError as exc:
            return InstructorView(t(lang, "instr_unlocked"), True, f"⚠️ {html.escape(exc.say(lang))}").outputs()
        text = t(lang, "instr_build_busy") if summary is None else "```\n" + summary.text() + "\n```"
        if summary is not None and self.on_built is not None:
            self.on_built(course_id)
        return self._unlocked_view(course_id, lang, text).outputs()

    def batch(self, token, course_id, questions, lang, request: gr.Request = None):
        """Outputs: status, panel, results."""
        lang = normalize_lang(lang)
        locked = self._locked(token, lang, request)
        if locked:
            return locked.status, gr.update(visible=False), []
        if not (questions or "").strip():
            return t(lang, "instr_no_questions"), gr.update(visible=True), []
        try:
            rows = self.tools.batch(course_id, questions)
        except CourseRagError as exc:
            return f"⚠️ {html.escape(exc.say(lang))}", gr.update(visible=True), []
        return t(lang, "instr_unlocked"), gr.update(visible=True), rows

    # -- layout -------------------------------------------------------------------------

    def build_tab(self, labels: Labels, course_choices: list, first_course: str | None, visible: bool, lang_state):
        """The tab's widgets and wiring (inside an open gr.Blocks)."""
        with labels.add(gr.Tab, id="instructor", elem_id="cr-tab-instructor", visible=visible, text={"label": "tab_instructor"}):
            labels.add(gr.Markdown, text={"value": "instr_intro"})
            with gr.Row(elem_id="cr-token-row"):
                token = labels.add(gr.Textbox, type="password", scale=4, elem_id="cr-token", text={"label": "instr_token"})
                unlock = labels.add(gr.Button, variant="primary", scale=1, elem_id="cr-unlock", text={"value": "instr_unlock"})
            status = labels.add(gr.Markdown, elem_id="cr-instr-status", text={"value": "instr_locked"})
            with gr.Column(visible=False, elem_id="cr-instr-panel") as panel:
                with gr.Row(elem_id="cr-instr-actions"):
                    course = labels.add(gr.Dropdown, course_choices, value=first_course, elem_id="cr-instr-course", scale=2,
                                        text={"label": "instr_course"})
                    rebuild = labels.add(gr.Checkbox, False, scale=2, elem_id="cr-rebuild", text={"label": "instr_rebuild_all"})
                    build_btn = labels.add(gr.Button, variant="primary", scale=1, elem_id="cr-build", text={"value": "instr_build"})
                    refresh = labels.add(gr.Button, scale=1, elem_id="cr-refresh", text={"value": "instr_refresh"})
                summary = gr.Markdown("", elem_id="cr-build-summary")
                labels.add(gr.Markdown, text={"value": lambda lg: f"### {t(lg, 'instr_stats')}"})
                stats = gr.Markdown("", elem_id="cr-stats")
                with gr.Row():
                    files = labels.add(gr.Dataframe, headers=["file", "passages"], interactive=False,
                                       elem_id="cr-files-table", wrap=True, text={"label": "instr_files"})
                    cited = labels.add(gr.Dataframe, headers=["file", "times cited", "👍", "👎"], interactive=False,
                                       elem_id="cr-cited-table", wrap=True, text={"label": "instr_cited"})
                gaps = labels.add(gr.Dataframe, headers=["when (UTC)", "kind", "question", "comment"], interactive=False,
                                  elem_id="cr-gaps-table", wrap=True, column_widths=["22%", "12%", "36%", "30%"],
                                  text={"label": "instr_gaps"})
                questions = labels.add(gr.Textbox, lines=4, elem_id="cr-batch-questions", text={"label": "instr_batch"})
                batch_btn = labels.add(gr.Button, elem_id="cr-batch-run", text={"value": "instr_batch_run"})
                batch_table = labels.add(gr.Dataframe, headers=["#", "question", "result", "answer", "sources", "ms"],
                                         interactive=False, wrap=True, elem_id="cr-batch-table",
                                         column_widths=["5%", "20%", "10%", "40%", "19%", "6%"], text={"label": "instr_batch_results"})

        private = {"api_visibility": "private"}
        unlock_inputs = [token, course, lang_state]
        unlock_outputs = [status, panel, stats, files, cited, gaps]
        unlock.click(self.unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock", **private)
        token.submit(self.unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock_submit", **private)
        refresh.click(self.unlock, unlock_inputs, unlock_outputs, api_name="instructor_refresh", **private)
        course.input(self.unlock, unlock_inputs, unlock_outputs, api_name="instructor_course", **private)
        build_btn.click(
            self.build, [token, course, rebuild, lang_state], [status, panel, summary, stats, files, cited, gaps],
            api_name="instructor_build", concurrency_limit=1, **private,
        )
        batch_btn.click(
            self.batch, [token, course, questions, lang_state], [status, panel, batch_table],
            api_name="instructor_batch", concurrency_limit=1, **private,
        )
