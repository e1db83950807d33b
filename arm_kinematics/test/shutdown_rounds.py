"""One shutdown round: an arm started, a goal in flight, the arm stopped by a signal; what the
client and the processes saw. Shared by test_shutdown.py and bench/bench_shutdown.py.

Layouts: "bringup" (one process, its process group signalled, as Ctrl-C in a terminal does) and
"separate" (one process per node, as `ros2 launch` runs them; each signalled, as launch does).
"""

from __future__ import annotations

import itertools
import math
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from action_msgs.msg import GoalStatus
from ros_helpers import (
    DEFAULT_CONFIG,
    DEFAULT_TIMEOUT_S,
    PACKAGE_DIR,
    RosGraph,
    installed_executable,
    start_node_process,
    wait_for,
)

from arm_kinematics.config import ArmConfig
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

CONFIG_3R = PACKAGE_DIR / "config" / "arm_3r.yaml"  # its reachable region takes seconds
SEPARATE_NODES = ("hardware_node", "ik_node", "trajectory_node", "web_bridge")
RELEASED = "servos released (PWM off)"
#: The round's goal: joint 1 turned this far from home (deg), the tool at this speed (m/s): a
#: stream of about 11 s (3R arm), longer than a goal response's wait (10 s) and far longer than
#: the runner's exit bound (4 s), so that the signal finds it mid-way even on a loaded machine,
#: and a stream the shutdown failed to stop would show as an exit code 1.
TURN_DEG = 15.0
SPEED_M_S = 0.005


@dataclass
class Round:
    """What one round saw: exit codes, the seconds from the signal to the last exit, the
    client's goal status and result (None when no result came), the last feedback."""

    codes: dict[str, int | None]
    exit_s: float
    goal_status: int | None
    result: MoveArm.Result | None
    last_feedback: MoveArm.Feedback | None
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def released(self) -> bool:
        return any(RELEASED in text for text in self.outputs.values())


