"""The web server's own defences, as one ASGI middleware Gradio's FastAPI app is built with.

`server_options(settings)` is merged into `demo.launch(...)` (through `launch_options`), so
every launch — `app.py`, the tests' fixtures — gets the same guard:

- **Content-Security-Policy** on every response: scripts only from the app itself (Gradio
  needs its inline boot scripts), images only from the app or `data:`, no plugins, forms
  post only to the app, no other site can be contacted by a script. A remote image that
  slipped past the sanitizer would not load, so it could not carry a learner's notes away.
- **Request bodies are capped** (`MAX_REQUEST_MB`) before the app reads them: a 20 MB chat
  history was accepted and cost 42 s of CPU.
- **Gradio's upload route** (`/gradio_api/upload`) takes only the file types the app reads,
  at most `MAX_FILE_MB` per file and `MAX_FILES_PER_UPLOAD` files per request (counted in
  the body as it streams, before Gradio keeps any: one request once stored 999), at most
  `UPLOADS_PER_CLIENT` requests per client in 10 minutes, and only while its folder holds
  less than `UPLOAD_TMP_MB`; files older than `UPLOAD_TMP_TTL_S` are deleted (by one
  background sweep at a time, at most every 5 s, started by an upload but never waited for:
  walking 20,000 files on the event loop made a 1-byte upload take 1 s; Gradio's own cache
  sweep runs too). Any file type used to be accepted, at 111 MB/s, and kept for up to 90
  minutes.
- **Uploaded files are not served back** by either spelling of Gradio's file route
  (`/gradio_api/file=<path>`, `/gradio_api/file/<path>`): anyone who knew the path could
  download them.
- **Routes the app does not use answer 404**: Gradio's deep links (`/gradio_api/deep_link`
  saved the session's whole state on disk at every call, 53.6 MB in 1.7 s, until the upload
  space was full for everyone) and its monitoring pages (`/monitoring/...`: request counts and
  timings of every instructor endpoint, public).
- **Direct, non-queued calls from a session Gradio has never seen create no session state**:
  their `session_hash` is dropped, so they cannot push real learners' state out of Gradio's
  store. (Upload pools do not depend on that store any more: see courserag/ui/study/sessions.py.)

A "client" is the socket's peer, or what a configured trusted proxy says it is
(`TRUSTED_PROXIES`, see courserag/ui/clients.py): a client cannot choose its own address.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from python_multipart.multipart import parse_options_header
from starlette.formparsers import MultiPartException

from courserag.config.settings import Settings
from courserag.ingest.parsers import SUPPORTED_EXTENSIONS
from courserag.ui.clients import ClientPolicy, request_client, scope_client

__all__ = ["CSP", "ServerGuard", "ServerPolicy", "client_address", "server_options"]

log = logging.getLogger(__name__)

MB = 1024 * 1024
CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval'",  # Gradio boots from inline scripts
        "style-src 'self' 'unsafe-inline' https://fonts.googleapis.com",
        "font-src 'self' data: https://fonts.gstatic.com",
        "img-src 'self' data: blob:",
        "media-src 'self' data: blob:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "frame-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'self' https://huggingface.co https://*.hf.space",  # a Space is shown in an iframe
    ]
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]
WINDOW_S = 600.0  # the per-client upload count is over this window
SWEEP_EVERY_S = 5.0  # the upload folder is measured (and old files deleted) at most this often
_FILE_ROUTE = re.compile(r"/file[=/](?P<target>.*)$", re.DOTALL)  # both spellings of Gradio's file route


@dataclass(frozen=True)
class ServerPolicy:
    """What the guard enforces; built from settings by `ServerPolicy.of`."""

    max_request_bytes: int = 2 * MB
    max_upload_bytes: int = 50 * MB * 20 + MB  # one upload request: every file at its limit
    upload_tmp_bytes: int = 2048 * MB
    upload_tmp_ttl_s: float = 600.0
    uploads_per_client: int = 60
    files_per_upload: int = 20
    upload_extensions: frozenset[str] = SUPPORTED_EXTENSIONS
    clients: ClientPolicy = ClientPolicy()

    @classmethod
    def of(cls, settings: Settings) -> "ServerPolicy":
        server, limits = settings.server, settings.limits
        return cls(
            max_request_bytes=int(server.max_request_mb * MB),
            max_upload_bytes=int(limits.max_file_mb * MB * limits.max_files_per_upload) + MB,
            upload_tmp_bytes=int(server.upload_tmp_mb * MB),
            upload_tmp_ttl_s=float(server.upload_tmp_ttl_s),
            uploads_per_client=server.uploads_per_client,
            files_per_upload=limits.max_files_per_upload,
            clients=ClientPolicy.from_settings(settings),
        )


def server_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments of `demo.launch` that install the guard."""
    from starlette.middleware import Middleware

    return {
        "app_kwargs": {"middleware": [Middleware(ServerGuard, policy=ServerPolicy.of(settings))]},
        "max_file_size": f"{int(settings.limits.max_file_mb)}mb",
        # Gradio keeps a copy of the page's configuration per session (115 KB here): 10,000 of
        # them were 1.15 GB. Upload pools do not live there, so fewer cost a learner nothing
        # but, at worst, the thumbs of answers older than the eviction.
        "state_session_capacity": max(4 * settings.server.max_sessions, 1000),
    }


