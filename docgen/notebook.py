"""Jupyter notebooks (nbformat 4.5) and their outputs, optionally computed by running the cells."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Sequence

KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def notebook_bytes(cells: Sequence[dict], metadata: dict | None = None) -> bytes:
    """A notebook from cells {"markdown": source} or {"code": source, "outputs": [...]}.

    A source is a string or a list of lines, both valid nbformat; code given as a string is
    split into lines as Jupyter saves it. Cells get ids "cell-01", ... and code cells
    execution counts 1, 2, ...; the JSON is written with sorted keys, so equal input gives
    equal bytes. `metadata` is added to the kernelspec.
    """
    nb_cells = []
    count = 0
    for index, cell in enumerate(cells, start=1):
        cell_id = f"cell-{index:02d}"
        if "markdown" in cell:
            nb_cells.append({"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": cell["markdown"]})
            continue
        count += 1
        source = cell["code"]
        nb_cells.append(
            {
                "cell_type": "code",
                "execution_count": count,
                "id": cell_id,
                "metadata": {},
                "outputs": cell.get("outputs", []),
                "source": source.splitlines(keepends=True) if isinstance(source, str) else source,
            }
        )
    notebook = {
        "cells": nb_cells,
        "metadata": {"kernelspec": KERNELSPEC} | (metadata or {}),
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(notebook, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def execute_cells(cells: Sequence[dict], name: str = "notebook") -> list[dict]:
    """The cells with the printed output of every code cell, run in order in one namespace
    (as "Run all" would): real outputs for a generated notebook."""
    namespace: dict = {"__name__": "__notebook__"}
    out_cells = []
    for index, cell in enumerate(cells, start=1):
        if "code" not in cell:
            out_cells.append(dict(cell))
            continue
        source = cell["code"] if isinstance(cell["code"], str) else "".join(cell["code"])
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"<{name} cell {index}>", "exec"), namespace)
        outputs = [stream_output(printed.getvalue().splitlines(keepends=True))] if printed.getvalue() else []
        out_cells.append(dict(cell, outputs=outputs))
    return out_cells


def stream_output(text: str | list[str]) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def image_output(text_plain: str = "<Figure size 640x480 with 1 Axes>", base64_bytes: int = 200_000) -> dict:
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": "iVBORw0KGgo" + "A" * base64_bytes, "text/plain": text_plain},
    }


def error_output(ename: str, evalue: str) -> dict:
    return {
        "output_type": "error",
        "ename": ename,
        "evalue": evalue,
        "traceback": ["\x1b[0;31m---------------------------------------------------------------------------\x1b[0m"],
    }
