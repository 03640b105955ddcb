"""The records the extractive composer passes between its stages: a scored unit
(`Candidate`), the chosen answer or refusal (`Composition`), and how a group of units is
compared with the question (`UnitSimilarity`). Kept apart from compose.py so that the stages
it calls (select, passages, reread) read them without importing the composer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from courserag.answers.extractive.units import Unit
from courserag.embedders.groups import UnitMatches

# A group of units' similarities to the question: cosines, or UnitMatches (cosines and,
# where the embedder gives token states, each unit's token match: embedders/groups.py).
UnitSimilarity = Callable[[list[str]], Sequence[float] | UnitMatches]


@dataclass(frozen=True)
class Candidate:
    """A unit of source `n`, with what it holds and how well it fits the question."""

    n: int
    unit: Unit
    kinds: frozenset[str]
    coverage: float  # weighted share of the question's subject words in the unit's context
    margin: float  # similarity to the question above its floor (0 without an embedder)
    score: float
    issued: tuple[int, int, int] | None = None  # the date of the notice it is from (recency.py)
    change: bool = False  # it says it replaces something said before
    p: float = 0.0  # the unit model's score: the higher, the likelier it holds the answer (unit_model.py)
    features: Mapping[str, float] | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def newer(self) -> bool:
        """A dated statement of a change: it outranks what older material says."""
        return self.issued is not None and self.change


@dataclass(frozen=True)
class Composition:
    """The chosen units (answer order), or a refusal with the nearest source to suggest."""

    units: tuple[Candidate, ...]
    refused: bool
    reason: str = ""
    nearest: int | None = None
    newer: tuple[int, int, int] | None = None  # the date of a notice quoted first as the newer word
    features: tuple[tuple[str, float], ...] = ()  # what the answer-or-refuse decision saw (refusal.py)
    fact: str | None = None  # the short fact asked for, said before the quotes (answer_shape.py)
    fact_n: int | None = None  # the source that states it
    wants_list: bool = False  # a list was asked for: quoted whole
