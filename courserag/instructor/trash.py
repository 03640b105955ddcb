"""A course's trash: files an instructor removed, or replaced by a new version, kept for a
while (TRASH_DAYS) so a slip of the mouse loses nothing, then purged.

It lives under DATA_DIR (`trash/<course id>/`), which the web server never serves and the
indexer never reads; each entry is a folder named by a random id holding the file, beside
`<id>.json` with where the file came from and when it left. Entries past their time are
deleted whenever the trash is looked at.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from courserag.errors import CourseRagError

log = logging.getLogger(__name__)

TRASH_FOLDER = "trash"
_ENTRY_ID = re.compile(r"[0-9a-f]{32}")
DAY_S = 86400.0


@dataclass(frozen=True)
class TrashEntry:
    """One file in the trash: its id, the path it had in the course folder, why and when it
    left (seconds since the epoch), and until when it is kept."""

    id: str
    source: str
    reason: str  # "removed" or "replaced"
    removed_at: float
    expires_at: float

    def when(self, stamp: float) -> str:
        return datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M")


class CourseTrash:
    """The trash of every course under `data_dir`, keeping entries `keep_days`."""

    def __init__(self, data_dir: Path, keep_days: float = 30.0, clock: Callable[[], float] = time.time):
        self.root = Path(data_dir) / TRASH_FOLDER
        self.keep_s = keep_days * DAY_S
        self._clock = clock

    def _folder(self, course_id: str) -> Path:
        return self.root / course_id

    def put(self, course_id: str, path: Path, source: str, reason: str = "removed") -> TrashEntry:
        """Move `path` (the course file `source`) into the trash; the same disk as DATA_DIR
        or not (a copy then)."""
        entry_id = uuid.uuid4().hex
        now = self._clock()
        entry = TrashEntry(entry_id, source, reason, now, now + self.keep_s)
        folder = self._folder(course_id) / entry_id
        folder.mkdir(parents=True)
        shutil.move(str(path), str(folder / Path(source).name))
        meta = {"source": source, "reason": reason, "removed_at": now}
        (self._folder(course_id) / f"{entry_id}.json").write_text(json.dumps(meta, ensure_ascii=False), "utf-8")
        return entry

    def entries(self, course_id: str) -> list[TrashEntry]:
        """What the trash holds, newest first; expired entries are purged first."""
        self.purge(course_id)
        return sorted(self._read(course_id), key=lambda e: -e.removed_at)

    def _read(self, course_id: str) -> list[TrashEntry]:
        folder = self._folder(course_id)
        if not folder.is_dir():
            return []
        found = []
        for meta_path in folder.glob("*.json"):
            entry_id = meta_path.stem
            if not _ENTRY_ID.fullmatch(entry_id):
                continue
            try:
                meta = json.loads(meta_path.read_text("utf-8"))
                removed_at = float(meta["removed_at"])
                found.append(
                    TrashEntry(
                        entry_id,
                        str(meta["source"]),
                        str(meta.get("reason", "removed")),
                        removed_at,
                        removed_at + self.keep_s,
                    )
                )
            except (OSError, ValueError, KeyError, TypeError):
                log.warning("trash entry %s of %s is unreadable; left as it is", entry_id, course_id)
        return found

    def purge(self, course_id: str) -> int:
        """Delete the entries past their time; how many went."""
        now = self._clock()
        gone = 0
        for entry in self._read(course_id):
            if entry.expires_at <= now:
                self._delete(course_id, entry.id)
                gone += 1
        return gone

    def _delete(self, course_id: str, entry_id: str) -> None:
        shutil.rmtree(self._folder(course_id) / entry_id, ignore_errors=True)
        (self._folder(course_id) / f"{entry_id}.json").unlink(missing_ok=True)

    def take(self, course_id: str, entry_id: object, target: Path) -> None:
        """Move entry `entry_id`'s file to `target` and forget the entry; an unknown or
        expired id is refused (`course_trash_missing`), and the file stays if the move fails."""
        entry = next((e for e in self.entries(course_id) if e.id == entry_id), None)
        if entry is None:
            raise CourseRagError("course_trash_missing", entry=str(entry_id or "")[:40])
        held = self._folder(course_id) / entry.id / Path(entry.source).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(held), str(target))
        self._delete(course_id, entry.id)

    def get(self, course_id: str, entry_id: object) -> TrashEntry:
        """The live entry `entry_id` (or `course_trash_missing`)."""
        for entry in self.entries(course_id):
            if entry.id == entry_id:
                return entry
        raise CourseRagError("course_trash_missing", entry=str(entry_id or "")[:40])


def is_inside(path: Path, folder: Path) -> bool:
    """Whether `path` (resolved, links followed) lies in `folder`, off any hidden part."""
    try:
        root = Path(folder).resolve()
        resolved = Path(path).resolve()
    except (OSError, ValueError):
        return False
    return resolved.is_relative_to(root) and not any(part.startswith(".") for part in resolved.relative_to(root).parts)
