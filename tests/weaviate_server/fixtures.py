"""Pytest fixtures for the fake Weaviate server; import them from tests/conftest.py:

from tests.weaviate_server.fixtures import weaviate_server, weaviate_server_factory  # noqa: F401
"""

from __future__ import annotations

from typing import Callable, Iterator

import pytest

from .server import FakeWeaviate, start_server


@pytest.fixture
def weaviate_server() -> Iterator[FakeWeaviate]:
    """A fresh fake Weaviate (no API key, autoschema on), stopped after the test."""
    server = start_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def weaviate_server_factory() -> Iterator[Callable[..., FakeWeaviate]]:
    """`make(api_key=..., autoschema=..., query_maximum_results=...)`; all stopped after the test."""
    started: list[FakeWeaviate] = []

    def make(**kwargs) -> FakeWeaviate:
        server = start_server(**kwargs)
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            server.stop()
