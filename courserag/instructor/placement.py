"""Where an instructor's upload lands: a folder chosen among the course folder's existing
subfolders (checked on the server, whatever the page sent), and a name that clashes with
nothing when the instructor keeps both files ("notes.pdf" -> "notes (2).pdf").

Nothing here creates a folder: a choice is valid only if it is one of `subfolders(docs)`,
so "../ds2010", "/etc" or ".hidden" are refused with the folder named, never resolved.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from courserag.errors import CourseRagError

ROOT = "."  # the course folder itself
MAX_FOLDERS = 500  # a folder picker, not a file browser
_NUMBERED = re.compile(r"^(?P<stem>.*?) \((?P<n>\d+)\)$")


def subfolders(docs: Path) -> list[str]:
    """The course folder's subfolders as POSIX paths, sorted: hidden ones and links that
    lead out of the folder left out (their files are never indexed or served)."""
    root = Path(docs)
    if not root.is_dir():
        return []
    resolved_root = root.resolve()
    found = []
    for current, dirs, _ in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in dirs:
            path = Path(current) / name
            try:
                inside = path.resolve(strict=True).is_relative_to(resolved_root)
            except (OSError, RuntimeError):
                inside = False
            if inside:
                found.append(path.relative_to(root).as_posix())
        if len(found) >= MAX_FOLDERS:
            break
    return sorted(found)[:MAX_FOLDERS]


def checked_folder(docs: Path, folder: object) -> Path:
    """The folder to store in: the course folder for "" or ".", else one of its existing
    subfolders named exactly; anything else is refused (`course_folder_not_allowed`)."""
    name = str(folder or ROOT).strip() or ROOT
    if name == ROOT:
        return Path(docs)
    if name not in subfolders(docs):
        raise CourseRagError("course_folder_not_allowed", folder=name[:120])
    return Path(docs) / name


def free_name(name: str, taken: Iterable[str]) -> str:
    """`name`, or the first "stem (n).ext" (n = 2, 3, …) not in `taken` (compared without
    case, as on the file systems of Windows and macOS)."""
    used = {t.casefold() for t in taken}
    if name.casefold() not in used:
        return name
    stem, extension = os.path.splitext(name)
    match = _NUMBERED.match(stem)
    if match:  # "notes (2).pdf" taken too: "notes (3).pdf", not "notes (2) (2).pdf"
        stem = match.group("stem")
    number = 2
    while f"{stem} ({number}){extension}".casefold() in used:
        number += 1
    return f"{stem} ({number}){extension}"


def taken_names(folder: Path) -> list[str]:
    """The names already in `folder` (files and folders alike: either would clash)."""
    try:
        return [entry.name for entry in Path(folder).iterdir()]
    except OSError:
        return []
