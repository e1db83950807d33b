"""trajectory_node's inputs besides a plain MoveArm goal, against the real nodes (IkNode,
HardwareNode on sim, TrajectoryNode in one process): joint trajectories from a planner-like
client on `joint_trajectory`, the `plan_cartesian_path` service, MoveArm waypoints, and a target
stamped in a mount's parent frame.

Forward kinematics is written out in the tests (`tip_of`), not taken from the code under test.
Log lines are read from /rosout, as `ros2 topic echo /rosout` shows them.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np
import pytest
import yaml
from arm_2r import (
    CONFIG,
    NAMES,
    PERIOD,
    check_stream,
    distance_to_polyline,
    passes_every_corner,
    tip_of,
)
from geometry_msgs.msg import PointStamped
from rcl_interfaces.msg import Log
from ros_helpers import ros_graph, wait_for
from trajectory_harness import Harness, goal, joint_trajectory, make_nodes, poses
from trajectory_msgs.msg import JointTrajectory
from urdf_chain import urdf_origin

from arm_kinematics.bridge.convert import from_json
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK

Result = MoveArm.Result
Response = PlanCartesianPath.Response
LIMITS = np.asarray(CONFIG.max_velocities)
L1, L2 = CONFIG.link_lengths
BAND_INNER = math.hypot(L1, L2)  # the elbow's +-90 deg: nothing closer is reachable


class Inputs(Harness):
    """The MoveArm harness plus a joint_trajectory publisher, the plan client and /rosout."""

    def __init__(self, graph, hardware, namespace: str = "") -> None:
        super().__init__(graph, hardware, namespace)
        # The logger name of this arm's trajectory_node ("left.trajectory_node" in /left).
        prefix = namespace.strip("/").replace("/", ".")
        self.logger = f"{prefix}.trajectory_node" if prefix else "trajectory_node"
        self.logs: list[str] = []
        self.log_lock = threading.Lock()
        self.node.create_subscription(Log, "/rosout", self._on_log, 1000)
        self.planner = self.node.create_publisher(JointTrajectory, "joint_trajectory", 10)
        self.plan_client = self.node.create_client(PlanCartesianPath, "plan_cartesian_path")
        wait_for(
            lambda: self.node.count_subscribers("joint_trajectory") > 0,
            what="joint_trajectory subscription matched",
        )

    def _on_log(self, msg: Log) -> None:
        if msg.name == self.logger:
            with self.log_lock:
                self.logs.append(msg.msg)

    def log_count(self) -> int:
        with self.log_lock:
            return len(self.logs)

    def wait_log(self, text: str, since: int) -> list[str]:
        """Wait for a trajectory_node log line containing `text` after the first `since`."""

        def found():
            with self.log_lock:
                return [line for line in self.logs[since:] if text in line]

        return wait_for(found, what=f"a log line with {text!r}")

    def plan(self, waypoints, **fields) -> PlanCartesianPath.Response:
        request = PlanCartesianPath.Request(**fields)
        request.waypoints = poses(waypoints)
        return self.graph.call(self.plan_client, request)

    def start_slow_trajectory(self) -> tuple[int, int]:
        """From (0.16, 0): a 3 s trajectory, once it streams; (commands, log lines) before it."""
        start = np.array(self.move_to(0.16, 0.0))
        before = self.command_count()
        logs = self.log_count()
        self.planner.publish(joint_trajectory(NAMES, [(3.0, start + np.array((0.5, -0.5)))]))
        wait_for(lambda: self.command_count() >= before + 10, what="the trajectory streaming")
        return before, logs

    def sent_since(self, count: int) -> list:
        with self.lock:
            return self.commands[count:]


@pytest.fixture(scope="module")
def arm():
    with ros_graph() as graph:
        nodes = make_nodes(graph)
        yield Inputs(graph, nodes["hardware"])


def with_waypoints(x, y, waypoints, **fields) -> MoveArm.Goal:
    message = goal(x, y, **fields)
    message.waypoints = poses(waypoints)
    return message


# --- joint trajectories ------------------------------------------------------------------------


def test_a_planner_trajectory_with_shuffled_names_is_streamed_and_the_arm_ends_on_its_last_point(
    arm,
):
    start = np.array(arm.move_to(0.16, 0.0))
    middle, last = start + np.array((0.3, -0.4)), start + np.array((0.5, -0.2))
    before = arm.command_count()
    logs = arm.log_count()
    # elbow first, as a planner with another joint order sends it; at rest at each point (a
    # cubic between two points: at most 6 dq / dt^2 = 4.9 rad/s^2, within 480 deg/s^2).
    points = [(0.7, middle[::-1]), (1.1, last[::-1])]
    arm.planner.publish(joint_trajectory(["elbow", "shoulder"], points, at_rest=True))
    arm.wait_until_at(last, 1e-9)
    arm.wait_log("joint trajectory SUCCEEDED", logs)
    sent = arm.sent_since(before)
    assert len(sent) == math.ceil(1.1 / PERIOD - 1e-9)
    assert all(list(c.name) == NAMES for c in sent)
    joints = np.array([start] + [list(c.position) for c in sent])
    assert joints[-1].tolist() == pytest.approx(last.tolist(), abs=1e-12)
    check_stream(start, sent)
    # Through the points at their times: at 0.7 s (setpoint 35) the arm is commanded `middle`.
    assert joints[round(0.7 / PERIOD)].tolist() == pytest.approx(middle.tolist(), abs=1e-9)


@pytest.mark.parametrize(
    ("names", "points", "line"),
    [
        (["shoulder"], [(1.0, (0.1,))], "joints elbow are missing"),
        (
            NAMES,
            [(1.0, (0.1, 0.8)), (1.0, (0.2, 0.8))],
            "point 1: time_from_start 1 s does not increase (point 0 is at 1 s)",
        ),
        (NAMES, [(1.0, (0.1, 0.8)), (2.0, (0.1, math.radians(100)))], "point 1: joint elbow"),
        (
            NAMES,
            [(1.0, (0.1, 0.8)), (1.1, (0.8, 0.8))],
            "point 1: joint shoulder moves 0.7 rad in 0.1 s (7 rad/s), faster than its limit",
        ),
        (
            # Positions only: at rest at point 0, then at once at 0.5 rad/s.
            NAMES,
            [(2.0, (0.1, 0.8)), (3.0, (0.6, 0.8))],
            # (about 25 rad/s^2: how much less depends on the approach from where the arm is)
            ("point 0 (2.00 s): joint shoulder accelerates at ", "over its limit 8.38 rad/s^2"),
        ),
    ],
    ids=["subset", "non_increasing", "out_of_limits", "too_fast", "over_acceleration"],
)
def test_a_trajectory_that_breaks_a_rule_is_refused_with_one_log_line_and_nothing_moves(
    arm, names, points, line
):
    arm.move_to(0.16, 0.0)
    before = arm.command_count()
    logs = arm.log_count()
    arm.planner.publish(joint_trajectory(names, points))
    refused = arm.wait_log("joint trajectory refused", logs)
    for part in line if isinstance(line, tuple) else (line,):
        assert part in refused[0]
    assert refused[0].endswith("nothing moved")
    arm.assert_no_command_after(before)
    assert len(arm.wait_log("joint trajectory refused", logs)) == 1


def test_an_empty_trajectory_stops_the_arm_along_its_path(arm):
    before, logs = arm.start_slow_trajectory()
    start = arm.sent_since(before - 1)[0].position  # where move_to left the arm
    arm.planner.publish(JointTrajectory(joint_names=list(NAMES)))
    arm.wait_log("empty joint trajectory: stopped the running joint trajectory", logs)
    stopped = arm.wait_log("joint trajectory PREEMPTED: stopped by an empty joint trajectory", logs)
    assert "decelerated along its path in " in stopped[0]
    count = arm.command_count()
    assert count - before < 3.0 / PERIOD / 2  # stopped well before the end
    check_stream(start, arm.sent_since(before))  # slowed down within the limits, to rest
    arm.assert_no_command_after(count)
    arm.wait_until_at(arm.sent_since(count - 1)[0].position, 1e-9)


def test_a_trajectory_preempts_a_running_goal(arm):
    arm.move_to(0.16, 0.0)
    feedback: list = []
    running = arm.send(goal(0.10, 0.10, speed=0.02), feedback=lambda m: feedback.append(m))
    wait_for(lambda: len(feedback) >= 5, what="the goal streaming")
    now = np.array(arm.latest_joints())
    last = now + np.array((-0.4, 0.3))
    arm.planner.publish(joint_trajectory(NAMES, [(1.0, last)]))
    response = arm.wait_result(running)
    assert response.result.status == Result.PREEMPTED
    assert response.result.message.startswith("preempted by a newer joint trajectory")
    arm.wait_until_at(last, 1e-9)


def test_a_goal_preempts_a_running_trajectory(arm):
    _, logs = arm.start_slow_trajectory()
    target = (0.15, 0.05)
    outcome = arm.run(goal(*target, speed=0.1))
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    arm.wait_log("joint trajectory PREEMPTED: preempted by a newer goal", logs)
    assert tip_of(outcome.commands[-1].position) == pytest.approx(target, abs=1e-6)


# --- plan_cartesian_path -----------------------------------------------------------------------


def test_a_plan_through_the_hole_is_truncated_and_nothing_moves(arm):
    start = arm.move_to(0.17, 0.0)
    before = arm.command_count()
    accepted = arm.hardware.counters.commands_accepted
    response = arm.plan([(0.15, 0.02), (0.0, 0.17), (0.13, 0.06)])
    assert response.status == Response.IK_FAILED, response.message
    assert response.ik_status == SolveIK.Response.JOINT_LIMIT
    assert 0.0 < response.fraction < 1.0
    assert response.failed_waypoint == 1
    first_segment = math.ceil(math.dist(tip_of(start), (0.15, 0.02)) / 0.001 - 1e-9)
    assert response.failed_index > first_segment
    assert math.hypot(response.failed_point.x, response.failed_point.y) < BAND_INNER
    assert len(response.trajectory.points) == response.failed_index + 1  # start + feasible part
    arm.assert_no_command_after(before)
    assert arm.hardware.counters.commands_accepted == accepted
    assert arm.latest_joints() == pytest.approx(start, abs=1e-12)


def test_a_planned_polyline_lies_on_its_segments_within_the_velocity_limits(arm):
    start = arm.move_to(0.17, 0.0)
    corners = [tip_of(start), (0.15, 0.05), (0.13, 0.10), (0.12, 0.05)]
    before = arm.command_count()
    response = arm.plan(corners[1:], speed=0.2)
    assert response.status == Response.SUCCEEDED, response.message
    assert response.fraction == 1.0
    assert (response.failed_index, response.failed_waypoint) == (-1, -1)
    points = response.trajectory.points
    assert list(response.trajectory.joint_names) == NAMES
    positions = np.array([p.positions for p in points])
    times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in points])
    assert positions[0] == pytest.approx(start, abs=1e-12)
    assert times[0] == 0.0
    assert max(distance_to_polyline(tip_of(q), corners) for q in positions) < 1e-6
    assert tip_of(positions[-1]) == pytest.approx(corners[-1], abs=1e-9)
    speeds = np.abs(np.diff(positions, axis=0)) / np.diff(times)[:, None]
    assert np.all(speeds <= LIMITS)
    arm.assert_no_command_after(before)


# --- one target check, one wording --------------------------------------------------------------


def stamped_goal(frame: str, z: float, quaternion=(0.0, 0.0, 0.0, 1.0)) -> MoveArm.Goal:
    message = goal(0.12, 0.05)
    message.target.header.frame_id = frame
    message.target.pose.position.z = z
    o = message.target.pose.orientation
    o.x, o.y, o.z, o.w = quaternion
    message.orientation_mode = MoveArm.Goal.FULL_ORIENTATION
    return message


@pytest.mark.parametrize(
    ("frame", "z", "quaternion", "status"),
    [
        ("base_link", 0.01, (0.0, 0.0, 0.0, 1.0), SolveIK.Response.OFF_PLANE),
        ("camera", 0.0, (0.0, 0.0, 0.0, 1.0), SolveIK.Response.WRONG_FRAME),
        ("base_link", 0.0, (0.0, 0.0, 0.0, 2.0), SolveIK.Response.INVALID_ORIENTATION),
    ],
    ids=["off_plane", "wrong_frame", "orientation"],
)
def test_both_nodes_refuse_a_target_with_the_same_words(arm, frame, z, quaternion, status):
    # The stamped-target check is written once (nodes/targets.py): solve_ik, a MoveArm goal, a
    # clicked point and plan_cartesian_path's waypoints are refused in the same words.
    message = stamped_goal(frame, z, quaternion)
    request = SolveIK.Request(target=message.target, orientation_mode=message.orientation_mode)
    solve = arm.graph.call(arm.node.create_client(SolveIK, "solve_ik"), request)
    assert solve.status == status, solve.message
    before, logs = arm.command_count(), arm.log_count()
    moved = arm.run(message)
    assert moved.result.status == Result.INVALID_GOAL
    assert moved.result.message == solve.message
    plan = PlanCartesianPath.Request(
        header=message.target.header,
        waypoints=[message.target.pose],
        orientation_mode=message.orientation_mode,
    )
    planned = arm.graph.call(arm.plan_client, plan)
    assert planned.status == Response.INVALID_REQUEST
    what = "waypoints" if status == SolveIK.Response.WRONG_FRAME else "waypoint 0"
    assert planned.message == solve.message.replace("target", what) + ": nothing planned"
    click = PointStamped(header=message.target.header)
    click.point.x, click.point.y, click.point.z = 0.12, 0.05, z
    arm.clicked.publish(click)
    if status != SolveIK.Response.INVALID_ORIENTATION:  # a click has no orientation
        arm.wait_log(f"clicked point move INVALID_GOAL: {solve.message}", logs)
    else:
        arm.wait_until_tip(0.12, 0.05, 1e-6)
        before = arm.command_count()
    arm.assert_no_command_after(before)


# --- MoveArm waypoints -------------------------------------------------------------------------


def test_a_goal_with_waypoints_moves_along_the_polyline(arm):
    start = arm.move_to(0.17, 0.0)
    corners = [tip_of(start), (0.15, 0.05), (0.13, 0.10), (0.12, 0.05)]
    outcome = arm.run(with_waypoints(*corners[-1], corners[1:-1], speed=0.1))
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    tips = [tip_of(c.position) for c in outcome.commands]
    assert max(distance_to_polyline(t, corners) for t in tips) < 1e-6
    assert tips[-1] == pytest.approx(corners[-1], abs=1e-9)
    assert passes_every_corner(tips, corners, CONFIG.trajectory.max_tool_acceleration, PERIOD)
    check_stream(start, outcome.commands)
    arm.wait_until_tip(*corners[-1], 1e-6)


def test_a_goal_with_one_infeasible_segment_aborts_with_nothing_sent(arm):
    arm.move_to(0.17, 0.0)
    before = arm.command_count()
    outcome = arm.run(with_waypoints(0.13, 0.06, [(0.15, 0.02), (0.0, 0.17)]))
    result = outcome.result
    assert result.status == Result.IK_FAILED, result.message
    assert result.ik_status == SolveIK.Response.JOINT_LIMIT
    assert "segment 2 of 3 (to waypoint 1)" in result.message
    assert math.hypot(result.failed_point.x, result.failed_point.y) < BAND_INNER
    assert outcome.feedback == []
    arm.assert_no_command_after(before)


# --- a target in the mount's parent frame ------------------------------------------------------

#: A wall mount: the base 0.4 m up a wall in 'world', its plane vertical, yawed by 30 deg.
MOUNT_XYZ = (0.2, -0.1, 0.4)
MOUNT_RPY_DEG = (90.0, 0.0, 30.0)


def base_to_world(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """A base-frame point in world, through the mount's URDF origin (written out in the test,
    not with frames.py)."""
    return tuple((urdf_origin(MOUNT_XYZ, MOUNT_RPY_DEG) @ [x, y, z, 1.0])[:3].tolist())


def test_a_target_in_the_mount_parent_frame_ends_on_the_right_point():
    overrides = (
        ("mount.parent_frame", "world"),
        ("mount.xyz_m", list(MOUNT_XYZ)),
        ("mount.rpy_deg", list(MOUNT_RPY_DEG)),
    )
    with ros_graph() as graph:
        # In a namespace: the module's arm is still running in this process and domain.
        nodes = make_nodes(graph, overrides=overrides, namespace="/wall")
        arm = Harness(graph, nodes["hardware"], "/wall")
        target = (0.12, 0.08)
        message = goal(0.0, 0.0, speed=0.1)
        message.target.header.frame_id = "world"
        wx, wy, wz = base_to_world(*target)
        message.target.pose.position.x = wx
        message.target.pose.position.y = wy
        message.target.pose.position.z = wz
        outcome = arm.run(message)
        assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
        assert tip_of(outcome.commands[-1].position) == pytest.approx(target, abs=1e-9)
        arm.wait_until_tip(*target, 1e-6)
        # A point 5 mm off the wall's plane is refused, saying where the plane is in 'world'.
        wx, wy, wz = base_to_world(*target, z=0.005)
        message.target.pose.position.x = wx
        message.target.pose.position.y = wy
        message.target.pose.position.z = wz
        refused = arm.run(message)
        assert refused.result.status == Result.INVALID_GOAL
        # RViz's Publish Point in its fixed frame 'world' goes the same way.
        wait_for(lambda: arm.node.count_subscribers("clicked_point") > 0, what="clicked_point")
        click = PointStamped()
        click.header.frame_id = "world"
        click.point.x, click.point.y, click.point.z = base_to_world(0.15, 0.03)
        arm.clicked.publish(click)
        arm.wait_until_tip(0.15, 0.03, 1e-6)
        assert "0.005 m off the arm's plane" in refused.result.message
        assert "which in 'world' is the plane through (0.2, -0.1, 0.4) m" in refused.result.message


# --- the examples of docs/trajectory_node.md -----------------------------------------------------

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "trajectory_node.md"


def readme_example(command: str, message_class: type):
    """The message of the guide's `command ... \\` line, from the quoted YAML on the next
    line, filled as `ros2 service call` / `ros2 topic pub` fill it (ros2cli is not installable
    here; the bridge's generic JSON conversion takes the parsed YAML)."""
    lines = GUIDE.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(command))
    text = lines[index + 1].strip()
    assert text[0] == text[-1] == '"', text
    return from_json(message_class, yaml.safe_load(text[1:-1]))


