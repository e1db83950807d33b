"""Process entry points shared by the nodes: init, spin, clean exit on Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Callable, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from arm_kinematics.rclpy_compat.executor import WorkerBoundExecutor

_STOP_POLL_S = 0.1  # longest delay between Ctrl-C and the start of the shutdown
_SHUTDOWN_TIMEOUT_S = 5.0  # longest wait for callbacks still running after the nodes closed

#: Python hands the GIL to a waiting thread after this long (5 ms by default). A timer or the
#: setpoint stream wakes on time while other threads run callbacks; 1 ms keeps it late by at
#: most about that much. Measured in bench_trajectory (bringup): setpoint jitter p99 0.07-0.34
#: ms and max 0.24-1.2 ms at 1 ms, against p99 0.33-0.48 ms and max 0.68-3.3 ms at 5 ms.
GIL_SWITCH_INTERVAL_S = 0.001


class NodeStartupError(SystemExit):
    """A node cannot start; it has logged why in one line. `run_nodes` returns `exit_code`."""

    exit_code = 1

    def __init__(self) -> None:
        super().__init__(self.exit_code)


def run_nodes(factories: Sequence[Callable[[], Node]], args: list[str] | None = None) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shutdown; exit code.

    A multi-threaded executor (rclpy_compat/executor.py) so that a slow request (or a running
    action) never blocks the others; each node puts its callbacks in the callback groups it
    needs.
    SIGTERM is handled like Ctrl-C so that `kill` and process managers get the same clean shutdown.
    """
    # rclpy's own SIGINT handler shuts the context down at once: a node's close() could then no
    # longer end a running goal (its execute callback failed on the invalid publishers with a
    # traceback) nor log. So Ctrl-C and SIGTERM only ask the spin loop to stop; the nodes are
    # closed while ROS still works, and the context is shut down last.
    sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_INTERVAL_S))
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    nodes: list[Node] = []
    executor = WorkerBoundExecutor()
    try:
        for factory in factories:
            nodes.append(factory())
            if stop.is_set():
                return 0
        for node in nodes:
            if node.executor is None:  # web_bridge spins an executor of its own
                executor.add_node(node)
        # What start-up built (rclpy, messages, the nodes) lives as long as the process: kept
        # out of the garbage collector's passes, a full pass no longer walks it in the middle
        # of a goal. bench_trajectory (bringup): first-setpoint p99 19-25 ms with it, 27-48 ms
        # without, in alternating runs.
        gc.collect()
        gc.freeze()
        while not stop.is_set() and rclpy.ok():
            # Back to Python at least every _STOP_POLL_S, where the signal handlers run.
            executor.spin_once(timeout_sec=_STOP_POLL_S)
    except NodeStartupError as error:
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
        # Callbacks still running finish before their nodes are destroyed.
        executor.shutdown(timeout_sec=_SHUTDOWN_TIMEOUT_S)
        for node in reversed(nodes):
            node.destroy_node()
        rclpy.try_shutdown()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


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
