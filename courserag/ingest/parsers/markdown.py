"""Markdown: one section per heading, located by its heading path ("Week 5 > AVL rotations").

Text before the first heading becomes "lines A-B" sections. Headings are found with plain
string work (ATX "## Title" and setext "Title" over "===="), never inside fenced code, so a
hostile file cannot make a regex backtrack. `markdown_headings` also serves notebooks.
"""

from __future__ import annotations

from courserag.config.settings import Limits
from courserag.ingest.parsers.text import (
    MAX_HEADING_CHARS,
    Extracted,
    heading_path,
    line_count,
    line_sections,
    path_text,
    read_text,
)
from courserag.records import Section


def _fence(line: str) -> tuple[str, int] | None:
    """("`" or "~", run length) when the line opens or closes a fenced code block."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or stripped[:3] not in ("```", "~~~"):
        return None
    char = stripped[0]
    run = len(stripped) - len(stripped.lstrip(char))
    return char, run


def _atx_heading(line: str) -> tuple[int, str] | None:
    """(level, title) for "## Title ##"-style lines; plain string work, no backtracking."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith("#"):
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[level:]
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    title = rest.strip()
    closed = title.rstrip("#")
    if closed != title and (not closed or closed[-1] in " \t"):
        title = closed.strip()
    return (level, " ".join(title.split())[:MAX_HEADING_CHARS]) if title else None


def _setext_level(line: str) -> int | None:
    stripped = line.strip()
    if len(line) - len(line.lstrip(" ")) > 3 or len(stripped) < 3:
        return None
    if stripped == "=" * len(stripped):
        return 1
    if stripped == "-" * len(stripped):
        return 2
    return None


_NOT_PARAGRAPH = ("    ", "\t", ">", "- ", "* ", "+ ", "|")  # code, quotes, lists, tables


def markdown_headings(lines: list[str]) -> list[tuple[int, int, int, str]]:
    """(first line, last line, level, title) of each heading, ignoring fenced code blocks.

    Setext headings ("Title" over "====") count only when the title is a one-line paragraph,
    so YAML front matter and horizontal rules are not mistaken for headings.
    """
    headings: list[tuple[int, int, int, str]] = []
    fence: tuple[str, int] | None = None
    plain = [False] * len(lines)  # plain paragraph text, a candidate setext title
    for index, line in enumerate(lines):
        marker = _fence(line)
        if fence is not None:
            if marker and marker[0] == fence[0] and marker[1] >= fence[1] and not line.strip().strip(fence[0]):
                fence = None
            continue
        if marker:
            fence = marker
            continue
        atx = _atx_heading(line)
        if atx:
            headings.append((index, index, *atx))
            continue
        level = _setext_level(line)
        if level and index >= 1 and plain[index - 1] and (index == 1 or not lines[index - 2].strip()):
            title = " ".join(lines[index - 1].split())[:MAX_HEADING_CHARS]
            headings.append((index - 1, index, level, title))
            continue
        plain[index] = not level and bool(line.strip()) and not line.startswith(_NOT_PARAGRAPH)
    return headings


def parse_markdown(data: bytes, name: str, limits: Limits) -> Extracted:
    text, warnings = read_text(data, name, limits)
    lines = text.split("\n")
    headings = markdown_headings(lines)
    first_heading = headings[0][0] if headings else len(lines)
    sections = line_sections(lines[:first_heading])
    stack: list[tuple[int, str]] = []
    for position, (_, last, level, title) in enumerate(headings):
        stack = heading_path(stack, level, title)
        end = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
        body = "\n".join(lines[last + 1 : end]).strip("\n")
        if body.strip():
            path = path_text(stack)
            sections.append(Section(text=f"{title}\n{body}", locator=path, heading=path))
    if not sections:  # headings only
        path_lines = [title for _, _, _, title in headings]
        sections = [Section(text="\n".join(path_lines), locator=f"lines 1-{line_count(lines)}")]
    return Extracted(sections, line_count(lines), warnings)
