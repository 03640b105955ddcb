"""The connection to Weaviate: lazy, under deadlines, with every failure made one typed error.

The client connects on first use, never at construction. Every call runs under a
deadline: weaviate-client retries UNAVAILABLE gRPC calls with exponential backoff for a
minute (ten for batches), which is right for a cluster that is scaling but not for a study
assistant whose Weaviate went away, so past the deadline we close the client (which ends
those retries) and raise `StoreUnavailableError`. The next call reconnects.

Failures are classified by exception type, HTTP status and gRPC status code
(`failure_kind`), never by the wording of a message, and said as one English sentence for
operators that names the URL and never the API key (`mask`).
"""

from __future__ import annotations

import enum
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TypeVar

from courserag.config.settings import secret
from courserag.errors import CourseRagError, StoreUnavailableError
from courserag.stores.weaviate.endpoint import Endpoint

logger = logging.getLogger(__name__)

T = TypeVar("T")

API_KEY_VARIABLE = "WEAVIATE_API_KEY"


# -- deadlines ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Deadlines:
    """Seconds a call may take before we give up on it, from WEAVIATE_TIMEOUT_S."""

    timeout: float

    @property
    def query(self) -> float:
        # The client's own query timeout plus a little: past it, the client is retrying.
        return self.timeout + 1.0

    @property
    def write(self) -> float:
        # The client's insert timeout (3x) plus a little.
        return self.timeout * 3 + 2.0

    @property
    def connect(self) -> float:
        # httpx's fixed 5 s connect timeout, /v1/meta, and the schema check and creation.
        return 5.0 + self.timeout * 3


class DeadlineExceeded(Exception):
    """The cause of a StoreUnavailableError raised because a call ran past its deadline."""


def deadline_passed(error: BaseException) -> bool:
    """Whether `error` was raised because a call ran past its deadline (retrying is futile)."""
    return isinstance(error.__cause__, DeadlineExceeded)


# -- secrets -----------------------------------------------------------------------------


def mask(message: str) -> str:
    """The message with the API key (if one is set) replaced by ***."""
    key = secret(API_KEY_VARIABLE, required=False)
    return message.replace(key, "***") if key else message


def _shows_key(exc: BaseException) -> bool:
    """Whether any exception in the chain would print the API key in a traceback."""
    key = secret(API_KEY_VARIABLE, required=False)
    return bool(key) and any(key in repr(link) or key in str(link) for link in _chain(exc))


# -- failures ----------------------------------------------------------------------------


class FailureKind(enum.IntEnum):
    """What went wrong, most telling first (a chain with several kinds says the first)."""

    CREDENTIALS = 1
    GRPC_UNREACHABLE = 2
    FORBIDDEN = 3
    UNREACHABLE = 4
    TIMEOUT = 5
    OTHER = 6


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """exc and the exceptions it was raised from (the client wraps gRPC and httpx errors)."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _status_kinds() -> dict[int, FailureKind]:
    """UnexpectedStatusCodeError.status_code: an HTTP status, or a gRPC code's number."""
    kinds = {
        401: FailureKind.CREDENTIALS,
        403: FailureKind.FORBIDDEN,
        502: FailureKind.UNREACHABLE,
        503: FailureKind.UNREACHABLE,
        504: FailureKind.TIMEOUT,
    }
    kinds.update({code.value[0]: kind for code, kind in _grpc_kinds().items()})
    return kinds


def _grpc_kinds() -> dict[Any, FailureKind]:
    """gRPC status codes that say more than "failed"."""
    import grpc

    return {
        grpc.StatusCode.UNAUTHENTICATED: FailureKind.CREDENTIALS,
        grpc.StatusCode.PERMISSION_DENIED: FailureKind.FORBIDDEN,
        grpc.StatusCode.UNAVAILABLE: FailureKind.UNREACHABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED: FailureKind.TIMEOUT,
    }


