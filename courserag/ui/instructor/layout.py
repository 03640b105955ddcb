"""The Instructor tab's widgets and their wiring to the handlers of tab.py.

Every event is private (no client-library endpoint); the token and the course travel with
each call and are checked by the handler. One small builder per panel, in the order the page
shows them, each returning the widgets the wiring needs; the wiring follows, one function per
group of events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from courserag.i18n.ui_texts import t
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS
from courserag.instructor.placement import ROOT
from courserag.ui.instructor import views
from courserag.ui.rendering.labels import Labels

PRIVATE = {"api_visibility": "private"}


@dataclass
class BuildPanel:
    """The course picker, the build buttons, the rebuild question and the build's progress."""

    course: Any
    build_btn: Any
    rebuild_btn: Any
    refresh: Any
    no_rebuild: Any
    confirm_box: Any
    confirm_text: Any
    confirm_yes: Any
    confirm_no: Any
    progress: Any
    summary: Any


@dataclass
class FilesPanel:
    """The course's files: the table, adding (with the name-clash question), removing, the trash."""

    files: Any
    folder_pick: Any
    add: Any
    clash_box: Any
    clash_text: Any
    clash_replace: Any
    clash_keep: Any
    clash_no: Any
    file_pick: Any
    remove_btn: Any
    remove_box: Any
    remove_text: Any
    remove_yes: Any
    remove_no: Any
    trash_pick: Any
    restore_btn: Any


@dataclass
class DetailsPanel:
    """The course's name, description and example questions."""

    name: Any
    description: Any
    examples: Any
    save: Any
    details_note: Any


@dataclass
class StatsPanel:
    """The index's numbers, the cited files, the content gaps and the batch run."""

    stats: Any
    cited: Any
    gaps: Any
    gap_pick: Any
    resolve: Any
    gap_note: Any
    questions: Any
    batch_btn: Any
    batch_table: Any


@dataclass
class InstructorWidgets:
    token: Any
    unlock: Any
    status: Any
    panel: Any
    build: BuildPanel
    files: FilesPanel
    details: DetailsPanel
    stats: StatsPanel

    def unlock_outputs(self) -> list:
        return [
            self.status,
            self.panel,
            self.stats.stats,
            self.files.files,
            self.stats.cited,
            self.stats.gaps,
            self.build.course,
            self.details.name,
            self.details.description,
            self.details.examples,
            self.stats.gap_pick,
            self.files.file_pick,
            self.files.folder_pick,
            self.files.trash_pick,
        ]

    def build_outputs(self) -> list:
        b, f, s = self.build, self.files, self.stats
        outputs = [self.status, self.panel, b.summary, s.stats, f.files, s.cited, s.gaps, b.progress, b.confirm_box]
        return outputs + [s.gap_pick, f.file_pick, f.folder_pick, f.trash_pick]


def build_instructor_tab(
    tab, labels: Labels, course_choices: list, first_course: str | None, visible: bool, lang_state
):
    """Widgets inside an open gr.Blocks; `tab` is the InstructorTab with the handlers."""
    with labels.add(
        gr.Tab, id="instructor", elem_id="cr-tab-instructor", visible=visible, text={"label": "tab_instructor"}
    ):
        labels.add(gr.Markdown, text={"value": "instr_intro"})
        token, unlock = _token_row(labels)
        # Not relabelled with the others: its words depend on the lock (InstructorTab.relabel).
        status = gr.Markdown(t(labels.lang, "instr_locked"), elem_id="cr-instr-status")
        with gr.Column(visible=False, elem_id="cr-instr-panel") as panel:
            build = _build_panel(labels, course_choices, first_course)
            files = _files_panel(labels, f"{tab.tools.settings.trash_days:g}")
            details = _details_panel(labels)
            stats = _stats_panel(labels)
    w = InstructorWidgets(token, unlock, status, panel, build, files, details, stats)
    _wire_unlock(tab, w, lang_state)
    _wire_build(tab, w, lang_state)
    _wire_files(tab, w, lang_state)
    _wire_details_and_stats(tab, w, lang_state)


