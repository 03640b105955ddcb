"""Start and stop a fake Weaviate (REST + gRPC on 127.0.0.1) for tests.

    server = start_server(api_key="secret")
    client = weaviate.connect_to_custom("127.0.0.1", server.http_port, False,
                                        "127.0.0.1", server.grpc_port, False, ...)
    ...
    server.stop()      # the server "goes down": both ports refuse connections
    server.start()     # and comes back on the same ports with the same data

The data lives in `server.db` (a `state.Database`), so tests can look at what was really
stored, and `server.db.inject_batch_errors(...)` makes the next batch writes fail.
"""

from __future__ import annotations

import threading

from .grpc_service import GrpcServer
from .rest import RestServer
from .state import Database


class FakeWeaviate:
    """Handle of a running fake Weaviate server."""

    def __init__(self, api_key: str | None = None, autoschema: bool = True, query_maximum_results: int = 10000):
        self.api_key = api_key
        self.db = Database(autoschema=autoschema, query_maximum_results=query_maximum_results)
        self._lock = threading.Lock()
        self._rest: RestServer | None = None
        self._grpc: GrpcServer | None = None
        self.http_port = 0
        self.grpc_port = 0

    @property
    def url(self) -> str:
        """The REST base URL, e.g. http://127.0.0.1:41234 (what WEAVIATE_URL would be)."""
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def grpc_url(self) -> str:
        """The gRPC address as WEAVIATE_GRPC_URL would be given (http://127.0.0.1:port)."""
        return f"http://127.0.0.1:{self.grpc_port}"

    @property
    def running(self) -> bool:
        return self._rest is not None

    def start(self) -> "FakeWeaviate":
        """Start (or restart on the same ports, keeping the data)."""
        with self._lock:
            if self._rest is not None:
                return self
            rest = RestServer(self.db, self.api_key, self.http_port)
            try:
                grpc_server = GrpcServer(self.db, self.api_key, self.grpc_port)
            except BaseException:
                rest.stop()
                raise
            self._rest, self._grpc = rest, grpc_server
            self.http_port, self.grpc_port = rest.port, grpc_server.port
            return self

    def stop(self) -> None:
        """Go down: close both listeners and drop in-flight calls. Safe to call twice."""
        with self._lock:
            rest, grpc_server = self._rest, self._grpc
            self._rest = self._grpc = None
        if grpc_server is not None:
            grpc_server.stop()
        if rest is not None:
            rest.stop()

    def __enter__(self) -> "FakeWeaviate":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"FakeWeaviate({self.url}, grpc port {self.grpc_port}, {state})"


def start_server(
    api_key: str | None = None, autoschema: bool = True, query_maximum_results: int = 10000
) -> FakeWeaviate:
    """A started fake Weaviate on free ports of 127.0.0.1.

    `autoschema=False` rejects objects with properties that are not in the collection's
    schema (real Weaviate's AUTOSCHEMA_ENABLED=false), which proves that a schema covers
    everything a writer sends. `query_maximum_results` is Weaviate's QUERY_MAXIMUM_RESULTS
    (offset + limit, and objects deleted per batch delete).
    """
    return FakeWeaviate(api_key, autoschema, query_maximum_results).start()
