"""Helpers for tests that talk to real nodes through rclpy, as `ros2 service call` would.

Nothing here sleeps for a fixed time: every wait is for a condition, with a generous timeout,
because DDS discovery on a loaded 2-core machine takes seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import rclpy
from rclpy.context import Context
from rclpy.node import Node

from arm_kinematics.rclpy_compat.action_client import destroy_actions
from arm_kinematics.rclpy_compat.executor import WorkerBoundExecutor
from arm_kinematics.rclpy_compat.service_call import call_idempotent

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 30.0
RESEND_S = 5.0  # RosGraph.call sends an unanswered request again after this (see there)
PACKAGE_DIR = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = PACKAGE_DIR / "config" / "arm.yaml"


def wait_for(
    predicate: Callable[[], Any], timeout: float = DEFAULT_TIMEOUT_S, what: str = "condition"
) -> Any:
    """Poll `predicate` until it returns something truthy; fail the test after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.01)


def future_done_within(future: Any, seconds: float) -> bool:
    """Whether an rclpy future that another thread's executor completes is done within
    `seconds`; wakes at once on completion (no polling)."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    return done.wait(seconds)


def wait_for_future(future: Any, timeout: float = DEFAULT_TIMEOUT_S, what: str = "answer") -> Any:
    """Block until an rclpy future that another thread's executor completes is done; its result.

    Wakes at once on completion (no polling), for tests that make hundreds of calls.
    """
    if not future_done_within(future, timeout):
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
    return future.result()


def installed_executable(name: str, package: str = "arm_kinematics") -> str:
    """Path of a package's console script where `ros2 run` finds it (install/<pkg>/lib/<pkg>)."""
    from ament_index_python.packages import get_package_prefix

    return str(Path(get_package_prefix(package)) / "lib" / package / name)


class RosGraph:
    """One rclpy context with the nodes' multi-threaded executor spinning in a background thread."""

    def __init__(self) -> None:
        self.context = Context()
        rclpy.init(context=self.context)
        self.executor = WorkerBoundExecutor(context=self.context)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._nodes: list[Node] = []
        self.errors: list[Exception] = []  # callbacks' exceptions, the spin having gone on
        self._stopping = threading.Event()
        self._thread.start()

    def _spin(self) -> None:
        """Spin until the context ends. A callback's exception ends an executor's spin (as in
        rclpy); were it swallowed, every node added afterwards would never be spun (a stack
        started again in the same graph waited 30 s for joint_states that no timer sent).
        So it is printed, kept in `errors`, and the spin goes on, until `shutdown` (a shut down
        executor's spin returns at once: looping on it would spin the CPU until the join's
        timeout)."""
        while self.context.ok() and not self._stopping.is_set():
            try:
                self.executor.spin()
            except Exception as error:
                if not self.context.ok():
                    return  # the executor ends with the context: nothing to report then
                self.errors.append(error)
                traceback.print_exception(error)

    def add(self, node: Node) -> Node:
        """Spin `node` on the shared executor (unless it spins its own, as web_bridge does)
        and return it."""
        self._nodes.append(node)
        if node.executor is None:
            self.executor.add_node(node)
        return node

    def node(self, name: str, **kwargs: Any) -> Node:
        """Create and spin a plain node (for clients, publishers and subscriptions)."""
        return self.add(Node(name, context=self.context, **kwargs))

    def remove(self, node: Node) -> None:
        self.executor.remove_node(node)
        self._nodes.remove(node)
        destroy_actions(node)
        node.destroy_node()

    def call(self, client: Any, request: Any, timeout: float = DEFAULT_TIMEOUT_S) -> Any:
        """Call a service whose node spins on this graph and wait for the answer.

        Through `call_idempotent`: a request still unanswered after RESEND_S is sent again,
        until `timeout` (Fast DDS drops a response sent before the server has matched the
        client's response reader, ros2/rmw_fastrtps#842; on a loaded machine that window lasts
        seconds). Only for idempotent services, which every caller here uses.
        """
        wait_for(lambda: client.wait_for_service(timeout_sec=0.1), timeout, f"{client.srv_name}")
        response = call_idempotent(client, request, timeout, future_done_within, RESEND_S)
        if response is None:
            raise AssertionError(
                f"timed out after {timeout:.0f} s waiting for answer from {client.srv_name}"
            )
        return response

    def shutdown(self) -> None:
        """Stop spinning (callbacks in flight finish first), then destroy the nodes."""
        self._stopping.set()
        self.executor.shutdown(timeout_sec=10.0)
        self._thread.join(timeout=DEFAULT_TIMEOUT_S)
        if self._thread.is_alive():  # a spin that never ends would cost every test its timeout
            raise AssertionError(
                f"the graph's spin thread still ran {DEFAULT_TIMEOUT_S} s after shutdown"
            )
        for node in list(self._nodes):
            self._nodes.remove(node)
            destroy_actions(node)  # or they keep the node in the graph of later tests
            node.destroy_node()
        rclpy.shutdown(context=self.context)


