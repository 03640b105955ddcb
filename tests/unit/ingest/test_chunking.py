import pytest

from courserag.ingest.chunking import (
    TextPiece,
    approximate_tokens,
    chunk_sections,
    chunk_text,
    make_chunks,
    split_sentences,
)
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


def words(text: str) -> int:
    """A stand-in tokenizer: one token per whitespace-separated word."""
    return len(text.split())


@pytest.mark.parametrize(
    "text, target, overlap, count",
    [
        ("short text", 300, 40, 1),
        (("alpha " * 40 + "end.\n\n") * 20, 300, 40, 4),
        ("x" * 10_000, 100, 0, None),  # one huge "word": hard split, nothing lost
        ("句子。" * 2000, 300, 40, None),
    ],
)
def test_chunk_text_sizes(text, target, overlap, count):
    chunks = chunk_text(text, approximate_tokens, target, overlap)
    assert all(approximate_tokens(c) <= target + 2 for c in chunks)
    if count is not None:
        assert len(chunks) == count
    # Nothing is dropped: every non-space character of the input is in some chunk.
    assert set("".join(chunks).replace("\n", "")) >= set(text.replace("\n", "").replace(" ", "")) - {" "}


@pytest.mark.parametrize(
    "text, per_chunk",
    [
        ("The late policy applies to every homework. " * 100, 320),  # ~8 tokens a sentence
        ("迟交作业每天扣百分之十的分数。" * 200, 320),  # a Chinese character is about one token
    ],
)
def test_chunks_are_sized_in_tokens_in_both_languages(text, per_chunk):
    chunks = chunk_text(text, approximate_tokens, per_chunk, 0)
    assert len(chunks) >= 2
    assert all(per_chunk * 0.7 <= approximate_tokens(c) <= per_chunk + 2 for c in chunks[:-1])


def test_chunk_text_overlap_repeats_whole_sentences():
    sentences = [f"Sentence number {i} says something." for i in range(100)]
    chunks = chunk_text(" ".join(sentences), words, target=60, overlap=15)
    assert len(chunks) > 5
    for previous, current in zip(chunks, chunks[1:]):
        first_sentence = current.split(". ")[0] + "."
        assert first_sentence in previous  # the head of each chunk repeats the tail of the last


def test_paragraph_boundaries_come_first():
    text = "Para one is here.\n\nPara two is here.\n\nPara three."
    # A blank line still separates the paragraphs inside a chunk.
    assert chunk_text(text, words, target=10, overlap=0) == ["Para one is here.\n\nPara two is here.", "Para three."]


def test_a_table_cut_across_chunks_repeats_its_header():
    rows = "\n".join(f"| HW{i} | due week {i} |" for i in range(30))
    chunks = chunk_text("| Homework | Due |\n|---|---|\n" + rows, words, target=40, overlap=0)
    assert len(chunks) > 2
    assert all(c.startswith("| Homework | Due |\n|---|---|") for c in chunks)
    assert sum(c.count("| HW") for c in chunks) == 30


def test_chunk_text_rejects_bad_target():
    with pytest.raises(ValueError, match="target must be > 0"):
        chunk_text("x", words, 0)


def test_sections_keep_locator_and_heading():
    sections = [
        Section("Body of grading.", "Syllabus > Grading", "Syllabus > Grading"),
        Section("Page text.", "page 2"),
        Section("   ", "page 3"),
    ]
    pieces = chunk_sections(sections, words, 300, 40)
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
