"""How far one trained reader's weights are from another's: the reproduction check.

    python -m training.reader compare A B [--tolerance 0.01]

A and B are checkpoints (`.pt`) or exported deltas (`.safetensors`, read as the product reads
them). Each tensor's difference is said relative to the larger magnitude of the two, so a
layer matrix and a bias are judged alike; the two are reproductions of each other when every
tensor is within the tolerance. The pure part (`compare_weights`) takes two name → array maps.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

TOLERANCE = 0.01  # the largest difference, as a share of the tensor's largest magnitude


@dataclass(frozen=True)
class TensorDifference:
    name: str
    max_abs: float  # the largest |a - b| over the tensor's entries
    scale: float  # the largest |a| or |b|

    @property
    def relative(self) -> float:
        return self.max_abs / self.scale if self.scale else float(self.max_abs > 0)


@dataclass(frozen=True)
class Comparison:
    tensors: tuple[TensorDifference, ...]
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]

    @property
    def worst(self) -> TensorDifference | None:
        return max(self.tensors, key=lambda t: t.relative, default=None)

    @property
    def identical(self) -> bool:
        return self.same_names and all(t.max_abs == 0 for t in self.tensors)

    @property
    def same_names(self) -> bool:
        return not self.only_in_a and not self.only_in_b

    def within(self, tolerance: float = TOLERANCE) -> bool:
        return self.same_names and all(t.relative <= tolerance for t in self.tensors)

    def summary(self, tolerance: float = TOLERANCE) -> dict:
        worst = self.worst
        return {
            "tensors": len(self.tensors),
            "identical": self.identical,
            "within_tolerance": self.within(tolerance),
            "tolerance": tolerance,
            "worst": {"name": worst.name, "max_abs": worst.max_abs, "relative": worst.relative} if worst else None,
            "only_in_a": list(self.only_in_a),
            "only_in_b": list(self.only_in_b),
        }


def compare_weights(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> Comparison:
    """Every tensor both maps name, compared; the names only one has, listed. A tensor whose
    shapes differ counts as wholly different (its relative difference is infinite)."""
    rows = []
    for name in sorted(a.keys() & b.keys()):
        x, y = np.asarray(a[name], np.float64), np.asarray(b[name], np.float64)
        if x.shape != y.shape:
            rows.append(TensorDifference(name, float("inf"), 1.0))
            continue
        scale = float(max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0)))
        rows.append(TensorDifference(name, float(np.abs(x - y).max(initial=0.0)), scale))
    return Comparison(tuple(rows), tuple(sorted(a.keys() - b.keys())), tuple(sorted(b.keys() - a.keys())))


def load_weights(path: Path) -> dict[str, np.ndarray]:
    """A checkpoint's trainable tensors, or an exported delta's tensors as the product reads them."""
    path = Path(path)
    if path.suffix == ".safetensors":
        from courserag.reader.delta import read_delta

        return dict(read_delta(path).tensors)
    from training.reader import checkpoints

    return {name: tensor.float().numpy() for name, tensor in checkpoints.load(path)["trainable"].items()}