def test_the_guide_examples_plan_stream_and_move_along_waypoints(arm):
    start = arm.move_to(0.17, 0.0)
    request = readme_example("ros2 service call /plan_cartesian_path", PlanCartesianPath.Request)
    response = arm.graph.call(arm.plan_client, request)
    assert response.status == Response.SUCCEEDED, response.message
    assert response.trajectory.points[0].positions.tolist() == pytest.approx(start, abs=1e-12)
    message = readme_example("ros2 topic pub --once /joint_trajectory", JointTrajectory)
    logs = arm.log_count()
    arm.planner.publish(message)
    arm.wait_log("joint trajectory SUCCEEDED", logs)
    there = arm.wait_until_at((-0.2, 1.0), 1e-9)  # the last point, shoulder then elbow
    example = readme_example("ros2 action send_goal /move_arm", MoveArm.Goal)
    outcome = arm.run(example)
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    corners = [tip_of(there), (0.15, 0.05), (0.13, 0.10), (0.12, 0.05)]
    tips = [tip_of(c.position) for c in outcome.commands]
    assert max(distance_to_polyline(t, corners) for t in tips) < 1e-6
    assert tips[-1] == pytest.approx(corners[-1], abs=1e-9)


# --- the waypoint maximum ----------------------------------------------------------------------


