"""Training windows: the product's windows (courserag/reader/windows.py) with their answer
spans in tokens (pure functions).

A window that holds the whole of the (first) answer is labelled with its first and last
token; any other window, and every window of a question the passage does not answer, is
unanswerable (start = end = 0, the <s> token, and `answerable` false).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from courserag.reader.tokens import Span, Tokenized
from courserag.reader.windows import SPECIAL_TOKENS, Special, WindowConfig, special_ids, windows

__all__ = ["SPECIAL_TOKENS", "WindowConfig", "Feature", "make_features", "featurize", "pad_batch", "batch_indices"]


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


def answer_token_span(spans: Sequence[Span], start_char: int, end_char: int) -> tuple[int, int] | None:
    """(first, last) token whose characters overlap [start_char, end_char), or None when no
    token does (an answer of only spaces). A token that holds the answer's first (last)
    character only in part is included whole: in Chinese a piece may hold more characters
    than the answer."""
    hits = [i for i, (s, e) in enumerate(spans) if s < end_char and e > start_char and s < e]
    return (hits[0], hits[-1]) if hits else None


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
    token_answer = answer_token_span(passage.spans, *answer) if answer else None
    out = []
    for w in windows(question, passage, special, config):
        first, last, inside = 0, 0, False
        if token_answer and w.window_start <= token_answer[0] and token_answer[1] < w.window_start + w.window_len:
            first = w.passage_at + token_answer[0] - w.window_start
            last, inside = w.passage_at + token_answer[1] - w.window_start, True
        out.append(Feature(example_index, w.input_ids, w.passage_at, w.window_start, w.window_len, first, last, inside))
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


def repeat_sets(data: Featurized, repeats: Mapping[str, int]) -> Featurized:
    """Each window of a set named in `repeats` that many times, in place of once (so a pass
    draws it as often); the others once, the order kept."""
    if not repeats:
        return data
    features = []
    for feature in data.features:
        features.extend([feature] * int(repeats.get(data.examples[feature.example_index].set_name, 1)))
    return Featurized(data.examples, data.passages, features)
