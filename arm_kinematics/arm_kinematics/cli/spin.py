"""What the action clients share: Ctrl-C as a flag, spinning until a condition holds, and
the node they run on (`client_node`).

No ROS import at module level (a client's --help needs no ROS environment): `client_node`
imports rclpy when it is called.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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


@contextmanager
def client_node(program: str, namespace: str, argv: Sequence[str]) -> Iterator[tuple[Any, Spinner]]:
    """An rclpy node `<program>_<pid>` in `namespace` (absolute) on its own executor, and the
    Spinner for it. Ctrl-C and SIGTERM only set the Spinner's flag, which the client checks
    between spins: they must neither shut the context down before a cancel request has gone
    out nor interrupt rclpy mid-call. On the way out the node's action clients and the node are
    destroyed before the context, so that a server hears the client leave at once, and the
    previous signal handlers are put back."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.node import Node
    from rclpy.signals import SignalHandlerOptions

    from arm_kinematics.rclpy_compat.action_client import destroy_actions

    interrupted = threading.Event()
    previous_handlers = catch_interrupts(interrupted)
    rclpy.init(args=list(argv), signal_handler_options=SignalHandlerOptions.NO)
    executor = SingleThreadedExecutor()
    node = None
    try:
        node = Node(f"{program}_{os.getpid()}", namespace=namespace)
        executor.add_node(node)
        yield node, Spinner(executor, interrupted)
    finally:
        executor.shutdown()
        if node is not None:
            destroy_actions(node)
            node.destroy_node()
        rclpy.try_shutdown()
        restore_handlers(previous_handlers)
