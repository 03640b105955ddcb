"""The best answer span of a window from the reader's start and end logits (pure).

A span's score is start logit + end logit less the same sum at `<s>`, the position training
labels "no span here": raw sums do not compare between windows or passages (a window may
score every span high), the margin over "no span" does. Chosen through the product with
trial 3: SQuAD 0.697 -> 0.797, SyllabusQA val 0.394 -> 0.414 (docs/DECISIONS.md).
"""

from __future__ import annotations

import numpy as np

MAX_ANSWER_TOKENS = 48  # COVID-QA answers are whole sentences; SQuAD's are a few words


def window_span(
    start: np.ndarray, end: np.ndarray, passage: slice, max_tokens: int = MAX_ANSWER_TOKENS
) -> tuple[int, int, float]:
    """(i, j, score) of a window's best span within its passage tokens (`passage`: their
    positions in the row; i and j count from the first of them), scored over "no span" (<s>)."""
    i, j, score = best_span(start[passage], end[passage], max_tokens)
    return i, j, score - float(start[0] + end[0])


def best_span(start: np.ndarray, end: np.ndarray, max_tokens: int = MAX_ANSWER_TOKENS) -> tuple[int, int, float]:
    """(i, j, score) maximizing start[i] + end[j] with i <= j < i + max_tokens."""
    n = len(start)
    if n == 0:
        raise ValueError("a window with no passage tokens has no span")
    scores = start[:, None] + end[None, :]
    offsets = np.arange(n)[None, :] - np.arange(n)[:, None]
    scores = np.where((offsets >= 0) & (offsets < max_tokens), scores, -np.inf)
    i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(i), int(j), float(scores[i, j])
