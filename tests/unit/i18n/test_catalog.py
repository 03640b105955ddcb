"""The text catalog: every key in both languages, with the same fields, read by one lookup."""

from __future__ import annotations

import re
import string

import pytest

from courserag.i18n.catalog import LANGUAGES, has, keys, say, table
from courserag.lang.script import has_ideograph


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_both_languages_hold_exactly_the_same_keys():
    english, chinese = set(table("en")), set(table("zh"))
    assert english == chinese, (sorted(english - chinese), sorted(chinese - english))


@pytest.mark.parametrize("key", sorted(table("en")))
def test_each_text_fills_only_fields_the_english_one_has(key):
    """The code supplies the English text's fields; a language may leave out a word it does
    not need (Chinese has no plural for "passages"), never ask for one that is not given."""
    assert fields(table("zh")[key]) <= fields(table("en")[key]), key


@pytest.mark.parametrize(
    "key", sorted(k for k, v in table("en").items() if re.search(r"[A-Za-z]{3}", re.sub(r"{[^}]*}", "", v)))
)
def test_chinese_texts_are_chinese(key):
    """An English sentence left in zh.yaml would show in the Chinese interface."""
    chinese = re.sub(r"{[^}]*}", "", table("zh")[key])
    assert has_ideograph(chinese), f"{key}: {table('zh')[key]!r}"


@pytest.mark.parametrize(
    "key, lang, values, expected",
    [
        ("locator.page", "zh", {"a": 3}, "第 3 页"),
        ("locator.lines", "en", {"a": 1, "b": 4}, "lines 1–4"),
        ("ui.instr_unlocked", "zh", {}, "🔓 已解锁。"),
        ("ui.instr_unlocked", "fr", {}, "🔓 Unlocked."),  # an unknown language is English
        ("ui.instr_unlocked", None, {}, "🔓 Unlocked."),
    ],
)
def test_say_finds_the_text_in_the_language_and_fills_it_in(key, lang, values, expected):
    assert say(key, lang, **values) == expected


def test_an_unknown_key_is_a_bug():
    with pytest.raises(KeyError):
        say("ui.no_such_key")
    assert not has("ui.no_such_key") and has("message.plain") and "plain" in keys("message")
    assert LANGUAGES == ("en", "zh")
