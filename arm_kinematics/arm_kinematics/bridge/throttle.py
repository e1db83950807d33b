"""rosbridge's `throttle_rate` and `queue_length` for one client subscription, on an asyncio loop.

- `throttle_rate` (ms): at least this long between two messages sent to the client.
- `queue_length` 0 (the default): a message arriving within the throttle window is dropped,
  as rosbridge drops it. `queue_length` N > 0: messages wait in a queue of N, sent from its head
  one per window; when it is full the oldest is dropped for the newest.

Every method runs on the loop's thread; `offer` is handed over with `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable


class Throttle:
    def __init__(
        self,
        send: Callable[[str], None],
        throttle_rate_ms: int,
        queue_length: int,
        loop: asyncio.AbstractEventLoop,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send = send
        self._period_s = throttle_rate_ms / 1000.0
        self._queue: deque[str] | None = deque(maxlen=queue_length) if queue_length else None
        self._loop = loop
        self._clock = clock
        self._last_sent: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self.sent = 0
        self.dropped = 0

    def _wait_s(self) -> float:
        if self._last_sent is None:
            return 0.0
        return max(0.0, self._last_sent + self._period_s - self._clock())

    def _emit(self, text: str) -> None:
        self._last_sent = self._clock()
        self.sent += 1
        self._send(text)

    def offer(self, text: str) -> None:
        """A new message for this subscription (on the loop thread)."""
        if self._queue is None:
            if self._wait_s() > 0.0:
                self.dropped += 1
                return
            self._emit(text)
            return
        if len(self._queue) == self._queue.maxlen:
            self.dropped += 1
        self._queue.append(text)
        if self._timer is None:
            self._schedule()

    def _schedule(self) -> None:
        self._timer = self._loop.call_later(self._wait_s(), self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self._queue:
            self._emit(self._queue.popleft())
        if self._queue:
            self._schedule()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._queue is not None:
            self._queue.clear()
