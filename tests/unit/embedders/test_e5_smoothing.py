"""E5's weight products smoothed for int8 (courserag/embedders/e5_smoothing.py): each input
channel of a product that reads a LayerNorm or GELU divided by its range estimated from the
weights, the weight's row multiplied by it, so the float32 graph computes what it computed
before; the embedder's and the reader's int8 conversions both quantize it."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from courserag.embedders.e5_smoothing import GELU_FLOOR, NORM_FLOOR, gelu_ranges, norm_ranges, smoothed

IDENTITY_2 = np.array([[1.0, 0.0], [0.0, 2.0]])  # [hidden, inner] as the graph stores it


@pytest.mark.parametrize(
    ("inner_bias", "norm_scale", "norm_shift", "expected"),
    [
        ([0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [4.0, 8.0]),  # four standard deviations of a unit input
        ([0.0, 0.0], [0.5, 1.0], [0.0, 0.0], [2.0, 8.0]),  # the LayerNorm's scale narrows a channel
        ([0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [5.0, 8.0]),  # its shift moves the mean
        ([1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [5.0, 8.0]),  # so does the product's bias
        ([-10.0, 0.0], [1.0, 1.0], [0.0, 0.0], [GELU_FLOOR, 8.0]),  # GELU all but shut: its floor
    ],
)
def test_a_gelu_channel_s_range_is_its_pre_activation_mean_plus_four_deviations(
    inner_bias, norm_scale, norm_shift, expected
):
    ranges = gelu_ranges(IDENTITY_2, np.array(inner_bias), np.array(norm_scale), np.array(norm_shift))
    assert ranges == pytest.approx(expected)


@pytest.mark.parametrize(
    ("norm_scale", "norm_shift", "expected"),
    [
        ([1.0, 0.5], [0.0, 0.0], [4.0, 2.0]),  # four of its scale's units
        ([1.0, -0.5], [0.0, 0.0], [4.0, 2.0]),  # a negative scale spans as much
        ([1.0, 1.0], [2.0, -2.0], [6.0, 6.0]),  # the shift widens it either way
        ([0.0, 1.0], [0.0, 0.0], [NORM_FLOOR, 4.0]),  # a channel held at 0: the floor, never 0
    ],
)
def test_a_layer_norm_channel_s_range_is_its_shift_plus_four_of_its_scale(norm_scale, norm_shift, expected):
    assert norm_ranges(np.array(norm_scale), np.array(norm_shift)) == pytest.approx(expected)


FEED = {
    "inputs_embeds": (np.random.default_rng(0).standard_normal((2, 24, 384)) * 0.05).astype(np.float32),
    "attention_mask": np.array([[1] * 24, [1] * 17 + [0] * 7], np.int64),
}


def _outputs(model: onnx.ModelProto) -> list[np.ndarray]:
    import onnxruntime as ort

    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, FEED)


@pytest.fixture(scope="module")
def e5_graphs(e5_file):
    """E5's float32 encoder, and the same graph smoothed."""
    from courserag.embedders.e5_graph import encoder_model

    model = encoder_model(e5_file)
    return model, smoothed(model)


@pytest.fixture(scope="module")
def reader_graphs(e5_file, tmp_path_factory):
    """The float32 reader over E5 (its heads random), and the same graph smoothed with its
    heads kept as they are."""
    pytest.importorskip("safetensors")
    from courserag.reader.delta import read_delta
    from courserag.reader.graph import HEAD_NODES, reader_model
    from tests.unit.reader.test_delta import write

    model = reader_model(e5_file, read_delta(write(tmp_path_factory.mktemp("delta"))))
    return model, smoothed(model, keep_float=HEAD_NODES)


@pytest.mark.parametrize("graphs", ["e5_graphs", "reader_graphs"])
def test_smoothing_leaves_what_the_float32_graph_computes_as_it_was(graphs, request):
    model, smooth = request.getfixturevalue(graphs)
    for before, after in zip(_outputs(model), _outputs(smooth)):
        assert np.abs(after - before).max() <= 1e-4 * max(1.0, np.abs(before).max())


def _scaled_inputs(model: onnx.ModelProto) -> dict[str, list[str]]:
    """Each smoothing Mul's output, with the weights of the products that read it."""
    scaled = {n.output[0] for n in model.graph.node if n.op_type == "Mul" and n.output[0].endswith(".scaled_input")}
    readers: dict[str, list[str]] = {name: [] for name in scaled}
    for node in model.graph.node:
        if node.op_type == "MatMul" and node.input[0] in scaled:
            readers[node.input[0]].append(node.input[1])
    return readers


def test_every_product_that_reads_a_layer_norm_or_gelu_reads_it_through_one_division(e5_graphs):
    _, smooth = e5_graphs
    readers = _scaled_inputs(smooth)
    assert len(readers) == 36  # per layer: its query, key and value; its feed-forward input; its output
    assert readers["emb.ln.scaled_input"] == ["l0.q.w", "l0.k.w", "l0.v.w"]  # one division for the three
    assert readers["l2.oln.scaled_input"] == ["l3.q.w", "l3.k.w", "l3.v.w"]
    assert readers["l3.aln.scaled_input"] == ["l3.fi.w"]
    assert readers["l3.fo.scaled_input"] == ["l3.fo.w"]
    products = [n.input[1] for n in smooth.graph.node if n.op_type == "MatMul" and n.input[1].endswith(".w")]
    assert {p for p in products if p.endswith(".ao.w")}.isdisjoint(w for ws in readers.values() for w in ws)


def test_a_smoothed_weight_s_rows_are_multiplied_by_what_its_input_is_divided_by(e5_graphs):
    model, smooth = e5_graphs
    before = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    after = {i.name: numpy_helper.to_array(i) for i in smooth.graph.initializer}
    for weight, inverse in [("l3.fo.w", "l3.fo.inverse_range"), ("l3.k.w", "l2.oln.inverse_range")]:
        assert np.allclose(after[weight] * after[inverse][:, None], before[weight], rtol=1e-5, atol=1e-7)


def test_the_reader_s_heads_kept_float32_are_not_smoothed(reader_graphs):
    _, smooth = reader_graphs
    readers = _scaled_inputs(smooth)
    assert len(readers) == 36
    assert not [w for ws in readers.values() for w in ws if not w.startswith("l")]
