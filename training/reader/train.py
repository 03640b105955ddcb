"""The training loop: AdamW, linear warm-up then linear decay, checkpoints, resume.

A run is one folder (checkpoints.py). Its configuration is fixed when it starts; resuming
reads it back, loads the newest checkpoint and continues with the same batches an unbroken
run would have taken (data.batch_indices), the same schedule and the same dropout stream.
CPU by default, CUDA when present (or `device=`).

The loss of a batch is the span loss (cross-entropy of the start and of the end token over
the window's passage tokens, averaged over the windows that hold the answer) plus the
answerability loss (binary cross-entropy over every window). A run with a teacher (an
exported reader) adds the distillation loss: the squared distance of the reader's logits
from the teacher's where the product reads them (`distill_loss`), so a shallower reader
(`encoder_layers`) learns to give the teacher's answers at a fraction of its cost.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import platform
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from courserag.config.persistence import file_sha256
from courserag.embedders.e5_format import locate_model, read_e5
from courserag.reader.tokens import ReaderTokenizer
from training.reader import checkpoints
from training.reader.data import WindowConfig, batch_indices, featurize, pad_batch, repeat_sets
from training.reader.distractors import READINGS, reading_shares, with_readings
from training.reader.export import delta_on, reader_from_delta
from training.reader.model import Reader, ReaderOutput, build_reader, kept_layers, load_trainable, trainable_state
from training.reader.sets import PROJECT_ROOT, load_pins, pinned_examples

log = logging.getLogger(__name__)
MASKED = -1e4  # a logit no real one comes near: positions outside the passage
PRECISIONS = ("float32", "bfloat16")


@dataclass(frozen=True)
class TrainConfig:
    """What a run is; written to RUN/config.json and read back on resume."""

    sets: tuple[str, ...]
    steps: int | None = None  # None: one pass over the training windows
    batch_size: int = 16
    max_tokens: int = 256
    stride: int = 128
    max_question_tokens: int = 64
    max_unanswerable: int | None = 2  # windows without the answer kept per question
    distractors: float = 0.0  # share of each set's questions also read over a passage near them (distractors.py)
    off_topic: float = 0.0  # share of each set's questions also read over a passage of another source
    answer_removed: float = 0.0  # share also read over their own passage without the answer's sentences
    swapped: float = 0.0  # share also asked with a term swapped for one their passage lacks, over it
    trainable_layers: int = 2
    learning_rate: float = 5e-5  # the encoder layers' peak learning rate
    head_learning_rate: float | None = None  # the heads' peak learning rate (None: learning_rate)
    warmup: float = 0.1  # share of the steps
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    seed: int = 0
    checkpoint_every: int = 500
    max_examples: int | None = None  # per set, of its training part
    log_every: int = 10
    # "bfloat16": the forward pass under torch.autocast (weights, gradients and AdamW stay
    # float32): 2.44 s a step instead of 3.6 for all 12 layers at 16 x 192 on 2 Zen 4 cores
    precision: str = "float32"
    # Sets whose windows are drawn several times a pass ({"syllabusqa_train": 3}): a small set
    # in the product's own domain otherwise weighs 2% of the windows
    repeats: dict[str, int] | None = None
    # A continuation: the checkpoint of a run on the same data whose weights and dropout stream
    # this run starts from (AdamW and the schedule start anew), and the batch of the pass its
    # first step takes (the parent's steps, so it reads the windows the parent did not)
    init_from: str | None = None
    first_batch: int = 0
    # A shallower reader: which of E5's layers its encoder keeps, in order (None: all 12). From
    # an exported reader (init_from) it starts with that reader's layers of those numbers.
    encoder_layers: tuple[int, ...] | None = None
    # An exported reader whose logits the loss also matches (distill_loss)
    teacher: str | None = None

    def __post_init__(self):
        if not self.sets:
            raise ValueError("sets must name at least one pinned set")
        for name in ("batch_size", "checkpoint_every", "log_every"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, but got {getattr(self, name)}")
        if self.steps is not None and self.steps <= 0:
            raise ValueError(f"steps must be > 0, but got {self.steps}")
        if not 0 <= self.warmup < 1:
            raise ValueError(f"warmup must be in [0, 1), but got {self.warmup}")
        for name, times in (self.repeats or {}).items():
            if name not in self.sets or int(times) < 1:
                raise ValueError(f"repeats must name a trained set and a count >= 1, but got {name}={times}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, but got {self.precision!r}")
        for name in READINGS.values():
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be a share in [0, 1], but got {getattr(self, name)}")
        if self.first_batch < 0:
            raise ValueError(f"first_batch must be >= 0, but got {self.first_batch}")
        if self.encoder_layers is not None:
            kept = self.encoder_layers
            if not kept or min(kept) < 0 or len(set(kept)) != len(kept):
                raise ValueError(f"encoder_layers must name distinct layers, but got {list(kept)}")
            if self.trainable_layers > len(kept):
                raise ValueError(f"trainable_layers ({self.trainable_layers}) exceeds the {len(kept)} encoder layers")
        if self.learning_rate <= 0 or (self.head_learning_rate is not None and self.head_learning_rate <= 0):
            raise ValueError(f"learning rates must be > 0, but got {self.learning_rate}, {self.head_learning_rate}")

    @property
    def heads_rate(self) -> float:
        """The heads' peak learning rate: head_learning_rate, else learning_rate."""
        return self.learning_rate if self.head_learning_rate is None else self.head_learning_rate

    @property
    def window(self) -> WindowConfig:
        return WindowConfig(self.max_tokens, self.stride, self.max_question_tokens)

    def to_json(self) -> dict:
        kept = self.encoder_layers
        return {**dataclasses.asdict(self), "sets": list(self.sets), "encoder_layers": kept and list(kept)}

    @classmethod
    def from_json(cls, record: dict) -> TrainConfig:
        """Fields missing from an older config.json take their defaults."""
        fields = {f.name for f in dataclasses.fields(cls)}
        lists = ("sets", "encoder_layers")
        return cls(**{k: (tuple(v) if k in lists and v else v) for k, v in record.items() if k in fields})


