"""Everything the app shows as HTML or Markdown, rendered by pure functions.

The one wording of upload results, citations, the course card and the notes table lives
here (the words themselves in courserag/messages.py and courserag/ui/texts.py). Text from
outside — answers quoting sources, file names, questions — is escaped here, and every HTML
block this module returns goes through the sanitizer of courserag/ui/sanitize.py.
"""

from __future__ import annotations

import html
import os
import re
import urllib.parse
from pathlib import Path
from typing import Sequence

from courserag.courses import Course
from courserag.messages import unit_word
from courserag.results import UNIT_OF_DOC_TYPE, Answer, IndexStatus, UploadResult
from courserag.session_pool import UploadedFile
from courserag.ui.sanitize import answer_html, clean_html
from courserag.ui.texts import t

_PAGE = re.compile(r"\b(?:page|p\.|第)\s*(\d+)", re.IGNORECASE)


def escape_markdown_html(text: str) -> str:
    """Markdown from outside (an answer streaming in, an error) as one sanitized HTML block."""
    return answer_html(text)


def course_file_url(docs: Path, source: str, locator: str) -> str | None:
    """A link to a course file served from its docs folder, at the cited page for PDFs.

    Only files that resolve inside the course folder get a link; anything else (an upload,
    a path that escapes the folder, a missing file) gets none. The link names the file
    relative to the app's working folder, never by its absolute path on the server (a
    course folder outside the working folder gets no links).
    """
    try:
        root = Path(docs).resolve()
        path = (root / source).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
        shown = Path(os.path.relpath(path, Path.cwd().resolve()))
    except (OSError, ValueError):
        return None
    if shown.is_absolute() or ".." in shown.parts:
        return None
    url = "gradio_api/file=" + urllib.parse.quote(shown.as_posix())
    match = _PAGE.search(locator or "")
    if match and path.suffix.lower() == ".pdf":
        url += f"#page={int(match.group(1))}"
    return url


def render_citations(citations: list[dict], lang: str, docs_by_course: dict[str, Path]) -> str:
    """The sources block under an answer, as one HTML block (no blank lines for Markdown)."""
    if not citations:
        return ""
    rows = []
    links = []
    for cite in citations:
        origin = "upload" if cite.get("origin") == "upload" else "course"
        name = html.escape(str(cite.get("source", "")))
        locator = html.escape(str(cite.get("locator", "")))
        url = None
        if origin == "course" and cite.get("course_id") in docs_by_course:
            url = course_file_url(docs_by_course[cite["course_id"]], str(cite.get("source", "")), str(cite.get("locator", "")))
            links += [url] if url else []
        title = (
            f'<a class="cr-file" href="{html.escape(url)}" target="_blank" rel="noopener" '
            f'title="{html.escape(t(lang, "open_file"))}">{name}</a>'
            if url
            else f'<span class="cr-file">{name}</span>'
        )
        badge = f'<span class="cr-badge cr-{origin}">{t(lang, "origin_course" if origin == "course" else "origin_upload")}</span>'
        text = str(cite.get("text", "")).replace("**", "")
        passage = "<br>".join(html.escape(line) for line in text.splitlines() if line.strip())
        rows.append(
            f'<details class="cr-cite cr-cite-{origin}">'
            f'<summary><span class="cr-n">[{int(cite.get("n", 0))}]</span> {title} '
            f'<span class="cr-loc">· {locator}</span>{badge}</summary>'
            f'<div class="cr-passage">{passage}</div></details>'
        )
    return clean_html(
        f'<div class="cr-sources"><div class="cr-sources-title">📚 {t(lang, "sources")}</div>'
        + "".join(rows)
        + "</div>",
        links,
    )


def format_answer(answer: Answer, lang: str, docs_by_course: dict[str, Path]) -> str:
    """The assistant message: answer text, notices (Markdown, sanitized), then the citations block."""
    parts = [answer.answer.strip()]
    if answer.refused:
        parts.append(f"*{t(lang, 'refused_hint')}*")
    for notice in answer.notices:
        parts.append(f"> ⚠️ **{t(lang, 'warning')}:** {notice.text(lang)}")
    return answer_html("\n\n".join(parts), render_citations(answer.citations, lang, docs_by_course))


def upload_line(result: UploadResult, lang: str) -> tuple[str, str]:
    """One line of the upload log for an UploadResult, in the UI language."""
    return ("ok" if result.ok else "fail"), result.say(lang)


def render_upload_log(lines: Sequence[tuple[str, str]]) -> str:
    """Per-file results: (kind, text) with kind in ok / fail / info."""
    if not lines:
        return ""
    return clean_html('<div class="cr-log">' + "".join(
        f'<div class="cr-{kind}">{html.escape(text)}</div>' for kind, text in lines
    ) + "</div>")


def render_notes(files: Sequence[UploadedFile], lang: str) -> str:
    """The learner's uploaded files as a small table (or a line saying there are none)."""
    if not files:
        return clean_html(f'<div class="cr-empty">{html.escape(t(lang, "no_notes"))}</div>')
    head = "<tr>" + "".join(f"<th>{html.escape(t(lang, key))}</th>" for key in ("notes_col_file", "notes_col_read", "notes_col_passages")) + "</tr>"
    rows = "".join(
        f"<tr><td>{html.escape(f.name)}</td>"
        f"<td>{f.units} {html.escape(unit_word(f.unit or UNIT_OF_DOC_TYPE.get(f.doc_type, 'section'), f.units, lang))}</td>"
        f"<td>{f.chunks}</td></tr>"
        for f in files
    )
    return clean_html(f'<table class="cr-notes">{head}{rows}</table>')


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
        f"<div><strong>{html.escape(course.name)}</strong></div>"
        f'<div class="cr-desc">{html.escape(course.description)}</div>'
        f'<div class="cr-meta">{html.escape(meta)}</div>{hint}'
    )
