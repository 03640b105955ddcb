"""A shallower reader distilled from a trained one (training/reader: `encoder_layers`,
`teacher`): it starts from its parent's layers of those numbers, learns from the teacher's
logits as well as from the answers, exports as a delta that says which of E5's layers it
keeps, and the product's ONNX reader computes what it computes.

Seeded and single-threaded; skipped without torch or the shared training sets."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the reader's training needs torch (requirements-minilm.txt)")
pytest.importorskip("transformers", reason="the reader's training needs transformers (requirements-minilm.txt)")
pytest.importorskip("safetensors", reason="the reader's export needs safetensors (requirements-minilm.txt)")

from training.reader import checkpoints  # noqa: E402
from training.reader.data import featurize, pad_batch  # noqa: E402
from training.reader.export import export_delta, reader_from_delta  # noqa: E402
from training.reader.model import ReaderOutput, build_reader, kept_layers  # noqa: E402
from training.reader.sets import pinned_examples  # noqa: E402
from training.reader.train import TrainConfig, continued_from, distill_loss, train  # noqa: E402
from training.reader.weights import bert_state_dict  # noqa: E402

PARENT = TrainConfig(
    sets=("mlqa_dev_en",),
    steps=2,
    batch_size=4,
    max_tokens=96,
    stride=48,
    trainable_layers=1,  # the parent trains E5's layer 11 alone
    learning_rate=1e-3,
    max_examples=8,
    log_every=1,
    checkpoint_every=2,
    seed=5,
)
KEPT = (0, 11)


@pytest.fixture(scope="module")
def parent(tmp_path_factory):
    from training.reader.sets import data_root

    if not (data_root() / "mlqa_dev_en" / "data.json").is_file():
        pytest.skip(f"the shared training sets are not at {data_root()} (set SHARED_TRAIN)")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("parent")
    train(PARENT, folder / "run")
    path = folder / "export" / "reader.safetensors"
    export_delta(folder / "run", path)  # float32: the parent's weights exactly
    yield path
    torch.set_num_threads(threads)


def shallower(parent, **changes) -> TrainConfig:
    """A 2-layer reader (E5's layers 0 and 11) from the parent, taught by it."""
    given = {"encoder_layers": KEPT, "trainable_layers": 2, "init_from": str(parent), "teacher": str(parent)}
    return dataclasses.replace(PARENT, **{**given, **changes})


@pytest.mark.parametrize(
    ("kept", "names"),
    [
        ((0, 11), ["emb", "encoder.layer.0.w", "encoder.layer.1.w"]),
        ((11, 0), ["emb", "encoder.layer.0.w", "encoder.layer.1.w"]),
        ((5,), ["emb", "encoder.layer.0.w"]),
    ],
)
def test_kept_layers_renumbers_the_layers_kept_in_order_and_drops_the_others(kept, names):
    state = {"emb": 0, **{f"encoder.layer.{i}.w": i for i in range(12)}}
    out = kept_layers(state, kept)
    assert sorted(out) == names
    assert [out[f"encoder.layer.{new}.w"] for new in range(len(kept))] == list(kept)


def _logits(start, end, answer) -> ReaderOutput:
    return ReaderOutput(torch.tensor([start]), torch.tensor([end]), torch.tensor([answer]))


@pytest.mark.parametrize(
    ("student", "loss"),
    [
        (_logits([1.0, 2.0, 3.0, 9.0], [0.0, 1.0, 2.0, 9.0], 0.5), 0.0),  # the teacher's own logits
        (_logits([1.0, 2.0, 3.0, -9.0], [0.0, 1.0, 2.0, 5.0], 0.5), 0.0),  # off the passage: not read
        (_logits([3.0, 2.0, 3.0, 9.0], [0.0, 1.0, 2.0, 9.0], 0.5), 4.0 / 3 / 2),  # <s> ("no span") is read
        (_logits([1.0, 2.0, 3.0, 9.0], [0.0, 1.0, 2.0, 9.0], 2.5), 4.0),  # answerability
    ],
)
def test_the_distillation_loss_counts_the_logits_the_product_reads(student, loss):
    teacher = _logits([1.0, 2.0, 3.0, 9.0], [0.0, 1.0, 2.0, 9.0], 0.5)
    batch = {"passage_mask": torch.tensor([[False, True, True, False]])}  # <s>, two passage tokens, </s>
    assert distill_loss(student, teacher, batch).item() == pytest.approx(loss)


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"encoder_layers": (3, 3)}, "distinct layers"),
        ({"encoder_layers": ()}, "distinct layers"),
        ({"encoder_layers": (0, 11), "trainable_layers": 3}, "exceeds the 2 encoder layers"),
    ],
)
def test_a_shallower_reader_s_layers_must_fit_it(changes, says):
    with pytest.raises(ValueError, match=says):
        dataclasses.replace(PARENT, **changes)


