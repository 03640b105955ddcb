"""Everything the app shows as HTML or Markdown, rendered by pure functions.

The one wording of answers, citations, upload results, the notes table and the course card
lives here (the words themselves in courserag/i18n/messages.py and courserag/i18n/ui_texts.py). Text
from outside — answers quoting sources, file names, questions — is escaped here, links in it
are made inert (the only links in an answer are ours, to cited course files), and every HTML
block this module returns goes through the sanitizer of courserag/ui/rendering/sanitize.py.

An answer's `[n]` markers become buttons; its sources are listed cited first, the others
under a collapsed "also consulted". Each source carries its passage (hidden, cleaned, the
sentences the answer drew on marked) for the source panel (client.js), which opens when a
marker or a source is clicked.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Sequence

from courserag.answers.cited import split_cited
from courserag.courses.directory import Course
from courserag.i18n.locators import line_range, page_of, say_locator
from courserag.i18n.messages import unit_word
from courserag.i18n.ui_texts import t
from courserag.ingest.progress import PendingUpload
from courserag.lang.script import script_of
from courserag.results import UNIT_OF_DOC_TYPE, Answer, IndexStatus, UploadResult
from courserag.retrieval.session_pool import UploadedFile
from courserag.ui.files import file_url, resolve
from courserag.ui.rendering.mathtext import normalize
from courserag.ui.rendering.numbering import display_numbers
from courserag.ui.rendering.quoting import quoted_markdown
from courserag.ui.rendering.sanitize import answer_html, clean_html, markdown_html, one_block, text_nodes
from courserag.ui.rendering.sources import CODE_TYPES, highlight, is_prose, paragraphs, passage_blocks

_CODE_SPANS = re.compile(r"(```[\s\S]*?```|`[^`\n]+`)")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_MATH_SPANS = re.compile(r"(\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\])")  # as mathtext.py delimits it
# What Markdown would turn into a link or an image: [text](url), <url>, bare URLs, www., e-mail.
_LINKY = (("[", "&#91;"), ("]", "&#93;"), ("://", "&#58;//"), ("www.", "www&#46;"), ("@", "&#64;"))


def escape_markdown_html(text: str) -> str:
    """Markdown from outside (an answer streaming in, an error) as one sanitized HTML block."""
    return answer_html(text)


def _defused(part: str) -> str:
    for raw, entity in _LINKY:
        part = part.replace(raw, entity)
    return part


def inert_links(fragment: str, marker=None) -> str:
    """Sanitized HTML with the link syntax of its text defused: a link written in an uploaded
    note ("[click](http://…)", a bare "https://…") is shown, never made live. Source markers
    "[n]" stay as they are, or become `marker(n)` when it is given; inside math
    ("\\sqrt[3]{x}") and code a bracketed number is never a marker. Only text between tags
    changes (text_nodes): what is put in can never land inside a tag or an attribute."""
    return text_nodes(fragment, lambda text: _inert_text(text, marker), literal=("code", "pre"))


def _inert_text(text: str, marker=None) -> str:
    """One text node (escaped here) with its link syntax defused and its markers made."""
    parts = _CODE_SPANS.split(text)
    out = []
    for i, part in enumerate(parts):
        part = html.escape(part)
        if not i % 2:
            pieces = _MATH_SPANS.split(part)
            for j, piece in enumerate(pieces):
                if j % 2:
                    pieces[j] = _defused(piece)
                    continue
                piece = _MARKER.sub(lambda m: f"\x00{m.group(1)}\x01", piece)
                piece = _defused(piece)
                pieces[j] = re.sub(
                    "\x00(\\d+)\x01", lambda m: marker(int(m.group(1))) if marker else f"[{m.group(1)}]", piece
                )
            part = "".join(pieces).replace("](", "]&#40;")  # "[1](http…)" would still be a link
        out.append(part)
    return "".join(out)


def answer_text_html(markdown_text: str, lang: str) -> str:
    """The answer's own words (Markdown, rendered and sanitized), links inert, and `[n]` as
    buttons that open source n."""
    label = html.escape(t(lang, "open_passage"))
    return inert_links(
        f'<div class="cr-md">{markdown_html(markdown_text)}</div>',
        lambda n: f'<button type="button" class="cr-ref" title="{label}">[{n}]</button>',
    )


def course_link(docs_by_course: dict[str, Path], cite: dict) -> str | None:
    """The URL of a cited course file at the cited place; None for uploads and for anything
    that is not a file inside its course's folder."""
    course_id = cite.get("course_id")
    if cite.get("origin") == "upload" or course_id not in docs_by_course:
        return None
    source = str(cite.get("source", ""))
    if resolve(docs_by_course[course_id], source) is None:
        return None
    return file_url(course_id, source, str(cite.get("locator", "")))


