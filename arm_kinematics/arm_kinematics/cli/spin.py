"""What the action clients share: Ctrl-C as a flag, and spinning until a condition holds.

No ROS import: the executor is handed in.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any


def catch_interrupts(flag: threading.Event) -> dict[int, Any]:
    """SIGINT/SIGTERM set `flag` (a second Ctrl-C exits at once); the previous handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def handler(signum: int, _frame: Any) -> None:
        if flag.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        flag.set()

    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, handler)
    return previous


def restore_handlers(previous: dict[int, Any]) -> None:
    """Put back the handlers `catch_interrupts` replaced."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)


class Spinner:
    """Spins an executor until a condition holds, a timeout passes or Ctrl-C is pressed."""

    def __init__(self, executor: Any, interrupted: threading.Event) -> None:
        self.executor = executor
        self.interrupted = interrupted

    def until(self, predicate: Any, timeout: float | None, *, interruptible: bool = True) -> bool:
        """True once `predicate()` holds; False on timeout or (if interruptible) Ctrl-C."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not predicate():
            if interruptible and self.interrupted.is_set():
                return False
            if deadline is not None and time.monotonic() >= deadline:
                return False
            self.executor.spin_once(timeout_sec=0.05)
        return True