def test_a_shallower_reader_s_settings_read_back_as_written():
    config = dataclasses.replace(PARENT, encoder_layers=KEPT, trainable_layers=2, teacher="t.safetensors")
    assert TrainConfig.from_json(json.loads(json.dumps(config.to_json()))) == config


def test_a_shallower_reader_starts_from_its_parent_s_layers_of_those_numbers(parent, e5_file):
    state, record = continued_from(shallower(parent))
    exported = reader_from_delta(parent, e5_file).state_dict()
    prefix = "bert.encoder.layer."
    assert {name.split(".")[3] for name in state["trainable"] if name.startswith(prefix)} == {"1"}
    for name, value in state["trainable"].items():  # the parent trained its layer 11 and the heads
        assert torch.equal(value, exported[name.replace(f"{prefix}1.", f"{prefix}11.")])
    built = build_reader(e5_file, 2, PARENT.seed, KEPT).bert.state_dict()
    e5 = bert_state_dict(e5_file)
    assert len(built) < len(e5) and np.array_equal(
        built["encoder.layer.0.attention.self.query.weight"].numpy(), e5["encoder.layer.0.attention.self.query.weight"]
    )  # a layer the parent did not train is E5's own


def test_a_distilled_run_learns_from_the_teacher_and_records_it(parent, tmp_path):
    from courserag.reader.delta import read_delta

    taught = train(shallower(parent), tmp_path / "taught")
    alone = train(shallower(parent, teacher=None), tmp_path / "alone")
    logged = [json.loads(line) for line in (tmp_path / "taught" / "log.jsonl").read_text().splitlines()]
    assert all(line["distill_loss"] > 0 for line in logged)
    assert taught.losses[0] == pytest.approx(alone.losses[0] + logged[0]["distill_loss"], rel=1e-5)
    record = checkpoints.read_config(tmp_path / "taught")["teacher"]
    assert (record["file"], record["sha256"], record["steps"]) == ("reader.safetensors", read_delta(parent).sha256, 2)


def test_a_continuation_of_a_shallower_reader_keeps_its_layers(parent, tmp_path):
    train(shallower(parent), tmp_path / "first")
    exported = tmp_path / "first.safetensors"
    export_delta(tmp_path / "first", exported)
    assert train(shallower(exported, teacher=str(parent), steps=1), tmp_path / "on").step == 1
    with pytest.raises(ValueError, match="other encoder_layers"):
        train(shallower(exported, encoder_layers=(0, 6), steps=1), tmp_path / "other")


def test_the_product_s_onnx_reader_computes_what_the_shallower_reader_computes(
    parent, e5_file, reader_tokenizer, tmp_path
):
    from courserag.reader.reader import Reader

    result = train(shallower(parent), tmp_path / "run")
    target = tmp_path / "export" / "reader.safetensors"
    manifest = export_delta(tmp_path / "run", target)
    assert (manifest["encoder_layers"], manifest["layers"], manifest["trainable_layers"]) == ([0, 11], [0, 1], 2)
    assert manifest["training"]["teacher"]["file"] == "reader.safetensors"

    examples = pinned_examples(["mlqa_dev_en"], "held_out", limit=2)
    features = featurize(examples, reader_tokenizer, PARENT.window).features[:3]
    batch = pad_batch(features, reader_tokenizer.pad)
    with torch.no_grad():
        want = result.reader.eval()(torch.from_numpy(batch["input_ids"]), torch.from_numpy(batch["attention_mask"]))
    start, end, answer = Reader(target, e5_file.path, tmp_path / "models", "fp32", threads=1).logits(
        [f.input_ids for f in features]
    )
    mask = batch["attention_mask"].astype(bool)
    assert np.abs(start - want.start_logits.numpy())[mask].max() < 1e-4
    assert np.abs(end - want.end_logits.numpy())[mask].max() < 1e-4
    assert np.abs(answer - want.answer_logits.numpy()).max() < 1e-4
