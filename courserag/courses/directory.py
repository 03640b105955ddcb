"""The course directory: which courses exist and where their materials are.

Read from course_directory.yaml (path overridable with COURSE_DIRECTORY). A bad entry is a
ConfigError that names the entry, so an instructor can fix the file without guessing.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from courserag.courses.text import text_problem
from courserag.errors import ConfigError, UnknownCourseError

_COURSE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_LANGUAGES = {"en", "zh"}
LAST_GOOD_FILE = "course_directory.last-good.yaml"  # in DATA_DIR
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Course:
    id: str
    name: str
    description: str
    language: str
    docs: Path
    instructors: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name} ({self.id})"


@dataclass(frozen=True)
class CourseDirectory:
    courses: tuple[Course, ...] = field(default_factory=tuple)

    @property
    def ids(self) -> list[str]:
        return [c.id for c in self.courses]

    def get(self, course_id: str) -> Course:
        for course in self.courses:
            if course.id == course_id:
                return course
        raise UnknownCourseError(course_id, self.ids)


def _parse_entry(index: int, entry: object, base: Path) -> Course:
    where = f"course_directory entry #{index + 1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a mapping with id, name, description, language, docs")
    course_id = entry.get("id")
    if not isinstance(course_id, str) or not _COURSE_ID.match(course_id):
        raise ConfigError(f"{where}: id must be letters, digits, '-', '_' or '.', but got {course_id!r}")
    where = f"course {course_id!r}"
    for key in ("name", "description", "docs"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise ConfigError(f"{where}: '{key}' is missing or not a string")
    language = str(entry.get("language", "en"))
    if language not in _LANGUAGES:
        raise ConfigError(f"{where}: language must be one of {sorted(_LANGUAGES)}, but got {language!r}")
    docs = (base / entry["docs"]).resolve()
    instructors = entry.get("instructors") or []
    examples = entry.get("examples") or []
    if not isinstance(instructors, list) or not isinstance(examples, list):
        raise ConfigError(f"{where}: instructors and examples must be lists")
    texts = [("name", entry["name"], 1000), ("description", entry["description"], 10_000)]
    texts += [("example", str(e), 1000) for e in examples] + [("instructor", str(i), 1000) for i in instructors]
    for key, value, limit in texts:
        problem = text_problem(value, limit, allow_newlines=key == "description")
        if problem:
            raise ConfigError(f"{where}: the {key} {problem}")
    return Course(
        id=course_id,
        name=entry["name"].strip(),
        description=entry["description"].strip(),
        language=language,
        docs=docs,
        instructors=tuple(str(i) for i in instructors),
        examples=tuple(str(e) for e in examples),
    )


def load_course_directory(path: Path, base: Path | None = None) -> CourseDirectory:
    """Parse and validate course_directory.yaml; docs folders are relative to the file (or to
    `base`, for a copy kept elsewhere)."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"course directory file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("courses"), list):
        raise ConfigError(f"{path} must have a top-level 'courses:' list")
    courses = [_parse_entry(i, entry, Path(base) if base else path.parent) for i, entry in enumerate(raw["courses"])]
    seen: set[str] = set()
    for course in courses:
        if course.id in seen:
            raise ConfigError(f"course {course.id!r} is listed twice in {path}")
        seen.add(course.id)
    return CourseDirectory(tuple(courses))


def last_good_path(data_dir: Path) -> Path:
    return Path(data_dir) / LAST_GOOD_FILE


def load_or_last_good(path: Path, data_dir: Path) -> CourseDirectory:
    """The course directory at `path`, remembered in DATA_DIR as the last good copy; when it
    cannot be loaded, that copy (docs still relative to `path`), with a warning naming the
    error. Without a good copy the ConfigError stands: the app cannot guess the courses."""
    path, keep = Path(path), last_good_path(data_dir)
    try:
        directory = load_course_directory(path)
    except ConfigError as exc:
        if not keep.is_file():
            raise
        directory = load_course_directory(keep, base=path.parent)
        log.warning("%s cannot be loaded (%s); using the last good copy %s", path, exc, keep)
        return directory
    remember_good(path, data_dir)
    return directory


def remember_good(path: Path, data_dir: Path) -> None:
    """Keep a copy of a course directory that loaded (atomically; a failure is only logged)."""
    keep = last_good_path(data_dir)
    try:
        data = Path(path).read_bytes()
        if keep.is_file() and keep.read_bytes() == data:
            return
        keep.parent.mkdir(parents=True, exist_ok=True)
        tmp = keep.with_name(f".{keep.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, keep)
    except OSError as exc:
        log.warning("could not keep a copy of %s in %s: %s", path, keep.parent, exc.strerror or exc)