def _section(labels: Labels, key: str) -> None:
    labels.add(gr.Markdown, elem_classes=["cr-section"], text={"value": lambda lg: f"## {t(lg, key)}"})


def _token_row(labels: Labels):
    with gr.Row(elem_id="cr-token-row"):
        token = labels.add(gr.Textbox, type="password", scale=4, elem_id="cr-token", text={"label": "instr_token"})
        unlock = labels.add(gr.Button, variant="primary", scale=1, elem_id="cr-unlock", text={"value": "instr_unlock"})
    return token, unlock


def _build_panel(labels: Labels, course_choices: list, first_course: str | None) -> BuildPanel:
    with gr.Row(elem_id="cr-instr-actions"):
        course = labels.add(
            gr.Dropdown,
            course_choices,
            value=first_course,
            elem_id="cr-instr-course",
            scale=2,
            text={"label": "instr_course"},
        )
        build_btn = labels.add(gr.Button, variant="primary", scale=1, elem_id="cr-build", text={"value": "instr_build"})
        rebuild_btn = labels.add(gr.Button, scale=1, elem_id="cr-rebuild", text={"value": "instr_rebuild"})
        refresh = labels.add(gr.Button, scale=1, elem_id="cr-refresh", text={"value": "instr_refresh"})
    no_rebuild = gr.Checkbox(False, visible=False, elem_id="cr-no-rebuild")
    with gr.Group(visible=False, elem_classes=["cr-confirm"]) as confirm_box:
        confirm_text = gr.Markdown("", elem_id="cr-rebuild-question", padding=True)
        with gr.Row():
            confirm_yes = labels.add(
                gr.Button, variant="stop", elem_id="cr-rebuild-yes", text={"value": "instr_rebuild_yes"}
            )
            confirm_no = labels.add(gr.Button, elem_id="cr-rebuild-no", text={"value": "instr_cancel"})
    progress = gr.HTML("", elem_id="cr-instr-progress")
    summary = gr.Markdown("", elem_id="cr-build-summary")
    return BuildPanel(
        course, build_btn, rebuild_btn, refresh, no_rebuild, confirm_box, confirm_text, confirm_yes, confirm_no,
        progress, summary,
    )  # fmt: skip


def _files_panel(labels: Labels, days: str) -> FilesPanel:
    _section(labels, "instr_files_heading")
    # Tables of our own HTML (views.html_table), not Dataframes: readable at every width.
    files = gr.HTML(views.files_table([], labels.lang), elem_id="cr-files-table", padding=True)
    folder_pick = labels.add(
        gr.Dropdown,
        views.folder_choices([], labels.lang),
        value=ROOT,
        elem_id="cr-folder-pick",
        text={"label": "instr_folder"},
    )
    add = labels.add(
        gr.File,
        file_count="multiple",
        file_types=sorted(SUPPORTED_EXTENSIONS),
        height=120,
        elem_id="cr-instr-upload",
        text={"label": "instr_add_files"},
    )
    # The id sits on a Column: Gradio's Group writes its elem_id on two nested divs.
    with gr.Column(visible=False, elem_id="cr-clash-box") as clash_box, gr.Group(elem_classes=["cr-confirm"]):
        clash_text = gr.Markdown("", elem_id="cr-clash-question", padding=True)
        with gr.Row():
            clash_replace = labels.add(
                gr.Button, variant="stop", elem_id="cr-clash-replace", text={"value": "instr_clash_replace"}
            )
            clash_keep = labels.add(
                gr.Button, variant="primary", elem_id="cr-clash-keep", text={"value": "instr_clash_keep"}
            )
            clash_no = labels.add(gr.Button, elem_id="cr-clash-no", text={"value": "instr_cancel"})
    with gr.Row(equal_height=True):
        file_pick = labels.add(
            gr.Dropdown, [], value=None, scale=3, elem_id="cr-file-pick", text={"label": "instr_remove_pick"}
        )
        remove_btn = labels.add(gr.Button, scale=1, elem_id="cr-file-remove", text={"value": "instr_remove"})
    with gr.Group(visible=False, elem_classes=["cr-confirm"]) as remove_box:
        remove_text = gr.Markdown("", elem_id="cr-remove-question", padding=True)
        with gr.Row():
            remove_yes = labels.add(
                gr.Button, variant="stop", elem_id="cr-remove-yes", text={"value": "instr_remove_yes"}
            )
            remove_no = labels.add(gr.Button, elem_id="cr-remove-no", text={"value": "instr_cancel"})
    with gr.Row(equal_height=True):
        trash_pick = labels.add(
            gr.Dropdown,
            [],
            value=None,
            scale=3,
            elem_id="cr-trash-pick",
            text={"label": lambda lg: t(lg, "instr_trash_pick", days=days)},
        )
        restore_btn = labels.add(gr.Button, scale=1, elem_id="cr-trash-restore", text={"value": "instr_trash_restore"})
    return FilesPanel(
        files, folder_pick, add, clash_box, clash_text, clash_replace, clash_keep, clash_no, file_pick, remove_btn,
        remove_box, remove_text, remove_yes, remove_no, trash_pick, restore_btn,
    )  # fmt: skip


