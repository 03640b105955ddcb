"""Course files as citations open them: `/course-file/<course id>/<path in its folder>`.

- PDF: the file itself, inline, so the link's `#page=N` opens it at the cited page.
- Text, Markdown and Python: a page of numbered lines, decoded with the file's real
  encoding (a GBK file reads as Chinese, not mojibake), the cited lines highlighted
  (`?lines=A-B`, or `?heading=Week 5 > Heaps` for a Markdown section) and scrolled to.
- Notebooks: a page of their cells, the cited one highlighted (`?cell=N`).
- Word and PowerPoint: a download (a browser cannot open them at a place).
- Past `MAX_VIEW_BYTES`, a text file shows its first `MAX_VIEW_BYTES` as plain text, saying
  so, and a notebook is a download: only what is shown is read (20 views of a 45 MB text file
  once read and decoded it whole, 7.3 s of CPU and 850 MB).

Only supported, non-hidden files inside the course's own folder are served (symlinks that
lead out of it are refused), and the URL names the course, not a server path.
"""

from __future__ import annotations

import html
import urllib.parse
from pathlib import Path
from typing import Callable

from courserag.i18n.catalog import say
from courserag.i18n.locators import line_range, page_of
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS

ROUTE = "course-file"
MB = 1024 * 1024
MAX_VIEW_BYTES = 4 * MB  # of a larger text file, this much is shown, as plain UTF-8 text
TEXT_TYPES = frozenset({".txt", ".md", ".markdown", ".py"})
DocsOf = Callable[[str], Path | None]

_PAGE_CSS = """
body { margin: 0; font: 14px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, "Noto Sans Mono CJK SC", monospace;
  color: #1f2937; background: #ffffff; }
header { position: sticky; top: 0; background: #eef2ff; color: #1e1b4b; padding: .5em 1em; font-family: system-ui, sans-serif;
  border-bottom: 1px solid #c7d2fe; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
/* The cited lines scrolled to (#L12) start below the sticky header (one line, ~36 px), not under it. */
html { scroll-padding-top: 3.5em; }
main { padding: .5em 0; }
.line { display: block; white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 1em 0 0; }
.line .n { display: inline-block; min-width: 4.5em; padding-right: 1em; text-align: right; color: #4b5563; user-select: none; }
.hl { background: #fef3c7; }
section.cell { margin: .6em 1em; padding: .4em .8em; border-left: 4px solid #c7d2fe; white-space: pre-wrap; }
section.cell h2 { font: 600 13px system-ui, sans-serif; margin: 0 0 .3em 0; color: #374151; }
section.cell.hl { border-left-color: #d97706; }
"""


def file_url(course_id: str, source: str, locator: str = "") -> str:
    """The relative URL that opens `source` of `course_id` at `locator` where the format allows."""
    url = f"{ROUTE}/{urllib.parse.quote(course_id)}/{urllib.parse.quote(source)}"
    suffix = Path(source).suffix.lower()
    page = page_of(locator)
    lines = line_range(locator)
    if suffix == ".pdf" and page:
        return url + f"#page={page}"
    if suffix in TEXT_TYPES and lines:
        return url + f"?lines={lines[0]}-{lines[1]}#L{lines[0]}"
    if suffix in (".md", ".markdown") and locator:
        return url + "?heading=" + urllib.parse.quote(locator)
    if suffix == ".ipynb" and locator.startswith("cell "):
        return url + f"?cell={locator.split()[-1]}#cell-{locator.split()[-1]}"
    return url


def resolve(docs: Path | None, source: str) -> Path | None:
    """The course file `source` names, or None: outside the folder (also through a symlink),
    hidden, missing, or of a type we do not read."""
    if docs is None:
        return None
    try:
        root = Path(docs).resolve()
        path = (root / source).resolve()
    except (OSError, ValueError):
        return None
    if not path.is_relative_to(root) or not path.is_file() or path.suffix.lower() not in SUPPORTED_EXTENSIONS:
        return None
    if any(part.startswith(".") for part in path.relative_to(root).parts):
        return None
    return path


def head(path: Path, limit: int) -> bytes:
    """At most `limit` bytes from the start of `path`: a view reads no more than it can show."""
    with path.open("rb") as handle:
        return handle.read(limit)


def shown_part(data: bytes) -> bytes:
    """The first `MAX_VIEW_BYTES` of `data`, ended at its last line end (in UTF-8 and GB18030
    a newline byte is never inside a character, so the cut splits none)."""
    part = data[:MAX_VIEW_BYTES]
    end = part.rfind(b"\n")
    return part[: end + 1] if end > 0 else part


