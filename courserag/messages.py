"""What the product says about errors and warnings, in English and Chinese, by code.

Domain errors (`courserag.errors`) and answer warnings (`Notice`) carry a code and its
parameters instead of a finished sentence, so that each layer can say them in its own
language: the CLI and the JSON contract in English, the UI in the learner's language.
A code missing in Chinese falls back to English; an unknown code is a bug (KeyError).

Interface words (labels, buttons) are not here: they live with the UI (courserag/ui/texts.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

MESSAGES: dict[str, dict[str, str]] = {
    # -- general ------------------------------------------------------------------------
    "plain": {"en": "{text}", "zh": "{text}"},
    "config": {"en": "{detail}", "zh": "配置错误：{detail}"},
    "unknown_course": {
        "en": "unknown course id {course_id!r} (known courses: {known})",
        "zh": "未知的课程编号 {course_id!r}（现有课程：{known}）",
    },
    "no_courses": {"en": "none configured", "zh": "无"},
    # -- questions ----------------------------------------------------------------------
    "empty_question": {"en": "please type a question", "zh": "请先输入问题"},
    "question_too_long": {
        "en": "your question is {chars} characters long; please keep it under {limit}",
        "zh": "你的问题有 {chars} 个字符，请控制在 {limit} 个字符以内",
    },
    "bad_scope": {
        "en": "scope must be one of both, course, notes, but got {scope!r}",
        "zh": "检索范围必须是 both、course 或 notes 之一，而不是 {scope!r}",
    },
    # -- uploads and the session --------------------------------------------------------
    "ingest_failed": {"en": "{name}: {reason}", "zh": "{name}：{reason}"},
    "no_text_extracted": {"en": "no text could be extracted from this file", "zh": "无法从该文件中提取任何文字"},
    "file_over_limit": {
        "en": "the file is {size}, over the upload limit of {limit_mb} MB",
        "zh": "文件大小为 {size}，超过了 {limit_mb} MB 的上传上限",
    },
    "too_many_chunks": {
        "en": "it yields {chunks} passages; the limit is {limit}",
        "zh": "该文件会产生 {chunks} 个段落，超过了 {limit} 个的上限",
    },
    "file_unreadable": {
        "en": "the file could not be read ({detail})",
        "zh": "无法读取该文件（{detail}）",
    },
    "session_bytes": {
        "en": "{name}: your uploads would exceed {limit_mb} MB for this session; remove a file first",
        "zh": "{name}：本次会话的上传总量将超过 {limit_mb} MB，请先删除一个文件",
    },
    "session_chunks": {
        "en": "{name}: this session already holds {held} passages; adding {adding} more would pass the limit of {limit}",
        "zh": "{name}：本次会话已有 {held} 个段落，再添加 {adding} 个将超过 {limit} 个的上限",
    },
    "upload_ok": {
        "en": "✓ {name}: {units} {unit} read, {chunks} {passages} added",
        "zh": "✓ {name}：读取 {units} {unit}，新增 {chunks} 个段落",
    },
    "upload_ok_warn": {"en": "{line} ({warnings})", "zh": "{line}（{warnings}）"},
    "upload_duplicate": {
        "en": "✓ {name}: already uploaded, nothing new to add",
        "zh": "✓ {name}：之前已上传过，没有新内容",
    },
    "upload_failed": {"en": "✗ {error}", "zh": "✗ {error}"},
    "passage": {"en": "passage", "zh": "段落"},
    "passages": {"en": "passages", "zh": "段落"},
    # Units a file is read in ("3 pages read"): singular and plural.
    "unit_page": {"en": "page|pages", "zh": "页|页"},
    "unit_slide": {"en": "slide|slides", "zh": "张幻灯片|张幻灯片"},
    "unit_cell": {"en": "cell|cells", "zh": "个单元格|个单元格"},
    "unit_line": {"en": "line|lines", "zh": "行|行"},
    "unit_paragraph": {"en": "paragraph|paragraphs", "zh": "段|段"},
    "unit_section": {"en": "section|sections", "zh": "节|节"},
    # -- parsers (courserag/parsers) ----------------------------------------------------
    # -- course stores (courserag/stores) -----------------------------------------------
    "store_unavailable": {"en": "{detail}", "zh": "{detail}"},
    "course_folder_missing": {
        "en": "the course folder {folder} does not exist",
        "zh": "课程文件夹 {folder} 不存在",
    },
    # -- answer warnings (Notice) -------------------------------------------------------
    "course_store_down": {
        "en": "The course knowledge base ({store}) is unavailable right now: {detail}. Answering from {rest} only.",
        "zh": "课程知识库（{store}）暂时无法使用：{detail}。目前只根据{rest}回答。",
    },
    "rest_notes": {"en": "your notes", "zh": "你的笔记"},
    "rest_notes_and_copy": {"en": "your notes and the local copy", "zh": "你的笔记和本地副本"},
    "course_store_fallback": {
        "en": "The course knowledge base ({store}) is unavailable right now ({detail}); answering from the local copy ({fallback}).",
        "zh": "课程知识库（{store}）暂时无法使用（{detail}），改用本地副本（{fallback}）回答。",
    },
    "llm_fallback": {
        "en": "{reason}; showing the most relevant passages instead.",
        "zh": "{reason}；改为展示最相关的原文段落。",
    },
    # -- the language model -------------------------------------------------------------
    "llm_failed": {
        "en": "the language model at {host} failed ({kind})",
        "zh": "语言模型（{host}）出错（{kind}）",
    },
    "llm_unfinished": {
        "en": "the language model at {host} stopped before finishing its answer",
        "zh": "语言模型（{host}）未能完成回答",
    },
}


def render(code: str, params: Mapping[str, object] | None = None, lang: str = "en") -> str:
    """The sentence for `code` in `lang` (English when there is no translation).

    Parameters that are themselves `Notice`s (a nested reason) are rendered in the same
    language first.
    """
    entry = MESSAGES[code]
    template = entry.get(lang) or entry["en"]
    values = {k: (v.text(lang) if isinstance(v, Notice) else v) for k, v in (params or {}).items()}
    return template.format(**values)


def unit_word(unit: str, count: int, lang: str = "en") -> str:
    """'page' or 'pages' (by count) for a unit kind such as 'page', 'slide', 'line'."""
    code = f"unit_{unit}" if f"unit_{unit}" in MESSAGES else "unit_section"
    singular, plural = render(code, None, lang).split("|")
    return singular if count == 1 else plural


@dataclass(frozen=True)
class Notice:
    """A warning shown beside an answer (or a nested part of one), said by code."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if self.code not in MESSAGES:
            raise KeyError(f"no message for code {self.code!r}")

    def text(self, lang: str = "en") -> str:
        return render(self.code, self.params, lang)

    def __str__(self) -> str:
        return self.text("en")
