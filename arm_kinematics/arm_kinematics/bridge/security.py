"""Who may talk to web_bridge: its settings, the HTTP `Host` check and the WebSocket `Origin` check.

- DNS rebinding: a page on `evil.example` whose name is made to resolve to 127.0.0.1 reaches
  our port, but its requests carry `Host: evil.example:8080`. Only the bound address and
  `localhost` (with the port), plus names given in `allowed_hosts`, are served.
- Cross-site WebSocket: any page in the user's browser may open `ws://127.0.0.1:8080/ws`;
  the browser then sends that page's `Origin`. Only our own origin (`http://<allowed host>`,
  or `https://<allowed_hosts name>` through a TLS proxy) is accepted, on the handshake and on
  any request that carries an `Origin`. A request without `Origin` comes from a program, not
  a browser page (roslibpy, a script), and is accepted: it could connect to the port anyway.
- On a network address every client needs the token as well (bridge/auth.py).

>>> hosts = allowed_hosts("127.0.0.1", 8080)
>>> host_allowed("localhost:8080", hosts), host_allowed("evil.example:8080", hosts)
(True, False)
>>> origin_allowed("http://127.0.0.1:8080", hosts), origin_allowed("http://evil.example", hosts)
(True, False)
>>> lan = allowed_hosts("0.0.0.0", 8080, ("armpi",), local_addresses=("192.168.1.20",))
>>> host_allowed("192.168.1.20:8080", lan), host_allowed("armpi", lan)  # armpi: via a proxy
(True, True)
>>> tls = proxy_hosts(("armpi",), 8080)
>>> origin_allowed("https://armpi", lan, tls), origin_allowed("https://192.168.1.20:8080", lan, tls)
(True, False)
"""

from __future__ import annotations

import ipaddress
import socket
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
    require_token: bool = False  # a non-loopback host requires it anyway
    token_file: str = ""  # "" = a token generated at start

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
        if self.token_file and not self.token_required:
            raise bad(
                "token_file",
                "is used only when a token is required (a non-loopback host, or "
                "require_token:=true)",
            )

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def token_required(self) -> bool:
        """Every client must show the token: on any network address, or when asked."""
        return self.require_token or not self.loopback


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


def allowed_hosts(
    bind_host: str,
    port: int,
    extra: tuple[str, ...] = (),
    local_addresses: tuple[str, ...] = (),
) -> frozenset[str]:
    """Every `Host` header value we serve: the bound address, localhost and `extra`, with port.

    A wildcard bind (0.0.0.0 or ::) adds 127.0.0.1 and `local_addresses`, the machine's own
    addresses (`machine_addresses()` at start-up), not its names: those go in `extra` (the
    `allowed_hosts` parameter), e.g. ("armpi", "armpi.local").

    Port 80 is also accepted without the port, as browsers then leave it out, and so are the
    `extra` names on any port: a reverse proxy on 80 or 443 forwards them without one.
    """
    names = {bind_host, *LOOPBACK_NAMES, *extra}
    if is_loopback(bind_host) or ipaddress.ip_address(bind_host).is_unspecified:
        names |= {"127.0.0.1"}  # 0.0.0.0 listens on loopback too
    if not is_loopback(bind_host) and ipaddress.ip_address(bind_host).is_unspecified:
        names |= set(local_addresses)
    netlocs = {_netloc(name, port) for name in names}
    bare = names if port == 80 else set(extra)
    netlocs |= {f"[{n}]" if ":" in n else n for n in bare}
    return frozenset(n.lower() for n in netlocs)


def machine_addresses() -> tuple[str, ...]:
    """The addresses of this machine's network interfaces (IPv4 and IPv6, link-local
    ones without their zone), as psutil reads them."""
    import psutil

    found = []
    for entries in psutil.net_if_addrs().values():
        for entry in entries:
            if entry.family in (socket.AF_INET, socket.AF_INET6):
                found.append(entry.address.split("%")[0])
    return tuple(dict.fromkeys(found))


def lan_address(bind_host: str, local_addresses: tuple[str, ...]) -> str:
    """The address to print in the page's URL: the bound one, or for a wildcard bind the
    first non-loopback, non-link-local IPv4 address of the machine (else 127.0.0.1).

    >>> lan_address("0.0.0.0", ("127.0.0.1", "169.254.3.1", "192.168.1.20"))
    '192.168.1.20'
    >>> lan_address("10.0.0.5", ()), lan_address("0.0.0.0", ("127.0.0.1",))
    ('10.0.0.5', '127.0.0.1')
    """
    if bind_host in LOOPBACK_NAMES or not ipaddress.ip_address(bind_host).is_unspecified:
        return "127.0.0.1" if bind_host in LOOPBACK_NAMES else bind_host
    for address in local_addresses:
        parsed = ipaddress.ip_address(address)
        if parsed.version == 4 and not (parsed.is_loopback or parsed.is_link_local):
            return address
    return "127.0.0.1"


def proxy_hosts(extra: tuple[str, ...], port: int) -> frozenset[str]:
    """The `allowed_hosts` names with and without the port: the hosts of an `https://` origin
    (a TLS reverse proxy in front of the bridge, on 443 or the bridge's port)."""
    return frozenset({n.lower() for n in extra} | {_netloc(n, port).lower() for n in extra})


def host_allowed(host_header: str | None, hosts: frozenset[str]) -> bool:
    return host_header is not None and host_header.strip().lower() in hosts


def origin_allowed(
    origin: str | None, hosts: frozenset[str], tls_hosts: frozenset[str] = frozenset()
) -> bool:
    """Our own origin: `http://` one of `hosts`, or `https://` one of `tls_hosts` (through a
    TLS proxy, `proxy_hosts`); or none at all (a program, not a browser page); never `null`."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip())
    if parts.path.strip("/"):
        return False
    netloc = parts.netloc.lower()
    return (parts.scheme == "http" and netloc in hosts) or (
        parts.scheme == "https" and netloc in tls_hosts
    )
