"""The reader's training stays off the product's run path: no product module imports it, and
its data and scoring modules import no torch (their tests run without it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
PURE = ("sets", "fitting", "card", "data", "metrics", "weights", "cli")


def test_no_product_module_imports_the_training_code():
    offenders = []
    for path in sorted((PROJECT_ROOT / "courserag").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(PROJECT_ROOT)}: {n}" for n in names if n.split(".")[0] == "training"]
    assert not offenders


def test_the_data_and_scoring_modules_import_no_torch():
    script = (
        "import sys\n"
        "for name in ('torch', 'transformers', 'safetensors'):\n"
        "    sys.modules[name] = None  # importing it now fails\n"
        f"for module in {PURE!r}:\n"
        "    __import__('training.reader.' + module)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
