"""The Instructor tab: unlock with a token, manage the course's files and details, update or
rebuild its index (a rebuild asks first, and learners keep the current index until the new
one is switched in), statistics, feedback and content gaps, batch test questions.

The tab is shown when the server was started with INSTRUCTOR_TOKEN or INSTRUCTOR_TOKENS,
but hiding it is a courtesy, not the lock: every handler re-checks the token for the course
it acts on (courserag.instructor.tools.check_token), and the handlers are private (not callable
through the client libraries). Words and tables come from views.py; the file
actions (folders, "replace or keep both", the trash) from files.py.
"""

from __future__ import annotations

import html
import queue
import threading
from typing import Callable, Iterator

import gradio as gr

from courserag.config.persistence import lost_on_restart
from courserag.config.settings import Settings
from courserag.errors import CourseRagError
from courserag.i18n.locators import say_locator
from courserag.i18n.messages import Notice
from courserag.i18n.ui_texts import normalize_lang, t
from courserag.instructor.tools import THROTTLE, InstructorTools, check_token, token_courses
from courserag.ui.clients import ClientPolicy
from courserag.ui.instructor import views
from courserag.ui.instructor.files import BUILD_OUTPUTS, ROOT, FileActions
from courserag.ui.rendering.labels import Labels
from courserag.ui.server import client_address

_LOCK_MESSAGE = {"disabled": "instr_disabled", "missing": "instr_locked", "wrong": "instr_wrong"}
_DONE = object()
_HIDDEN = {"visible": False}


