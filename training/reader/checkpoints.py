"""A run's folder: its configuration, its log and its checkpoints.

    RUN/config.json                 what the run is (TrainConfig, the data pins, the base model)
    RUN/log.jsonl                   one line per logged step
    RUN/checkpoints/step-0000500.pt the trainable weights, optimizer, schedule, step, RNG state

A checkpoint holds only what trains (the top layers and the heads: ~14 MB for two layers,
plus AdamW's two moments), is written to a temporary name and renamed, and only the newest
`KEEP` are kept, so a run killed at any moment resumes from its last complete checkpoint.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import torch

KEEP = 2
_NAME = re.compile(r"step-(\d+)\.pt$")


def config_path(run: Path) -> Path:
    return Path(run) / "config.json"


def write_config(run: Path, record: dict) -> None:
    Path(run).mkdir(parents=True, exist_ok=True)
    _atomic_text(config_path(run), json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def read_config(run: Path) -> dict:
    path = config_path(run)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not a reader run (no config.json)")
    return json.loads(path.read_text(encoding="utf-8"))


def checkpoints(run: Path) -> list[Path]:
    """The run's checkpoints, oldest first."""
    folder = Path(run) / "checkpoints"
    found = [(int(m.group(1)), p) for p in folder.glob("step-*.pt") if (m := _NAME.search(p.name))]
    return [p for _, p in sorted(found)]


def latest(run: Path) -> Path | None:
    found = checkpoints(run)
    return found[-1] if found else None


def save(run: Path, step: int, state: dict) -> Path:
    folder = Path(run) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"step-{step:07d}.pt"
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        torch.save({"step": step, **state}, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    for old in checkpoints(run)[:-KEEP]:
        old.unlink(missing_ok=True)
    return target


def load(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)


def append_log(run: Path, record: dict) -> None:
    with open(Path(run) / "log.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def _atomic_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
