"""The UI's words: the `ui` section of the text catalog (courserag/i18n/texts/).

`t(lang, key, **values)` is `catalog.say("ui." + key, ...)`: a key missing in a language, or
an unknown language, falls back to English, so a missing translation never breaks a page.
"""

from __future__ import annotations

from courserag.i18n.catalog import say

LANG_CHOICES = [("English", "en"), ("中文", "zh")]


def t(lang: str | None, key: str, **values) -> str:
    """The string for `key` in `lang` (English when missing), formatted with `values`."""
    return say(f"ui.{key}", lang or "en", **values)


def normalize_lang(value: str | None) -> str:
    """'zh', 'zh-CN', '中文' -> 'zh'; anything else -> 'en'."""
    value = (value or "").strip().lower()
    return "zh" if value.startswith("zh") or value == "中文" else "en"
