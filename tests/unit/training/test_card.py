"""An exported reader's model card says what its manifest and its scores say (training/reader/card.py)."""

from __future__ import annotations

import pytest

from training.reader.card import model_card, train_command

MANIFEST = {
    "file": "reader.safetensors",
    "dtype": "int8",
    "sha256": "ab" * 32,
    "layers": list(range(12)),
    "base_model": {"name": "multilingual-e5-small", "file": "e5-small-q4.bin", "sha256": "cd" * 32},
    "input": {"layout": "<s> query: Q </s> </s> passage: P </s>"},
    "training": {
        "steps": 500,
        "total_steps": 11207,
        "seconds": 7200.0,
        "seed": 0,
        "checkpoint": "step-0000500.pt",
        "commit": {"sha": "0123456789abcdef0123456789abcdef01234567", "dirty": True},
        "hardware": {
            "device": "cpu",
            "device_name": "AMD EPYC",
            "cpu_cores": 2,
            "torch_threads": 2,
            "torch": "2.13.0+cpu",
            "transformers": "5.24.0",
            "python": "3.11.7",
        },
        "config": {
            "max_tokens": 192,
            "max_question_tokens": 64,
            "batch_size": 16,
            "stride": 96,
            "max_unanswerable": 2,
            "learning_rate": 1e-4,
            "head_learning_rate": 1e-3,
            "warmup": 0.05,
            "weight_decay": 0.01,
            "precision": "bfloat16",
            "repeats": {"syllabusqa_train": 3},
        },
    },
    "data": {
        "squad_v1_train": {"sha256": "ef" * 32, "held_out": "sha256(context) % 20 == 0", "licence": "CC BY-SA 4.0"},
        "syllabusqa_train": {"sha256": "12" * 32, "held_out": "sha256(context) % 20 == 0", "licence": "none stated"},
    },
    "calibration": {"threshold": 0.4321, "chosen_on": "SyllabusQA val"},
}
SCORES = {"all": {"questions": 371, "em": 0.5, "f1": 0.6, "span_f1": 0.65, "answerability_accuracy": 0.9}}


@pytest.mark.parametrize(
    "said",
    [
        "`0123456789abcdef0123456789abcdef01234567` with uncommitted changes; seed 0",
        "layers 0–11",
        "`e5-small-q4.bin`, SHA-256 `" + "cd" * 32 + "`",
        "| `squad_v1_train` | `efefefefefefefef…` | `sha256(context) % 20 == 0` | CC BY-SA 4.0 |",
        "| `syllabusqa_train` (drawn 3× a pass) |",
        "500 of 11,207 steps of 16 windows",
        "learning rate 0.0001 (heads 0.001)",
        "forward pass in bfloat16",
        "2.0 hours of training steps",
        "Answers at probability ≥ 0.432: SyllabusQA val.",
        "| **all** | 371 | 0.500 | 0.600 | 0.650 | 0.900 |",
    ],
)
def test_the_card_says_what_the_manifest_and_the_scores_say(said):
    assert said in model_card(MANIFEST, SCORES)


def test_a_card_without_scores_or_a_recorded_commit_says_so_and_nothing_more():
    manifest = {**MANIFEST, "training": {**MANIFEST["training"], "commit": None}}
    card = model_card({k: v for k, v in manifest.items() if k != "calibration"})
    assert "commit not recorded" in card
    assert "Held-out figures" not in card and "Answerability" not in card


def test_the_cards_train_command_gives_back_every_setting_it_was_trained_with():
    import shlex

    from training.reader.cli import _CONFIG_FLAGS, _parser, _repeats

    config = {
        **MANIFEST["training"]["config"],
        "sets": ["squad_v1_train", "syllabusqa_train"],
        "trainable_layers": 12,
        "steps": 4000,
        "seed": 0,
        "max_examples": None,
    }
    command = train_command(config, tuple(_CONFIG_FLAGS), threads=2)
    args = _parser().parse_args(shlex.split(command)[3:])
    assert args.sets == "squad_v1_train,syllabusqa_train" and args.trainable_layers == "all" and args.threads == 2
    assert _repeats(args.repeat) == {"syllabusqa_train": 3}
    for key in _CONFIG_FLAGS:
        assert getattr(args, key) == config.get(key), key


