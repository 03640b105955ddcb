"""Where the Weaviate store connects: WEAVIATE_URL and WEAVIATE_GRPC_URL as hosts and ports.

weaviate-client v4 talks REST (schema, meta) and gRPC (search, batch, aggregate), so a URL
alone is not enough: a self-hosted server serves gRPC on port 50051 of the same host, and
Weaviate Cloud on `grpc-<cluster host>:443`. Parsing is pure, so a bad value fails at
construction with the value in the message, long before anything connects.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from courserag.errors import ConfigError

CLOUD_SUFFIXES = (".weaviate.cloud", ".weaviate.network", ".weaviate.io")
DEFAULT_GRPC_PORT = 50051


@dataclass(frozen=True)
class Endpoint:
    """Where the store connects: the REST URL as shown to people, and both host/ports."""

    display_url: str
    http_host: str
    http_port: int
    http_secure: bool
    grpc_host: str
    grpc_port: int
    grpc_secure: bool
    cloud: bool


def parse_endpoint(url: str, grpc_url: str | None = None) -> Endpoint:
    """WEAVIATE_URL (and WEAVIATE_GRPC_URL) as hosts and ports; ConfigError names a bad value."""
    raw = url.strip()
    parts = urlsplit(raw if "://" in raw else f"https://{raw}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"WEAVIATE_URL must be an http(s) URL such as http://localhost:8080, but got {url!r}")
    secure = parts.scheme == "https"
    try:
        port = parts.port or (443 if secure else 80)
    except ValueError as exc:
        raise ConfigError(f"WEAVIATE_URL has an invalid port: {url!r}") from exc
    host = parts.hostname
    cloud = secure and host.endswith(CLOUD_SUFFIXES)
    display = f"{parts.scheme}://{host}" + ("" if parts.port is None else f":{parts.port}")
    if grpc_url:
        grpc_host, grpc_port, grpc_secure = _parse_grpc(grpc_url, secure)
    elif cloud:
        # Weaviate Cloud serves gRPC on grpc-<cluster host>:443 (as connect_to_weaviate_cloud does).
        grpc_host, grpc_port, grpc_secure = f"grpc-{host}", 443, True
    else:
        grpc_host, grpc_port, grpc_secure = host, DEFAULT_GRPC_PORT, secure
    return Endpoint(display, host, port, secure, grpc_host, grpc_port, grpc_secure, cloud)


def _parse_grpc(grpc_url: str, http_secure: bool) -> tuple[str, int, bool]:
    """WEAVIATE_GRPC_URL (host:port, or with a scheme) as (host, port, secure)."""
    raw = grpc_url.strip()
    parts = urlsplit(raw if "://" in raw else f"//{raw}")
    if parts.scheme not in ("", "http", "https", "grpc", "grpcs") or not parts.hostname:
        raise ConfigError(f"WEAVIATE_GRPC_URL must look like host:port or grpc://host:port, but got {grpc_url!r}")
    # Without a scheme, gRPC is as secure as REST.
    secure = parts.scheme in ("https", "grpcs") or (parts.scheme == "" and http_secure)
    try:
        port = parts.port or (443 if secure else DEFAULT_GRPC_PORT)
    except ValueError as exc:
        raise ConfigError(f"WEAVIATE_GRPC_URL has an invalid port: {grpc_url!r}") from exc
    return parts.hostname, port, secure
