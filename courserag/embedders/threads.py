"""The process's intra-op thread count (CPU_THREADS), shared by torch, FAISS and onnxruntime."""

from __future__ import annotations


def set_cpu_threads(threads: int) -> None:
    """Intra-op threads for torch and FAISS, process-wide. The two share one OpenMP
    runtime, so setting either sets both; one thread per request keeps a shared 2-core
    machine responsive (one question is too small to split usefully)."""
    import torch

    torch.set_num_threads(threads)
    try:
        import faiss

        faiss.omp_set_num_threads(threads)
    except ImportError:  # pragma: no cover - faiss is a dependency
        pass
