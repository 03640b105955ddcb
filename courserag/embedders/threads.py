"""The process's intra-op thread count (CPU_THREADS), shared by torch, FAISS and onnxruntime."""

from __future__ import annotations

import sys


def cpu_session_options(threads: int):
    """onnxruntime options for the CPU, shared by every ONNX model (MiniLM's export, E5):
    full graph optimisation, one inter-op thread, `threads` intra-op threads (0: the
    library's default), and no busy-waiting between ops: on a shared 2-core machine spinning
    threads steal the cores that the web server and other requests need."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads:
        options.intra_op_num_threads = threads
    return options


def set_cpu_threads(threads: int, torch_too: bool = True) -> None:
    """Intra-op threads for FAISS (and torch), process-wide. The two share one OpenMP
    runtime, so setting either sets both; one thread per request keeps a shared 2-core
    machine responsive (one question is too small to split usefully). `torch_too=False`
    leaves torch unimported unless something else imported it (the onnxruntime models do
    not need it, and importing it costs seconds and memory)."""
    if torch_too or "torch" in sys.modules:
        try:
            import torch
        except ImportError:  # the default install has no torch (requirements-minilm.txt adds it)
            pass
        else:
            torch.set_num_threads(threads)
    try:
        import faiss

        faiss.omp_set_num_threads(threads)
    except ImportError:  # pragma: no cover - faiss is a dependency
        pass
