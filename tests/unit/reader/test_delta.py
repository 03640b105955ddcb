"""A reader's weight file that is missing, altered or made for something else stops the app at
start with one sentence naming the file (courserag/reader/delta.py, convert.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("safetensors")
from safetensors.numpy import save_file  # noqa: E402

from courserag.config.persistence import file_sha256  # noqa: E402
from courserag.reader.convert import converted_reader  # noqa: E402
from courserag.reader.delta import FORMAT, ReaderWeightsError, read_delta  # noqa: E402

LAYER = "bert.encoder.layer.11.output.LayerNorm.bias"


def heads() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "span.weight": rng.normal(size=(2, 384)).astype(np.float32),
        "span.bias": np.zeros(2, np.float32),
        "answer.weight": rng.normal(size=(1, 384)).astype(np.float32),
        "answer.bias": np.zeros(1, np.float32),
        LAYER: np.zeros(384, np.float32),
    }


def write(folder, tensors=None, **manifest_changes):
    path = folder / "reader.safetensors"
    save_file(tensors if tensors is not None else heads(), str(path), metadata={"format": FORMAT})
    manifest = {
        "format": FORMAT,
        "sha256": file_sha256(path),
        "base_model": {"sha256": "0" * 64},
        "input": {"max_tokens": 192, "stride": 96, "max_question_tokens": 64},
    }
    manifest.update(manifest_changes)
    path.with_suffix(".json").write_text(json.dumps(manifest), encoding="utf-8")
    return path


def test_a_well_formed_delta_is_read_with_its_window_and_its_layers_under_e5_s_names(tmp_path):
    delta = read_delta(write(tmp_path))
    assert (delta.window.max_tokens, delta.window.stride) == (192, 96)
    assert list(delta.file_weights()) == ["l11.oln.b"]


@pytest.mark.parametrize(
    ("spoil", "says"),
    [
        (lambda p: p.unlink(), "missing"),
        (lambda p: p.with_suffix(".json").unlink(), "missing"),
        (lambda p: p.write_bytes(p.read_bytes()[:-7] + b"garbage"), "not the file its manifest describes"),
        (lambda p: p.with_suffix(".json").write_text("{not json", encoding="utf-8"), "cannot be read"),
        (lambda p: p.with_suffix(".json").write_text('{"format": "other/1"}', encoding="utf-8"), "expected"),
        (lambda p: p.with_suffix(".json").write_text("[1, 2]", encoding="utf-8"), "expected"),
    ],
)
def test_a_missing_altered_or_foreign_file_is_refused_by_name(tmp_path, spoil, says):
    path = write(tmp_path)
    spoil(path)
    with pytest.raises(ReaderWeightsError, match=says) as caught:
        read_delta(path)
    assert "reader" in str(caught.value)


def test_bytes_that_are_not_tensors_are_refused_with_their_name(tmp_path):
    path = tmp_path / "reader.safetensors"
    path.write_bytes(b"\x00" * 64)
    manifest = {"format": FORMAT, "sha256": file_sha256(path), "base_model": {"sha256": "0" * 64}}
    path.with_suffix(".json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ReaderWeightsError, match="is not a reader's weights"):
        read_delta(path)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"span.weight": np.zeros((3, 384), np.float32)}, "span.weight"),
        ({"bert.pooler.dense.weight": np.zeros((384, 384), np.float32)}, "no layer of E5 has"),
        ({"bert.encoder.layer.3.crossattention.weight": np.zeros(3, np.float32)}, "no layer of E5 has"),
    ],
)
def test_tensors_that_do_not_fit_the_reader_are_refused(tmp_path, change, says):
    with pytest.raises(ReaderWeightsError, match=says):
        read_delta(write(tmp_path, {**heads(), **change}))


def test_a_delta_trained_on_another_e5_file_is_refused_before_conversion(tmp_path, e5_file):
    delta = read_delta(write(tmp_path))
    with pytest.raises(ReaderWeightsError, match="trained on E5 file 0000"):
        converted_reader(tmp_path / "models", e5_file.path, delta, "int8")
    assert not list((tmp_path / "models").glob("*/*.onnx"))


@pytest.mark.parametrize(
    "matrix",
    [
        np.array([[0.5, -1.0, 0.25], [0.0, 0.0, 0.0], [3e-3, -2e-3, 1e-3]], np.float32),
        np.random.default_rng(1).normal(scale=0.05, size=(8, 384)).astype(np.float32),
    ],
)
def test_an_int8_matrix_comes_back_within_half_a_step_of_each_row(matrix):
    from courserag.reader.delta import SCALE, float_tensors, quantize_rows

    q, scale = quantize_rows(matrix)
    assert q.dtype == np.int8 and scale.shape == (len(matrix),)
    back = float_tensors({"w": q, "w" + SCALE: scale})["w"]
    assert np.all(np.abs(back - matrix) <= scale[:, None] / 2 + 1e-9)
    assert np.abs(q).max() == 127 or not matrix.any()


def test_an_int8_matrix_without_its_scales_is_refused(tmp_path):
    tensors = {**heads(), "bert.encoder.layer.11.output.dense.weight": np.zeros((384, 1536), np.int8)}
    with pytest.raises(ReaderWeightsError, match="has no .row_scale"):
        read_delta(write(tmp_path, tensors))


def test_the_int8_reader_keeps_only_its_heads_in_float32_and_smooths_the_products_it_quantizes(tmp_path, e5_file):
    import onnx

    delta = read_delta(write(tmp_path, base_model={"sha256": file_sha256(e5_file.path)}))
    graph = onnx.load(str(converted_reader(tmp_path / "models", e5_file.path, delta, "int8"))).graph
    weights = {i.name for i in graph.initializer}
    float_products = sorted(n.input[1] for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights)
    assert float_products == ["answer.w", "span.w"]
    quantized = [n for n in graph.node if n.op_type in ("MatMulInteger", "DynamicQuantizeMatMul")]
    assert len(quantized) == 12 * 6  # q, k, v, the attention output, the feed-forward input and output
    assert sum(n.op_type == "Mul" and n.output[0].endswith(".scaled_input") for n in graph.node) == 12 * 3
    assert not [p.name for p in (tmp_path / "models").rglob("*") if p.is_file() and "smoothed" in p.name]


def test_a_shallower_reader_says_which_of_e5_s_layers_its_encoder_keeps(tmp_path):
    tensors = {k: v for k, v in heads().items() if k != LAYER}
    tensors["bert.encoder.layer.1.output.LayerNorm.bias"] = np.zeros(384, np.float32)
    delta = read_delta(write(tmp_path, tensors, encoder_layers=[0, 11]))
    assert delta.encoder_layers == (0, 11) and list(delta.file_weights()) == ["l1.oln.b"]
    (tmp_path / "all").mkdir()
    assert read_delta(write(tmp_path / "all")).encoder_layers is None  # E5's 12 layers, as they are


@pytest.mark.parametrize(
    ("kept", "says"),
    [
        ([0, 6], "its encoder has 2 layers"),  # the file's layer 11 lies beyond a 2-layer encoder
        ([3, 3], "distinct layers"),
        ([], "distinct layers"),
    ],
)
def test_a_shallower_reader_whose_layers_do_not_fit_its_encoder_is_refused(tmp_path, kept, says):
    with pytest.raises(ReaderWeightsError, match=says):
        read_delta(write(tmp_path, encoder_layers=kept))


def test_a_shallower_reader_s_graph_has_its_layers_and_takes_e5_s_for_those_it_did_not_train(tmp_path, e5_file):
    import onnx

    tensors = {k: v for k, v in heads().items() if k != LAYER}
    tensors["bert.encoder.layer.1.output.LayerNorm.bias"] = np.full(384, 0.5, np.float32)
    delta = read_delta(
        write(tmp_path, tensors, encoder_layers=[2, 9], base_model={"sha256": file_sha256(e5_file.path)})
    )
    graph = onnx.load(str(converted_reader(tmp_path / "models", e5_file.path, delta, "fp32"))).graph
    weights = {i.name: onnx.numpy_helper.to_array(i) for i in graph.initializer}
    assert sorted({name.split(".")[0] for name in weights if name[1:2].isdigit()}) == ["l0", "l1"]
    assert np.array_equal(weights["l0.q.w"], np.ascontiguousarray(e5_file.matrix("l2.q.w", 384).T))
    assert np.array_equal(weights["l1.q.w"], np.ascontiguousarray(e5_file.matrix("l9.q.w", 384).T))
    assert np.array_equal(weights["l1.oln.b"], np.full(384, 0.5, np.float32))  # the delta's own


def test_a_shallower_reader_keeping_a_layer_e5_lacks_is_refused_at_conversion(tmp_path, e5_file):
    tensors = {k: v for k, v in heads().items() if k != LAYER}
    delta = read_delta(
        write(tmp_path, tensors, encoder_layers=[0, 12], base_model={"sha256": file_sha256(e5_file.path)})
    )
    with pytest.raises(ReaderWeightsError, match="E5 has 12"):
        converted_reader(tmp_path / "models", e5_file.path, delta, "fp32")
