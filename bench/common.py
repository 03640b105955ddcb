"""Timing, statistics and machine notes shared by every benchmark.

Every figure is measured beside its baseline in the same run, and where the two are
repeated they are interleaved (A, B, A, B, ... in rotating order), so both see the same
noise from other processes on this shared 2-core machine. Ratios are baseline / candidate
for times ("x faster") and candidate / baseline for sizes; medians and p95 are reported
as absolute milliseconds beside them.
"""

from __future__ import annotations

import gc
import logging
import math
import os
import platform
import statistics
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The shared evaluation sets (read-only, beside the repository), named once for every benchmark,
# fitting script and test: SHARED_EVAL overrides it (BENCH_EVAL_DIR, its older name, still does).
EVAL_DIR = Path(
    os.environ.get("SHARED_EVAL") or os.environ.get("BENCH_EVAL_DIR") or PROJECT_ROOT.parent / "shared" / "eval"
)


def cache_dir() -> Path:
    """Where embeddings and built stores are kept between runs (BENCH_CACHE_DIR)."""
    return Path(os.environ.get("BENCH_CACHE_DIR") or PROJECT_ROOT / "data" / "bench-cache")


RESULTS_DIR = PROJECT_ROOT / "bench" / "results"


def quiet() -> None:
    """Only errors on the terminal while a benchmark prints its figures: the product's
    logging set-up (courserag.config.logs) at ERROR, and no library deprecation warnings."""
    from courserag.config.logs import configure_logging

    warnings.filterwarnings("ignore")
    configure_logging(logging.ERROR, logging.ERROR)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in [0, 100]); nan for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summary(samples_ms: Sequence[float]) -> dict:
    """median, p95, min, mean and n of a list of milliseconds."""
    values = list(samples_ms)
    return {
        "median_ms": round(statistics.median(values), 3) if values else math.nan,
        "p95_ms": round(percentile(values, 95), 3),
        "min_ms": round(min(values), 3) if values else math.nan,
        "mean_ms": round(statistics.fmean(values), 3) if values else math.nan,
        "n": len(values),
    }


def speedup(baseline: dict, candidate: dict, key: str = "median_ms") -> float:
    """baseline / candidate of one statistic: > 1 means the candidate is faster."""
    b, c = baseline.get(key), candidate.get(key)
    if not b or not c or math.isnan(b) or math.isnan(c):
        return math.nan
    return round(b / c, 3)


def interleave(configs: dict[str, Callable[[int], object]], iterations: int, warmup: int = 1) -> dict[str, list[float]]:
    """Run every config once per iteration, in rotating order; milliseconds per config.

    `configs[name](i)` does one unit of work for item i. The first `warmup` iterations are
    run but not recorded.
    """
    names = list(configs)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for i in range(warmup + iterations):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            gc.disable()
            started = time.perf_counter()
            try:
                configs[name](i)
            finally:
                elapsed = (time.perf_counter() - started) * 1000
                gc.enable()
            if i >= warmup:
                samples[name].append(elapsed)
    return samples


def timed(fn: Callable[[], object]) -> tuple[object, float]:
    """(result, milliseconds)."""
    started = time.perf_counter()
    result = fn()
    return result, (time.perf_counter() - started) * 1000


def calibration_ms(rounds: int = 5) -> float:
    """Median time of a fixed pure-Python + numpy workload: how loaded the machine is now.

    On this machine, idle, it takes about 20 ms; a larger figure means other processes
    were competing for the two cores while the benchmark ran."""
    import numpy as np

    a = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        total = 0
        for i in range(100_000):
            total += i * i
        for _ in range(20):
            a = np.tanh(a @ a * 0.01)
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 2)


@dataclass
class MachineNotes:
    """What the run happened on, recorded at the start and the end of it."""

    cpus: int = field(default_factory=lambda: os.cpu_count() or 0)
    python: str = field(default_factory=platform.python_version)
    platform: str = field(default_factory=platform.platform)
    notes: dict = field(default_factory=dict)

    def sample(self, label: str) -> None:
        try:
            load = os.getloadavg()
        except OSError:
            load = (math.nan, math.nan, math.nan)
        self.notes[label] = {"loadavg_1m": round(load[0], 2), "calibration_ms": calibration_ms()}

    def to_json(self) -> dict:
        import numpy
        import torch

        try:
            import faiss

            faiss_version = faiss.__version__
        except Exception:  # pragma: no cover - faiss is a dependency
            faiss_version = "?"
        try:
            import psutil

            memory_gb = round(psutil.virtual_memory().total / 1024**3, 1)
        except Exception:  # pragma: no cover
            memory_gb = math.nan
        return {
            "cpus": self.cpus,
            "memory_gb": memory_gb,
            "python": self.python,
            "platform": self.platform,
            "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            "numpy": numpy.__version__,
            "faiss": faiss_version,
            **self.notes,
        }


def rss_bytes() -> int:
    import psutil

    return psutil.Process().memory_info().rss


def settle_memory() -> int:
    """RSS after a full collection and returning freed heap pages to the OS."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return rss_bytes()
