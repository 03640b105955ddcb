# Two commands: `make run` (set up, build the sample index, serve on 127.0.0.1:7860) and
# `make test` (set up, then the whole suite). Everything installs from the package registries
# (PyPI, Debian's chromium, and axe-core from npm for the accessibility scan).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
export GRADIO_ANALYTICS_ENABLED := False
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: run test test-fast test-all lint bench setup setup-dev index browser screenshots clean

# The runtime installs with uv (pinned in constraints.txt): it fetches in parallel and compiles
# the bytecode on every core, a third of pip's time to a served page (docs/PERFORMANCE.md).
# Where uv cannot be had, pip installs the same pins.
$(VENV)/.runtime: requirements.txt constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	( $(PIP) install --disable-pip-version-check -q -c constraints.txt uv \
	  && $(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) -r requirements.txt -c constraints.txt ) \
	  || $(PIP) install --disable-pip-version-check -q -r requirements.txt -c constraints.txt
	touch $@

# The tests and benchmarks also compare against MiniLM, so the dev setup adds the optional
# sentence-transformers stack (torch); `make run` installs requirements.txt alone.
$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt requirements-minilm.txt
	$(PIP) install --disable-pip-version-check -q -r requirements-dev.txt -r requirements-minilm.txt -c constraints.txt
	touch $@

setup: $(VENV)/.runtime

setup-dev: $(VENV)/.dev

# Incremental: unchanged course files are skipped, so this is quick after the first run.
index: setup
	$(PY) build_weaviate_index.py --no-progress

run: index
	$(PY) app.py

browser:
	bash scripts/ensure_chromium.sh
	bash scripts/ensure_axe.sh

# The whole suite, tiers in order: unit, contract, integration, browser (tests/README.md).
test: setup-dev browser lint
	$(PY) -m pytest

# The edit loop: unit and contract tests without the slow ones, then 500 of the generated
# questions that `make test` asks 10,000 of (a few minutes on 2 cores).
test-fast: setup-dev
	$(PY) -m pytest tests/unit tests/contract tests/weaviate_server -m "not slow and not sample_index" -q
	GENERATED_QUESTIONS=500 $(PY) -m pytest tests/integration/test_generated_questions.py -q

lint: setup-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The full-size load test and other slow suites are also in `make test`; this adds the
# long variants that are flagged off by default.
test-all: setup-dev browser
	FULL_LOAD_TEST=1 $(PY) -m pytest

# docs/*.png: the browser tests marked `screenshots`, on the sample courses, saving into docs/.
screenshots: setup-dev browser
	UPDATE_SCREENSHOTS=1 $(PY) -m pytest tests/browser -m screenshots -q

bench: setup-dev
	$(PY) -m bench.run

clean:
	rm -rf data .pytest_cache