@contextmanager
def ros_graph() -> Iterator[RosGraph]:
    graph = RosGraph()
    try:
        yield graph
    finally:
        graph.shutdown()


def start_node_process(executable: str, *args: str, **popen_kwargs: Any) -> subprocess.Popen:
    """Start an installed console script in its own session (so SIGINT reaches it)."""
    return subprocess.Popen(
        [executable, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env=dict(os.environ),
        **popen_kwargs,
    )


def stop_process(proc: subprocess.Popen, timeout: float = DEFAULT_TIMEOUT_S) -> tuple[int, str]:
    """SIGINT the process group, wait, and return (exit code, output)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return proc.returncode, out


def run_to_exit(executable: str, *args: str, timeout: float = DEFAULT_TIMEOUT_S) -> tuple[int, str]:
    """Run an installed console script that stops by itself (a bad option, a bad parameter);
    its exit code and everything it printed (stdout and stderr, in order)."""
    proc = start_node_process(installed_executable(executable), *args)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _, output = stop_process(proc)
        raise AssertionError(f"{executable} still ran after {timeout:g} s:\n{output}") from None
    return proc.returncode, output


def at_once(*cases: Callable[[], T]) -> list[T]:
    """Run independent cases at the same time, each in a thread of its own; their results, in
    order. An exception of a case is raised once every case has ended.

    For checks that each wait on a process of their own (its start-up, DDS discovery, its
    exit): started together, those waits overlap instead of adding up. A parametrized test
    gets the same from a module-scoped fixture that runs every case `at_once` and hands each
    test its own result (test_web_bridge_token.py, test_shutdown.py).
    """
    with ThreadPoolExecutor(max_workers=max(1, len(cases))) as pool:
        futures = [pool.submit(case) for case in cases]
    return [future.result() for future in futures]


def interrupt_after(executable: str, *args: str, prefix: str, count: int) -> tuple[int, str]:
    """Run an installed console script, press Ctrl-C (SIGINT to its process group, as a
    terminal does) once it has printed `count` lines starting with `prefix`, and return its
    exit code and everything it printed."""
    proc = start_node_process(executable, *args)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        wait_for(
            lambda: sum(line.startswith(prefix) for line in list(lines)) >= count,
            what=f"{count} lines {prefix!r}... from {Path(executable).name}",
        )
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            stop_process(proc)
    reader.join(timeout=10)
    return code, "".join(lines)


def file_parameters(path, **overrides: Any) -> list:
    """A node's parameter overrides: the arm's parameters file at `path` (an ROS 2 params
    file, as `--params-file` gives it), then `overrides` (name=value, dotted names through
    `**{...}`) on top."""
    from rclpy.parameter import Parameter

    from arm_kinematics.config import load_parameters_file

    values = {**load_parameters_file(path), **overrides}
    return [Parameter(name, value=value) for name, value in values.items()]


PYTHON = sys.executable
