"""Benchmark data: real passages and questions, their embeddings, sized stores, real files.

Passages and questions are real: SQuAD v1.1 dev (English Wikipedia) and CMRC 2018 dev
(Chinese Wikipedia) from ../shared/eval (read-only). A fixed, seeded selection of
`DISTINCT_PASSAGES` of them (3 English : 1 Chinese) is embedded once with the real model and
cached on disk (CACHE_DIR/embeddings, by a `CachingEmbedder`). Sizes beyond that (10k,
100k chunks) are reached by *variants*: variant v > 0 of passage p is its text with ~10% of
adjacent words swapped (English) or its sentences rotated (Chinese), plus a suffix "(v<v>)",
so every chunk text, chunk id and token list is distinct. Embedding 100k chunks with the real model would take
over an hour on two cores, so a variant's vector is *derived*: the real vector of its
passage plus Gaussian noise of norm PERTURBATION, renormalised (cosine ~0.96 to the
original, about what a reworded passage gets). Questions are always embedded with the
real model at query time. Stores are cached under CACHE_DIR/stores, keyed by size and
DATA_VERSION, so a rerun loads them instead of building them again.

Files for the upload and build benchmarks are real PDF/PPTX/DOCX files built by docgen
(fpdf2, python-pptx, python-docx) from the same passages.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

import docgen
from bench.common import EVAL_DIR, cache_dir
from courserag.embedders import CachingEmbedder, Embedder

DATA_VERSION = "2"  # 2: segments carry sentence vectors (courserag/retrieval/sentence_vectors.py)
DISTINCT_PASSAGES = 2000
PERTURBATION = 0.3
CHUNKS_PER_FILE = 100
COURSE_ID = "bench"


@dataclass(frozen=True)
class Passage:
    doc_id: str
    title: str
    text: str
    lang: str


@dataclass(frozen=True)
class Question:
    text: str
    lang: str
    gold: tuple[str, ...]


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _require(path: Path) -> Path:
    if not path.exists():
        raise SystemExit(
            f"benchmark data not found: {path} (set SHARED_EVAL to the folder with squad_v1_dev/ and cmrc2018_dev/)"
        )
    return path


@lru_cache(maxsize=4)
def passages(limit: int = DISTINCT_PASSAGES) -> tuple[Passage, ...]:
    """`limit` real passages, 3 English : 1 Chinese, in a seeded order."""
    english = [
        Passage(d["doc_id"], d["title"], d["text"], "en")
        for d in _jsonl(_require(EVAL_DIR / "squad_v1_dev" / "corpus.jsonl"))
    ]
    chinese = [
        Passage(d["doc_id"], d["title"], d["text"], "zh")
        for d in _jsonl(_require(EVAL_DIR / "cmrc2018_dev" / "corpus.jsonl"))
    ]
    n_zh = min(len(chinese), limit // 4)
    n_en = min(len(english), limit - n_zh)
    chosen = english[:n_en] + chinese[:n_zh]
    random.Random(7).shuffle(chosen)
    return tuple(chosen)


@lru_cache(maxsize=1)
def questions() -> tuple[Question, ...]:
    """Real questions, 3 English : 1 Chinese, interleaved in a seeded order."""
    en = [
        Question(q["question"], "en", tuple(q["gold_doc_ids"]))
        for q in _jsonl(_require(EVAL_DIR / "squad_v1_dev" / "queries.jsonl"))
    ]
    zh = [
        Question(q["question"], "zh", tuple(q["gold_doc_ids"]))
        for q in _jsonl(_require(EVAL_DIR / "cmrc2018_dev" / "queries.jsonl"))
    ]
    rng = random.Random(11)
    rng.shuffle(en)
    rng.shuffle(zh)
    out: list[Question] = []
    for i in range(min(len(en), 3 * len(zh))):
        out.append(en[i])
        if i % 3 == 2:
            out.append(zh[i // 3])
    return tuple(out)


def variant_text(text: str, v: int) -> str:
    """Variant v of a passage (v = 0 is the passage itself)."""
    if v == 0:
        return text
    rng = random.Random(v * 1_000_003 + len(text))
    words = text.split(" ")
    if len(words) >= 20:
        for _ in range(max(1, len(words) // 10)):
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
        body = " ".join(words)
    else:
        parts = [p for p in re.split(r"(?<=[。！？；])", text) if p]
        k = v % len(parts) if parts else 0
        body = "".join(parts[k:] + parts[:k])
    return f"{body} (v{v})"


def derived_vector(base: np.ndarray, seed: int, perturbation: float = PERTURBATION) -> np.ndarray:
    """The real vector plus seeded Gaussian noise of norm `perturbation`, renormalised."""
    noise = np.random.default_rng(seed).standard_normal(base.shape[-1]).astype(np.float32)
    out = base + perturbation * noise / np.linalg.norm(noise)
    return (out / np.linalg.norm(out)).astype(np.float32)


def derived_matrix(base: np.ndarray, seeds: Sequence[int], perturbation: float = PERTURBATION) -> np.ndarray:
    """derived_vector for many rows at once (row i from base[i] with seeds[i])."""
    out = np.empty_like(base, dtype=np.float32)
    for i, seed in enumerate(seeds):
        out[i] = derived_vector(base[i], seed, perturbation)
    return out


# -- vectors --------------------------------------------------------------------------------


class DerivedVectorsEmbedder(Embedder):
    """For benchmarks that must not spend minutes in the model (the 500-file incremental
    build): passages get seeded random unit vectors (seeded by their text's hash), while
    questions and token counts go to the real embedder."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.name = inner.name + "+derived"

    @property
    def dim(self) -> int:  # type: ignore[override]
        return self.inner.dim

    def _encode(self, texts: list[str]) -> np.ndarray:
        seeds = (int(hashlib.sha256(t.encode("utf-8")).hexdigest()[:12], 16) for t in texts)
        return np.stack([np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32) for seed in seeds])

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self.inner.embed_queries(texts, batch_size)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return self.inner.truncate_to_tokens(text, max_tokens)


