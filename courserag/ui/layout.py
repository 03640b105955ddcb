"""The Study tab's widgets and their wiring to the handlers of courserag/ui/study.py.

Stable API names for gradio_client: ask, upload, remove_upload, list_uploads, select_course,
clear. Everything else is private.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from courserag.parsers import SUPPORTED_EXTENSIONS
from courserag.ui.labels import Labels
from courserag.ui.study import MAX_EXAMPLES, StudyApp
from courserag.ui.texts import t

UPLOAD_TYPES = sorted(SUPPORTED_EXTENSIONS)


@dataclass
class StudyWidgets:
    """The widgets other parts of the page need (the load event, the language switch)."""

    sid: Any
    course: Any
    course_card: Any
    course_status: Any
    scope: Any
    notes: Any
    remove_names: Any
    example_buttons: list


def scope_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(lang, "scope_both"), "both"), (t(lang, "scope_course"), "course"), (t(lang, "scope_notes"), "notes")]


def build_study_tab(app: StudyApp, labels: Labels, lang_state, sid) -> StudyWidgets:
    """Sidebar (course, scope, notes) beside the chat; returns the widgets shared with the page."""
    lang0 = labels.lang
    first = app.default_course()
    max_mb = f"{app.settings.limits.max_file_mb:g}"
    turns = gr.State([])
    feedback_target = gr.State(None)
    with labels.add(gr.Tab, id="study", elem_id="cr-tab-study", text={"label": "tab_study"}):
        with gr.Row():
            with gr.Column(scale=1, min_width=310, elem_id="cr-sidebar"):
                with gr.Group(elem_id="cr-course-box"):
                    course = labels.add(gr.Dropdown, app.course_choices(), value=first, interactive=True, elem_id="cr-course",
                                        text={"label": "course"})
                    course_card = gr.HTML(app.course_card(first, lang0) if first else "", elem_id="cr-course-card", padding=True)
                course_status = gr.Markdown("", elem_id="cr-course-status")
                scope = labels.add(gr.Radio, value="both", elem_id="cr-scope", text={"choices": scope_choices, "label": "scope"})
                with gr.Group(elem_id="cr-notes-box"):
                    labels.add(gr.Markdown, padding=True, text={"value": lambda lg: f"#### 📝 {t(lg, 'notes_heading')}"})
                    files = labels.add(gr.File, file_count="multiple", file_types=UPLOAD_TYPES, elem_id="cr-upload", height=150,
                                       text={"label": "upload_label"})
                    upload_log = gr.HTML("", elem_id="cr-upload-log", padding=True)
                    notes = gr.HTML(app.notes_html(None, lang0), elem_id="cr-notes", padding=True)
                    # Relabelled with its choices by app.remove_choices, not by the labels table.
                    remove_names = gr.Dropdown([], value=[], multiselect=True, interactive=False,
                                               elem_id="cr-remove-names", label=t(lang0, "remove_label"))
                    remove_btn = labels.add(gr.Button, size="sm", elem_id="cr-remove", text={"value": "remove_button"})
                    labels.add(gr.Markdown, elem_classes=["cr-privacy"], padding=True,
                               text={"value": lambda lg: t(lg, "privacy", max_mb=max_mb)})
            with gr.Column(scale=3):
                chat = labels.add(gr.Chatbot, show_label=False, height=580, elem_id="cr-chat", buttons=["copy"],
                                  feedback_options=("Like", "Dislike"), text={"label": "chat_label", "placeholder": "chat_placeholder"})
                with gr.Row(equal_height=True):
                    question = labels.add(gr.Textbox, show_label=False, lines=1, max_lines=6, scale=6, elem_id="cr-question",
                                          autofocus=True, text={"label": "question_label", "placeholder": "question_placeholder"})
                    send = labels.add(gr.Button, variant="primary", scale=1, min_width=90, elem_id="cr-send", text={"value": "send"})
                with gr.Row(equal_height=True, elem_id="cr-examples"):
                    labels.add(gr.Markdown, elem_id="cr-examples-label", text={"value": lambda lg: f"**{t(lg, 'examples')}:**"})
                    example_buttons = [
                        gr.Button("", size="sm", visible=False, elem_classes=["cr-example"]) for _ in range(MAX_EXAMPLES)
                    ]
                with gr.Group(visible=False, elem_id="cr-feedback") as feedback_box:
                    feedback_note = gr.Markdown("", elem_id="cr-feedback-note", padding=True)
                    with gr.Row(equal_height=True):
                        comment = labels.add(gr.Textbox, show_label=False, scale=5, elem_id="cr-comment",
                                             text={"label": "feedback_comment", "placeholder": "feedback_comment"})
                        comment_btn = labels.add(gr.Button, scale=1, min_width=90, elem_id="cr-comment-send",
                                                 text={"value": "feedback_send"})
                with gr.Row(elem_id="cr-clear-row"):
                    clear = labels.add(gr.Button, variant="secondary", size="sm", elem_id="cr-clear", scale=0, text={"value": "clear"})
                last_answer = gr.JSON(visible=False, label="last answer")
                list_json = gr.JSON(visible=False)
                list_button = gr.Button(visible=False)  # an API-only endpoint: /list_uploads

    # -- course and examples ------------------------------------------------------------
    course.input(app.select_course, [course, sid, lang_state], [course_card, course_status, *example_buttons],
                 api_name="select_course")
    for button in example_buttons:
        button.click(None, button, question, js="(x) => x", api_visibility="private", queue=False)

    # -- uploads --------------------------------------------------------------------------
    files.upload(app.upload, [files, sid, lang_state], [upload_log, notes, remove_names, files, sid],
                 api_name="upload", concurrency_limit=8, show_progress="full")  # the engine's UploadGate decides turns
    remove_btn.click(app.remove_upload, [remove_names, sid, lang_state], [upload_log, notes, remove_names], api_name="remove_upload")
    list_button.click(app.list_uploads, [sid], [list_json], api_name="list_uploads")

    # -- chat -----------------------------------------------------------------------------
    ask_inputs = [question, chat, course, scope, sid, lang_state, turns]
    ask_outputs = [chat, question, turns, last_answer]
    question.submit(app.ask, ask_inputs, ask_outputs, api_name="ask", concurrency_limit=4)
    send.click(app.ask, ask_inputs, ask_outputs, api_visibility="private", concurrency_limit=4)
    clear.click(app.clear, None, [chat, turns, last_answer, feedback_box, feedback_target], api_name="clear", queue=False)
    chat.clear(lambda: ([], None, gr.update(visible=False), None), None,
               [turns, last_answer, feedback_box, feedback_target], api_visibility="private", queue=False)

    # -- feedback -------------------------------------------------------------------------
    chat.like(app.on_like, [turns, lang_state], [turns, feedback_box, feedback_target, feedback_note, comment],
              api_visibility="private")
    comment_inputs = [comment, feedback_target, turns, lang_state]
    comment_outputs = [turns, feedback_box, feedback_target, feedback_note, comment]
    comment_btn.click(app.send_comment, comment_inputs, comment_outputs, api_visibility="private")
    comment.submit(app.send_comment, comment_inputs, comment_outputs, api_visibility="private")
    return StudyWidgets(sid, course, course_card, course_status, scope, notes, remove_names, example_buttons)
