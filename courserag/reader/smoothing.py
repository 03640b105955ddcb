"""The reader's feed-forward output products made fit for int8, by moving their input's
range into their weights.

onnxruntime's dynamic int8 gives a product's input one scale for the whole tensor. The
feed-forward output product's input is GELU's output, whose 1,536 channels range very
unequally, so per tensor most of them keep only a few of the 8 bits, and these products
moved the trained reader's logits most (docs/DECISIONS.md). Each channel is divided by its
range and the weight's row for it multiplied by the same: the product is unchanged in exact
arithmetic and its input spans about one unit in every channel. This is SmoothQuant's
migration (Xiao et al., 2023) taken all the way to the input, with the ranges estimated from
the weights instead of from calibration text, so the conversion still reads no data:

    pre-activation_j = sum_k W_jk (γ_k z_k + β_k) + b_j   (z: the LayerNorm's unit-variance output)
    range_j ≈ max(mean_j + RANGE_STDS · std_j, GELU_FLOOR)
    mean_j = b_j + sum_k W_jk β_k,   std_j = sqrt(sum_k (W_jk γ_k)²)

GELU is about the identity above zero and never below GELU_FLOOR in magnitude under it, so
this bounds its output. Pure functions over an ONNX model written by e5_graph.py's names
(`l3.fi.w` [384, 1536] the input product's weight, `l3.aln.w` the LayerNorm before it).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

RANGE_STDS = 4.0  # the pre-activation's mean plus this many standard deviations
GELU_FLOOR = 0.17  # GELU's least value is -0.17: no channel's range is taken smaller
OUTPUT_WEIGHT = ".fo.w"  # the feed-forward output product's weight, by e5_graph's names


def channel_ranges(
    inner_weight: np.ndarray, inner_bias: np.ndarray, norm_scale: np.ndarray, norm_shift: np.ndarray
) -> np.ndarray:
    """GELU's output range per channel, estimated from the feed-forward input product
    (`inner_weight` [hidden, inner], as the graph stores it) and the LayerNorm before it."""
    mean = inner_bias + norm_shift @ inner_weight
    std = np.sqrt(((norm_scale[:, None] * inner_weight) ** 2).sum(axis=0))
    return np.maximum(mean + RANGE_STDS * std, GELU_FLOOR)


def smoothed(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` in which every feed-forward output product reads GELU's output
    divided by its channel ranges, its weight's rows multiplied by them (module doc)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    initializers = {i.name: i for i in graph.initializer}
    tensor = lambda name: numpy_helper.to_array(initializers[name])  # noqa: E731
    products = [n for n in graph.node if n.op_type == "MatMul" and n.input[1].endswith(OUTPUT_WEIGHT)]
    for product in products:
        layer = product.input[1][: -len(OUTPUT_WEIGHT)]
        ranges = channel_ranges(
            tensor(f"{layer}.fi.w"), tensor(f"{layer}.fi.b"), tensor(f"{layer}.aln.w"), tensor(f"{layer}.aln.b")
        ).astype(np.float32)
        weight = tensor(product.input[1]) * ranges[:, None]
        initializers[product.input[1]].CopyFrom(numpy_helper.from_array(weight, product.input[1]))
        inverse, scaled = f"{layer}.fo.inverse_range", f"{layer}.fo.scaled_input"
        graph.initializer.append(numpy_helper.from_array((1.0 / ranges).astype(np.float32), inverse))
        at = list(graph.node).index(product)
        graph.node.insert(at, helper.make_node("Mul", [product.input[0], inverse], [scaled], name=scaled))
        product.input[0] = scaled
    return out