@dataclass
class TrainResult:
    reader: Reader
    step: int
    total_steps: int
    losses: list[float]


def pick_device(device: str | None = None) -> torch.device:
    return torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))


def hardware(device: torch.device) -> dict:
    """What the model card needs to say about where it was trained."""
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else _cpu_name()
    return {
        "device": device.type,
        "device_name": name,
        "cpu_cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": str(torch.__version__),
        "transformers": _version("transformers"),
        "python": platform.python_version(),
    }


def code_commit() -> dict | None:
    """The repository's commit and whether the working tree differs from it (None outside a
    git checkout): a checkpoint says which code trained it."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {"sha": sha, "dirty": bool(status.strip())}


def schedule(step: int, total: int, warmup_steps: int) -> float:
    """The learning rate's factor at `step`: 0 -> 1 over the warm-up, then down to 0 at `total`."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    return max(0.0, (total - step) / max(1, total - warmup_steps))


def forward(reader: Reader, batch: dict[str, torch.Tensor], precision: str) -> ReaderOutput:
    """The reader's logits (float32) for a batch, the matrix products in `precision`."""
    device = batch["input_ids"].device
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=precision == "bfloat16"):
        out = reader(batch["input_ids"], batch["attention_mask"])
    return ReaderOutput(*(logits.float() for logits in out))