def _passage_html(cite: dict, answer: str) -> str:
    """The cited text as the panel shows it: paragraphs, the sentences the answer used marked."""
    doc_type = str(cite.get("doc_type") or Path(str(cite.get("source", ""))).suffix.lstrip(".").lower())
    number = int(cite.get("n", 0))
    text = normalize(str(cite.get("text", "")).replace("**", ""))  # its LaTeX for KaTeX
    code = doc_type in CODE_TYPES and not is_prose(text, doc_type)
    rows = []
    lines = paragraphs(text, doc_type if code or doc_type not in CODE_TYPES else "md")
    for block in lines if code else passage_blocks(lines):
        if isinstance(block, list):
            rows.append(_table_html(block, answer, number))
            continue
        if not block.strip():
            continue
        pieces = highlight(block, answer, number) if answer else [(block, False)]
        inner = "".join(f"<mark>{html.escape(p)}</mark>" if marked else html.escape(p) for p, marked in pieces)
        rows.append(f'<div class="cr-para">{inner}</div>')
    css = "cr-passage cr-code" if code else "cr-passage"
    return f'<div class="{css}" hidden>{"".join(rows)}</div>'


def _table_html(rows: list[list[str]], answer: str, number: int) -> str:
    """A Markdown table of a passage as a table (header cells, then rows), a row the
    answer drew on marked as a highlighted sentence is."""

    def marked(cells: list[str]) -> bool:
        return bool(answer) and any(hit for _, hit in highlight(" ".join(cells), answer, number))

    def row(cells: list[str], tag: str) -> str:
        wrap = "<mark>{}</mark>" if tag == "td" and marked(cells) else "{}"
        return "<tr>" + "".join(f"<{tag}>{wrap.format(html.escape(c))}</{tag}>" for c in cells) + "</tr>"

    head, body = rows[0], rows[1:]
    return (
        f'<div class="cr-para cr-passage-table"><table><thead>{row(head, "th")}</thead>'
        f"<tbody>{''.join(row(cells, 'td') for cells in body)}</tbody></table></div>"
    )


def _source_entry(cite: dict, lang: str, url: str | None, answer: str) -> str:
    """One source: its opener button, badge, link to the original (`url`, when there is
    one) and its hidden passage for the panel."""
    origin = "upload" if cite.get("origin") == "upload" else "course"
    name = html.escape(str(cite.get("source", "")))
    locator = html.escape(say_locator(str(cite.get("locator", "")), lang))
    badge = f'<span class="cr-badge cr-{origin}">{t(lang, "origin_course" if origin == "course" else "origin_upload")}</span>'
    if url:
        raw_locator = str(cite.get("locator", ""))
        suffix = Path(str(cite.get("source", ""))).suffix.lower()
        if suffix in (".docx", ".pptx"):
            title = t(lang, "download_original")
        elif page_of(raw_locator) or line_range(raw_locator):
            title = t(lang, "open_original_page", where=say_locator(raw_locator, lang))
        else:
            title = t(lang, "open_original")
        original = (
            f'<a class="cr-file" href="{html.escape(url)}" target="_blank" rel="noopener" '
            f'title="{html.escape(title)}">{html.escape(t(lang, "original_link"))} ↗</a>'
        )
    else:
        note = t(lang, "upload_not_kept") if origin == "upload" else ""
        original = f'<span class="cr-note" hidden>{html.escape(note)}</span>'
    opener = (
        f'<button type="button" class="cr-open" title="{html.escape(t(lang, "open_passage"))}">'
        f'<span class="cr-n">[{int(cite.get("n", 0))}]</span> <span class="cr-fname">{name}</span> '
        f'<span class="cr-loc">· {locator}</span></button>'
    )
    return (
        f'<div class="cr-cite cr-cite-{origin}">{opener}{badge} {original}'
        f'<span class="cr-hl-note" hidden>{html.escape(t(lang, "panel_highlight"))}</span>'
        f"{_passage_html(cite, answer)}</div>"
    )


