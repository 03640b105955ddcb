"""AdamW's parameter groups (training/reader/train.py): the encoder layers at learning_rate,
the heads at head_learning_rate (or learning_rate when it is not given), decay on weight
matrices only, every trainable parameter in exactly one group and nothing frozen in any;
and a config.json written before head_learning_rate existed still loads."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the reader's training needs torch (requirements-minilm.txt)")
pytest.importorskip("transformers", reason="the reader's training needs transformers (requirements-minilm.txt)")

from training.reader.model import build_reader  # noqa: E402
from training.reader.train import TrainConfig, parameter_groups  # noqa: E402

HEADS = {"span.weight", "span.bias", "answer.weight", "answer.bias"}


@pytest.fixture(scope="module")
def readers(e5_file):
    return {layers: build_reader(e5_file, layers) for layers in (0, 1, 2)}


@pytest.mark.parametrize(
    ("layers", "learning_rate", "head_learning_rate", "encoder_rate", "heads_rate"),
    [
        (2, 1e-4, 1e-3, 1e-4, 1e-3),
        (2, 5e-5, None, 5e-5, 5e-5),  # not given: the heads take learning_rate
        (1, 2e-5, 2e-5, 2e-5, 2e-5),
        (0, 1e-4, 3e-3, None, 3e-3),  # heads only: no encoder group
    ],
)
def test_groups_carry_the_encoder_and_the_head_rates(
    readers, layers, learning_rate, head_learning_rate, encoder_rate, heads_rate
):
    config = TrainConfig(sets=("mlqa_dev_en",), learning_rate=learning_rate, head_learning_rate=head_learning_rate)
    reader = readers[layers]
    names = {id(p): name for name, p in reader.named_parameters()}
    groups = parameter_groups(reader, config)

    grouped = [names[id(p)] for group in groups for p in group["params"]]
    assert len(grouped) == len(set(grouped)), "a parameter is in two groups"
    assert set(grouped) == {name for name, p in reader.named_parameters() if p.requires_grad}
    for group in groups:
        kinds = {name in HEADS for name in (names[id(p)] for p in group["params"])}
        assert len(kinds) == 1, "a group mixes heads and encoder layers"
        assert group["lr"] == (heads_rate if kinds == {True} else encoder_rate)
        decays = {names[id(p)].endswith("bias") or "LayerNorm" in names[id(p)] for p in group["params"]}
        assert decays == {group["weight_decay"] == 0.0}
    assert HEADS <= set(grouped)
    assert any(not name.startswith("span.") and not name.startswith("answer.") for name in grouped) == (layers > 0)

    optimizer = torch.optim.AdamW(groups, lr=learning_rate)
    assert sorted({g["lr"] for g in optimizer.param_groups}) == sorted({r for r in (encoder_rate, heads_rate) if r})


@pytest.mark.parametrize(
    ("record", "heads_rate"),
    [
        ({"sets": ["mlqa_dev_en"], "learning_rate": 5e-5}, 5e-5),  # written before head_learning_rate
        ({"sets": ["mlqa_dev_en"], "learning_rate": 1e-4, "head_learning_rate": 1e-3}, 1e-3),
        ({"sets": ["mlqa_dev_en"], "learning_rate": 1e-4, "head_learning_rate": None}, 1e-4),
    ],
)
def test_config_json_round_trips_the_head_rate(record, heads_rate):
    config = TrainConfig.from_json(record)
    assert config.heads_rate == heads_rate
    assert TrainConfig.from_json(config.to_json()) == config
    assert "head_learning_rate" in config.to_json()


@pytest.mark.parametrize("rates", [(0.0, None), (1e-4, 0.0), (-1e-4, 1e-3)])
def test_a_rate_not_above_zero_is_refused(rates):
    with pytest.raises(ValueError, match="learning rates must be > 0"):
        TrainConfig(sets=("mlqa_dev_en",), learning_rate=rates[0], head_learning_rate=rates[1])


def test_a_run_written_before_precision_was_a_setting_resumes_in_float32():
    assert TrainConfig.from_json({"sets": ["mlqa_dev_en"]}).precision == "float32"


@pytest.mark.parametrize("precision", ["float16", "bf16", ""])
def test_a_precision_the_training_does_not_run_is_refused(precision):
    with pytest.raises(ValueError, match="precision must be one of float32, bfloat16"):
        TrainConfig(sets=("mlqa_dev_en",), precision=precision)


@pytest.mark.parametrize("repeats", [{"other_set": 2}, {"mlqa_dev_en": 0}])
def test_a_repeat_of_a_set_not_trained_or_below_once_is_refused(repeats):
    with pytest.raises(ValueError, match="repeats must name a trained set"):
        TrainConfig(sets=("mlqa_dev_en",), repeats=repeats)


def test_repeats_survive_the_run_s_config_file():
    config = TrainConfig(sets=("mlqa_dev_en", "syllabusqa_train"), repeats={"syllabusqa_train": 3})
    assert TrainConfig.from_json(config.to_json()) == config