def reader_loss(out: ReaderOutput, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(total, span, answerability) as the module's docstring says."""
    outside = ~batch["passage_mask"]
    answerable = batch["answerable"]
    start = F.cross_entropy(out.start_logits.masked_fill(outside, MASKED), batch["start"], reduction="none")
    end = F.cross_entropy(out.end_logits.masked_fill(outside, MASKED), batch["end"], reduction="none")
    span = ((start + end) / 2 * answerable).sum() / answerable.sum().clamp(min=1)
    answer = F.binary_cross_entropy_with_logits(out.answer_logits, answerable)
    return span + answer, span, answer


def distill_loss(out: ReaderOutput, teacher: ReaderOutput, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """The squared distance of the reader's logits from the teacher's where the product reads
    them: the span logits on <s> ("no span", which a span's score is measured from) and on the
    passage tokens, averaged over those tokens, plus the answerability logit's, averaged over
    the windows. Raw logits, not probabilities: the product compares them across windows."""
    read = batch["passage_mask"].clone()
    read[:, 0] = True
    start = (out.start_logits - teacher.start_logits)[read].pow(2).mean()
    end = (out.end_logits - teacher.end_logits)[read].pow(2).mean()
    return (start + end) / 2 + (out.answer_logits - teacher.answer_logits).pow(2).mean()


# The settings that decide which windows a step reads and which weights train: a
# continuation must share them with its parent for `first_batch` to mean unread windows.
SAME_DATA = (
    "sets", "batch_size", "max_tokens", "stride", "max_question_tokens", "max_unanswerable",
    "max_examples", "seed", "repeats", "trainable_layers", "distractors", "off_topic", "answer_removed", "swapped",
    "encoder_layers",
)  # fmt: skip
# What a continuation from the first batch of another pass (first_batch 0) shares with its
# parent: the weights it trains; it may read other data.
SAME_WEIGHTS = ("trainable_layers", "encoder_layers")


def run_record(config: TrainConfig, model_file: Path, parent: dict | None = None) -> dict:
    """config.json: the configuration plus what it was run on (and, for a continuation, the
    record of the parent checkpoint it starts from, from `continued_from`)."""
    pins = load_pins()
    record = {
        "config": config.to_json(),
        "data": {name: {"sha256": pins.sha256(name), **_rule(pins, name)} for name in config.sets},
        "base_model": {"file": Path(model_file).name, "sha256": file_sha256(model_file)},
    }
    if parent:
        record["init"] = parent
    if config.teacher:
        teacher = delta_on(Path(config.teacher), Path(model_file))
        record["teacher"] = {
            "file": Path(config.teacher).name,
            "sha256": teacher.sha256,
            "steps": teacher.manifest["training"]["steps"],
            "encoder_layers": list(teacher.encoder_layers or []) or None,
        }
    return record


def continued_from(config: TrainConfig) -> tuple[dict, dict]:
    """A continuation's parent checkpoint, read once: (its state, to start from; its record:
    file, SHA-256, step, seconds and its run's configuration, which must read the same data; and,
    where the parent continued a run in turn, that run's record under "init", back to the first).
    A parent that is an exported reader (.safetensors) is read by `continued_from_export`."""
    path = Path(config.init_from)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no checkpoint to continue from")
    if path.suffix == ".safetensors":
        return continued_from_export(config, path)
    parent_run = checkpoints.read_config(path.parent.parent)
    parent, ours = parent_run["config"], config.to_json()
    said = TrainConfig.from_json(parent).to_json()  # an older config.json's missing settings at their defaults
    shared = SAME_DATA if config.first_batch else SAME_WEIGHTS
    differ = [k for k in shared if said.get(k) != ours.get(k)]
    if differ:
        raise ValueError(
            f"{path} is from a run with other {', '.join(differ)}; a continuation from batch "
            f"{config.first_batch} of the pass reads the same data (from batch 0 it may read other data, "
            "but trains the same layers)"
        )
    state = checkpoints.load(path)
    record = {
        "file": path.name,
        "sha256": file_sha256(path),
        "step": state["step"],
        "seconds": round(state["elapsed_s"], 1),
        "config": parent,
        **({"init": parent_run["init"]} if "init" in parent_run else {}),  # the parent's own parent, and so on
    }
    return state, record


def continued_from_export(config: TrainConfig, path: Path) -> tuple[dict, dict]:
    """A new pass from an exported reader (export.py), such as the one in the repository, whose
    run's checkpoints may be gone with their machine: its trained layers and heads as stored
    (an int8 export's matrices dequantized), the record its manifest keeps. Only from batch 0
    and with the same trainable layers: an export keeps neither AdamW's state, the dropout
    stream nor its place in a pass. A shallower reader (`encoder_layers`, where the export has
    all of E5's) starts from the export's layers of those numbers, renumbered, and its heads."""
    if config.first_batch:
        raise ValueError(f"{path} is an exported reader: a continuation from it starts a new pass (first_batch 0)")
    delta = delta_on(path, locate_model())
    training = delta.manifest["training"]
    parent = TrainConfig.from_json(training["config"]).to_json()
    tensors = delta.tensors
    if config.encoder_layers and delta.encoder_layers is None:
        tensors = kept_layers(tensors, config.encoder_layers, prefix="bert.encoder.layer.")
    else:
        differ = [k for k in SAME_WEIGHTS if parent.get(k) != config.to_json().get(k)]
        if differ:
            raise ValueError(f"{path} trained other {', '.join(differ)}; a continuation trains the same")
    state = {
        "trainable": {name: torch.from_numpy(np.array(value)) for name, value in tensors.items()},
        "rng": None,  # not exported: the continuation's dropout stream starts from its own seed
        "step": training["steps"],
    }
    record = {
        "file": path.name,
        "sha256": delta.sha256,
        "dtype": delta.manifest["dtype"],
        "step": training["steps"],
        "seconds": training["seconds"],
        "config": training["config"],
        **({"init": training["init"]} if "init" in training else {}),
    }
    return state, record


def starting_point(config: TrainConfig, run: Path, saved: Path | None) -> tuple[dict | None, dict | None]:
    """A continuation's parent (its state, its record); a resumed one (`saved`: its own last
    checkpoint) needs only the record its config.json kept, not the parent's file; (None, None)
    for a run that starts from E5."""
    if not config.init_from:
        return None, None
    if saved is None:
        return continued_from(config)
    return None, checkpoints.read_config(run).get("init")


def train(
    config: TrainConfig,
    run: Path,
    resume: bool = False,
    device: str | None = None,
    threads: int | None = None,
    stop_at: int | None = None,
    root: Path | None = None,
) -> TrainResult:
    """Train (or resume) the run in folder `run`; stop after step `stop_at` if given (a
    checkpoint is written there), else at the configured number of steps."""
    run = Path(run)
    if threads:
        torch.set_num_threads(threads)
    model_file = locate_model()
    saved = checkpoints.latest(run) if resume else None
    parent, parent_record = starting_point(config, run, saved)
    record = run_record(config, model_file, parent_record)
    _check_run_folder(run, record, resume)
    checkpoints.write_config(run, record)

    torch.manual_seed(config.seed)
    commit = code_commit()
    e5 = read_e5(model_file)
    tokenizer = ReaderTokenizer(e5)
    examples = pinned_examples(list(config.sets), "train", config.max_examples, config.seed, root)
    examples = with_readings(examples, reading_shares(config), config.seed)
    data = featurize(examples, tokenizer, config.window, config.max_unanswerable, config.seed)
    data = repeat_sets(data, config.repeats or {})
    total = config.steps or -(-len(data.features) // config.batch_size)
    target = min(total, stop_at) if stop_at else total
    log.info("%d examples, %d windows, %d steps of %d", len(examples), len(data.features), total, config.batch_size)

    where = pick_device(device)
    reader = build_reader(e5, config.trainable_layers, config.seed, config.encoder_layers).to(where)
    teacher = None
    if config.teacher:
        with torch.random.fork_rng(devices=[]):  # building it leaves the dropout stream as without it
            teacher = reader_from_delta(Path(config.teacher), e5).to(where)
    optimizer = torch.optim.AdamW(parameter_groups(reader, config), lr=config.learning_rate)
    warmup_steps = int(config.warmup * total)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: schedule(s, total, warmup_steps))
    step, elapsed = _restore(reader, optimizer, scheduler, parent, saved)
    if parent:
        log.info("continuing %s from step %d", config.init_from, parent["step"])
    if saved:
        log.info("resumed %s at step %d", run, step)

    reader.train()
    losses = []
    started = time.perf_counter()
    window_started, window_steps = started, 0
    while step < target:
        chosen = batch_indices(len(data.features), config.batch_size, config.first_batch + step, config.seed)
        batch = _to_tensors(pad_batch([data.features[i] for i in chosen], tokenizer.pad), where)
        out = forward(reader, batch, config.precision)
        loss, span, answer = reader_loss(out, batch)
        if teacher is not None:
            with torch.no_grad():
                taught = forward(teacher, batch, config.precision)
            distilled = distill_loss(out, taught, batch)
            loss = loss + distilled
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in reader.parameters() if p.requires_grad], config.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        window_steps += 1
        losses.append(loss.item())
        if step % config.log_every == 0 or step == target:
            now = time.perf_counter()
            line = {
                "step": step,
                "loss": round(loss.item(), 5),
                "span_loss": round(span.item(), 5),
                "answer_loss": round(answer.item(), 5),
                **({"distill_loss": round(distilled.item(), 5)} if teacher is not None else {}),
                "lr": scheduler.get_last_lr()[0],
                "head_lr": scheduler.get_last_lr()[-1],
                "seconds_per_step": round((now - window_started) / window_steps, 3),
            }
            checkpoints.append_log(run, line)
            log.info("step %(step)d loss %(loss).4f (span %(span_loss).4f, answer %(answer_loss).4f)", line)
            window_started, window_steps = now, 0
        if step % config.checkpoint_every == 0 or step == target:
            checkpoints.save(
                run,
                step,
                {
                    "trainable": trainable_state(reader),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "rng": torch.get_rng_state(),
                    "elapsed_s": elapsed + time.perf_counter() - started,
                    "total_steps": total,
                    "hardware": hardware(where),
                    "commit": commit,
                },
            )
    return TrainResult(reader.train(False), step, total, losses)


def _restore(reader: Reader, optimizer, scheduler, parent: dict | None, saved: Path | None) -> tuple[int, float]:
    """Put a continuation's parent weights and dropout stream, then a resumed run's own
    checkpoint (weights, AdamW, schedule, RNG), into place: (the step, the seconds so far)."""
    step, elapsed = 0, 0.0
    if parent:  # layers the parent did not train (a shallower reader's) stay E5's, as built
        load_trainable(reader, {**trainable_state(reader), **parent["trainable"]})
        if parent["rng"] is not None:
            torch.set_rng_state(parent["rng"])
    if saved:
        state = checkpoints.load(saved)
        load_trainable(reader, state["trainable"])
        if len(state["optimizer"]["param_groups"]) != len(optimizer.param_groups):
            raise ValueError(
                f"{saved} holds AdamW state for {len(state['optimizer']['param_groups'])} parameter groups, "
                f"this code makes {len(optimizer.param_groups)} (encoder and heads apart): start a new run"
            )
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["rng"])
        step, elapsed = state["step"], state["elapsed_s"]
    return step, elapsed