def render_citations(citations: list[dict], lang: str, docs_by_course: dict[str, Path], answer: str = "") -> str:
    """The sources block under an answer, as one HTML block (no blank lines for Markdown):
    the sources the answer cites, then the others under a collapsed "also consulted"."""
    if not citations:
        return ""
    links = {id(c): course_link(docs_by_course, c) for c in citations}  # each file checked once
    cited, consulted = split_cited(citations, answer)
    rows = "".join(_source_entry(c, lang, links[id(c)], answer) for c in cited)
    more = ""
    if consulted:
        more = (
            f'<details class="cr-consulted"><summary>{html.escape(t(lang, "also_consulted", count=len(consulted)))}</summary>'
            + "".join(_source_entry(c, lang, links[id(c)], answer) for c in consulted)
            + "</details>"
        )
    return clean_html(
        f'<div class="cr-sources"><div class="cr-sources-title">📚 {t(lang, "sources")}</div>{rows}{more}</div>',
        [url for url in links.values() if url],
    )


def refusal_hint(scope: str, lang: str) -> str:
    """What to try after a refusal, given what was searched."""
    return t(lang, {"course": "refused_hint_course", "notes": "refused_hint_notes"}.get(scope, "refused_hint_both"))


def pending_note(pending: Sequence[PendingUpload | str], lang: str) -> str:
    """What was not searched yet: the files (or their names) still being indexed."""
    names = [p if isinstance(p, str) else p.name for p in pending]
    return t(lang, "pending_note", files=("、" if lang == "zh" else ", ").join(names))


def format_reply(
    text: str,
    refused: bool,
    citations: Sequence[dict],
    lang: str,
    docs_by_course: dict[str, Path],
    scope: str = "both",
    notices: Sequence[str] = (),
    pending: Sequence[PendingUpload | str] = (),
    *,
    mode: str = "",
    said_in: str | None = None,
) -> str:
    """The assistant message: answer text, what to try or what was not searched yet, the
    notices (already in `said_in`), then the sources block. `pending` are the learner's files
    that were still being indexed when the question was asked.

    One language per answer (docs/ARCHITECTURE.md, "Words"): the answer's own words, its hint and its
    notes are in `said_in`, its question's language; the sources block's labels follow the
    interface (`lang`). Text no model wrote (quotes, catalog replies, refusals: any `mode`
    but "llm") is shown as written, never read as Markdown (quoting.py)."""
    said_in = said_in or lang
    text, citations = display_numbers(text, citations)  # cited sources first: [1], [2] …
    parts = [text.strip() if mode == "llm" else quoted_markdown(text.strip())]
    if pending and scope in ("both", "notes"):
        parts.append(f"> {pending_note(pending, said_in)}")
    elif refused:
        parts.append(f"*{refusal_hint(scope, said_in)}*")
    for notice in notices:
        parts.append(f"> ⚠️ **{t(said_in, 'warning')}:** {notice}")
    # One block: the chat's own Markdown renderer must not reinterpret anything in it.
    return one_block(
        answer_text_html("\n\n".join(parts), lang) + render_citations(list(citations), lang, docs_by_course, text)
    )


def answer_citations(answer: Answer) -> list[dict]:
    """The answer's citations with each source's document type (how the panel lays it out)."""
    return [dict(c, doc_type=item.hit.chunk.doc_type) for c, item in zip(answer.citations, answer.items)]


def format_answer(
    answer: Answer,
    lang: str,
    docs_by_course: dict[str, Path],
    scope: str = "both",
    pending: Sequence[PendingUpload] = (),
) -> str:
    """The assistant message for a finished Answer (see format_reply), said in its question's
    language."""
    said_in = script_of(answer.question)
    notices = [notice.text(said_in) for notice in answer.notices]
    citations = answer_citations(answer)
    return format_reply(
        answer.answer,
        answer.refused,
        citations,
        lang,
        docs_by_course,
        scope,
        notices,
        pending,
        mode=answer.mode,
        said_in=said_in,
    )


def upload_line(result: UploadResult, lang: str) -> tuple[str, str]:
    """One line of the upload log for an UploadResult, in the UI language."""
    return ("ok" if result.ok else "fail"), result.say(lang)


