"""The reader's answers to held-out questions, and their scores per set.

Every window of a question is read (none left out, unlike training). A question's answer is
its best span over all windows (start + end logit over those at <s>, courserag/reader/spans.py;
the span within one window and at most `max_answer_tokens` long); the question is answerable when some window's answerability
probability reaches `threshold`. Scores per set (metrics.py):

- `em`, `f1`: the answer as the product would give it (nothing when judged unanswerable);
- `span_em`, `span_f1`: answerable questions only, the best span whatever the head says;
- `answerability_accuracy`: the answer-or-not decision against the set's label;
- `distractors_refused`: of the held-out questions read over a distractor passage
  (distractors.py; `evaluate --distractors`), the share judged unanswerable. Those readings
  count in no other score.
- `off_topic_refused`: likewise over a passage of another source (`evaluate --off-topic`).
- `answer_removed_refused`: likewise over their own passage without the sentences holding
  the answer (`evaluate --answer-removed`).
- `swapped_refused`: likewise asked with a term swapped for one their passage lacks
  (`evaluate --swapped`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from courserag.reader.spans import MAX_ANSWER_TOKENS, window_span
from training.reader.data import Featurized, pad_batch
from training.reader.distractors import READINGS, reading
from training.reader.metrics import best_scores
from training.reader.model import Reader


@dataclass(frozen=True)
class Prediction:
    span_text: str  # the best span, whatever the answerability head says
    answer_probability: float  # the highest over the question's windows

    def answer(self, threshold: float) -> str:
        return self.span_text if self.answer_probability >= threshold else ""


def predict(
    reader: Reader, data: Featurized, pad: int, batch_size: int = 32, max_answer_tokens: int = MAX_ANSWER_TOKENS
) -> list[Prediction]:
    """One prediction per example of `data`, in order, from the torch reader."""
    reader.eval()
    device = reader.span.weight.device

    @torch.no_grad()
    def forward(ids: np.ndarray, mask: np.ndarray):
        out = reader(torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device))
        start, end = out.start_logits.float().cpu().numpy(), out.end_logits.float().cpu().numpy()
        return start, end, out.answer_logits.float().cpu().numpy()

    return predict_with(forward, data, pad, batch_size, max_answer_tokens)


def predict_with(
    forward: Callable, data: Featurized, pad: int, batch_size: int = 32, max_answer_tokens: int = MAX_ANSWER_TOKENS
) -> list[Prediction]:
    """One prediction per example, from `forward(ids, mask) -> (start, end, answer logits)`:
    the torch reader's or the product's ONNX reader's (courserag/reader/reader.py `logits`)."""
    best: dict[int, tuple[float, str]] = {}
    probability: dict[int, float] = defaultdict(float)
    for first in range(0, len(data.features), batch_size):
        features = data.features[first : first + batch_size]
        batch = pad_batch(features, pad)
        starts, ends, answer_logits = forward(batch["input_ids"], batch["attention_mask"])
        answer = 1.0 / (1.0 + np.exp(-np.asarray(answer_logits, dtype=np.float64)))
        for row, feature in enumerate(features):
            window = slice(feature.passage_at, feature.passage_at + feature.window_len)
            i, j, score = window_span(starts[row], ends[row], window, max_answer_tokens)
            spans = data.passages[feature.example_index].spans
            first_char, last_char = spans[feature.window_start + i][0], spans[feature.window_start + j][1]
            text = data.examples[feature.example_index].context[first_char:last_char].strip()
            if feature.example_index not in best or score > best[feature.example_index][0]:
                best[feature.example_index] = (score, text)
            probability[feature.example_index] = max(probability[feature.example_index], float(answer[row]))
    return [Prediction(best[i][1], probability[i]) for i in range(len(data.examples))]


def score(examples: Sequence, predictions: Sequence[Prediction], threshold: float = 0.5) -> dict[str, dict]:
    """Scores per set (and "all"), as described in the module's docstring."""
    rows: dict[str, list[dict]] = defaultdict(list)
    for example, prediction in zip(examples, predictions, strict=True):
        references = [a.text for a in example.answers]
        em, f1 = best_scores(prediction.answer(threshold), references, example.context_lang)
        row = {"em": em, "f1": f1, "answerable": example.answerable, "reading": reading(example)}
        row["decided"] = float((prediction.answer_probability >= threshold) == example.answerable)
        if example.answerable:
            row["span_em"], row["span_f1"] = best_scores(prediction.span_text, references, example.context_lang)
        rows[example.set_name].append(row)
    every = [row for group in rows.values() for row in group]
    return {**{name: _summary(group) for name, group in rows.items()}, "all": _summary(every)}


def _summary(rows: list[dict]) -> dict:
    readings = {name: [r["decided"] for r in rows if r["reading"] == name] for name in READINGS.values()}
    rows = [r for r in rows if not r["reading"]]
    answerable = [r for r in rows if r["answerable"]]
    mean = lambda values: round(float(np.mean(values)), 4) if values else None
    return {
        "questions": len(rows),
        "unanswerable": len(rows) - len(answerable),
        "em": mean([r["em"] for r in rows]),
        "f1": mean([r["f1"] for r in rows]),
        "span_em": mean([r["span_em"] for r in answerable]),
        "span_f1": mean([r["span_f1"] for r in answerable]),
        "answerability_accuracy": mean([r["decided"] for r in rows]),
        **{f"{name}_refused": mean(decided) for name, decided in readings.items()},
    }
