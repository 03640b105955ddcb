"""courserag.ingest.parsers on good files: every format, its locators, its text, its encodings.

Every input is a real file generated at test time by docgen (fpdf2, python-docx,
python-pptx, json), parsed through the public API only.
"""

from __future__ import annotations

import json
import re

import pytest

import docgen as gen
from courserag.config.settings import Limits
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS, ParsedDocument, parse_bytes, parse_file


def locators(doc: ParsedDocument) -> list[str]:
    return [section.locator for section in doc.sections]


def line_range(locator: str) -> tuple[int, int]:
    match = re.fullmatch(r"lines (\d+)-(\d+)", locator)
    assert match, locator
    return int(match.group(1)), int(match.group(2))


def test_supported_extensions_are_the_documented_set():
    assert SUPPORTED_EXTENSIONS == frozenset({".pdf", ".docx", ".pptx", ".md", ".markdown", ".txt", ".py", ".ipynb"})


# --------------------------------------------------------------------------- PDF


def test_pdf_has_one_section_per_page_numbered_from_one(tmp_path):
    pages = [f"Lecture page {n}: binary search trees, part {n}." for n in range(1, 6)]
    path = gen.write(tmp_path, "lecture.pdf", gen.pdf_bytes(pages))

    doc = parse_file(path)

    assert doc.name == "lecture.pdf"
    assert doc.doc_type == "pdf"
    assert doc.units == 5
    assert locators(doc) == [f"page {n}" for n in range(1, 6)]
    for n, section in enumerate(doc.sections, 1):
        assert f"Lecture page {n}: binary search trees, part {n}." in " ".join(section.text.split())
    assert doc.warnings == []


def test_pdf_pages_without_text_are_skipped_and_listed_in_a_warning():
    data = gen.pdf_bytes(["Intro to heaps.", None, "Heapify.", None, None, "Heap sort."])

    doc = parse_bytes(data, "heaps.pdf")

    assert locators(doc) == ["page 1", "page 3", "page 6"]
    assert doc.units == 6
    assert [str(w) for w in doc.warnings] == ["pages 2, 4-5 have no text layer (scanned?)"]


@pytest.mark.skipif(not gen.CJK_FONT.exists(), reason="no CJK font at " + str(gen.CJK_FONT))
def test_chinese_pdf_text_is_extracted():
    data = gen.pdf_bytes(["平衡二叉树的旋转操作。", "第二页：红黑树与哈希表。"], cjk_font=gen.CJK_FONT)

    doc = parse_bytes(data, "数据结构.pdf")

    assert doc.name == "数据结构.pdf"
    assert locators(doc) == ["page 1", "page 2"]
    assert "平衡二叉树的旋转操作" in doc.sections[0].text
    assert "红黑树与哈希表" in doc.sections[1].text


def test_pdf_text_over_the_budget_is_cut_with_a_warning():
    data = gen.pdf_bytes(["A" * 50 + " first page", "B" * 50 + " second page", "C" * 50 + " third page"])

    doc = parse_bytes(data, "long.pdf", Limits(max_text_chars=80))

    assert sum(len(s.text) for s in doc.sections) == 80
    assert locators(doc) == ["page 1", "page 2"]
    assert doc.units == 2
    assert [str(w) for w in doc.warnings] == ["the text was cut at 80 characters; the rest of the file was not read"]


# --------------------------------------------------------------------------- DOCX


