"""Parse-time text cleaning (courserag/ingest/parsers/cleanup.py), per-chunk line ranges
(courserag/ingest/chunking.py) and the warnings for what Word and PowerPoint files held that is not
read (courserag/ingest/parsers/office.py)."""

from __future__ import annotations

import io

import pytest

from courserag.ingest.chunking import approximate_tokens, chunk_locator, chunk_sections
from courserag.ingest.parsers.cleanup import (
    clean_pages,
    fix_ligatures,
    hyphenated_words,
    join_hyphenated,
    strip_running_lines,
)
from courserag.records import Section


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("de\ufb01nition", "definition"),
        ("\ufb02ow and \ufb00ect", "flow and ffect"),
        ("e\ufb03cient, ba\ufb04e", "efficient, baffle"),
        ("no ligature here", "no ligature here"),
    ],
)
def test_ligatures_become_letters(raw, clean):
    assert fix_ligatures(raw) == clean


@pytest.mark.parametrize(
    ("raw", "keep", "joined"),
    [
        ("the func-\ntion returns", frozenset(), "the function\nreturns"),
        ("the func- \n  tion returns", frozenset(), "the function\nreturns"),
        ("a well-\nknown result", frozenset({"well-known"}), "a well-known\nresult"),
        ("CSC-\n3100", frozenset(), "CSC-\n3100"),  # not lower-case letters on both sides
        ("an en dash -\nthen more", frozenset(), "an en dash -\nthen more"),
        ("Hash-\nTable", frozenset(), "Hash-\nTable"),  # a capital after the break: a compound name
    ],
)
def test_words_broken_across_lines_are_joined(raw, keep, joined):
    assert join_hyphenated(raw, keep) == joined


def test_hyphenated_words_written_on_one_line_are_kept():
    assert hyphenated_words(["A well-known trick.", "Self-balancing trees"]) == frozenset(
        {"well-known", "self-balancing"}
    )


HEADER = "CSC3100 Lecture Notes - Week 3"
BODIES = [
    "Hashing maps keys to buckets.\nCollisions are chained.",
    "Open addressing probes the table.\nDeleted slots keep a tombstone.",
    "Load factor counts keys per bucket.\nAbove it the table grows.",
    "Cuckoo hashing uses two tables.\nEach key has two homes.",
]


@pytest.mark.parametrize(
    ("pages", "expected"),
    [
        # a running header and a "Page N of M" footer on every page
        ([f"{HEADER}\n{BODIES[n - 1]}\nPage {n} of 4" for n in range(1, 5)], BODIES),
        # bare page numbers at the bottom, "第 N 页" at the top
        ([f"{body}\n{n}" for n, body in enumerate(BODIES, 1)], BODIES),
        ([f"第 {n} 页\n{body}" for n, body in enumerate(BODIES, 1)], BODIES),
        # the same line in the middle of pages is text, not a running line
        (
            [f"{b}\nSee the table below.\n{b.upper()}" for b in BODIES],
            [f"{b}\nSee the table below.\n{b.upper()}" for b in BODIES],
        ),
        # seen on fewer than half of the pages: kept
        ([f"{HEADER}\n{BODIES[0]}", *BODIES[1:]], [f"{HEADER}\n{BODIES[0]}", *BODIES[1:]]),
        # a page that is only running lines keeps its text
        ([HEADER, f"{HEADER}\nReal text.", f"{HEADER}\nMore text."], [HEADER, "Real text.", "More text."]),
    ],
)
def test_running_headers_and_footers_are_removed(pages, expected):
    assert strip_running_lines(pages) == expected


def test_clean_pages_does_all_three_in_order():
    words = ["open", "closed", "cuckoo"]
    pages = [f"{HEADER}\nThe {w} hash func-\ntion is de\ufb01ned by {w}.\n{n}" for n, w in enumerate(words, 1)]
    assert clean_pages(pages) == [f"The {w} hash function\nis defined by {w}." for w in words]


def test_a_pdf_is_cleaned_when_parsed():
    import docgen
    from courserag.ingest.parsers import parse_bytes

    animals = ["quokka", "numbat", "bilby"]
    pages = [f"{HEADER}\nThe {a} proto-\ncol needs many {a} handshakes." for a in animals]
    doc = parse_bytes(docgen.pdf_bytes(pages), "notes.pdf")
    assert [s.text for s in doc.sections] == [f"The {a} protocol\nneeds many {a} handshakes." for a in animals]


@pytest.mark.parametrize(
    ("locator", "start", "end", "expected"),
    [
        ("lines 41-100", 0, 5, "lines 41-41"),
        ("lines 41-100", 6, 20, "lines 42-44"),  # body "line0\nline1\nline2\n…": offset 19 is on line3
        ("page 3", 6, 20, "page 3"),
        ("Week 5 > Heaps", 0, 3, "Week 5 > Heaps"),
    ],
)
def test_chunk_locator_gives_a_chunk_its_own_lines(locator, start, end, expected):
    body = "line0\nline1\nline2\nline3\nline4"
    assert chunk_locator(locator, body, start, end) == expected


def test_two_chunks_of_one_text_section_cite_different_lines():
    lines = [
        f"Line {n}: the capybara ledger records entry {n} of the census in considerable detail." for n in range(1, 41)
    ]
    pieces = chunk_sections([Section("\n".join(lines), "lines 11-50")], approximate_tokens, 120, 0)
    ranges = [tuple(map(int, p.locator.split()[1].split("-"))) for p in pieces]
    assert len(pieces) > 2 and ranges[0][0] == 11 and ranges[-1][1] == 50
    assert all(a <= b for a, b in ranges) and len(set(ranges)) == len(ranges)
    for piece, (first, last) in zip(pieces, ranges):  # the range starts and ends where the chunk does
        assert piece.text.split("\n")[0] in lines[first - 11] and piece.text.split("\n")[-1] in lines[last - 11]


def _png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "navy").save(buffer, format="PNG")
    return buffer.getvalue()


PNG = _png()


def _docx_with(equations: int, pictures: int) -> bytes:
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    document.add_paragraph("Text about the energy of a moving cart.")
    for _ in range(equations):
        paragraph = document.add_paragraph()
        paragraph._p.append(
            parse_xml(
                '<m:oMathPara xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
                "<m:oMath><m:r><m:t>E=mc2</m:t></m:r></m:oMath></m:oMathPara>"
            )
        )
    for _ in range(pictures):
        document.add_picture(io.BytesIO(PNG))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("equations", "pictures", "en", "zh"),
    [
        (0, 0, [], []),
        (1, 0, [], []),  # equations are read as LaTeX now (test_omml.py), so none is left out
        (2, 3, ["3 images were left out: only text is read"], ["有 3 张图片被略去：只读取文字"]),
    ],
)
def test_word_files_say_what_was_left_out(equations, pictures, en, zh):
    from courserag.ingest.parsers import parse_bytes

    doc = parse_bytes(_docx_with(equations, pictures), "physics.docx")
    assert [w.text("en") for w in doc.warnings] == en
    assert [w.text("zh") for w in doc.warnings] == zh
    assert " ".join(s.text for s in doc.sections).count("$$E=mc2$$") == equations


def test_slides_say_how_many_pictures_were_left_out():
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Graphs"
    slide.shapes.add_picture(io.BytesIO(PNG), Inches(1), Inches(1))
    buffer = io.BytesIO()
    deck.save(buffer)
    from courserag.ingest.parsers import parse_bytes

    doc = parse_bytes(buffer.getvalue(), "graphs.pptx")
    assert [w.text("en") for w in doc.warnings] == ["1 image was left out: only text is read"]
