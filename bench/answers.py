"""Answer-level figures on every shared set, in one command, beside the top-chunk baseline.

    python -m bench.answers                              # every set, the reported sizes
    python -m bench.answers --sets syllabusqa_dev,cmrc2018_dev --max 40   # quick look
    python -m bench.answers --markdown docs-table.md     # also write the Markdown table

Each Wikipedia-style set and SyllabusQA go through ../shared/eval/answer_eval.py (its
definitions, its CLI contract: the product's own `build_weaviate_index.py` and
`rag_engine.py ask --batch --json`), with `--work` kept under the cache folder
(EVAL_CACHE, default /tmp/evalcache) so a rerun reuses the index. `course_qa_dev` has its own
format and is scored by `rag_engine.py eval` (courserag/answers/evaluation.py) on the sample courses,
whose index is built into the same cache. Every row gives correct, the top-chunk baseline
(the first 120 words of the top cited text), evidence, false refusals, refused "no answer"
questions, median answer length (answer_eval's `words`) and the CLI's `timings_ms.total`
(median, p95).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from bench.common import EVAL_DIR

ROOT = Path(__file__).resolve().parent.parent
SHARED = EVAL_DIR  # the shared sets (SHARED_EVAL)
CACHE = Path(os.environ.get("EVAL_CACHE", "/tmp/evalcache"))  # indexes and results kept between runs


@dataclass(frozen=True)
class AnswerSet:
    """One shared set as it is reported: its scope, split and size."""

    name: str
    scope: str = "course"
    split: str | None = None
    max: int = 0  # answer_eval's --max (0: every question)


# The reported sizes: SyllabusQA's whole val split, 300 questions of each Wikipedia set;
# XQuAD's Chinese questions over Chinese passages last, a set no fit reads.
SETS = (
    AnswerSet("course_qa_dev"),
    AnswerSet("syllabusqa_dev", "course", "val"),
    AnswerSet("squad_v1_dev", "course", None, 300),
    AnswerSet("cmrc2018_dev", "global", None, 300),
    AnswerSet("xquad_zh2en_dev", "global", None, 300),
    AnswerSet("xquad_en2zh_dev", "global", None, 300),
    AnswerSet("xquad_zh_dev", "global", None, 300),
)


@dataclass
class Row:
    """The figures of one set (None where the set has no such figure)."""

    name: str
    scope: str
    n: int = 0
    correct: float | None = None
    top_chunk: float | None = None
    evidence: float | None = None
    false_refuse: float | None = None
    refuse_unans: float | None = None
    words: int | None = None
    ms_median: float | None = None
    ms_p95: float | None = None
    by_kind: dict = field(default_factory=dict)


_FIGURE = re.compile(r"(\w+)=([0-9.]+)")
_LATENCY = re.compile(r"median (\d+) ms, p95 (\d+) ms")


def parse_answer_eval(output: str) -> Row:
    """The figures of answer_eval.py's printout: its last line is the summary
    ('SET scope n=.. correct=.. …'), the '# build' line above it has the latency."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    if not lines or lines[-1].startswith("#"):
        raise ValueError(f"no summary line in answer_eval output: {output[-300:]!r}")
    name, scope = lines[-1].split()[:2]
    figures = dict(_FIGURE.findall(lines[-1]))
    row = Row(name, scope, n=int(figures["n"]))
    for key in ("correct", "top_chunk", "evidence", "false_refuse", "refuse_unans"):
        if key in figures:
            setattr(row, key, float(figures[key]))
    row.words = int(figures["words"]) if "words" in figures else None
    for line in lines[:-1]:
        latency = _LATENCY.search(line)
        if latency:
            row.ms_median, row.ms_p95 = float(latency.group(1)), float(latency.group(2))
        elif line.startswith("# ") and "n=" in line:
            kind = line[2 : line.index(" n=")].strip()
            row.by_kind[kind] = {k: float(v) for k, v in _FIGURE.findall(line.replace("n= ", "n="))}
    return row


