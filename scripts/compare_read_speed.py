#!/usr/bin/env python3
"""Two readers' reading time, side by side in one process, on the same questions and passages.

    .venv/bin/python scripts/compare_read_speed.py models/reader/reader.safetensors OTHER.safetensors --threads 2

SyllabusQA `val`'s first questions (../shared/eval, or SHARED_EVAL), each read over the first
four passages of its own syllabus, by both readers in turn (which goes first alternates), after
one warm-up read each: the median and mean of each reader's `read` and the ratio of the
medians. Only the reading, not retrieval: what a shallower or otherwise cheaper reader saves
(docs/READER.md, "Cost on the 2-core machine"). Both run on the same machine at the same
moment, so load on the machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from courserag.reader.reader import Reader  # noqa: E402

SHARED = Path(os.environ.get("SHARED_EVAL", ROOT.parent / "shared" / "eval")) / "syllabusqa_dev"
PASSAGES = 4


def questions_and_passages(count: int) -> list[tuple[str, list[str]]]:
    """(question, its syllabus's first PASSAGES passages) for the first `count` val questions."""
    passages = defaultdict(list)
    for line in (SHARED / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            doc = json.loads(line)
            passages[doc["title"]].append(doc["text"])
    out = []
    for line in (SHARED / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and len(out) < count:
            q = json.loads(line)
            if passages.get(q["title"]):
                out.append((q["question"], passages[q["title"]][:PASSAGES]))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("readers", nargs=2, type=Path, help="two readers' .safetensors (manifests beside them)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--cache", type=Path, help="where the ONNX conversions are kept (default: the temp folder)")
    args = parser.parse_args()
    readers = {str(path): Reader(path, cache_dir=args.cache, threads=args.threads) for path in args.readers}
    asked = questions_and_passages(args.questions)
    if not asked:
        raise SystemExit(f"no SyllabusQA questions at {SHARED} (set SHARED_EVAL)")
    for reader in readers.values():
        reader.read(*asked[0])
    times = {name: [] for name in readers}
    for i, (question, passages) in enumerate(asked):
        order = list(readers.items()) if i % 2 == 0 else list(reversed(readers.items()))
        for name, reader in order:
            started = time.perf_counter()
            reader.read(question, passages)
            times[name].append((time.perf_counter() - started) * 1000)
    medians = {name: statistics.median(ms) for name, ms in times.items()}
    for name, ms in times.items():
        print(f"{name}: median {medians[name]:.0f} ms, mean {statistics.mean(ms):.0f} ms")
    first, second = medians.values()
    print(f"{len(asked)} questions x {PASSAGES} passages, {args.threads} thread(s); median ratio {first / second:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
