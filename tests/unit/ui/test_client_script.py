"""The page script is filled in from the text catalog: Gradio's words it redraws after a
language switch are the catalog's, in every language, and no placeholder reaches the page."""

import json
import re

import pytest

from courserag.i18n.catalog import LANGUAGES
from courserag.i18n.ui_texts import t
from courserag.ui.theme import GRADIO_WORDS, client_js


def script_words() -> dict:
    found = re.search(r"const WORDS = (\{.*?\});\n", client_js())
    assert found, "the script declares its WORDS table"
    return json.loads(found.group(1))


def test_no_placeholder_is_left_in_the_script():
    assert "__CR_" not in client_js()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("word", GRADIO_WORDS)
def test_each_redrawn_word_comes_from_the_catalog(lang, word):
    assert script_words()[lang][word] == t(lang, f"gradio_{word}")
