"""The Study tab's widgets and their wiring to the handlers of courserag/ui/study/handlers.py.

Stable API names for gradio_client: ask, upload, remove_upload, list_uploads, select_course,
clear. Everything else is private. On narrow screens the chat column comes first and the
sidebar folds behind a toggle (theme.py, client.js); the feedback box sits right under the
chat, beside the answer it rates. Groups carry classes, not ids (Gradio repeats a group's
id on two elements).

One small builder per part of the tab, in the order the page shows them, each returning the
widgets the wiring needs; the wiring follows, one function per group of events (as
courserag/ui/instructor/layout.py does).
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
PRIVATE = {"api_visibility": "private"}


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


@dataclass
class StudyStates:
    """What the tab keeps per browser tab: the saved state, the turns, the notes' names, the rated answer."""

    stored: Any
    turns: Any
    upload_names: Any
    feedback_target: Any


@dataclass
class NotesPanel:
    """The learner's notes: the upload box, its log, the table (and the API's remove by names)."""

    files: Any
    upload_log: Any
    notes: Any
    remove_names: Any
    remove_btn: Any


@dataclass
class Sidebar:
    """The course picker and its card, the scope, the notes."""

    course: Any
    course_card: Any
    course_status: Any
    scope: Any
    notes: NotesPanel


@dataclass
class FeedbackBox:
    """Under the chat, for the answer just rated: a comment, or "this is wrong"."""

    box: Any
    note: Any
    comment: Any
    comment_btn: Any
    wrong_btn: Any


@dataclass
class ChatColumn:
    """The course line and toggle (narrow screens), the chat, feedback, question, examples,
    and the hidden widgets behind API-only endpoints."""

    course_chip: Any
    session_note: Any
    chat: Any
    feedback: FeedbackBox
    question: Any
    send: Any
    example_buttons: list
    clear: Any
    last_answer: Any
    list_json: Any
    list_button: Any
    upload_button: Any
    saved: Any


def scope_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(lang, "scope_both"), "both"), (t(lang, "scope_course"), "course"), (t(lang, "scope_notes"), "notes")]


def build_study_tab(app: StudyApp, labels: Labels, lang_state, sid) -> StudyWidgets:
    """Sidebar (course, scope, notes) beside the chat; returns the widgets shared with the page."""
    first = app.default_course()
    with labels.add(gr.Tab, id="study", elem_id="cr-tab-study", text={"label": "tab_study"}):
        # States live inside the tab: a non-tab child of gr.Tabs is drawn as a second tab button.
        states = StudyStates(
            gr.BrowserState(None, storage_key=STORAGE_KEY, secret=STORAGE_KEY),
            gr.State([]),
            gr.State([]),
            gr.State(None),
        )
        with gr.Row(elem_id="cr-main"):
            side = _sidebar(app, labels, first)
            col = _chat_column(app, labels, first)
    save = (app.save_state, [sid, side.course, lang_state, side.scope, states.turns], [states.stored, col.saved])
    _wire_course(app, side, col, lang_state, sid, save)
    _wire_uploads(app, side.notes, col, states, lang_state, sid, save)
    _wire_chat(app, side, col, states, lang_state, sid, save)
    _wire_feedback(app, col, states, lang_state, save)
    n = side.notes
    return StudyWidgets(
        sid, states.stored, side.course, side.course_card, side.course_status, side.scope, n.notes, n.remove_names,
        states.upload_names, col.session_note, col.chat, states.turns, col.example_buttons, col.saved,
        col.course_chip, n.upload_log,
    )  # fmt: skip


# -- the sidebar ------------------------------------------------------------------------------


def _sidebar(app: StudyApp, labels: Labels, first: str | None) -> Sidebar:
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
                app.course_card(first, labels.lang) if first else "", elem_id="cr-course-card", padding=True
            )
        course_status = gr.Markdown("", elem_id="cr-course-status")
        scope = labels.add(
            gr.Radio, value="both", elem_id="cr-scope", text={"choices": scope_choices, "label": "scope"}
        )
        notes = _notes_panel(app, labels)
    return Sidebar(course, course_card, course_status, scope, notes)


def _notes_panel(app: StudyApp, labels: Labels) -> NotesPanel:
    max_mb = f"{app.settings.limits.max_file_mb:g}"
    minutes = f"{app.settings.session_idle_minutes:g}"
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
        notes = gr.HTML(app.notes_html(None, labels.lang), elem_id="cr-notes", padding=True, js_on_load=REMOVE_JS)
        # The API's /remove_upload takes names; the page removes with the buttons above.
        remove_names = gr.Dropdown(
            [],
            value=[],
            multiselect=True,
            interactive=False,
            visible=False,
            elem_id="cr-remove-names",
            label=t(labels.lang, "remove_label"),
        )
        remove_btn = gr.Button(visible=False, elem_id="cr-remove")
        labels.add(
            gr.Markdown,
            elem_classes=["cr-privacy"],
            padding=True,
            text={"value": lambda lg: t(lg, "privacy", max_mb=max_mb, minutes=minutes)},
        )
    return NotesPanel(files, upload_log, notes, remove_names, remove_btn)


# -- the chat column --------------------------------------------------------------------------


