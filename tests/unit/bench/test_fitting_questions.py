"""The passage fit (scripts/fit_passages.py) and the kind measurements (scripts/measure_kinds.py)
read their questions as they say: fit and held apart, never a test split."""

import importlib.util
import sys
from pathlib import Path

import pytest

from bench.common import EVAL_DIR

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"


def _fit_passages():
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("fit_passages", SCRIPTS / "fit_passages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


needs_data = pytest.mark.skipif(not (EVAL_DIR / "syllabusqa_dev").is_dir(), reason="the shared sets are not here")


@needs_data
@pytest.mark.parametrize(
    "name", ["syllabusqa_dev", "squad_v1_dev", "cmrc2018_dev", "xquad_zh2en_dev", "xquad_en2zh_dev"]
)
def test_fit_and_held_questions_never_meet_and_no_test_split_is_read(name):
    module = _fit_passages()
    fit, held = module.questions_for(name, "fit"), module.questions_for(name, "held")
    assert fit and held and (name == "syllabusqa_dev" or len(fit) <= module.MAX_QUESTIONS)
    assert all(q.get("answerable") is not False for q in fit + held)
    if name == "syllabusqa_dev":
        assert {q["split"] for q in fit} == {"train"} and {q["split"] for q in held} == {"val"}
    else:  # whole titles apart, so a held-out question's passage was never fitted on
        assert not {q["title"] for q in fit} & {q["title"] for q in held}
