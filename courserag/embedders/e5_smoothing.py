"""E5's weight products made fit for int8, by moving their inputs' ranges into their weights.

onnxruntime's dynamic int8 gives a product's input one scale for the whole tensor. The inputs
of most of E5's weight products range very unequally across their channels: a LayerNorm's
output is its scale γ_k times a unit-variance value plus its shift β_k, and GELU's output
(the feed-forward output product's input) follows 1,536 pre-activations of very different
spreads. Per tensor, most channels then keep only a few of the 8 bits. Each channel is
divided by its range and the weight's row for it multiplied by the same: the product is
unchanged in exact arithmetic, and its input spans about one unit in every channel. This is
SmoothQuant's migration (Xiao et al., 2023) taken all the way to the input, with the ranges
estimated from the weights instead of from calibration text, so the conversion reads no data:

    a LayerNorm's output:  range_k ≈ |β_k| + RANGE_STDS · |γ_k|
    GELU's output:         range_j ≈ max(mean_j + RANGE_STDS · std_j, GELU_FLOOR)
        pre-activation_j = sum_k W_jk (γ_k z_k + β_k) + b_j   (z: the LayerNorm's unit-variance output)
        mean_j = b_j + sum_k W_jk β_k,   std_j = sqrt(sum_k (W_jk γ_k)²)

GELU is about the identity above zero and never below GELU_FLOOR in magnitude under it, so
this bounds its output. The products that read a LayerNorm (a layer's query, key and value,
and its feed-forward input) are found through the graph; the feed-forward output products
by e5_graph.py's names (`l3.fo.w`, with `l3.fi.w` and `l3.aln.w` before it). The attention
output product reads a mix of value vectors and is left as it is. Pure functions over an
ONNX model; the embedder's and the reader's int8 conversions both apply them
(e5_convert.quantize_int8).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

RANGE_STDS = 4.0  # a channel's mean plus this many standard deviations
GELU_FLOOR = 0.17  # GELU's least value is -0.17: no GELU channel's range is taken smaller
NORM_FLOOR = 1e-6  # a channel a LayerNorm holds at 0 (γ = β = 0) still gets a range to divide by
OUTPUT_WEIGHT = ".fo.w"  # the feed-forward output product's weight, by e5_graph's names


def norm_ranges(norm_scale: np.ndarray, norm_shift: np.ndarray) -> np.ndarray:
    """A LayerNorm's output range per channel, from its scale and shift."""
    return np.maximum(np.abs(norm_shift) + RANGE_STDS * np.abs(norm_scale), NORM_FLOOR)


def gelu_ranges(
    inner_weight: np.ndarray, inner_bias: np.ndarray, norm_scale: np.ndarray, norm_shift: np.ndarray
) -> np.ndarray:
    """GELU's output range per channel, estimated from the feed-forward input product
    (`inner_weight` [hidden, inner], as the graph stores it) and the LayerNorm before it."""
    mean = inner_bias + norm_shift @ inner_weight
    std = np.sqrt(((norm_scale[:, None] * inner_weight) ** 2).sum(axis=0))
    return np.maximum(mean + RANGE_STDS * std, GELU_FLOOR)


def smoothed(model: onnx.ModelProto, keep_float: tuple[str, ...] = ()) -> onnx.ModelProto:
    """A copy of `model` in which every weight product that reads a LayerNorm or GELU reads
    its input divided by the channel ranges, its weight's rows multiplied by them (module doc);
    the products named in `keep_float`, not quantized, are left as they are."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    initializers = {i.name: i for i in graph.initializer}
    tensor = lambda name: numpy_helper.to_array(initializers[name])  # noqa: E731
    products = [
        n for n in graph.node if n.op_type == "MatMul" and n.input[1] in initializers and n.name not in keep_float
    ]
    producers = {output: node for node in graph.node for output in node.output}
    readers: dict[str, list] = {}
    for product in products:
        readers.setdefault(product.input[0], []).append(product)
    for source, group in readers.items():
        norm = producers.get(source)
        if norm is not None and norm.op_type == "LayerNormalization":
            ranges = norm_ranges(tensor(norm.input[1]), tensor(norm.input[2]))
            _divide(graph, initializers, group, ranges, norm.input[1].removesuffix(".w"))
    for product in [p for p in products if p.input[1].endswith(OUTPUT_WEIGHT)]:
        layer = product.input[1][: -len(OUTPUT_WEIGHT)]
        ranges = gelu_ranges(
            tensor(f"{layer}.fi.w"), tensor(f"{layer}.fi.b"), tensor(f"{layer}.aln.w"), tensor(f"{layer}.aln.b")
        )
        _divide(graph, initializers, [product], ranges, f"{layer}.fo")
    return out


def _divide(graph, initializers: dict, group: list, ranges: np.ndarray, name: str) -> None:
    """The products in `group` (one input) read it divided by `ranges` through one Mul named
    `name.scaled_input`; each weight's rows are multiplied by `ranges`."""
    ranges = ranges.astype(np.float32)
    for product in group:
        weight = numpy_helper.to_array(initializers[product.input[1]]) * ranges[:, None]
        initializers[product.input[1]].CopyFrom(numpy_helper.from_array(weight, product.input[1]))
    inverse, scaled = f"{name}.inverse_range", f"{name}.scaled_input"
    graph.initializer.append(numpy_helper.from_array((1.0 / ranges).astype(np.float32), inverse))
    at = min(list(graph.node).index(product) for product in group)
    graph.node.insert(at, helper.make_node("Mul", [group[0].input[0], inverse], [scaled], name=scaled))
    for product in group:
        product.input[0] = scaled
