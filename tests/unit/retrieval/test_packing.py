import pytest

from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.packing import MIN_USEFUL_TOKENS, citation_dict, format_citation_line, pack_context, snippet


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def count(text: str) -> int:
    return len(text.split())


def truncate(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def hit(n_words: int, name: str = "a.pdf", origin: str = "course") -> ScoredChunk:
    chunk = Chunk.make(words(n_words), name, "page 1", origin, "c1" if origin == "course" else None)
    return ScoredChunk(chunk, vector=0.5, score=0.5, store="local")


@pytest.mark.parametrize(
    "sizes, per_chunk, budget, expected_tokens",
    [
        ([100, 100, 100], 500, 2000, [100, 100, 100]),
        ([800, 100], 500, 2000, [500, 100]),  # each chunk cut to the per-chunk limit
        ([500, 500, 500, 500, 500], 500, 2000, [500, 500, 500, 500]),  # budget stops the fifth
        ([500, 500, 500, 480], 500, 1800, [500, 500, 500, 300]),  # the last is shortened to fit
        ([500, 500, 500, 480], 500, 1500 + MIN_USEFUL_TOKENS - 1, [500, 500, 500]),  # too little room left
        ([], 500, 2000, []),
    ],
)
def test_pack_context(sizes, per_chunk, budget, expected_tokens):
    items = pack_context([hit(s) for s in sizes], count, truncate, per_chunk, budget)
    assert [i.tokens for i in items] == expected_tokens
    assert [count(i.text) for i in items] == expected_tokens
    assert [i.n for i in items] == list(range(1, len(items) + 1))
    assert sum(i.tokens for i in items) <= budget


def test_pack_context_rejects_bad_limits():
    with pytest.raises(ValueError):
        pack_context([], count, truncate, 0, 10)


def test_citation_contract():
    item = pack_context([hit(10, "notes.docx", "upload")], count, truncate)[0]
    data = citation_dict(item)
    assert set(data) >= {"n", "source", "locator", "origin", "course_id", "score", "text"}
    assert data["origin"] == "upload" and data["course_id"] is None and data["n"] == 1
    assert format_citation_line(item) == "[1] notes.docx, page 1 (your notes)"


def test_snippet_is_one_line_and_bounded():
    assert snippet("a\n b   c") == "a b c"
    assert len(snippet("x" * 1000, 50)) == 50