def _details_panel(labels: Labels) -> DetailsPanel:
    _section(labels, "instr_details")
    name = labels.add(gr.Textbox, elem_id="cr-course-name", max_lines=1, text={"label": "instr_name"})
    description = labels.add(gr.Textbox, elem_id="cr-course-description", lines=2, text={"label": "instr_description"})
    examples = labels.add(gr.Textbox, elem_id="cr-course-examples", lines=4, text={"label": "instr_examples"})
    save = labels.add(gr.Button, elem_id="cr-course-save", text={"value": "instr_save"})
    details_note = gr.Markdown("", elem_id="cr-details-note")
    return DetailsPanel(name, description, examples, save, details_note)


def _stats_panel(labels: Labels) -> StatsPanel:
    _section(labels, "instr_stats")
    stats = gr.Markdown("", elem_id="cr-stats")
    cited = labels.add(
        gr.Dataframe,
        headers=views.cited_table([], labels.lang)["headers"],
        interactive=False,
        elem_id="cr-cited-table",
        wrap=True,
        text={"label": "instr_cited"},
    )
    gaps = gr.HTML(views.gaps_table([], labels.lang), elem_id="cr-gaps-table", padding=True)
    with gr.Row(equal_height=True):
        gap_pick = labels.add(
            gr.Dropdown,
            [],
            value=[],
            multiselect=True,
            scale=3,
            elem_id="cr-gap-pick",
            text={"label": "instr_gap_pick"},
        )
        resolve = labels.add(gr.Button, scale=1, elem_id="cr-gap-resolve", text={"value": "instr_gap_resolve"})
    gap_note = gr.Markdown("", elem_id="cr-gap-note")

    questions = labels.add(gr.Textbox, lines=4, elem_id="cr-batch-questions", text={"label": "instr_batch"})
    batch_btn = labels.add(gr.Button, elem_id="cr-batch-run", text={"value": "instr_batch_run"})
    batch_table = labels.add(
        gr.Dataframe,
        headers=views.batch_table([], labels.lang)["headers"],
        interactive=False,
        wrap=True,
        elem_id="cr-batch-table",
        column_widths=["5%", "20%", "10%", "40%", "19%", "6%"],
        text={"label": "instr_batch_results"},
    )
    return StatsPanel(stats, cited, gaps, gap_pick, resolve, gap_note, questions, batch_btn, batch_table)


