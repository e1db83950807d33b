"""The trajectory node's FollowJointTrajectory action against the real nodes, through an rclpy
ActionClient sending what MoveIt's FollowJointTrajectory controller handle sends: the desk kit
(spatial, 5 arm joints and a gripper) on the sim backend, and the planar default arm with a
controller name and partial goals of its own.

In-process nodes on one graph (the sim backend within reach, for the obstacles); every wait is
for a condition. Expected values are written out from the goals, never read back from the code.
"""

from __future__ import annotations

import itertools
import math
import re
import signal
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointComponentTolerance, JointTolerance
from rclpy.parameter import Parameter
from ros_helpers import RosGraph, file_parameters, ros_graph, wait_for
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.params import ParameterStartupError
from arm_kinematics.nodes.trajectory.follow_joint_trajectory import duration
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

pytestmark = pytest.mark.ros

D = math.radians
Code = FollowJointTrajectory.Result
KIT_PATH = default_config_path("arm_desk_kit.yaml")
KIT = ArmConfig.from_file(KIT_PATH)
NAMES = KIT.joint_names  # base_yaw, shoulder, elbow, wrist_pitch, wrist_roll
LIMITS = np.asarray(KIT.max_velocities)
ACCELERATIONS = np.asarray(KIT.max_accelerations)
PERIOD = 1.0 / KIT.trajectory.command_rate_hz
ELBOW_CHANNEL = 2  # its servo: offset 20 deg, sign -1, so servo deg = 20 - elbow deg
POSE_A = tuple(D(v) for v in (0.0, 90.0, -90.0, 0.0, 0.0))  # home
POSE_B = tuple(D(v) for v in (20.0, 70.0, -60.0, -20.0, 30.0))
#: joint_states at 25 Hz, as the other in-process graphs (one executor for every node).
TEST_OVERRIDES = {"hardware.publish_rate_hz": 25.0}


def nodes_of(graph: RosGraph, path, namespace: str = "", ik: bool = False, **overrides: Any):
    common = {"context": graph.context, "namespace": namespace}
    arm = file_parameters(path, **TEST_OVERRIDES)
    hardware = graph.add(HardwareNode(parameter_overrides=arm, **common))
    if ik:
        graph.add(IkNode(parameter_overrides=arm, **common))
    own = [Parameter(name, value=value) for name, value in overrides.items()]
    trajectory = graph.add(TrajectoryNode(parameter_overrides=arm + own, **common))
    return hardware, trajectory


def smooth_points(
    start: Sequence[float], end: Sequence[float], seconds: float, count: int = 20
) -> list[tuple[float, list[float], list[float], list[float]]]:
    """What MoveIt's time parameterisation makes of a move: `count` + 1 points from `start`
    (time 0) to `end`, a cubic in time (at rest at both ends): (time, positions, velocities,
    accelerations), rad and s."""
    q0, q1 = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    points = []
    for i in range(count + 1):
        tau = i / count
        s, ds, dds = 3 * tau**2 - 2 * tau**3, 6 * tau * (1 - tau), 6 - 12 * tau
        points.append(
            (
                seconds * tau,
                (q0 + s * (q1 - q0)).tolist(),
                (ds / seconds * (q1 - q0)).tolist(),
                (dds / seconds**2 * (q1 - q0)).tolist(),
            )
        )
    points[-1] = (seconds, list(end), [0.0] * len(end), points[-1][3])
    return points


def seconds_for(
    start: Sequence[float],
    end: Sequence[float],
    fraction: float = 0.6,
    limits=LIMITS,
    accelerations=None,
) -> float:
    """A duration in which a cubic from `start` to `end` peaks at `fraction` of the slowest
    joint's velocity limit and of its acceleration limit (the cubic's peak speed is 1.5 times
    its mean, its acceleration 6 dq / T^2 at either end)."""
    steps = np.abs(np.asarray(end) - np.asarray(start))
    accelerations = ACCELERATIONS if accelerations is None else np.asarray(accelerations)
    return float(
        max(
            0.5,
            np.max(1.5 * steps / (fraction * np.asarray(limits))),
            np.max(np.sqrt(6.0 * steps / (fraction * accelerations))),
        )
    )


def goal_of(
    points,
    names: Sequence[str] = NAMES,
    order: Sequence[int] | None = None,
    stamp: float = 0.0,
    **fields: Any,
) -> FollowJointTrajectory.Goal:
    """A goal with the points (time, positions[, velocities[, accelerations]]) for `names`,
    the joints sent in `order` (indices into names)."""
    order = list(range(len(names))) if order is None else list(order)
    trajectory = JointTrajectory(joint_names=[names[i] for i in order])
    trajectory.header.stamp = duration(stamp) if stamp else trajectory.header.stamp
    for point in points:
        time, *fields_of_point = point
        message = JointTrajectoryPoint(time_from_start=duration(time))
        for field, values in zip(
            ("positions", "velocities", "accelerations"), fields_of_point, strict=False
        ):
            setattr(message, field, [float(values[i]) for i in order])
        trajectory.points.append(message)
    return FollowJointTrajectory.Goal(trajectory=trajectory, **fields)


