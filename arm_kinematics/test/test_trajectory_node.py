"""The MoveArm action against the real nodes: IkNode, HardwareNode (sim) and TrajectoryNode
spinning in one process, driven through an rclpy ActionClient as `ros2 action send_goal` would.

Forward kinematics in these tests is written out independently of the code under test
(sum of link vectors), and expected failing steps are computed from the geometry of the line.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from arm_2r import (
    CONFIG,
    L1,
    L2,
    LIMITS,
    NAMES,
    PERIOD,
    TOOL_ACCELERATION,
    TOOL_SHARE,
    check_stream,
    distance_to_line,
    first_index,
    line_points,
    tip_of,
    trapezoid_distances,
)
from geometry_msgs.msg import PointStamped
from ros_helpers import ros_graph, wait_for
from trajectory_harness import Goal, Harness, Result, goal
from visualization_msgs.msg import Marker

from arm_kinematics.nodes.trajectory_node import TrajectoryNode, status_name
from arm_kinematics_interfaces.srv import SolveIK

DEG = math.radians


@pytest.fixture(scope="module")
def arm(default_arm: Harness) -> Harness:
    return default_arm


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
    sent = arm.commands_through(result, before)
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