def _env(cache: Path, extra: dict[str, str]) -> dict[str, str]:
    """The environment of every run: offline, no Weaviate, the converted model kept once in
    the cache (MODEL_CACHE_DIR) instead of once per set's DATA_DIR."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEAVIATE_")}
    env.setdefault("MODEL_CACHE_DIR", str(cache / "models"))
    env.update(HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", **extra)
    return env


def run_shared(
    spec: AnswerSet, cache: Path, python: str, max_override: int | None = None, env: dict[str, str] | None = None
) -> Row:
    """One set through answer_eval.py, the index kept in `cache` (a rerun skips the build);
    `env`: variables the product reads beside the environment's (READER_WEIGHTS)."""
    work = cache / f"{spec.name}-{spec.scope}"
    size = spec.max if max_override is None else max_override
    out = cache / f"{spec.name}-{spec.scope}{'-' + spec.split if spec.split else ''}-{size or 'all'}.results.jsonl"
    command = [
        python,
        str(SHARED / "answer_eval.py"),
        str(SHARED / spec.name),
        "--scope",
        spec.scope,
        "--work",
        str(work),
        "--out",
        str(out),
        "--python",
        python,
    ]
    if spec.split:
        command += ["--split", spec.split]
    if size:
        command += ["--max", str(size)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(cache, env or {}))
    if done.returncode:
        raise RuntimeError(f"answer_eval failed on {spec.name}: {(done.stderr or done.stdout)[-800:]}")
    return parse_answer_eval(done.stdout)


def run_course_qa(cache: Path, python: str, limit: int | None = None) -> Row:
    """course_qa_dev on the sample courses through `rag_engine.py eval --json`."""
    env = _env(cache, {"DATA_DIR": str(cache / "sample-data")})
    build = subprocess.run(
        [python, "build_weaviate_index.py", "--no-progress"], capture_output=True, text=True, cwd=ROOT, env=env
    )
    if build.returncode:
        raise RuntimeError(f"building the sample courses failed: {build.stderr[-800:]}")
    report = cache / "course_qa_dev.json"
    command = [python, "rag_engine.py", "eval", "--set", str(SHARED / "course_qa_dev"), "--json", str(report)]
    if limit:
        command += ["--limit", str(limit)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    if done.returncode:
        raise RuntimeError(f"rag_engine.py eval failed: {done.stderr[-800:]}")
    return row_of_course_qa(json.loads(report.read_text(encoding="utf-8")))


def row_of_course_qa(report: dict) -> Row:
    """The Row of a `rag_engine.py eval --json` report (courserag/answers/evaluation.py's figures)."""
    s = report["summary"]
    return Row(
        "course_qa_dev",
        "course",
        n=int(s["questions"]),
        correct=s["correct"],
        top_chunk=s.get("top_chunk"),
        evidence=s.get("cited"),
        false_refuse=s["false_refusals"],
        refuse_unans=s["refuse_ok"],
        words=s.get("words"),
        ms_median=s.get("ms_median"),
        ms_p95=s.get("ms_p95"),
        by_kind=report.get("by_kind", {}),
    )


def _cell(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    return (
        f"{value:.{digits}f}"
        if isinstance(value, float) and digits
        else f"{value:.0f}"
        if isinstance(value, float)
        else str(value)
    )


def markdown(rows: Sequence[Row]) -> str:
    """The table docs/EVALUATION.md carries (course_qa_dev's evidence column is 'right file cited')."""
    head = (
        "| set | scope | n | correct | top chunk | evidence | false refusals | no answer refused "
        "| words (median) | ask ms median | ask ms p95 |"
    )
    lines = [head, "|" + " --- |" * 11]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.scope} | {r.n} | {_cell(r.correct)} | {_cell(r.top_chunk)} | {_cell(r.evidence)} "
            f"| {_cell(r.false_refuse)} | {_cell(r.refuse_unans)} | {_cell(r.words, 0)} "
            f"| {_cell(r.ms_median, 0)} | {_cell(r.ms_p95, 0)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.answers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="comma-separated set names (default: every set)")
    parser.add_argument(
        "--max", type=int, default=None, help="override every set's size (answer_eval's --max; course_qa_dev: --limit)"
    )
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--markdown", type=Path, help="also write the Markdown table here")
    parser.add_argument("--json", type=Path, help="also write every row (with the figures by question type) as JSON")
    args = parser.parse_args(argv)
    known = {s.name: s for s in SETS}
    names = args.sets.split(",") if args.sets else list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        print(f"error: unknown set(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    args.cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in names:
        spec = known[name]
        try:
            row = (
                run_course_qa(args.cache, args.python, args.max)
                if name == "course_qa_dev"
                else run_shared(spec, args.cache, args.python, args.max)
            )
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        rows.append(row)
        print(markdown([row]).splitlines()[-1], flush=True)
    table = markdown(rows)
    print("\n" + table)
    if args.markdown:
        args.markdown.write_text(table + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in rows], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
