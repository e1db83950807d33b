"""Ctrl-C and SIGTERM as one stop request, caught from a node process's first line.

Importing rclpy, the messages and aiohttp takes a second or more on a loaded machine. A Ctrl-C
in that time (`ros2 launch` stopped just after it started) would end the process with a
KeyboardInterrupt traceback (exit code -2), and SIGTERM would kill it. The console scripts
(`entry.py`) catch both before those imports, and `run_nodes` reads the same request: a process
stopped while it starts exits 0 without starting its nodes. Standard library only.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_stop = threading.Event()


def catch_stop_signals() -> tuple[threading.Event, Callable[[], None]]:
    """Make SIGINT and SIGTERM set the process's stop request; (the request, a function that
    puts the previous handlers back). Call it from the main thread."""
    previous: dict[int, Any] = {
        signum: signal.signal(signum, lambda *_: _stop.set()) for signum in STOP_SIGNALS
    }

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return _stop, restore