def _check_run_folder(run: Path, record: dict, resume: bool) -> None:
    if not checkpoints.config_path(run).exists():
        return
    if not resume:
        raise FileExistsError(f"{run} already holds a run; resume it (--resume) or choose another folder")
    stored = checkpoints.read_config(run)
    differ = sorted(k for k in record["config"] if stored["config"].get(k) != record["config"][k])
    if differ or stored["data"] != record["data"] or stored["base_model"] != record["base_model"]:
        what = ", ".join(differ) or "the data pins or the base model"
        raise ValueError(f"{run} was started with other settings ({what}); resume it with its own config.json")


def parameter_groups(reader: Reader, config: TrainConfig) -> list[dict]:
    """AdamW's groups: the encoder layers at learning_rate, the heads (drawn from scratch) at
    head_learning_rate; each with decay on the weight matrices only, not on biases and
    LayerNorms (as BERT). Groups left empty (no trainable layers) are dropped."""
    groups = {
        (head, decay): {
            "params": [],
            "lr": config.heads_rate if head else config.learning_rate,
            "weight_decay": config.weight_decay if decay else 0.0,
        }
        for head in (False, True)
        for decay in (True, False)
    }
    for name, p in reader.named_parameters():
        if p.requires_grad:
            head = not name.startswith("bert.")
            decay = not (name.endswith("bias") or "LayerNorm" in name)
            groups[head, decay]["params"].append(p)
    return [group for group in groups.values() if group["params"]]