def _chat_column(app: StudyApp, labels: Labels, first: str | None) -> ChatColumn:
    with gr.Column(scale=3, elem_id="cr-chat-col"):
        # Narrow screens only (theme.py): the course in use, while the sidebar is folded.
        course_chip = gr.HTML(app.course_chip(first, labels.lang), elem_id="cr-course-chip")
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
        feedback = _feedback_box(labels)
        question, send = _question_row(labels)
        example_buttons = _examples_row(labels)
        with gr.Row(elem_id="cr-clear-row"):
            clear = labels.add(
                gr.Button, variant="secondary", size="sm", elem_id="cr-clear", scale=0, text={"value": "clear"}
            )
        last_answer = gr.JSON(visible=False, label="last answer")
        list_json = gr.JSON(visible=False)
        list_button = gr.Button(visible=False)  # an API-only endpoint: /list_uploads
        upload_button = gr.Button(visible=False)  # an API-only endpoint: /upload
        saved = gr.Textbox(visible="hidden", elem_id="cr-saved", label="saved")
    return ChatColumn(
        course_chip, session_note, chat, feedback, question, send, example_buttons, clear, last_answer, list_json,
        list_button, upload_button, saved,
    )  # fmt: skip


def _feedback_box(labels: Labels) -> FeedbackBox:
    with gr.Group(visible=False, elem_classes=["cr-feedback"]) as box:
        note = gr.Markdown("", elem_id="cr-feedback-note", padding=True)
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
    return FeedbackBox(box, note, comment, comment_btn, wrong_btn)


def _question_row(labels: Labels):
    with gr.Row(equal_height=True, elem_id="cr-ask-row"):
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
    return question, send


def _examples_row(labels: Labels) -> list:
    with gr.Row(equal_height=True, elem_id="cr-examples"):
        labels.add(gr.Markdown, elem_id="cr-examples-label", text={"value": lambda lg: f"**{t(lg, 'examples')}:**"})
        return [gr.Button("", size="sm", visible=False, elem_classes=["cr-example"]) for _ in range(MAX_EXAMPLES)]


# -- the wiring -------------------------------------------------------------------------------


def _wire_course(app: StudyApp, side: Sidebar, col: ChatColumn, lang_state, sid, save: tuple) -> None:
    side.course.input(
        app.select_course,
        [side.course, sid, lang_state],
        [side.course_card, side.course_status, *col.example_buttons],
        api_name="select_course",
    ).then(app.course_chip, [side.course, lang_state], [col.course_chip], **PRIVATE).then(*save, **PRIVATE)
    side.scope.input(*save, **PRIVATE)


def _wire_uploads(
    app: StudyApp, n: NotesPanel, col: ChatColumn, states: StudyStates, lang_state, sid, save: tuple
) -> None:
    # The engine's UploadGate decides whose upload is read when; the limit here only bounds threads.
    n.files.upload(
        app.upload_live,
        [n.files, sid, lang_state],
        [n.upload_log, n.notes, states.upload_names, n.files, sid],
        concurrency_limit=8,
        show_progress="hidden",
        **PRIVATE,
    ).then(*save, **PRIVATE)
    col.upload_button.click(
        app.upload,
        [n.files, sid, lang_state],
        [n.upload_log, n.notes, n.remove_names, n.files, sid],
        api_name="upload",
        concurrency_limit=8,
    )
    n.remove_btn.click(
        app.remove_upload,
        [n.remove_names, sid, lang_state],
        [n.upload_log, n.notes, n.remove_names],
        api_name="remove_upload",
    )
    n.notes.click(app.remove_clicked, [sid, lang_state], [n.upload_log, n.notes, states.upload_names], **PRIVATE).then(
        *save, **PRIVATE
    )
    col.list_button.click(app.list_uploads, [sid], [col.list_json], api_name="list_uploads")


def _wire_chat(app: StudyApp, side: Sidebar, col: ChatColumn, states: StudyStates, lang_state, sid, save) -> None:
    chat, turns, fb = col.chat, states.turns, col.feedback
    ask_inputs = [col.question, chat, side.course, side.scope, sid, lang_state, turns]
    ask_outputs = [chat, col.question, turns, col.last_answer]
    col.question.submit(app.ask, ask_inputs, ask_outputs, api_name="ask", concurrency_limit=4).then(*save, **PRIVATE)
    col.send.click(app.ask, ask_inputs, ask_outputs, concurrency_limit=4, **PRIVATE).then(*save, **PRIVATE)
    for button in col.example_buttons:  # a chip asks its question at once
        button.click(app.ask, [button, *ask_inputs[1:]], ask_outputs, concurrency_limit=4, **PRIVATE).then(
            *save, **PRIVATE
        )
    cleared = [turns, col.last_answer, fb.box, states.feedback_target]
    col.clear.click(app.clear, None, [chat, *cleared], api_name="clear", queue=False).then(*save, **PRIVATE)
    chat.clear(  # the 👍/👎 a reload restored go with the messages
        lambda: (gr.update(feedback_value=None), [], None, gr.update(visible=False), None),
        None,
        [chat, *cleared],
        queue=False,
        **PRIVATE,
    ).then(*save, **PRIVATE)


def _wire_feedback(app: StudyApp, col: ChatColumn, states: StudyStates, lang_state, save: tuple) -> None:
    fb, turns, target = col.feedback, states.turns, states.feedback_target
    comment_outputs = [turns, fb.box, target, fb.note, fb.comment]
    col.chat.like(app.on_like, [turns, lang_state], comment_outputs, **PRIVATE).then(  # kept for a reload (F5)
        *save, **PRIVATE
    )
    comment_inputs = [fb.comment, target, turns, lang_state]
    fb.comment_btn.click(app.send_comment, comment_inputs, comment_outputs, **PRIVATE)
    fb.comment.submit(app.send_comment, comment_inputs, comment_outputs, **PRIVATE)
    fb.wrong_btn.click(app.mark_wrong, [target, turns, lang_state], comment_outputs, **PRIVATE).then(*save, **PRIVATE)
