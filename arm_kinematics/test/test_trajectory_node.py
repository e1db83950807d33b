"""The MoveArm action against the real nodes: IkNode, HardwareNode (sim) and TrajectoryNode
spinning in one process, driven through an rclpy ActionClient as `ros2 action send_goal` would.

Forward kinematics in these tests is written out independently of the code under test
(sum of link vectors), and expected failing steps are computed from the geometry of the line.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PointStamped
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_helpers import RosGraph, ros_graph, wait_for
from sensor_msgs.msg import JointState
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode, status_name
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import SolveIK

Result = MoveArm.Result
Goal = MoveArm.Goal
CONFIG = ArmConfig.from_file()
NAMES = list(CONFIG.joint_names)
L1, L2 = CONFIG.link_lengths
PERIOD = 1.0 / CONFIG.trajectory.command_rate_hz
LIMITS = np.asarray(CONFIG.max_velocities)
ACCELERATIONS = np.asarray(CONFIG.max_accelerations)
TOOL_ACCELERATION = CONFIG.trajectory.max_tool_acceleration
DEG = math.radians
#: The tool's own timing keeps this share of its speed and acceleration limits
#: (kinematics/planning/path_timing.py, TOOL_HEADROOM).
TOOL_SHARE = 0.999


def trapezoid_distances(length: float, speed: float, acceleration: float) -> np.ndarray:
    """How far along a line of `length` (m) the tool is at every period of the fastest motion
    from rest to rest at most at `speed` (m/s) and `acceleration` (m/s^2), the end last."""
    rise = speed / acceleration
    if length < speed * rise:  # a triangle: never at full speed
        rise = math.sqrt(length / acceleration)
    peak = acceleration * rise
    cruise = (length - peak * rise) / peak
    total = 2 * rise + cruise
    t = np.arange(1, math.ceil(total / PERIOD - 1e-9) + 1) * PERIOD
    up = 0.5 * acceleration * t**2
    flat = 0.5 * peak * rise + peak * (t - rise)
    down = length - 0.5 * acceleration * np.maximum(total - t, 0.0) ** 2
    distances = np.where(t < rise, up, np.where(t < rise + cruise, flat, down))
    distances[-1] = length
    return distances


def check_stream(start, commands, tool_line=None) -> None:
    """The commands as the servos get them, with the rest before and after: every joint's
    velocity and acceleration (finite differences at the command period) within its limits,
    and with a `tool_line` (a, b) every tip on it within 1e-6 m and the tool's acceleration
    within its limit."""
    joints = np.array([list(start)] + [list(c.position) for c in commands])
    stream = np.vstack((joints[:1], joints, joints[-1:], joints[-1:]))
    velocity = np.abs(np.diff(stream, axis=0)) / PERIOD
    acceleration = np.abs(np.diff(stream, n=2, axis=0)) / PERIOD**2
    assert np.all(velocity <= LIMITS * (1 + 1e-9))
    assert np.all(acceleration <= ACCELERATIONS * (1 + 1e-9))
    if tool_line is not None:
        tips = np.array([tip_of(q) for q in stream])
        assert distance_to_line(tips, *tool_line).max() < 1e-6
        tool = np.linalg.norm(np.diff(tips, n=2, axis=0), axis=1) / PERIOD**2
        assert tool.max() <= TOOL_ACCELERATION * (1 + 1e-6)


def tip_of(joints) -> tuple[float, float]:
    """Tip (x, y) of the 2R arm: the sum of the two link vectors."""
    q1, q2 = joints
    return (
        L1 * math.cos(q1) + L2 * math.cos(q1 + q2),
        L1 * math.sin(q1) + L2 * math.sin(q1 + q2),
    )


def distance_to_line(points, a, b) -> np.ndarray:
    """Distance of each (x, y) to the infinite line through a and b."""
    a_, b_ = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    direction = (b_ - a_) / np.linalg.norm(b_ - a_)
    rel = np.asarray(points, dtype=float) - a_
    return np.abs(rel[:, 0] * direction[1] - rel[:, 1] * direction[0])


def goal(x: float, y: float, **fields) -> MoveArm.Goal:
    message = Goal(**{"mode": Goal.LINEAR, **fields})
    message.target.header.frame_id = CONFIG.base_frame
    message.target.pose.position.x = x
    message.target.pose.position.y = y
    message.target.pose.orientation.w = 1.0
    return message


@dataclass
class Outcome:
    result: MoveArm.Result
    status: int  # action_msgs GoalStatus
    feedback: list = field(default_factory=list)
    commands: list = field(default_factory=list)  # joint_commands received during the goal
    elapsed: float = 0.0


class Harness:
    """An action client plus listeners on joint_commands, joint_states and the markers."""

    def __init__(self, graph: RosGraph, hardware: HardwareNode | None, namespace: str = "") -> None:
        self.graph = graph
        self.hardware = hardware
        self.node = graph.node("trajectory_test_client", namespace=namespace)
        self.lock = threading.Lock()
        self.commands: list[JointState] = []
        self.states: list[JointState] = []
        self.markers: list[MarkerArray] = []
        self.node.create_subscription(JointState, "joint_commands", self._on_command, 1000)
        self.node.create_subscription(JointState, "joint_states", self._on_state, 100)
        self.node.create_subscription(
            MarkerArray,
            "trajectory_markers",
            self._on_markers,
            QoSProfile(depth=5, durability=DurabilityPolicy.TRANSIENT_LOCAL),
        )
        self.client = ActionClient(self.node, MoveArm, "move_arm")
        self.clicked = self.node.create_publisher(PointStamped, "clicked_point", 10)
        wait_for(lambda: self.client.wait_for_server(timeout_sec=0.1), what="move_arm server")
        wait_for(
            lambda: self.node.count_publishers("joint_commands") > 0,
            what="joint_commands publisher matched",
        )

    def _on_command(self, msg: JointState) -> None:
        with self.lock:
            self.commands.append(msg)

    def _on_state(self, msg: JointState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_markers(self, msg: MarkerArray) -> None:
        with self.lock:
            self.markers.append(msg)

    def command_count(self) -> int:
        with self.lock:
            return len(self.commands)

    def send(self, message: MoveArm.Goal, feedback=None):
        """Send a goal and return its client goal handle once accepted."""
        future = self.client.send_goal_async(message, feedback_callback=feedback)
        wait_for(future.done, what="goal response")
        handle = future.result()
        assert handle.accepted
        return handle

    def run(self, message: MoveArm.Goal, timeout: float = 60.0) -> Outcome:
        """Send a goal, wait for its result; the commands and feedback it produced."""
        feedback: list = []
        before = self.command_count()
        started = time.monotonic()
        handle = self.send(message, feedback=lambda m: feedback.append(m.feedback))
        response = self.wait_result(handle, timeout)
        elapsed = time.monotonic() - started
        if response.result.status == Result.SUCCEEDED:
            # The result can overtake the last setpoints on their way to this listener.
            final = tuple(response.result.final_joints.position)

            def last_setpoint_seen() -> bool:
                with self.lock:
                    return (
                        len(self.commands) > before and tuple(self.commands[-1].position) == final
                    )

            wait_for(last_setpoint_seen, what="the goal's last setpoint on joint_commands")
        with self.lock:
            commands = self.commands[before:]
        return Outcome(response.result, response.status, feedback, commands, elapsed)

    @staticmethod
    def wait_result(handle, timeout: float = 60.0):
        future = handle.get_result_async()
        wait_for(future.done, timeout, "goal result")
        return future.result()

    def latest_joints(self) -> tuple[float, ...]:
        """The positions of the latest joint_states (waiting for the first one)."""

        def latest():
            with self.lock:
                return tuple(self.states[-1].position) if self.states else None

        return wait_for(latest, what="joint_states")

    def wait_until_at(self, joints, tolerance: float) -> tuple[float, ...]:
        """Wait until joint_states are within `tolerance` (rad) of `joints`, and check that
        the arm then stays there for 3 more joint_states; the positions."""
        target = np.asarray(joints, dtype=float)

        def there(index: int | None = None):
            with self.lock:
                if not self.states:
                    return None
                state = self.states[-1 if index is None else index]
            positions = np.asarray(state.position)
            return tuple(positions) if np.abs(positions - target).max() <= tolerance else None

        reached = wait_for(there, what=f"the arm at {np.round(target, 6).tolist()}")
        with self.lock:
            seen = len(self.states)
        wait_for(lambda: len(self.states) >= seen + 3, what="3 more joint_states")
        for index in range(seen, seen + 3):
            assert there(index), "the arm moved on"
        return reached

    def wait_until_tip(self, x: float, y: float, tolerance: float) -> tuple[float, ...]:
        """Wait until the tool of joint_states is within `tolerance` (m) of (x, y), and the
        last joint_commands setpoint is the one on (x, y) (a motion's last setpoints creep up
        on its goal from rest: one may be within `tolerance` before the last); joints."""

        def sent():
            with self.lock:
                last = self.commands[-1] if self.commands else None
            return last is not None and math.dist(tip_of(last.position), (x, y)) <= 1e-9

        def there():
            joints = self.latest_joints()
            return joints if math.dist(tip_of(joints), (x, y)) <= tolerance and sent() else None

        return wait_for(there, what=f"the tool at ({x}, {y})")

    def move_to(self, x: float, y: float) -> tuple[float, ...]:
        """Bring the tool to (x, y) with a fast JOINT move; the joints once it is there."""
        outcome = self.run(goal(x, y, mode=Goal.JOINT, speed=1.0))
        assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
        return self.wait_until_at(outcome.result.final_joints.position, 1e-9)

    def assert_no_command_after(self, count: int) -> None:
        """No joint_commands since `count`, checked after the hardware published 5 more
        joint_states (the graph has been running for a while after the result)."""
        with self.lock:
            seen = len(self.states)
        wait_for(lambda: len(self.states) >= seen + 5, what="5 more joint_states")
        with self.lock:
            extra = self.commands[count:]
        assert extra == [], f"{len(extra)} joint_commands were sent"

    def latest_markers(self) -> MarkerArray:
        with self.lock:
            return self.markers[-1]


#: joint_states at 25 Hz instead of 50: every node of these tests shares one process and one
#: rclpy executor, which on 2 cores slips into a busy loop under ~300 callbacks a second
#: (rclpy 7.1, see the report); the setpoints still stream at the configured 50 Hz.
TEST_OVERRIDES = (("hardware.publish_rate_hz", 25.0),)


def make_nodes(graph: RosGraph, *, ik=True, hardware=True, overrides=(), namespace="") -> dict:
    """The nodes of one arm; a `namespace` keeps a second arm in the same process (and DDS
    domain) apart from the first."""
    params = [Parameter(name, value=value) for name, value in (*TEST_OVERRIDES, *overrides)]
    common = {"context": graph.context, "parameter_overrides": params, "namespace": namespace}
    nodes = {}
    if ik:
        nodes["ik"] = graph.add(IkNode(**common))
    if hardware:
        nodes["hardware"] = graph.add(HardwareNode(**common))
    nodes["trajectory"] = graph.add(TrajectoryNode(**common))
    return nodes


@pytest.fixture(scope="module")
def arm() -> Iterator[Harness]:
    with ros_graph() as graph:
        nodes = make_nodes(graph)
        harness = Harness(graph, nodes["hardware"])
        harness.trajectory = nodes["trajectory"]
        yield harness


# --- a straight line that works ------------------------------------------------------------------


def test_straight_line_streams_setpoints_on_the_line_within_the_joint_speed_limits(arm):
    start = arm.move_to(0.15, -0.02)
    target = (0.11, 0.09)
    outcome = arm.run(goal(*target, speed=0.05))
    result = outcome.result
    assert result.status == Result.SUCCEEDED, result.message
    assert outcome.status == GoalStatus.STATUS_SUCCEEDED
    tips = np.array([tip_of(c.position) for c in outcome.commands])
    start_tip = tip_of(start)
    length = math.dist(start_tip, target)
    # No joint limits the tool on this line: from rest up to 0.05 m/s at 0.3 m/s^2, and down
    # again to rest at the target, a setpoint per period, each on the line.
    distances = trapezoid_distances(length, 0.05 * TOOL_SHARE, TOOL_ACCELERATION * TOOL_SHARE)
    assert len(tips) == len(distances) == 126
    along = (tips - start_tip) @ np.subtract(target, start_tip) / length
    assert along == pytest.approx(distances, abs=1e-9)
    assert tips[-1] == pytest.approx(target, abs=1e-6)
    check_stream(start, outcome.commands, (start_tip, target))
    for command in outcome.commands:
        assert list(command.name) == NAMES
    # The result: the whole path feasible, final joints = the last setpoint, planned steps (a
    # point at every setpoint: they are under 1 mm apart).
    assert result.feasible_fraction == 1.0
    assert result.total_steps == len(distances)
    assert list(result.final_joints.position) == list(outcome.commands[-1].position)
    assert list(result.final_joints.name) == NAMES
    # Feedback: with the first setpoint, then every 0.1 s (about every 5th setpoint), and with
    # the last; the tip is that of the commanded setpoint. (A KEEP_LAST topic: a busy client
    # may miss one, never the newest.)
    steps = [f.step for f in outcome.feedback]
    assert steps[-1] == len(tips)
    assert steps == sorted(set(steps))
    assert len(steps) >= len(tips) // 10
    for f in outcome.feedback:
        assert (f.tip.x, f.tip.y) == pytest.approx(tips[f.step - 1], abs=1e-12)
        assert list(f.joints.position) == list(outcome.commands[f.step - 1].position)
    assert outcome.feedback[-1].fraction == pytest.approx(1.0)
    assert {f.total_steps for f in outcome.feedback} == {len(tips)}
    last = outcome.feedback[-1]
    assert (last.tip.x, last.tip.y) == pytest.approx(target, abs=1e-9)
    # The arm got there (the sim follows at the servo speed).
    arm.wait_until_tip(*target, 1e-6)
    # The planned path marker: a line strip from the start to the goal.
    strip = [m for m in arm.latest_markers().markers if m.type == Marker.LINE_STRIP]
    assert len(strip) == 1
    assert (strip[0].points[0].x, strip[0].points[0].y) == pytest.approx(start_tip, abs=1e-9)
    assert (strip[0].points[-1].x, strip[0].points[-1].y) == pytest.approx(target, abs=1e-9)


def test_joint_mode_reaches_the_goal_with_the_tool_off_the_straight_line(arm):
    start = arm.move_to(0.16, -0.05)
    target = (0.06, 0.14)
    outcome = arm.run(goal(*target, mode=Goal.JOINT, speed=0.8))
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    tips = np.array([tip_of(c.position) for c in outcome.commands])
    assert tips[-1] == pytest.approx(target, abs=1e-9)
    # The tool swings on a curve: more than 1 cm from the straight line at its worst.
    assert distance_to_line(tips, tip_of(start), target).max() > 0.01
    joints = np.array([start] + [list(c.position) for c in outcome.commands])
    steps = np.abs(np.diff(joints, axis=0))
    assert np.all(steps <= 0.8 * LIMITS * PERIOD * (1 + 1e-9))
    check_stream(start, outcome.commands)  # from rest to rest within the accelerations too
    # Each joint moves in a straight line in joint space (all in step).
    progress = (joints - joints[0]) / (joints[-1] - joints[0])
    assert progress[:, 0] == pytest.approx(progress[:, 1], abs=1e-9)


# --- plans that fail before anything moves --------------------------------------------------------


def first_index(points, predicate) -> int:
    return next(i for i, p in enumerate(points) if predicate(p))


def line_points(start, target, speed=0.05) -> list[tuple[float, float]]:
    """The planned points of a line at the default 1 mm step and `speed`: where the tool's own
    timing puts its setpoints (under 1 mm apart)."""
    length = math.dist(start, target)
    distances = trapezoid_distances(length, speed * TOOL_SHARE, TOOL_ACCELERATION * TOOL_SHARE)
    assert np.diff(np.concatenate(([0.0], distances))).max() <= 0.001
    return [
        (
            start[0] + d / length * (target[0] - start[0]),
            start[1] + d / length * (target[1] - start[1]),
        )
        for d in distances.tolist()
    ]


@pytest.mark.parametrize(
    ("target", "ik_status", "fails_at"),
    [
        # Out of reach: the first point farther than L1 + L2 from the base.
        ((0.17, 0.08), SolveIK.Response.TOO_FAR, lambda p: math.hypot(*p) > L1 + L2),
        # The elbow's +-90 deg limits: nothing closer than sqrt(L1^2 + L2^2) is reachable.
        ((0.05, 0.0), SolveIK.Response.JOINT_LIMIT, lambda p: math.hypot(*p) < math.hypot(L1, L2)),
    ],
    ids=["too_far", "joint_limit"],
)
def test_an_infeasible_line_aborts_at_the_right_step_and_sends_nothing(
    arm, target, ik_status, fails_at
):
    start = arm.move_to(0.17, 0.0)
    points = line_points(tip_of(start), target)
    expected = first_index(points, fails_at)
    accepted = arm.hardware.counters.commands_accepted
    before = arm.command_count()
    outcome = arm.run(goal(*target))
    result = outcome.result
    assert result.status == Result.IK_FAILED, result.message
    assert outcome.status == GoalStatus.STATUS_ABORTED
    assert result.ik_status == ik_status
    assert result.failed_step == expected
    assert result.total_steps == len(points)
    reached = math.dist(tip_of(start), points[expected - 1])
    assert result.feasible_fraction == pytest.approx(reached / math.dist(tip_of(start), target))
    assert (result.failed_point.x, result.failed_point.y) == pytest.approx(
        points[expected], abs=1e-12
    )
    assert f"step {expected} of {len(points)}" in result.message
    assert "nothing moved" in result.message
    assert list(result.final_joints.position) == pytest.approx(start, abs=1e-12)
    assert outcome.feedback == []
    arm.assert_no_command_after(before)
    assert arm.hardware.counters.commands_accepted == accepted
    # The markers: the feasible part green, a red sphere on the failing point, a label.
    markers = {(m.ns, m.type): m for m in arm.latest_markers().markers}
    assert markers[("", 0)].action == Marker.DELETEALL
    sphere = markers[("failed_step", Marker.SPHERE)]
    assert (sphere.pose.position.x, sphere.pose.position.y) == pytest.approx(
        points[expected], abs=1e-12
    )
    assert (sphere.color.r, sphere.color.g) == (1.0, pytest.approx(0.1))
    feasible = markers[("feasible_path", Marker.LINE_STRIP)]
    assert feasible.color.g > 0.8 > feasible.color.r
    assert len(feasible.points) == expected + 1  # the start and every feasible point
    label = markers[("failed_step", Marker.TEXT_VIEW_FACING)].text
    assert "IK_FAILED" in label
    assert f"step {expected}/{len(points)}" in label


def test_joint_mode_to_a_joint_limit_goal_aborts_at_step_0(arm):
    arm.move_to(0.17, 0.0)
    before = arm.command_count()
    outcome = arm.run(goal(0.05, 0.0, mode=Goal.JOINT))
    assert outcome.result.status == Result.IK_FAILED
    assert outcome.result.ik_status == SolveIK.Response.JOINT_LIMIT
    assert outcome.result.failed_step == 0
    assert outcome.result.total_steps == 1
    assert outcome.result.feasible_fraction == 0.0
    arm.assert_no_command_after(before)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"x": math.nan}, "target position (nan, 0.05, 0.0) must be finite numbers"),
        ({"speed": -0.1}, "negative"),
        ({"max_step": -0.001}, "negative"),
        ({"frame": "world"}, "'world' is not the arm's base frame 'base_link'"),
        ({"z": 0.01}, "off the arm's plane"),
        ({"mode": 7}, "unknown mode 7"),
        ({"mode": Goal.JOINT, "speed": 1.5}, "fraction (0, 1]"),
        ({"orientation_mode": Goal.FULL_ORIENTATION, "qz": 0.5}, "norm"),
        ({"orientation_mode": 3}, "unknown orientation_mode 3"),
    ],
)
def test_invalid_goals_are_refused_with_the_reason_and_move_nothing(arm, fields, reason):
    message = goal(0.12, 0.05)
    for key, value in fields.items():
        if key == "x":
            message.target.pose.position.x = value
        elif key == "z":
            message.target.pose.position.z = value
        elif key == "frame":
            message.target.header.frame_id = value
        elif key == "qz":
            message.target.pose.orientation.z = value
        else:
            setattr(message, key, value)
    before = arm.command_count()
    outcome = arm.run(message)
    assert outcome.result.status == Result.INVALID_GOAL
    assert outcome.status == GoalStatus.STATUS_ABORTED
    assert reason in outcome.result.message
    arm.assert_no_command_after(before)


# --- cancel and preemption ----------------------------------------------------------------------


def test_cancel_decelerates_along_the_line_and_leaves_the_arm_at_the_last_setpoint(arm):
    start = arm.move_to(0.16, 0.0)
    feedback: list = []
    before = arm.command_count()
    handle = arm.send(goal(0.10, 0.10, speed=0.05), feedback=lambda m: feedback.append(m))
    wait_for(lambda: len(feedback) >= 10, what="10 feedback messages")  # at 0.05 m/s by then
    cancel = handle.cancel_goal_async()
    wait_for(cancel.done, what="cancel response")
    assert len(cancel.result().goals_canceling) == 1
    response = arm.wait_result(handle)
    result = response.result
    assert response.status == GoalStatus.STATUS_CANCELED
    assert result.status == Result.CANCELED
    with arm.lock:
        sent = arm.commands[before:]
    total = feedback[-1].feedback.total_steps
    assert 10 <= result.sent_setpoints < len(sent) < total  # decelerated, and well before the end
    assert result.total_setpoints == total
    assert list(result.final_joints.position) == list(sent[-1].position)
    # The deceleration: on the line, within every limit, the tool from 0.05 m/s to rest.
    check_stream(start, sent, (tip_of(start), (0.10, 0.10)))
    tips = np.array([tip_of(c.position) for c in sent])
    speeds = np.linalg.norm(np.diff(tips, axis=0), axis=1) / PERIOD
    stop = result.sent_setpoints - 1
    assert speeds[stop - 1] == pytest.approx(0.05 * TOOL_SHARE, rel=1e-6)
    assert np.all(np.diff(speeds[stop:]) < 0)  # slower every period, to rest
    assert "decelerated along its path in " in result.message
    count = arm.command_count()
    arm.assert_no_command_after(count)
    # The arm stays at the last commanded point.
    arm.wait_until_at(sent[-1].position, 1e-9)


def test_a_new_goal_preempts_the_running_one_which_decelerates_first(arm):
    start = arm.move_to(0.16, 0.0)
    feedback: list = []
    before = arm.command_count()
    first = arm.send(goal(0.10, 0.10, speed=0.05), feedback=lambda m: feedback.append(m))
    wait_for(lambda: len(feedback) >= 10, what="first goal streaming")
    target = (0.15, 0.05)
    second = arm.run(goal(*target, speed=0.1))
    first_response = arm.wait_result(first)
    assert first_response.result.status == Result.PREEMPTED
    assert first_response.status == GoalStatus.STATUS_ABORTED
    assert "preempted" in first_response.result.message
    assert "decelerated along its path in " in first_response.result.message
    assert second.result.status == Result.SUCCEEDED, second.result.message
    # The first goal decelerated to rest on its line within the limits; the second starts
    # from that very setpoint (from rest: its first step is a period's acceleration), so the
    # whole stream of commands keeps the limits.
    stopped_at = list(first_response.result.final_joints.position)
    with arm.lock:
        commands = arm.commands[before:]
    positions = [list(c.position) for c in commands]
    cut = max(i for i, q in enumerate(positions) if q == stopped_at) + 1
    check_stream(start, commands[:cut], (tip_of(start), (0.10, 0.10)))
    check_stream(stopped_at, commands[cut:], (tip_of(stopped_at), target))
    tips = np.array([tip_of(c.position) for c in commands[cut:]])
    assert math.dist(tip_of(stopped_at), tips[0]) <= 0.5 * TOOL_ACCELERATION * PERIOD**2
    assert tips[-1] == pytest.approx(target, abs=1e-6)


def test_an_invalid_goal_does_not_disturb_the_running_one(arm):
    arm.move_to(0.16, 0.0)
    feedback: list = []
    target = (0.15, 0.03)
    running = arm.send(goal(*target, speed=0.05), feedback=lambda m: feedback.append(m))
    wait_for(lambda: len(feedback) >= 3, what="goal streaming")
    refused = arm.run(goal(0.1, 0.1, speed=-1.0))
    assert refused.result.status == Result.INVALID_GOAL
    response = arm.wait_result(running)
    assert response.result.status == Result.SUCCEEDED, response.result.message
    assert tip_of(response.result.final_joints.position) == pytest.approx(target, abs=1e-6)


# --- RViz's "Publish Point" --------------------------------------------------------------------


def test_a_clicked_point_moves_the_tool_there_in_a_straight_line(arm):
    start = arm.move_to(0.16, 0.0)
    wait_for(lambda: arm.node.count_subscribers("clicked_point") > 0, what="clicked_point matched")
    before = arm.command_count()
    click = PointStamped()
    click.header.frame_id = CONFIG.base_frame
    click.point.x, click.point.y = 0.14, 0.06
    arm.clicked.publish(click)

    arm.wait_until_tip(0.14, 0.06, 1e-6)
    with arm.lock:
        sent = arm.commands[before:]
    tips = np.array([tip_of(c.position) for c in sent])
    assert distance_to_line(tips, tip_of(start), (0.14, 0.06)).max() < 1e-6


def test_status_names_cover_every_result_constant():
    constants = {
        name: value
        for name, value in vars(Result).items()
        if name.isupper() and isinstance(value, int)
    }
    assert {status_name(v) for v in constants.values()} == set(constants)


def test_destroyed_node_leaves_the_ros_graph_at_once() -> None:
    # rclpy's destroy_node leaves action servers alone, and the server's handle would keep the
    # node in the graph until the garbage collector ran; with the collector off, it never does.
    import gc

    import rclpy
    from rclpy.context import Context

    key = ("trajectory_node", "/destroy_test")
    with ros_graph() as graph:
        probe = graph.node("destroy_probe")
        context = Context()
        rclpy.init(context=context)
        gc.disable()
        try:
            node = TrajectoryNode(context=context, namespace="/destroy_test")
            wait_for(lambda: key in probe.get_node_names_and_namespaces(), what="node seen")
            node.destroy_node()
            rclpy.shutdown(context=context)
            wait_for(lambda: key not in probe.get_node_names_and_namespaces(), what="node gone")
        finally:
            gc.enable()
