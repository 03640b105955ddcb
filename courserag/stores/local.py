"""The embedded course store: one folder per course under DATA_DIR, no server needed.

Layout: `<root>/<course_id>/manifest.json` lists the indexed files; each file's chunks,
vectors and lexical tokens live in their own segment `segments/<name>.npz`. A write puts
the new segment on disk first and then swaps the manifest in with an atomic rename, so a
crash at any point leaves the previous manifest, and every segment it names, intact.
Searches run on an in-memory `ChunkIndex` per course, loaded on first use and reloaded
when the manifest on disk changes (a rebuild by the CLI shows up in a running app).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from sys import intern
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from courserag.chunk_index import ChunkIndex
from courserag.errors import StoreUnavailableError
from courserag.records import Chunk, ScoredChunk
from courserag.stores.base import CourseHits, FileRecord, StoreHealth, separate_search
from courserag.textnorm import word_tokens

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


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


def _segment_name(source: str, file_hash: str) -> str:
    return hashlib.sha1(source.encode("utf-8")).hexdigest()[:16] + "-" + file_hash[:16] + ".npz"


class LocalCourseStore:
    """CourseStore on the local disk, FAISS + BM25 in memory."""

    name = "local"

    def __init__(self, root: Path, dim: int = 384):
        self.root = Path(root)
        self.dim = dim
        self._indexes: dict[str, tuple[float, ChunkIndex]] = {}
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
            raise StoreUnavailableError(f"the course index at {path} cannot be read: {exc}") from exc

    def _write_manifest(self, course_id: str, manifest: dict) -> None:
        data = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8")
        try:
            _atomic_write_bytes(self._manifest_path(course_id), data)
        except OSError as exc:
            raise StoreUnavailableError(f"cannot write the course index under {self.root}: {exc.strerror or exc}") from exc

    # -- writes ---------------------------------------------------------------------------

    def files(self, course_id: str) -> dict[str, FileRecord]:
        manifest = self._read_manifest(course_id)
        return {
            source: FileRecord(source, entry["file_hash"], entry["chunks"])
            for source, entry in manifest["files"].items()
        }

    def replace_file(
        self, course_id: str, source: str, file_hash: str, chunks: Sequence[Chunk], vectors: np.ndarray
    ) -> None:
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors for {source}")
        with self._lock:
            course_dir = self._course_dir(course_id)
            segment = _segment_name(source, file_hash)
            payload = {
                "chunks": [c.to_dict() for c in chunks],
                "tokens": [word_tokens(c.text) for c in chunks],
            }
            buffer = _npz_bytes(
                vectors=np.asarray(vectors, dtype=np.float32).reshape(len(chunks), self.dim),
                meta=np.frombuffer(json.dumps(payload, ensure_ascii=False).encode("utf-8"), dtype=np.uint8),
            )
            try:
                _atomic_write_bytes(course_dir / "segments" / segment, buffer)
            except OSError as exc:
                raise StoreUnavailableError(f"cannot write the course index under {self.root}: {exc.strerror or exc}") from exc
            manifest = self._read_manifest(course_id)
            old = manifest["files"].get(source)
            manifest["files"][source] = {"file_hash": file_hash, "chunks": len(chunks), "segment": segment}
            manifest["generation"] = manifest.get("generation", 0) + 1
            self._write_manifest(course_id, manifest)
            if old and old["segment"] != segment:
                (course_dir / "segments" / old["segment"]).unlink(missing_ok=True)

    def delete_file(self, course_id: str, source: str) -> None:
        with self._lock:
            manifest = self._read_manifest(course_id)
            old = manifest["files"].pop(source, None)
            if old is None:
                return
            manifest["generation"] = manifest.get("generation", 0) + 1
            self._write_manifest(course_id, manifest)
            (self._course_dir(course_id) / "segments" / old["segment"]).unlink(missing_ok=True)

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

    # -- reads ----------------------------------------------------------------------------

    def _index(self, course_id: str) -> ChunkIndex:
        """The course's in-memory index, reloaded when the manifest changed on disk."""
        path = self._manifest_path(course_id)
        with self._lock:
            try:
                stamp = path.stat().st_mtime_ns
            except FileNotFoundError:
                stamp = -1.0
            cached = self._indexes.get(course_id)
            if cached and cached[0] == stamp:
                return cached[1]
            index = self._load(course_id)
            self._indexes[course_id] = (stamp, index)
            return index

    def _load(self, course_id: str) -> ChunkIndex:
        manifest = self._read_manifest(course_id)
        chunks: list[Chunk] = []
        tokens: list[list[str]] = []
        vectors: list[np.ndarray] = []
        segments = self._course_dir(course_id) / "segments"
        for source in sorted(manifest["files"]):
            entry = manifest["files"][source]
            try:
                with np.load(segments / entry["segment"], allow_pickle=False) as data:
                    payload = json.loads(data["meta"].tobytes().decode("utf-8"))
                    vectors.append(np.asarray(data["vectors"], dtype=np.float32))
            except (OSError, ValueError, KeyError) as exc:
                raise StoreUnavailableError(f"the index of course {course_id!r} is damaged ({source}): {exc}") from exc
            chunks.extend(Chunk.from_dict(c) for c in payload["chunks"])
            # Intern each segment's tokens as it is read, so its parsed copies die here:
            # kept until the end, 12M short-lived strings fragment the heap between the
            # long-lived chunks (1 GB of RSS at 100k chunks, see docs/PERFORMANCE.md).
            tokens.extend([intern(t) for t in doc] for doc in payload["tokens"])
            del payload
        index = ChunkIndex(self.dim, self.name)
        matrix = np.vstack(vectors) if vectors else np.zeros((0, self.dim), dtype=np.float32)
        index.rebuild(chunks, matrix, tokens)
        return index

    def vector_search(self, course_id: str, vector: np.ndarray, k: int) -> list[ScoredChunk]:
        return self._index(course_id).vector_search(vector, k)

    def lexical_search(self, course_id: str, tokens: Sequence[str], k: int) -> list[ScoredChunk]:
        return self._index(course_id).lexical_search(tokens, k)

    def search(self, course_id: str, vector: np.ndarray, tokens: Sequence[str], k: int) -> CourseHits:
        return separate_search(self, course_id, vector, tokens, k)

    def count(self, course_id: str) -> int:
        return sum(entry["chunks"] for entry in self._read_manifest(course_id)["files"].values())

    def health(self) -> StoreHealth:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            writable = os.access(self.root, os.W_OK)
            return StoreHealth(self.name, True, f"{self.root}" + ("" if writable else " (read-only)"))
        except OSError as exc:
            return StoreHealth(self.name, False, f"{self.root}: {exc.strerror or exc}")


def _npz_bytes(**arrays: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()
