"""The Study tab's widgets and their wiring to the handlers of courserag/ui/study/handlers.py.

Stable API names for gradio_client: ask, upload, remove_upload, list_uploads, select_course,
clear. Everything else is private. On narrow screens the chat column comes first and the
sidebar folds behind a toggle (theme.py, client.js); the feedback box sits right under the
chat, beside the answer it rates. Groups carry classes, not ids (Gradio repeats a group's
id on two elements).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from courserag.i18n.ui_texts import t
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS
from courserag.ui.rendering.labels import Labels
from courserag.ui.rendering.mathtext import DELIMITERS as MATH_DELIMITERS
from courserag.ui.study.handlers import MAX_EXAMPLES, StudyApp

UPLOAD_TYPES = sorted(SUPPORTED_EXTENSIONS)
STORAGE_KEY = "courserag-tab"
REMOVE_JS = (
    "element.addEventListener('click', (e) => { const b = e.target.closest('.cr-remove-file');"
    " if (b) trigger('click', {name: b.dataset.name}); });"
)


@dataclass
class StudyWidgets:
    """The widgets other parts of the page need (the load event, the language switch)."""

    sid: Any
    stored: Any
    course: Any
    course_card: Any
    course_status: Any
    scope: Any
    notes: Any
    remove_names: Any
    upload_names: Any
    session_note: Any
    chat: Any
    turns: Any
    example_buttons: list
    saved: Any
    course_chip: Any
    upload_log: Any  # said in one language: a language switch clears it (the notes table stays)


def scope_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(lang, "scope_both"), "both"), (t(lang, "scope_course"), "course"), (t(lang, "scope_notes"), "notes")]


def build_study_tab(app: StudyApp, labels: Labels, lang_state, sid) -> StudyWidgets:
    """Sidebar (course, scope, notes) beside the chat; returns the widgets shared with the page.

    Longer than our other functions on purpose: a Gradio layout is declared inside nested
    `with` blocks, and its event wiring needs the widgets it declares; read top to bottom it
    is the page as a learner sees it, and split in pieces it would pass two dozen widgets
    around."""
    lang0 = labels.lang
    first = app.default_course()
    max_mb = f"{app.settings.limits.max_file_mb:g}"
    minutes = f"{app.settings.session_idle_minutes:g}"
    with labels.add(gr.Tab, id="study", elem_id="cr-tab-study", text={"label": "tab_study"}):
        # States live inside the tab: a non-tab child of gr.Tabs is drawn as a second tab button.
        stored = gr.BrowserState(None, storage_key=STORAGE_KEY, secret=STORAGE_KEY)
        turns = gr.State([])
        upload_names = gr.State([])
        feedback_target = gr.State(None)
        with gr.Row(elem_id="cr-main"):
            with gr.Column(scale=1, min_width=310, elem_id="cr-sidebar"):
                with gr.Group(elem_classes=["cr-course-box"]):
                    course = labels.add(
                        gr.Dropdown,
                        app.course_choices(),
                        value=first,
                        interactive=True,
                        elem_id="cr-course",
                        text={"label": "course"},
                    )
                    course_card = gr.HTML(
                        app.course_card(first, lang0) if first else "", elem_id="cr-course-card", padding=True
                    )
                course_status = gr.Markdown("", elem_id="cr-course-status")
                scope = labels.add(
                    gr.Radio, value="both", elem_id="cr-scope", text={"choices": scope_choices, "label": "scope"}
                )
                with gr.Group(elem_classes=["cr-notes-box"]):
                    labels.add(
                        gr.Markdown,
                        padding=True,
                        elem_classes=["cr-notes-heading"],
                        text={"value": lambda lg: f"## 📝 {t(lg, 'notes_heading')}"},
                    )
                    files = labels.add(
                        gr.File,
                        file_count="multiple",
                        file_types=UPLOAD_TYPES,
                        elem_id="cr-upload",
                        height=150,
                        text={"label": "upload_label"},
                    )
                    upload_log = gr.HTML("", elem_id="cr-upload-log", padding=True)
                    # Each file's ✕ button triggers the notes block's click with the file's name.
                    notes = gr.HTML(app.notes_html(None, lang0), elem_id="cr-notes", padding=True, js_on_load=REMOVE_JS)

                    # The API's /remove_upload takes names; the page removes with the buttons above.
                    remove_names = gr.Dropdown(
                        [],
                        value=[],
                        multiselect=True,
                        interactive=False,
                        visible=False,
                        elem_id="cr-remove-names",
                        label=t(lang0, "remove_label"),
                    )
                    remove_btn = gr.Button(visible=False, elem_id="cr-remove")
                    labels.add(
                        gr.Markdown,
                        elem_classes=["cr-privacy"],
                        padding=True,
                        text={"value": lambda lg: t(lg, "privacy", max_mb=max_mb, minutes=minutes)},
                    )
            with gr.Column(scale=3, elem_id="cr-chat-col"):
                # Narrow screens only (theme.py): the course in use, while the sidebar is folded.
                course_chip = gr.HTML(app.course_chip(first, lang0), elem_id="cr-course-chip")
                labels.add(
                    gr.Button,
                    size="sm",
                    variant="secondary",
                    elem_id="cr-sidebar-toggle",
                    text={"value": lambda lg: f"☰ {t(lg, 'sidebar_toggle')}"},
                )
                session_note = gr.Markdown("", elem_id="cr-session-note")
                chat = labels.add(
                    gr.Chatbot,
                    show_label=False,
                    height=560,
                    elem_id="cr-chat",
                    buttons=["copy"],
                    feedback_options=("Like", "Dislike"),
                    latex_delimiters=MATH_DELIMITERS,  # the server delimits all math so (ui/rendering/mathtext.py)
                    text={"label": "chat_label", "placeholder": "chat_placeholder"},
                )
                with gr.Group(visible=False, elem_classes=["cr-feedback"]) as feedback_box:
                    feedback_note = gr.Markdown("", elem_id="cr-feedback-note", padding=True)
                    with gr.Row(equal_height=True):
                        comment = labels.add(
                            gr.Textbox,
                            show_label=False,
                            scale=5,
                            elem_id="cr-comment",
                            text={"label": "feedback_comment", "placeholder": "feedback_comment"},
                        )
                        comment_btn = labels.add(
                            gr.Button, scale=1, min_width=90, elem_id="cr-comment-send", text={"value": "feedback_send"}
                        )
                    # "Wrong", not only unhelpful: the question joins the instructor's content gaps.
                    wrong_btn = labels.add(
                        gr.Button,
                        size="sm",
                        variant="secondary",
                        elem_id="cr-mark-wrong",
                        text={"value": lambda lg: f"✗ {t(lg, 'feedback_wrong')}"},
                    )
                with gr.Row(equal_height=True):
                    question = labels.add(
                        gr.Textbox,
                        show_label=False,
                        lines=1,
                        max_lines=6,
                        scale=6,
                        elem_id="cr-question",  # focused on load by client.js, without scrolling
                        text={"label": "question_label", "placeholder": "question_placeholder"},
                    )
                    send = labels.add(
                        gr.Button, variant="primary", scale=1, min_width=90, elem_id="cr-send", text={"value": "send"}
                    )
                with gr.Row(equal_height=True, elem_id="cr-examples"):
                    labels.add(
                        gr.Markdown, elem_id="cr-examples-label", text={"value": lambda lg: f"**{t(lg, 'examples')}:**"}
                    )
                    example_buttons = [
                        gr.Button("", size="sm", visible=False, elem_classes=["cr-example"])
                        for _ in range(MAX_EXAMPLES)
                    ]
                with gr.Row(elem_id="cr-clear-row"):
                    clear = labels.add(
                        gr.Button, variant="secondary", size="sm", elem_id="cr-clear", scale=0, text={"value": "clear"}
                    )
                last_answer = gr.JSON(visible=False, label="last answer")
                list_json = gr.JSON(visible=False)
                list_button = gr.Button(visible=False)  # an API-only endpoint: /list_uploads
                upload_button = gr.Button(visible=False)  # an API-only endpoint: /upload
                saved = gr.Textbox(visible="hidden", elem_id="cr-saved", label="saved")

    private = {"api_visibility": "private"}
    save = (app.save_state, [sid, course, lang_state, scope, turns], [stored, saved])

    # -- course and examples ------------------------------------------------------------
    course.input(
        app.select_course,
        [course, sid, lang_state],
        [course_card, course_status, *example_buttons],
        api_name="select_course",
    ).then(app.course_chip, [course, lang_state], [course_chip], **private).then(*save, **private)
    scope.input(*save, **private)

    # -- uploads --------------------------------------------------------------------------
    # The engine's UploadGate decides whose upload is read when; the limit here only bounds threads.
    files.upload(
        app.upload_live,
        [files, sid, lang_state],
        [upload_log, notes, upload_names, files, sid],
        concurrency_limit=8,
        show_progress="hidden",
        **private,
    ).then(*save, **private)
    upload_button.click(
        app.upload,
        [files, sid, lang_state],
        [upload_log, notes, remove_names, files, sid],
        api_name="upload",
        concurrency_limit=8,
    )
    remove_btn.click(
        app.remove_upload, [remove_names, sid, lang_state], [upload_log, notes, remove_names], api_name="remove_upload"
    )
    notes.click(app.remove_clicked, [sid, lang_state], [upload_log, notes, upload_names], **private).then(
        *save, **private
    )
    list_button.click(app.list_uploads, [sid], [list_json], api_name="list_uploads")

    # -- chat -----------------------------------------------------------------------------
    ask_inputs = [question, chat, course, scope, sid, lang_state, turns]
    ask_outputs = [chat, question, turns, last_answer]
    question.submit(app.ask, ask_inputs, ask_outputs, api_name="ask", concurrency_limit=4).then(*save, **private)
    send.click(app.ask, ask_inputs, ask_outputs, concurrency_limit=4, **private).then(*save, **private)
    for button in example_buttons:  # a chip asks its question at once
        button.click(app.ask, [button, *ask_inputs[1:]], ask_outputs, concurrency_limit=4, **private).then(
            *save, **private
        )
    clear.click(
        app.clear, None, [chat, turns, last_answer, feedback_box, feedback_target], api_name="clear", queue=False
    ).then(*save, **private)
    chat.clear(
        lambda: ([], None, gr.update(visible=False), None),
        None,
        [turns, last_answer, feedback_box, feedback_target],
        queue=False,
        **private,
    ).then(*save, **private)

    # -- feedback -------------------------------------------------------------------------
    chat.like(
        app.on_like, [turns, lang_state], [turns, feedback_box, feedback_target, feedback_note, comment], **private
    )
    comment_inputs = [comment, feedback_target, turns, lang_state]
    comment_outputs = [turns, feedback_box, feedback_target, feedback_note, comment]
    comment_btn.click(app.send_comment, comment_inputs, comment_outputs, **private)
    comment.submit(app.send_comment, comment_inputs, comment_outputs, **private)
    wrong_btn.click(app.mark_wrong, [feedback_target, turns, lang_state], comment_outputs, **private)
    return StudyWidgets(
        sid,
        stored,
        course,
        course_card,
        course_status,
        scope,
        notes,
        remove_names,
        upload_names,
        session_note,
        chat,
        turns,
        example_buttons,
        saved,
        course_chip,
        upload_log,
    )