def cut_note(shown: int, size: int, lang: str) -> str:
    """The line under a file shown in part: how much of how much."""
    return say("ui.file_view_cut", lang, shown=f"{shown / MB:.1f} MB", size=f"{size / MB:.1f} MB")


def _lines_page(name: str, text: str, marked: tuple[int, int] | None, lang: str) -> str:
    first, last = marked or (0, -1)
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        css = "line hl" if first <= number <= last else "line"
        rows.append(f'<span class="{css}" id="L{number}"><span class="n">{number}</span>{html.escape(line)}</span>')
    return _page(name, "".join(rows), lang)


def _cells_page(name: str, sections, marked: int | None, lang: str) -> str:
    blocks = []
    for section in sections:
        number = int(section.locator.split()[-1])
        css = "cell hl" if number == marked else "cell"
        blocks.append(
            f'<section class="{css}" id="cell-{number}"><h2>{html.escape(section.locator)}</h2>{html.escape(section.text)}</section>'
        )
    return _page(name, "".join(blocks), lang)


def _page(name: str, body: str, lang: str) -> str:
    return (
        f'<!doctype html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{html.escape(name)}</title>'
        f"<style>{_PAGE_CSS}</style></head><body><header>{html.escape(name)}</header><main>{body}</main></body></html>"
    )


def heading_lines(text: str, locator: str) -> tuple[int, int] | None:
    """(first, last) line of the Markdown section whose heading path is `locator`."""
    from courserag.ingest.parsers.markdown import markdown_headings
    from courserag.ingest.parsers.text import heading_path, path_text

    lines = text.split("\n")
    headings = markdown_headings(lines)
    stack: list[tuple[int, str]] = []
    for position, (first, _, level, title) in enumerate(headings):
        stack = heading_path(stack, level, title)
        if path_text(stack) == locator:
            end = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
            return first + 1, max(first + 1, end)
    return None


def routes(docs_of: DocsOf) -> list:
    """The Starlette route serving course files (for `launch(app_kwargs={"routes": …})`)."""
    from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, RedirectResponse, Response
    from starlette.routing import Route

    from courserag.errors import CourseRagError
    from courserag.ingest.parsers import parse_bytes
    from courserag.ingest.parsers.text import clean, decode_text

    def serve(request) -> Response:
        course_id = request.path_params["course_id"]
        source = request.path_params["source"]
        path = resolve(docs_of(course_id), source)
        if path is None:
            return PlainTextResponse("not found", status_code=404)
        suffix = path.suffix.lower()
        lang = "zh" if request.headers.get("accept-language", "").lower().startswith("zh") else "en"
        if suffix == ".pdf":
            return FileResponse(
                path, media_type="application/pdf", content_disposition_type="inline", filename=path.name
            )
        if suffix in (".docx", ".pptx"):
            return FileResponse(path, filename=path.name)  # attachment: a browser cannot show them
        data = head(path, MAX_VIEW_BYTES + 1)
        whole = len(data) <= MAX_VIEW_BYTES
        if not whole and suffix == ".ipynb":
            return FileResponse(path, filename=path.name)  # its cells cannot be read from a part
        try:
            if suffix == ".ipynb":
                cell = request.query_params.get("cell", "")
                parsed = parse_bytes(data, path.name)
                return HTMLResponse(_cells_page(source, parsed.sections, int(cell) if cell.isdigit() else None, lang))
            shown = data if whole else shown_part(data)
            text = clean(decode_text(shown, path.name)[0])  # numbered as the parser numbered them
        except CourseRagError:
            return PlainTextResponse("this file cannot be shown", status_code=415)
        if not whole:
            note = cut_note(len(shown), path.stat().st_size, lang)
            return PlainTextResponse(text.rstrip("\n") + f"\n\n{note}\n", media_type="text/plain; charset=utf-8")
        heading = request.query_params.get("heading")
        if heading:
            found = heading_lines(text, heading)
            if found:  # relative to this URL, so it also works under a proxy's root path
                target = urllib.parse.quote(path.name)
                return RedirectResponse(f"{target}?lines={found[0]}-{found[1]}#L{found[0]}", status_code=302)
        marked = line_range("lines " + request.query_params.get("lines", ""))
        return HTMLResponse(_lines_page(source, text, marked, lang))

    return [Route(f"/{ROUTE}/{{course_id}}/{{source:path}}", serve, methods=["GET", "HEAD"])]
