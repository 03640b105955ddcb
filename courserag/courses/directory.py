"""The course directory: which courses exist and where their materials are.

Read from course_directory.yaml (path overridable with COURSE_DIRECTORY). A bad entry is a
ConfigError that names the entry, so an instructor can fix the file without guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from courserag.errors import ConfigError, UnknownCourseError

_COURSE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_LANGUAGES = {"en", "zh"}


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
    return Course(
        id=course_id,
        name=entry["name"].strip(),
        description=entry["description"].strip(),
        language=language,
        docs=docs,
        instructors=tuple(str(i) for i in instructors),
        examples=tuple(str(e) for e in examples),
    )


def load_course_directory(path: Path) -> CourseDirectory:
    """Parse and validate course_directory.yaml; docs folders are relative to the file."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"course directory file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("courses"), list):
        raise ConfigError(f"{path} must have a top-level 'courses:' list")
    courses = [_parse_entry(i, entry, path.parent) for i, entry in enumerate(raw["courses"])]
    seen: set[str] = set()
    for course in courses:
        if course.id in seen:
            raise ConfigError(f"course {course.id!r} is listed twice in {path}")
        seen.add(course.id)
    return CourseDirectory(tuple(courses))
