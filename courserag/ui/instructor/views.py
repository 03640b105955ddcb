"""What the Instructor tab shows, rendered by pure functions in the instructor's language:
index statistics, tables (with translated headers), build summaries, progress, gap choices.

File names, questions and comments come from outside and are escaped here (Markdown) or
passed as table cells (which Gradio shows as text), or escaped into the HTML tables.
"""

from __future__ import annotations

import html
import re

from courserag.courses.indexer import BuildSummary
from courserag.i18n.locators import say_locator
from courserag.i18n.ui_texts import t
from courserag.instructor.placement import ROOT
from courserag.instructor.tools import CourseFile, IndexStats
from courserag.instructor.trash import TrashEntry
from courserag.ui.files import file_url


def stats_markdown(stats: IndexStats, lang: str) -> str:
    """The store in use (and its fallback), the course's counts, the answer mode and model."""
    health = stats.health
    primary, *fallbacks = health.stores
    lines = [
        f"**{t(lang, 'instr_store')}:** `{primary.name}` {'✓' if primary.ok else '✗'} {html.escape(primary.detail)}"
    ]
    lines += [f"**{t(lang, 'instr_fallback')}:** `{fb.name}` {'✓' if fb.ok else '✗'}" for fb in fallbacks]
    counts = t(lang, "instr_course_counts", files=len(stats.files), chunks=stats.chunks)
    lines.append(f"**{html.escape(stats.course_id)}:** {counts}")
    if stats.error:
        lines.append(f"⚠️ {html.escape(stats.error)}")
    if stats.damaged:  # left out of answers until the next build repairs them
        names = html.escape(", ".join(stats.damaged))
        lines.append(f"⚠️ {t(lang, 'instr_damaged', count=len(stats.damaged), names=names)}")
    if health.answer_mode == "llm":
        mode = t(lang, "instr_mode_llm", model=f"`{html.escape(health.llm_model)}`")
    else:
        mode = t(lang, "instr_mode_extractive")
    backend = f" (`{html.escape(health.embedding_backend)}`)" if health.embedding_backend else ""
    lines.append(
        f"**{t(lang, 'instr_answers')}:** {mode} · **{t(lang, 'instr_embedding')}:** "
        f"`{html.escape(health.embedding_model)}`{backend}"
    )
    lines.append(f"**{t(lang, 'instr_sessions')}:** {health.sessions}")
    return "\n\n".join(lines)


CATALOG_PROBLEMS_SHOWN = 10  # the first problems of a failing catalog; `catalog check` lists them all
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")