def _kind_of(link: BaseException) -> FailureKind:
    """One exception's kind, from its type, HTTP status or gRPC status code."""
    import grpc
    import httpx
    from weaviate import exceptions as wx

    if isinstance(link, wx.InsufficientPermissionsError):
        return FailureKind.FORBIDDEN
    if isinstance(link, wx.UnexpectedStatusCodeError):
        return _status_kinds().get(link.status_code, FailureKind.OTHER)
    if isinstance(link, wx.AuthenticationFailedError):
        return FailureKind.CREDENTIALS
    if isinstance(link, wx.WeaviateGRPCUnavailableError):
        return FailureKind.GRPC_UNREACHABLE
    if isinstance(link, grpc.RpcError) and callable(getattr(link, "code", None)):
        return _grpc_kinds().get(link.code(), FailureKind.OTHER)
    # Timeouts first: TimeoutError is an OSError and httpx's timeouts are transport errors.
    if isinstance(link, (wx.WeaviateTimeoutError, httpx.TimeoutException, TimeoutError)):
        return FailureKind.TIMEOUT
    if isinstance(
        link,
        (
            wx.WeaviateStartUpError,
            wx.WeaviateConnectionError,
            wx.WeaviateClosedClientError,
            httpx.TransportError,
            OSError,
        ),
    ):
        return FailureKind.UNREACHABLE
    return FailureKind.OTHER


def failure_kind(exc: BaseException) -> FailureKind:
    """The most telling kind of failure anywhere in the exception's chain."""
    return min(_kind_of(link) for link in _chain(exc))


def describe_failure(kind: FailureKind, url: str, endpoint: Endpoint, what: str, detail: str) -> str:
    """The operator's sentence for a failure of `what` (detail already masked)."""
    if kind is FailureKind.CREDENTIALS:
        return f"Weaviate at {url} rejected the credentials (401 Unauthorized): check {API_KEY_VARIABLE}"
    if kind is FailureKind.GRPC_UNREACHABLE:
        return (
            f"Weaviate at {url} answers on REST but not on gRPC at {endpoint.grpc_host}:{endpoint.grpc_port} "
            f"(set WEAVIATE_GRPC_URL if gRPC is elsewhere)"
        )
    if kind is FailureKind.FORBIDDEN:
        return f"Weaviate at {url} refused {what} (403 Forbidden): the API key lacks permissions"
    if kind is FailureKind.UNREACHABLE:
        return f"cannot reach Weaviate at {url} ({what}): {short(detail)}"
    if kind is FailureKind.TIMEOUT:
        return f"Weaviate at {url} timed out ({what}): {short(detail)}"
    return f"Weaviate at {url} failed ({what}): {short(detail)}"


# These kinds leave the client unusable (or its credentials wrong): reconnect next time.
_RECONNECT = {FailureKind.CREDENTIALS, FailureKind.GRPC_UNREACHABLE, FailureKind.UNREACHABLE}