TRAINED = {
    **MANIFEST["training"],
    "config": {**MANIFEST["training"]["config"], "sets": ["squad_v1_train"], "trainable_layers": 12, "seed": 0},
}


def test_the_card_says_how_to_reproduce_its_weights_only_when_given_the_flags():
    assert "## Reproducing these weights" in model_card(MANIFEST | {"training": TRAINED}, flags=("seed",))
    assert "## Reproducing these weights" not in model_card(MANIFEST | {"training": TRAINED})


def test_a_continuation_s_card_gives_its_parent_s_command_first_and_counts_both_times():
    parent = {
        "file": "step-0004000.pt",
        "sha256": "34" * 32,
        "step": 4000,
        "seconds": 3600.0,
        "config": TRAINED["config"],
    }
    config = {**TRAINED["config"], "init_from": "/runs/trial7/checkpoints/step-0004000.pt", "first_batch": 4000}
    card = model_card(
        MANIFEST | {"training": {**TRAINED, "config": config, "init": parent}}, flags=("init_from", "first_batch")
    )
    commands = card.split("```bash\n")[1].split("```")[0].splitlines()
    assert commands[0].startswith("python -m training.reader train --out PARENT ")
    assert "--init-from" not in commands[0]
    assert commands[1].startswith("python -m training.reader train --out RUN ")
    assert "--init-from PARENT/checkpoints/step-0004000.pt --first-batch 4000" in commands[1]
    assert "continues a run's `step-0004000.pt` (step 4,000, 1.0 hours; SHA-256 `3434343434343434…`)" in card
    assert "3.0 hours of training steps" in card  # its own 2 and its parent's 1


# The record of an exported reader a run went on from (train.continued_from_export)
EXPORTED_PARENT = {
    "file": "reader.safetensors",
    "dtype": "int8",
    "sha256": "78" * 32,
    "step": 2000,
    "seconds": 3600.0,
    "config": TRAINED["config"],
}


def test_a_continuation_from_an_exported_reader_s_card_exports_its_parent_before_going_on():
    parent = EXPORTED_PARENT
    config = {**TRAINED["config"], "init_from": "models/reader/reader.safetensors", "first_batch": 0}
    card = model_card(
        MANIFEST | {"training": {**TRAINED, "config": config, "init": parent}}, flags=("init_from", "first_batch")
    )
    commands = card.split("```bash\n")[1].split("```")[0].splitlines()
    assert commands[1] == "python -m training.reader export --run PARENT --out PARENT/reader.safetensors --dtype int8"
    assert "--init-from PARENT/reader.safetensors --first-batch 0" in commands[2]
    assert "continues the exported reader `reader.safetensors` (int8; step 2,000, 1.0 hours" in card


def test_a_continuation_of_a_continuation_s_card_gives_every_command_from_the_first_run_on():
    first = {
        "file": "step-0004000.pt",
        "sha256": "34" * 32,
        "step": 4000,
        "seconds": 3600.0,
        "config": TRAINED["config"],
    }
    second_config = {**TRAINED["config"], "init_from": "/runs/t7/checkpoints/step-0004000.pt", "first_batch": 4000}
    second = {"file": "step-0002000.pt", "sha256": "56" * 32, "step": 2000, "seconds": 3600.0, "config": second_config}
    config = {**TRAINED["config"], "init_from": "/runs/t8/checkpoints/step-0002000.pt", "first_batch": 6000}
    card = model_card(
        MANIFEST | {"training": {**TRAINED, "config": config, "init": {**second, "init": first}}},
        flags=("init_from", "first_batch"),
    )
    commands = card.split("```bash\n")[1].split("```")[0].splitlines()
    assert [c.split(" --sets")[0].rsplit(" ", 1)[-1] for c in commands[:3]] == ["PARENT1", "PARENT2", "RUN"]
    assert "--init-from" not in commands[0]
    assert "--init-from PARENT1/checkpoints/step-0004000.pt --first-batch 4000" in commands[1]
    assert "--init-from PARENT2/checkpoints/step-0002000.pt --first-batch 6000" in commands[2]
    assert "4.0 hours of training steps" in card  # its own 2 and an hour for each run before it


