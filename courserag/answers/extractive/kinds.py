"""Which asked kinds of fact the composer may require: those its detectors reliably see.

"What is the TA's phone number?" is refused when no unit about the TA holds a phone number.
That rule is only as good as the detectors (entities.py): in the unit that answers "Who
designed the bridge?" on Chinese Wikipedia they find a person one time in eight, and a place
in English text four times in ten, so requiring those kinds refused answerable questions by
the hundred (docs/EVALUATION.md). kind_recall.json holds, per script of the text and per
asked kind, how often the detectors found the kind in the unit that answers, measured on the
shared sets' fitting questions by scripts/measure_kinds.py; a kind is not required where
they found it less than `PARAMS.required_kind_recall` of the time over enough questions.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from courserag.answers.extractive.params import PARAMS

RECALL_FILE = Path(__file__).with_name("kind_recall.json")


def need_label(need: frozenset[str]) -> str:
    """A need's name in kind_recall.json ("date/time")."""
    return "/".join(sorted(need))


def accepted(need: frozenset[str]) -> frozenset[str]:
    """The kinds that meet a need: a condition answers a "when" too ("when it is full")."""
    return need | {"condition"} if "date" in need else need


@lru_cache(maxsize=4)
def _measured(path: Path = RECALL_FILE) -> dict[str, dict[str, tuple[int, int]]]:
    if not Path(path).is_file():
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))["found_and_asked"]
    return {script: {label: (int(f), int(n)) for label, (f, n) in labels.items()} for script, labels in data.items()}


def reliably_detected(need: frozenset[str], script: str, path: Path = RECALL_FILE) -> bool:
    """Whether a kind may be required of an answer in text of this script: unless the
    fitting questions show its detector missing it in the answers (below
    `PARAMS.required_kind_recall`, over at least `PARAMS.required_kind_questions` of them),
    it is. A phone number or an e-mail address is found by its pattern wherever it is
    written, and the shared sets rarely ask for one: no measurement is no reason to drop it."""
    found, asked = _measured(path).get(script, {}).get(need_label(need), (0, 0))
    return asked < PARAMS.required_kind_questions or found >= PARAMS.required_kind_recall * asked
