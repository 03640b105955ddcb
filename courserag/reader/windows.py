"""Question + passage windows, the reader's input (pure functions).

The reader reads one window at a time:

    <s> query: QUESTION </s> </s> passage: PASSAGE_TOKENS[start : start + room] </s>

the question cut to `max_question_tokens`, the passage cut into windows of `room` tokens
whose starts are `stride` tokens apart (the last window reaches the passage's end), so an
answer near one window's edge lies whole inside the next. The prefixes are the ones E5 was
trained with (courserag/embedders/e5_tokenizer.py), so its layers see input they know.
Training (training/reader/data.py) labels these windows; the product reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from courserag.embedders.e5_tokenizer import PASSAGE_PREFIX, QUERY_PREFIX
from courserag.reader.tokens import Tokenized

SPECIAL_TOKENS = 4  # <s>, </s> </s> between question and passage, </s> at the end


@dataclass(frozen=True)
class WindowConfig:
    """Window size and how far apart windows start: `stride` tokens (training), or, given
    `overlap`, so that neighbouring windows share that many tokens (reading: each token is read
    about once, where a stride of half a window reads it twice)."""

    max_tokens: int = 256
    stride: int = 128
    max_question_tokens: int = 64
    overlap: int | None = None

    def __post_init__(self):
        if self.stride <= 0:
            raise ValueError(f"stride must be > 0, but got {self.stride}")
        if self.overlap is not None and self.overlap < 0:
            raise ValueError(f"overlap must be >= 0, but got {self.overlap}")
        if self.max_question_tokens <= 0:
            raise ValueError(f"max_question_tokens must be > 0, but got {self.max_question_tokens}")
        if self.max_tokens > 512:
            raise ValueError(f"max_tokens must be <= 512 (E5's positions), but got {self.max_tokens}")


@dataclass(frozen=True)
class Special:
    """The ids the layout needs (from the tokenizer): <s>, </s>, and the two prefixes' ids."""

    bos: int
    eos: int
    query_prefix: tuple[int, ...]
    passage_prefix: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Window:
    """One row for the model: passage token k of the window sits at `passage_at + k` of
    `input_ids` and is token `window_start + k` of the passage."""

    input_ids: np.ndarray  # int32
    passage_at: int
    window_start: int
    window_len: int


def window_starts(n_tokens: int, room: int, stride: int) -> list[int]:
    """Starts of the windows over `n_tokens` passage tokens: 0, stride, 2 * stride, ... up to
    the first window that reaches the end. One window (start 0) when the passage fits."""
    if room <= 0:
        raise ValueError(f"room must be > 0, but got {room}")
    if stride <= 0:
        raise ValueError(f"stride must be > 0, but got {stride}")
    starts = [0]
    while starts[-1] + room < n_tokens:
        starts.append(starts[-1] + stride)
    return starts


def question_ids(ids: Sequence[int], special: Special, config: WindowConfig) -> list[int]:
    """The question's part of every window: the query prefix and the question, cut."""
    return [*special.query_prefix, *ids][: config.max_question_tokens]


def passage_room(n_question: int, special: Special, config: WindowConfig) -> int:
    room = config.max_tokens - SPECIAL_TOKENS - n_question - len(special.passage_prefix)
    if room <= 0:
        raise ValueError(
            f"max_tokens {config.max_tokens} leaves no room for the passage after {n_question} question tokens"
        )
    return room


def windows(question: Sequence[int], passage: Tokenized, special: Special, config: WindowConfig) -> list[Window]:
    """The windows of one question (its content ids, without the prefix) over a passage."""
    q = question_ids(question, special, config)
    room = passage_room(len(q), special, config)
    head = [special.bos, *q, special.eos, special.eos, *special.passage_prefix]
    out = []
    stride = config.stride if config.overlap is None else max(1, room - config.overlap)
    for start in window_starts(len(passage.ids), room, stride):
        window = passage.ids[start : start + room]
        out.append(Window(np.array([*head, *window, special.eos], dtype=np.int32), len(head), start, len(window)))
    return out


def special_ids(tokenizer) -> Special:
    """The layout's ids from a ReaderTokenizer (the prefixes tokenized as the product does:
    courserag/embedders/e5.py `_prefix_tokens`)."""
    return Special(
        tokenizer.bos,
        tokenizer.eos,
        tuple(tokenizer.ids(QUERY_PREFIX.strip())),
        tuple(tokenizer.ids(PASSAGE_PREFIX.strip())),
    )