def test_docx_sections_follow_the_heading_path_and_include_tables():
    data = gen.docx_bytes(
        [
            ("p", "Course handbook, read first."),
            ("h1", "Week 5"),
            ("p", "Balanced search trees."),
            ("h2", "AVL rotations"),
            ("p", "A left rotation fixes a right-heavy node."),
            ("table", [["Operation", "Cost"], ["insert", "O(log n)"]]),
            ("h3", "Double rotations"),
            ("p", "Left-right and right-left cases."),
            ("h1", "Week 6"),
            ("h2", "Heaps"),
            ("merged", [["Heap operations", "", ""], ["push", "pop", "peek"]]),
        ]
    )

    doc = parse_bytes(data, "handbook.docx")

    assert doc.doc_type == "docx"
    assert locators(doc) == [
        "paragraphs 1-1",
        "Week 5",
        "Week 5 > AVL rotations",
        "Week 5 > AVL rotations > Double rotations",
        "Week 6 > Heaps",
    ]
    by_locator = {s.locator: s for s in doc.sections}
    assert by_locator["paragraphs 1-1"].text == "Course handbook, read first."
    assert by_locator["paragraphs 1-1"].heading == ""
    avl = by_locator["Week 5 > AVL rotations"]
    assert avl.heading == "Week 5 > AVL rotations"
    assert avl.text == "AVL rotations\nA left rotation fixes a right-heavy node.\nOperation | Cost\ninsert | O(log n)"
    # A merged cell appears once, not once per column it spans.
    assert by_locator["Week 6 > Heaps"].text == "Heaps\nHeap operations\npush | pop | peek"
    assert doc.units == 11


def test_docx_without_headings_is_split_into_paragraph_ranges():
    paragraphs = [f"Paragraph {n}." + " Amortised analysis of dynamic arrays." * 40 for n in range(1, 21)]
    data = gen.docx_bytes([("p", text) for text in paragraphs])

    doc = parse_bytes(data, "notes.docx")

    assert len(doc.sections) > 1
    expected_start = 1
    for section in doc.sections:
        match = re.fullmatch(r"paragraphs (\d+)-(\d+)", section.locator)
        assert match, section.locator
        start, end = int(match.group(1)), int(match.group(2))
        assert start == expected_start and end >= start
        assert section.text.split("\n") == paragraphs[start - 1 : end]
        expected_start = end + 1
    assert expected_start == 21


# --------------------------------------------------------------------------- PPTX


def test_pptx_has_one_section_per_slide_with_title_body_table_and_notes():
    data = gen.pptx_bytes(
        [
            {
                "title": "Hash tables",
                "body": ["Separate chaining", "Open addressing"],
                "notes": "Mention the load factor.",
            },
            {},  # a picture-only slide
            {"title": "Costs", "body": ["Expected O(1)"], "table": [["op", "avg"], ["find", "O(1)"]]},
        ]
    )

    doc = parse_bytes(data, "week7.pptx")

    assert doc.doc_type == "pptx"
    assert doc.units == 3
    assert locators(doc) == ["slide 1", "slide 3"]
    first, third = doc.sections
    assert first.heading == "Hash tables"
    assert first.text == "Hash tables\nSeparate chaining\nOpen addressing\nNotes: Mention the load factor."
    assert third.heading == "Costs"
    assert third.text == "Costs\nExpected O(1)\nop | avg\nfind | O(1)"
    assert [str(w) for w in doc.warnings] == ["slide 2 has no text (images only?)"]


# --------------------------------------------------------------------------- Markdown

MARKDOWN = """\
Preface text before any heading.

# Week 5
Trees are recursive.

```python
# not a heading: a comment in a fenced block
def height(node):
    return 0
```

## AVL rotations ##
Rotate left when the balance factor is -2.

~~~
## also not a heading
~~~

### Double rotation
LR and RL cases.

# Week 6
Heaps.

Priority queues
---------------
Binary heap as an array.
"""


def test_markdown_heading_paths_ignore_hashes_inside_fenced_code():
    doc = parse_bytes(MARKDOWN.encode("utf-8"), "notes.md")

    assert doc.doc_type == "md"
    assert locators(doc) == [
        "lines 1-1",
        "Week 5",
        "Week 5 > AVL rotations",
        "Week 5 > AVL rotations > Double rotation",
        "Week 6",
        "Week 6 > Priority queues",
    ]
    by_locator = {s.locator: s for s in doc.sections}
    week5 = by_locator["Week 5"]
    assert week5.heading == "Week 5"
    assert "# not a heading: a comment in a fenced block" in week5.text
    assert "## also not a heading" in by_locator["Week 5 > AVL rotations"].text
    assert by_locator["Week 6 > Priority queues"].text == "Priority queues\nBinary heap as an array."
    assert doc.units == MARKDOWN.count("\n")


