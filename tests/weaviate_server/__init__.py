"""A local, wire-level fake of Weaviate (REST + gRPC) that the real weaviate-client talks to.

See server.py for the handle (`start_server`), state.py for the semantics it implements,
and fixtures.py for the pytest fixtures.
"""

from .server import FakeWeaviate, start_server

__all__ = ["FakeWeaviate", "start_server"]
