"""Process entry points shared by the nodes: init, spin, and a shutdown that cannot hang.

Ctrl-C (SIGINT) and SIGTERM start the same shutdown, in this order, each step bounded:

1. every node's `close()`, newest node first, while the executor keeps serving callbacks: the
   trajectory node ends its goals (status SHUTDOWN) and refuses new ones, the hardware node
   releases (or holds) the servos (`CLOSE_TIMEOUT_S` in all);
2. the work those goals handed on, such as the result responses that clients wait for, is
   done (`TASKS_TIMEOUT_S`), and the middleware is given `DELIVERY_S` to deliver it;
3. the callbacks still running finish (`CALLBACKS_TIMEOUT_S`); the nodes are destroyed and the
   context is shut down.

The process exits 0 within about a second in practice, and within `SHUTDOWN_BOUND_S` (4 s,
below `ros2 launch`'s 5 s before it escalates to SIGTERM) whatever happens: a callback that
does not finish makes the process log it and leave without destroying the nodes (exit code 1),
and a watchdog that needs no Python thread (`faulthandler`) prints every thread's stack and
ends the process (exit code 1) should anything block past the bound, a deadlock in C
included.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from arm_kinematics.nodes.stop_signals import catch_stop_signals
from arm_kinematics.rclpy_compat.executor import WorkerBoundExecutor

SPIN_POLL_S = 0.1
"""Longest delay between Ctrl-C and the start of the shutdown (s)."""
CLOSE_TIMEOUT_S = 2.0
"""Longest wait for the nodes' close() (s)."""
TASKS_TIMEOUT_S = 1.0
"""Longest wait for the work the closing handed on, e.g. result responses (s)."""
DELIVERY_S = 0.25
"""How long the process stays on the graph after the last result went out (s). A reliable DDS
writer destroyed just after a write may take the sample with it: with Fast DDS (Jazzy wheels,
rmw_fastrtps_cpp), a goal's result response sent in the closing was lost by 5 of 40 clients
when the process left at once (UDP only or with shared memory alike), by 0 of 60 after 0.25 s."""
CALLBACKS_TIMEOUT_S = 0.5
"""Longest wait for callbacks still running once the rest is done (s)."""
SHUTDOWN_BOUND_S = 4.0
"""The process has exited this long after Ctrl-C or SIGTERM, whatever happens (s)."""
EXIT_STUCK = 1
"""Exit code when shutdown had to leave a callback running (it logged which)."""

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


class EmptyListParameterError(NodeStartupError):
    """A params file gave `[]` (see `_created`): exits with code 2."""

    exit_code = 2


def _created(factory: Callable[[], Node]) -> Node:
    """`factory()`, with rclpy's refusal of an empty list in a params file (a node built with
    `automatically_declare_parameters_from_overrides` cannot type `[]`: "Cannot declare a
    statically typed parameter with default value of type PARAMETER_NOT_SET") said as one
    FATAL line that names the remedy, and exit code 2 like every other bad parameter."""
    try:
        return factory()
    except ValueError as error:
        if "PARAMETER_NOT_SET" not in str(error):
            raise
        rclpy.logging.get_logger("arm_kinematics").fatal(
            "invalid configuration: a params file gives an empty list ([]), which ROS 2 "
            "cannot type; leave the key out instead (e.g. workspace.keep_out_boxes_m: no boxes)"
        )
        raise EmptyListParameterError() from None


def run_nodes(factories: Sequence[Callable[[], Node]], args: list[str] | None = None) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shutdown; exit code.

    A multi-threaded executor (rclpy_compat/executor.py) so that a slow request (or a running
    action) never blocks the others; each node puts its callbacks in the callback groups it
    needs. SIGTERM is handled like Ctrl-C; the shutdown is the module docstring's.
    """
    # rclpy's own SIGINT handler shuts the context down at once: a node's close() could then no
    # longer end a running goal nor send its result. So Ctrl-C and SIGTERM only ask the spin
    # loop to stop; the nodes are closed while ROS still works, and the context shut down last.
    sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_INTERVAL_S))
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    stop, restore_signals = catch_stop_signals()  # set already if it came while importing
    nodes: list[Node] = []
    executor = WorkerBoundExecutor()
    code = 0
    try:
        for factory in factories:
            nodes.append(_created(factory))
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
            # Back to Python at least every SPIN_POLL_S, where the signal handlers run.
            executor.spin_once(timeout_sec=SPIN_POLL_S)
    except NodeStartupError as error:
        code = int(error.code)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # Within the bound even if what follows blocks with the GIL held (faulthandler's
        # watchdog is a C thread): every thread's stack on stderr, then exit code 1.
        faulthandler.dump_traceback_later(SHUTDOWN_BOUND_S, exit=True)
        stuck = _shut_down(executor, list(reversed(nodes)))
        restore_signals()
    if stuck:
        # A callback still runs: destroying its node under it, or joining its worker thread
        # at interpreter exit, could block past the bound. The servos are already released.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_STUCK)
    faulthandler.cancel_dump_traceback_later()
    return code


def _shut_down(executor: WorkerBoundExecutor, nodes: Sequence[Node]) -> bool:
    """Steps 1-3 of the module docstring for `nodes` (newest first); True if a callback was
    still running at the end (the nodes are then left as they are)."""
    # A daemon: a close() that never returns must not keep the process alive at its exit.
    closer = threading.Thread(target=_close_nodes, args=(nodes,), name="close_nodes", daemon=True)
    closer.start()
    _spin_while(executor, closer.is_alive, CLOSE_TIMEOUT_S)
    if closer.is_alive():
        _log_error(nodes, f"close() of the nodes took more than {CLOSE_TIMEOUT_S:g} s")
    _spin_while(executor, lambda: executor.pending_tasks() > 0, TASKS_TIMEOUT_S)
    _spin_while(executor, lambda: True, DELIVERY_S)  # the DDS writers outlive what they sent
    if not executor.shutdown(timeout_sec=CALLBACKS_TIMEOUT_S):
        _log_error(
            nodes,
            f"callbacks still running {CALLBACKS_TIMEOUT_S:g} s after the nodes closed: "
            "exiting without waiting for them",
        )
        return True
    for node in nodes:
        node.destroy_node()
    rclpy.try_shutdown()
    return False


def _spin_while(executor: WorkerBoundExecutor, condition: Callable[[], bool], timeout: float):
    """Serve callbacks while `condition()` holds, for at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while condition() and time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            executor.spin_once(timeout_sec=min(SPIN_POLL_S, deadline - time.monotonic()))


def _close_nodes(nodes: Sequence[Node]) -> None:
    for node in nodes:
        close = getattr(node, "close", None)
        if close is None:
            continue
        try:
            close()  # e.g. release servos, end goals
        except Exception as error:  # one node failing to close must not skip the others
            node.get_logger().error(f"close() failed: {error!r}")


def _log_error(nodes: Sequence[Node], text: str) -> None:
    if nodes:
        nodes[0].get_logger().error(text)
    else:
        print(text, file=sys.stderr, flush=True)


def run_node(factory: Callable[[], Node], args: list[str] | None = None) -> int:
    """`run_nodes` for a single node."""
    return run_nodes([factory], args)
