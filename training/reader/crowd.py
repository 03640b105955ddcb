"""Crowded readings: each held-out question read over its own passage among passages near it.

The product's reader reads four retrieved passages, most of which do not hold the answer, and
quotes the best span over all of them. A held-out question over its own passage alone asks
less: which span of a passage that holds the answer. Trial 12 gained on that and lost through
the product (docs/DECISIONS.md), so held-out scores over one passage do not rank readers as
the product's sets do.

A crowded example is a held-out question over one text: its own passage and up to `others`
passages of its set nearest it (distractors.py's `nearest_passages`: the most weight of its
rarer terms, none holding one of its answers; seeded passages of the set where fewer share a
term), separated by blank lines, the own passage at a seeded place among them. Its answers
move with the own passage, so it is scored like any held-out question (evaluate.py): the
best span over every window, answerable when some window reads so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from training.reader.distractors import nearest_or_seeded, not_answering, positions_by_set, rare_term_index
from training.reader.sets import Answer, Example

SEPARATOR = "\n\n"
SUFFIX = "#crowded"


def crowded(examples: Sequence[Example], others: int, seed: int = 0) -> list[Example]:
    """Each example over its own passage among up to `others` near it (module doc), in order;
    `examples` themselves when `others` is 0."""
    if others <= 0:
        return list(examples)
    out = list(examples)
    for members in positions_by_set(examples):
        for i, example in zip(members, _set_crowded([examples[i] for i in members], others, seed)):
            out[i] = example
    return out


def _set_crowded(examples: list[Example], others: int, seed: int) -> list[Example]:
    passages = list(dict.fromkeys(e.context for e in examples))
    own = {text: i for i, text in enumerate(passages)}
    index, idf = rare_term_index(passages)
    rng = np.random.default_rng([seed, len(examples), others])
    out = []
    for example in examples:
        allowed = not_answering(passages, own[example.context], example)
        near = nearest_or_seeded(example.question, index, idf, allowed, others, rng, len(passages))
        out.append(among(example, [passages[p] for p in near], int(rng.integers(len(near) + 1))))
    return out


def among(example: Example, others: Sequence[str], place: int) -> Example:
    """`example` over one text of `others` with its own passage put at `place` among them, its
    answers moved with it."""
    texts = [*others[:place], example.context, *others[place:]]
    shift = sum(len(text) + len(SEPARATOR) for text in texts[:place])
    answers = tuple(Answer(a.text, a.start + shift) for a in example.answers)
    return replace(example, qid=example.qid + SUFFIX, context=SEPARATOR.join(texts), answers=answers)
