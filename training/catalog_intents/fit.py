"""Fit the intent model: an L2-regularised softmax regression, numpy only.

Inputs per question: its E5 query vector (of the masked question, as the product reads it)
and its word features (courserag/catalog/intents.py `features`), kept when at least
`min_count` fitting questions have them, the row scaled to unit length. A question asking
two intents counts half for each. Every label weighs alike (class-balanced). Full-batch
gradient steps (Adam) from zero weights: the result depends on the data and the settings
alone, never on a random draw.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from courserag.catalog.intents import LABELS, NONE, IntentModel, features, word_row
from training.catalog_intents.data import Example


@dataclass(frozen=True)
class FitSettings:
    l2: float = 1e-3
    steps: int = 500
    learning_rate: float = 0.05
    min_count: int = 2
    secondary: float = 0.3


def labels_of(example: Example) -> tuple[str, ...]:
    return example.intents or (NONE,)


def word_matrix(examples: list[Example], vocabulary: dict[str, int]) -> np.ndarray:
    x = np.zeros((len(examples), len(vocabulary)), dtype=np.float32)
    for row, example in enumerate(examples):
        columns, scale = word_row(example.question, vocabulary)
        x[row, columns] = scale
    return x


def fit(examples: list[Example], vectors: np.ndarray, settings: FitSettings = FitSettings()) -> IntentModel:
    counts = Counter(f for example in examples for f in features(example.question))
    names = sorted(f for f, n in counts.items() if n >= settings.min_count)
    vocabulary = {f: i for i, f in enumerate(names)}
    x = np.hstack([word_matrix(examples, vocabulary), np.asarray(vectors, dtype=np.float32)])
    y = np.zeros((len(examples), len(LABELS)))
    for row, example in enumerate(examples):
        for label in labels_of(example):
            y[row, LABELS.index(label)] = 1.0 / len(labels_of(example))
    per_label = y.sum(axis=0).clip(min=1e-9)
    sample = (y / per_label).sum(axis=1) * len(examples) / len(LABELS)  # each label weighs alike
    w = np.zeros((x.shape[1], len(LABELS)))
    b = np.zeros(len(LABELS))
    moments = [np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)]
    for step in range(1, settings.steps + 1):
        logits = x @ w + b
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        residual = (p - y) * sample[:, None] / len(examples)
        grads = (x.T @ residual + settings.l2 * w, residual.sum(axis=0))
        for param, grad, m, v in ((w, grads[0], *moments[:2]), (b, grads[1], *moments[2:])):
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            param -= settings.learning_rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return IntentModel(vocabulary, w[: len(vocabulary)], w[len(vocabulary) :], b, settings.secondary)


def first_intent(model: IntentModel, question: str, vector: np.ndarray) -> str:
    """The intent a question is read as first ("none" when none), as the set is scored."""
    chances = model.probabilities(question, vector)
    return max(LABELS, key=chances.__getitem__)


def accuracy(model: IntentModel, examples: list[Example], vectors: np.ndarray) -> float:
    right = sum(first_intent(model, e.question, v) == labels_of(e)[0] for e, v in zip(examples, vectors))
    return right / len(examples) if examples else 0.0
