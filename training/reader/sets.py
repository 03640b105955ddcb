"""The pinned training sets: where they are, their hashes, their questions, the held-out part.

The sets are the shared SQuAD-2.0-format files beside the repository
(`../shared/train/<set>/data.json`, read-only; SHARED_TRAIN overrides the folder). Each is
pinned in `data_pins.json` by the SHA-256 of its file, checked whenever it is read, so a run
always says exactly which data it learned from. One fitting split of the evaluation folder
is pinned too, SyllabusQA `train` (fitting.py; its `val` split is never read). The
evaluation sets (SQuAD dev, XQuAD, CMRC dev, DRCD dev, SyllabusQA val and test, MLQA test)
are not pinned and cannot be read here.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PINS_FILE = Path(__file__).with_name("data_pins.json")
HELD_OUT_KEYS = ("context", "id")


class DataPinError(ValueError):
    """A set is not pinned, missing, or not the file that was pinned."""


@dataclass(frozen=True)
class Answer:
    text: str
    start: int  # character offset in the passage

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True)
class Example:
    """One question over one passage, as the set gives it."""

    set_name: str
    qid: str
    question: str
    context: str
    answers: tuple[Answer, ...]  # empty when the passage does not answer the question
    context_lang: str
    question_lang: str

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass(frozen=True)
class Pins:
    """data_pins.json: each set's file hash and held-out key, and the held-out rule."""

    sets: dict[str, dict]
    modulus: int
    remainder: int

    def sha256(self, set_name: str) -> str:
        """The set's pinned SHA-256; for a set of several files (SyllabusQA's), the SHA-256 of
        their names and pinned hashes, a line each in name order."""
        entry = self.entry(set_name)
        if "files" in entry:
            listing = "".join(f"{name}:{digest}\n" for name, digest in sorted(entry["files"].items()))
            return hashlib.sha256(listing.encode("utf-8")).hexdigest()
        return entry["sha256"]

    def entry(self, set_name: str) -> dict:
        try:
            return self.sets[set_name]
        except KeyError:
            raise DataPinError(f"set {set_name!r} is not pinned in {PINS_FILE.name} (pinned: {', '.join(self.sets)})")


def load_pins(path: Path = PINS_FILE) -> Pins:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    rule = raw["held_out"]
    if rule.get("hash") != "sha256" or not 0 <= rule["remainder"] < rule["modulus"]:
        raise DataPinError(f"{path}: unsupported held-out rule {rule}")
    for name, entry in raw["sets"].items():
        if entry.get("held_out_key") not in HELD_OUT_KEYS:
            raise DataPinError(
                f"{path}: set {name!r} has held_out_key {entry.get('held_out_key')!r}, not one of {HELD_OUT_KEYS}"
            )
    return Pins(raw["sets"], int(rule["modulus"]), int(rule["remainder"]))


def data_root() -> Path:
    """The folder of the training sets: SHARED_TRAIN, else ../shared/train beside the repository."""
    return Path(os.environ.get("SHARED_TRAIN") or PROJECT_ROOT.parent / "shared" / "train")


def eval_root() -> Path:
    """The evaluation folder, whose fitting splits may train: SHARED_EVAL, else ../shared/eval."""
    return Path(os.environ.get("SHARED_EVAL") or PROJECT_ROOT.parent / "shared" / "eval")


def read_set(set_name: str, root: Path | None = None, pins: Pins | None = None) -> list[Example]:
    """Every question of one pinned set, in file order, after checking the file's hash."""
    pins = pins or load_pins()
    entry = pins.entry(set_name)
    if entry.get("format") == "syllabusqa":
        from training.reader.fitting import read_syllabusqa

        return read_syllabusqa(set_name, eval_root() / entry["folder"], entry["files"])
    expected = pins.sha256(set_name)
    path = Path(root or data_root()) / set_name / "data.json"
    if not path.is_file():
        raise DataPinError(f"{path}: the pinned set {set_name!r} is not there (set SHARED_TRAIN to its folder)")
    raw = path.read_bytes()
    found = hashlib.sha256(raw).hexdigest()
    if found != expected:
        raise DataPinError(f"{path}: SHA-256 is {found}, but {PINS_FILE.name} pins {expected}; the set changed")
    return parse_squad(json.loads(raw), set_name)


def parse_squad(document: dict, set_name: str) -> list[Example]:
    """SQuAD 2.0 JSON -> examples; an answer whose offset does not hold its text is an error.

    A question marked answerable whose answers are all empty (text "", start -1: 440 of
    TyDi QA's, 20 of QED's, questions answered yes or no) is left out: it has no span to
    learn, and its passage does answer it, so it is not an unanswerable one either."""
    context_lang = document.get("context_lang", "en")
    question_lang = document.get("question_lang", context_lang)
    out = []
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                impossible = bool(qa.get("is_impossible"))
                answers = () if impossible else tuple(_answers(qa, context, set_name))
                if answers or impossible:
                    out.append(
                        Example(set_name, str(qa["id"]), qa["question"], context, answers, context_lang, question_lang)
                    )
    return out


def _answers(qa: dict, context: str, set_name: str):
    seen = set()
    for a in qa["answers"]:
        answer = Answer(a["text"], int(a["answer_start"]))
        if not answer.text:
            continue
        if context[answer.start : answer.end] != answer.text:
            raise DataPinError(f"{set_name}: question {qa['id']!r}: no {answer.text!r} at offset {answer.start}")
        if answer not in seen:  # DRCD repeats each answer
            seen.add(answer)
            yield answer


def is_held_out(example: Example, key: str, pins: Pins) -> bool:
    """The pinned rule: int(sha256(key value), 16) % modulus == remainder."""
    value = example.context if key == "context" else example.qid
    return int(hashlib.sha256(value.encode("utf-8")).hexdigest(), 16) % pins.modulus == pins.remainder


def split(examples: list[Example], pins: Pins | None = None) -> tuple[list[Example], list[Example]]:
    """(training part, held-out part), each in the input's order."""
    pins = pins or load_pins()
    train, held = [], []
    for example in examples:
        key = pins.entry(example.set_name)["held_out_key"]
        (held if is_held_out(example, key, pins) else train).append(example)
    return train, held


def take(examples: list[Example], limit: int | None, seed: int) -> list[Example]:
    """At most `limit` examples, a seeded choice spread over the whole set, in file order
    (the first N would be a few articles of SQuAD)."""
    if limit is None or len(examples) <= limit:
        return list(examples)
    chosen = np.sort(np.random.default_rng(seed).permutation(len(examples))[:limit])
    return [examples[i] for i in chosen]


def pinned_examples(
    set_names: list[str], part: str, limit: int | None = None, seed: int = 0, root: Path | None = None
) -> list[Example]:
    """The `part` ("train" or "held_out") of each named set, at most `limit` of each."""
    if part not in ("train", "held_out"):
        raise ValueError(f"part must be 'train' or 'held_out', but got {part!r}")
    pins = load_pins()
    out = []
    for name in set_names:
        train, held = split(read_set(name, root, pins), pins)
        out.extend(take(train if part == "train" else held, limit, seed))
    return out