class ServerGuard:
    """Pure ASGI middleware: headers, body caps, the upload route's limits (see the module)."""

    def __init__(self, app, policy: ServerPolicy = ServerPolicy()):
        self.app = app
        self.policy = policy
        self._lock = threading.Lock()
        self._uploads: OrderedDict[str, deque] = OrderedDict()  # client -> times of its upload requests
        self._usage = 0  # bytes in the upload folder, as last swept plus what was written since
        self._swept_at = -SWEEP_EVERY_S  # when the last sweep started (monotonic)
        self._sweeping = False
        self._written_while_sweeping = 0
        self._reserved = 0  # bytes of uploads in flight

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        send = self._with_headers(send)
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if _is_unused_route(path):
            return await _reply(send, 404, "Not found.")
        if _FILE_ROUTE.search(path) and self._serves_upload(scope, path):
            return await _reply(send, 404, "File not found.")
        if method == "POST" and path.rstrip("/").endswith("/gradio_api/upload"):
            return await self._upload(scope, receive, send)
        if method in ("POST", "PUT", "PATCH"):
            length = _content_length(scope)
            if length is not None and length > self.policy.max_request_bytes:
                return await _reply(send, 413, "Request body too large.")
            if _is_direct_call(path):
                return await self._direct_call(scope, receive, send)
            return await self._capped(scope, receive, send, self.policy.max_request_bytes)
        return await self.app(scope, receive, send)

    # -- plumbing ---------------------------------------------------------------------------

    @staticmethod
    def _with_headers(send):
        async def wrapped(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message = dict(
                    message, headers=list(message.get("headers", [])) + [h for h in _HEADERS if h[0] not in names]
                )
            await send(message)

        return wrapped

    async def _capped(self, scope, receive, send, cap: int):
        """Run the app on a body of at most `cap` bytes. A declared length was checked by the
        caller (and the HTTP server stops the body there); a streamed body without one is
        read here first, up to the cap."""
        if _content_length(scope) is not None:
            return await self.app(scope, receive, send)
        body = await _read_body(receive, cap)
        if body is None:
            return await _reply(send, 413, "Request body too large.")
        return await self.app(scope, _replay(body), send)

    async def _direct_call(self, scope, receive, send):
        """A non-queued call (/run, /api) from a session Gradio does not know runs without one."""
        body = await _read_body(receive, self.policy.max_request_bytes)
        if body is None:
            return await _reply(send, 413, "Request body too large.")
        holder = getattr(scope.get("app"), "state_holder", None)
        try:
            payload = json.loads(body)
            session = payload.get("session_hash") if isinstance(payload, dict) else None
            if session and holder is not None and session not in holder:
                payload["session_hash"] = None
                body = json.dumps(payload).encode()
                scope = dict(scope, headers=_set_length(scope, len(body)))
        except ValueError:
            pass  # not JSON: Gradio answers it
        return await self.app(scope, _replay(body), send)

    # -- uploads ----------------------------------------------------------------------------

    def _serves_upload(self, scope, path: str) -> bool:
        """Whether a file route's target is in the upload folder, read as Gradio reads it
        (relative to the working directory) and once more percent-decoded, in case a layer
        decodes it again."""
        from urllib.parse import unquote

        folder = _upload_folder(scope)
        target = _FILE_ROUTE.search(path)["target"]
        try:
            return any(Path(os.path.abspath(t)).resolve().is_relative_to(folder) for t in (target, unquote(target)))
        except (OSError, ValueError):
            return True

    def _count_upload(self, client: str) -> bool:
        """Record one upload request of `client`; False when it is over its count."""
        now = time.monotonic()
        with self._lock:
            times = self._uploads.setdefault(client, deque())
            self._uploads.move_to_end(client)
            while times and now - times[0] > WINDOW_S:
                times.popleft()
            if len(times) >= self.policy.uploads_per_client:
                return False
            times.append(now)
            while len(self._uploads) > 10000:
                self._uploads.popitem(last=False)
            return True

    def _reserve(self, folder: Path, length: int) -> bool:
        """Make room for `length` bytes in the upload folder, by the last measure of it (a
        sweep due now runs beside this request, which does not wait for it)."""
        with self._lock:
            self._start_sweep(folder)
            if self._usage + self._reserved + length > self.policy.upload_tmp_bytes:
                return False
            self._reserved += length
            return True

    def _start_sweep(self, folder: Path) -> None:
        """Sweep the upload folder on a thread of its own when one is due and none runs:
        the walk costs a second per 20,000 files and must hold up neither the event loop nor
        the lock. Called with the lock held."""
        now = time.monotonic()
        if self._sweeping or now - self._swept_at < SWEEP_EVERY_S:
            return
        self._sweeping, self._swept_at, self._written_while_sweeping = True, now, 0
        threading.Thread(target=self._sweep_in_background, args=(folder,), name="upload-sweep", daemon=True).start()

    def _sweep_in_background(self, folder: Path) -> None:
        """One sweep; what is written while it walks is added to what it found, so the
        measure errs towards full (until the next sweep) rather than towards empty."""
        remaining = None
        try:
            remaining = _sweep(folder, self.policy.upload_tmp_ttl_s)
        except Exception:  # a failed walk keeps the last measure; the next upload tries again
            log.exception("sweeping the upload folder %s failed", folder)
        finally:
            with self._lock:
                if remaining is not None:
                    self._usage = remaining + self._written_while_sweeping
                self._sweeping = False

    def _release(self, length: int, written: int) -> None:
        with self._lock:
            self._reserved -= length
            self._usage += written
            if self._sweeping:
                self._written_while_sweeping += written

    async def _upload(self, scope, receive, send):
        length = _content_length(scope)
        if length is None:
            return await _reply(send, 411, "Uploads must declare their length.")
        if length > self.policy.max_upload_bytes:
            return await _reply(send, 413, "Upload too large.")
        if not self._count_upload(scope_client(scope, self.policy.clients)):
            return await _reply(send, 429, "Too many uploads from your address; try again in a few minutes.")
        folder = _upload_folder(scope)
        if not self._reserve(folder, length):
            return await _reply(send, 507, "The upload space is full right now; try again in a few minutes.")
        captured: list[dict] = []

        async def capture(message):
            captured.append(message)

        counted = _FileCount.of(scope, receive, self.policy.files_per_upload)
        written = 0
        try:
            try:
                await self.app(scope, counted or receive, capture)
            except _TooManyFiles:
                pass  # a parser that does not stop on it: answered below all the same
            if counted and counted.over:
                return await _reply(send, 413, f"At most {self.policy.files_per_upload} files can be uploaded at once.")
            status, body = _response(captured)
            paths = _saved_paths(body) if status == 200 else []
            written = sum(_size(p) for p in paths)
            refused = [p for p in paths if Path(p).suffix.lower() not in self.policy.upload_extensions]
            if refused:
                for saved in paths:
                    _delete(Path(saved), folder)
                written = 0
                allowed = ", ".join(sorted(self.policy.upload_extensions))
                return await _reply(send, 415, f"Only these file types can be uploaded: {allowed}.")
        finally:
            self._release(length, written)
        for message in captured:
            await send(message)


class _TooManyFiles(MultiPartException):
    """An upload request with more files than allowed. Raised from the request's `receive`
    into the multipart parser of Gradio's upload route, which stops on a `MultiPartException`
    and deletes the files it began."""


class _FileCount:
    """The `receive` of an upload request that counts the multipart parts of the body as it
    streams to Gradio, and stops the request before the part past `limit` reaches it: Gradio
    itself stores up to 999 files of one request, each written to disk as it arrives.

    A part begins at `--<boundary>` and a line end (as python-multipart, Gradio's parser,
    requires); the last delimiter, `--<boundary>--`, begins none."""

    def __init__(self, receive, boundary: bytes, limit: int):
        self.receive = receive
        self.opener = b"--" + boundary + b"\r\n"
        self.limit = limit
        self.parts = 0
        self.tail = b""  # the end of the body so far, where an opener may begin
        self.over = False

    @classmethod
    def of(cls, scope, receive, limit: int) -> "_FileCount | None":
        """Counting for a multipart request; None without a boundary (Gradio refuses it)."""
        header = next((v for n, v in scope.get("headers", []) if n.lower() == b"content-type"), b"")
        boundary = parse_options_header(header)[1].get(b"boundary")
        return cls(receive, boundary, limit) if boundary else None

    async def __call__(self):
        message = await self.receive()
        if message["type"] == "http.request":
            window = self.tail + message.get("body", b"")
            self.parts += window.count(self.opener)
            self.tail = window[-(len(self.opener) - 1) :]
            if self.parts > self.limit:
                self.over = True
                raise _TooManyFiles(f"Too many files. Maximum number of files is {self.limit}.")
        return message


# --------------------------------------------------------------------------- helpers


def _is_unused_route(path: str) -> bool:
    """Gradio routes this app has no use for that cost or tell too much: deep links (the
    page has no deep-link button; each call wrote the session's state to disk) and the
    monitoring pages (counts and timings of every endpoint, the instructor's included)."""
    parts = path.strip("/").split("/")
    return parts[0] == "monitoring" or parts[:2] == ["gradio_api", "deep_link"]


def _is_direct_call(path: str) -> bool:
    return "/gradio_api/run/" in path or "/gradio_api/api/" in path


def _content_length(scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _set_length(scope, length: int) -> list:
    headers = [(n, v) for n, v in scope.get("headers", []) if n.lower() != b"content-length"]
    return headers + [(b"content-length", str(length).encode())]


def client_address(request, policy: ClientPolicy = ClientPolicy()) -> str:
    """The client of a Gradio handler's request, as the guard counts it (see the module)."""
    return request_client(request, policy)


def _upload_folder(scope) -> Path:
    from gradio.utils import get_upload_folder

    folder = getattr(scope.get("app"), "uploaded_file_dir", None) or get_upload_folder()
    return Path(folder).resolve()


async def _read_body(receive, cap: int) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > cap:
            return None
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes):
    sent = False

    async def receive():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _reply(send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _response(messages: list[dict]) -> tuple[int, bytes]:
    status = next((m["status"] for m in messages if m["type"] == "http.response.start"), 500)
    return status, b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")


def _saved_paths(body: bytes) -> list[str]:
    try:
        paths = json.loads(body)
    except ValueError:
        return []
    return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _delete(path: Path, folder: Path) -> None:
    """Delete an uploaded file (and its folder, if that empties it), inside `folder` only."""
    try:
        path = path.resolve()
        if not path.is_relative_to(folder):
            return
        path.unlink(missing_ok=True)
        if path.parent != folder and not any(path.parent.iterdir()):
            path.parent.rmdir()
    except OSError:
        pass


def _sweep(folder: Path, ttl_s: float) -> int:
    """Delete uploaded files older than `ttl_s`; returns the bytes that remain."""
    total, now = 0, time.time()
    if not folder.is_dir():
        return 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            try:
                stat = path.stat()
            except OSError:
                continue
            if now - stat.st_mtime > ttl_s:
                _delete(path, folder)
            else:
                total += stat.st_size
    return total
