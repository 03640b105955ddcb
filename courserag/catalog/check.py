"""`python rag_engine.py catalog check DIR`: every problem of a catalog folder, or its size.

The same checks as loading (load.py), run before a catalog is put in place: one line a
problem, `DIR/courses.csv:15: credits: must be a number >= 0, but got 'three'`, the form
editors and terminals turn into links; a clean catalog gets one line saying what it holds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from courserag.catalog.load import CatalogError, load_catalog
from courserag.catalog.model import Catalog
from courserag.catalog.problems import Problem


def check_folder(folder: Path) -> tuple[Catalog | None, list[Problem]]:
    """The catalog and no problems, or None and every problem found."""
    try:
        return load_catalog(folder), []
    except CatalogError as exc:
        return None, exc.problems


def problem_line(folder: Path, problem: Problem) -> str:
    """The problem with its file as a path from where the command was run."""
    return str(replace(problem, file=str(Path(folder) / problem.file) if problem.file else str(folder)))


def summary(catalog: Catalog) -> str:
    """ "catalog: OK, 39 courses, 58 sections, 2 programs (2 terms, 12 rooms, 8 instructors)"."""
    extra = [f"{len(catalog.terms)} terms"]
    extra += [f"{len(catalog.rooms)} rooms"] if catalog.rooms else []
    extra += [f"{len(catalog.instructors)} instructors"] if catalog.instructors else []
    return (
        f"{catalog.folder}: OK, {len(catalog.courses)} courses, {len(catalog.sections)} sections, "
        f"{len(catalog.programs)} programs ({', '.join(extra)})"
    )
