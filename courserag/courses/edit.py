"""Safe edits of one course's name, description and example questions in course_directory.yaml.

The instructor tab edits what learners see of a course without a text editor on the server.
An edit is validated field by field (CourseRagError codes, said in the instructor's language),
applied to the parsed file (every other key and course is kept as it was), checked by loading
the result exactly as the app does, and written atomically (a temporary file in the same
folder, fsync, rename): a crash or a bad edit never leaves a half-written course list. The
comment block at the top of the file is kept; comments inside the list are not (PyYAML does
not keep them).
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import yaml

from courserag.courses.directory import load_course_directory
from courserag.courses.text import text_problem
from courserag.errors import ConfigError, CourseRagError

MAX_NAME_CHARS = 120
MAX_DESCRIPTION_CHARS = 1000
MAX_EXAMPLES = 4  # the Study tab shows this many example chips
MAX_EXAMPLE_CHARS = 200
MAX_RAW_CHARS = 20_000  # form input before spaces are collapsed (the limits above apply after)

_LOCK = threading.Lock()  # one edit at a time in this process


@dataclass(frozen=True)
class CourseEdit:
    """The learner-facing words of a course."""

    name: str
    description: str
    examples: tuple[str, ...] = ()


def validated(name: str, description: str, examples: str | Sequence[str]) -> CourseEdit:
    """A CourseEdit from form input (examples one per line), or CourseRagError saying why not
    (also for text a browser or YAML cannot carry: see courserag/courses/text.py)."""
    raw_examples = examples if isinstance(examples, str) else "\n".join(str(e) for e in examples or ())
    for label, value in (("name", name), ("description", description), ("examples", raw_examples)):
        problem = text_problem(str(value or ""), MAX_RAW_CHARS, allow_newlines=True)
        if problem:
            raise CourseRagError("course_text_invalid", field=label, problem=problem)
    name = " ".join(str(name or "").split())
    description = " ".join(str(description or "").split())
    lines = examples.splitlines() if isinstance(examples, str) else list(examples or ())
    questions = tuple(q for q in (" ".join(str(line).split()) for line in lines) if q)
    if not name:
        raise CourseRagError("course_name_empty")
    if not description:
        raise CourseRagError("course_description_empty")
    if len(name) > MAX_NAME_CHARS:
        raise CourseRagError("course_name_too_long", chars=len(name), limit=MAX_NAME_CHARS)
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise CourseRagError("course_description_too_long", chars=len(description), limit=MAX_DESCRIPTION_CHARS)
    if len(questions) > MAX_EXAMPLES:
        raise CourseRagError("course_too_many_examples", count=len(questions), limit=MAX_EXAMPLES)
    for question in questions:
        if len(question) > MAX_EXAMPLE_CHARS:
            raise CourseRagError("course_example_too_long", chars=len(question), limit=MAX_EXAMPLE_CHARS)
    return CourseEdit(name, description, questions)


def _header(text: str) -> str:
    """The comment lines at the top of the file, kept above the rewritten list."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return "\n".join(lines) + "\n" if lines else ""


def edited_text(text: str, course_id: str, edit: CourseEdit) -> str:
    """The file's text with one course's name, description and examples replaced."""
    raw = yaml.safe_load(text)
    entries = raw.get("courses") if isinstance(raw, dict) else None
    entry = next((e for e in entries or [] if isinstance(e, dict) and e.get("id") == course_id), None)
    if entry is None:
        raise ConfigError(f"course {course_id!r} is not in the course list")
    entry["name"], entry["description"] = edit.name, edit.description
    if edit.examples:
        entry["examples"] = list(edit.examples)
    else:
        entry.pop("examples", None)
    body = yaml.safe_dump(raw, allow_unicode=True, sort_keys=False, width=1000, default_flow_style=False)
    return _header(text) + body


def update_course(path: Path, course_id: str, edit: CourseEdit) -> None:
    """Write the edit into the course list at `path`, validated and atomically."""
    path = Path(path)
    with _LOCK:
        try:
            new_text = edited_text(path.read_text(encoding="utf-8"), course_id, edit)
            mode = stat.S_IMODE(path.stat().st_mode)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            os.fchmod(fd, mode)  # mkstemp makes 0600: the saved file keeps the mode it had (0644)
        except OSError as exc:
            raise CourseRagError("course_list_unwritable", detail=exc.strerror or type(exc).__name__) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(new_text)
                handle.flush()
                os.fsync(handle.fileno())
            load_course_directory(Path(tmp))  # exactly what the app will read, or ConfigError
            os.replace(tmp, path)
        except OSError as exc:
            raise CourseRagError("course_list_unwritable", detail=exc.strerror or type(exc).__name__) from None
        finally:
            Path(tmp).unlink(missing_ok=True)
