"""The E5 conversion without torch (courserag/embedders/e5_graph.py) and the slim install.

The graph written with `onnx` is checked against the torch.onnx export it replaced
(tests/e5_torch_reference.py): both are converted here, each into its own temporary folder,
and run by onnxruntime on the same English, Chinese and mixed sentences. The default path
converts and embeds in a subprocess where torch, transformers and sentence-transformers
cannot be imported at all, as on an install of requirements.txt alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnx
import pytest

from courserag.embedders import get_embedder
from courserag.embedders.e5 import E5Embedder
from courserag.embedders.e5_convert import model_dir, quantize_int8
from courserag.embedders.e5_format import locate_model, read_e5
from courserag.embedders.sentence_transformers import OPTIONAL_REQUIREMENTS, require_optional_packages
from courserag.embedders.threads import cpu_session_options
from courserag.errors import ConfigError
from tests.app_helpers import free_port
from tests.unit.embedders.test_e5_embedder import CHINESE, ENGLISH, MIXED, cosines

PROJECT_ROOT = Path(__file__).resolve().parents[3]
OPTIONAL_MODULES = ("torch", "transformers", "sentence_transformers")
SENTENCES = ENGLISH + CHINESE + MIXED

# Run in a fresh interpreter: imports and embeds with the product's default settings while an
# import hook refuses the optional modules, then says which of them got loaded anyway.
NO_TORCH_SCRIPT = """
import importlib.abc, json, sys
BLOCKED = {blocked!r}

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is not installed (blocked by the test)")
        return None

sys.meta_path.insert(0, Refuse())
import app, courserag.cli, courserag.engine.facade  # noqa: F401  (everything the product imports)
from courserag.embedders import get_embedder
from courserag.embedders.e5_convert import converted_model
from courserag.embedders.e5_format import locate_model
from courserag.config.settings import Settings

