import pytest

from courserag.chunking import TextPiece, chunk_sections, chunk_text, make_chunks, split_sentences
from courserag.records import Section


@pytest.mark.parametrize(
    "text, expected",
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("第一句。第二句！第三句？第四句；", ["第一句。", "第二句！", "第三句？", "第四句；"]),
        ("Mixed 中文。English after.", ["Mixed 中文。", "English after."]),
        ("no punctuation at all", ["no punctuation at all"]),
        ("", []),
        ("v1.2 stays whole", ["v1.2 stays whole"]),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    "text, target, overlap, max_len, count",
    [
        ("short text", 1400, 150, 1400, 1),
        (("alpha " * 40 + "end.\n\n") * 20, 1400, 150, 1400, 4),
        ("x" * 10_000, 1000, 0, 1000, 10),  # one huge "word": hard split, nothing lost
        ("句子。" * 2000, 1400, 150, 1400, None),
    ],
)
def test_chunk_text_sizes(text, target, overlap, max_len, count):
    chunks = chunk_text(text, target, overlap)
    assert all(len(c) <= max_len for c in chunks)
    if count is not None:
        assert len(chunks) == count
    # Nothing is dropped: every non-space character of the input is in some chunk.
    assert set("".join(chunks).replace("\n", "")) >= set(text.replace("\n", "").replace(" ", "")) - {" "}


def test_chunk_text_overlap_repeats_whole_sentences():
    sentences = [f"Sentence number {i} says something." for i in range(100)]
    chunks = chunk_text(" ".join(sentences), target=300, overlap=80)
    assert len(chunks) > 5
    for previous, current in zip(chunks, chunks[1:]):
        first_line = current.split("\n")[0]
        assert first_line in previous  # the head of each chunk repeats the tail of the last


def test_paragraph_boundaries_come_first():
    text = "Para one is here.\n\nPara two is here.\n\nPara three."
    assert chunk_text(text, target=40, overlap=0) == ["Para one is here.\nPara two is here.", "Para three."]


def test_chunk_text_rejects_bad_target():
    with pytest.raises(ValueError, match="target must be > 0"):
        chunk_text("x", 0)


def test_sections_keep_locator_and_heading():
    sections = [
        Section("Body of grading.", "Syllabus > Grading", "Syllabus > Grading"),
        Section("Page text.", "page 2"),
        Section("   ", "page 3"),
    ]
    pieces = chunk_sections(sections, 1400, 150)
    assert pieces == [
        TextPiece("Syllabus > Grading\nBody of grading.", "Syllabus > Grading"),
        TextPiece("Page text.", "page 2"),
    ]


def test_chunk_ids_are_stable_and_deduplicated():
    pieces = [TextPiece("same", "page 1"), TextPiece("same", "page 1"), TextPiece("other", "page 2")]
    first = make_chunks(pieces, "a.pdf", "course", "c1")
    again = make_chunks(pieces, "a.pdf", "course", "c1")
    assert [c.id for c in first] == [c.id for c in again]
    assert len(first) == 2
    assert make_chunks(pieces, "a.pdf", "course", "c2")[0].id != first[0].id
