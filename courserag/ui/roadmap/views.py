"""The Catalog tab's HTML: a program's roadmap and one course's card.

Pure functions of the catalog, the language and the date; every catalog value is escaped
here (html.escape), since a catalog is a file from outside like any other. Each course of
the roadmap is a button carrying its code, which the tab's script sends back on a click.
"""

from __future__ import annotations

import html
from datetime import date

from courserag.catalog.answers import year_words
from courserag.catalog.model import ANY_YEAR, Catalog, CatalogCourse, Section
from courserag.catalog.prereq import say
from courserag.i18n.ui_texts import t

_DAY = {
    "en": {"Mon": "Mon", "Tue": "Tue", "Wed": "Wed", "Thu": "Thu", "Fri": "Fri", "Sat": "Sat", "Sun": "Sun"},
    "zh": {"Mon": "周一", "Tue": "周二", "Wed": "周三", "Thu": "周四", "Fri": "周五", "Sat": "周六", "Sun": "周日"},
}

# Narrow screens: every block is full width and wraps; nothing has a fixed width.
STYLE = """<style>
.cr-roadmap, .cr-catalog-card { font-size: 0.95rem; overflow-wrap: anywhere; }
.cr-road-year { margin: 0.6rem 0 1rem; }
.cr-road-modules { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 260px), 1fr)); gap: 0.6rem; }
.cr-road-module h4 { margin: 0.2rem 0 0.3rem; }
.cr-road-list { list-style: none !important; margin: 0 !important; padding: 0 !important; display: grid; gap: 0.4rem; }
.cr-road-course { display: block; width: 100%; text-align: left !important; padding: 0.45rem 0.6rem; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--border-color-primary, #ccc); background: var(--background-fill-secondary, #f7f7f7);
  color: inherit; font: inherit; }
.cr-road-course:hover, .cr-road-course:focus-visible { border-color: var(--color-accent, #2563eb); }
.cr-road-course[aria-pressed="true"] { border-width: 2px; border-color: var(--color-accent, #2563eb); }
.cr-road-line { display: block; font-size: 0.85em; opacity: 0.9; }
.cr-road-code { font-weight: 600; }
.cr-road-tag { font-size: 0.8em; padding: 0 0.35em; border-radius: 4px; border: 1px solid currentColor; margin-left: 0.3em; }
.cr-catalog-head { display: flex; align-items: flex-start; gap: 0.5rem; }
.cr-catalog-head h3 { flex: 1; margin-top: 0; }
.cr-catalog-close { flex: 0 0 auto; font-size: 1.4em; line-height: 1; width: 2em; height: 2em; cursor: pointer; color: inherit;
  background: none; border: 1px solid var(--border-color-primary, #ccc); border-radius: 6px; }
.cr-catalog-card table { border-collapse: collapse; width: 100%; }
.cr-catalog-card td, .cr-catalog-card th { border-bottom: 1px solid var(--border-color-primary, #ddd);
  padding: 0.2rem 0.3rem; text-align: left; vertical-align: top; }
</style>"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def credits_text(value: float, lang: str) -> str:
    return t(lang, "catalog_credit" if value == 1 else "catalog_credits", credits=_num(value))


def section_line(section: Section, lang: str, catalog: Catalog | None = None) -> str:
    """ "L01 Mon/Wed 10:30–11:50 · SCI-201 · Dr. Lee"; with the building and the instructors'
    names when the catalog has rooms.csv and instructors.csv, and the languages when bilingual."""
    days = "/".join(_DAY[lang].get(d, d) for d in section.days)
    names = catalog.instructor_names(section, lang) if catalog else list(section.instructors)
    who = ("、" if lang == "zh" else ", ").join(names)
    room = catalog.room_label(section) if catalog else section.room
    languages = "/".join(section.languages) if len(section.languages) > 1 else ""
    when = f"{section.section} {days} {section.start}–{section.end}"
    return " · ".join(p for p in (when, room, who, languages) if p)


def year_heading(year: int, lang: str) -> str:
    if year == ANY_YEAR:
        return t(lang, "catalog_year_any")
    return t(lang, "catalog_year", year=year_words(year, lang) if lang == "zh" else year)


def _prereq(catalog: Catalog, course: CatalogCourse, lang: str) -> str:
    return say(course.prerequisites, lang) if course.prerequisites else t(lang, "catalog_card_none")


def program_choices(catalog: Catalog | None, lang: str) -> list[tuple[str, str]]:
    if catalog is None:
        return []
    return [(p.name(lang), p.id) for p in catalog.programs.values()]


def roadmap_html(catalog: Catalog, program_id: str | None, lang: str, today: date, selected: str = "") -> str:
    """The program's courses by year and module: credits, prerequisites, this term's sections."""
    program = catalog.programs.get(program_id or "")
    if program is None:
        return STYLE + f'<div class="cr-roadmap"><p>{_e(t(lang, "catalog_hint"))}</p></div>'
    term = catalog.current_term(today)
    head = t(
        lang,
        "catalog_head",
        program=program.name(lang),
        credits=_num(program.total_credits),
        term=term.name(lang) if term else "—",
    )
    out = [
        STYLE,
        '<div class="cr-roadmap">',
        f'<p class="cr-road-head"><strong>{_e(head)}</strong></p>',
        f'<p class="cr-road-hint">{_e(t(lang, "catalog_hint"))}</p>',
    ]
    rows = [r for r in catalog.requirements if r.program == program.id]
    for year in sorted({r.year for r in rows}, key=lambda y: (y == ANY_YEAR, y)):
        out.append(f'<section class="cr-road-year" data-year="{year}"><h3>{_e(year_heading(year, lang))}</h3>')
        out.append('<div class="cr-road-modules">')
        modules: list[str] = []
        for r in rows:
            if r.year == year and r.module(lang) not in modules:
                modules.append(r.module(lang))
        for module in modules:
            out.append(f'<div class="cr-road-module"><h4>{_e(module)}</h4><ul class="cr-road-list">')
            for r in (r for r in rows if r.year == year and r.module(lang) == module):
                course = catalog.course(r.code)
                sections = [s for s in catalog.sections_by_code.get(course.code, ()) if term and s.term == term.id]
                this_term = (
                    t(lang, "catalog_this_term", sections="; ".join(section_line(s, lang, catalog) for s in sections))
                    if sections
                    else t(lang, "catalog_not_this_term")
                )
                pressed = "true" if course.code == selected else "false"
                out.append(
                    f'<li><button type="button" class="cr-road-course" data-code="{_e(course.code)}" aria-pressed="{pressed}">'
                    f'<span class="cr-road-code">{_e(r.code)}</span> <span class="cr-road-title">{_e(course.title(lang))}</span>'
                    f'<span class="cr-road-tag">{_e(t(lang, "catalog_" + r.kind))}</span>'
                    f'<span class="cr-road-line">{_e(credits_text(course.credits, lang))} · '
                    f"{_e(t(lang, 'catalog_prereq', prereq=_prereq(catalog, course, lang)))}</span>"
                    f'<span class="cr-road-line cr-road-sections">{_e(this_term)}</span></button></li>'
                )
            out.append("</ul></div>")
        out.append("</div></section>")
    out.append("</div>")
    return "".join(out)


def card_html(catalog: Catalog, code: str, lang: str, workspace_name: str | None) -> str:
    """One course's card: every catalog fact of it, with the rows they come from."""
    course = catalog.course(code)
    if course is None:
        return ""
    none = t(lang, "catalog_card_none")
    names = lambda codes: (
        ", ".join(f"{c} {catalog.course(c).title(lang)}" if catalog.course(c) else c for c in codes) or none
    )  # noqa: E731
    close = f'<button type="button" class="cr-catalog-close" aria-label="{_e(t(lang, "panel_close"))}">×</button>'
    head = f'<h3 tabindex="-1">{_e(course.code)} {_e(course.title(lang))}</h3>'
    lines = [f'<div class="cr-catalog-head">{head}{close}</div>', f"<p>{_e(credits_text(course.credits, lang))}</p>"]
    if course.description(lang):
        lines.append(f"<p>{_e(course.description(lang))}</p>")
    others = course.cross_listed + course.former_codes
    if others:
        lines.append(f"<p>{_e(t(lang, 'catalog_card_codes', codes=', '.join(others)))}</p>")
    lines.append(f"<p>{_e(t(lang, 'catalog_prereq', prereq=_prereq(catalog, course, lang)))}</p>")
    if course.corequisites:
        lines.append(f"<p>{_e(t(lang, 'catalog_card_coreq', codes=names(course.corequisites)))}</p>")
    if course.exclusions:
        lines.append(f"<p>{_e(t(lang, 'catalog_card_excl', codes=names(course.exclusions)))}</p>")
    lines.append(f"<p>{_e(t(lang, 'catalog_card_needed', codes=names(catalog.needed_by.get(course.code, ()))))}</p>")
    lines.append(f"<h4>{_e(t(lang, 'catalog_card_sections'))}</h4>")
    sections = catalog.sections_by_code.get(course.code, ())
    if sections:
        lines.append("<table>")
        for term in sorted(catalog.terms, key=lambda x: x.start):
            for s in (s for s in sections if s.term == term.id):
                lines.append(f"<tr><td>{_e(term.name(lang))}</td><td>{_e(section_line(s, lang, catalog))}</td></tr>")
        lines.append("</table>")
    else:
        lines.append(f"<p>{_e(none)}</p>")
    required = catalog.requirements_by_code.get(course.code, ())
    if required:
        lines.append(f"<h4>{_e(t(lang, 'catalog_card_programs'))}</h4><ul>")
        for r in required:
            program = catalog.programs[r.program]
            said = t(
                lang,
                "catalog_card_in_program_any" if r.year == ANY_YEAR else "catalog_card_in_program",
                program=program.name(lang),
                kind=t(lang, "catalog_" + r.kind),
                year=year_words(r.year, lang) if lang == "zh" else r.year,
                module=r.module(lang),
            )
            lines.append(f"<li>{_e(said)}</li>")
        lines.append("</ul>")
    note = (
        t(lang, "catalog_card_selected", name=workspace_name)
        if workspace_name
        else t(lang, "catalog_card_no_workspace")
    )
    lines.append(f'<p class="cr-catalog-workspace"><strong>{_e(note)}</strong></p>')
    lines.append(f'<p class="cr-catalog-source">{_e(t(lang, "catalog_card_source", source=str(course.where)))}</p>')
    return STYLE + f'<div class="cr-catalog-card" data-code="{_e(course.code)}">' + "".join(lines) + "</div>"
