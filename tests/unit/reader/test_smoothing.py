"""The reader's feed-forward output products smoothed for int8 (courserag/reader/smoothing.py):
each GELU channel divided by its range estimated from the weights, the weight's row
multiplied by it, so the float32 graph computes what it computed before."""

from __future__ import annotations

import numpy as np
import pytest

from courserag.reader.smoothing import GELU_FLOOR, channel_ranges

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
def test_a_channel_s_range_is_its_pre_activation_mean_plus_four_deviations(
    inner_bias, norm_scale, norm_shift, expected
):
    ranges = channel_ranges(IDENTITY_2, np.array(inner_bias), np.array(norm_scale), np.array(norm_shift))
    assert ranges == pytest.approx(expected)


@pytest.fixture(scope="module")
def reader_graph(e5_file, tmp_path_factory):
    """The float32 reader over E5 (its heads random), and the same graph smoothed."""
    pytest.importorskip("safetensors")
    from courserag.reader.delta import read_delta
    from courserag.reader.graph import reader_model
    from courserag.reader.smoothing import smoothed
    from tests.unit.reader.test_delta import write

    model = reader_model(e5_file, read_delta(write(tmp_path_factory.mktemp("delta"))))
    return model, smoothed(model)


def test_smoothing_leaves_the_float32_reader_s_logits_as_they_were(reader_graph):
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    feed = {
        "inputs_embeds": (rng.standard_normal((2, 24, 384)) * 0.05).astype(np.float32),
        "attention_mask": np.array([[1] * 24, [1] * 17 + [0] * 7], np.int64),
    }
    plain, smooth = (
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feed)
        for m in reader_graph
    )
    for before, after in zip(plain, smooth):
        assert np.abs(after - before).max() <= 1e-4 * max(1.0, np.abs(before).max())


def test_every_feed_forward_output_reads_its_input_divided_by_the_channel_ranges(reader_graph):
    from onnx import numpy_helper

    model, smooth = reader_graph
    scaled = [n for n in smooth.graph.node if n.op_type == "Mul" and n.output[0].endswith(".fo.scaled_input")]
    assert len(scaled) == 12
    products = {n.input[0]: n for n in smooth.graph.node if n.op_type == "MatMul"}
    assert all(products[n.output[0]].input[1].endswith(".fo.w") for n in scaled)
    weights = {i.name: numpy_helper.to_array(i) for i in smooth.graph.initializer}
    inverse = weights["l3.fo.inverse_range"]
    before = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}["l3.fo.w"]
    assert np.allclose(weights["l3.fo.w"] * inverse[:, None], before, rtol=1e-5, atol=1e-7)