def disk_cached(embedder: Embedder, progress: bool = False) -> CachingEmbedder:
    """`embedder` with its vectors kept under CACHE_DIR/embeddings between runs."""

    def say(done: int, total: int) -> None:
        print(f"  embedded {done}/{total} new texts (cached for later runs)", flush=True)

    return CachingEmbedder(embedder, cache_dir() / "embeddings", progress=say if progress else None)


@dataclass
class Corpus:
    """The distinct real passages and their real vectors."""

    passages: tuple[Passage, ...]
    vectors: np.ndarray  # (len(passages), dim), real model

    def item(self, j: int, offset: int = 0) -> tuple[str, int, int]:
        """(text, passage index, variant) of synthetic chunk j (offset shifts the variant)."""
        p = j % len(self.passages)
        v = j // len(self.passages) + offset
        return variant_text(self.passages[p].text, v), p, v

    def texts_and_vectors(
        self, n: int, offset: int = 0, seed_base: int = 0, start: int = 0
    ) -> tuple[list[str], np.ndarray]:
        """Texts and vectors of synthetic chunks start..n-1 (real vectors for variant 0)."""
        texts, rows, seeds, derived = [], [], [], []
        for j in range(start, n):
            text, p, v = self.item(j, offset)
            texts.append(text)
            rows.append(p)
            seeds.append(seed_base + j)
            derived.append(v > 0)
        base = self.vectors[rows]
        matrix = derived_matrix(base, seeds)
        mask = np.asarray(derived)
        matrix[~mask] = base[~mask]
        return texts, matrix


def load_corpus(embedder, progress: bool = True, limit: int = DISTINCT_PASSAGES) -> Corpus:
    chosen = passages(limit)
    vectors = disk_cached(embedder, progress).embed_batch([p.text for p in chosen])
    return Corpus(chosen, vectors)


# -- sized course stores ---------------------------------------------------------------------


def store_root(embedder_name: str, distinct: int = DISTINCT_PASSAGES) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.+-]+", "_", embedder_name)
    return cache_dir() / "stores" / f"v{DATA_VERSION}-{distinct}-{slug}"


def course_id_for(n: int) -> str:
    return f"{COURSE_ID}{n}"


def build_sized_course(store, corpus: Corpus, n: int, progress: bool = True) -> str:
    """Write an n-chunk course (files of CHUNKS_PER_FILE chunks) into a LocalCourseStore,
    unless a complete one is already there. Returns the course id."""
    from courserag.records import Chunk

    course_id = course_id_for(n)
    if store.count(course_id) == n:
        return course_id
    store.delete_course(course_id)
    files = (n + CHUNKS_PER_FILE - 1) // CHUNKS_PER_FILE
    for f in range(files):
        start, stop = f * CHUNKS_PER_FILE, min(n, (f + 1) * CHUNKS_PER_FILE)
        texts, vectors = corpus.texts_and_vectors(stop, start=start)
        source = f"week{f // 10:03d}/lecture{f:04d}.pdf"
        file_hash = hashlib.sha256(f"{course_id}/{source}/{DATA_VERSION}".encode()).hexdigest()
        chunks = [
            Chunk.make(t, source, f"page {k + 1}", "course", course_id, "pdf", file_hash) for k, t in enumerate(texts)
        ]
        store.replace_file(course_id, source, file_hash, chunks, vectors, synthetic_sentences(chunks, vectors, f))
        if progress and (f + 1) % 100 == 0:
            print(f"  course of {n} chunks: {stop} written (cached for later runs)", flush=True)
    return course_id


def synthetic_sentences(chunks, vectors: np.ndarray, seed: int):
    """Sentence vectors for synthetic chunks without embedding them: each sentence's vector
    is its chunk's, perturbed (retrieval cost depends on their count, not their meaning)."""
    from courserag.retrieval.sentence_vectors import SentenceVectors, chunk_sentences

    _, owners = chunk_sentences(chunks)
    rng = np.random.default_rng(seed)
    base = np.asarray(vectors, dtype=np.float32)[owners]
    noisy = base + PERTURBATION * rng.standard_normal(base.shape).astype(np.float32) / np.sqrt(max(base.shape[1], 1))
    noisy /= np.maximum(np.linalg.norm(noisy, axis=1, keepdims=True), 1e-12)
    return SentenceVectors.of(owners, noisy, base.shape[1])