def _to_tensors(batch: dict[str, np.ndarray], device: torch.device) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(v).to(device) for k, v in batch.items()}


def _rule(pins, name: str) -> dict:
    entry = pins.entry(name)
    rule = f"sha256({entry['held_out_key']}) % {pins.modulus} == {pins.remainder}"
    return {"held_out": rule, "licence": entry.get("licence")}


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def time_steps(
    trainable_layers: int,
    batch_size: int = 16,
    max_tokens: int = 256,
    steps: int = 3,
    device: str | None = None,
    precision: str = "float32",
) -> list[float]:
    """Seconds per training step on full-length rows of random ids (the first step, which
    warms up, is not counted): what one step of a real run costs at this batch shape."""
    where = pick_device(device)
    reader = build_reader(read_e5(locate_model()), trainable_layers).to(where)
    optimizer = torch.optim.AdamW([p for p in reader.parameters() if p.requires_grad], lr=1e-5)
    rng = np.random.default_rng(0)
    batch = {
        "input_ids": torch.from_numpy(rng.integers(5, reader.words.rows, (batch_size, max_tokens))),
        "attention_mask": torch.ones(batch_size, max_tokens, dtype=torch.int64),
        "passage_mask": torch.ones(batch_size, max_tokens, dtype=torch.bool),
        "start": torch.from_numpy(rng.integers(1, max_tokens, batch_size)),
        "answerable": torch.ones(batch_size),
    }
    batch["end"] = batch["start"]
    batch = {k: v.to(where) for k, v in batch.items()}
    reader.train()
    seconds = []
    for _ in range(steps + 1):
        started = time.perf_counter()
        loss, _, _ = reader_loss(forward(reader, batch, precision), batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if where.type == "cuda":
            torch.cuda.synchronize()
        seconds.append(time.perf_counter() - started)
    return seconds[1:]
