"""The best answer span of a window from the reader's start and end logits (pure)."""

from __future__ import annotations

import numpy as np

MAX_ANSWER_TOKENS = 48  # COVID-QA answers are whole sentences; SQuAD's are a few words


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
