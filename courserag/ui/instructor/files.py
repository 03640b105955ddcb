"""The Instructor tab's file actions, none of which can lose work: an upload whose name is
taken asks "replace or keep both" before anything is stored, files land in the folder picked
among the course's existing subfolders (checked again on the server), and a removed or
replaced file waits in the course's trash, restorable from the tab (instructor/course_files.py).

A mixin of InstructorTab: every handler checks the token for its course (`_locked`) first.
"""

from __future__ import annotations

import html
from pathlib import Path

import gradio as gr

from courserag.errors import CourseRagError
from courserag.i18n.messages import Notice
from courserag.i18n.ui_texts import normalize_lang, t
from courserag.instructor.placement import ROOT
from courserag.ui.instructor import views

BUILD_OUTPUTS = 13  # status, panel, summary, stats, files, cited, gaps, progress, confirm, 4 pickers
_HIDE = {"visible": False}


def _uploads(files) -> list[tuple[Path, str]]:
    paths = [Path(getattr(f, "name", f)) for f in (files if isinstance(files, list) else [files] if files else [])]
    return [(path, path.name) for path in paths]


class FileActions:
    """Handlers of the file part of the tab (mixed into InstructorTab)."""

    def _days(self) -> str:
        return f"{self.tools.settings.trash_days:g}"

    def file_picks(self, course_id: str, lang: str, folder: str = ROOT) -> tuple:
        """(folder picker, trash picker) for `course_id`, keeping `folder` if it is still there."""
        folders = self.tools.folders(course_id)
        trash = views.trash_choices(self.tools.trashed(course_id), lang)
        return (
            gr.update(choices=views.folder_choices(folders, lang), value=folder if folder in folders else ROOT),
            gr.update(choices=trash, value=None),
        )

    def _said(self, course_id, lang, message: str, folder: str = ROOT) -> tuple:
        """Build outputs that only say `message` (nothing ran), then: clear the file box, hide the prompt."""
        outputs = self._build_outputs(course_id, lang, t(lang, "instr_unlocked"), message, folder=folder)
        return (*outputs, None, gr.update(**_HIDE), "")

    def add_files(self, token, course_id, files, folder, lang, request: gr.Request = None):
        """An upload: stored and indexed, unless a name is taken, then the prompt asks first.
        Outputs: see _build_outputs, then the file box, the prompt and its question."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            yield (*self._locked_build(message, lang), None, gr.update(**_HIDE), "")
            return
        uploads = _uploads(files)
        if not uploads:
            yield (*(gr.skip(),) * BUILD_OUTPUTS, gr.skip(), gr.update(**_HIDE), "")
            return
        try:
            taken = self.tools.clashes(course_id, [name for _, name in uploads], folder)
        except CourseRagError as exc:
            yield self._said(course_id, lang, f"⚠️ {html.escape(exc.say(lang))}")
            return
        if taken:  # nothing stored yet: the files wait in the box for the instructor's choice
            question = self._clash_question(course_id, taken, folder, lang)
            yield (*(gr.skip(),) * BUILD_OUTPUTS, gr.skip(), gr.update(visible=True), question)
            return
        yield from self._adding(course_id, uploads, folder, "ask", lang)

    def _clash_question(self, course_id: str, taken: list[str], folder, lang: str) -> str:
        where = t(lang, "instr_folder_root") if folder in (None, "", ROOT) else f"`{folder}`"
        return t(
            lang,
            "instr_clash_question",
            folder=where,
            names=html.escape(", ".join(taken)),
            example=html.escape(self.tools.kept_name(course_id, taken[0], folder)),
        )

    def prompt_questions(self, course_id: str, files, folder, picked, lang: str) -> tuple:
        """The questions of the replace-or-keep-both, remove and rebuild prompts said in `lang`
        (after a language switch; the caller has checked the token). A prompt's box keeps its
        visibility: a question of a hidden box is only rewritten."""
        uploads = _uploads(files)
        try:
            taken = self.tools.clashes(course_id, [name for _, name in uploads], folder) if uploads else []
        except CourseRagError:
            taken = []
        clash = self._clash_question(course_id, taken, folder, lang) if taken else gr.skip()
        remove = self._remove_question(picked, lang) if picked else gr.skip()
        return clash, remove, self.rebuild_question(course_id, lang)

    def _remove_question(self, name: str, lang: str) -> str:
        return t(lang, "instr_remove_question", name=html.escape(name), days=self._days())

    def _adding(self, course_id, uploads, folder, on_clash, lang):
        folder = str(folder or ROOT)
        for output in self._building(
            course_id,
            lang,
            lambda progress: self.tools.add_files(course_id, uploads, progress, folder, on_clash),
            folder=folder,
        ):
            yield (*output, gr.skip(), gr.skip(), gr.skip())
        yield (*(gr.skip(),) * BUILD_OUTPUTS, None, gr.update(**_HIDE), "")

    def _resolved_add(self, token, course_id, files, folder, lang, request, on_clash):
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            yield (*self._locked_build(message, lang), None, gr.update(**_HIDE), "")
            return
        uploads = _uploads(files)
        if not uploads:
            yield (*(gr.skip(),) * BUILD_OUTPUTS, None, gr.update(**_HIDE), "")
            return
        try:
            yield from self._adding(course_id, uploads, folder, on_clash, lang)
        except CourseRagError as exc:
            yield self._said(course_id, lang, f"⚠️ {html.escape(exc.say(lang))}")

    def add_replacing(self, token, course_id, files, folder, lang, request: gr.Request = None):
        """The prompt's "Replace": the old versions go to the trash."""
        yield from self._resolved_add(token, course_id, files, folder, lang, request, "replace")

    def add_keeping(self, token, course_id, files, folder, lang, request: gr.Request = None):
        """The prompt's "Keep both": the new files get free names."""
        yield from self._resolved_add(token, course_id, files, folder, lang, request, "keep")

    def ask_remove(self, token, course_id, name, lang, request: gr.Request = None):
        """Outputs: remove-confirm box, its question."""
        lang = normalize_lang(lang)
        if self._locked(token, course_id, lang, request):
            return gr.update(visible=False), ""
        if not name:
            return gr.update(visible=True), t(lang, "instr_nothing_picked")
        return gr.update(visible=True), self._remove_question(name, lang)

    def remove_file(self, token, course_id, name, lang, request: gr.Request = None):
        """Move the picked file to the course's trash and drop it from the index."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            yield self._locked_build(message, lang)
            return

        def work(progress):
            summary = self.tools.remove_file(course_id, str(name or ""), progress)
            return summary, [Notice("plain", {"text": t(lang, "instr_removed", name=name, days=self._days())})]

        yield from self._building(course_id, lang, work)

    def restore_file(self, token, course_id, entry_id, lang, request: gr.Request = None):
        """Put the picked trash entry back in the course folder and index it."""
        lang = normalize_lang(lang)
        message = self._locked(token, course_id, lang, request)
        if message:
            yield self._locked_build(message, lang)
            return
        if not entry_id:
            yield self._build_outputs(course_id, lang, t(lang, "instr_unlocked"), t(lang, "instr_nothing_picked"))
            return

        def work(progress):
            source, summary = self.tools.restore_file(course_id, entry_id, progress)
            return summary, [Notice("plain", {"text": t(lang, "instr_restored", name=source)})]

        yield from self._building(course_id, lang, work)
