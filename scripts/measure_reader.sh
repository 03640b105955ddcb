#!/usr/bin/env bash
# A trained run measured the way docs/READER.md reports a reader, in one command:
#
#   scripts/measure_reader.sh RUN [OUT]      # OUT defaults to RUN/measured
#
# 1. its int8 export (the form the product ships) of the run's newest checkpoint;
# 2. held-out exact match and F1 through the product's ONNX reader (40 questions a set);
# 3. every shared set through the product as it answers without a reader, the composer: the
#    "before" column, on the same machine in the same run, and the indexes steps 4 and 5 read;
# 4. its quotes and refusal fitted through the product's retrieval and written into the
#    manifest (scripts/calibrate_reader.py collect, then choose --write);
# 5. every shared set through the product with READER_WEIGHTS set (python -m bench.answers);
# 6. its model card, from the manifest and the held-out scores.
#
# Each step writes its file into OUT and is skipped when that file is already there, so an
# interrupted measurement resumes. The indexes and the fitting rows are kept in EVAL_CACHE
# (bench/answers.py). About 2 hours on two quiet cores, most of it steps 3 to 5.
set -euo pipefail
cd "$(dirname "$0")/.."

RUN=${1:?usage: scripts/measure_reader.sh RUN [OUT]}
OUT=${2:-$RUN/measured}
PY=${PYTHON:-.venv/bin/python}
SETS=${SETS:-course_qa_dev,syllabusqa_dev,squad_v1_dev,cmrc2018_dev,xquad_zh2en_dev,xquad_en2zh_dev}
WEIGHTS="$OUT/reader.safetensors"
export READER_ROWS_DIR=${READER_ROWS_DIR:-$OUT/rows}
mkdir -p "$OUT"

step() { echo "== $1 ($(date +%H:%M:%S))" >&2; }

if [ ! -f "$WEIGHTS" ]; then
  step "export"
  "$PY" -m training.reader export --run "$RUN" --out "$WEIGHTS" --dtype int8
fi
if [ ! -f "$OUT/heldout.json" ]; then
  step "held-out scores"
  "$PY" -m training.reader evaluate --delta "$WEIGHTS" --onnx int8 --max-examples 40 --json "$OUT/heldout.json"
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
if [ ! -f "$OUT/CARD.md" ]; then
  step "model card"
  "$PY" -m training.reader card --delta "$WEIGHTS" --scores "$OUT/heldout.json" --out "$OUT/CARD.md"
fi
echo "the composer:" && cat "$OUT/composer.md"
echo "the reader:" && cat "$OUT/bench.md"
