"""Retrieval evaluation on real question sets, through the product's own pipeline.

    python -m bench.evaluation --set ../shared/eval/squad_v1_dev --scope course

The steps, one module each: `load` reads a set (optionally a seeded sample), `ingest`
builds the course stores with the product's chunking, embedder and local store,
`systems` are what is compared (the product through `RagEngine.retrieve`, dense, BM25,
RRF, the reference rerank), `score` computes recall@k, MRR@10, refusals and latency,
`report` prints the table, and `run.evaluate` does them in order.
"""

from bench.evaluation.load import EvalSet, load_set
from bench.evaluation.report import Report, format_report
from bench.evaluation.run import evaluate

__all__ = ["EvalSet", "Report", "evaluate", "format_report", "load_set"]