class Arm:
    """The arm's processes in one layout, in namespace `namespace`, with their output."""

    def __init__(self, layout: str, namespace: str) -> None:
        self.layout = layout
        ns_args = ["-r", f"__ns:=/{namespace}"]
        if layout == "bringup":
            commands = {
                "bringup": [
                    installed_executable("bringup"),
                    "--namespace",
                    namespace,
                    "--web-port",
                    "0",
                ]
            }
        else:
            commands = {}
            for name in SEPARATE_NODES:
                extra = ["-p", "port:=0"] if name == "web_bridge" else []
                commands[name] = [
                    installed_executable(name),
                    "--ros-args",
                    "--params-file",
                    str(CONFIG_3R),
                    "-p",
                    f"frame_prefix:={namespace}/",
                    *extra,
                    *ns_args,
                ]
        self.processes = {name: start_node_process(*cmd) for name, cmd in commands.items()}
        self.lines: dict[str, list[str]] = {name: [] for name in commands}
        for name, process in self.processes.items():
            threading.Thread(
                target=lambda p=process, out=self.lines[name]: out.extend(p.stdout), daemon=True
            ).start()

    def signal(self, signum: int) -> None:
        for process in self.processes.values():
            if self.layout == "bringup":
                os.killpg(process.pid, signum)  # Ctrl-C in a terminal: the whole group
            else:
                process.send_signal(signum)  # ros2 launch signals each of its processes

    def wait(self, timeout: float) -> dict[str, int | None]:
        deadline = time.monotonic() + timeout
        codes: dict[str, int | None] = {}
        for name, process in self.processes.items():
            try:
                codes[name] = process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                codes[name] = None
        return codes

    def kill(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def outputs(self) -> dict[str, str]:
        return {name: "".join(lines) for name, lines in self.lines.items()}


def goal_to(layout: str, namespace: str, turn_deg: float = TURN_DEG) -> MoveArm.Goal:
    """A slow straight line from the arm's home pose that lasts seconds: still running when the
    signal comes (the end: joint 1 turned `turn_deg` degrees from home)."""
    config = ArmConfig.from_file(DEFAULT_CONFIG if layout == "bringup" else CONFIG_3R)
    arm = config.make_arm()
    home = [joint.home for joint in config.joints]
    home[0] += math.radians(turn_deg)
    x, y, _ = arm.forward(home)
    goal = MoveArm.Goal(mode=MoveArm.Goal.LINEAR, speed=SPEED_M_S)
    goal.target.header.frame_id = f"{namespace}/base_link"
    goal.target.pose.position.x = x
    goal.target.pose.position.y = y
    goal.target.pose.orientation.w = 1.0
    return goal


def goals_to(layout: str, namespace: str) -> Iterator[MoveArm.Goal]:
    """The goals a round sends, one per try: joint 1 turned one way from home, then the other
    way, and so on. A goal whose response was lost may have run and taken the arm to its end;
    the goal sent after it aims elsewhere, so it is a whole motion, not one setpoint long."""
    return itertools.cycle([goal_to(layout, namespace, turn) for turn in (TURN_DEG, -TURN_DEG)])


def send_accepted(
    client: ActionClient, goals: Iterator, lost_responses: int = 0
) -> tuple[object, list]:
    """The handle of the next of `goals`, accepted, and the list its own feedback goes to.

    When its response does not come within 10 s, the next of `goals` is sent (Fast DDS drops a
    response written before the server matched the client's reader, ros2/rmw_fastrtps#842: on
    a loaded machine that window lasts seconds). The goal whose response was lost may have
    arrived: it runs, and its feedback comes, until the next one preempts it (or to its end).
    Each goal's feedback has a list of its own, so that the lost goal's is never taken for the
    next one's (it was, once: the client counted feedback up to step 269 of 269 from a lost goal
    and signalled while its successor, planned from the lost goal's end, was one setpoint long).

    `lost_responses`: the first so many responses are taken as lost (a test of this path), each
    goal left to run to its end before the next is sent (one that ended NO_JOINT_STATE, before
    the trajectory node saw the hardware, is not counted: it never streamed).
    """
    lost, attempt = 0, 0
    while attempt < 3:
        feedback: list[MoveArm.Feedback] = []
        sent = client.send_goal_async(next(goals), lambda f, own=feedback: own.append(f.feedback))
        if lost < lost_responses:
            result = _result_of(sent)
            if result.status != MoveArm.Result.NO_JOINT_STATE:
                wait_for(  # its last feedback (a result may overtake the feedback topic)
                    lambda own=feedback: own and own[-1].step == own[-1].total_steps,
                    what=f"the last feedback of a goal taken as lost, ended {result.message!r}",
                )
                lost += 1
            continue
        attempt += 1
        try:
            handle = wait_for(lambda s=sent: s.done() and s.result(), 10.0, "the goal response")
        except AssertionError:
            continue
        assert handle.accepted
        return handle, feedback
    raise AssertionError("no goal response in three tries")


def _result_of(sent: Any) -> Any:
    """The result of the goal whose response future is `sent`, once it has run to its end."""
    handle = wait_for(lambda: sent.done() and sent.result(), what="a goal response")
    assert handle.accepted
    result_future = handle.get_result_async()
    return wait_for(lambda: result_future.done() and result_future.result(), 60.0).result


def _goal_in_flight(
    client: ActionClient, goals: Iterator, feedback_before: int, lost_responses: int = 0
) -> tuple[object, list]:
    """Send the next of `goals` and wait for `feedback_before` of its feedback messages; its
    result future and its feedback.

    On a loaded machine the trajectory node may not have discovered the hardware node's
    joint_states yet when the goal comes (one process per node): such a goal ends with
    NO_JOINT_STATE before it moves, and the next is sent (what this round tests comes after).
    """
    for _ in range(5):
        handle, feedback = send_accepted(client, goals, lost_responses)
        result_future = handle.get_result_async()
        wait_for(
            lambda f=result_future, own=feedback: len(own) >= feedback_before or f.done(),
            what="feedback",
        )
        if not result_future.done():
            return result_future, feedback
        result = result_future.result().result
        assert result.status == MoveArm.Result.NO_JOINT_STATE, result
    raise AssertionError("the trajectory node saw no joint_states in five goals")


def shutdown_round(
    graph: RosGraph,
    layout: str,
    signum: int,
    namespace: str,
    feedback_before: int = 3,
    lost_responses: int = 0,
) -> Round:
    """Start the arm, send a goal, signal after `feedback_before` of its feedback messages
    (`lost_responses`: see `send_accepted`)."""
    arm = Arm(layout, namespace)
    node = graph.node(f"shutdown_client_{namespace}")
    client = ActionClient(node, MoveArm, f"/{namespace}/move_arm")
    feedback: list[MoveArm.Feedback] = []
    try:
        wait_for(lambda: client.wait_for_server(timeout_sec=0.1), what="the move_arm server")
        result_future, feedback = _goal_in_flight(
            client, goals_to(layout, namespace), feedback_before, lost_responses
        )
        signalled = time.monotonic()
        arm.signal(signum)
        codes = arm.wait(DEFAULT_TIMEOUT_S)
        exit_s = time.monotonic() - signalled
        try:
            answer = wait_for(lambda: result_future.done() and result_future.result(), 5.0)
            goal_status, result = answer.status, answer.result
        except AssertionError:  # no result came
            goal_status, result = None, None
    finally:
        arm.kill()
        graph.remove(node)
    return Round(codes, exit_s, goal_status, result, feedback[-1], arm.outputs())


def check_round(outcome: Round) -> list[str]:
    """What a round got wrong (empty when it did everything the shutdown promises)."""
    problems = []
    for name, code in outcome.codes.items():
        if code != 0:
            problems.append(f"{name} exited {code}")
    if outcome.result is None:
        problems.append("the client got no result")
        return problems
    if outcome.goal_status != GoalStatus.STATUS_ABORTED:
        problems.append(f"goal status {outcome.goal_status}, not ABORTED")
    result, last = outcome.result, outcome.last_feedback
    if result.status != MoveArm.Result.SHUTDOWN:
        problems.append(f"result status {result.status}, not SHUTDOWN")
    if result.total_setpoints != last.total_steps:
        problems.append(f"{result.total_setpoints} setpoints in all, feedback {last.total_steps}")
    # Stopped mid-stream, the goal sent fewer than its plan's setpoints. All of them only when its
    # stream had ended (its feedback said the last step) before the shutdown found it waiting for
    # the arm to arrive: legitimate (a signal late on a loaded machine). A stream the shutdown
    # did not stop would outlast the exit bound (see SPEED_M_S): an exit code 1 above.
    ended = last.step == last.total_steps == result.sent_setpoints
    if not (last.step <= result.sent_setpoints < result.total_setpoints or ended):
        problems.append(f"{result.sent_setpoints} sent, feedback had {last.step}")
    if result.total_steps == 0:
        problems.append("total_steps 0 for a planned goal")
    if not outcome.released:
        problems.append("no 'servos released' line")
    return problems
