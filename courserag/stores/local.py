"""The embedded course store: one folder per course under DATA_DIR, no server needed.

Layout: `<root>/<course_id>/manifest.json` lists the indexed files and the embedding model
their vectors come from; each file's chunks, vectors and lexical tokens live in their own
segment `segments/<name>.npz`. A write puts new segments on disk first and then swaps the
manifest in with an atomic rename, so a crash at any point leaves the previous manifest, and
every segment it names, intact. A full rebuild (`stage`) writes a whole new generation of
segments beside the old one and switches with one manifest write: the course never goes
offline and never serves a half-built index.

Searches run on an in-memory `ChunkIndex` per course, loaded on first use and reloaded
when the manifest on disk changes (a rebuild by the CLI shows up in a running app). A
segment that cannot be read is skipped with a notice (the rest of the course still answers)
and reported by `unreadable_files`, which the next build repairs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import uuid
from pathlib import Path
from sys import intern
from typing import Sequence

import numpy as np

from courserag.config.settings import DEFAULT_EMBEDDING_BACKEND, DEFAULT_EMBEDDING_MODEL
from courserag.embedders import vector_space
from courserag.errors import EmbeddingSpaceError, StoreUnavailableError
from courserag.i18n.messages import Notice
from courserag.lang.textnorm import word_tokens
from courserag.records import Chunk, ScoredChunk
from courserag.retrieval.chunk_index import ChunkIndex
from courserag.retrieval.sentence_vectors import INDEX_FORMAT, SentenceVectors, index_space
from courserag.stores.base import CourseHits, FileRecord, StoreHealth, separate_search

log = logging.getLogger(__name__)

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
# Indexes written before the model was recorded were all embedded with the old default.
LEGACY_MODEL = "all-MiniLM-L6-v2"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, fsync, then rename over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _segment_name(source: str, file_hash: str, model: str, generation: str = "") -> str:
    """Unique per file, content, model and staged generation: a new generation never
    overwrites a segment the live manifest names."""
    digest = hashlib.sha1(f"{source}\x1f{model}".encode("utf-8")).hexdigest()[:16]
    return f"{digest}-{file_hash[:16]}" + (f"-{generation}" if generation else "") + ".npz"


def _npz_bytes(**arrays: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _write_error(root: Path, exc: OSError) -> StoreUnavailableError:
    return StoreUnavailableError(f"cannot write the course index under {root}: {exc.strerror or exc}")


class LocalCourseStore:
    """CourseStore on the local disk, FAISS + BM25 in memory."""

    name = "local"

    def __init__(
        self, root: Path, dim: int = 384, model: str = vector_space(DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_BACKEND)
    ):
        self.root = Path(root)
        self.dim = dim
        self.model = model  # the vectors' space this app searches with (embedders.vector_space)
        self._indexes: dict[str, tuple[float, ChunkIndex, frozenset[str]]] = {}
        self._lock = threading.RLock()

    # -- paths and manifest -------------------------------------------------------------

    def _course_dir(self, course_id: str) -> Path:
        if not _SAFE_ID.match(course_id):
            raise ValueError(f"course id must be letters, digits, '-', '_' or '.', but got {course_id!r}")
        return self.root / course_id

    def _manifest_path(self, course_id: str) -> Path:
        return self._course_dir(course_id) / "manifest.json"

    def _read_manifest(self, course_id: str) -> dict:
        path = self._manifest_path(course_id)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"files": {}}
        except (OSError, ValueError) as exc:
            # Learners see this sentence (a warning under answers, the course card): it names
            # the course, not where the server keeps its files; the log has the path.
            log.warning("the course index at %s cannot be read: %s", path, exc)
            raise StoreUnavailableError(
                f"the course index of {course_id} cannot be read ({type(exc).__name__})"
            ) from exc

    def _write_manifest(self, course_id: str, manifest: dict) -> None:
        manifest = dict(manifest, embedding_model=self.model, dim=self.dim, index_format=INDEX_FORMAT)
        manifest["generation"] = manifest.get("generation", 0) + 1
        data = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
        try:
            _atomic_write_bytes(self._manifest_path(course_id), data)
        except OSError as exc:
            raise _write_error(self.root, exc) from exc

    def _write_segment(
        self,
        course_id: str,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors,
        sentences: SentenceVectors | None = None,
        generation: str = "",
    ) -> str:
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors for {source}")
        sentences = sentences if sentences is not None else SentenceVectors.empty(self.dim)
        if len(sentences) and (sentences.dim != self.dim or int(sentences.owners.max()) >= len(chunks)):
            raise ValueError(
                f"sentence vectors of shape {sentences.codes.shape} do not fit {len(chunks)} chunks of {source}"
            )
        segment = _segment_name(source, file_hash, self.model, generation)
        payload = {"chunks": [c.to_dict() for c in chunks], "tokens": [word_tokens(c.text) for c in chunks]}
        buffer = _npz_bytes(
            vectors=np.asarray(vectors, dtype=np.float32).reshape(len(chunks), self.dim),
            sentence_owners=sentences.owners,
            sentence_codes=sentences.codes,
            sentence_scales=sentences.scales,
            meta=np.frombuffer(json.dumps(payload, ensure_ascii=False).encode("utf-8"), dtype=np.uint8),
        )
        try:
            _atomic_write_bytes(self._course_dir(course_id) / "segments" / segment, buffer)
        except OSError as exc:
            raise _write_error(self.root, exc) from exc
        return segment

    def _remove_unreferenced(self, course_id: str, manifest: dict) -> None:
        """Delete segments the manifest no longer names (an old generation, a replaced file)."""
        keep = {entry["segment"] for entry in manifest["files"].values()}
        folder = self._course_dir(course_id) / "segments"
        for path in folder.glob("*.npz") if folder.exists() else ():
            if path.name not in keep:
                path.unlink(missing_ok=True)

    # -- writes ---------------------------------------------------------------------------

    def files(self, course_id: str) -> dict[str, FileRecord]:
        manifest = self._read_manifest(course_id)
        return {
            source: FileRecord(source, entry["file_hash"], entry["chunks"])
            for source, entry in manifest["files"].items()
        }

    def index_model(self, course_id: str) -> str | None:
        """The embedding model of the course's vectors (None when it has no index)."""
        manifest = self._read_manifest(course_id)
        return self._space(manifest) if manifest["files"] else None

    @staticmethod
    def _space(manifest: dict) -> str:
        return index_space(manifest.get("embedding_model", LEGACY_MODEL), manifest.get("index_format", 1))

    def replace_file(
        self,
        course_id: str,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None:
        with self._lock:
            manifest = self._read_manifest(course_id)
            if manifest["files"] and self._space(manifest) != self.model:
                raise self._space_error(course_id, manifest)
            segment = self._write_segment(course_id, source, file_hash, chunks, vectors, sentences)
            manifest["files"][source] = {"file_hash": file_hash, "chunks": len(chunks), "segment": segment}
            self._write_manifest(course_id, manifest)
            self._remove_unreferenced(course_id, manifest)

    def delete_file(self, course_id: str, source: str) -> None:
        with self._lock:
            manifest = self._read_manifest(course_id)
            if manifest["files"].pop(source, None) is None:
                return
            self._write_manifest(course_id, manifest)
            self._remove_unreferenced(course_id, manifest)

    def delete_course(self, course_id: str) -> None:
        with self._lock:
            course_dir = self._course_dir(course_id)
            self._indexes.pop(course_id, None)
            if course_dir.exists():
                # Rename first so that a crash never leaves a half-deleted course behind.
                trash = course_dir.with_name(f".{course_id}.deleting")
                shutil.rmtree(trash, ignore_errors=True)
                os.replace(course_dir, trash)
                shutil.rmtree(trash, ignore_errors=True)

    def stage(self, course_id: str) -> "LocalStage":
        """A new generation of the course's index, live only when committed."""
        self._course_dir(course_id)  # validates the id before any work
        return LocalStage(self, course_id)

    # -- reads ----------------------------------------------------------------------------

    def _space_error(self, course_id: str, manifest: dict) -> EmbeddingSpaceError:
        return EmbeddingSpaceError(course_id, self._space(manifest), self.model)

    def _index(self, course_id: str) -> ChunkIndex:
        """The course's in-memory index (benchmarks and tests read it)."""
        return self._loaded(course_id)[0]

    def _loaded(self, course_id: str) -> tuple[ChunkIndex, frozenset[str]]:
        """The course's in-memory index and its unreadable files, reloaded when the manifest changed."""
        path = self._manifest_path(course_id)
        with self._lock:
            try:
                stamp = path.stat().st_mtime_ns
            except FileNotFoundError:
                stamp = -1.0
            cached = self._indexes.get(course_id)
            if cached and cached[0] == stamp:
                return cached[1], cached[2]
            index, broken = self._load(course_id)
            self._indexes[course_id] = (stamp, index, broken)
            return index, broken

    def _read_segment(self, path: Path) -> tuple[np.ndarray, SentenceVectors, dict]:
        with np.load(path, allow_pickle=False) as data:
            matrix = np.asarray(data["vectors"], dtype=np.float32)
            if "sentence_codes" in data.files:
                codes, scales = data["sentence_codes"], data["sentence_scales"]
                sentences = SentenceVectors.stored(data["sentence_owners"], codes, scales, self.dim)
            elif "sentence_vectors" in data.files:  # written in half precision: quantized on reading
                sentences = SentenceVectors.of(data["sentence_owners"], data["sentence_vectors"], self.dim)
            else:
                sentences = SentenceVectors.empty(self.dim)
            return matrix, sentences, json.loads(data["meta"].tobytes().decode("utf-8"))

    def _load(self, course_id: str) -> tuple[ChunkIndex, frozenset[str]]:
        manifest = self._read_manifest(course_id)
        if manifest["files"] and self._space(manifest) != self.model:
            raise self._space_error(course_id, manifest)
        chunks: list[Chunk] = []
        sentences: list[tuple[SentenceVectors, int]] = []
        tokens: list[list[str]] = []
        vectors: list[np.ndarray] = []
        broken: set[str] = set()
        segments = self._course_dir(course_id) / "segments"
        for source in sorted(manifest["files"]):
            try:
                matrix, file_sentences, payload = self._read_segment(segments / manifest["files"][source]["segment"])
                if matrix.shape != (len(payload["chunks"]), self.dim):
                    raise ValueError(f"vectors of shape {matrix.shape} for {len(payload['chunks'])} chunks")
                if len(file_sentences) and int(file_sentences.owners.max()) >= len(payload["chunks"]):
                    raise ValueError(f"sentence owners beyond {len(payload['chunks'])} chunks")
            except Exception as exc:  # noqa: BLE001 - one damaged file must not take the course down
                log.warning("skipping an unreadable segment of %s (%s): %s", course_id, source, exc)
                broken.add(source)
                continue
            vectors.append(matrix)
            sentences.append((file_sentences, len(chunks)))
            chunks.extend(Chunk.from_dict(c) for c in payload["chunks"])
            # Intern each segment's tokens as it is read, so its parsed copies die here:
            # kept until the end, 12M short-lived strings fragment the heap between the
            # long-lived chunks (1 GB of RSS at 100k chunks, see docs/DECISIONS.md).
            tokens.extend([intern(t) for t in doc] for doc in payload["tokens"])
            del payload
        index = ChunkIndex(self.dim, self.name)
        matrix = np.vstack(vectors) if vectors else np.zeros((0, self.dim), dtype=np.float32)
        index.rebuild(chunks, matrix, tokens, SentenceVectors.concat(sentences, self.dim))
        return index, frozenset(broken)

    def unreadable_files(self, course_id: str) -> frozenset[str]:
        """Indexed files whose segment cannot be read (the next build re-indexes them)."""
        return self._loaded(course_id)[1]

    def vector_search(self, course_id: str, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        return self._index(course_id).vector_search(vector, k)

    def lexical_search(self, course_id: str, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        return self._index(course_id).lexical_search(tokens, k)

    def best_sentences(self, course_id: str, chunk_ids: Sequence[str], vector: np.ndarray) -> dict[str, float]:
        return self._index(course_id).best_sentences(chunk_ids, vector)

    def search(self, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int) -> CourseHits:
        hits = separate_search(self, course_id, vector, tokens, k)
        broken = self.unreadable_files(course_id)
        if broken:
            notice = Notice("index_damaged", {"files": ", ".join(sorted(broken)), "course_id": course_id})
            return CourseHits(hits.vector, hits.lexical, hits.store, (notice,))
        return hits

    def count(self, course_id: str) -> int:
        return sum(entry["chunks"] for entry in self._read_manifest(course_id)["files"].values())

    def health(self) -> StoreHealth:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            writable = os.access(self.root, os.W_OK)
            return StoreHealth(self.name, True, f"{self.root}" + ("" if writable else " (read-only)"))
        except OSError as exc:
            return StoreHealth(self.name, False, f"{self.root}: {exc.strerror or exc}")


class LocalStage:
    """A new generation of one course: segments are written as files arrive, and `commit`
    switches the course to exactly these files with one atomic manifest write."""

    def __init__(self, store: LocalCourseStore, course_id: str):
        self.store = store
        self.course_id = course_id
        self.generation = uuid.uuid4().hex[:8]
        self._files: dict[str, dict] = {}

    def put(
        self,
        source: str,
        file_hash: str,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentences: SentenceVectors | None = None,
    ) -> None:
        segment = self.store._write_segment(
            self.course_id, source, file_hash, chunks, vectors, sentences, self.generation
        )
        self._files[source] = {"file_hash": file_hash, "chunks": len(chunks), "segment": segment}

    def commit(self) -> None:
        with self.store._lock:
            old = self.store._read_manifest(self.course_id)
            manifest = {"files": dict(self._files), "generation": old.get("generation", 0)}
            self.store._write_manifest(self.course_id, manifest)
            self.store._remove_unreferenced(self.course_id, manifest)

    def abort(self) -> None:
        """Drop what was written; the live generation is untouched."""
        with self.store._lock:
            self.store._remove_unreferenced(self.course_id, self.store._read_manifest(self.course_id))