def test_markdown_front_matter_and_rules_are_not_headings():
    text = "---\ntitle: Notes\n---\n\nSome text.\n\n---\n\nMore text.\n"

    doc = parse_bytes(text.encode(), "front.markdown")

    assert locators(doc) == ["lines 1-9"]
    assert doc.sections[0].text == text.strip()


# --------------------------------------------------------------------------- notebooks


def test_notebook_cells_with_outputs_headings_and_truncation():
    huge = "x" * 200_000
    data = gen.notebook_bytes(
        [
            {"markdown": "# Lab 3\nSorting algorithms.\n![plot](data:image/png;base64,iVBORw0KGgo" + "A" * 5000 + ")"},
            {"code": "print('hello')", "outputs": [gen.stream_output("hello\n")]},
            {"code": "", "outputs": []},
            {"markdown": "## Merge sort"},
            {"code": "plot()", "outputs": [gen.image_output()]},
            {"code": "1/0", "outputs": [gen.error_output("ZeroDivisionError", "division by zero")]},
            {"code": "print(big)", "outputs": [gen.stream_output(huge)]},
        ]
    )

    doc = parse_bytes(data, "lab3.ipynb")

    assert doc.doc_type == "ipynb"
    assert doc.units == 7
    assert locators(doc) == ["cell 1", "cell 2", "cell 4", "cell 5", "cell 6", "cell 7"]
    sections = {s.locator: s for s in doc.sections}
    assert sections["cell 1"].heading == "Lab 3"
    assert "[image]" in sections["cell 1"].text and "iVBOR" not in sections["cell 1"].text
    assert sections["cell 2"].text == "print('hello')\n\nOutput:\nhello"
    assert sections["cell 5"].heading == "Lab 3 > Merge sort"
    assert sections["cell 5"].text == "plot()\n\nOutput:\n<Figure size 640x480 with 1 Axes>"
    assert sections["cell 6"].text == "1/0\n\nOutput:\nZeroDivisionError: division by zero"
    assert len(sections["cell 7"].text) < 2200
    assert sections["cell 7"].text.endswith("… [output truncated]")
    assert [str(w) for w in doc.warnings] == ["cell 7 had a long output, which was cut"]


# --------------------------------------------------------------------------- PY and TXT


def python_source(functions: int = 12) -> str:
    blocks = ['"""Sorting helpers for lab 3."""', "import math"]
    for n in range(functions):
        body = "\n".join(f"    total += math.sqrt({i} * value)  # step {i}" for i in range(8))
        blocks.append(f"def helper_{n}(value):\n    total = 0\n{body}\n    return total")
    blocks.append("class Sorter:\n    def sort(self, items):\n        return sorted(items)")
    return "\n\n\n".join(blocks) + "\n"


def assert_line_sections_cover(doc: ParsedDocument, lines: list[str]) -> None:
    """Sections are in order, do not overlap, are <= 60 lines and hold every non-blank line."""
    previous_end = 0
    covered: list[str] = []
    for section in doc.sections:
        start, end = line_range(section.locator)
        assert previous_end < start <= end
        assert end - start + 1 <= 60
        assert section.text == "\n".join(lines[start - 1 : end])
        covered.extend(lines[start - 1 : end])
        previous_end = end
    assert [line for line in covered if line.strip()] == [line for line in lines if line.strip()]


def test_python_file_is_cut_into_line_ranges_at_definitions():
    source = python_source()
    doc = parse_bytes(source.encode(), "sorting.py")

    lines = source.split("\n")
    assert doc.doc_type == "py"
    assert doc.units == len(lines) - 1
    assert len(doc.sections) >= 3
    assert_line_sections_cover(doc, lines)
    for section in doc.sections[1:]:
        definition = re.match(r"(def|class) \w+", section.text)
        assert definition, section.text[:40]
        assert section.heading == definition.group(0)
    for section in doc.sections[:-1]:
        start, end = line_range(section.locator)
        assert end - start + 1 >= 40


