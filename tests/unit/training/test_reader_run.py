"""A tiny training run end to end (training/reader): a few dozen questions from two sets, a
few steps with the top layer trainable, a checkpoint, a resume that takes the batches an
unbroken run takes, an export, and the exported delta loaded into a fresh reader: a
loadable model whose answers change.

Seeded and single-threaded, so every number is the same on every run; skipped without
torch (requirements-minilm.txt, which `make test` installs) or the shared training sets."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the reader's training needs torch (requirements-minilm.txt)")
pytest.importorskip("transformers", reason="the reader's training needs transformers (requirements-minilm.txt)")
pytest.importorskip("safetensors", reason="the reader's export needs safetensors (requirements-minilm.txt)")

from courserag.reader.delta import read_delta  # noqa: E402
from training.reader import checkpoints  # noqa: E402
from training.reader.data import featurize, pad_batch  # noqa: E402
from training.reader.evaluate import predict, score  # noqa: E402
from training.reader.export import export_delta, reader_from_delta  # noqa: E402
from training.reader.model import build_reader, trainable_state  # noqa: E402
from training.reader.sets import pinned_examples  # noqa: E402
from training.reader.train import TrainConfig, train  # noqa: E402

SETS = ("mlqa_dev_en", "cmrc2018_trial_train")
CONFIG = TrainConfig(
    sets=SETS,
    steps=4,
    batch_size=4,
    max_tokens=96,
    stride=48,
    trainable_layers=1,
    learning_rate=1e-3,  # large, so that four steps move the heads visibly
    warmup=0.25,
    checkpoint_every=2,
    max_examples=16,
    log_every=1,
    seed=7,
)


@pytest.fixture(scope="module")
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, one_thread):
    from training.reader.sets import data_root

    if not (data_root() / SETS[0] / "data.json").is_file():
        pytest.skip(f"the shared training sets are not at {data_root()} (set SHARED_TRAIN)")
    folder = tmp_path_factory.mktemp("reader")
    broken = folder / "broken"
    first = train(CONFIG, broken, stop_at=2)
    resumed = train(CONFIG, broken, resume=True)
    unbroken = train(CONFIG, folder / "unbroken")
    return {"folder": folder, "first": first, "resumed": resumed, "unbroken": unbroken, "run": broken}


@pytest.fixture(scope="module")
def held_out(e5_file, reader_tokenizer):
    examples = pinned_examples(list(SETS), "held_out", limit=3)
    return examples, featurize(examples, reader_tokenizer, CONFIG.window)


def test_a_stopped_run_resumes_into_the_unbroken_run(runs):
    assert (runs["first"].step, runs["resumed"].step, runs["unbroken"].step) == (2, 4, 4)
    assert [p.name for p in checkpoints.checkpoints(runs["run"])] == ["step-0000002.pt", "step-0000004.pt"]
    assert runs["first"].losses + runs["resumed"].losses == runs["unbroken"].losses
    resumed, unbroken = trainable_state(runs["resumed"].reader), trainable_state(runs["unbroken"].reader)
    assert all(torch.equal(resumed[name], unbroken[name]) for name in unbroken)
    logged = [json.loads(line)["step"] for line in (runs["run"] / "log.jsonl").read_text().splitlines()]
    assert logged == [1, 2, 3, 4]


def test_a_continuation_goes_on_from_its_parent_s_weights_batches_and_dropout(runs, tmp_path):
    parent = checkpoints.checkpoints(runs["run"])[0]  # the stopped run's step 2
    going_on = train(dataclasses.replace(CONFIG, steps=2, init_from=str(parent), first_batch=2), tmp_path / "on")
    # its first step is the parent run's step 3: the same weights, batch and dropout masks
    assert going_on.losses[0] == runs["resumed"].losses[0]
    record = checkpoints.read_config(tmp_path / "on")["init"]
    assert (record["file"], record["step"], record["config"]["seed"]) == ("step-0000002.pt", 2, CONFIG.seed)


def test_a_stopped_continuation_resumes_without_its_parent_s_checkpoint(runs, tmp_path):
    import shutil

    parent_run = tmp_path / "parent"
    (parent_run / "checkpoints").mkdir(parents=True)
    shutil.copy(checkpoints.config_path(runs["run"]), checkpoints.config_path(parent_run))
    parent = shutil.copy(checkpoints.checkpoints(runs["run"])[0], parent_run / "checkpoints")
    config = dataclasses.replace(CONFIG, steps=2, init_from=str(parent), first_batch=2, checkpoint_every=1)
    first = train(config, tmp_path / "on", stop_at=1)
    shutil.rmtree(parent_run)  # the parent's machine is gone; the continuation's own checkpoint is not
    resumed = train(config, tmp_path / "on", resume=True)
    unbroken = train(
        dataclasses.replace(config, init_from=str(checkpoints.checkpoints(runs["run"])[0])), tmp_path / "u"
    )
    assert first.losses + resumed.losses == unbroken.losses
    assert checkpoints.read_config(tmp_path / "on")["init"]["step"] == 2


def test_a_continuation_of_a_continuation_records_every_run_back_to_the_first(runs, tmp_path):
    first = checkpoints.checkpoints(runs["run"])[0]
    train(dataclasses.replace(CONFIG, steps=2, init_from=str(first), first_batch=2), tmp_path / "second")
    second = checkpoints.checkpoints(tmp_path / "second")[-1]
    train(dataclasses.replace(CONFIG, steps=1, init_from=str(second), first_batch=4), tmp_path / "third")
    record = checkpoints.read_config(tmp_path / "third")["init"]
    assert (record["config"]["first_batch"], record["init"]["step"], "init" in record["init"]) == (2, 2, False)


def test_a_continuation_from_the_middle_of_a_pass_on_other_data_is_refused(runs, tmp_path):
    parent = checkpoints.checkpoints(runs["run"])[0]
    with pytest.raises(ValueError, match="other max_tokens"):
        train(dataclasses.replace(CONFIG, max_tokens=64, init_from=str(parent), first_batch=2), tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_a_continuation_from_a_new_pass_may_read_other_data_but_not_train_other_layers(runs, tmp_path):
    parent = checkpoints.checkpoints(runs["run"])[0]
    more = dataclasses.replace(CONFIG, steps=1, distractors=0.5, answer_removed=0.5, init_from=str(parent))
    assert train(more, tmp_path / "more").step == 1
    record = checkpoints.read_config(tmp_path / "more")
    assert (record["config"]["distractors"], record["init"]["config"].get("distractors", 0.0)) == (0.5, 0.0)
    assert (record["config"]["answer_removed"], record["init"]["config"].get("answer_removed", 0.0)) == (0.5, 0.0)
    with pytest.raises(ValueError, match="other trainable_layers"):
        train(dataclasses.replace(more, trainable_layers=2), tmp_path / "layers")


def test_a_new_pass_starts_from_an_exported_reader_when_its_run_s_checkpoints_are_gone(runs, tmp_path):
    from training.reader.train import continued_from

    exported = tmp_path / "shipped" / "reader.safetensors"
    manifest = export_delta(runs["run"], exported)  # float32: the export holds the checkpoint's weights exactly
    state, record = continued_from(dataclasses.replace(CONFIG, init_from=str(exported)))
    last = checkpoints.load(checkpoints.latest(runs["run"]))["trainable"]
    assert set(state["trainable"]) == set(last)
    assert all(torch.equal(state["trainable"][name], last[name]) for name in last)
    assert (record["file"], record["sha256"], record["step"], record["dtype"]) == (
        "reader.safetensors",
        manifest["sha256"],
        4,
        "float32",
    )
    more = train(dataclasses.replace(CONFIG, steps=1, distractors=0.5, init_from=str(exported)), tmp_path / "more")
    assert more.step == 1 and checkpoints.read_config(tmp_path / "more")["init"]["sha256"] == manifest["sha256"]
    with pytest.raises(ValueError, match="new pass"):  # an export keeps no place in a pass
        train(dataclasses.replace(CONFIG, init_from=str(exported), first_batch=4), tmp_path / "middle")
    with pytest.raises(ValueError, match="other trainable_layers"):
        train(dataclasses.replace(CONFIG, trainable_layers=2, init_from=str(exported)), tmp_path / "layers")


def test_only_the_top_layer_and_the_heads_train(runs):
    names = set(trainable_state(runs["resumed"].reader))
    assert {n.split(".")[0] for n in names} == {"bert", "span", "answer"}
    assert {n.split(".")[3] for n in names if n.startswith("bert.")} == {"11"}


def test_a_bfloat16_run_learns_what_the_float32_run_learns_within_bfloat16_s_rounding(runs, tmp_path):
    bf16 = train(dataclasses.replace(CONFIG, precision="bfloat16", steps=2, checkpoint_every=2), tmp_path / "bf16")
    assert checkpoints.read_config(tmp_path / "bf16")["config"]["precision"] == "bfloat16"
    assert bf16.losses == pytest.approx(runs["unbroken"].losses[:2], rel=0.05)
    assert bf16.losses != runs["unbroken"].losses[:2]  # the products did run in bfloat16


def test_a_finished_run_refuses_to_start_again_in_its_folder(runs):
    with pytest.raises(FileExistsError, match="--resume"):
        train(CONFIG, runs["run"])


def test_the_exported_delta_loads_into_a_fresh_reader_whose_answers_changed(runs, e5_file, reader_tokenizer, held_out):
    target = runs["folder"] / "export" / "reader.safetensors"
    manifest = export_delta(runs["run"], target)
    assert manifest["layers"] == [11] and manifest["training"]["steps"] == 4 and manifest["training"]["seed"] == 7
    assert set(manifest["data"]) == set(SETS) and all(len(d["sha256"]) == 64 for d in manifest["data"].values())
    assert len(manifest["base_model"]["sha256"]) == 64 and manifest["training"]["hardware"]["device"] in ("cpu", "cuda")
    assert 5e6 < target.stat().st_size < 10e6  # one layer (1.77 M parameters) and the heads, float32
    assert read_delta(target).manifest == manifest
    from training.reader.train import code_commit

    assert manifest["training"]["commit"] == code_commit()  # the code that trained it

    reloaded = reader_from_delta(target, e5_file)
    untrained = build_reader(e5_file, CONFIG.trainable_layers, CONFIG.seed)
    trained = runs["resumed"].reader.eval()
    batch = pad_batch(held_out[1].features[:4], reader_tokenizer.pad)
    ids, mask = torch.from_numpy(batch["input_ids"]), torch.from_numpy(batch["attention_mask"])
    with torch.no_grad():
        got, want, before = reloaded(ids, mask), trained(ids, mask), untrained(ids, mask)
    assert torch.equal(got.start_logits, want.start_logits) and torch.equal(got.end_logits, want.end_logits)
    assert torch.equal(got.answer_logits, want.answer_logits)
    assert (got.start_logits - before.start_logits).abs().max() > 1e-2
    assert (got.answer_logits - before.answer_logits).abs().max() > 1e-3


@pytest.mark.parametrize(("precision", "tolerance"), [("fp32", 1e-4), ("int8", 0.1)])
def test_the_product_s_onnx_reader_computes_what_the_trained_reader_computes(
    runs, e5_file, reader_tokenizer, held_out, tmp_path, precision, tolerance
):
    from courserag.reader.reader import Reader

    target = runs["folder"] / "onnx" / "reader.safetensors"
    export_delta(runs["run"], target)
    product = Reader(target, e5_file.path, tmp_path / "models", precision, threads=1)
    features = held_out[1].features[:4]
    batch = pad_batch(features, reader_tokenizer.pad)
    with torch.no_grad():
        want = runs["resumed"].reader.eval()(
            torch.from_numpy(batch["input_ids"]), torch.from_numpy(batch["attention_mask"])
        )
    start, end, answer = product.logits([f.input_ids for f in features])
    mask = batch["attention_mask"].astype(bool)
    assert np.abs(start - want.start_logits.numpy())[mask].max() < tolerance
    assert np.abs(end - want.end_logits.numpy())[mask].max() < tolerance
    assert np.abs(answer - want.answer_logits.numpy()).max() < tolerance


def test_the_product_s_reader_finds_the_span_the_trained_reader_finds(
    runs, e5_file, reader_tokenizer, held_out, tmp_path
):
    from courserag.reader.reader import Reader

    target = runs["folder"] / "read" / "reader.safetensors"
    export_delta(runs["run"], target)
    product = Reader(target, e5_file.path, tmp_path / "models", "fp32", threads=1, overlap=None)  # training's windows
    examples, data = held_out
    predictions = predict(runs["resumed"].reader, data, reader_tokenizer.pad)
    for example, prediction in zip(examples[:3], predictions[:3]):
        readings = product.read(example.question, [example.context])  # best first
        assert readings[0].text(example.context) == prediction.span_text
        assert max(r.answerable for r in readings) == pytest.approx(prediction.answer_probability, abs=1e-4)


def test_the_int8_delta_is_a_quarter_of_float32_and_reads_as_the_trained_reader(runs, e5_file, held_out, tmp_path):
    from courserag.reader.reader import Reader

    full, small = tmp_path / "f32" / "reader.safetensors", tmp_path / "i8" / "reader.safetensors"
    export_delta(runs["run"], full)
    export_delta(runs["run"], small, "int8")
    assert small.stat().st_size < full.stat().st_size * 0.27
    features = held_out[1].features[:4]
    want = Reader(full, e5_file.path, tmp_path / "models", "fp32", threads=1).logits([f.input_ids for f in features])
    got = Reader(small, e5_file.path, tmp_path / "models", "fp32", threads=1).logits([f.input_ids for f in features])
    mask = np.zeros_like(want[0], dtype=bool)
    for row, f in enumerate(features):
        mask[row, : len(f.input_ids)] = True
    assert np.abs(got[0] - want[0])[mask].max() < 0.05 and np.abs(got[2] - want[2]).max() < 0.05


def test_the_trained_reader_is_scored_per_set(runs, reader_tokenizer, held_out):
    examples, data = held_out
    scores = score(examples, predict(runs["resumed"].reader, data, reader_tokenizer.pad, batch_size=8))
    assert list(scores) == [*SETS, "all"]
    assert scores["all"]["questions"] == len(examples) == 6
    assert all(0 <= scores["all"][k] <= 1 for k in ("em", "f1", "span_f1", "answerability_accuracy"))


def test_compare_finds_a_resumed_run_reproduces_the_unbroken_one_and_an_earlier_step_does_not(runs, tmp_path, capsys):
    from training.reader.cli import main

    broken, unbroken = (checkpoints.latest(runs["folder"] / name) for name in ("broken", "unbroken"))
    assert main(["compare", str(broken), str(unbroken)]) == 0
    assert json.loads(capsys.readouterr().out)["identical"] is True
    earlier = checkpoints.checkpoints(runs["run"])[0]
    assert main(["compare", str(earlier), str(unbroken)]) == 1
    assert json.loads(capsys.readouterr().out)["within_tolerance"] is False
    small = tmp_path / "i8" / "reader.safetensors"
    export_delta(runs["run"], small, "int8")  # rows rounded to 1/127 of their largest entry: within 1%
    assert main(["compare", str(small), str(unbroken)]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["identical"] is False and 0 < said["worst"]["relative"] <= 0.01
