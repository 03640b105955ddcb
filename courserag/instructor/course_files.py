"""The course folder as the instructor changes it, so that no action loses work:

- an upload whose name is taken is stored only when the instructor said how: "replace"
  (the old version goes to the trash) or "keep" (the new one gets a free name,
  "notes (2).pdf"); `clashes` says which names are taken before anything is stored;
- it lands in the course folder or one of its existing subfolders (placement.py);
- "remove" moves the file to the course's trash (trash.py), restorable until it expires.

Files are stored in the docs folder for both stores (Weaviate keeps chunks, not files) and
indexed incrementally; a file that cannot be indexed is taken out again and the folder put
back as it was.

A replace keeps the old version aside as a hidden `.<name>.<id>.previous` (a second link to
it, so the file never leaves its name) until the build is done. A process killed in between
(`kill -9`, a restart) leaves that file behind; `recover` finishes or undoes such a replace
when the app starts (`engine/startup.py`), so the old version reaches the trash as a finished
replace would have put it there, or goes back where it was.
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, Sequence

from courserag.config.settings import Settings
from courserag.courses.directory import Course
from courserag.courses.indexer import BuildSummary, course_files
from courserag.errors import CourseRagError
from courserag.i18n.messages import Notice
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS, parse_file, safe_display_name
from courserag.ingest.parsers.guard import refuse_type
from courserag.ingest.pipeline import file_size
from courserag.instructor.placement import checked_folder, free_name, taken_names
from courserag.instructor.trash import CourseTrash, TrashEntry, is_inside

Progress = Callable[[int, int, str], None] | None
OnClash = Literal["ask", "replace", "keep"]

log = logging.getLogger(__name__)

# What a replace writes beside the course file: the upload's copy, and the old version.
_LEFTOVER = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{32}\.(?P<kind>tmp|previous)")


@dataclass(frozen=True)
class CourseFile:
    """A file of the course folder as the instructor sees it: indexed or not, and how much."""

    source: str
    size_bytes: int
    chunks: int  # passages in the index (0: not indexed yet, or it could not be read)
    indexed: bool


@dataclass
class _Stored:
    source: str
    previous: Path | None  # the replaced version, kept aside until the build is done


class CourseFiles:
    """Adding, removing and restoring course files over the learners' engine."""

    def __init__(self, engine, settings: Settings):
        self.engine = engine
        self.settings = settings
        self.trash = CourseTrash(settings.data_dir, settings.trash_days)

    def files(self, course_id: str) -> list[CourseFile]:
        """Every file of the course folder, with its passages in the index."""
        course = self.engine.course(course_id)
        try:
            indexed = {r.source: r.chunks for r in self.engine.course_files(course_id)}
        except CourseRagError:
            indexed = {}
        try:
            paths = course_files(course.docs)
        except CourseRagError:
            paths = []
        rows = []
        for path in paths:
            source = path.relative_to(course.docs).as_posix()
            rows.append(CourseFile(source, path.stat().st_size, indexed.get(source, 0), source in indexed))
        return rows

    def clashes(self, course_id: str, names: Sequence[str], folder: object = ".") -> list[str]:
        """The upload names (as they would be stored) already taken in the target folder."""
        target = checked_folder(self.engine.course(course_id).docs, folder)
        taken = {n.casefold() for n in taken_names(target)}
        return [n for n in dict.fromkeys(safe_display_name(raw) for raw in names) if n.casefold() in taken]

    def add(
        self,
        course_id: str,
        uploads: Sequence[tuple[Path, str]],
        progress: Progress = None,
        folder: object = ".",
        on_clash: OnClash = "ask",
    ) -> tuple[BuildSummary | None, list[Notice]]:
        """Store each (path, name) in `folder` and index what changed; one notice per file.
        With `on_clash` "ask", a taken name is not stored (`course_file_exists`).
        None as summary: nothing was indexed (nothing stored, or another build runs)."""
        course = self.engine.course(course_id)
        target = checked_folder(course.docs, folder)
        notices: list[Notice] = []
        stored: list[_Stored] = []
        for path, raw_name in uploads:
            try:
                stored.append(self._store(course, target, Path(path), raw_name, on_clash))
            except CourseRagError as exc:
                notices.append(exc.notice)
        if not stored:
            return None, notices
        summary = self.engine.build_course(course_id, False, progress)
        failed = dict(summary.failed) if summary is not None else {}
        for item in stored:
            path = course.docs / item.source
            if summary is None or item.source in failed:
                if item.previous is not None:
                    os.replace(item.previous, path)  # its old chunks are still the indexed ones
                else:
                    path.unlink(missing_ok=True)  # never indexed
                reason = Notice("build_busy") if summary is None else Notice("plain", {"text": failed[item.source]})
                notices.append(Notice("course_file_not_indexed", {"name": item.source, "reason": reason}))
                continue
            if item.previous is not None:
                self.trash.put(course_id, item.previous, item.source, reason="replaced")
                notices.append(Notice("course_file_replaced", {"name": item.source}))
            else:
                notices.append(Notice("course_file_added", {"name": item.source}))
        return summary, notices

    def _store(self, course: Course, folder: Path, path: Path, raw_name: str, on_clash: OnClash) -> _Stored:
        """Check one upload (type, size, that it parses) and move it into `folder` atomically."""
        name = safe_display_name(raw_name)
        if self._is_server_file(path):
            raise CourseRagError("course_file_not_upload", name=name)
        extension = os.path.splitext(name)[1].lower()
        if extension not in SUPPORTED_EXTENSIONS:
            refuse_type(name, extension)
        file_size(path, name, self.settings.limits)
        parse_file(path, name, self.settings.limits)  # IngestError, in the instructor's words
        taken = taken_names(folder)
        clash = name.casefold() in {t.casefold() for t in taken}
        if clash and on_clash == "keep":
            name = free_name(name, taken)
        elif clash and on_clash != "replace":
            raise CourseRagError("course_file_exists", name=name)
        existing = next((folder / t for t in taken if t.casefold() == name.casefold()), None)
        if existing is not None and not existing.is_file():
            raise CourseRagError("course_file_exists", name=name)  # a folder of that name: never replaced
        name = existing.name if existing is not None else name  # replaced under the name it had
        source = (folder / name).relative_to(course.docs).as_posix()
        temporary = folder / f".{name}.{uuid.uuid4().hex}.tmp"  # hidden: never indexed
        previous = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(path.read_bytes())
            if existing is not None:
                previous = folder / f".{name}.{uuid.uuid4().hex}.previous"
                _keep_aside(existing, previous)
            os.replace(temporary, folder / name)
        except OSError as exc:
            try:  # the folder as it was: the old version under its name, nothing hidden left
                temporary.unlink(missing_ok=True)
                if previous is not None and os.path.lexists(previous):
                    _put_back(previous, folder / name)
            except OSError:
                log.warning("could not undo the replace of %s; the next start settles it", name)
            raise CourseRagError(
                "course_file_unwritable", name=name, detail=exc.strerror or type(exc).__name__
            ) from None
        return _Stored(source, previous)

    def recover(self) -> list[str]:
        """Finish or undo every replace a killed process left halfway; the courses whose
        folder it changed (to be indexed again). Run once at start, before any instructor
        action, since a replace in progress looks the same.

        Beside a leftover `.<name>.<id>.previous`: a new file under the name means the replace
        got that far, and the old version goes to the trash (restorable, as a finished replace
        leaves it); the old version itself under the name (a second link to it) means it
        never did, and the leftover link goes; no file means it stopped between its two
        moves, and the old version goes back. A leftover upload copy (`.tmp`) is deleted."""
        changed: list[str] = []
        for course in self.engine.courses:
            try:
                leftovers = _leftovers(course.docs)
            except OSError as exc:
                log.warning("could not look for unfinished replaces in %s: %s", course.id, exc)
                continue
            for path, kind, name in leftovers:
                try:
                    if kind == "tmp":
                        path.unlink(missing_ok=True)
                    else:
                        self._settle(course, path, path.with_name(name))
                except OSError as exc:
                    log.warning("could not settle %s of %s: %s", path.name, course.id, exc)
            if any(kind == "previous" for _, kind, _ in leftovers):
                changed.append(course.id)
        return changed

    def _settle(self, course: Course, previous: Path, target: Path) -> None:
        source = target.relative_to(course.docs).as_posix()
        if os.path.lexists(target) and not (target.is_file() and os.path.samefile(previous, target)):
            self.trash.put(course.id, previous, source, reason="replaced")
            log.warning(
                "%s/%s: a replace was interrupted after the new file was stored; "
                "the previous version is in the course trash",
                course.id,
                source,
            )
        else:
            _put_back(previous, target)
            log.warning(
                "%s/%s: a replace was interrupted before the new file was stored; the file is as it was",
                course.id,
                source,
            )

    def _is_server_file(self, path: Path) -> bool:
        """Whether `path` is in a course folder or DATA_DIR: a server path given as an "upload"
        (another course's file was once copied in that way)."""
        try:
            resolved = path.resolve()
        except (OSError, ValueError):
            return True
        folders = [c.docs for c in self.engine.courses] + [self.settings.data_dir]
        return any(resolved.is_relative_to(Path(folder).resolve()) for folder in folders)

    def remove(self, course_id: str, source: str, progress: Progress = None) -> BuildSummary | None:
        """Move a file of the course folder to the course's trash and drop its passages."""
        course = self.engine.course(course_id)
        known = {p.relative_to(course.docs).as_posix(): p for p in course_files(course.docs)}
        if source not in known:
            raise CourseRagError("course_file_missing", name=str(source)[:200])
        try:
            self.trash.put(course_id, known[source], source)
        except OSError as exc:
            raise CourseRagError(
                "course_file_unwritable", name=source, detail=exc.strerror or type(exc).__name__
            ) from None
        return self.engine.build_course(course_id, False, progress)

    def trashed(self, course_id: str) -> list[TrashEntry]:
        """The course's trash, newest first (expired entries purged)."""
        self.engine.course(course_id)
        return self.trash.entries(course_id)

    def restore(self, course_id: str, entry_id: object, progress: Progress = None) -> tuple[str, BuildSummary | None]:
        """Put a trashed file back where it was (under a free name if that one is taken
        now; its folder made again if it is gone) and index it: (its path, the build)."""
        course = self.engine.course(course_id)
        entry = self.trash.get(course_id, entry_id)
        wanted = course.docs / entry.source
        if not is_inside(wanted.parent, course.docs):
            raise CourseRagError("course_folder_not_allowed", folder=str(Path(entry.source).parent))
        name = free_name(wanted.name, taken_names(wanted.parent))
        target = wanted.with_name(name)
        try:
            self.trash.take(course_id, entry.id, target)
        except OSError as exc:
            raise CourseRagError(
                "course_file_unwritable", name=entry.source, detail=exc.strerror or type(exc).__name__
            ) from None
        return target.relative_to(course.docs).as_posix(), self.engine.build_course(course_id, False, progress)


def _keep_aside(existing: Path, previous: Path) -> None:
    """Keep the old version as `previous` before the new one takes its name: a second link
    where the disk allows (the name is never empty), a move otherwise."""
    try:
        os.link(existing, previous, follow_symlinks=False)
    except OSError:
        os.replace(existing, previous)


def _put_back(previous: Path, target: Path) -> None:
    """Undo `_keep_aside`: the old version under its name again, and no leftover."""
    if os.path.lexists(target) and os.path.samefile(previous, target):
        previous.unlink()  # two links to one file: a rename would keep both
    else:
        os.replace(previous, target)


def _leftovers(docs: Path) -> list[tuple[Path, str, str]]:
    """(path, "tmp" or "previous", the course file's name) of what a replace left in the
    course folder, in folders that are not hidden (a replaced link is kept aside as a link:
    it is only ever renamed or unlinked, never read)."""
    if not docs.is_dir():
        return []
    found = []
    for path in sorted(docs.rglob(".*")):
        match = _LEFTOVER.fullmatch(path.name)
        if match is None or not (path.is_symlink() or path.is_file()) or not is_inside(path.parent, docs):
            continue
        found.append((path, match["kind"], match["name"]))
    return found
