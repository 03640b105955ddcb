"""Every environment variable the settings declare is documented, and read by its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from courserag.config.environment import variables
from courserag.config.settings import Settings

DOC = Path(__file__).resolve().parents[3] / "docs" / "CONFIGURATION.md"


@pytest.mark.parametrize("name", variables(Settings))
def test_every_variable_is_in_the_configuration_table(name):
    assert f"`{name}`" in DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "env, read",
    [
        ({"TOP_K": "6"}, lambda s: s.retrieval.top_k == 6),
        ({"UNIT_TOKEN_CACHE": "5000"}, lambda s: s.unit_token_cache == 5000),
        ({"MAX_PDF_CONTENT_MB": "8"}, lambda s: s.limits.max_pdf_content_mb == 8.0),
        ({"PARSE_WORKERS": "3"}, lambda s: s.parse.workers == 3),
        ({"MAX_HISTORY_CHARS": "5000"}, lambda s: s.server.max_history_chars == 5000),
        ({"DICTIONARY_BRIDGE": "0"}, lambda s: s.retrieval.bridge is False),
        ({"MODEL_CACHE_DIR": "/m"}, lambda s: s.model_cache_dir == Path("/m")),
        ({"GRADIO_SERVER_PORT": "9000"}, lambda s: s.port == 9000),
        ({"PORT": "9001", "GRADIO_SERVER_PORT": "9000"}, lambda s: s.port == 9001),
        ({"SPACE_ID": "u/s"}, lambda s: s.host == "0.0.0.0" and s.build_index_on_start),
        ({"SPACE_ID": "u/s", "BUILD_INDEX_ON_START": "0"}, lambda s: not s.build_index_on_start),
        ({"HF_TOKEN": "t"}, lambda s: s.llm_enabled and s.llm_model == "Qwen/Qwen2.5-7B-Instruct"),
        (
            {"HF_TOKEN": "t", "LLM_BASE_URL": "http://l/v1"},
            lambda s: s.llm_base_url == "http://l/v1" and s.llm_model == "gpt-4o-mini",
        ),
        ({}, lambda s: s == Settings()),
    ],
)
def test_each_setting_is_read_from_its_variable(env, read):
    assert read(Settings.from_env(env))


@pytest.mark.parametrize(
    "env, message",
    [({"DICTIONARY_BRIDGE": "maybe"}, "DICTIONARY_BRIDGE must be 1 or 0"), ({"PORT": "x"}, "PORT must be a int")],
)
def test_a_bad_value_names_its_variable(env, message):
    from courserag.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)
