"""Process entry points shared by the nodes: init, spin, clean exit on Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from arm_kinematics.nodes.params import ParameterStartupError

_STOP_POLL_S = 0.1  # longest delay between Ctrl-C and the start of the shutdown


def run_nodes(factories: Sequence[Callable[[], Node]], args: list[str] | None = None) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shutdown; exit code.

    A multi-threaded executor so that a slow request (or a running action) never blocks the
    others; each node puts its callbacks in the callback groups it needs. SIGTERM is handled
    like Ctrl-C so that `kill` and process managers get the same clean shutdown.
    """
    # rclpy's own SIGINT handler shuts the context down at once: a node's close() could then no
    # longer end a running goal (its execute callback failed on the invalid publishers with a
    # traceback) nor log. So Ctrl-C and SIGTERM only ask the spin loop to stop; the nodes are
    # closed while ROS still works, and the context is shut down last.
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    nodes: list[Node] = []
    executor = MultiThreadedExecutor()
    try:
        for factory in factories:
            nodes.append(factory())
            if stop.is_set():
                return 0
        for node in nodes:
            executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            # Back to Python at least every _STOP_POLL_S, where the signal handlers run.
            executor.spin_once(timeout_sec=_STOP_POLL_S)
    except ParameterStartupError as error:
        return int(error.code)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # Keep serving callbacks while the nodes close, so that e.g. a goal canceled by close()
        # still sends its result; the nodes close in reverse order of creation.
        closer = threading.Thread(target=_close_nodes, args=(list(reversed(nodes)),))
        closer.start()
        while closer.is_alive():
            with contextlib.suppress(Exception):
                executor.spin_once(timeout_sec=_STOP_POLL_S)
        _wait_for_callbacks_in_flight(executor)
        for node in reversed(nodes):
            node.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def _wait_for_callbacks_in_flight(executor: MultiThreadedExecutor) -> None:
    """Let the callbacks already handed to the executor's thread pool finish.

    rclpy 7.1's Executor.shutdown() marks itself shut down before it checks whether to wait, so
    it never waits; a callback still running then triggers the executor's destroyed guard
    condition and Python prints "exception was never retrieved: cannot use Destroyable". No
    spin_once runs any more at this point, so nothing new is submitted to the pool.
    """
    pool = getattr(executor, "_executor", None)
    if isinstance(pool, ThreadPoolExecutor):
        pool.shutdown(wait=True)


def _close_nodes(nodes: Sequence[Node]) -> None:
    for node in nodes:
        close = getattr(node, "close", None)
        if close is None:
            continue
        try:
            close()  # e.g. release servos, cancel goals
        except Exception as error:  # one node failing to close must not skip the others
            node.get_logger().error(f"close() failed: {error!r}")


def run_node(factory: Callable[[], Node], args: list[str] | None = None) -> int:
    """`run_nodes` for a single node."""
    return run_nodes([factory], args)
