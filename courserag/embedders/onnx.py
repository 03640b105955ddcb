"""The same sentence-transformers model run by onnxruntime: EMBEDDING_BACKEND=onnx | onnx-int8.

The transformer is exported once from the local weights (torch.onnx, no network) into a
cache folder, optionally quantized to int8 weights (onnxruntime dynamic quantization, per
output channel), and then run by onnxruntime. Tokenizer, window (max_seq_length), mean
pooling and normalisation are the model's own, so `onnx` gives the torch vectors (cosine
> 0.9999) and `onnx-int8` vectors within ~0.99 cosine; bench/ measures both the speed and
that retrieval results do not change. The export needs the `onnx` package, running needs
`onnxruntime`; either missing is a ConfigError naming the package.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import warnings
from pathlib import Path

import numpy as np

from courserag.embedders.sentence_transformers import SentenceTransformerEmbedder
from courserag.embedders.threads import cpu_session_options
from courserag.errors import ConfigError

log = logging.getLogger(__name__)

BACKENDS = ("onnx", "onnx-int8")
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "courserag-models"


class OnnxEmbedder(SentenceTransformerEmbedder):
    """SentenceTransformerEmbedder whose forward pass runs in onnxruntime."""

    def __init__(
        self,
        model_name: str = "all-MiniLM-L6-v2",
        backend: str = "onnx",
        cache_dir: Path | None = None,
        threads: int = 0,
    ):
        if backend not in BACKENDS:
            raise ConfigError(f"EMBEDDING_BACKEND must be one of torch, {', '.join(BACKENDS)}, but got {backend!r}")
        super().__init__(model_name)
        self.name = f"{model_name}+{backend}"
        self.backend = backend
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.threads = threads
        self._session = None
        self._session_lock = threading.Lock()

    def _check_pipeline(self) -> None:
        """Transformer -> mean pooling (-> Normalize): what _encode reproduces."""
        modules = list(self.model)
        pooling = modules[1] if len(modules) > 1 else None
        mode = getattr(pooling, "pooling_mode", None)
        if getattr(pooling, "pooling_mode_mean_tokens", False):
            mode = "mean"
        if mode != "mean" or len(modules) > 3:
            raise ConfigError(
                f"EMBEDDING_BACKEND={self.backend} supports mean-pooling models only; use torch for {self.model_name}"
            )

    def _model_path(self) -> Path:
        source = Path(self.model[0].model.name_or_path)
        fingerprint = hashlib.sha1(str(source).encode("utf-8"))
        if source.is_dir():
            for file in sorted(source.rglob("*")):
                if file.is_file():
                    stat = file.stat()
                    fingerprint.update(f"{file.name}:{stat.st_size}".encode())
        slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.model_name)
        suffix = "-int8" if self.backend == "onnx-int8" else ""
        return self.cache_dir / f"{slug}-{fingerprint.hexdigest()[:12]}{suffix}.onnx"

    def _export(self, target: Path) -> None:
        """Export the transformer (and quantize it for onnx-int8), atomically into target."""
        try:
            import onnx  # noqa: F401  (torch.onnx needs it to serialise)
        except ImportError as exc:
            raise ConfigError(
                f"EMBEDDING_BACKEND={self.backend} needs the 'onnx' package to export the model once"
            ) from exc
        import torch

        target.parent.mkdir(parents=True, exist_ok=True)
        fp32 = target.with_name(target.name.replace("-int8.onnx", ".onnx"))
        if not fp32.exists():
            bert = self.model[0].model.eval()

            class Hidden(torch.nn.Module):
                def __init__(self, inner):
                    super().__init__()
                    self.inner = inner

                def forward(self, input_ids, attention_mask, token_type_ids):
                    return self.inner(
                        input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
                    ).last_hidden_state

            sample = self.model.tokenizer(
                ["a short sample", "and a somewhat longer sample text"], padding=True, return_tensors="pt"
            )
            if "token_type_ids" not in sample:
                sample["token_type_ids"] = torch.zeros_like(sample["input_ids"])
            tmp = fp32.with_name(f".{fp32.name}.{os.getpid()}.tmp")
            axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "hidden")}
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
                torch.onnx.export(
                    Hidden(bert),
                    tuple(sample[k] for k in _INPUTS),
                    str(tmp),
                    input_names=list(_INPUTS),
                    output_names=["hidden"],
                    dynamic_axes=axes,
                    opset_version=17,
                    dynamo=False,
                )
            os.replace(tmp, fp32)
        if target != fp32:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            root = logging.getLogger()
            level = root.level
            root.setLevel(logging.ERROR)  # the quantizer logs a "consider pre-processing" hint
            try:
                quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True)
            finally:
                root.setLevel(level)
            os.replace(tmp, target)

    @property
    def session(self):
        with self._session_lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                except ImportError as exc:
                    raise ConfigError(f"EMBEDDING_BACKEND={self.backend} needs the 'onnxruntime' package") from exc
                self._check_pipeline()
                path = self._model_path()
                if not path.exists():
                    log.info("exporting %s to %s (once)", self.model_name, path)
                    self._export(path)
                options = cpu_session_options(self.threads)
                self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            return self._session

    def _encode(self, texts: list[str]) -> np.ndarray:
        session = self.session
        with self._lock:  # the tokenizer's padding/truncation state is not thread-safe
            encoded = self.model.tokenizer(
                texts, padding=True, truncation=True, max_length=self.window_tokens, return_tensors="np"
            )
        mask = np.asarray(encoded["attention_mask"], dtype=np.int64)
        feeds = {
            "input_ids": np.asarray(encoded["input_ids"], dtype=np.int64),
            "attention_mask": mask,
            "token_type_ids": np.asarray(encoded.get("token_type_ids", np.zeros_like(mask)), dtype=np.int64),
        }
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