def tolerances(**bounds: float) -> list[JointTolerance]:
    return [JointTolerance(name=name, position=value) for name, value in bounds.items()]


class Probe:
    """A FollowJointTrajectory client, listeners on joint_states and joint_commands, and a
    joint_trajectory publisher, for one arm."""

    def __init__(
        self,
        graph: RosGraph,
        hardware: HardwareNode,
        trajectory: TrajectoryNode,
        action: str = "arm_controller/follow_joint_trajectory",
        namespace: str = "",
    ) -> None:
        self.hardware = hardware
        self.trajectory = trajectory
        self.names = list(trajectory.config.joint_names)
        self.node = graph.node("follow_probe" + namespace.replace("/", "_"), namespace=namespace)
        self.lock = threading.Lock()
        self.states: list[JointState] = []
        self.commands: list[JointState] = []
        self.node.create_subscription(JointState, "joint_states", self._on_state, 100)
        self.node.create_subscription(JointState, "joint_commands", self._on_command, 1000)
        self.topic = self.node.create_publisher(JointTrajectory, "joint_trajectory", 10)
        self.client = ActionClient(self.node, FollowJointTrajectory, action)
        self.move_arm = ActionClient(self.node, MoveArm, "move_arm")
        wait_for(lambda: self.client.wait_for_server(timeout_sec=0.1), what=f"server {action}")
        wait_for(lambda: self.node.count_publishers("joint_commands") > 0, what="commands match")
        wait_for(lambda: self.topic.get_subscription_count() > 0, what="joint_trajectory match")
        wait_for(lambda: len(self.states) > 3, what="joint_states")

    def _on_state(self, msg: JointState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_command(self, msg: JointState) -> None:
        with self.lock:
            self.commands.append(msg)

    def now(self) -> float:
        return self.node.get_clock().now().nanoseconds * 1e-9

    def arm_joints(self, msg: JointState | None = None) -> tuple[float, ...]:
        """The arm's joints of a joint_states message (the latest by default), in arm order."""
        if msg is None:
            with self.lock:
                msg = self.states[-1]
        by_name = dict(zip(msg.name, msg.position, strict=True))
        return tuple(by_name[name] for name in self.names)

    def state_count(self) -> int:
        with self.lock:
            return len(self.states)

    def command_count(self) -> int:
        with self.lock:
            return len(self.commands)

    def states_since(self, count: int) -> list[JointState]:
        with self.lock:
            return self.states[count:]

    def commands_since(self, count: int) -> list[JointState]:
        with self.lock:
            return self.commands[count:]

    def send(self, goal: FollowJointTrajectory.Goal, feedback: list | None = None):
        """The client goal handle of `goal`, accepted."""
        callback = None if feedback is None else (lambda m: feedback.append(m.feedback))
        future = self.client.send_goal_async(goal, feedback_callback=callback)
        handle = wait_for(lambda: future.done() and future.result(), what="goal response")
        assert handle.accepted
        return handle

    @staticmethod
    def result(handle, timeout: float = 60.0):
        future = handle.get_result_async()
        return wait_for(lambda: future.done() and future.result(), timeout, "goal result")

    def follow(self, goal: FollowJointTrajectory.Goal, feedback: list | None = None):
        return self.result(self.send(goal, feedback))

    def wait_still(self, count: int = 4) -> tuple[float, ...]:
        """Wait until `count` joint_states in a row are equal and on the hardware node's last
        command (equal states alone are no rest: a loaded machine can delay the commands still
        coming); the arm's joints then."""

        def still():
            with self.lock:
                last = self.states[-count:]
            if len(last) < count:
                return None
            first = self.arm_joints(last[0])
            commanded = self.hardware.targets[: len(self.names)]
            if not np.allclose(first, commanded, rtol=0.0, atol=1e-9):
                return None
            return first if all(self.arm_joints(m) == first for m in last) else None

        return wait_for(still, what="the arm at rest")

    def move_to(self, pose: Sequence[float]) -> tuple[float, ...]:
        """A MoveIt-style goal from where the arm is to `pose`; the joints once it is at rest."""
        start = self.wait_still()
        if np.allclose(start, pose, atol=1e-12):
            return start
        config = self.trajectory.config
        seconds = seconds_for(start, pose, 0.9, config.max_velocities, config.max_accelerations)
        answer = self.follow(goal_of(smooth_points(start, pose, seconds, 8), self.names))
        assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
        at = self.wait_still()
        assert at == pytest.approx(pose, abs=1e-9)
        return at

    def wait_held(self, joint: int, position: float) -> tuple[tuple[float, ...], int]:
        """After a goal that ended holding a blocked servo's joint (index `joint`) at
        `position` (rad): the pose of that hold command, once the hardware node took it, and
        the count of commands this probe saw then."""

        def held():
            with self.lock:
                last = tuple(self.commands[-1].position) if self.commands else None
                count = len(self.commands)
            at = self.hardware.targets[: len(self.names)]
            there = last is not None and abs(last[joint] - position) < 1e-9
            return (last, count) if there and last == at else None

        return wait_for(held, what="the hold command at the hardware node")

    def assert_nothing_moves_after(self, commands: int) -> tuple[float, ...]:
        """No joint_commands since `commands`, checked while 5 more joint_states came, all
        equal; the arm's joints."""
        seen = self.state_count()
        wait_for(lambda: self.state_count() >= seen + 5, what="5 more joint_states")
        extra = self.commands_since(commands)
        assert extra == [], f"{len(extra)} joint_commands were sent"
        poses = {self.arm_joints(m) for m in self.states_since(seen)}
        assert len(poses) == 1, "the arm moved"
        return poses.pop()


@pytest.fixture(scope="module")
def kit() -> Iterator[Probe]:
    with ros_graph() as graph:
        hardware, trajectory = nodes_of(graph, KIT_PATH)
        yield Probe(graph, hardware, trajectory)


def assert_feedback_is_consistent(feedback: list, names: Sequence[str]) -> None:
    for message in feedback:
        assert list(message.joint_names) == list(names)
        for point in (message.desired, message.actual, message.error):
            assert len(point.positions) == len(names)
            assert len(point.velocities) == len(names)
        error = np.asarray(message.desired.positions) - np.asarray(message.actual.positions)
        assert np.asarray(message.error.positions) == pytest.approx(error, abs=1e-12)
        assert message.desired.time_from_start == message.actual.time_from_start


# --- what MoveIt sends -------------------------------------------------------------------------


def test_a_moveit_trajectory_runs_and_ends_on_its_last_point_with_feedback(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    seconds = seconds_for(start, POSE_B)
    # MoveIt sends the group's joints in its own order, the first point the current pose at 0.
    goal = goal_of(smooth_points(start, POSE_B, seconds), order=[4, 2, 0, 3, 1])
    feedback: list = []
    before = kit.command_count()
    answer = kit.follow(goal, feedback)
    assert answer.status == GoalStatus.STATUS_SUCCEEDED
    assert answer.result.error_code == Code.SUCCESSFUL
    assert answer.result.error_string.startswith("reached the last point")
    # At the result every joint is within the default goal tolerance (1 deg) of the last point,
    # and the arm comes to rest on it.
    assert kit.arm_joints() == pytest.approx(POSE_B, abs=D(1.0))
    assert kit.wait_still() == pytest.approx(POSE_B, abs=1e-9)
    # Streamed in the arm's order at the command rate, no step beyond a joint's speed limit.
    commands = kit.commands_since(before)
    assert all(list(c.name) == list(NAMES) for c in commands)
    sent = np.array([start] + [c.position for c in commands])
    assert sent[-1] == pytest.approx(POSE_B, abs=1e-12)
    assert len(commands) == math.ceil(seconds / PERIOD - 1e-9)
    assert np.all(np.abs(np.diff(sent, axis=0)) <= LIMITS * PERIOD * (1 + 1e-9))
    # Feedback with every setpoint (and while it settles): desired, actual, error.
    # One per setpoint; a loaded client may lose some (the feedback topic keeps the last 10),
    # but at the 10 Hz of MoveArm feedback there would be a fifth of them.
    assert len(feedback) >= 0.5 * len(commands)
    assert_feedback_is_consistent(feedback, NAMES)
    times = [
        f.desired.time_from_start.sec + f.desired.time_from_start.nanosec * 1e-9 for f in feedback
    ]
    # The last: desired where the trajectory wanted the joints when joint_states measured them,
    # near its end.
    assert times[-1] >= seconds - 0.2
    assert feedback[-1].desired.positions == pytest.approx(POSE_B, abs=D(1.0))
    moving = [f for f, t in zip(feedback, times, strict=True) if 0.3 * seconds < t < 0.7 * seconds]
    assert moving
    # Actual velocities from differences of joint_states: mid-move most of them show the arm
    # moving (a late setpoint on a loaded machine lets the servos wait a tick at rest).
    in_motion = [np.any(np.abs(f.actual.velocities) > 0.1) for f in moving]
    assert sum(in_motion) >= 0.5 * len(moving)


def test_a_stamp_in_the_future_holds_the_arm_until_then(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    seconds = seconds_for(start, POSE_B)
    stamp = kit.now() + 1.0
    feedback: list = []
    seen = kit.state_count()
    answer = kit.follow(goal_of(smooth_points(start, POSE_B, seconds), stamp=stamp), feedback)
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    states = kit.states_since(seen)
    moving = [m for m in states if kit.arm_joints(m) != pytest.approx(start, abs=1e-12)]
    first = moving[0].header.stamp.sec + moving[0].header.stamp.nanosec * 1e-9
    # The setpoint streamed at a tick is the trajectory one period later: the arm may leave up
    # to a period (and a joint_states period, 40 ms here) before the stamp, not earlier.
    assert first >= stamp - PERIOD - 0.04
    assert len([m for m in states if kit.arm_joints(m) == start]) >= 10  # it held meanwhile
    # Feedback during the wait says so: the trajectory's time is negative before its stamp.
    assert feedback[0].desired.time_from_start.sec < 0
    assert kit.wait_still() == pytest.approx(POSE_B, abs=1e-9)


def test_a_stamp_a_little_in_the_past_starts_at_once(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    seconds = seconds_for(start, POSE_B)
    goal = goal_of(smooth_points(start, POSE_B, seconds), stamp=kit.now() - 0.2)
    answer = kit.follow(goal)  # 0.2 s late: within the default goal time of 1 s
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    assert kit.wait_still() == pytest.approx(POSE_B, abs=1e-9)


# --- every error code, with nothing else moving ------------------------------------------------


def bad_goals(kit: Probe) -> list[tuple[str, FollowJointTrajectory.Goal, int, str | re.Pattern]]:
    """(id, goal, error_code, words of its error_string) from the arm at rest at POSE_A."""
    a, b = POSE_A, POSE_B
    slow = [(0.0, a), (3.0, b)]
    subset = goal_of([(2.0, b[:4])], names=NAMES[:4])
    unknown = goal_of(slow)
    unknown.trajectory.joint_names[1] = "knee"
    twice = goal_of(slow)
    twice.trajectory.joint_names[1] = "base_yaw"
    backwards = goal_of([(2.0, b), (1.0, a)])
    beyond = goal_of([(3.0, (*b[:2], D(20.0), *b[3:]))])
    fast = goal_of([(0.1, b)])
    # Positions only, from where the arm is at rest: 30 deg of elbow in 3 s, straight at once.
    jolt = goal_of(slow)
    # Accelerations given: 7 rad/s^2 of wrist roll at the first point (its limit 720 deg/s^2).
    rates = [[0.0] * 5, [0.0, 0.0, 0.0, 0.0, 13.0], [0.0] * 5]
    zeros = [0.0] * 5
    hard = goal_of(
        [(0.0, a, zeros, rates[0]), (1.5, a, zeros, rates[1]), (3.0, b, zeros, rates[2])]
    )
    moving_at_the_end = goal_of([(3.0, b, [0.1] * 5)])
    multi_dof = goal_of(slow)
    multi_dof.multi_dof_trajectory.joint_names = ["base"]
    component = goal_of(slow, component_goal_tolerance=[JointComponentTolerance(joint_name="x")])
    return [
        ("subset", subset, Code.INVALID_JOINTS, "joints wrist_roll are missing"),
        ("unknown", unknown, Code.INVALID_JOINTS, "unknown joint knee"),
        ("twice", twice, Code.INVALID_JOINTS, "joint base_yaw is named twice"),
        ("multi_dof", multi_dof, Code.INVALID_JOINTS, "this arm has no multi-DOF joints"),
        ("component", component, Code.INVALID_JOINTS, "component tolerances"),
        (
            "tolerance_joint",
            goal_of(slow, goal_tolerance=tolerances(knee=0.1)),
            Code.INVALID_JOINTS,
            "goal_tolerance names joint 'knee', not one of this controller's joints",
        ),
        (
            "tolerance_value",
            goal_of(slow, path_tolerance=tolerances(elbow=-2.0)),
            Code.INVALID_GOAL,
            "path_tolerance of joint elbow: position = -2: a tolerance is > 0, 0",
        ),
        ("empty", goal_of([]), Code.INVALID_GOAL, "the trajectory has no points"),
        (
            "backwards",
            backwards,
            Code.INVALID_GOAL,
            "point 1: time_from_start 1 s does not increase (point 0 is at 2 s)",
        ),
        (
            "beyond_limits",
            beyond,
            Code.INVALID_GOAL,
            "point 0: joint elbow = 20.00 deg is outside its limits [-150.00, 10.00] deg",
        ),
        ("too_fast", fast, Code.INVALID_GOAL, "faster than its limit"),
        (
            "over_acceleration",
            jolt,
            Code.INVALID_GOAL,
            "point 0 (0.00 s): joint elbow accelerates at 8.73 rad/s^2, over its limit 6.28",
        ),
        (
            "given_acceleration",
            hard,
            Code.INVALID_GOAL,
            "point 1: joint wrist_roll acceleration 13 rad/s^2 is over its limit 12.6 rad/s^2",
        ),
        ("moving_at_the_end", moving_at_the_end, Code.INVALID_GOAL, "must end at rest"),
        (
            "ended_in_the_past",
            goal_of(slow, stamp=kit.now() - 5.0),
            Code.OLD_HEADER_TIMESTAMP,
            # 5 s and the time the goals before it took (the goals are made first).
            re.compile(r"header\.stamp is ([5-9]|\d\d+)\.\d\d s in the past"),
        ),
        (
            "late_beyond_the_goal_time",
            goal_of(slow, stamp=kit.now() - 1.5),
            Code.OLD_HEADER_TIMESTAMP,
            "more than goal_time_tolerance 1 s",
        ),
    ]


def test_every_invalid_goal_ends_with_its_error_code_and_moves_nothing(kit: Probe) -> None:
    kit.move_to(POSE_A)
    before = kit.command_count()
    for name, goal, code, words in bad_goals(kit):
        answer = kit.follow(goal)
        assert answer.status == GoalStatus.STATUS_ABORTED, name
        assert answer.result.error_code == code, (name, answer.result.error_string)
        said = answer.result.error_string
        assert words.search(said) if isinstance(words, re.Pattern) else words in said, (name, said)
    assert kit.assert_nothing_moves_after(before) == POSE_A


def test_a_blocked_servo_breaks_the_path_tolerance_and_the_arm_holds_there(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    # The elbow goes from -90 to -60 deg (servo 110 -> 80 deg); an obstacle at servo 95 deg
    # stops it at -75 deg, 9 deg before its end: beyond a path tolerance of 0.1 rad (5.7 deg).
    kit.hardware.backend.block(ELBOW_CHANNEL, 95.0)
    try:
        seconds = seconds_for(start, POSE_B)
        goal = goal_of(smooth_points(start, POSE_B, seconds), path_tolerance=tolerances(elbow=0.1))
        answer = kit.follow(goal)
        assert answer.status == GoalStatus.STATUS_ABORTED
        assert answer.result.error_code == Code.PATH_TOLERANCE_VIOLATED
        words = answer.result.error_string
        assert words.startswith("path tolerance broken")
        assert "joint elbow" in words
        assert "beyond 0.1000 rad (5.73 deg)" in words
        assert "the arm holds at" in words
        # Held where joint_states said the arm was: the elbow at the obstacle (it no longer
        # pushes), the other joints part of the way.
        held_at, count = kit.wait_held(2, D(-75.0))
        here = kit.assert_nothing_moves_after(count)
        assert here == pytest.approx(held_at, abs=1e-9)
        assert here[0] != pytest.approx(POSE_B[0], abs=D(1.0))  # the yaw stopped too
    finally:
        kit.hardware.backend.unblock(ELBOW_CHANNEL)


def test_a_goal_tolerance_missed_ends_the_goal_and_one_from_the_goal_applies(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    # An obstacle at servo 82 deg stops the elbow at -62 deg, 2 deg short of its end.
    kit.hardware.backend.block(ELBOW_CHANNEL, 82.0)
    try:
        seconds = seconds_for(start, POSE_B)
        points = smooth_points(start, POSE_B, seconds)
        late = goal_of(points, goal_time_tolerance=duration(0.3))
        answer = kit.follow(late)
        assert answer.status == GoalStatus.STATUS_ABORTED
        assert answer.result.error_code == Code.GOAL_TOLERANCE_VIOLATED
        words = answer.result.error_string
        assert words.startswith("goal tolerance missed")
        assert "(goal_time_tolerance 0.3 s)" in words
        assert "joint elbow 0.0349 rad (2.00 deg) off, beyond 0.0175 rad (1.00 deg)" in words
        held_at, count = kit.wait_held(2, D(-62.0))
        assert held_at == pytest.approx((*POSE_B[:2], D(-62), *POSE_B[3:]), abs=1e-9)
        kit.assert_nothing_moves_after(count)
        # A goal tolerance of 3 deg from the goal, or none (-1), accepts the elbow there.
        for bound in (D(3.0), -1.0):
            kit.hardware.backend.unblock(ELBOW_CHANNEL)
            start = kit.move_to(POSE_A)
            kit.hardware.backend.block(ELBOW_CHANNEL, 82.0)
            goal = goal_of(points, goal_tolerance=tolerances(elbow=bound))
            answer = kit.follow(goal)
            assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
            assert answer.result.error_code == Code.SUCCESSFUL
    finally:
        kit.hardware.backend.unblock(ELBOW_CHANNEL)


# --- cancel and preemption ---------------------------------------------------------------------


def wait_moving(kit: Probe, start: Sequence[float]) -> None:
    wait_for(lambda: abs(kit.arm_joints()[0] - start[0]) > D(3.0), what="the arm on its way")


def test_cancel_decelerates_along_the_trajectory_then_holds_the_arm_where_it_is(
    kit: Probe,
) -> None:
    start = kit.move_to(POSE_A)
    before = kit.command_count()
    handle = kit.send(goal_of(smooth_points(start, POSE_B, 3.0)))
    wait_for(lambda: kit.command_count() >= before + 60, what="1.2 s of the trajectory")
    handle.cancel_goal_async()
    answer = kit.result(handle)
    assert answer.status == GoalStatus.STATUS_CANCELED
    assert answer.result.error_code == Code.SUCCESSFUL
    words = answer.result.error_string
    assert words.startswith("canceled by the client; decelerated along its path in ")
    assert "; the arm holds at" in words
    # Nothing blocks a servo: every joint stops on the setpoint already sent, which holds it.
    count = kit.command_count()
    here = kit.assert_nothing_moves_after(count)
    assert here == tuple(kit.commands_since(count - 1)[0].position)
    assert D(3.0) < here[0] < POSE_B[0] - D(3.0)  # stopped on the way
    # The stop: every joint on its way along the cubic, slowing to rest within its limits.
    sent = np.array([kit.arm_joints(m) for m in kit.commands_since(before)])
    stream = np.vstack((start, start, sent, sent[-1], sent[-1]))
    period = kit.trajectory.config.motion_limits().period
    velocity = np.abs(np.diff(stream, axis=0)) / period
    acceleration = np.abs(np.diff(stream, n=2, axis=0)) / period**2
    assert np.all(velocity <= LIMITS * (1 + 1e-9))
    assert np.all(acceleration <= ACCELERATIONS * (1 + 1e-9))
    share = (sent - start) / (np.subtract(POSE_B, start))  # the cubic keeps the joints in step
    assert np.ptp(share[:, :4], axis=1).max() < 1e-9


def test_a_newer_goal_replaces_the_running_goal(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    first = kit.send(goal_of(smooth_points(start, POSE_B, 3.0)))
    wait_moving(kit, start)
    # The newer goal starts from where the arm is: a single point 2 s away.
    second = kit.send(goal_of([(2.0, POSE_A)]))
    replaced = kit.result(first)
    assert replaced.status == GoalStatus.STATUS_ABORTED
    assert replaced.result.error_code == Code.INVALID_GOAL
    assert replaced.result.error_string.startswith(
        "preempted by a newer follow_joint_trajectory goal"
    )
    answer = kit.result(second)
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    assert kit.wait_still() == pytest.approx(POSE_A, abs=1e-9)


def test_an_invalid_goal_does_not_disturb_the_running_one(kit: Probe) -> None:
    start = kit.move_to(POSE_A)
    running = kit.send(goal_of(smooth_points(start, POSE_B, 2.0)))
    wait_moving(kit, start)
    refused = kit.follow(goal_of([(2.0, POSE_A[:4])], names=NAMES[:4]))
    assert refused.result.error_code == Code.INVALID_JOINTS
    answer = kit.result(running)
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    assert kit.wait_still() == pytest.approx(POSE_B, abs=1e-9)


# --- the MoveIt route and the parameters ---------------------------------------------------------

ACTION_TYPES = {
    "FollowJointTrajectory": "control_msgs/action/FollowJointTrajectory",
    "GripperCommand": "control_msgs/action/GripperCommand",
}


def test_moveit_controllers_yaml_names_what_the_nodes_really_serve(kit: Probe) -> None:
    import yaml
    from rclpy.action import get_action_server_names_and_types_by_node

    document = yaml.safe_load(default_config_path("moveit_controllers.yaml").read_text())
    assert document["moveit_controller_manager"] == (
        "moveit_simple_controller_manager/MoveItSimpleControllerManager"
    )
    manager = document["moveit_simple_controller_manager"]
    served: dict[str, list[str]] = {}
    for node in ("trajectory_node", "hardware_node"):

        def found(name=node):
            return get_action_server_names_and_types_by_node(kit.node, name, "/")

        served.update(wait_for(found, what=f"{node}'s action servers"))
    joints = {
        "FollowJointTrajectory": list(KIT.joint_names),
        "GripperCommand": [KIT.gripper.name],
    }
    assert sorted(manager["controller_names"]) == ["arm_controller", "gripper_controller"]
    for name in manager["controller_names"]:
        controller = manager[name]
        kind = controller["type"]
        # MoveIt's action client: <controller name>/<action_ns>, in move_group's namespace.
        assert served[f"/{name}/{controller['action_ns']}"] == [ACTION_TYPES[kind]], name
        assert sorted(controller["joints"]) == sorted(joints[kind]), name
        assert controller["default"] is True
    arm = manager["arm_controller"]
    assert kit.trajectory.get_parameter("controller_name").value == "arm_controller"
    assert arm["joints"] == list(KIT.joint_names)


FOLLOW_PARAMETERS = {
    "controller_name": "arm_controller",
    "allow_partial_joints_goal": False,
    "constraints.goal_time_s": 1.0,
    "constraints.elbow.trajectory_deg": 0.0,
    "constraints.elbow.goal_deg": 1.0,  # trajectory.goal_tolerance_deg
}


def test_the_action_parameters_are_read_only_described_and_validated(kit: Probe, capfd) -> None:
    node = kit.trajectory
    for name, default in FOLLOW_PARAMETERS.items():
        assert node.get_parameter(name).value == pytest.approx(default), name
        descriptor = node.describe_parameter(name)
        assert descriptor.read_only, name
        assert descriptor.description, name
    for joint in NAMES:
        assert node.has_parameter(f"constraints.{joint}.goal_deg")
    refused = node.set_parameters([Parameter("controller_name", value="other")])
    assert not refused[0].successful
    bad = [
        ("controller_name", "arm controller", "must not contain characters other than"),
        ("controller_name", "", "must not be empty"),
        ("controller_name", "arms/left", "must not contain characters other than"),
        ("constraints.goal_time_s", -1.0, "must be a finite number >= 0"),
        ("constraints.elbow.goal_deg", math.nan, "must be a finite number >= 0"),
        ("constraints.shoulder.trajectory_deg", "wide", "must be a number"),
        ("allow_partial_joints_goal", "yes", "allow_partial_joints_goal"),
    ]
    with ros_graph() as graph:
        arm = file_parameters(KIT_PATH)
        for name, value, words in bad:
            with pytest.raises(ParameterStartupError):
                TrajectoryNode(
                    context=graph.context,
                    namespace="/bad_follow",
                    parameter_overrides=[*arm, Parameter(name, value=value)],
                )
            logged = capfd.readouterr().err
            assert f"invalid configuration: parameter '{name}'" in logged, logged
            assert words in logged, logged
        # A whole number for a double is taken as one.
        node = TrajectoryNode(
            context=graph.context,
            namespace="/whole_numbers",
            parameter_overrides=[*arm, Parameter("constraints.goal_time_s", value=2)],
        )
        assert node.get_parameter("constraints.goal_time_s").value == 2
        graph.add(node)


# --- the planar arm: its own controller name, partial goals, MoveArm and the topic -------------

PLANAR_PATH = default_config_path("arm.yaml")
PLANAR = ArmConfig.from_file(PLANAR_PATH)
PLANAR_HOME = tuple(PLANAR.home)
PLANAR_LIMITS = np.asarray(PLANAR.max_velocities)


@pytest.fixture(scope="module")
def planar() -> Iterator[Probe]:
    with ros_graph() as graph:
        hardware, trajectory = nodes_of(
            graph,
            PLANAR_PATH,
            namespace="/planar_arm",
            ik=True,
            controller_name="planar_controller",
            allow_partial_joints_goal=True,
        )
        yield Probe(
            graph, hardware, trajectory, "planar_controller/follow_joint_trajectory", "/planar_arm"
        )


def planar_goal(*points) -> FollowJointTrajectory.Goal:
    return goal_of(points, names=PLANAR.joint_names)


def test_the_controller_name_parameter_names_the_action(planar: Probe) -> None:
    from rclpy.action import get_action_server_names_and_types_by_node

    name = "/planar_arm/planar_controller/follow_joint_trajectory"

    def served() -> dict[str, list[str]]:
        found = get_action_server_names_and_types_by_node(
            planar.node, "trajectory_node", "/planar_arm"
        )
        return dict(found) if name in dict(found) else {}

    assert wait_for(served, what=f"{name} in the graph")[name] == [
        "control_msgs/action/FollowJointTrajectory"
    ]


def test_a_partial_goal_moves_its_joints_and_the_others_hold(planar: Probe) -> None:
    start = planar.move_to(PLANAR_HOME)
    seen = planar.state_count()
    answer = planar.follow(goal_of([(1.0, (D(20.0),))], names=("shoulder",)))
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    assert planar.wait_still() == pytest.approx((D(20.0), start[1]), abs=1e-9)
    assert {planar.arm_joints(m)[1] for m in planar.states_since(seen)} == {start[1]}


def move_arm_goal(x: float, y: float, speed: float = 0.02) -> MoveArm.Goal:
    goal = MoveArm.Goal(mode=MoveArm.Goal.LINEAR, speed=speed)
    goal.target.pose.position.x, goal.target.pose.position.y = x, y
    goal.target.pose.orientation.w = 1.0
    return goal


def test_follow_goals_moveit_goals_and_joint_trajectories_replace_each_other(
    planar: Probe,
) -> None:
    start = planar.move_to(PLANAR_HOME)
    far = (start[0] + D(40.0), start[1] - D(30.0))
    # A MoveArm goal replaces a running FollowJointTrajectory goal ...
    smooth = goal_of(smooth_points(start, far, 3.0), names=PLANAR.joint_names)
    running = planar.send(smooth)
    wait_moving(planar, start)
    future = planar.move_arm.send_goal_async(move_arm_goal(0.12, 0.08))
    moving = wait_for(lambda: future.done() and future.result(), what="MoveArm accepted")
    replaced = planar.result(running)
    assert replaced.status == GoalStatus.STATUS_ABORTED
    assert replaced.result.error_code == Code.INVALID_GOAL
    assert replaced.result.error_string.startswith("preempted by a newer goal")
    # ... and a FollowJointTrajectory goal replaces a running MoveArm goal.
    answer = planar.follow(planar_goal((2.0, start)))
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    preempted = planar.result(moving).result
    assert preempted.status == MoveArm.Result.PREEMPTED
    assert preempted.message.startswith("preempted by a newer follow_joint_trajectory goal")
    assert planar.wait_still() == pytest.approx(start, abs=1e-9)
    # A joint trajectory on the topic replaces a running goal, and a goal a trajectory.
    running = planar.send(smooth)
    wait_moving(planar, start)
    topic = JointTrajectory(joint_names=list(PLANAR.joint_names))
    topic.points = [JointTrajectoryPoint(positions=list(start), time_from_start=duration(2.0))]
    planar.topic.publish(topic)
    replaced = planar.result(running)
    assert replaced.result.error_code == Code.INVALID_GOAL
    assert replaced.result.error_string.startswith("preempted by a newer joint trajectory")
    assert planar.wait_still() == pytest.approx(start, abs=1e-9)
    topic.points = [JointTrajectoryPoint(positions=list(far), time_from_start=duration(3.0))]
    planar.topic.publish(topic)
    wait_moving(planar, start)
    answer = planar.follow(planar_goal((2.0, start)))
    assert answer.status == GoalStatus.STATUS_SUCCEEDED, answer.result.error_string
    assert planar.wait_still() == pytest.approx(start, abs=1e-9)


def documented_goals() -> list[tuple[str, dict]]:
    """Every `ros2 action send_goal ... follow_joint_trajectory` example of
    docs/trajectory_node.md and docs/moveit.md: (file, the goal as YAML gives it)."""
    import yaml
    from ros_helpers import PACKAGE_DIR

    found = []
    docs = PACKAGE_DIR.parent / "docs"
    for path in (docs / "trajectory_node.md", docs / "moveit.md"):
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            if "ros2 action send_goal" in line and "/follow_joint_trajectory" in line:
                text = lines[index + 1].strip()
                assert text[0] == text[-1] == '"', (path.name, text)
                found.append((path.name, yaml.safe_load(text[1:-1])))
    return found


def test_the_documented_send_goal_examples_succeed_on_the_default_arm(planar: Probe) -> None:
    from arm_kinematics.bridge.convert import from_json

    examples = documented_goals()
    assert {name for name, _ in examples} == {"trajectory_node.md", "moveit.md"}
    for name, data in examples:
        planar.move_to(PLANAR_HOME)
        goal = from_json(FollowJointTrajectory.Goal, data)
        answer = planar.follow(goal)
        assert answer.status == GoalStatus.STATUS_SUCCEEDED, (name, answer.result.error_string)
        last = dict(
            zip(goal.trajectory.joint_names, goal.trajectory.points[-1].positions, strict=True)
        )
        expected = tuple(last[joint] for joint in PLANAR.joint_names)
        assert planar.wait_still() == pytest.approx(expected, abs=1e-9), name


# --- the shutdown -------------------------------------------------------------------------------


def test_the_shutdown_ends_a_running_goal_with_a_result_its_client_receives() -> None:
    from shutdown_rounds import Arm, send_accepted  # a goal response Fast DDS dropped: again

    arm = Arm("bringup", "fjt_stop")
    try:
        with ros_graph() as graph:
            node = graph.node("fjt_stop_client")
            client = ActionClient(
                node, FollowJointTrajectory, "/fjt_stop/arm_controller/follow_joint_trajectory"
            )
            wait_for(lambda: client.wait_for_server(timeout_sec=0.1), what="the action server")
            goal = planar_goal((4.0, (PLANAR_HOME[0] + D(30.0), PLANAR_HOME[1])))
            for _ in range(5):  # again when it came before the node saw joint_states
                handle, feedback = send_accepted(client, itertools.repeat(goal))
                result = handle.get_result_async()
                wait_for(lambda r=result, f=feedback: len(f) >= 3 or r.done(), what="feedback")
                if not result.done():
                    break
                assert "no joint_states" in result.result().result.error_string
            else:
                raise AssertionError("the trajectory node saw no joint_states in five goals")
            arm.signal(signal.SIGINT)
            codes = arm.wait(30.0)
            answer = wait_for(lambda: result.done() and result.result(), 10.0, "the result")
    finally:
        arm.kill()
    assert codes == {"bringup": 0}, arm.outputs()
    assert answer.status == GoalStatus.STATUS_ABORTED
    assert answer.result.error_code == Code.INVALID_GOAL
    assert answer.result.error_string.startswith("the trajectory node is shutting down")
