"""Fixtures of the reader's training tests: the training sets (the E5 file and the reader's
tokenizer are tests/conftest.py's)."""

from __future__ import annotations

import pytest

from training.reader.sets import data_root


@pytest.fixture
def shared_train():
    """The shared training sets' folder (skips when they are not beside the repository)."""
    root = data_root()
    if not (root / "mlqa_dev_en" / "data.json").is_file():
        pytest.skip(f"the shared training sets are not at {root} (set SHARED_TRAIN)")
    return root