def short(text: str, limit: int = 300) -> str:
    """`text` on one line, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CLIENT_MODULES = ("weaviate", "grpc", "httpx", "httpcore")


def _is_ours(exc: BaseException) -> bool:
    """Our own errors and plain bad-value errors: passed through as they are. (The client's
    errors that subclass ValueError still need translating.)"""
    if isinstance(exc, CourseRagError):
        return True
    return isinstance(exc, ValueError) and not type(exc).__module__.startswith(_CLIENT_MODULES)


# -- the connection ----------------------------------------------------------------------


class WeaviateConnection:
    """A weaviate-client v4 client, opened on first use and closed when a call fails badly.

    `prepare(client)` runs once per connection, before the first call (the store makes
    sure its collection exists there). Thread-safe: concurrent callers share one client.
    """

    def __init__(self, endpoint: Endpoint, timeout_s: float, prepare: Callable[[Any], None] = lambda client: None):
        self.endpoint = endpoint
        self.deadlines = Deadlines(float(timeout_s))
        self.server_version = ""
        self._prepare = prepare
        self._client: Any = None
        self._lock = threading.RLock()  # the client's lifecycle

    @property
    def url(self) -> str:
        return self.endpoint.display_url

    def run(self, what: str, fn: Callable[[Any], T], deadline: float) -> T:
        """fn(client) under a deadline; connecting first (under its own deadline) if needed."""
        with self._lock:
            client = self._client
        if client is None:
            client = self._call("connect", self._ensure_client, self.deadlines.connect)
        return self._call(what, lambda: fn(client), deadline)

    def close(self) -> None:
        """Close the client (ending any retry loop still running in its threads)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception as exc:  # noqa: BLE001 - closing a broken client is best effort
                logger.debug("closing the Weaviate client failed: %s", mask(str(exc)))

    def _connect(self) -> Any:
        import weaviate
        from weaviate.classes.init import AdditionalConfig, Auth, Timeout

        ep = self.endpoint
        timeout = self.deadlines.timeout
        api_key = secret(API_KEY_VARIABLE, required=False)
        config = AdditionalConfig(timeout=Timeout(init=timeout, query=timeout, insert=timeout * 3))
        auth = Auth.api_key(api_key) if api_key else None
        # skip_init_checks skips the client's PyPI version lookup (a call to pypi.org on
        # every connect); /v1/meta (which checks the API key) still runs, and we run the
        # gRPC health check ourselves below.
        if ep.cloud and api_key:
            client = weaviate.connect_to_weaviate_cloud(
                cluster_url=ep.http_host, auth_credentials=auth, additional_config=config, skip_init_checks=True
            )
        else:
            client = weaviate.connect_to_custom(
                http_host=ep.http_host,
                http_port=ep.http_port,
                http_secure=ep.http_secure,
                grpc_host=ep.grpc_host,
                grpc_port=ep.grpc_port,
                grpc_secure=ep.grpc_secure,
                auth_credentials=auth,
                additional_config=config,
                skip_init_checks=True,
            )
        try:
            connection = client._connection
            self.server_version = str(connection.server_version)
            # The client's own start-up gRPC health check (one call, no retries): a wrong
            # gRPC host or port fails here, clearly, instead of in a retrying query.
            ping = getattr(connection, "_ping_grpc", None)
            if ping is not None:
                ping("sync")
            self._prepare(client)
        except BaseException:
            client.close()
            raise
        logger.info("connected to Weaviate at %s", self.url)
        return client

    def _ensure_client(self) -> Any:
        with self._lock:
            if self._client is not None:
                return self._client
        # Connect without holding the lock, so that a caller whose deadline passed can
        # still drop the client instead of waiting for a hung connection attempt.
        client = self._connect()
        with self._lock:
            if self._client is None:
                self._client = client
                return client
            winner = self._client
        client.close()  # another thread connected first
        return winner

    def _call(self, what: str, fn: Callable[[], T], budget: float) -> T:
        """fn() in a daemon thread; past `budget` seconds the client is closed and we raise."""
        box: dict[str, Any] = {}
        done = threading.Event()

        def target() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=target, name=f"weaviate-{what}", daemon=True).start()
        if not done.wait(budget):
            self.close()
            raise StoreUnavailableError(
                f"Weaviate at {self.url} did not answer within {budget:.0f} s ({what}): it is down, unreachable or overloaded"
            ) from DeadlineExceeded(what)
        if "error" in box:
            raise self._translate(box["error"], what)
        return box["value"]

    def _translate(self, exc: BaseException, what: str) -> BaseException:
        """Any failure of the client as a StoreUnavailableError naming the URL, never the key."""
        if _is_ours(exc):
            return exc
        kind = failure_kind(exc)
        if kind in _RECONNECT:
            self.close()
        error = StoreUnavailableError(describe_failure(kind, self.url, self.endpoint, what, mask(str(exc))))
        error.__cause__ = None if _shows_key(exc) else exc
        error.__suppress_context__ = True
        return error