@pytest.mark.parametrize(
    ("key", "said"),
    [
        (
            "distractors",
            "- distractors: 25% of each set's questions also read over the passage of their set nearest them",
        ),
        ("off_topic", "- off topic: 25% of each set's questions also read over a passage of a set from another source"),
        (
            "answer_removed",
            "- answer removed: 25% of each set's answerable questions also read over their own passage without",
        ),
        ("swapped", "- swapped term: 25% of each set's answerable questions also asked with their rarest term"),
    ],
)
def test_a_card_says_what_share_of_questions_was_read_over_passages_not_answering_them_and_repeats_it(key, said):
    config = {**TRAINED["config"], key: 0.25}
    card = model_card(MANIFEST | {"training": {**TRAINED, "config": config}}, flags=(key,))
    assert said in card
    assert f"--{key.replace('_', '-')} 0.25" in card
    assert said.split(":")[0] not in model_card(MANIFEST | {"training": TRAINED}, flags=(key,))


def test_the_card_gives_the_held_out_readings_refused_when_they_were_measured():
    scores = {"all": {**SCORES["all"], "distractors_refused": 0.75}}
    card = model_card(MANIFEST, scores)
    assert "| answerability accuracy | distractors refused |" in card
    assert "| **all** | 371 | 0.500 | 0.600 | 0.650 | 0.900 | 0.750 |" in card
    assert "distractors refused" not in model_card(MANIFEST, SCORES)
    both = model_card(MANIFEST, {"all": {**SCORES["all"], "distractors_refused": 0.75, "off_topic_refused": 0.5}})
    assert "| distractors refused | off topic refused |" in both and "| 0.750 | 0.500 |" in both


@pytest.mark.parametrize(
    ("parent_step", "own_step", "stops"),
    [
        (4000, 800, ["", ""]),  # both runs ran to their last step
        (4000, 500, ["", " --stop-at 500"]),  # this run's weights were taken at step 500 of 800
        (3000, 800, [" --stop-at 3000", ""]),  # it went on from the parent's step 3,000 of 4,000
    ],
)
def test_a_card_stops_a_run_at_the_step_its_weights_were_taken(parent_step, own_step, stops):
    parent_config = {**TRAINED["config"], "steps": 4000}
    parent = {"file": f"step-{parent_step:07d}.pt", "sha256": "34" * 32, "step": parent_step, "seconds": 3600.0}
    config = {**TRAINED["config"], "steps": 800, "init_from": f"/runs/p/checkpoints/{parent['file']}", "first_batch": 0}
    training = {**TRAINED, "steps": own_step, "config": config, "init": {**parent, "config": parent_config}}
    card = model_card(MANIFEST | {"training": training}, flags=("steps", "init_from", "first_batch"))
    commands = card.split("```bash\n")[1].split("```")[0].splitlines()
    assert [c.split("--threads 2")[1] for c in commands[:2]] == stops


def test_a_distilled_shallower_reader_s_card_says_its_layers_and_teacher_and_gives_them_back_as_flags():
    parent = EXPORTED_PARENT
    config = {
        **TRAINED["config"],
        "trainable_layers": 6,
        "encoder_layers": [0, 2, 4, 7, 9, 11],
        "init_from": "models/reader/reader.safetensors",
        "teacher": "models/reader/reader.safetensors",
    }
    teacher = {"file": "reader.safetensors", "sha256": "78" * 32, "steps": 2000, "encoder_layers": None}
    manifest = MANIFEST | {"layers": list(range(6)), "encoder_layers": config["encoder_layers"]}
    card = model_card(
        manifest | {"training": {**TRAINED, "config": config, "init": parent, "teacher": teacher}},
        flags=("init_from", "encoder_layers", "teacher"),
    )
    assert "a shallower encoder of 6 of E5's 12 layers (E5's 0, 2, 4, 7, 9, 11), its layers 0–5 trained" in card
    assert "distilled from the reader `reader.safetensors` (SHA-256 `7878787878787878…`, step 2,000)" in card
    command = card.split("```bash\n")[1].split("```")[0].splitlines()[2]  # after the parent's run and export
    assert "--trainable-layers all" in command and "--encoder-layers 0,2,4,7,9,11" in command
    assert "--init-from PARENT/reader.safetensors" in command and "--teacher PARENT/reader.safetensors" in command
