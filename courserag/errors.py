"""Domain errors, in one place. Only the UI and CLI layers turn them into words for a user.

Every error carries a `code` and its `params` (see courserag/i18n/messages.py), so the UI can
say it in the learner's language; `str(error)` is the English sentence, for the CLI and
logs. Every message names the bad value (a file name, a course id, an environment
variable) and never contains a secret.
"""

from __future__ import annotations

from courserag.i18n.messages import Notice, render


class CourseRagError(Exception):
    """Base class: anything the user can be told about in one sentence."""

    def __init__(self, code: str, **params):
        self.notice = Notice(code, params)
        super().__init__(render(code, params, "en"))

    @property
    def code(self) -> str:
        return self.notice.code

    @property
    def params(self) -> dict:
        return dict(self.notice.params)

    def say(self, lang: str = "en") -> str:
        """The message in `lang` ('en' or 'zh')."""
        return self.notice.text(lang)


class ConfigError(CourseRagError):
    """The settings or course_directory.yaml are wrong (said to operators, in English)."""

    def __init__(self, detail: str):
        super().__init__("config", detail=detail)


class QuestionError(CourseRagError):
    """The question cannot be asked as given (empty, too long, a bad scope)."""


class UnknownCourseError(CourseRagError):
    """A course id that is not in course_directory.yaml."""

    def __init__(self, course_id: str, known: list[str]):
        self.course_id = course_id
        self.known = known
        super().__init__("unknown_course", course_id=course_id, known=", ".join(known) or Notice("no_courses"))


class IngestError(CourseRagError):
    """A file that cannot be turned into text: the message says which file and why.

    `reason_code` and its params say why (a code of courserag/i18n/messages.py); `reason` is
    the English reason alone, without the file name.
    """

    def __init__(self, file_name: str, reason_code: str, **params):
        self.file_name = file_name
        reason = Notice(reason_code, params)
        self.reason_notice = reason
        self.reason = reason.text("en")
        super().__init__("ingest_failed", name=file_name, reason=reason)


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


class TooComplexError(IngestError):
    """Reading the file would cost more than its budget (time, memory, or structure counted
    before parsing): said as "too complex to read" with the reason, a code of messages.py."""

    def __init__(self, file_name: str, reason_code: str, **params):
        super().__init__(file_name, "too_complex", reason=Notice(reason_code, params))


class SessionLimitError(CourseRagError):
    """A per-session quota (total upload size, chunk count) would be exceeded."""


class StoreUnavailableError(CourseRagError):
    """The course store cannot be reached or answered with an error (detail for operators)."""

    def __init__(self, detail: str):
        super().__init__("store_unavailable", detail=detail)


class EmbeddingSpaceError(StoreUnavailableError):
    """The course's vectors come from another embedding model than the app's: searching
    them would compare two vector spaces, so the app refuses and names the command to run."""

    def __init__(self, course_id: str, built: str, current: str):
        self.course_id, self.built, self.current = course_id, built, current
        CourseRagError.__init__(self, "index_other_model", course_id=course_id, built=built, current=current)


class LLMUnavailableError(CourseRagError):
    """The chat endpoint failed; the caller falls back to the extractive answer."""
