#!/usr/bin/env bash
# A trained run measured the way docs/READER.md reports a reader, in one command:
#
#   scripts/measure_reader.sh OUT [RUN]   # OUT: the reader's folder; RUN: the run to export
#
# e.g. scripts/measure_reader.sh models/reader (the reader in the repository), or
# scripts/measure_reader.sh runs/x/measured runs/x (a finished run).
#
# 1. its int8 export (the form the product ships) of the run's newest checkpoint, unless OUT
#    holds one already;
# 2. held-out exact match and F1 through the product's ONNX reader (40 questions a set), and
#    how often it refuses those questions read over a distractor passage and over a passage
#    of another source;
# 3. every shared set through the product as it answers without a reader, the composer: the
#    "before" column, on the same machine in the same run, and the indexes steps 4 and 5 read;
# 4. its quotes and refusal fitted through the product's retrieval and written into the
#    manifest (scripts/calibrate_reader.py collect, then choose --write);
# 5. every shared set through the product with READER_WEIGHTS set (python -m bench.answers);
# 6. its model card, from the manifest (with the fitted calibration) and the held-out scores.
#
# Steps 1 to 5 each write their file into OUT and are skipped when it is already there, so an
# interrupted measurement resumes. The indexes and the fitting rows are kept in EVAL_CACHE
# (bench/answers.py). About 2 hours on two quiet cores, most of it steps 3 to 5.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${1:?usage: scripts/measure_reader.sh OUT [RUN]}
RUN=${2:-}
PY=${PYTHON:-.venv/bin/python}
SETS=${SETS:-course_qa_dev,syllabusqa_dev,squad_v1_dev,cmrc2018_dev,xquad_zh2en_dev,xquad_en2zh_dev,xquad_zh_dev}
WEIGHTS="$OUT/reader.safetensors"
mkdir -p "$OUT"

step() { echo "== $1 ($(date +%H:%M:%S))" >&2; }

if [ ! -f "$WEIGHTS" ]; then
  [ -n "$RUN" ] || { echo "no $WEIGHTS: name the run to export it from" >&2; exit 2; }
  step "export"
  "$PY" -m training.reader export --run "$RUN" --out "$WEIGHTS" --dtype int8
fi
# the fitting rows of these weights, beside the indexes (large, never in the repository)
SHA=$(sha256sum "$WEIGHTS" | cut -c1-16)
export READER_ROWS_DIR=${READER_ROWS_DIR:-${EVAL_CACHE:-/tmp/evalcache}/reader_rows-$SHA}
if [ ! -f "$OUT/heldout.json" ]; then
  step "held-out scores"
  "$PY" -m training.reader evaluate --delta "$WEIGHTS" --onnx int8 --max-examples 40 --distractors 1 --off-topic 1 --answer-removed 1 --json "$OUT/heldout.json"
fi
if [ ! -f "$OUT/composer.md" ]; then
  step "every shared set through the composer"
  env -u READER_WEIGHTS "$PY" -m bench.answers --sets "$SETS" --markdown "$OUT/composer.tmp" --json "$OUT/composer.json"
  mv "$OUT/composer.tmp" "$OUT/composer.md"
fi
if [ ! -f "$OUT/choose.txt" ]; then
  step "fitting rows"
  READER_WEIGHTS="$WEIGHTS" "$PY" scripts/calibrate_reader.py collect
  step "quotes and refusal"
  READER_WEIGHTS="$WEIGHTS" "$PY" scripts/calibrate_reader.py choose --write > "$OUT/choose.tmp"
  mv "$OUT/choose.tmp" "$OUT/choose.txt"
fi
if [ ! -f "$OUT/bench.md" ]; then
  step "every shared set through the product"
  READER_WEIGHTS="$WEIGHTS" "$PY" -m bench.answers --sets "$SETS" --markdown "$OUT/bench.tmp" --json "$OUT/bench.json"
  mv "$OUT/bench.tmp" "$OUT/bench.md"
fi
step "model card"
"$PY" -m training.reader card --delta "$WEIGHTS" --scores "$OUT/heldout.json" --out "$OUT/CARD.md"
echo "the composer:" && cat "$OUT/composer.md"
echo "the reader:" && cat "$OUT/bench.md"
