import pytest

from courserag.config.settings import Settings, secret
from courserag.courses.directory import load_course_directory
from courserag.errors import ConfigError, UnknownCourseError

GOOD = """
courses:
  - id: c1
    name: Course One
    description: First
    language: en
    docs: docs/c1
    examples: ["Q?"]
"""


def write(tmp_path, text):
    path = tmp_path / "course_directory.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_loads_and_resolves_docs_relative_to_file(tmp_path):
    directory = load_course_directory(write(tmp_path, GOOD))
    course = directory.get("c1")
    assert course.docs == (tmp_path / "docs" / "c1").resolve()
    assert course.examples == ("Q?",)


def test_unknown_course_names_known_ones(tmp_path):
    directory = load_course_directory(write(tmp_path, GOOD))
    with pytest.raises(UnknownCourseError, match="'nope'.*c1"):
        directory.get("nope")


@pytest.mark.parametrize(
    "text, message",
    [
        ("courses: 3", "top-level 'courses:' list"),
        ("courses:\n  - id: bad id\n", "entry #1: id must be"),
        ("courses:\n  - id: c2\n    name: N\n    docs: d\n", "course 'c2': 'description' is missing"),
        (
            "courses:\n  - id: c2\n    name: N\n    description: D\n    docs: d\n    language: fr\n",
            "language must be one of",
        ),
        (GOOD + GOOD.replace("courses:\n", ""), "listed twice"),
        ("courses: [\n", "not valid YAML"),
    ],
)
def test_bad_directory_names_the_entry(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load_course_directory(write(tmp_path, text))


def test_missing_directory_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_course_directory(tmp_path / "none.yaml")


def test_settings_from_env():
    settings = Settings.from_env(
        {"TOP_K": "6", "DATA_DIR": "/tmp/x", "WEAVIATE_URL": "http://h:8080", "LLM_BASE_URL": "http://l/v1"}
    )
    assert settings.retrieval.top_k == 6 and settings.store_kind == "weaviate" and settings.llm_enabled


@pytest.mark.parametrize(
    ("env", "threads"),
    [
        ({}, 1),
        ({"CPU_THREADS": "2"}, 2),
        ({"READER_THREADS": "2"}, 2),
        ({"CPU_THREADS": "2", "READER_THREADS": "1"}, 1),
    ],
)
def test_the_reader_runs_on_its_own_thread_count_else_the_models_one(env, threads):
    assert Settings.from_env(env).reader_thread_count == threads


@pytest.mark.parametrize(
    "env, message",
    [
        ({"TOP_K": "many"}, "TOP_K must be a int"),
        ({"TOP_K": "0"}, "TOP_K must be > 0"),
        ({"FUSION": "magic"}, "FUSION must be"),
        ({"UNIT_TOKEN_CACHE": "0"}, "UNIT_TOKEN_CACHE must be > 0"),
        ({"UNIT_VECTOR_CACHE": "-1"}, "UNIT_VECTOR_CACHE and UNIT_TOKEN_CACHE must be > 0"),
        ({"READER_THREADS": "-2"}, "READER_THREADS must be 0"),
    ],
)
def test_settings_validation_names_the_variable(env, message):
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_secrets_are_not_part_of_settings(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "sk-very-secret")
    monkeypatch.setenv("INSTRUCTOR_TOKEN", "tok-secret")
    settings = Settings.from_env()
    assert "sk-very-secret" not in repr(settings) and "tok-secret" not in str(settings.describe())
    assert secret("LLM_API_KEY") == "sk-very-secret"
    monkeypatch.delenv("LLM_API_KEY")
    with pytest.raises(ConfigError, match="LLM_API_KEY is not set"):
        secret("LLM_API_KEY")
