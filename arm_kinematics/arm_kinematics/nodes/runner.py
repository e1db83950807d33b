"""Process entry points shared by the nodes: init, spin, clean exit on Ctrl-C or SIGTERM."""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node

from arm_kinematics.nodes.params import ParameterStartupError


def run_nodes(factories: Sequence[Callable[[], Node]], args: list[str] | None = None) -> int:
    """Create the nodes, spin them on one multi-threaded executor until shutdown; exit code.

    A multi-threaded executor so that a slow request (or a running action) never blocks the
    others; each node puts its callbacks in the callback groups it needs. SIGTERM is handled
    like Ctrl-C so that `kill` and process managers get the same clean shutdown.
    """
    rclpy.init(args=args)
    signal.signal(signal.SIGTERM, lambda *_: rclpy.try_shutdown())
    nodes: list[Node] = []
    executor = MultiThreadedExecutor()
    try:
        for factory in factories:
            nodes.append(factory())
        for node in nodes:
            executor.add_node(node)
        executor.spin()
    except ParameterStartupError as error:
        return int(error.code)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        for node in reversed(nodes):
            close = getattr(node, "close", None)
            if close is not None:
                close()  # e.g. release servos, cancel goals
            node.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
    return 0


def run_node(factory: Callable[[], Node], args: list[str] | None = None) -> int:
    """`run_nodes` for a single node."""
    return run_nodes([factory], args)
