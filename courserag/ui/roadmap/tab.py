"""The Catalog tab: a program's roadmap (courses by year and module) and a course's card.

Clicking a course of the roadmap opens its card; when the course has a workspace in the
course directory, it is also selected for the chat (the Study tab's course picker, card and
example questions follow, as if the learner had picked it there). Built only when a
catalog is loaded; its words follow the language switch like the rest of the page.
"""

from __future__ import annotations

import gradio as gr

from courserag.i18n.ui_texts import normalize_lang
from courserag.ui.rendering.labels import Labels
from courserag.ui.roadmap.views import card_html, program_choices, roadmap_html

# Each course button sends its code with the roadmap block's click (as the notes' ✕ buttons do);
# the card then shows it where the learner is looking (CARD_JS).
CLICK_JS = (
    "if (!element.dataset.crRoad) { element.dataset.crRoad = '1';"
    " element.addEventListener('click', (e) => { const b = e.target.closest('.cr-road-course');"
    " if (b) { element.querySelectorAll('.cr-road-course[aria-pressed=\"true\"]').forEach((x) => x.setAttribute('aria-pressed', 'false'));"
    " b.setAttribute('aria-pressed', 'true'); window.crCardAsked = b.dataset.code; trigger('click', {code: b.dataset.code});"
    " if (window.crShowCard) window.crShowCard(); } }); }"
)
# The card, once it holds the course asked for: scrolled into view when it is not (below the
# roadmap on a narrow screen; beside it, a sticky column, on a wide one: theme.py) and focused.
# Its close button hides it and hands the focus back to the course; the same course clicked
# again shows it again (its value unchanged, the server redraws nothing).
CARD_JS = """
const show = () => {
  const card = element.querySelector('.cr-catalog-card');
  if (!card || !window.crCardAsked || card.dataset.code !== window.crCardAsked) return;
  window.crCardAsked = null;
  card.hidden = false;
  const head = card.querySelector('h3') || card;
  const r = head.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) card.scrollIntoView({block: 'start'});
  head.focus({preventScroll: true});
};
window.crShowCard = show;
if (!element.dataset.crCard) {  // once, though Gradio may run this again when the card is redrawn
  element.dataset.crCard = '1';
  new MutationObserver(show).observe(element, {childList: true, subtree: true});
  element.addEventListener('click', (e) => {
    const card = e.target.closest('.cr-catalog-close') && element.querySelector('.cr-catalog-card');
    if (!card) return;
    card.hidden = true;
    document.querySelector(`#cr-roadmap .cr-road-course[data-code="${CSS.escape(card.dataset.code)}"]`)?.focus();
  });
}
"""


class CatalogTab:
    """Handlers of the Catalog tab over the engine's catalog and the Study tab's app."""

    def __init__(self, app):
        self.app = app
        self.engine = app.engine

    @property
    def catalog(self):
        return self.engine.catalog.catalog

    def today(self):
        return self.app.settings.catalog_date()

    def roadmap(self, program_id, lang, selected=""):
        return roadmap_html(self.catalog, program_id, normalize_lang(lang), self.today(), selected or "")

    def workspace_of(self, code: str) -> str | None:
        course = self.catalog.course(code or "")
        ids = set(self.engine.directory.ids)
        return course.workspace if course is not None and course.workspace in ids else None

    def card(self, code, lang):
        lang = normalize_lang(lang)
        workspace = self.workspace_of(code)
        name = self.engine.course(workspace).name if workspace else None
        return card_html(self.catalog, code or "", lang, name)

    def clicked(self, lang, sid, current, event: gr.EventData, request: gr.Request = None):
        """A course of the roadmap. Outputs: card, selected code, then the Study tab's course
        picker, course line (narrow screens), card, status line and example buttons (left
        alone for a course with no workspace)."""
        code = str((getattr(event, "_data", None) or {}).get("code") or "")
        course = self.catalog.course(code)
        skipped = [gr.skip()] * (4 + len(self.app.example_updates(None)))
        if course is None:
            return gr.skip(), gr.skip(), *skipped
        workspace = self.workspace_of(course.code)
        card = self.card(course.code, lang)
        if not workspace:
            return card, course.code, *skipped
        course_card, status, *examples = self.app.select_course(workspace, sid, lang, request)
        chip = self.app.course_chip(workspace, lang)
        return card, course.code, gr.update(value=workspace), chip, course_card, status, *examples

    def relabel(self, program_id, lang, selected):
        lang = normalize_lang(lang)
        return self.roadmap(program_id, lang, selected), (self.card(selected, lang) if selected else "")


def build_catalog_tab(app, labels: Labels, lang_state, sid, study) -> CatalogTab | None:
    """The tab, or nothing when no catalog is loaded (CATALOG=off, or a broken catalog)."""
    tab = CatalogTab(app)
    catalog = tab.catalog
    if catalog is None or not catalog.programs:
        return None
    lang0 = labels.lang
    first = next(iter(catalog.programs))
    with labels.add(gr.Tab, id="catalog", elem_id="cr-tab-catalog", text={"label": "tab_catalog"}):
        selected = gr.State("")
        program = labels.add(
            gr.Dropdown,
            value=first,
            interactive=True,
            elem_id="cr-program",
            text={"label": "catalog_program", "choices": lambda lg: program_choices(catalog, lg)},
        )
        with gr.Row(elem_id="cr-catalog-row"):  # side by side when wide; the card wraps below when narrow
            with gr.Column(scale=3, min_width=320):
                roadmap = gr.HTML(tab.roadmap(first, lang0), elem_id="cr-roadmap", padding=True, js_on_load=CLICK_JS)
            with gr.Column(scale=2, min_width=300, elem_id="cr-catalog-side"):
                card = gr.HTML("", elem_id="cr-catalog-card", padding=True, js_on_load=CARD_JS)
    private = {"api_visibility": "private"}
    program.input(tab.roadmap, [program, lang_state, selected], [roadmap], **private)
    roadmap.click(
        tab.clicked,
        [lang_state, sid, study.course],
        [
            card,
            selected,
            study.course,
            study.course_chip,
            study.course_card,
            study.course_status,
            *study.example_buttons,
        ],
        **private,
    ).then(
        app.save_state,
        [sid, study.course, lang_state, study.scope, study.turns],
        [study.stored, study.saved],
        **private,
    )
    lang_state.change(tab.relabel, [program, lang_state, selected], [roadmap, card], **private)
    return tab
