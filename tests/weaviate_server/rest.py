"""The REST half of the fake Weaviate server (stdlib http.server, one thread per request).

Implemented: /v1/.well-known/{ready,live,openid-configuration}, /v1/meta, /v1/nodes,
/v1/schema (GET, POST), /v1/schema/{class} (GET, DELETE), /v1/schema/{class}/properties
(POST). Anything else answers 404 with Weaviate's error body, so a client feature the fake
does not support fails loudly instead of silently.

HTTP/1.0, one request per connection: when the server is stopped no kept-alive socket
keeps answering, which is what a crashed Weaviate looks like to the client.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

from .state import Database, WeaviateError

VERSION = "1.32.0"
GRPC_MAX_MESSAGE_SIZE = 104858000


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, db: Database, api_key: str | None):
        super().__init__(address, _Handler)
        self.db = db
        self.api_key = api_key


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep pytest output clean

    # -- plumbing ---------------------------------------------------------------------

    def _send(self, status: int, body: Any | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data and self.command != "HEAD":
            self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        self._send(status, {"error": [{"message": message}]})

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw) if raw else None

    def _authorised(self, path: str) -> bool:
        if self.server.api_key is None or path.startswith("/v1/.well-known/"):
            return True
        header = self.headers.get("Authorization") or ""
        if not header:
            self._send(
                401,
                {"code": 401, "message": "anonymous access not enabled, please provide an auth scheme such as OIDC"},
            )
            return False
        if header != f"Bearer {self.server.api_key}":
            self._send(401, {"code": 401, "message": "unauthorized: invalid api key"})
            return False
        return True

    def _dispatch(self, method: str) -> None:
        path = urlparse(self.path).path.rstrip("/")
        self.server.db.request_log.append(f"REST {method} {path}")
        if not self._authorised(path):
            return
        try:
            self._route(method, path)
        except WeaviateError as exc:
            self._error(exc.status, exc.message)
        except (ValueError, KeyError, TypeError) as exc:
            self._error(422, f"bad request: {exc}")

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # -- routes -----------------------------------------------------------------------

    def _route(self, method: str, path: str) -> None:
        db = self.server.db
        parts = path.split("/")[1:]  # ["v1", ...]
        if parts[:1] != ["v1"]:
            return self._error(404, f"no route for {method} {path}")
        rest = parts[1:]
        if rest in ([".well-known", "ready"], [".well-known", "live"]):
            return self._send(200)
        if rest == [".well-known", "openid-configuration"]:
            return self._send(404)
        if rest == ["meta"] and method == "GET":
            return self._send(
                200,
                {
                    "hostname": "http://[::]:8080",
                    "modules": {},
                    "version": VERSION,
                    "grpcMaxMessageSize": GRPC_MAX_MESSAGE_SIZE,
                },
            )
        if rest == ["nodes"] and method == "GET":
            with db.lock:
                count = sum(len(c.objects) for c in db.collections.values())
            return self._send(
                200,
                {
                    "nodes": [
                        {
                            "name": "fake-node-1",
                            "status": "HEALTHY",
                            "version": VERSION,
                            "gitHash": "fake",
                            "batchStats": {"queueLength": 0, "ratePerSecond": 0},
                            "stats": {"objectCount": count, "shardCount": len(db.collections)},
                            "shards": None,
                        }
                    ]
                },
            )
        if rest == ["schema"]:
            if method == "GET":
                return self._send(200, db.schema())
            if method == "POST":
                return self._send(200, db.create_collection(self._body() or {}))
        if len(rest) == 2 and rest[0] == "schema":
            name = rest[1]
            if method in ("GET", "HEAD"):
                coll = db.get_collection(name)
                if coll is None:
                    return self._send(404)
                with db.lock:
                    return self._send(200, json.loads(json.dumps(coll.schema)))
            if method == "DELETE":
                db.delete_collection(name)
                return self._send(200)
        if len(rest) == 3 and rest[0] == "schema" and rest[2] == "properties" and method == "POST":
            return self._send(200, db.add_property(rest[1], self._body() or {}))
        return self._error(404, f"the fake Weaviate server does not implement {method} {path}")


class RestServer:
    """A running REST server on 127.0.0.1 (port 0 picks a free port)."""

    def __init__(self, db: Database, api_key: str | None, port: int = 0):
        self._httpd = _Server(("127.0.0.1", port), db, api_key)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
