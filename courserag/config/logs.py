"""One logging set-up for every entry point (app, CLI, builder, benchmarks)."""

from __future__ import annotations

import logging
import os

# Libraries whose INFO lines (HTTP requests, weight loading, dictionary building, batch
# writes, model export) are noise to a learner's or an instructor's terminal.
NOISY_LIBRARIES = (
    "httpx",
    "sentence_transformers",
    "transformers",
    "jieba",
    "urllib3",
    "faiss",
    "llama_index",
    "onnxruntime",
)


def quiet_environment() -> None:
    """No analytics calls and no tokenizer fork warnings; set before Gradio is imported."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # Idle OpenMP threads sleep instead of spinning: torch, FAISS and onnxruntime share two
    # cores here, and a spinning pool made the next model call of another library 30x slower.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def configure_logging(level: int = logging.INFO, libraries_level: int = logging.WARNING) -> None:
    """Our own log lines at `level`, the noisy libraries' at `libraries_level`."""
    quiet_environment()
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    for name in NOISY_LIBRARIES:
        logging.getLogger(name).setLevel(libraries_level)
