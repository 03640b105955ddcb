"""Who a request comes from, as every throttle and fair queue counts it, and a per-client counter.

A client is the socket's peer. Only when that peer is a configured trusted proxy
(`TRUSTED_PROXIES`, on a Space its private network) is the proxy's header believed
(`CLIENT_IP_HEADER`, `X-Forwarded-For` by default): the client is then the last address in it
that is not itself a trusted proxy, i.e. the one the outermost trusted proxy saw. Entries to the
left of it were written by the client and are never read. Before this, the last
`X-Forwarded-For` entry was believed from anyone: rotating it gave 200 of 200 token guesses,
and sending `X-Forwarded-For: 127.0.0.1` locked the real local instructor out.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from courserag.errors import ConfigError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class ClientPolicy:
    """Which peers are proxies whose `header` names the client."""

    trusted: tuple[Network, ...] = ()
    header: str = "x-forwarded-for"

    @classmethod
    def of(cls, proxies: Iterable[str], header: str = "x-forwarded-for") -> "ClientPolicy":
        networks = []
        for entry in proxies:
            try:
                networks.append(ipaddress.ip_network(entry.strip(), strict=False))
            except ValueError:
                raise ConfigError(f"TRUSTED_PROXIES must list addresses or CIDR ranges, but got {entry!r}") from None
        return cls(tuple(networks), (header or "x-forwarded-for").strip().lower())

    @classmethod
    def from_settings(cls, settings) -> "ClientPolicy":
        return cls.of(settings.server.trusted_proxies, settings.server.client_header)

    def is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.strip().strip("[]"))
        except ValueError:
            return False
        return any(ip.version == net.version and ip in net for net in self.trusted)


def client_of(peer: str | None, header_value: str | None, policy: ClientPolicy) -> str:
    """The client of a request from `peer` that carried `header_value` in the policy's header."""
    peer = str(peer or "?")
    if not header_value or not policy.is_trusted(peer):
        return peer
    for entry in reversed([part.strip() for part in header_value.split(",")]):
        if not entry:
            return peer  # an empty hop: the chain cannot be read past it
        if not policy.is_trusted(entry):
            return entry
    return peer


def scope_client(scope: Mapping, policy: ClientPolicy) -> str:
    """`client_of` for an ASGI scope."""
    peer = scope.get("client")
    name = policy.header.encode("latin-1")
    values = [v.decode("latin-1") for n, v in scope.get("headers", []) if n.lower() == name]
    return client_of(str(peer[0]) if peer else None, ",".join(values) or None, policy)


def request_client(request, policy: ClientPolicy) -> str:
    """`client_of` for a Gradio handler's `gr.Request` (None outside a request: '?')."""
    peer = getattr(getattr(request, "client", None), "host", None)
    headers = getattr(request, "headers", None)
    value = headers.get(policy.header) if headers is not None and hasattr(headers, "get") else None
    return client_of(peer, value, policy)


class PerClientLimit:
    """At most `limit` events per client in `window_s`; the oldest clients are forgotten past 10,000."""

    def __init__(self, limit: int, window_s: float = 600.0, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._times: OrderedDict[str, deque] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, client: str) -> bool:
        """Count one event of `client`; False (and not counted) when it is over its limit."""
        now = self._clock()
        with self._lock:
            times = self._times.setdefault(client, deque())
            self._times.move_to_end(client)
            while times and now - times[0] > self.window_s:
                times.popleft()
            if len(times) >= self.limit:
                return False
            times.append(now)
            while len(self._times) > 10000:
                self._times.popitem(last=False)
            return True
