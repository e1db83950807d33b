"""Who may talk to web_bridge: its settings, the HTTP `Host` check and the WebSocket `Origin` check.

- DNS rebinding: a page on `evil.example` whose name is made to resolve to 127.0.0.1 reaches
  our port, but its requests carry `Host: evil.example:8080`. Only the bound address and
  `localhost` (with the port), plus names given in `allowed_hosts`, are served.
- Cross-site WebSocket: any page in the user's browser may open `ws://127.0.0.1:8080/ws`;
  the browser then sends that page's `Origin`. Only our own origin (`http://<allowed host>`)
  is accepted. A handshake without `Origin` comes from a program, not a browser page
  (roslibpy, a script), and is accepted: it could connect to the port anyway.

>>> hosts = allowed_hosts("127.0.0.1", 8080)
>>> host_allowed("localhost:8080", hosts), host_allowed("evil.example:8080", hosts)
(True, False)
>>> origin_allowed("http://127.0.0.1:8080", hosts), origin_allowed("http://evil.example", hosts)
(True, False)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("localhost",)


@dataclass(frozen=True)
class BridgeSettings:
    """web_bridge's parameters, validated (see `validate`)."""

    host: str = "127.0.0.1"
    port: int = 8080
    web_root: str = ""  # "" = the installed share/arm_kinematics/web
    allowed_hosts: tuple[str, ...] = ()
    max_connections: int = 8
    max_message_bytes: int = 262_144
    rate_limit_per_s: float = 500.0
    rate_limit_burst: int = 500
    service_timeout_s: float = 5.0

    def validate(self) -> None:
        """Raise ValueError naming the first invalid parameter and its value."""

        def bad(name: str, why: str) -> ValueError:
            return ValueError(f"parameter '{name}' = {getattr(self, name)!r}: {why}")

        if self.host not in LOOPBACK_NAMES:
            try:
                ipaddress.ip_address(self.host)
            except ValueError:
                raise bad("host", "must be an IP address (or localhost)") from None
        if not 0 <= self.port <= 65535:
            raise bad("port", "must be 0 (any free port) .. 65535")
        for name in self.allowed_hosts:
            if not name or any(c in name for c in "/:@ ") or name != name.lower():
                raise bad("allowed_hosts", f"{name!r} is not a lower-case host name")
        if self.max_connections < 1:
            raise bad("max_connections", "must be >= 1")
        if self.max_message_bytes < 1024:
            raise bad("max_message_bytes", "must be >= 1024")
        if not self.rate_limit_per_s > 0:
            raise bad("rate_limit_per_s", "must be > 0 messages per second")
        if self.rate_limit_burst < 1:
            raise bad("rate_limit_burst", "must be >= 1")
        if not self.service_timeout_s > 0:
            raise bad("service_timeout_s", "must be > 0 seconds")

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host in LOOPBACK_NAMES:
        return True
    return ipaddress.ip_address(host).is_loopback


def _netloc(host: str, port: int) -> str:
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{host}:{port}"


def allowed_hosts(bind_host: str, port: int, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """Every `Host` header value we serve: the bound address, localhost and `extra`, with port.

    A wildcard bind (0.0.0.0) adds 127.0.0.1, not the machine's other addresses or names:
    those go in `extra` (the `allowed_hosts` parameter), e.g. ("armpi", "192.168.1.20").

    Port 80 is also accepted without the port, as browsers then leave it out.
    """
    names = {bind_host, *LOOPBACK_NAMES, *extra}
    if is_loopback(bind_host) or ipaddress.ip_address(bind_host).is_unspecified:
        names |= {"127.0.0.1"}  # 0.0.0.0 listens on loopback too
    netlocs = {_netloc(name, port) for name in names}
    if port == 80:
        netlocs |= {f"[{n}]" if ":" in n else n for n in names}
    return frozenset(n.lower() for n in netlocs)


def host_allowed(host_header: str | None, hosts: frozenset[str]) -> bool:
    return host_header is not None and host_header.strip().lower() in hosts


def origin_allowed(origin: str | None, hosts: frozenset[str]) -> bool:
    """Our own origin, or none at all (a program, not a browser page); never `null`."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip())
    return parts.scheme == "http" and not parts.path.strip("/") and parts.netloc.lower() in hosts