s = Settings()
embedder = get_embedder(s.embedding_model, s.embedding_backend, {cache!r}, s.cpu_threads)
query = embedder.embed_query("作业迟交怎么扣分？")
passages = embedder.embed_batch(
    ["Late homework loses 10% per day.", "迟交的作业每天扣百分之十。", "光合作用把光能转化为化学能。"]
)
print(json.dumps({{
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED),
    "model": s.embedding_model,
    "files": [str(converted_model({cache!r}, locate_model(), p)) for p in ("fp32", "int8")],
    "scores": (passages @ query).tolist(),
}}))
"""


@pytest.fixture(scope="module")
def without_torch(tmp_path_factory) -> dict:
    """The default embedder, converted from scratch and used in a process without torch."""
    cache = tmp_path_factory.mktemp("slim-models")
    script = NO_TORCH_SCRIPT.format(blocked=OPTIONAL_MODULES, cache=str(cache))
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return {"cache": cache, **json.loads(done.stdout.strip().splitlines()[-1])}


@pytest.fixture(scope="module")
def torch_export(tmp_path_factory) -> Path:
    """The conversion as it was: BertModel exported by torch.onnx, then quantized without
    smoothing (which finds its products by e5_graph's names, not the export's)."""
    for module in ("torch", "transformers"):
        pytest.importorskip(module, reason=f"the reference export needs {OPTIONAL_REQUIREMENTS}")
    from tests.e5_torch_reference import export_fp32_torch

    folder = tmp_path_factory.mktemp("torch-export")
    export_fp32_torch(read_e5(locate_model()), folder / "model-fp32.onnx")
    quantize_int8(folder / "model-fp32.onnx", folder / "model-int8.onnx", smooth=False)
    return folder


@pytest.fixture(scope="module")
def ours_unsmoothed(without_torch, tmp_path_factory) -> Path:
    """Our fp32 graph and the same quantized without smoothing, as the torch export is."""
    folder = tmp_path_factory.mktemp("ours-unsmoothed")
    shutil.copyfile(model_dir(without_torch["cache"], locate_model()) / "model-fp32.onnx", folder / "model-fp32.onnx")
    quantize_int8(folder / "model-fp32.onnx", folder / "model-int8.onnx", smooth=False)
    return folder


@lru_cache(maxsize=4)
def session(model: Path):
    import onnxruntime as ort

    return ort.InferenceSession(str(model), cpu_session_options(1), providers=["CPUExecutionProvider"])


def run(model: Path, embeds: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return session(model).run(None, {"inputs_embeds": embeds, "attention_mask": mask})[0]


# -- the default path needs none of the optional packages ----------------------------------------


@pytest.mark.slow  # converts the model from scratch in a subprocess
def test_the_default_embedder_converts_and_embeds_without_torch(without_torch):
    assert without_torch["model"] == "multilingual-e5-small+use-multilingual-v3"
    assert without_torch["loaded"] == []
    late_en, late_zh, unrelated = without_torch["scores"]
    assert min(late_en, late_zh) > unrelated  # the Chinese question finds both late-policy passages


def test_converted_files_are_named_by_the_model_files_fingerprint(without_torch, tmp_path):
    folder = model_dir(without_torch["cache"], locate_model())
    assert without_torch["files"] == [str(folder / "model-fp32.onnx"), str(folder / "model-int8.onnx")]
    assert not list(folder.glob(".*.tmp"))
    same = tmp_path / "same.bin"
    shutil.copyfile(locate_model(), same)
    assert model_dir(without_torch["cache"], same) == folder  # named by content, not by path
    changed = tmp_path / "changed.bin"
    raw = bytearray(locate_model().read_bytes())
    raw[-1] ^= 0xFF
    changed.write_bytes(bytes(raw))
    assert model_dir(without_torch["cache"], changed) != folder  # a different file never reuses it


# -- the graph -------------------------------------------------------------------------------------


def test_the_graph_is_bert_with_72_weight_matmuls(without_torch):
    folder = model_dir(without_torch["cache"], locate_model())
    model = onnx.load(str(folder / "model-fp32.onnx"))
    onnx.checker.check_model(model)
    graph = model.graph
    assert [i.name for i in graph.input] == ["inputs_embeds", "attention_mask"]
    assert [o.name for o in graph.output] == ["embedding", "token_states"]
    weights = {i.name: i for i in graph.initializer}
    ops = [n.op_type for n in graph.node]
    weight_matmuls = [n for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    assert len(weight_matmuls) == 72 and ops.count("MatMul") == 72 + 24  # + two per layer in attention
    assert ops.count("Erf") == 12  # exact GELU
    norms = [n for n in graph.node if n.op_type == "LayerNormalization"]
    assert len(norms) == 25 and all(abs(a.f - 1e-12) < 1e-18 for n in norms for a in n.attribute if a.name == "epsilon")
    assert tuple(weights["emb.pos"].dims) == (512, 384)  # positions 0..511, no offset
    int8 = onnx.load(str(folder / "model-int8.onnx"), load_external_data=False)
    assert sum(n.op_type == "MatMulInteger" for n in int8.graph.node) == 72
    # smoothed first (e5_smoothing.py): three divisions a layer, no file of it left behind
    assert sum(n.op_type == "Mul" and n.output[0].endswith(".scaled_input") for n in int8.graph.node) == 36
    assert not [p.name for p in folder.iterdir() if "smoothed" in p.name]


@pytest.fixture(scope="module")
def sentence_inputs() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Word vectors and mask of the sentences as passages, padded into one batch."""
    tokens = E5Embedder("fp32")
    rows = tokens._windowed([f"passage: {s}" for s in SENTENCES])
    embeds, mask = tokens.inputs(rows)
    return embeds, mask, [len(r) for r in rows]


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_the_token_states_are_the_layer_the_vector_is_the_mean_of(without_torch, sentence_inputs, precision):
    embeds, mask, _ = sentence_inputs
    model = model_dir(without_torch["cache"], locate_model()) / f"model-{precision}.onnx"
    vectors, states = session(model).run(
        ["embedding", "token_states"], {"inputs_embeds": embeds, "attention_mask": mask}
    )
    assert states.shape == (*mask.shape, 384)
    mean = (states * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    assert np.allclose(mean, vectors, atol=1e-5)


@pytest.mark.slow  # the torch export: about 30 s
@pytest.mark.parametrize(
    ("precision", "min_cosine", "max_difference"), [("fp32", 0.9999, 1e-4), ("int8", 0.9999, 1e-3)]
)
def test_vectors_match_the_torch_export(
    ours_unsmoothed, torch_export, sentence_inputs, precision, min_cosine, max_difference
):
    """Measured: identical on this machine in both precisions (the same ops, fused the same
    way); the bounds leave room for another CPU's kernels."""
    embeds, mask, lengths = sentence_inputs
    ours = ours_unsmoothed / f"model-{precision}.onnx"
    reference = torch_export / f"model-{precision}.onnx"
    batched = run(ours, embeds, mask), run(reference, embeds, mask)
    alone = [
        np.concatenate([run(m, embeds[i : i + 1, :n], mask[i : i + 1, :n]) for i, n in enumerate(lengths)])
        for m in (ours, reference)
    ]
    for new, old in (batched, alone):
        assert cosines(new, old).min() >= min_cosine
        assert np.abs(new - old).max() <= max_difference


# -- MiniLM without its packages -------------------------------------------------------------------


@pytest.mark.parametrize("missing", OPTIONAL_MODULES)
@pytest.mark.parametrize(
    ("model", "backend"),
    [
        ("all-MiniLM-L6-v2", "torch"),
        ("all-MiniLM-L6-v2", "onnx-int8"),
        ("multilingual-e5-small+all-MiniLM-L6-v2", "onnx-int8"),
    ],
)
def test_minilm_without_its_packages_names_the_file_to_install(monkeypatch, missing, model, backend):
    monkeypatch.setitem(sys.modules, missing, None)  # import and find_spec now fail for it
    with pytest.raises(ConfigError) as error:
        get_embedder.__wrapped__(model, backend)
    message = str(error.value)
    package = missing.replace("_", "-")
    assert f"missing: {package})" in message and f"pip install -r {OPTIONAL_REQUIREMENTS}" in message
    assert f"EMBEDDING_MODEL={model.split('+')[-1]} runs on sentence-transformers" in message


def test_the_check_does_not_import_the_packages(monkeypatch):
    """find_spec only: choosing MiniLM costs no torch import until the model is used."""
    for module in OPTIONAL_MODULES:
        monkeypatch.delitem(sys.modules, module, raising=False)
    require_optional_packages("all-MiniLM-L6-v2")  # installed by `make test`: accepted
    assert not [m for m in OPTIONAL_MODULES if m in sys.modules]


@pytest.mark.slow  # starts app.py
def test_the_app_started_with_minilm_but_without_its_packages_says_so_in_one_line(tmp_path):
    """`python app.py` on an install of requirements.txt alone (the optional modules refused
    by an import hook) with EMBEDDING_MODEL=all-MiniLM-L6-v2: one line naming the file."""
    start = NO_TORCH_SCRIPT.split("import app,")[0] + "import runpy\nrunpy.run_path('app.py', run_name='__main__')\n"
    env = {k: v for k, v in os.environ.items() if k not in {"PORT", "GRADIO_SERVER_PORT", "SPACE_ID"}}
    env.update(
        {
            "EMBEDDING_MODEL": "all-MiniLM-L6-v2",
            "DATA_DIR": str(tmp_path),
            "PORT": str(free_port()),
            "HF_HUB_OFFLINE": "1",
        }
    )
    script = start.format(blocked=OPTIONAL_MODULES, cache=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert (
        f"pip install -r {OPTIONAL_REQUIREMENTS}" in lines[0]
        and "missing: torch, transformers, sentence-transformers" in lines[0]
    )
