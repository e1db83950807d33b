"""Ctrl-C and SIGTERM: every process exits 0, the client gets its result, the servos let go.

A clean exit (code 0) is itself the bound: past `SHUTDOWN_BOUND_S` the runner's watchdog ends
the process with code 1. `bench/bench_shutdown.py` runs the same rounds 50 times and prints the
exit times.
"""

from __future__ import annotations

import itertools
import re
import signal
import subprocess
import sys
import textwrap
import threading
from functools import partial

import pytest
from ros_helpers import (
    DEFAULT_TIMEOUT_S,
    RosGraph,
    at_once,
    installed_executable,
    start_node_process,
    wait_for,
)
from shutdown_rounds import check_round, shutdown_round

from arm_kinematics.nodes.runner import SHUTDOWN_BOUND_S
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

pytestmark = pytest.mark.ros

ROUNDS = 2
_names = itertools.count()


@pytest.mark.parametrize("layout", ["bringup", "separate"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_goal_in_flight_ends_with_its_result_and_every_process_exits_0(
    graph: RosGraph, layout: str, signum: int
) -> None:
    for _ in range(ROUNDS):
        outcome = shutdown_round(graph, layout, signum, f"stop_{next(_names)}")
        problems = check_round(outcome)
        assert not problems, (problems, outcome.outputs)


def test_a_goal_sent_again_after_a_lost_response_is_the_one_the_round_checks(
    graph: RosGraph,
) -> None:
    """The round's retry path, which only a loaded machine takes: the first goal's response
    lost, that goal streams to its end (as it did when the round once failed), and the goal sent
    after it is the one signalled in flight, with feedback and a result of its own."""
    outcome = shutdown_round(
        graph, "separate", signal.SIGTERM, f"stop_{next(_names)}", lost_responses=1
    )
    assert not check_round(outcome), (check_round(outcome), outcome.outputs)
    text = outcome.outputs["trajectory_node"]
    planned = [int(n) for n in re.findall(r"into (\d+) setpoints", text)]
    assert len(planned) == 2, text  # the lost goal, then the goal the round checks
    assert "SUCCEEDED" in text  # the lost goal ended where it aimed; the next one went back
    # From the lost goal's end, turned the other way: twice its path, not one setpoint.
    assert planned[1] > 1.5 * planned[0], planned
    assert outcome.result.total_setpoints == planned[1] == outcome.last_feedback.total_steps


def _run_script(body: str) -> subprocess.CompletedProcess:
    """A node process of the test's own, run through run_nodes and stopped by SIGINT once it
    printed READY."""
    script = textwrap.dedent(body)
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("READY" in line for line in lines), what="the script's READY")
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=DEFAULT_TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
    reader.join(timeout=10)
    return subprocess.CompletedProcess(process.args, code, "".join(lines))


_STUCK_NODE = """
import threading
from rclpy.node import Node
from arm_kinematics.nodes.runner import run_node

class Stuck(Node):
    def __init__(self):
        super().__init__("stuck_node")
        self.create_timer(0.01, self.tick)
    def tick(self):
        print("READY", flush=True)
        threading.Event().wait()  # a callback that never returns

raise SystemExit(run_node(Stuck))
"""


def test_a_callback_that_never_returns_is_left_behind_with_exit_code_1() -> None:
    done = _run_script(_STUCK_NODE)
    assert done.returncode == 1, done.stdout
    assert "callbacks still running" in done.stdout


_BLOCKED_DESTROY = """
import threading
from rclpy.node import Node
from arm_kinematics.nodes.runner import run_node

class Blocked(Node):
    def __init__(self):
        super().__init__("blocked_node")
        print("READY", flush=True)
    def destroy_node(self):
        threading.Event().wait()  # the shutdown itself blocks

raise SystemExit(run_node(Blocked))
"""


def test_a_blocked_shutdown_is_ended_by_the_watchdog_with_every_stack() -> None:
    done = _run_script(_BLOCKED_DESTROY)
    assert done.returncode == 1, done.stdout
    assert f"Timeout (0:00:0{SHUTDOWN_BOUND_S:.0f})!" in done.stdout  # faulthandler's header
    assert "in destroy_node" in done.stdout  # where it blocked


def catches(pid: int, signum: int) -> bool:
    """Whether process `pid` has a handler for `signum` (Linux: /proc/<pid>/status SigCgt)."""
    with open(f"/proc/{pid}/status") as status:
        caught = next(line for line in status if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signum - 1) & 1)


IMPORTING_COMMANDS = {
    "web_bridge": ("web_bridge", "--ros-args", "-p", "port:=0"),
    "ik_node": ("ik_node",),
    "bringup": ("bringup", "--web-port", "0"),
}
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}


def signalled_while_importing(command: tuple[str, ...], signum: int) -> tuple[int, str]:
    """Start `command`, send `signum` as soon as it catches the stop signals (while it imports,
    before any node exists); its exit code and output."""
    process = start_node_process(installed_executable(command[0]), *command[1:])
    # Python itself catches SIGINT from its start; SIGTERM only once entry.py runs, before
    # rclpy and the node are imported (a second or so on this machine).
    wait_for(lambda: catches(process.pid, signal.SIGTERM), what="the stop signals caught")
    process.send_signal(signum)
    out, _ = process.communicate(timeout=DEFAULT_TIMEOUT_S)
    return process.returncode, out


@pytest.fixture(scope="module")
def signalled_while_importing_runs() -> dict[tuple[str, str], tuple[int, str]]:
    """Every command of IMPORTING_COMMANDS with every signal of SIGNALS, all at once (their
    start-ups overlap): exit code and output by (command, signal name)."""
    cases = [(name, sig) for name in IMPORTING_COMMANDS for sig in SIGNALS]
    runs = at_once(
        *(
            partial(signalled_while_importing, IMPORTING_COMMANDS[name], SIGNALS[sig])
            for name, sig in cases
        )
    )
    return dict(zip(cases, runs, strict=True))


@pytest.mark.parametrize("command", IMPORTING_COMMANDS)
@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_while_importing_exits_0_without_a_traceback(
    signalled_while_importing_runs, command: str, signum: str
) -> None:
    code, out = signalled_while_importing_runs[command, signum]
    assert code == 0, out
    assert "Traceback" not in out


def test_a_goal_sent_while_the_node_closes_is_rejected_at_once(graph: RosGraph) -> None:
    node = graph.add(TrajectoryNode(context=graph.context, namespace="closing_arm"))
    client_node = graph.node("closing_client")
    client = ActionClient(client_node, MoveArm, "/closing_arm/move_arm")
    wait_for(lambda: client.wait_for_server(timeout_sec=0.1), what="the move_arm server")
    node.close()
    goal = MoveArm.Goal(mode=MoveArm.Goal.JOINT)
    goal.target.pose.position.x = 0.12
    goal.target.pose.orientation.w = 1.0
    sent = client.send_goal_async(goal)
    handle = wait_for(lambda: sent.done() and sent.result(), what="the goal response")
    assert not handle.accepted
