"""Benchmark: the app's start and its first answer, with and without the reader.

Each reading is a fresh interpreter (`python -m bench.start`, started by bench.run) doing what
app.py does before it serves, on the sample courses: the engine from settings, then the app's
start (`startup.prepare`: warm the model, the segmenter and the reader). It then answers each
sample course's first example question, as a learner's first ask after the page opens, and
reports the seconds from the interpreter's start to ready, each first answer's milliseconds,
and the resident memory after them.

`run_child` runs it without the reader (the composer, the baseline) and with READER_WEIGHTS,
in turn, over one data folder in the bench cache: a first reading of each, not recorded,
builds the sample index and converts the reader once, as a Space's first start does. Issue 41
bounds the reader's first answer after start at 2 s and the app's memory with it at 300 MB
above the composer's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from bench.common import PROJECT_ROOT, cache_dir

FIRST_ANSWER_S = 2.0
EXTRA_MEMORY_MB = 300.0


def measure() -> dict:
    """Start as app.py does, then answer each course's first example question (module doc)."""
    import psutil

    from bench.common import quiet, settle_memory
    from courserag.config.settings import Settings
    from courserag.engine.facade import RagEngine
    from courserag.engine.startup import prepare

    quiet()
    settings = Settings.from_env()
    engine = RagEngine.from_settings(settings)
    prepare(engine, settings)
    ready_s = time.time() - psutil.Process().create_time()
    first = {}
    for course in engine.courses:
        started = time.perf_counter()
        answer = engine.ask(course.id, course.examples[0])
        first[course.id] = {
            "ms": round((time.perf_counter() - started) * 1000, 1),
            "refused": answer.refused,
            "question": course.examples[0],
        }
    return {
        "reader": settings.reader_weights is not None,
        "ready_s": round(ready_s, 2),
        "first_answers": first,
        "rss_mb": round(settle_memory() / 1024**2, 1),
    }


def start_once(reader: str | None, data_dir: str, timeout: float) -> dict:
    """One fresh interpreter's `measure` over `data_dir`, with the reader at `reader` (None: the
    composer)."""
    # the embedded store, extractive answers: no Weaviate, no LLM, no reader unless named
    left_out = ("WEAVIATE_", "LLM_", "HF_TOKEN", "SPACE_ID", "READER_WEIGHTS")
    env = {k: v for k, v in os.environ.items() if not k.startswith(left_out)}
    env.update(DATA_DIR=data_dir, BUILD_INDEX_ON_START="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    if reader:
        env["READER_WEIGHTS"] = reader
    cmd = [sys.executable, "-m", "bench.start"]
    proc = subprocess.run(cmd, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"start benchmark failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_child(reader: str, rounds: int = 2, timeout: float = 600) -> dict:
    """The composer's start and the reader's, `rounds` each in turn after one unrecorded
    start of each (module doc): medians and the reader's figures against issue 41's bounds."""
    data_dir = str(cache_dir() / "start-data")
    runs: dict[str, list[dict]] = {"composer": [], "reader": []}
    for round_ in range(rounds + 1):
        for name, weights in (("composer", None), ("reader", reader)):
            reading = start_once(weights, data_dir, timeout)
            if round_:
                runs[name].append(reading)
    out = {name: summarize(readings) for name, readings in runs.items()}
    out["extra_memory_mb"] = round(out["reader"]["rss_mb"] - out["composer"]["rss_mb"], 1)
    out["rounds"] = rounds
    return out


def summarize(readings: list[dict]) -> dict:
    """Medians over readings: seconds to ready, the slowest first answer (ms), resident MB."""
    median = lambda values: round(statistics.median(values), 1)
    return {
        "ready_s": median([r["ready_s"] for r in readings]),
        "first_answer_ms": median([max(a["ms"] for a in r["first_answers"].values()) for r in readings]),
        "rss_mb": median([r["rss_mb"] for r in readings]),
        "refused": sorted({c for r in readings for c, a in r["first_answers"].items() if a["refused"]}),
    }


def start_targets(results: dict) -> list[tuple[str, float, float, bool]]:
    """(target, measured, limit, met): the reader's first answer after start and its memory."""
    start = results.get("start")
    if not start:
        return []
    first_s = round(start["reader"]["first_answer_ms"] / 1000, 2)
    extra = start["extra_memory_mb"]
    return [
        (
            f"reader: first answer after start <= {FIRST_ANSWER_S:.0f} s",
            first_s,
            FIRST_ANSWER_S,
            first_s <= FIRST_ANSWER_S,
        ),
        (
            f"reader: app memory <= {EXTRA_MEMORY_MB:.0f} MB above the composer's",
            extra,
            EXTRA_MEMORY_MB,
            extra <= EXTRA_MEMORY_MB,
        ),
    ]


def main(argv=None) -> int:
    argparse.ArgumentParser(prog="python -m bench.start", description=__doc__.split("\n")[0]).parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(json.dumps(measure(), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
