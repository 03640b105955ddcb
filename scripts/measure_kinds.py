#!/usr/bin/env python3
"""How often the fact detectors see the kind of fact a question asks for in the unit that answers it.

    .venv/bin/python scripts/measure_kinds.py     # writes courserag/answers/extractive/kind_recall.json

The composer refuses when the question asks for a kind of fact (a date, a place, a number…)
and no unit about its subject holds one ("missing:" in compose.py). That is only as good as
the detectors of entities.py: where they miss the kind in the very unit that answers (a
Chinese place name, a person named without a title, 四至八倍), the rule refuses answerable
questions. This measures, on the fitting questions of every shared set (scripts/fit_passages.py's
"fit" role: SyllabusQA train, the even-place titles of SQuAD, CMRC 2018 and XQuAD, never a
test split), for each asked kind and each script of the answering text (Latin or CJK), the
share of answering units in which the detectors find that kind; the composer requires a kind
only where that share is high (`PARAMS.required_kind_recall` over at least
`PARAMS.required_kind_questions` questions, kinds.py).

A unit answers when answer_eval's judge finds the reference answer in its text alone; the
best-ranked such unit of each question is the one measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
from fit_passages import FIT_ROLE, SOURCES, each_question  # noqa: E402
from fit_refusal import _answer_eval  # noqa: E402


def main() -> int:
    from courserag.answers.extractive.kinds import RECALL_FILE, accepted, need_label
    from courserag.lang.script import script_of

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RECALL_FILE)
    args = parser.parse_args()
    ae = _answer_eval()
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    fitting = [s for s in SOURCES if s[2] == FIT_ROLE]
    for _, _, q, _, ask, ranked in each_question(fitting, None):
        if not ask.needs:
            continue
        holder = next((c for c in ranked if ae.judge(q, " ".join(ae.words(c.unit.text)))), None)
        if holder is None:
            continue
        script = script_of(holder.unit.text)
        for need in ask.needs:
            seen = counts[script][need_label(need)]
            seen[0] += bool(accepted(need) & holder.kinds)
            seen[1] += 1
    recall = {script: {label: counts[script][label] for label in sorted(counts[script])} for script in sorted(counts)}
    args.out.write_text(json.dumps({"found_and_asked": recall}, indent=1) + "\n", encoding="utf-8")
    for script, labels in recall.items():
        for label, (found, asked) in labels.items():
            print(f"{script} {label:40s} {found:4d} / {asked:4d} = {found / asked:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
