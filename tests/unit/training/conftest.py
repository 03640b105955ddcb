"""Fixtures of the reader's tests: the product's E5 file and tokenizer, and the training sets."""

from __future__ import annotations

import pytest

from training.reader.sets import data_root


@pytest.fixture(scope="session")
def e5_file():
    from courserag.embedders.e5_format import locate_model, read_e5

    try:
        return read_e5(locate_model())
    except FileNotFoundError as exc:
        pytest.skip(f"the E5 model file is not installed: {exc}")


@pytest.fixture(scope="session")
def reader_tokenizer(e5_file):
    from training.reader.tokens import ReaderTokenizer

    return ReaderTokenizer(e5_file)


@pytest.fixture
def shared_train():
    """The shared training sets' folder (skips when they are not beside the repository)."""
    root = data_root()
    if not (root / "mlqa_dev_en" / "data.json").is_file():
        pytest.skip(f"the shared training sets are not at {root} (set SHARED_TRAIN)")
    return root
