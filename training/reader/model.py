"""The reader: multilingual-e5-small as a stock transformers BertModel, plus two heads.

- span head: a linear map from each token's last state to two logits, the answer starting
  and ending there;
- answerability head: a linear map from the first token's (<s>) last state to one logit,
  that the window holds the answer.

Only the top `trainable_layers` encoder layers and the heads train; the layers below (and
the embeddings) stay E5's and run in eval mode (no dropout), so they compute exactly what the
product's encoder computes and a shipped reader needs only the trained layers and the heads.
The word table is never trained (it is looked up from the 4-bit file: weights.WordTable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from courserag.embedders.e5_format import E5File
from training.reader.weights import WORDS, WordTable, bert_config, bert_state_dict

HEAD_STD = 0.02  # BERT's initializer range


class ReaderOutput(NamedTuple):
    start_logits: torch.Tensor  # [B, T]
    end_logits: torch.Tensor  # [B, T]
    answer_logits: torch.Tensor  # [B]


class Reader(nn.Module):
    def __init__(self, bert: nn.Module, words: WordTable, trainable_layers: int):
        super().__init__()
        layers = len(bert.encoder.layer)
        if not 0 <= trainable_layers <= layers:
            raise ValueError(f"trainable_layers must be 0..{layers}, but got {trainable_layers}")
        hidden = bert.config.hidden_size
        self.bert = bert
        self.span = nn.Linear(hidden, 2)
        self.answer = nn.Linear(hidden, 1)
        self.words = words
        self.trainable_layers = trainable_layers
        self.first_trained = layers - trainable_layers
        for parameter in self.bert.parameters():
            parameter.requires_grad_(False)
        for layer in self.bert.encoder.layer[self.first_trained :]:
            for parameter in layer.parameters():
                parameter.requires_grad_(True)

    @property
    def trained_layers(self) -> list[int]:
        return list(range(self.first_trained, len(self.bert.encoder.layer)))

    def frozen_modules(self) -> list[nn.Module]:
        return [self.bert.embeddings, *self.bert.encoder.layer[: self.first_trained]]

    def train(self, mode: bool = True):
        super().train(mode)
        for module in self.frozen_modules():
            module.eval()  # E5's own computation: no dropout where nothing learns
        return self

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> ReaderOutput:
        device = self.span.weight.device
        embeds = torch.from_numpy(self.words.vectors(input_ids.cpu().numpy())).to(device)
        states = self.bert(inputs_embeds=embeds, attention_mask=attention_mask.to(device)).last_hidden_state
        start, end = self.span(states).unbind(-1)
        return ReaderOutput(start, end, self.answer(states[:, 0]).squeeze(-1))


def build_reader(
    e5: E5File, trainable_layers: int, seed: int = 0, encoder_layers: Sequence[int] | None = None
) -> Reader:
    """A reader on the file's weights, heads drawn from `seed` (so two builds are equal).
    `encoder_layers`: a shallower encoder of those of E5's layers, in order (its layer i is
    E5's layer encoder_layers[i]); None keeps all of them."""
    from transformers import BertModel

    kept = list(range(e5.config.layers) if encoder_layers is None else encoder_layers)
    config = bert_config(e5)
    config.num_hidden_layers = len(kept)
    bert = BertModel(config, add_pooling_layer=False)
    state = {name: torch.from_numpy(value) for name, value in kept_layers(bert_state_dict(e5), kept).items()}
    missing, unexpected = bert.load_state_dict(state, strict=False)
    if unexpected or set(missing) != {WORDS}:
        raise ValueError(f"weights do not fit BertModel: missing {missing}, unexpected {unexpected}")
    reader = Reader(bert, WordTable(e5), trainable_layers)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for head in (reader.span, reader.answer):
            head.weight.copy_(torch.randn(head.weight.shape, generator=generator) * HEAD_STD)
            head.bias.zero_()
    return reader.train(False)


def kept_layers(state: dict, kept: Sequence[int], prefix: str = "encoder.layer.") -> dict:
    """`state` with only the layers `kept`, renumbered in that order (layer kept[i] -> i); the
    other tensors as they are."""
    number = {str(old): str(new) for new, old in enumerate(kept)}
    out = {}
    for name, value in state.items():
        if not name.startswith(prefix):
            out[name] = value
            continue
        layer, rest = name[len(prefix) :].split(".", 1)
        if layer in number:
            out[f"{prefix}{number[layer]}.{rest}"] = value
    return out


def trainable_state(reader: Reader) -> dict[str, torch.Tensor]:
    """The parameters that train (the top layers and the heads), detached copies on the CPU."""
    return {name: p.detach().cpu().clone() for name, p in reader.named_parameters() if p.requires_grad}


def load_trainable(reader: Reader, state: dict[str, torch.Tensor | np.ndarray]) -> None:
    """Put saved trainable parameters back; the names must be exactly the reader's."""
    params = dict(reader.named_parameters())
    expected = {name for name, p in params.items() if p.requires_grad}
    if set(state) != expected:
        missing, extra = sorted(expected - set(state)), sorted(set(state) - expected)
        raise ValueError(f"saved weights do not fit this reader: missing {missing[:4]}, unexpected {extra[:4]}")
    with torch.no_grad():
        for name, value in state.items():
            params[name].copy_(torch.as_tensor(value, dtype=params[name].dtype))