class InstructorTab(FileActions):
    """Handlers of the tab, over the learners' engine and feedback log."""

    def __init__(
        self, engine, feedback, settings: Settings | None = None, on_built: Callable[[str], None] | None = None
    ):
        self.tools = InstructorTools(engine, feedback, settings)
        self.settings = settings
        self.engine = engine
        self.feedback = feedback
        self.on_built = on_built  # e.g. forget the cached course card after a build
        self.clients = ClientPolicy.from_settings(self.tools.settings)

    # -- the lock -------------------------------------------------------------------------

    def _locked(self, token, course_id, lang: str, request=None) -> str | None:
        """None when `token` may act on `course_id`, else what to say. Wrong tokens are
        counted per client (see instructor.TokenThrottle). Every handler acts on one named
        course: no course (None, "", an unknown id) is never "every course", so what a token
        reads (gaps, statistics, feedback) is always of a course it unlocks."""
        client = client_address(request, self.clients)
        known = isinstance(course_id, str) and course_id in [c.id for c in self.engine.courses]
        state = check_token(token, course_id if known else None, client)
        if state == "ok":
            return None if known else t(lang, "instr_wrong_course")
        if state == "throttled":
            return Notice("instructor_throttled", {"seconds": int(THROTTLE.retry_after(client)) + 1}).text(lang)
        if state == "wrong" and token_courses(token, [c.id for c in self.engine.courses]):
            return t(lang, "instr_wrong_course")
        return t(lang, _LOCK_MESSAGE[state])

    def _allowed(self, token) -> list[str]:
        return token_courses(token, [c.id for c in self.engine.courses])

    # -- what the panel shows ---------------------------------------------------------------

    def _tables(self, course_id: str, lang: str, folder: str = ROOT) -> tuple:
        """(stats, files, cited, gaps, gap choices, removable files, folders, trash)."""
        try:
            stats = views.stats_markdown(self.tools.stats(course_id), lang)
        except CourseRagError as exc:
            stats = f"⚠️ {html.escape(exc.say(lang))}"
        if self.settings is not None:  # on a Space without persistent storage, say what a restart wipes
            docs = [c.docs for c in self.engine.courses if c.id == course_id]
            lost = lost_on_restart([self.settings.data_dir, self.settings.course_directory, *docs])
            if lost:
                stats += "\n\n⚠️ " + t(lang, "instr_not_persistent", places=", ".join(f"`{p}`" for p in lost))
        catalog = self._catalog_state(lang)
        if catalog:
            stats += "\n\n" + catalog
        files = self.tools.files(course_id)
        groups = self.feedback.gap_groups(course_id)
        return (
            stats,
            views.files_table(files, lang),
            views.cited_table(self.tools.most_cited(course_id), lang),
            views.gaps_table(groups, lang, course_id),
            gr.update(choices=views.gap_choices(groups), value=[]),
            gr.update(choices=[f.source for f in files], value=None),
            *self.file_picks(course_id, lang, folder),
        )

    def _catalog_state(self, lang: str) -> str:
        """The course catalog's state, read again when its files changed (so an edited
        catalog is checked on Refresh; one that fails leaves the last good one in use)."""
        source = getattr(self.engine, "catalog", None)
        if source is None or source.folder is None:
            return ""
        source.refresh()
        return views.catalog_markdown(str(source.folder), source.catalog, source.error, lang)

    def _empty_tables(self, lang: str) -> tuple:
        return (
            "",
            views.files_table([], lang),
            views.cited_table([], lang),
            views.gaps_table([], lang),
            gr.update(choices=[], value=[]),
            gr.update(choices=[], value=None),
            gr.update(choices=views.folder_choices([], lang), value=ROOT),
            gr.update(choices=[], value=None),
        )

    def unlock(self, token, course_id, lang, request: gr.Request = None):
        """Outputs: status, panel, stats, files, cited, gaps, course, name, description,
        examples, then the pickers: gaps, files, folders, trash."""
        return self._opened(token, course_id, normalize_lang(lang), request)

    def _opened(self, token, course_id, lang: str, request=None, folder: str = ROOT) -> tuple:
        """`unlock`'s outputs, with `folder` kept picked when it is still there."""
        allowed = self._allowed(token)
        if allowed and course_id not in allowed:
            course_id = allowed[0]  # a course's own token opens on that course
        message = self._locked(token, course_id, lang, request)
        if message:
            stats, files, cited, gaps, *picks = self._empty_tables(lang)
            return (
                message,
                gr.update(visible=False),
                stats,
                files,
                cited,
                gaps,
                gr.skip(),
                "",
                "",
                "",
                *picks,
            )
        stats, files, cited, gaps, *picks = self._tables(course_id, lang, folder)
        course = self.engine.course(course_id)
        choices = [(c.name, c.id) for c in self.engine.courses if c.id in allowed]
        return (
            t(lang, "instr_unlocked"),
            gr.update(visible=True),
            stats,
            files,
            cited,
            gaps,
            gr.update(choices=choices, value=course_id),
            course.name,
            course.description,
            "\n".join(course.examples),
            *picks,
        )

    def relabel(self, token, course_id, lang, files=None, folder=ROOT, picked=None, request: gr.Request = None):
        """A language switch: the status, statistics and tables said again in `lang`, and
        the tab stays as it was (unlocked or not; unsaved course details kept; an open prompt
        asked again in `lang`). Outputs: as `unlock`, then the batch table (its headers), then
        the questions of the replace-or-keep-both, remove and rebuild prompts."""
        lang = normalize_lang(lang)
        keep = (gr.skip(),) * 4  # course picker, name, description, examples
        if not token:  # nothing typed: only the lock's words (no token check, nothing counted)
            state = check_token(None, course_id)
            stats, files_table, cited, gaps, *picks = self._empty_tables(lang)
            return (
                t(lang, _LOCK_MESSAGE.get(state, "instr_locked")),
                gr.skip(),
                stats,
                files_table,
                cited,
                gaps,
                *keep,
                *picks,
                views.batch_table([], lang),
                *(gr.skip(),) * 3,
            )
        opened = self._opened(token, course_id, lang, request, folder or ROOT)
        status, panel, stats, files_table, cited, gaps, *rest = opened
        picks, prompts = rest[4:], (gr.skip(),) * 3
        if panel.get("visible") is True and rest[0].get("value") == course_id:  # unlocked, same course
            _, _, folder_pick, trash_pick = picks
            # what was picked stays picked; only the pickers' translated labels change
            picks = (gr.skip(), gr.skip(), folder_pick, gr.update(choices=trash_pick["choices"]))
            prompts = self.prompt_questions(course_id, files, folder, picked, lang)
        return (status, panel, stats, files_table, cited, gaps, *keep, *picks, views.batch_table([], lang), *prompts)

    def rebuild_question(self, course_id: str, lang: str) -> str:
        course = self.engine.course(course_id)
        count = len(self.tools.files(course_id))
        return t(lang, "instr_rebuild_question", course=html.escape(course.name), files=count)

    # -- builds, with a progress bar --------------------------------------------------------

    def _run(self, work: Callable[[Callable[[int, int, str], None]], object], lang: str) -> Iterator:
        """Run `work(progress)` in a thread; yield progress HTML while it runs, then
        ("done", result) or ("error", exception)."""
        events: queue.Queue = queue.Queue()
        outcome: dict = {}

        def run() -> None:
            try:
                outcome["done"] = work(lambda done, total, name: events.put((done, total, name)))
            except Exception as exc:  # noqa: BLE001 - shown to the instructor below
                outcome["error"] = exc
            finally:
                events.put(_DONE)

        threading.Thread(target=run, name="instructor-build", daemon=True).start()
        while (item := events.get()) is not _DONE:
            while not events.empty():  # show the latest step only
                newer = events.get()
                if newer is _DONE:
                    events.put(_DONE)
                    break
                item = newer
            done, total, name = item
            yield views.progress_html(done - 1, total, name, lang)
        yield ("error", outcome["error"]) if "error" in outcome else ("done", outcome.get("done"))

    def _build_outputs(
        self, course_id, lang, status, summary, progress="", hide_confirm=True, folder: str = ROOT
    ) -> tuple:
        """status, panel, summary, stats, files, cited, gaps, progress, confirm box, then the
        pickers: gaps, files, folders, trash."""
        stats, files, cited, gaps, *picks = self._tables(course_id, lang, folder)
        confirm = gr.update(visible=False) if hide_confirm else gr.skip()
        return (
            status,
            gr.update(visible=True),
            summary,
            stats,
            files,
            cited,
            gaps,
            progress,
            confirm,
            *picks,
        )

    def _locked_build(self, message: str, lang: str) -> tuple:
        stats, files, cited, gaps, *picks = self._empty_tables(lang)
        return (
            message,
            gr.update(visible=False),
            "",
            stats,
            files,
            cited,
            gaps,
            "",
            gr.update(visible=False),
            *picks,
        )

    def _building(self, course_id, lang, work, folder: str = ROOT) -> Iterator[tuple]:
        """Run a build-like `work` with progress; the last output has its summary."""
        for step in self._run(work, lang):
            if isinstance(step, str):
                yield (*(gr.skip(),) * 7, step, *(gr.skip(),) * (BUILD_OUTPUTS - 8))
                continue
            kind, value = step
            if kind == "error":
                message = value.say(lang) if isinstance(value, CourseRagError) else type(value).__name__
                yield self._build_outputs(
                    course_id, lang, t(lang, "instr_unlocked"), f"⚠️ {html.escape(message)}", folder=folder
                )
                return
            summary = value[0] if isinstance(value, tuple) else value
            notes = value[1] if isinstance(value, tuple) else []
            text = t(lang, "instr_build_busy") if summary is None and not notes else ""
            if summary is not None:
                text = views.build_summary(summary, lang)
                if self.on_built is not None:
                    self.on_built(course_id)
            lines = "\n\n".join(html.escape(n.text(lang)) for n in notes)
            joined = "\n\n".join(p for p in (lines, text) if p)
            yield self._build_outputs(course_id, lang, t(lang, "instr_unlocked"), joined, folder=folder)

    def build(self, token, course_id, rebuild, lang, request: gr.Request = None):
        """Update (or, with `rebuild`, redo) the course's index. Outputs: see _build_outputs."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            yield self._locked_build(message, lang)
            return
        yield from self._building(
            course_id, lang, lambda progress: self.tools.build(course_id, bool(rebuild), progress)
        )

    def rebuild(self, token, course_id, lang, request: gr.Request = None):
        """The confirmed "rebuild from scratch"."""
        yield from self.build(token, course_id, True, lang, request)

    def ask_rebuild(self, token, course_id, lang, request: gr.Request = None):
        """Outputs: confirm box, its question."""
        lang = normalize_lang(lang)
        if self._locked(token, course_id, lang, request):
            return gr.update(visible=False), ""
        return gr.update(visible=True), self.rebuild_question(course_id, lang)

    # -- course details, gaps, batch -----------------------------------------------------

    def save_details(self, token, course_id, name, description, examples, lang, request: gr.Request = None):
        """Outputs: status, details note, course picker."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            return message, "", gr.skip()
        try:
            self.tools.edit_course(course_id, name, description, examples)
        except CourseRagError as exc:
            return t(lang, "instr_unlocked"), f"⚠️ {html.escape(exc.say(lang))}", gr.skip()
        choices = [(c.name, c.id) for c in self.engine.courses if c.id in self._allowed(token)]
        return t(lang, "instr_unlocked"), t(lang, "instr_saved"), gr.update(choices=choices, value=course_id)

    def resolve_gaps(self, token, course_id, keys, lang, request: gr.Request = None):
        """Outputs: status, note, gaps table, gap picker."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            return message, "", gr.skip(), gr.skip()
        for key in keys or []:
            self.feedback.resolve_gap(course_id, key)
        groups = self.feedback.gap_groups(course_id)
        note = t(lang, "instr_gap_resolved") if keys else ""
        return (
            t(lang, "instr_unlocked"),
            note,
            views.gaps_table(groups, lang, course_id),
            gr.update(choices=views.gap_choices(groups), value=[]),
        )

    def batch(self, token, course_id, questions, lang, request: gr.Request = None):
        """Outputs: status, panel, results."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            return message, gr.update(visible=False), views.batch_table([], lang)
        if not (questions or "").strip():
            return t(lang, "instr_no_questions"), gr.update(visible=True), views.batch_table([], lang)
        try:
            rows = self.tools.batch(course_id, questions, describe=lambda loc: say_locator(loc, lang).split(" › ")[-1])
        except CourseRagError as exc:
            return f"⚠️ {html.escape(exc.say(lang))}", gr.update(visible=True), views.batch_table([], lang)
        return t(lang, "instr_unlocked"), gr.update(visible=True), views.batch_table(rows, lang)

    # -- layout -------------------------------------------------------------------------

    def build_tab(self, labels: Labels, course_choices: list, first_course: str | None, visible: bool, lang_state):
        """The tab's widgets and wiring (inside an open gr.Blocks)."""
        from courserag.ui.instructor.layout import build_instructor_tab

        build_instructor_tab(self, labels, course_choices, first_course, visible, lang_state)
