"""One text catalog: everything the product says, in data files per language.

`texts/en.yaml` and `texts/zh.yaml` hold the same keys, by section: `message` (errors and
warnings, said by code: `messages.render`), `ui` (interface words: `ui_texts.t`) and
`locator` (a place in a file: `locators.say_locator`). `say` is the one lookup: it finds the
text in the language asked for (English when a language lacks it) and fills in its fields.
A test checks that every key exists in both languages.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

TEXTS = Path(__file__).with_name("texts")
LANGUAGES = ("en", "zh")


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, str]:
    """The language's texts, keyed "section.key" (read once)."""
    data = yaml.safe_load((TEXTS / f"{lang}.yaml").read_text(encoding="utf-8")) or {}
    return {f"{section}.{key}": str(text) for section, entries in data.items() for key, text in entries.items()}


def has(key: str) -> bool:
    """Whether the catalog holds `key` ("message.upload_ok", "ui.title", "locator.page")."""
    return key in table("en")


def keys(section: str) -> set[str]:
    """The keys of one section, without the section prefix."""
    prefix = section + "."
    return {key[len(prefix) :] for key in table("en") if key.startswith(prefix)}


def say(key: str, lang: str | None = "en", /, **values: object) -> str:
    """The text for `key` in `lang` (English when missing), with `values` filled in.

    An unknown key is a bug and raises KeyError. Without values the text is returned as it
    is, so a text may hold braces that are not fields.
    """
    english = table("en")[key]
    text = table(lang).get(key, english) if lang in LANGUAGES else english
    return text.format(**values) if values else text