def test_max_waypoints_is_read_only_validated_and_refuses_larger_requests_at_once():
    from rclpy.parameter import Parameter

    from arm_kinematics.nodes.params import ParameterStartupError
    from arm_kinematics.nodes.trajectory_node import TrajectoryNode

    with ros_graph() as graph:
        for bad in (0, "many"):
            with pytest.raises(ParameterStartupError):
                TrajectoryNode(
                    context=graph.context,
                    namespace="/bad_limit",
                    parameter_overrides=[Parameter("max_waypoints", value=bad)],
                )
        nodes = make_nodes(graph, overrides=(("max_waypoints", 2),), namespace="/limited")
        assert nodes["trajectory"].max_waypoints == 2
        refused = nodes["trajectory"].set_parameters([Parameter("max_waypoints", value=5)])
        assert not refused[0].successful
        arm = Inputs(graph, nodes["hardware"], "/limited")
        arm.move_to(0.17, 0.0)
        before = arm.command_count()
        three = [(0.15, 0.05), (0.13, 0.10), (0.14, 0.08)]
        outcome = arm.run(with_waypoints(0.12, 0.05, three))
        assert outcome.result.status == Result.INVALID_GOAL
        assert outcome.result.message == "3 waypoints: the most is max_waypoints = 2"
        response = arm.plan(three)
        assert response.status == Response.INVALID_REQUEST
        assert response.message.startswith("3 waypoints: the most is max_waypoints = 2")
        arm.assert_no_command_after(before)