def _plain(text: str) -> str:
    """Text from a catalog file shown as itself in Markdown: no HTML, no emphasis or links."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(text, quote=False))


def catalog_markdown(folder: str, catalog, error, lang: str) -> str:
    """The course catalog's state: what it holds, or why it failed and the first problems
    (`file:row: field: message`), and whether the last good catalog is still in use."""
    if error is not None and error.problems:
        key = "instr_catalog_failed_kept" if catalog is not None else "instr_catalog_failed_none"
        lines = [t(lang, key, folder=_plain(folder), count=len(error.problems))]
        lines += [f"- {_plain(str(p))}" for p in error.problems[:CATALOG_PROBLEMS_SHOWN]]
        more = len(error.problems) - CATALOG_PROBLEMS_SHOWN
        if more > 0:
            lines.append(t(lang, "instr_catalog_more", count=more, folder=folder))
        return "\n".join(lines)
    if catalog is None:
        return ""
    counts = {"courses": len(catalog.courses), "sections": len(catalog.sections), "programs": len(catalog.programs)}
    return t(lang, "instr_catalog_ok", folder=_plain(folder), **counts)


def table(rows: list[list], keys: list[str], lang: str) -> dict:
    """A Dataframe value with headers in `lang` (key of texts, or the header itself)."""
    headers = [t(lang, key) if key.startswith("col_") else key for key in keys]
    return {"data": rows, "headers": headers}


def _size(size_bytes: int) -> str:
    for unit, factor in (("MB", 1 << 20), ("KB", 1 << 10)):
        if size_bytes >= factor:
            return f"{size_bytes / factor:.1f} {unit}"
    return f"{size_bytes} B"


def html_table(caption: str, headers: list[str], rows: list[list[str]], classes: list[str] | None = None) -> str:
    """A table of escaped cells (`rows` hold HTML), readable at every width: wide, a table
    with headers on one line; on a phone (theme.py) each row stacks its cells, each with its
    header's words before it (`.cr-cell-label`, drawn only there). `classes` name each column."""
    classes = classes or [""] * len(headers)
    head = "".join(f'<th scope="col" class="{c}">{html.escape(h)}</th>' for h, c in zip(headers, classes))
    body = []
    for row in rows:
        cells = []
        for header, css, cell in zip(headers, classes, row):
            empty = " cr-cell-empty" if not str(cell).strip() else ""
            label = f'<span class="cr-cell-label">{html.escape(header)}</span>'
            cells.append(f'<td class="{css}{empty}">{label}{cell}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="cr-table-wrap"><table class="cr-table"><caption>{html.escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def files_table(files: list[CourseFile], lang: str) -> str:
    """The course folder's files: name, size, passages, indexed or not."""
    rows = [
        [
            html.escape(f.source),
            _size(f.size_bytes),
            str(f.chunks),
            html.escape(t(lang, "state_indexed" if f.indexed else "state_not_indexed")),
        ]
        for f in files
    ]
    keys = ["col_file", "col_size", "col_passages", "col_state"]
    return html_table(t(lang, "instr_files"), [t(lang, k) for k in keys], rows, ["cr-col-name", "", "", ""])


def folder_choices(folders: list[str], lang: str) -> list[tuple[str, str]]:
    """(label, value) of each folder an upload may go to, the course folder first."""
    return [(t(lang, "instr_folder_root"), ROOT), *((folder, folder) for folder in folders)]


def trash_choices(entries: list[TrashEntry], lang: str) -> list[tuple[str, str]]:
    """(label, entry id) of each file in the course's trash, newest first."""
    return [
        (
            t(
                lang,
                "instr_trash_entry",
                name=entry.source,
                why=t(lang, f"instr_trash_{entry.reason}" if entry.reason == "replaced" else "instr_trash_removed"),
                when=entry.when(entry.removed_at),
                until=entry.when(entry.expires_at)[:10],
            ),
            entry.id,
        )
        for entry in entries
    ]


def cited_table(rows: list[tuple[str, int, int, int]], lang: str) -> dict:
    return table([list(row) for row in rows], ["col_file", "col_times_cited", "👍", "👎"], lang)


def source_links(sources, course_id: str | None, lang: str) -> str:
    """The sources a gap's answers used, each a link to the course file at the cited place (HTML)."""
    links = []
    for source, locator in sources:
        where = say_locator(locator, lang) if locator else ""
        words = html.escape(f"{source} · {where}" if where else source)
        if course_id:
            href = html.escape(file_url(course_id, source, locator))
            links.append(f'<a href="{href}" target="_blank" rel="noopener noreferrer">{words}</a>')
        else:
            links.append(words)
    return "<br>".join(links)


def gaps_table(groups: list[dict], lang: str, course_id: str | None = None) -> str:
    """Open gaps: the question (text, as asked), counts, when, comments, and the sources the
    refused-or-wrong answers used, linked. Learners' words are escaped (`cr-learner` cells)."""
    rows = [
        [
            html.escape(g["question"]),
            str(g["count"]),
            str(g["refused"]),
            str(g["down"]),
            str(g.get("wrong", 0)),
            html.escape(str(g["last"])[:16].replace("T", " ")),
            html.escape(" · ".join(g["comments"])),
            source_links(g.get("sources") or [(f, "") for f in g["files"]], course_id, lang),
        ]
        for g in groups
    ]
    keys = ["col_question", "col_times", "col_refused", "👎", "col_wrong", "col_last", "col_comments", "col_files"]
    headers = [t(lang, key) if key.startswith("col_") else key for key in keys]
    classes = [
        "cr-learner cr-col-text",
        "cr-num",
        "cr-num",
        "cr-num",
        "cr-num",
        "cr-col-when",
        "cr-learner cr-col-text",
    ]
    return html_table(t(lang, "instr_gaps"), headers, rows, [*classes, "cr-col-name"])


def gap_choices(groups: list[dict]) -> list[tuple[str, str]]:
    """(label, key) of each open gap for the "mark as resolved" picker."""
    return [(f"{g['question'][:90]} (×{g['count']})", g["key"]) for g in groups]


def batch_table(rows: list[list], lang: str) -> dict:
    """The batch results with the result word in `lang` ("answered (warning)" -> "已回答（有警告）")."""
    said = []
    for row in rows:
        number, question, result, answer, sources, ms = row
        word, _, rest = str(result).partition(" ")
        shown = t(lang, f"result_{word}") if word in ("answered", "refused", "error") else str(result)
        if rest:
            shown += (" " if lang != "zh" else "") + t(lang, "result_warning")
        said.append([number, question, shown, answer, sources, ms])
    return table(said, ["#", "col_question", "col_result", "col_answer", "col_sources", "ms"], lang)


def build_summary(summary: BuildSummary, lang: str) -> str:
    """The build's outcome, as a code block (English: BuildSummary.text(), as the CLI says it)."""
    if lang != "zh":
        return "```\n" + summary.text() + "\n```"
    lines = [
        t(
            lang,
            "instr_build_summary",
            course=summary.course_id,
            files=summary.files,
            indexed=summary.indexed,
            chunks=summary.chunks,
            skipped=summary.skipped,
            deleted=summary.deleted,
            failed=len(summary.failed),
            seconds=summary.seconds,
        )
    ]
    if summary.kept_previous:
        lines.append("  " + t(lang, "instr_build_kept"))
    lines += ["  " + t(lang, "instr_build_failed_file", file=f, reason=r) for f, r in summary.failed]
    return "```\n" + "\n".join(lines) + "\n```"


def progress_html(done: int, total: int, name: str, lang: str) -> str:
    """One progress bar with what is being indexed."""
    label = t(lang, "instr_progress", done=done, total=total, name=name)
    return (
        f'<div class="cr-instr-progress"><progress class="cr-progress" value="{done}" max="{max(total, 1)}" '
        f'aria-label="{html.escape(label)}"></progress><div>{html.escape(label)}</div></div>'
    )
