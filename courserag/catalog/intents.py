"""What a catalog question asks, read by a fitted model instead of cue words.

The question, with every course code masked as "§" (the wording is learnt, not the course),
is read two ways: its E5 vector (the product's own multilingual-e5-small, as a query), and
its words (words and word pairs, letter runs that survive a typing slip, Chinese characters
and their pairs and triples). A softmax regression over both (fitted by `python -m
training.catalog_intents fit` on the fitting half of eval/catalog_intents/ and templates over
the sample catalog's rows) gives each intent, and "none", a probability. The most probable
is what the question asks, and a second intent too when it reaches `secondary` ("credits
and prerequisites of X"). "none" first: not a catalog question (exams, homework, a note's
rooms), left to the materials.

The weights file is part of the product: a missing or unreadable one fails with a message
naming it, never a silent fallback to another reading.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from courserag.catalog.codes import fold_title
from courserag.lang.course_codes import CODE_IN_TEXT
from courserag.lang.script import IDEOGRAPH_RUN, IDEOGRAPHS

WEIGHTS_FILE = Path(__file__).with_name("intent_weights.json")
# The order a reply states them in.
INTENTS = ("reverse", "prerequisites", "program", "sections", "credits", "description")
NONE = "none"
LABELS = (*INTENTS, NONE)
VECTOR_MODEL = "multilingual-e5-small"  # what gives the question vectors the model was fitted on

_CODE = "§"
_TOKEN = re.compile(rf"[{IDEOGRAPHS}]|[a-z][a-z']*|\d+|{_CODE}")


def masked(question: str) -> str:
    """The question folded (NFKC, case, spaces) with each course code replaced by "§" (found
    before case folding: a suffix letter is a capital, "ECON2105B")."""
    return fold_title(CODE_IN_TEXT.sub(f" {_CODE} ", unicodedata.normalize("NFKC", question)))


def features(question: str) -> set[str]:
    """The question's word features: "w:credits", "b:how many", "c:<cre", "z2:学分"…"""
    text = masked(question)
    found: set[str] = set()
    tokens = ["0" if t.isdigit() else t for t in _TOKEN.findall(text)]
    for token in tokens:
        if token == _CODE or token[0].isascii():
            found.add(f"w:{token}")
        if token[0].isalpha() and token.isascii():
            padded = f"<{token}>"
            for n in (3, 4):
                found.update(f"c:{padded[i : i + n]}" for i in range(len(padded) - n + 1))
    for first, second in zip(tokens, tokens[1:]):
        if not (IDEOGRAPH_RUN.fullmatch(first) and IDEOGRAPH_RUN.fullmatch(second)):
            found.add(f"b:{first} {second}")  # across scripts too: "§ 的", "的 prerequisite"
    for run in IDEOGRAPH_RUN.findall(text):
        for n in (1, 2, 3):
            found.update(f"z{n}:{run[i : i + n]}" for i in range(len(run) - n + 1))
    return found


def word_row(question: str, vocabulary: dict[str, int]) -> tuple[list[int], float]:
    """The known word features' columns, and the scale that makes their row unit length."""
    present = sorted(vocabulary[f] for f in features(question) if f in vocabulary)
    return present, (1.0 / np.sqrt(len(present)) if present else 0.0)


@dataclass(frozen=True)
class IntentModel:
    """Softmax regression over a question's vector and its word features."""

    vocabulary: dict[str, int]  # word feature -> its row of `word_weights`
    word_weights: np.ndarray  # (words, labels)
    vector_weights: np.ndarray  # (vector dimensions, labels)
    bias: np.ndarray  # (labels,)
    secondary: float

    def probabilities(self, question: str, vector: np.ndarray) -> dict[str, float]:
        columns, scale = word_row(question, self.vocabulary)
        logits = self.bias + np.asarray(vector, dtype=np.float64) @ self.vector_weights
        if columns:
            logits = logits + self.word_weights[columns].sum(axis=0) * scale
        chances = np.exp(logits - logits.max())
        return dict(zip(LABELS, (chances / chances.sum()).tolist()))

    def intents(self, question: str, vector: np.ndarray) -> tuple[str, ...]:
        """What the question asks, in answering order; () when "none" is the most probable."""
        chances = self.probabilities(question, vector)
        best = max(LABELS, key=chances.__getitem__)
        if best == NONE:
            return ()
        return tuple(i for i in INTENTS if i == best or chances[i] >= self.secondary)

    def to_dict(self) -> dict:
        names = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        return {
            "labels": list(LABELS),
            "vector_model": VECTOR_MODEL,
            "secondary": self.secondary,
            "bias": np.round(self.bias, 5).tolist(),
            "vector_weights": np.round(self.vector_weights, 5).tolist(),
            "words": {name: np.round(self.word_weights[i], 5).tolist() for i, name in enumerate(names)},
        }

    @classmethod
    def from_dict(cls, data: dict) -> IntentModel:
        if tuple(data["labels"]) != LABELS or data["vector_model"] != VECTOR_MODEL:
            raise ValueError(f"fitted for labels {data['labels']} and vectors of {data['vector_model']}")
        names = list(data["words"])
        words = np.array([data["words"][n] for n in names], dtype=np.float64).reshape(len(names), len(LABELS))
        vector = np.array(data["vector_weights"], dtype=np.float64)
        bias = np.array(data["bias"], dtype=np.float64)
        if vector.ndim != 2 or vector.shape[1] != len(LABELS) or bias.shape != (len(LABELS),):
            raise ValueError("every weight needs one value per label")
        return cls({n: i for i, n in enumerate(names)}, words, vector, bias, float(data["secondary"]))


class IntentWeightsError(RuntimeError):
    """The intent model's weights file is missing or unreadable."""


@lru_cache(maxsize=4)
def intent_model(path: Path = WEIGHTS_FILE) -> IntentModel:
    """The shipped model, read once."""
    try:
        return IntentModel.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IntentWeightsError(
            f"the catalog's intent model {path} is missing or unreadable ({exc}); "
            "refit it with `python -m training.catalog_intents fit`"
        ) from exc


class IntentReader:
    """The intent model with what gives its question vectors: built once, called with a question."""

    def __init__(self, model: IntentModel, embed_query: Callable[[str], np.ndarray]):
        self.model = model
        self.embed_query = embed_query

    def __call__(self, question: str) -> tuple[str, ...]:
        return self.model.intents(question, self.embed_query(masked(question)))
