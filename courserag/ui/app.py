"""`build_demo(engine, settings) -> gr.Blocks`: the page's frame (title, language switch, the
three tabs) over one engine, and the events that span the tabs (load, unload, relabel).

Session identity: each browser tab gets its own random id in a `gr.State` (set on load, or
on first upload for API clients), also kept in the browser's storage so that a reload adopts
it. The id keys the engine's upload pool; it is released when the tab closes (`demo.unload`),
when Gradio drops the state (`delete_callback`), or by the engine's idle sweep.
"""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from courserag.config.settings import Settings
from courserag.i18n.ui_texts import LANG_CHOICES, normalize_lang, t
from courserag.ui.files import routes
from courserag.ui.instructor.tab import InstructorTab
from courserag.ui.rendering.labels import Labels
from courserag.ui.roadmap.tab import build_catalog_tab
from courserag.ui.study.handlers import StudyApp
from courserag.ui.study.layout import build_study_tab

# Reads the browser's language, so the session id, the course card and the labels all come
# back in that language with the one load event (a language kept from before a reload wins).
_BROWSER_LANG_JS = (
    "(stored, sid, course, lang) => [stored, sid, course, "
    "(navigator.language || '').toLowerCase().startsWith('zh') ? 'zh' : 'en']"
)
_SET_LANG_JS = "(lang) => { if (window.crSetLang) window.crSetLang(lang); }"
# Returns every input it is given: what a js step returns replaces the inputs, and one left out
# (the chat's history once was) reaches Python as None, which emptied the chat on a switch.
_RELABEL_JS = "(...inputs) => { if (window.crSetLang) window.crSetLang(inputs[0]); return inputs; }"


def _header(lang: str) -> str:
    return f"# 📚 {t(lang, 'title')}\n{t(lang, 'tagline')}"


def build_demo(engine, settings: Settings) -> gr.Blocks:
    """The whole app over one engine; launch it with `courserag.ui.launch.launch(demo, settings)`."""
    app = StudyApp(engine, settings)
    instructor = InstructorTab(engine, app.feedback, settings, on_built=app.forget_index_status)
    labels = Labels("en")
    ttl = settings.server.upload_tmp_ttl_s  # uploads are deleted once read; this sweeps the rest
    with gr.Blocks(title=t("en", "title"), delete_cache=(max(ttl // 2, 60), ttl)) as demo:
        sid = gr.State(None, delete_callback=app.sessions.release_sid)
        with gr.Row(equal_height=True, elem_id="cr-top"):
            labels.add(gr.Markdown, elem_classes=["cr-header"], min_width=280, text={"value": _header})
            lang = labels.add(  # named in the interface's language (a screen reader said "Radio")
                gr.Radio,
                LANG_CHOICES,
                value="en",
                show_label=False,
                container=False,
                elem_id="cr-lang",
                scale=0,
                min_width=200,
                text={"label": "interface_language"},
            )
        with gr.Tabs():
            study = build_study_tab(app, labels, lang, sid)
            build_catalog_tab(app, labels, lang, sid, study)  # the course catalog's roadmap, when there is a catalog
            instructor.build_tab(labels, app.course_choices(), app.default_course(), settings.instructor_enabled, lang)

        demo.load(
            app.on_load,
            [study.stored, sid, study.course, lang],
            [
                sid,
                lang,
                study.course,
                study.scope,
                study.course_card,
                study.session_note,
                study.notes,
                study.upload_names,
                study.chat,
                study.turns,
                *study.example_buttons,
            ],
            api_visibility="private",
            js=_BROWSER_LANG_JS,
        ).then(None, [lang], None, js=_SET_LANG_JS).then(
            app.course_chip, [study.course, lang], [study.course_chip], api_visibility="private"
        )
        demo.unload(app.on_unload)

        def relabel(lang_value, course_id, sid_value, history, turns, request: gr.Request = None):
            lg = normalize_lang(lang_value)
            sid_ok = app.sessions.sid_for(request, sid_value)
            return (
                *labels.updates(lg),
                app.course_card(course_id, lg),
                "",
                app.notes_html(sid_ok, lg),
                app.remove_choices(sid_ok, lg),
                app.course_chip(course_id, lg),
                app.chat_in(history, turns, lg),
                "",  # the upload log's lines were said in the other language
            )

        lang.change(
            relabel,
            [lang, study.course, sid, study.chat, study.turns],
            [
                *labels.components,
                study.course_card,
                study.course_status,
                study.notes,
                study.remove_names,
                study.course_chip,
                study.chat,
                study.upload_log,
            ],
            api_visibility="private",
            queue=False,
            js=_RELABEL_JS,
        ).then(
            app.save_state,
            [sid, study.course, lang, study.scope, study.turns],
            [study.stored, study.saved],
            api_visibility="private",
        )
    demo.cr_routes = routes(lambda course_id: app.docs_by_course.get(course_id))
    # Course folders are served only by that route (types and hidden files filtered): never
    # by Gradio's /gradio_api/file=, which served .html inline on the app's origin and .env files,
    # and never taken as an API input path (a course's files copied into another course).
    demo.cr_private_paths = [str(Path(d).resolve()) for d in app.docs_by_course.values()]
    return demo
