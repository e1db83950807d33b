"""A token bucket: the per-connection message rate limit of web_bridge.

>>> bucket = TokenBucket(rate_per_s=10.0, burst=2, clock=lambda: 0.0)
>>> [bucket.take() for _ in range(3)]
[True, True, False]
"""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """`burst` messages at once, then `rate_per_s` on average; `take()` says if one may pass."""

    def __init__(
        self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if rate_per_s <= 0 or burst < 1:
            raise ValueError(f"rate_per_s must be > 0 and burst >= 1, got {rate_per_s}, {burst}")
        self.rate_per_s = rate_per_s
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._last = clock()

    def available(self) -> float:
        """The messages that may pass now (a fraction of one: not yet)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate_per_s)
        self._last = now
        return self._tokens

    def take(self) -> bool:
        if self.available() >= 1.0:
            self._tokens -= 1.0
            return True
        return False