def test_text_file_is_cut_into_line_ranges_at_blank_lines():
    paragraphs = ["\n".join(f"Paragraph {p} line {i} about graphs." for i in range(7)) for p in range(30)]
    text = "\n\n".join(paragraphs) + "\n"

    doc = parse_bytes(text.encode(), "readings.txt")

    lines = text.split("\n")
    assert doc.doc_type == "txt"
    assert_line_sections_cover(doc, lines)
    for section in doc.sections:
        assert section.text.startswith("Paragraph ") and section.text.split("\n")[0].endswith("line 0 about graphs.")


CHINESE = "第五周：平衡二叉树。\nAVL 树的旋转操作包括左旋和右旋。\n红黑树与哈希表将在第六周讲解。\n"


@pytest.mark.parametrize(
    ("encoding", "prefix"),
    [
        ("utf-8", b""),
        ("utf-8", b"\xef\xbb\xbf"),  # UTF-8 with BOM, as Windows Notepad saves it
        ("gb18030", b""),
        ("gbk", b""),
        ("utf-16-le", b"\xff\xfe"),
    ],
    ids=["utf8", "utf8-bom", "gb18030", "gbk", "utf16-bom"],
)
@pytest.mark.parametrize("extension", [".txt", ".md", ".py"])
def test_chinese_text_files_are_decoded(encoding, prefix, extension):
    data = prefix + CHINESE.encode(encoding)

    doc = parse_bytes(data, f"第五周{extension}")

    assert len(doc.sections) == 1
    assert doc.sections[0].text == CHINESE.strip()
    assert "\ufeff" not in doc.sections[0].text
    assert doc.warnings == []
    assert doc.units == 3


def test_windows_1252_text_is_read_with_a_warning():
    text = "The \u201cmaster theorem\u201d \u2014 a r\u00e9sum\u00e9 of divide and conquer.\n" * 5

    doc = parse_bytes(text.encode("cp1252"), "western.txt")

    assert doc.sections[0].text == text.strip()
    assert [str(w) for w in doc.warnings] == ["the file is not UTF-8; it was read as Windows-1252"]


def test_crlf_newlines_and_ansi_colours_are_cleaned():
    doc = parse_bytes(b"first line\r\n\x1b[31msecond\x1b[0m line\r\nthird\r\n", "log.txt")

    assert doc.sections[0].text == "first line\nsecond line\nthird"
    assert locators(doc) == ["lines 1-3"]


def test_parse_file_and_parse_bytes_agree_and_display_name_wins(tmp_path):
    data = gen.notebook_bytes([{"markdown": "# Intro"}, {"code": "x = 1"}])
    path = gen.write(tmp_path, "tmp3kd8s.ipynb", data)

    from_file = parse_file(path, display_name="uploads/Lab 1.ipynb")

    assert from_file.name == "Lab 1.ipynb"
    assert from_file == parse_bytes(data, "Lab 1.ipynb")


def test_text_over_the_budget_is_cut_with_a_warning():
    doc = parse_bytes(("word " * 1000).encode(), "big.txt", Limits(max_text_chars=100))

    assert sum(len(s.text) for s in doc.sections) <= 100
    assert [str(w) for w in doc.warnings] == ["the text was cut at 100 characters; the rest of the file was not read"]


def test_notebook_json_lines_and_whitespace_do_not_matter():
    notebook = json.loads(gen.notebook_bytes([{"markdown": "Only cell"}]))
    data = json.dumps(notebook, indent=4).encode()

    assert locators(parse_bytes(data, "pretty.ipynb")) == ["cell 1"]


@pytest.mark.parametrize(
    "text, expected",
    [
        # A full-width wrapped line is rejoined; a short title line is not.
        ("标题\n" + "很长的一行中文" * 6 + "\n继续这一句。", "标题\n" + "很长的一行中文" * 6 + "继续这一句。"),
        ("第一行。\n第二行。", "第一行。\n第二行。"),
        ("English line that wraps\nnext line", "English line that wraps\nnext line"),
        ("", ""),
    ],
)
def test_pdf_cjk_line_joining(text, expected):
    from courserag.ingest.parsers.pdf import _join_cjk_lines

    assert _join_cjk_lines(text) == expected