def session_chunks(corpus: Corpus, n: int, name: str = "my_notes.pdf", offset: int = 10_000):
    """n upload chunks (variants never used by a course) with their vectors."""
    from courserag.records import Chunk, content_hash

    texts, vectors = corpus.texts_and_vectors(n, offset=offset, seed_base=1000 * offset)
    file_hash = content_hash(name + str(n))
    chunks = [Chunk.make(t, name, f"page {k + 1}", "upload", None, "pdf", file_hash) for k, t in enumerate(texts)]
    return chunks, vectors


def fill_pool(pool, corpus: Corpus, n: int, name: str = "my_notes.pdf") -> None:
    """Upload n chunks into a session pool through its own add_file (vectors precomputed)."""
    from courserag.retrieval.session_pool import UploadedFile

    chunks, vectors = session_chunks(corpus, n, name)
    uploaded = UploadedFile(
        name, chunks[0].file_hash, "pdf", len(chunks), len(chunks), sum(len(c.text) for c in chunks)
    )
    pool.add_file(uploaded, chunks, precomputed_embed(chunks, vectors, n))


def precomputed_embed(chunks, vectors: np.ndarray, seed: int):
    """An `embed` for SessionPool.add_file that looks the chunks' vectors up, and their
    sentences' (synthetic_sentences), instead of running a model."""
    from courserag.retrieval.sentence_vectors import chunk_sentences

    by_text = dict(
        zip(chunk_sentences(chunks)[0], synthetic_sentences(chunks, vectors, seed).vectors.astype(np.float32))
    )
    by_text.update({c.text: v for c, v in zip(chunks, vectors)})
    return lambda texts: np.stack([by_text[t] for t in texts])


# -- real files (built by docgen from real passages) ----------------------------------------


def english_passages() -> list[Passage]:
    return [p for p in passages() if p.lang == "en"]


def lecture_pdf_bytes(pages: int, seed: int = 0, chars_per_page: int = 1800) -> bytes:
    """A text PDF of real passages, about chars_per_page characters on each page."""
    pool = english_passages()
    rng = random.Random(seed)
    texts = []
    for page in range(pages):
        body = ""
        while len(body) < chars_per_page:
            body += pool[rng.randrange(len(pool))].text + "\n\n"
        texts.append((f"Lecture {seed}, page {page + 1}", body[:chars_per_page]))
    return docgen.pdf_bytes(texts, font_size=9, line_height=4.2)


def lecture_pptx_bytes(slides: int, seed: int = 0, chars_per_slide: int = 700) -> bytes:
    """A deck with a title and a body of real passage sentences on every slide."""
    pool = english_passages()
    rng = random.Random(seed + 1)
    specs = []
    for n in range(slides):
        passage = pool[rng.randrange(len(pool))]
        body, length = [], 0
        for sentence in re.split(r"(?<=[.!?])\s+", passage.text):
            if length + len(sentence) > chars_per_slide:
                break
            body.append(sentence)
            length += len(sentence)
        specs.append({"title": f"{passage.title.replace('_', ' ')} ({n + 1})", "body": body})
    return docgen.pptx_bytes(specs, body_pt=12)


def notes_docx_bytes(sections: int, seed: int = 0) -> bytes:
    """A Word file with a heading and two real passages per section."""
    pool = english_passages()
    rng = random.Random(seed + 2)
    blocks: list[tuple[str, str]] = [("h1", f"Reading notes {seed}")]
    for n in range(sections):
        passage = pool[rng.randrange(len(pool))]
        blocks += [("h2", f"{passage.title.replace('_', ' ')} {n + 1}"), ("p", passage.text)]
        blocks.append(("p", pool[rng.randrange(len(pool))].text))
    return docgen.docx_bytes(blocks)


def write_mixed_course(
    folder: Path,
    pdfs: int = 4,
    pdf_pages: int = 10,
    decks: int = 3,
    slides: int = 12,
    docs: int = 3,
    doc_sections: int = 6,
) -> Path:
    """A course folder of real generated PDF, PPTX and DOCX files."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for i in range(pdfs):
        (folder / f"lecture{i:02d}.pdf").write_bytes(lecture_pdf_bytes(pdf_pages, seed=100 + i))
    for i in range(decks):
        (folder / f"slides{i:02d}.pptx").write_bytes(lecture_pptx_bytes(slides, seed=200 + i))
    for i in range(docs):
        (folder / f"notes{i:02d}.docx").write_bytes(notes_docx_bytes(doc_sections, seed=300 + i))
    return folder


def write_text_course(folder: Path, files: int) -> Path:
    """A course folder of `files` small .txt files, one real passage each."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    pool = passages()
    for i in range(files):
        sub = folder / f"unit{i // 50:02d}"
        sub.mkdir(exist_ok=True)
        p = pool[i % len(pool)]
        (sub / f"reading{i:04d}.txt").write_text(
            f"{p.title}\n\n{variant_text(p.text, i // len(pool))}\n", encoding="utf-8"
        )
    return folder
