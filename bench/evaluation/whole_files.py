"""Does the answerer see the answer? Whole files in, cited texts out.

    python -m bench.evaluation.whole_files --set ../shared/eval/cmrc2018_dev

Unlike the retrieval evaluation (one passage per Section), this ingests each title as ONE
plain-text course file — its passages joined by blank lines, as a learner's notes or a
course handout would be — through the product's own parser, chunker and embedder, into one
course. Every question is then asked through `RagEngine.retrieve` with the configured
top_k and token budget, and scored on whether one of its reference answer spans is inside
the texts the answerer is given (the citations' `text`). This is what chunk size and
packing decide: a 1,400-character Chinese chunk cut to 500 tokens hid two thirds of itself.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

GLOBAL = "all"


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).lower().split())


@dataclass(frozen=True)
class WholeFileResult:
    questions: int
    answer_in_cited: float  # share of questions with an answer span inside the cited texts
    right_file_cited: float  # share with a chunk of the question's own title among the citations
    chunks: int
    mean_cited_tokens: float

    def line(self, name: str) -> str:
        return (
            f"{name}: {self.questions} questions, answer in cited texts {self.answer_in_cited:.3f}, "
            f"right file cited {self.right_file_cited:.3f} ({self.chunks} chunks, "
            f"{self.mean_cited_tokens:.0f} tokens cited per question)"
        )


def run(set_dir: Path, limit: int | None = None, titles: int | None = None, settings=None) -> WholeFileResult:
    from bench.evaluation.ingest import build_directory, corpus_language
    from bench.evaluation.load import load_set
    from courserag.config.settings import Settings
    from courserag.embedders import CachingEmbedder, get_embedder, vector_space
    from courserag.engine.facade import RagEngine
    from courserag.ingest.pipeline import IngestConfig, ingest_file
    from courserag.retrieval.sentence_vectors import embed_chunks
    from courserag.stores.local import LocalCourseStore

    base = settings or Settings.from_env()
    eval_set = load_set(set_dir, titles, limit)
    inner = get_embedder(*base.embedder_args())
    cached = CachingEmbedder(inner, base.data_dir / "eval-cache")
    workdir = Path(tempfile.mkdtemp(prefix="courserag-whole-"))
    try:
        store = LocalCourseStore(
            workdir / "index", cached.dim, vector_space(base.embedding_model, base.embedding_backend)
        )
        config = replace(IngestConfig.of(base, cached), budget=None)  # our own text: parsed in this process
        chunks = 0
        for title in eval_set.titles:
            text = "\n\n".join(p.text for p in eval_set.passages if p.title == title)
            name = hashlib.sha1(title.encode("utf-8")).hexdigest()[:12] + ".txt"
            ingested = ingest_file(text.encode("utf-8"), name, config, origin="course", course_id=GLOBAL)
            vectors, sentences = embed_chunks(
                lambda texts: cached.embed_batch(texts, base.embedding_batch_size), ingested.chunks, cached.dim
            )
            store.replace_file(
                GLOBAL, name, hashlib.sha256(text.encode("utf-8")).hexdigest(), ingested.chunks, vectors, sentences
            )
            chunks += len(ingested.chunks)
        file_of = {t: hashlib.sha1(t.encode("utf-8")).hexdigest()[:12] + ".txt" for t in eval_set.titles}
        engine = RagEngine(base, build_directory([GLOBAL], workdir, corpus_language(eval_set)), store, cached)
        found = right = 0
        tokens = 0
        asked = [q for q in eval_set.questions if q.answers]
        for q in asked:
            items = engine.retrieve(GLOBAL, q.question).items
            cited = _norm(" ".join(item.text for item in items))
            found += any(_norm(a) and _norm(a) in cited for a in q.answers)
            right += any(item.hit.chunk.source == file_of[q.title] for item in items)
            tokens += sum(item.tokens for item in items)
        n = max(len(asked), 1)
        return WholeFileResult(len(asked), found / n, right / n, chunks, tokens / n)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.evaluation.whole_files", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--limit", type=int, default=None, help="score at most N seeded-random questions")
    parser.add_argument("--titles", type=int, default=None, help="keep only N seeded-random titles")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from courserag.config.logs import configure_logging

    configure_logging(logging.WARNING, logging.ERROR)
    print(run(args.set, args.limit, args.titles).line(args.set.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
