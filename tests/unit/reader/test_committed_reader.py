"""The reader committed in models/reader/ is whole: its file is the one its manifest
describes, it holds every layer of E5 and both heads, it was trained on the E5 file the
product ships, and its card credits every set it learned from."""

from __future__ import annotations

from pathlib import Path

import pytest

from courserag.config.persistence import file_sha256
from courserag.embedders.e5_format import locate_model
from courserag.reader.delta import HEADS, read_delta

MODEL = Path(__file__).resolve().parents[3] / "models" / "reader" / "reader.safetensors"


@pytest.fixture(scope="module")
def delta():
    return read_delta(MODEL)  # raises, naming the file, when it is altered or torn


def test_the_committed_reader_is_the_file_its_manifest_describes(delta):
    layers = {name.split(".")[3] for name in delta.tensors if name.startswith("bert.encoder.layer.")}
    assert layers == {str(i) for i in range(12)}
    assert set(HEADS) <= set(delta.tensors)


def test_the_committed_reader_was_trained_on_the_e5_the_product_ships(delta):
    assert delta.base_sha256 == file_sha256(locate_model())


def test_the_committed_readers_card_credits_every_set_and_licence(delta):
    manifest = delta.manifest
    card = (MODEL.parent / "CARD.md").read_text(encoding="utf-8")
    assert manifest["data"], "the manifest names the data it learned from"
    for name, entry in manifest["data"].items():
        assert name in card
        assert entry["licence"] in card
