"""The standardised logistic regression both fitted decisions use (refusal.py, unit_model.py).

One place for the arithmetic and the weight file's shape, so the refusal model and the unit
model cannot drift apart in how they read, clamp or serialise their weights.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar


@dataclass(frozen=True)
class Logistic:
    """p = sigmoid(bias + coef · (x - mean) / scale), over the named features. A feature
    given as None is unknown (an embedder without token states cannot measure a token
    match) and is taken at its mean: it weighs nothing."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    bias: float

    def logit(self, features: Mapping[str, float | None]) -> float:
        return self.bias + sum(
            c * (features[n] - m) / s
            for n, m, s, c in zip(self.names, self.mean, self.scale, self.coef)
            if features[n] is not None
        )

    def probability(self, features: Mapping[str, float | None]) -> float:
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.logit(features)))))

    def to_dict(self) -> dict:
        return {
            "names": list(self.names),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "bias": self.bias,
        }


def parsed_weights(data: Mapping, known: tuple[str, ...], what: str) -> tuple:
    """The five fields of a weight file, checked against the features the code computes."""
    names = tuple(data["names"])
    if set(names) - set(known):
        raise ValueError(f"unknown {what} features {sorted(set(names) - set(known))}")
    lengths = {len(data[k]) for k in ("mean", "scale", "coef")}
    if lengths != {len(names)}:
        raise ValueError(f"{what} weights: {len(names)} names but mean/scale/coef of lengths {sorted(lengths)}")
    return (
        names,
        tuple(map(float, data["mean"])),
        tuple(float(s) or 1.0 for s in data["scale"]),
        tuple(map(float, data["coef"])),
        float(data["bias"]),
    )


Model = TypeVar("Model")


def read_weights(path: Path, from_dict: Callable[[Mapping], Model]) -> Model | None:
    """The model a weights file describes, or None when there is no such file (the
    composer's hand-set path decides instead)."""
    path = Path(path)
    return from_dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None
