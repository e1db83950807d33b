"""Time that moves only when a test says so, for code that takes its clock as a parameter.

`ManualLoop` stands in for the asyncio loop of code that only schedules with `call_later` and
reads `time()` (the bridge's `Throttle`): `advance_to(t)` runs the callbacks that fall due by
`t`, in time order, each at its own time, so a test of rates and windows never sleeps and never
depends on how loaded the machine is:

    loop = ManualLoop()
    throttle = Throttle(sent.append, 100, 2, loop, clock=loop.time)
    throttle.offer("a")
    loop.advance_to(0.25)   # whatever was due by 0.25 s has run, each at its time
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any


class ManualHandle:
    """What `call_later` returns: `cancel()` keeps the callback from running."""

    def __init__(self, callback: Callable[..., Any], args: tuple) -> None:
        self.callback, self.args = callback, args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualLoop:
    """`time()` and `call_later` of an asyncio loop, with time moved by `advance_to` only."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._due: list[tuple[float, int, ManualHandle]] = []  # a heap by time, then order
        self._order = itertools.count()

    def time(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[..., Any], *args: Any) -> ManualHandle:
        handle = ManualHandle(callback, args)
        heapq.heappush(self._due, (self._now + max(0.0, delay), next(self._order), handle))
        return handle

    def advance_to(self, when: float) -> None:
        """Move the time to `when` (s), running every callback due by then at its time."""
        while self._due and self._due[0][0] <= when:
            at, _, handle = heapq.heappop(self._due)
            self._now = max(self._now, at)
            if not handle.cancelled:
                handle.callback(*handle.args)
        self._now = max(self._now, when)