def render_upload_log(lines: Sequence[tuple[str, str]]) -> str:
    """Per-file results: (kind, text) with kind in ok / fail / info."""
    if not lines:
        return ""
    return clean_html(
        '<div class="cr-log">'
        + "".join(f'<div class="cr-{kind}">{html.escape(text)}</div>' for kind, text in lines)
        + "</div>"
    )


def _pending_row(pending: PendingUpload, lang: str) -> str:
    name = html.escape(pending.name)
    if pending.phase == "indexing" and pending.total:
        unit = unit_word(pending.unit or "section", pending.total, lang)
        status = t(lang, "status_indexing", done=pending.done, total=pending.total, unit=unit)
        bar = f'<progress class="cr-progress" value="{pending.done}" max="{pending.total}" aria-label="{name}"></progress>'
    else:
        status = t(lang, "status_reading")
        bar = f'<progress class="cr-progress" aria-label="{name}"></progress>'
    return f'<tr class="cr-pending"><td>{name}</td><td colspan="2">{bar}</td><td colspan="2">{html.escape(status)}</td></tr>'


def render_notes(files: Sequence[UploadedFile], lang: str, pending: Sequence[PendingUpload] = ()) -> str:
    """The learner's files as a small table: searchable ones, then those still being read or
    indexed with their progress (or a line saying there are none)."""
    ready = [f for f in files if f.name not in {p.name for p in pending}]
    if not ready and not pending:
        return clean_html(f'<div class="cr-empty">{html.escape(t(lang, "no_notes"))}</div>')
    keys = ("notes_col_file", "notes_col_read", "notes_col_passages", "notes_col_status")
    head = "<tr>" + "".join(f'<th scope="col">{html.escape(t(lang, key))}</th>' for key in keys) + "<td></td></tr>"
    rows = "".join(
        f"<tr><td>{html.escape(f.name)}</td>"
        f"<td>{f.units} {html.escape(unit_word(f.unit or UNIT_OF_DOC_TYPE.get(f.doc_type, 'section'), f.units, lang))}</td>"
        f"<td>{f.chunks}</td><td>{html.escape(t(lang, 'status_ready'))}</td>"
        f'<td><button type="button" class="cr-remove-file" data-name="{html.escape(f.name)}" '
        f'aria-label="{html.escape(t(lang, "remove_file", name=f.name))}" '
        f'title="{html.escape(t(lang, "remove_file", name=f.name))}">✕</button></td></tr>'
        for f in ready
    )
    rows += "".join(_pending_row(p, lang) for p in pending)
    # The box scrolls sideways if a row still cannot fit (names wrap anywhere first).
    return clean_html(f'<div class="cr-notes-wrap"><table class="cr-notes">{head}{rows}</table></div>')


def render_course_card(course: Course, status: IndexStatus, lang: str) -> str:
    """Name, description, language and index state of a course, with a hint when it is not ready."""
    language = t(lang, "language_zh" if course.language == "zh" else "language_en")
    meta = f"🌐 {t(lang, 'course_language', language=language)}"
    hint = ""
    if status.state == "ready":
        meta += f" · 📚 {t(lang, 'index_ready', files=status.files, chunks=status.chunks)}"
    elif status.notice is not None:
        hint = f'<div class="cr-hint">⚠️ {html.escape(status.notice.text(lang))}</div>'
    elif status.state == "missing":
        hint = f'<div class="cr-hint">⚠️ {html.escape(t(lang, "index_missing", course_id=course.id))}</div>'
    else:
        hint = f'<div class="cr-hint">⚠️ {html.escape(t(lang, "index_unavailable", detail=status.detail))}</div>'
    hint = re.sub(r"`([^`]+)`", r"<code>\1</code>", hint)
    return clean_html(
        f'<div class="cr-course-name">{html.escape(course.name)}</div>'
        f'<div class="cr-desc">{html.escape(course.description)}</div>'
        f'<div class="cr-meta">{html.escape(meta)}</div>{hint}'
    )


def render_course_chip(name: str, lang: str) -> str:
    """ "Course: CSC3100 Data Structures", or nothing when no course is chosen."""
    if not name:
        return ""
    return clean_html(f'<div class="cr-chip">📘 {html.escape(t(lang, "course"))}: <b>{html.escape(name)}</b></div>')
