"""The Instructor tab's widgets and their wiring to the handlers of tab.py.

Every event is private (no client-library endpoint); the token and the course travel with
each call and are checked by the handler.
"""

from __future__ import annotations

import gradio as gr

from courserag.i18n.ui_texts import t
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS
from courserag.instructor.placement import ROOT
from courserag.ui.instructor import views
from courserag.ui.rendering.labels import Labels


def build_instructor_tab(
    tab, labels: Labels, course_choices: list, first_course: str | None, visible: bool, lang_state
):
    """Widgets inside an open gr.Blocks; `tab` is the InstructorTab with the handlers.

    Long on purpose, like layout.build_study_tab: the tab's widgets are declared inside
    nested `with` blocks and wired to their handlers right below, in the order the page shows
    them."""
    heading = lambda key: {"value": lambda lg: f"## {t(lg, key)}"}  # noqa: E731
    with labels.add(
        gr.Tab, id="instructor", elem_id="cr-tab-instructor", visible=visible, text={"label": "tab_instructor"}
    ):
        labels.add(gr.Markdown, text={"value": "instr_intro"})
        with gr.Row(elem_id="cr-token-row"):
            token = labels.add(gr.Textbox, type="password", scale=4, elem_id="cr-token", text={"label": "instr_token"})
            unlock = labels.add(
                gr.Button, variant="primary", scale=1, elem_id="cr-unlock", text={"value": "instr_unlock"}
            )
        # Not relabelled with the others: its words depend on the lock (InstructorTab.relabel).
        status = gr.Markdown(t(labels.lang, "instr_locked"), elem_id="cr-instr-status")
        with gr.Column(visible=False, elem_id="cr-instr-panel") as panel:
            with gr.Row(elem_id="cr-instr-actions"):
                course = labels.add(
                    gr.Dropdown,
                    course_choices,
                    value=first_course,
                    elem_id="cr-instr-course",
                    scale=2,
                    text={"label": "instr_course"},
                )
                build_btn = labels.add(
                    gr.Button, variant="primary", scale=1, elem_id="cr-build", text={"value": "instr_build"}
                )
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

            labels.add(gr.Markdown, elem_classes=["cr-section"], text=heading("instr_files_heading"))
            files = labels.add(
                gr.Dataframe,
                headers=views.files_table([], labels.lang)["headers"],
                interactive=False,
                elem_id="cr-files-table",
                wrap=True,
                text={"label": "instr_files"},
            )
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

            days = f"{tab.tools.settings.trash_days:g}"
            with gr.Row(equal_height=True):
                trash_pick = labels.add(
                    gr.Dropdown,
                    [],
                    value=None,
                    scale=3,
                    elem_id="cr-trash-pick",
                    text={"label": lambda lg: t(lg, "instr_trash_pick", days=days)},
                )
                restore_btn = labels.add(
                    gr.Button, scale=1, elem_id="cr-trash-restore", text={"value": "instr_trash_restore"}
                )

            labels.add(gr.Markdown, elem_classes=["cr-section"], text=heading("instr_details"))
            name = labels.add(gr.Textbox, elem_id="cr-course-name", max_lines=1, text={"label": "instr_name"})
            description = labels.add(
                gr.Textbox, elem_id="cr-course-description", lines=2, text={"label": "instr_description"}
            )
            examples = labels.add(gr.Textbox, elem_id="cr-course-examples", lines=4, text={"label": "instr_examples"})
            save = labels.add(gr.Button, elem_id="cr-course-save", text={"value": "instr_save"})
            details_note = gr.Markdown("", elem_id="cr-details-note")

            labels.add(gr.Markdown, elem_classes=["cr-section"], text=heading("instr_stats"))
            stats = gr.Markdown("", elem_id="cr-stats")
            cited = labels.add(
                gr.Dataframe,
                headers=views.cited_table([], labels.lang)["headers"],
                interactive=False,
                elem_id="cr-cited-table",
                wrap=True,
                text={"label": "instr_cited"},
            )
            gaps = labels.add(
                gr.Dataframe,
                headers=views.gaps_table([], labels.lang)["headers"],
                datatype=views.GAP_DATATYPES,
                interactive=False,
                elem_id="cr-gaps-table",
                wrap=True,
                text={"label": "instr_gaps"},
            )
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

    private = {"api_visibility": "private"}
    unlock_inputs = [token, course, lang_state]
    unlock_outputs = [
        status,
        panel,
        stats,
        files,
        cited,
        gaps,
        course,
        name,
        description,
        examples,
        gap_pick,
        file_pick,
        folder_pick,
        trash_pick,
    ]
    unlock.click(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock", **private)
    token.submit(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_unlock_submit", **private)
    refresh.click(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_refresh", **private)
    course.input(tab.unlock, unlock_inputs, unlock_outputs, api_name="instructor_course", **private)
    lang_state.change(
        tab.relabel,
        [*unlock_inputs, add, folder_pick, file_pick],
        [*unlock_outputs, batch_table, clash_text, remove_text, confirm_text],
        queue=False,
        **private,
    )

    build_outputs = [status, panel, summary, stats, files, cited, gaps, progress, confirm_box]
    build_outputs += [gap_pick, file_pick, folder_pick, trash_pick]
    build_btn.click(
        tab.build,
        [token, course, no_rebuild, lang_state],
        build_outputs,
        api_name="instructor_build",
        concurrency_limit=1,
        show_progress="hidden",
        **private,
    )
    rebuild_btn.click(tab.ask_rebuild, [token, course, lang_state], [confirm_box, confirm_text], **private)
    confirm_no.click(lambda: gr.update(visible=False), None, confirm_box, queue=False, **private)
    confirm_yes.click(
        tab.rebuild,
        [token, course, lang_state],
        build_outputs,
        api_name="instructor_rebuild",
        concurrency_limit=1,
        show_progress="hidden",
        **private,
    )

    add_inputs = [token, course, add, folder_pick, lang_state]
    add_outputs = [*build_outputs, add, clash_box, clash_text]
    for event, handler, api in (
        (add.upload, tab.add_files, "instructor_add_files"),
        (clash_replace.click, tab.add_replacing, "instructor_add_replacing"),
        (clash_keep.click, tab.add_keeping, "instructor_add_keeping"),
    ):
        event(
            handler,
            add_inputs,
            add_outputs,
            api_name=api,
            concurrency_limit=1,
            concurrency_id="instructor_add",
            show_progress="hidden",
            **private,
        )
    clash_no.click(lambda: (None, gr.update(visible=False)), None, [add, clash_box], queue=False, **private)
    remove_btn.click(tab.ask_remove, [token, course, file_pick, lang_state], [remove_box, remove_text], **private)
    remove_no.click(lambda: gr.update(visible=False), None, remove_box, queue=False, **private)
    remove_yes.click(
        tab.remove_file,
        [token, course, file_pick, lang_state],
        build_outputs,
        api_name="instructor_remove_file",
        concurrency_limit=1,
        show_progress="hidden",
        **private,
    ).then(lambda: gr.update(visible=False), None, remove_box, queue=False, **private)

    restore_btn.click(
        tab.restore_file,
        [token, course, trash_pick, lang_state],
        build_outputs,
        api_name="instructor_restore_file",
        concurrency_limit=1,
        show_progress="hidden",
        **private,
    )

    save.click(
        tab.save_details,
        [token, course, name, description, examples, lang_state],
        [status, details_note, course],
        api_name="instructor_save_details",
        **private,
    )
    resolve.click(
        tab.resolve_gaps,
        [token, course, gap_pick, lang_state],
        [status, gap_note, gaps, gap_pick],
        api_name="instructor_resolve",
        **private,
    )
    batch_btn.click(
        tab.batch,
        [token, course, questions, lang_state],
        [status, panel, batch_table],
        api_name="instructor_batch",
        concurrency_limit=1,
        **private,
    )