def _wire_unlock(tab, w: InstructorWidgets, lang_state) -> None:
    unlock_inputs = [w.token, w.build.course, lang_state]
    unlock_outputs = w.unlock_outputs()
    w.unlock.click(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock", **PRIVATE)
    w.token.submit(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock_submit", **PRIVATE)
    w.build.refresh.click(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_refresh", **PRIVATE)
    w.build.course.input(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_course", **PRIVATE)
    lang_state.change(
        tab.relabel,
        [*unlock_inputs, w.files.add, w.files.folder_pick, w.files.file_pick],
        [*unlock_outputs, w.stats.batch_table, w.files.clash_text, w.files.remove_text, w.build.confirm_text],
        queue=False,
        **PRIVATE,
    )


def _wire_build(tab, w: InstructorWidgets, lang_state) -> None:
    token, b = w.token, w.build
    build_outputs = w.build_outputs()
    b.build_btn.click(
        tab.build,
        [token, b.course, b.no_rebuild, lang_state],
        build_outputs,
        api_name="instructor_build",
        concurrency_limit=1,
        show_progress="hidden",
        **PRIVATE,
    )
    b.rebuild_btn.click(tab.ask_rebuild, [token, b.course, lang_state], [b.confirm_box, b.confirm_text], **PRIVATE)
    b.confirm_no.click(lambda: gr.update(visible=False), None, b.confirm_box, queue=False, **PRIVATE)
    b.confirm_yes.click(
        tab.rebuild,
        [token, b.course, lang_state],
        build_outputs,
        api_name="instructor_rebuild",
        concurrency_limit=1,
        show_progress="hidden",
        **PRIVATE,
    )


def _wire_files(tab, w: InstructorWidgets, lang_state) -> None:
    token, course, f = w.token, w.build.course, w.files
    build_outputs = w.build_outputs()
    add_inputs = [token, course, f.add, f.folder_pick, lang_state]
    add_outputs = [*build_outputs, f.add, f.clash_box, f.clash_text]
    for event, handler, api in (
        (f.add.upload, tab.add_files, "instructor_add_files"),
        (f.clash_replace.click, tab.add_replacing, "instructor_add_replacing"),
        (f.clash_keep.click, tab.add_keeping, "instructor_add_keeping"),
    ):
        event(
            handler,
            add_inputs,
            add_outputs,
            api_name=api,
            concurrency_limit=1,
            concurrency_id="instructor_add",
            show_progress="hidden",
            **PRIVATE,
        )
    f.clash_no.click(lambda: (None, gr.update(visible=False)), None, [f.add, f.clash_box], queue=False, **PRIVATE)
    f.remove_btn.click(
        tab.ask_remove, [token, course, f.file_pick, lang_state], [f.remove_box, f.remove_text], **PRIVATE
    )
    f.remove_no.click(lambda: gr.update(visible=False), None, f.remove_box, queue=False, **PRIVATE)
    f.remove_yes.click(
        tab.remove_file,
        [token, course, f.file_pick, lang_state],
        build_outputs,
        api_name="instructor_remove_file",
        concurrency_limit=1,
        show_progress="hidden",
        **PRIVATE,
    ).then(lambda: gr.update(visible=False), None, f.remove_box, queue=False, **PRIVATE)

    f.restore_btn.click(
        tab.restore_file,
        [token, course, f.trash_pick, lang_state],
        build_outputs,
        api_name="instructor_restore_file",
        concurrency_limit=1,
        show_progress="hidden",
        **PRIVATE,
    )


def _wire_details_and_stats(tab, w: InstructorWidgets, lang_state) -> None:
    token, course, d, s = w.token, w.build.course, w.details, w.stats
    d.save.click(
        tab.save_details,
        [token, course, d.name, d.description, d.examples, lang_state],
        [w.status, d.details_note, course],
        api_name="instructor_save_details",
        **PRIVATE,
    )
    s.resolve.click(
        tab.resolve_gaps,
        [token, course, s.gap_pick, lang_state],
        [w.status, s.gap_note, s.gaps, s.gap_pick],
        api_name="instructor_resolve",
        **PRIVATE,
    )
    s.batch_btn.click(
        tab.batch,
        [token, course, s.questions, lang_state],
        [w.status, w.panel, s.batch_table],
        api_name="instructor_batch",
        concurrency_limit=1,
        **PRIVATE,
    )
