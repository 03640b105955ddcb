"""The composer's tests hand it a question as retrieval would: read once (lang/query.py),
with the floor and the crossing of languages a test sets instead of an embedder."""

from __future__ import annotations

from dataclasses import replace

from courserag.lang.query import Query, read_query


def query(text: str, floor: float = 0.0, across: bool = False) -> Query:
    return replace(read_query(text), floor=floor, across=across)
