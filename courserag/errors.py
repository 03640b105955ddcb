"""Domain errors, in one place. Only the UI and CLI layers turn them into words for a user.

Every message names the bad value (a file name, a course id, an environment variable) and
never contains a secret.
"""

from __future__ import annotations


class CourseRagError(Exception):
    """Base class: anything the user can be told about in one sentence."""


class ConfigError(CourseRagError):
    """The settings or course_directory.yaml are wrong."""


class UnknownCourseError(CourseRagError):
    """A course id that is not in course_directory.yaml."""

    def __init__(self, course_id: str, known: list[str]):
        self.course_id = course_id
        self.known = known
        known_text = ", ".join(known) if known else "none configured"
        super().__init__(f"unknown course id {course_id!r} (known courses: {known_text})")


class IngestError(CourseRagError):
    """A file that cannot be turned into text: the message says which file and why."""

    def __init__(self, file_name: str, reason: str):
        self.file_name = file_name
        self.reason = reason
        super().__init__(f"{file_name}: {reason}")


class UnsupportedFileError(IngestError):
    """The file type is not one we read."""


class FileTooLargeError(IngestError):
    """The file, or what it decompresses to, is over a configured limit."""


class EncryptedFileError(IngestError):
    """The file is password-protected."""


class EmptyFileError(IngestError):
    """The file has no extractable text (empty, or a scanned PDF without a text layer)."""


class CorruptFileError(IngestError):
    """The file is damaged or is not what its extension says."""


class SessionLimitError(CourseRagError):
    """A per-session quota (total upload size, chunk count) would be exceeded."""


class StoreUnavailableError(CourseRagError):
    """The course store cannot be reached or answered with an error."""


class LLMUnavailableError(CourseRagError):
    """The chat endpoint failed; the caller falls back to the extractive answer."""
