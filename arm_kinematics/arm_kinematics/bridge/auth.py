"""The token of web_bridge on a network address: where it comes from, how a client shows it, and
what a wrong one costs.

A bind to anything but loopback (or `require_token:=true`, behind a proxy) serves nobody
without the token, one connecting through 127.0.0.1 included. The token is generated at start
(`secrets`, 256 bits) or read from `token_file`, a file only its owner may read. A client shows
it in one of three ways, the first found counts:

- `Authorization: Bearer <token>`: programs (roslibpy's `headers=`, a script);
- `?token=<token>` in the URL: the URL web_bridge prints, opened once in a browser (the answer
  sets the cookie and redirects to the same URL without the token, so that it stays out of the
  address bar and the history), or a program's WebSocket URL (`ws://host:port/ws?token=...`);
- the cookie `arm_token_<port>` (HttpOnly, SameSite=Strict, Path=/) that the browser then sends
  with every request of the page, its WebSocket included. The port is in its name: cookies
  are per host, not per port, and two arms on one machine must not overwrite each other's.

Tokens are compared with `hmac.compare_digest`. A peer address that sends wrong tokens gets
`WRONG_TOKEN_BURST` tries, then one every 1 / `WRONG_TOKEN_RATE_PER_S` seconds: beyond that
every request of it that carries a token is answered 429 without being compared.

>>> token = generate_token()
>>> len(token), token_matches(token, token), token_matches("guess", token)
(43, True, False)
>>> presented_token({"Authorization": "Bearer abc"}, {}, {}, "arm_token_8080")
'abc'
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from arm_kinematics.bridge.ratelimit import TokenBucket

TOKEN_QUERY = "token"
MIN_TOKEN_FILE_CHARACTERS = 16
WRONG_TOKEN_BURST = 10
WRONG_TOKEN_RATE_PER_S = 0.5
MAX_TRACKED_PEERS = 1024  # per-peer buckets kept at most (the oldest full ones go first)


class TokenFileError(ValueError):
    """`token_file` cannot be used; the text says why and what to do."""


def cookie_name(port: int) -> str:
    """The page's cookie on this port.

    >>> cookie_name(8080)
    'arm_token_8080'
    """
    return f"arm_token_{port}"


def generate_token() -> str:
    """A new random token, URL-safe (43 characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def read_token_file(path: str | Path) -> str:
    """The token in `path` (surrounding whitespace stripped); TokenFileError if the file is
    missing, not a regular file, readable or writable by group or others, empty, shorter than
    MIN_TOKEN_FILE_CHARACTERS, or holds a character that cannot go in a URL or a cookie."""
    path = Path(path).expanduser()
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise TokenFileError(f"token_file '{path}': {error.strerror}") from None
    if not stat.S_ISREG(mode):
        raise TokenFileError(f"token_file '{path}': not a regular file")
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenFileError(
            f"token_file '{path}': mode {stat.S_IMODE(mode):04o} lets group or others read or "
            f"write it; only its owner may (chmod 600 '{path}')"
        )
    if path.stat().st_uid != os.geteuid():
        raise TokenFileError(f"token_file '{path}': not owned by the user running web_bridge")
    try:
        token = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise TokenFileError(f"token_file '{path}': cannot read it as ASCII ({error})") from None
    if not token:
        raise TokenFileError(f"token_file '{path}': empty")
    if len(token) < MIN_TOKEN_FILE_CHARACTERS:
        raise TokenFileError(
            f"token_file '{path}': {len(token)} characters, at least "
            f"{MIN_TOKEN_FILE_CHARACTERS} needed (e.g. python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))')"
        )
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    if not set(token) <= allowed:
        raise TokenFileError(
            f"token_file '{path}': only letters, digits and - . _ ~ may be in the token"
        )
    return token


def presented_token(
    headers: Mapping[str, str],
    query: Mapping[str, str],
    cookies: Mapping[str, str],
    cookie: str,
) -> str | None:
    """The token a request shows: its Bearer header, else its `?token=`, else its cookie."""
    authorization = headers.get("Authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return query.get(TOKEN_QUERY) or cookies.get(cookie) or None


def token_matches(presented: str, token: str) -> bool:
    """Constant-time comparison (its time does not tell how much of a guess was right)."""
    return hmac.compare_digest(presented.encode(), token.encode())


class WrongTokenLimiter:
    """Per peer address: may it try a token now? Only wrong tokens take from its bucket.

    >>> limiter = WrongTokenLimiter(burst=2, rate_per_s=0.5, clock=lambda: 0.0)
    >>> for _ in range(3):
    ...     limiter.wrong("10.0.0.9")
    >>> limiter.may_try("10.0.0.9"), limiter.may_try("10.0.0.8")
    (False, True)
    """

    def __init__(
        self,
        burst: int = WRONG_TOKEN_BURST,
        rate_per_s: float = WRONG_TOKEN_RATE_PER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._burst = burst
        self._rate_per_s = rate_per_s
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def may_try(self, peer: str) -> bool:
        bucket = self._buckets.get(peer)
        return bucket is None or bucket.available() >= 1.0

    def wrong(self, peer: str) -> None:
        bucket = self._buckets.get(peer)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED_PEERS:
                self._forget_one()
            bucket = self._buckets[peer] = TokenBucket(self._rate_per_s, self._burst, self._clock)
        bucket.take()

    def _forget_one(self) -> None:
        """Drop a peer whose bucket has filled up again, else the oldest one."""
        for peer, bucket in self._buckets.items():
            if bucket.available() >= self._burst:
                del self._buckets[peer]
                return
        del self._buckets[next(iter(self._buckets))]


class RefusalLog:
    """Log lines for refused requests, at most one per peer and kind every `interval_s`, each
    saying how many were refused since the last one (the first is logged at once).

    `note` returns the line to log now, or None; `flush` returns the lines of the counts held
    back whose interval is over (call it at the end of an interval).

    >>> now = [0.0]
    >>> log = RefusalLog(interval_s=5.0, clock=lambda: now[0])
    >>> log.note("10.0.0.9", "a wrong token")
    'refused a request with a wrong token from 10.0.0.9'
    >>> [log.note("10.0.0.9", "a wrong token") for _ in range(3)]
    [None, None, None]
    >>> now[0] = 5.0
    >>> log.flush()
    ['refused 3 more requests with a wrong token from 10.0.0.9 in the last 5 s']
    """

    def __init__(self, interval_s: float = 5.0, clock: Callable[[], float] = time.monotonic):
        self.interval_s = interval_s
        self._clock = clock
        self._last_line: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], int] = {}

    def note(self, peer: str, what: str) -> str | None:
        key = (peer, what)
        now = self._clock()
        if len(self._last_line) >= MAX_TRACKED_PEERS:
            self._forget_quiet(now)
        last = self._last_line.get(key)
        if last is None or now - last >= self.interval_s:
            held = self._held.pop(key, 0)
            self._last_line[key] = now
            if held:
                return self._held_line(key, held + 1)
            return f"refused a request with {what} from {peer}"
        self._held[key] = self._held.get(key, 0) + 1
        return None

    def flush(self) -> list[str]:
        now = self._clock()
        lines = []
        for key, held in list(self._held.items()):
            if now - self._last_line[key] >= self.interval_s:
                del self._held[key]
                self._last_line[key] = now
                lines.append(self._held_line(key, held))
        return lines

    def _forget_quiet(self, now: float) -> None:
        """Drop what nothing is held for and is older than an interval (bounded memory)."""
        for key, last in list(self._last_line.items()):
            if key not in self._held and now - last >= self.interval_s:
                del self._last_line[key]

    def holding(self) -> bool:
        """Whether counts wait for a later `flush`."""
        return bool(self._held)

    def _held_line(self, key: tuple[str, str], count: int) -> str:
        peer, what = key
        return (
            f"refused {count} more requests with {what} from {peer} in the last "
            f"{self.interval_s:g} s"
        )
