"""Each token's character span (courserag/reader/tokens.py): by hand on made-up pieces, then
with the product's own E5 tokenizer on English, Chinese and mixed text."""

from __future__ import annotations

import pytest

from courserag.reader.tokens import normalized_with_sources, token_spans
from training.reader.data import answer_token_span

M = "\u2581"  # the metaspace
TABLE = {ord("\uff0c"): ",", ord("\ufb01"): "fi", 0x0B: "", ord("\t"): " "}


@pytest.mark.parametrize(
    ("text", "pieces", "spans"),
    [
        ("Hello world", [f"{M}Hello", f"{M}world"], [(0, 5), (6, 11)]),
        # runs of spaces are one metaspace; a tab is a space
        ("Hello \t world", [f"{M}Hello", f"{M}world"], [(0, 5), (8, 13)]),
        # a space in front is not added twice; a lone metaspace gets the empty span at its space
        (" 2008", [M, "2008"], [(0, 0), (1, 5)]),
        # the metaspace put in front of a Chinese text stands at 0
        ("北京是中国的首都", [M, "北京", "是中国", "的", "首都"], [(0, 0), (0, 2), (2, 5), (5, 6), (6, 8)]),
        # a character the table folds ("，" -> ",") keeps its own place
        ("首都，人口", [M, "首都", ",", "人口"], [(0, 0), (0, 2), (2, 3), (3, 5)]),
        # one character that becomes two ("ﬁ" -> "fi"), split across tokens
        ("ﬁrst", [f"{M}f", "irst"], [(0, 1), (0, 4)]),
        # a character the table deletes belongs to no token
        ("a\x0bb", [f"{M}ab"], [(0, 3)]),
        # an unknown character (None) covers one character
        ("x☃y", [f"{M}x", None, "y"], [(0, 1), (1, 2), (2, 3)]),
        ("", [M], [(0, 0)]),
    ],
)
def test_token_spans(text, pieces, spans):
    assert token_spans(text, pieces, TABLE) == spans


def test_pieces_that_do_not_spell_the_text_are_an_error():
    with pytest.raises(ValueError, match="does not match"):
        token_spans("Hello world", [f"{M}Hello", f"{M}there"], TABLE)
    with pytest.raises(ValueError, match="cover"):
        token_spans("Hello world", [f"{M}Hello"], TABLE)


def test_normalized_text_and_sources():
    normalized, sources = normalized_with_sources("a  ﬁ", TABLE)
    assert normalized == f"{M}a{M}fi"
    assert sources == [None, 0, 1, 3, 3]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The earthquake in Sichuan occurred in 2008, killing thousands.", "2008"),
        ("Mother-to-child transmission (MTCT) is the main cause.", "Mother-to-child transmission"),
        ("The ﬁrst lecture is in room LH-1 on Monday.", "LH-1"),
        ("北京是中国的首都，人口２１００万。", "首都"),
        ("北京是中国的首都，人口２１００万。", "２１００万"),
        ("夜柔吠陀與阿闥婆吠陀均可以最為研究梵語的參考。", "梵語"),
        ("C++ 和 Python3 在 CSC3100 里讲授。", "CSC3100"),
        ("Office hours:\tTuesday  3-5 pm\u3000in 教学楼 A201.", "教学楼 A201"),
    ],
)
def test_the_product_tokenizer_s_tokens_cover_their_text(reader_tokenizer, text, answer):
    """The ids are the product's, the spans tile the text in order, and an answer's tokens
    cover the answer (a Chinese token may hold more characters than the answer)."""
    encoded = reader_tokenizer.encode(text)
    assert list(encoded.ids) == reader_tokenizer.tokenizer.ids(text)
    starts = [s for s, e in encoded.spans if s < e]
    assert starts == sorted(starts)
    start = text.index(answer)
    first, last = answer_token_span(encoded.spans, start, start + len(answer))
    covered = text[encoded.spans[first][0] : encoded.spans[last][1]]
    assert answer in covered
    assert len(covered) <= len(answer) + 4
