"""Chinese script in text, defined once: the character ranges, and the language of a text.

Every module that asks "is this Chinese?" or "may these two pieces be joined without a space?"
asks here, so the answer is the same in ingestion, retrieval, the answer step, the display
and the evaluation.

- `IDEOGRAPHS`: the Han characters Chinese is written in (CJK Unified Ideographs, Extension
  A, and the compatibility ideographs), as the body of a regex character class.
- `CJK_TEXT`: those plus CJK punctuation (U+3000-303F) and full-width forms (U+FF00-FFEF):
  everything Chinese text is set in, where neighbours take no space between them.
- A text's language (`script_of`) is "zh" when at least a fifth of its non-space characters
  are ideographs, else "en": "CSC3100 的期中考试是什么时候？" is Chinese, "What does 栈 mean?"
  is English. The question's language, the answer's wording and the catalog all read it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_TEXT = IDEOGRAPHS + "\u3000-\u303f\uff00-\uffef"

IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")
IDEOGRAPH_RUN = re.compile(f"[{IDEOGRAPHS}]+")
CJK_CHARACTER = re.compile(f"[{CJK_TEXT}]")

# The share of ideographs from which a text counts as Chinese: a Chinese sentence with a
# course code or an English term in it is still Chinese; an English one quoting a word is not.
CHINESE_SHARE = 0.2

_SPACE = re.compile(r"\s")


def cjk_ratio(text: str) -> float:
    r"""Share of ideographs among the non-space characters (0 for empty text). Counted with
    two regex scans (re's \s is str.isspace): it runs on every new retrieval candidate."""
    letters = len(text) - len(_SPACE.findall(text))
    return len(IDEOGRAPH.findall(text)) / letters if letters else 0.0


def is_chinese(text: str, threshold: float = CHINESE_SHARE) -> bool:
    """True when enough of the text is ideographs that it reads as Chinese."""
    return cjk_ratio(text) >= threshold


@lru_cache(maxsize=65536)
def text_is_chinese(text: str) -> bool:
    """`is_chinese` at the default share, remembered: for texts read again and again (the
    retrieval candidates of every question)."""
    return is_chinese(text)


def script_of(text: str) -> str:
    """ "zh" for text written in Chinese (is_chinese), "en" otherwise."""
    return "zh" if is_chinese(text) else "en"


def asked_across(language: str, materials: str | None) -> bool:
    """Whether a question in `language` is asked across languages of materials in
    `materials` ("zh" or "en"; None: unknown, so not across)."""
    return materials is not None and (language == "zh") != (materials == "zh")


def mostly_other_language(texts: Iterable[str], chinese: bool) -> bool:
    """Whether most of `texts` are in the other language than a question (`chinese`): what
    was actually found, where `asked_across` reads the course's declared language before
    the search (a Chinese course holds English code files, a learner's notes any language)."""
    texts = list(texts)
    return sum(text_is_chinese(t) != chinese for t in texts) > len(texts) / 2


def joins_without_space(left: str, right: str) -> bool:
    """Whether `left` and `right` (non-empty) meet without a space: both sides are Chinese
    text at the seam ("数据" + "结构", "。" + "下"), where a space would split a word."""
    return bool(left and right and CJK_CHARACTER.match(left[-1]) and CJK_CHARACTER.match(right[0]))


def has_ideograph(text: str) -> bool:
    return IDEOGRAPH.search(text) is not None
