"""Where the app writes, and whether that survives a restart. On a Hugging Face Space (the
SPACE_ID variable is set) the disk is wiped on every restart except the persistent storage
mounted at /data; the Instructor tab says so when the feedback log, the course files or the
course list live anywhere else (README, "Deploying as a Space")."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable, Mapping

PERSISTENT_ROOT = Path("/data")


def lost_on_restart(
    places: Iterable[Path], env: Mapping[str, str] | None = None, persistent_root: Path = PERSISTENT_ROOT
) -> list[Path]:
    """The places (DATA_DIR, course folders, the course list) a restart would wipe: none off
    a Space; on a Space, those outside its persistent storage (all when it has none)."""
    env = os.environ if env is None else env
    if not env.get("SPACE_ID"):
        return []
    kept = persistent_root if persistent_root.is_dir() else None
    out = []
    for place in places:
        resolved = Path(place).resolve()
        if kept is None or not resolved.is_relative_to(kept.resolve()):
            out.append(Path(place))
    return out


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
