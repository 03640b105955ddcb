"""`python -m training.reader train|evaluate|export|windows` (docs/READER.md has examples).

train    --out RUN [--sets a,b] [--steps N] [--max-examples N] [--trainable-layers K|all] ...
train    --out RUN --resume             continue RUN from its newest checkpoint, its own settings
evaluate --run RUN | --delta FILE       exact match, F1, answerability on the held-out part
export   --run RUN --out FILE.safetensors [--dtype float16]
compare  A B [--tolerance 0.01]         whether two checkpoints or deltas reproduce each other
windows  [--sets a,b]                   how many windows the training parts yield
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from training.reader.sets import load_pins

# Flags of `train` that make up the run's TrainConfig (None: not given, the default applies).
_CONFIG_FLAGS = {
    "precision": str,  # float32 or bfloat16 (the forward pass's matrix products)
    "steps": int,
    "batch_size": int,
    "max_tokens": int,
    "stride": int,
    "max_question_tokens": int,
    "max_unanswerable": int,
    "distractors": float,  # share of questions also read over a passage near them
    "off_topic": float,  # share of questions also read over a passage of another source
    "answer_removed": float,  # share also read over their own passage without the answer's sentences
    "swapped": float,  # share also asked with a term swapped for one their passage lacks
    "learning_rate": float,
    "head_learning_rate": float,
    "warmup": float,
    "weight_decay": float,
    "seed": int,
    "checkpoint_every": int,
    "max_examples": int,
    "log_every": int,
    "init_from": str,  # a continuation: the parent run's checkpoint, or an exported reader (.safetensors)
    "first_batch": int,  # ... and the batch of the pass it starts at (the parent's steps)
    "encoder_layers": lambda value: tuple(int(n) for n in value.split(",")),  # a shallower reader: 0,2,4,7,9,11
    "teacher": str,  # an exported reader whose logits the loss also matches (distillation)
}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return args.command(args)


def _reading_flags(parser: argparse.ArgumentParser, purpose: str) -> None:
    """A share flag for each reading over another passage (distractors.py's READING_KINDS)."""
    from training.reader.distractors import READING_KINDS

    for name, kind in READING_KINDS.items():
        help_text = f"share of the questions also read {kind.how}, unanswerable: {purpose}"
        parser.add_argument("--" + name.replace("_", "-"), type=float, default=0.0, help=help_text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.reader", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(required=True)

    train = commands.add_parser("train", help="train a reader, or resume a run")
    train.add_argument("--out", type=Path, required=True, help="the run's folder")
    train.add_argument("--resume", action="store_true", help="continue the run in --out with its own settings")
    train.add_argument("--sets", help="comma-separated pinned sets (default: all of data_pins.json)")
    train.add_argument(
        "--trainable-layers", help="top layers to train: 0..12 or 'all' (every layer of the encoder; default 2)"
    )
    for flag, kind in _CONFIG_FLAGS.items():
        train.add_argument("--" + flag.replace("_", "-"), type=kind)
    train.add_argument(
        "--repeat", action="append", metavar="SET=TIMES", help="draw a set's windows TIMES times a pass (repeatable)"
    )
    _runtime_flags(train)
    train.add_argument("--stop-at", type=int, help="stop (with a checkpoint) after this step; resume later")
    train.set_defaults(command=_train)

    evaluate = commands.add_parser("evaluate", help="score a run or an exported delta on held-out questions")
    source = evaluate.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", type=Path, help="a run folder (its newest checkpoint)")
    source.add_argument("--delta", type=Path, help="an exported .safetensors (its .json beside it)")
    evaluate.add_argument("--sets", help="comma-separated pinned sets (default: the run's)")
    evaluate.add_argument("--max-examples", type=int, help="held-out questions per set (default: all)")
    evaluate.add_argument("--batch-size", type=int, default=32)
    evaluate.add_argument("--threshold", type=float, default=0.5, help="answerability probability to answer")
    _reading_flags(evaluate, "scored apart")
    evaluate.add_argument(
        "--crowd",
        type=int,
        default=0,
        help="read each held-out question over its own passage among this many of its set's passages "
        "nearest it, as the product reads retrieved passages (crowd.py)",
    )
    evaluate.add_argument("--json", type=Path, help="also write the scores here")
    evaluate.add_argument(
        "--onnx", choices=("fp32", "int8"), help="with --delta: read with the product's ONNX reader at this precision"
    )
    _runtime_flags(evaluate)
    evaluate.set_defaults(command=_evaluate)

    export = commands.add_parser("export", help="write the trained layers and heads, and a manifest")
    export.add_argument("--run", type=Path, required=True)
    export.add_argument("--out", type=Path, required=True, help="FILE.safetensors (FILE.json beside it)")
    export.add_argument("--dtype", choices=("float32", "float16", "int8"), default="float32")
    export.set_defaults(command=_export)

    card = commands.add_parser("card", help="write an exported reader's model card from its manifest and scores")
    card.add_argument("--delta", type=Path, required=True, help="the exported .safetensors (its .json beside it)")
    card.add_argument("--scores", type=Path, help="evaluate's JSON of the same weights")
    card.add_argument("--out", type=Path, required=True, help="the card (Markdown)")
    card.set_defaults(command=_card)

    compare = commands.add_parser("compare", help="whether two checkpoints or exported deltas hold the same weights")
    compare.add_argument("a", type=Path, help="a checkpoint (.pt) or an exported delta (.safetensors)")
    compare.add_argument("b", type=Path)
    compare.add_argument("--tolerance", type=float, help="largest difference as a share of a tensor's magnitude")
    compare.set_defaults(command=_compare)

    windows = commands.add_parser("windows", help="count the windows the training parts yield")
    windows.add_argument("--sets")
    windows.add_argument("--max-tokens", type=int, default=256)
    windows.add_argument("--stride", type=int, default=128)
    windows.add_argument("--max-question-tokens", type=int, default=64)
    windows.add_argument("--max-unanswerable", type=int, help="kept per question (default: all)")
    _reading_flags(windows, "their windows counted apart (as train reads them)")
    windows.add_argument("--data-dir", type=Path)
    windows.set_defaults(command=_windows)

    timing = commands.add_parser("time", help="seconds per training step at one batch shape (random ids)")
    timing.add_argument("--trainable-layers", default="2")
    timing.add_argument("--batch-size", type=int, default=16)
    timing.add_argument("--max-tokens", type=int, default=256)
    timing.add_argument("--steps", type=int, default=3, help="timed steps, after one warm-up step")
    timing.add_argument("--device")
    timing.add_argument("--threads", type=int)
    timing.add_argument("--precision", choices=("float32", "bfloat16"), default="float32")
    timing.set_defaults(command=_time)
    return parser


def _runtime_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", help="cpu or cuda (default: cuda when present)")
    parser.add_argument("--threads", type=int, help="torch threads on the CPU")
    parser.add_argument("--data-dir", type=Path, help="the sets' folder (default: SHARED_TRAIN or ../shared/train)")


def _sets(value: str | None, default: list[str]) -> list[str]:
    return [s.strip() for s in value.split(",") if s.strip()] if value else default


def _train(args) -> int:
    from training.reader.checkpoints import read_config
    from training.reader.train import TrainConfig, train

    given = {name: getattr(args, name) for name in _CONFIG_FLAGS if getattr(args, name) is not None}
    if args.repeat:
        given["repeats"] = _repeats(args.repeat)
    if args.resume:
        named = [*given, *(f for f in ("sets", "trainable_layers") if getattr(args, f))]
        extra = [f"--{n.replace('_', '-')}" for n in named]
        if extra:
            raise SystemExit(f"--resume continues with the run's own settings; drop {', '.join(extra)}")
        config = TrainConfig.from_json(read_config(args.out)["config"])
    else:
        layers = args.trainable_layers or "2"
        depth = len(given["encoder_layers"]) if given.get("encoder_layers") else 12
        config = TrainConfig(
            sets=tuple(_sets(args.sets, list(load_pins().sets))),
            trainable_layers=depth if layers == "all" else int(layers),
            **given,
        )
    result = train(config, args.out, args.resume, args.device, args.threads, args.stop_at, args.data_dir)
    print(json.dumps({"run": str(args.out), "step": result.step, "total_steps": result.total_steps}))
    return 0


def _repeats(values: list[str]) -> dict[str, int]:
    out = {}
    for value in values:
        name, sep, times = value.partition("=")
        if not sep or not times.isdigit():
            raise SystemExit(f"--repeat takes SET=TIMES, e.g. syllabusqa_train=3, but got {value!r}")
        out[name.strip()] = int(times)
    return out


def _evaluate(args) -> int:
    from courserag.embedders.e5_format import locate_model, read_e5
    from courserag.reader.tokens import ReaderTokenizer
    from training.reader.crowd import crowded
    from training.reader.data import WindowConfig, featurize
    from training.reader.distractors import reading_shares, with_readings
    from training.reader.evaluate import score
    from training.reader.sets import pinned_examples

    if args.onnx and not args.delta:
        raise SystemExit("--onnx reads an exported --delta")
    e5 = read_e5(locate_model())
    forward, config = _onnx_reader(args) if args.onnx else _torch_reader(args, e5)
    tokenizer = ReaderTokenizer(e5)
    examples = pinned_examples(_sets(args.sets, config["sets"]), "held_out", args.max_examples, 0, args.data_dir)
    readings = with_readings(examples, reading_shares(args))[len(examples) :]
    examples = crowded(examples, args.crowd) + readings
    window = WindowConfig(config["max_tokens"], config["stride"], config["max_question_tokens"])
    data = featurize(examples, tokenizer, window)
    scores = score(examples, forward(data, tokenizer.pad, args.batch_size), args.threshold)
    text = json.dumps(scores, indent=2, ensure_ascii=False)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


def _torch_reader(args, e5):
    """(predictions of the torch reader of --run or --delta, the run's config)."""
    import torch

    from courserag.reader.delta import read_delta
    from training.reader import checkpoints
    from training.reader.evaluate import predict
    from training.reader.export import reader_from_delta
    from training.reader.model import build_reader, load_trainable
    from training.reader.train import pick_device

    if args.threads:
        torch.set_num_threads(args.threads)
    if args.run:
        config = checkpoints.read_config(args.run)["config"]
        saved = checkpoints.latest(args.run)
        if saved is None:
            raise SystemExit(f"{args.run}: no checkpoint yet")
        reader = build_reader(e5, config["trainable_layers"], config["seed"], config.get("encoder_layers"))
        load_trainable(reader, checkpoints.load(saved)["trainable"])
    else:
        config = read_delta(args.delta).manifest["training"]["config"]
        reader = reader_from_delta(args.delta, e5)
    reader.to(pick_device(args.device))
    return (lambda data, pad, batch: predict(reader, data, pad, batch)), config


def _onnx_reader(args):
    """(predictions of the product's ONNX reader of --delta, the delta's training config)."""
    from courserag.reader.reader import Reader
    from training.reader.evaluate import predict_with

    reader = Reader(args.delta, precision=args.onnx, threads=args.threads or 0, overlap=None)  # training's windows

    def forward(ids, mask):
        return reader.logits([row[: int(m.sum())] for row, m in zip(ids, mask)])

    return (lambda data, pad, batch: predict_with(forward, data, pad, batch)), reader.delta.manifest["training"][
        "config"
    ]


def _export(args) -> int:
    from training.reader.export import export_delta

    manifest = export_delta(args.run, args.out, args.dtype)
    size = args.out.stat().st_size / 1e6
    print(json.dumps({"file": str(args.out), "megabytes": round(size, 1), "layers": manifest["layers"]}))
    return 0


def _card(args) -> int:
    from courserag.reader.delta import read_delta
    from training.reader.card import model_card

    scores = json.loads(args.scores.read_text(encoding="utf-8")) if args.scores else None
    args.out.write_text(model_card(read_delta(args.delta).manifest, scores, tuple(_CONFIG_FLAGS)), encoding="utf-8")
    print(json.dumps({"card": str(args.out)}))
    return 0


def _compare(args) -> int:
    from training.reader.compare import TOLERANCE, compare_weights, load_weights

    tolerance = TOLERANCE if args.tolerance is None else args.tolerance
    comparison = compare_weights(load_weights(args.a), load_weights(args.b))
    print(json.dumps({"a": str(args.a), "b": str(args.b), **comparison.summary(tolerance)}, indent=2))
    return 0 if comparison.within(tolerance) else 1


def _windows(args) -> int:
    from courserag.embedders.e5_format import locate_model, read_e5
    from courserag.reader.tokens import ReaderTokenizer
    from training.reader.data import WindowConfig, featurize
    from training.reader.distractors import reading, reading_shares, with_readings
    from training.reader.sets import pinned_examples

    tokenizer = ReaderTokenizer(read_e5(locate_model()))
    window = WindowConfig(args.max_tokens, args.stride, args.max_question_tokens)
    examples = pinned_examples(_sets(args.sets, list(load_pins().sets)), "train", root=args.data_dir)
    examples = with_readings(examples, reading_shares(args))
    data = featurize(examples, tokenizer, window, args.max_unanswerable)
    rows: dict[str, Counter] = {}
    for example in examples:
        rows.setdefault(example.set_name, Counter())["questions"] += reading(example) is None
    for feature in data.features:
        example = data.examples[feature.example_index]
        kind = reading(example)
        rows[example.set_name].update(
            {f"{kind}_windows" if kind else "windows": 1, "with_answer": int(feature.answerable)}
        )
    for name, row in rows.items():
        print(json.dumps({"set": name, "questions": row["questions"], **_counts(row)}), flush=True)
    total = sum(rows.values(), Counter())
    print(json.dumps({"set": "all", "questions": total["questions"], **_counts(total)}))
    return 0


def _counts(row: Counter) -> dict:
    """windows's figures of a set: its own windows, those with the answer, and the windows of
    its readings over other passages when there are any."""
    out = {"windows": row["windows"], "with_answer": row["with_answer"]}
    from training.reader.distractors import READINGS

    return out | {f"{name}_windows": row[f"{name}_windows"] for name in READINGS.values() if row[f"{name}_windows"]}


def _time(args) -> int:
    import torch

    from training.reader.train import time_steps

    if args.threads:
        torch.set_num_threads(args.threads)
    layers = 12 if args.trainable_layers == "all" else int(args.trainable_layers)
    seconds = time_steps(layers, args.batch_size, args.max_tokens, args.steps, args.device, args.precision)
    shape = {"trainable_layers": layers, "batch_size": args.batch_size, "max_tokens": args.max_tokens}
    shape["precision"] = args.precision
    print(json.dumps({**shape, "threads": torch.get_num_threads(), "seconds": [round(s, 2) for s in seconds]}))
    return 0
