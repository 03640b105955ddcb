"""Question + passage windows and their answer spans in tokens (pure functions).

The reader reads one window at a time:

    <s> query: QUESTION </s> </s> passage: PASSAGE_TOKENS[start : start + room] </s>

the question cut to `max_question_tokens`, the passage cut into windows of `room` tokens
whose starts are `stride` tokens apart (the last window reaches the passage's end), so an
answer near one window's edge lies whole inside the next. The prefixes are the ones E5 was
trained with (courserag/embedders/e5_tokenizer.py), so the frozen layers see the input they
know. A window that holds the whole of the (first) answer is labelled with its first and last
token; any other window, and every window of a question the passage does not answer, is
unanswerable (start = end = 0, the <s> token, and `answerable` false).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from courserag.embedders.e5_tokenizer import PASSAGE_PREFIX, QUERY_PREFIX
from training.reader.tokens import Span, Tokenized

SPECIAL_TOKENS = 4  # <s>, </s> </s> between question and passage, </s> at the end


@dataclass(frozen=True)
class WindowConfig:
    max_tokens: int = 256
    stride: int = 128
    max_question_tokens: int = 64

    def __post_init__(self):
        if self.stride <= 0:
            raise ValueError(f"stride must be > 0, but got {self.stride}")
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
class Feature:
    """One window, ready for the model.

    `input_ids` is the whole row; passage token k of the window sits at position
    `passage_at + k` and is token `window_start + k` of the passage. `start`/`end` index
    `input_ids` (0 when the window does not hold the answer)."""

    example_index: int
    input_ids: np.ndarray  # int32
    passage_at: int
    window_start: int
    window_len: int
    start: int
    end: int
    answerable: bool


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


def answer_token_span(spans: Sequence[Span], start_char: int, end_char: int) -> tuple[int, int] | None:
    """(first, last) token whose characters overlap [start_char, end_char), or None when no
    token does (an answer of only spaces). A token that holds the answer's first (last)
    character only in part is included whole: in Chinese a piece may hold more characters
    than the answer."""
    hits = [i for i, (s, e) in enumerate(spans) if s < end_char and e > start_char and s < e]
    return (hits[0], hits[-1]) if hits else None


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


def make_features(
    example_index: int,
    question: Sequence[int],
    passage: Tokenized,
    answer: tuple[int, int] | None,
    special: Special,
    config: WindowConfig,
) -> list[Feature]:
    """The windows of one question over its passage.

    `question` is the question's content ids (without the prefix); `answer` is the answer's
    character [start, end) in the passage, or None when the passage does not answer."""
    q = question_ids(question, special, config)
    room = passage_room(len(q), special, config)
    head = [special.bos, *q, special.eos, special.eos, *special.passage_prefix]
    passage_at = len(head)
    token_answer = answer_token_span(passage.spans, *answer) if answer else None
    out = []
    for start in window_starts(len(passage.ids), room, config.stride):
        window = passage.ids[start : start + room]
        row = np.array([*head, *window, special.eos], dtype=np.int32)
        first, last, inside = 0, 0, False
        if token_answer and start <= token_answer[0] and token_answer[1] < start + len(window):
            first, last, inside = passage_at + token_answer[0] - start, passage_at + token_answer[1] - start, True
        out.append(Feature(example_index, row, passage_at, start, len(window), first, last, inside))
    return out


def batch_indices(n_features: int, batch_size: int, step: int, seed: int) -> np.ndarray:
    """The features of training step `step` (0-based): the steps walk through one seeded
    permutation per epoch, so a resumed run takes the same batches as an unbroken one."""
    if n_features <= 0 or batch_size <= 0:
        raise ValueError(f"need features and a batch size, but got {n_features} and {batch_size}")
    first = step * batch_size
    out = []
    while len(out) < batch_size:
        epoch, offset = divmod(first + len(out), n_features)
        order = np.random.default_rng([seed, epoch]).permutation(n_features)
        out.extend(order[offset : offset + batch_size - len(out)].tolist())
    return np.array(out, dtype=np.int64)


def pad_batch(features: Sequence[Feature], pad: int) -> dict[str, np.ndarray]:
    """Rows padded to the longest: ids, attention mask, passage mask (the tokens a span may
    use), start, end and answerable."""
    width = max(len(f.input_ids) for f in features)
    n = len(features)
    ids = np.full((n, width), pad, dtype=np.int64)
    mask = np.zeros((n, width), dtype=np.int64)
    passage = np.zeros((n, width), dtype=bool)
    for i, f in enumerate(features):
        ids[i, : len(f.input_ids)] = f.input_ids
        mask[i, : len(f.input_ids)] = 1
        passage[i, f.passage_at : f.passage_at + f.window_len] = True
    return {
        "input_ids": ids,
        "attention_mask": mask,
        "passage_mask": passage,
        "start": np.array([f.start for f in features], dtype=np.int64),
        "end": np.array([f.end for f in features], dtype=np.int64),
        "answerable": np.array([f.answerable for f in features], dtype=np.float32),
    }


@dataclass(frozen=True)
class Featurized:
    """Examples, their passages' tokens (one per example, shared between questions on the
    same passage) and all their windows."""

    examples: list
    passages: list[Tokenized]
    features: list[Feature]


def special_ids(tokenizer) -> Special:
    """The layout's ids from a ReaderTokenizer (the prefixes tokenized as the product does:
    courserag/embedders/e5.py `_prefix_tokens`)."""
    return Special(
        tokenizer.bos,
        tokenizer.eos,
        tuple(tokenizer.ids(QUERY_PREFIX.strip())),
        tuple(tokenizer.ids(PASSAGE_PREFIX.strip())),
    )


def featurize(
    examples: Sequence, tokenizer, config: WindowConfig, max_unanswerable: int | None = None, seed: int = 0
) -> Featurized:
    """Every window of every example; each distinct passage is tokenized once. Training
    labels the first answer; evaluation scores against all of them.

    `max_unanswerable` keeps at most that many of a question's windows without its answer
    (a seeded choice per question; None keeps all): COVID-QA's whole articles otherwise give
    61,775 such windows for 1,115 questions, a third of all windows."""
    special = special_ids(tokenizer)
    cache: dict[str, Tokenized] = {}
    passages, features = [], []
    for index, example in enumerate(examples):
        passage = cache.get(example.context)
        if passage is None:
            passage = cache[example.context] = tokenizer.encode(example.context)
        passages.append(passage)
        answer = (example.answers[0].start, example.answers[0].end) if example.answers else None
        windows = make_features(index, tokenizer.ids(example.question), passage, answer, special, config)
        features.extend(keep_unanswerable(windows, max_unanswerable, seed))
    return Featurized(list(examples), passages, features)


def keep_unanswerable(windows: list[Feature], limit: int | None, seed: int) -> list[Feature]:
    """The windows with the answer, and at most `limit` of the others (seeded by the
    question), in their order."""
    others = [i for i, w in enumerate(windows) if not w.answerable]
    if limit is None or len(others) <= limit:
        return windows
    rng = np.random.default_rng([seed, windows[0].example_index])
    kept = set(rng.choice(others, size=limit, replace=False).tolist())
    return [w for i, w in enumerate(windows) if w.answerable or i in kept]
