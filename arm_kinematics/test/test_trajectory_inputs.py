"""The trajectory node's other inputs, without a ROS graph: joint trajectories from another
planner (admission, checks, preemption), MoveArm waypoints and targets in a mount's parent frame,
and the plan_cartesian_path service's plain part.

Forward kinematics here is written out (the sum of the two link vectors), not the code's.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from arm_2r import CONFIG, L1, L2, LIMITS, distance_to_polyline, passes_every_corner, tip_of
from trajectory_harness import joint_trajectory, poses

from arm_kinematics.config import MountConfig
from arm_kinematics.kinematics import IkAnswers, PlanOptions, chain_solver
from arm_kinematics.kinematics.planning.timed_joint_path import TimedJointPath
from arm_kinematics.nodes.messages import joint_state
from arm_kinematics.nodes.refusals import OffPlane, Refusal, WrongFrame
from arm_kinematics.nodes.trajectory import cartesian
from arm_kinematics.nodes.trajectory.goals import Admission, Move, Result, TrajectoryMove, validate
from arm_kinematics.nodes.trajectory.ik_batch import IkUnavailableError
from arm_kinematics.nodes.trajectory.planning import (
    MAX_PLAN_POINTS,
    PlannedMove,
    plan_move,
)
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK

ARM = CONFIG.make_arm()
NAMES = CONFIG.joint_names
HOME = tuple(CONFIG.home)
Response = PlanCartesianPath.Response


def linear(target=(0.12, 0.05), speed=0.05, max_step=0.001, waypoints=()) -> Move:
    """A LINEAR goal's Move, as `validate` makes it."""
    options = PlanOptions(max_step, CONFIG.motion_limits(speed), CONFIG.trajectory.max_joint_step)
    return Move(MoveArm.Goal.LINEAR, target, options, waypoints)


def within_limits(start, setpoints, period) -> bool:
    """The stream's finite differences, with the rest before and after, within the joint
    velocity and acceleration limits (np.diff here, not the code's check)."""
    stream = np.vstack((start, start, setpoints, setpoints[-1], setpoints[-1]))
    velocity = np.abs(np.diff(stream, axis=0)) / period
    acceleration = np.abs(np.diff(stream, n=2, axis=0)) / period**2
    return bool(
        np.all(velocity <= LIMITS * (1 + 1e-9))
        and np.all(acceleration <= np.asarray(CONFIG.max_accelerations) * (1 + 1e-9))
    )


# --- joint trajectories ------------------------------------------------------------------------


def test_a_trajectory_with_shuffled_names_is_checked_from_the_current_pose_in_the_arm_order():
    msg = joint_trajectory(
        ["elbow", "shoulder"], [(0.5, (0.6, 0.2)), (1.25, (0.3, 0.4))], at_rest=True
    )
    trajectory = TrajectoryMove.from_message(msg)
    assert trajectory.times == (0.5, 1.25)
    path = trajectory.check(CONFIG, HOME)
    assert isinstance(path, TimedJointPath)
    assert path.times.tolist() == [0.0, 0.5, 1.25]
    assert path.positions.tolist() == [list(HOME), [0.2, 0.6], [0.4, 0.3]]
    setpoints = path.sample(0.02)
    assert len(setpoints) == 63  # ceil(1.25 s / 20 ms)
    assert setpoints[-1].tolist() == [0.4, 0.3]
    assert within_limits(HOME, setpoints, 0.02)
    # The same points without velocities: at rest at point 0, then at once at 0.27 rad/s.
    with pytest.raises(Refusal, match=r"^point 0 \(0.50 s\): joint elbow accelerates at 18.5 "):
        TrajectoryMove.from_message(
            joint_trajectory(msg.joint_names, [(0.5, (0.6, 0.2)), (1.25, (0.3, 0.4))])
        ).check(CONFIG, HOME)


@pytest.mark.parametrize(
    ("names", "points", "reason"),
    [
        (["shoulder"], [(1.0, (0.1,))], "joints elbow are missing"),
        (
            NAMES,
            [(0.5, (0.1, 0.8)), (0.5, (0.2, 0.8))],
            "point 1: time_from_start 0.5 s does not increase (point 0 is at 0.5 s)",
        ),
        (
            NAMES,
            [(1.0, (0.1, 0.8)), (2.0, (0.1, math.radians(95)))],
            "point 1: joint elbow = 95.00",
        ),
        (
            NAMES,
            [(1.0, (0.1, 0.8)), (1.1, (0.6, 0.8))],
            "point 1: joint shoulder moves 0.5 rad in 0.1 s (5 rad/s), faster than its limit",
        ),
    ],
    ids=["subset", "non_increasing", "out_of_limits", "too_fast"],
)
def test_a_trajectory_that_breaks_a_rule_is_refused_naming_the_point_and_joint(
    names, points, reason
):
    with pytest.raises(Refusal) as refused:
        TrajectoryMove.from_message(joint_trajectory(names, points)).check(CONFIG, HOME)
    assert reason in refused.value.message


def test_a_trajectory_without_a_start_pose_is_refused():
    trajectory = TrajectoryMove.from_message(joint_trajectory(NAMES, [(1.0, HOME)]))
    with pytest.raises(Refusal, match=r"^no joint_states within"):
        trajectory.check(CONFIG, None)


def test_a_trajectory_and_a_goal_preempt_each_other_and_an_empty_one_stops_the_running_one():
    admission = Admission()
    goal = admission.admit(b"1", linear())
    trajectory = TrajectoryMove.from_message(joint_trajectory(NAMES, [(1.0, HOME)]))
    first = admission.admit(b"2", trajectory, "joint trajectory")
    assert goal.stop_status == Result.PREEMPTED
    assert goal.stop_reason == "preempted by a newer joint trajectory"
    assert first.stop_status is None
    second = admission.admit(b"3", trajectory, "joint trajectory")
    assert first.stop_status == Result.PREEMPTED
    newer_goal = admission.admit(b"4", linear())
    assert second.stop_reason == "preempted by a newer goal"
    assert admission.stop_active("stopped by an empty joint trajectory") is newer_goal
    assert newer_goal.stop_status == Result.PREEMPTED
    assert newer_goal.stopped(HOME).message.startswith("stopped by an empty joint trajectory")
    assert admission.stop_active("again") is None  # nothing is moving any more


# --- MoveArm waypoints and frames --------------------------------------------------------------


def arm_goal(x, y, frame="", waypoints=(), z=0.0, mode=MoveArm.Goal.LINEAR) -> MoveArm.Goal:
    goal = MoveArm.Goal(mode=mode)
    goal.target.header.frame_id = frame
    goal.target.pose.position.x, goal.target.pose.position.y = x, y
    goal.target.pose.position.z = z
    goal.target.pose.orientation.w = 1.0
    goal.waypoints = poses(waypoints)
    return goal


YAW = math.radians(90.0)
MOUNTED = dataclasses.replace(CONFIG, mount=MountConfig("world", (0.5, -0.2, 0.3), (0.0, 0.0, YAW)))


def world_of(x, y, z=0.0):
    """A base-frame point in 'world' for MOUNTED: rotate by the yaw, then translate."""
    c, s = math.cos(YAW), math.sin(YAW)
    return (0.5 + c * x - s * y, -0.2 + s * x + c * y, 0.3 + z)


def test_goal_waypoints_and_targets_in_the_parent_frame_are_moved_into_the_base_frame():
    goal = arm_goal(*world_of(0.12, 0.05)[:2], "world", [world_of(0.15, 0.02)], z=0.3)
    move = validate(goal, MOUNTED, max_waypoints=5)
    assert isinstance(move, Move)
    assert move.target[:2] == pytest.approx((0.12, 0.05), abs=1e-12)
    assert move.waypoints[0] == pytest.approx((0.15, 0.02), abs=1e-12)
    # Without the mount, 'world' is an unknown frame.
    with pytest.raises(WrongFrame) as refused:
        validate(goal, CONFIG)
    assert refused.value.message == (
        "target frame 'world' is not the arm's base frame 'base_link': transform the target "
        "into 'base_link' (or leave frame_id empty)"
    )


def test_a_parent_frame_point_off_the_plane_too_many_or_joint_waypoints_are_refused():
    wx, wy, wz = world_of(0.12, 0.05, z=0.01)
    off = arm_goal(wx, wy, "world", z=wz)
    with pytest.raises(OffPlane) as refused:
        validate(off, MOUNTED)
    reason = refused.value.message
    assert "0.01 m off the arm's plane" in reason
    assert (
        "which in 'world' is the plane through (0.5, -0.2, 0.3) m with normal (0, 0, 1)" in reason
    )
    many = arm_goal(0.12, 0.05, waypoints=[(0.15, 0.02, 0.0)] * 4)
    with pytest.raises(Refusal, match=r"^4 waypoints: the most is max_waypoints = 3$"):
        validate(many, CONFIG, max_waypoints=3)
    joint = arm_goal(0.12, 0.05, waypoints=[(0.15, 0.02, 0.0)], mode=MoveArm.Goal.JOINT)
    with pytest.raises(Refusal, match=r"^waypoints are for LINEAR moves only$"):
        validate(joint, CONFIG)


def test_tool_angles_give_the_target_and_every_waypoint_its_heading():
    goal = arm_goal(0.12, 0.05, waypoints=[(0.15, 0.02), (0.14, 0.08)])
    goal.orientation_mode = MoveArm.Goal.TOOL_ANGLE
    goal.tool_angle = 0.3
    goal.waypoint_tool_angles = [0.1, -0.2]
    move = validate(goal, MOUNTED)
    assert move.target[2] == 0.3
    assert move.waypoints == ((0.15, 0.02, 0.1), (0.14, 0.08, -0.2))
    goal.waypoint_tool_angles = [0.1]
    with pytest.raises(Refusal) as refused:
        validate(goal, CONFIG)
    assert refused.value.message == (
        "orientation_mode TOOL_ANGLE: waypoint_tool_angles needs 2 values (one per waypoint), "
        "it has 1"
    )
    goal.orientation_mode = MoveArm.Goal.POSITION_ONLY  # the angles are not read
    assert validate(goal, CONFIG).waypoints == ((0.15, 0.02), (0.14, 0.08))


def test_a_goal_with_waypoints_plans_the_whole_polyline_or_aborts_at_its_failing_segment():
    run = Admission().admit(b"1", linear())
    corners = [tip_of(HOME), (0.15, 0.02), (0.14, 0.08), (0.12, 0.05)]
    move = linear(waypoints=((0.15, 0.02), (0.14, 0.08)))
    planned = plan_move(ARM, CONFIG, move, HOME, chain_solver(ARM), run)
    assert isinstance(planned, PlannedMove)
    tips = [tip_of(q) for q in planned.setpoints.joints]
    assert max(distance_to_polyline(t, corners) for t in tips) < 1e-6
    assert tips[-1] == pytest.approx(corners[-1], abs=1e-9)
    assert passes_every_corner(tips, corners)
    assert within_limits(HOME, planned.setpoints.joints, planned.setpoints.period)
    # Through the joint-limit hole (nothing closer than sqrt(L1^2 + L2^2) = 0.128 m).
    hole = linear(waypoints=((0.15, 0.02), (0.0, 0.17)))
    failed = plan_move(ARM, CONFIG, hole, HOME, chain_solver(ARM), run)
    assert failed.status == Result.IK_FAILED
    assert failed.ik_status == SolveIK.Response.JOINT_LIMIT
    assert "segment 2 of 3 (to waypoint 1)" in failed.message
    first = math.ceil(math.dist(corners[0], (0.15, 0.02)) / 0.001 - 1e-9)
    assert failed.failed_step > first
    assert math.hypot(*failed.path_points[failed.failed_step][:2]) < math.hypot(L1, L2)
    assert math.hypot(*failed.path_points[failed.failed_step - 1][:2]) >= math.hypot(L1, L2)
    assert 0.0 < failed.feasible_fraction < 1.0


def test_a_goal_needing_too_many_points_in_all_is_refused_before_any_ik():
    run = Admission().admit(b"1", linear())
    calls = []

    def solve(points, seed) -> IkAnswers:
        calls.append(len(points))
        return chain_solver(ARM)(points, seed)

    waypoints = ((0.15, 0.02), (0.12, 0.05)) * 50  # 100 segments of about 4 cm
    step = 100 * 0.04 / MAX_PLAN_POINTS * 0.9
    with pytest.raises(Refusal, match=rf"the most is {MAX_PLAN_POINTS}"):
        plan_move(ARM, CONFIG, linear(max_step=step, waypoints=waypoints), HOME, solve, run)
    assert calls == []


def test_a_segment_larger_than_one_ik_batch_may_be_is_refused_before_any_ik():
    # The IK node refuses a batch beyond ik.max_batch_targets: a segment whose points (a
    # setpoint on each) would not fit is refused at once, naming the limit, instead of failing
    # later.
    small = dataclasses.replace(CONFIG, max_batch_targets=30)
    run = Admission().admit(b"1", linear())
    calls = []

    def solve(points, seed) -> IkAnswers:
        calls.append(len(points))
        return chain_solver(ARM)(points, seed)

    # About 42 mm from the target: a point at each setpoint of the tool's own timing (0.05
    # m/s and 0.3 m/s^2, within 0.1 % of them), under 1 mm apart.
    start = ARM.solve(0.15, 0.02).joints
    length = math.dist((0.15, 0.02), (0.12, 0.05))
    points = math.ceil((length / 0.04995 + 0.04995 / 0.2997) / 0.02)
    with pytest.raises(Refusal) as refused:
        plan_move(ARM, small, linear(), start, solve, run)
    assert f"needs {points} IK solutions" in refused.value.message
    assert "ik.max_batch_targets allows 30" in refused.value.message
    assert calls == []
    roomy = dataclasses.replace(CONFIG, max_batch_targets=points)
    run = Admission().admit(b"2", linear())
    planned = plan_move(ARM, roomy, linear(), start, solve, run)
    assert isinstance(planned, PlannedMove)
    assert max(calls) <= points


# --- plan_cartesian_path -----------------------------------------------------------------------


def plan_request(points, frame="", **fields) -> PlanCartesianPath.Request:
    request = PlanCartesianPath.Request(**fields)
    request.header.frame_id = frame
    request.waypoints = poses(points)
    return request


def call(request, config=CONFIG, start=HOME, solve=None, max_waypoints=100) -> Response:
    return cartesian.plan_cartesian_path(
        ToolPoses(ARM, config),
        config,
        request,
        max_waypoints,
        lambda: start,
        solve or chain_solver(ARM),
    )


def message_times(trajectory) -> np.ndarray:
    return np.array(
        [p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in trajectory.points]
    )


def test_a_good_polyline_is_planned_on_its_segments_within_the_velocity_limits():
    corners = [tip_of(HOME), (0.15, 0.02), (0.14, 0.08), (0.12, 0.05)]
    response = call(plan_request([(x, y, 0.0) for x, y in corners[1:]], speed=0.1))
    assert response.status == Response.SUCCEEDED, response.message
    assert response.fraction == 1.0
    assert (response.failed_index, response.failed_waypoint) == (-1, -1)
    trajectory = response.trajectory
    assert list(trajectory.joint_names) == list(NAMES)
    positions = np.array([p.positions for p in trajectory.points])
    assert positions[0].tolist() == list(HOME)  # the start, at time 0
    assert max(distance_to_polyline(tip_of(q), corners) for q in positions) < 1e-6
    assert tip_of(positions[-1]) == pytest.approx(corners[-1], abs=1e-9)
    times = message_times(trajectory)
    assert times[0] == 0.0
    ratio = np.abs(np.diff(positions, axis=0)) / np.diff(times)[:, None] / LIMITS
    assert ratio.max() <= 1.0
    # From rest to rest, with the velocities the joints have at each point.
    velocities = np.array([p.velocities for p in trajectory.points])
    assert np.abs(velocities[[0, -1]]).max() == 0.0
    assert np.all(np.abs(velocities) <= LIMITS)
    lengths = sum(math.dist(a, b) for a, b in itertools.pairwise(corners))
    assert times[-1] >= lengths / 0.1 - 1e-9  # never faster than the tool speed
    # The answer is a trajectory the joint_trajectory input accepts from where the arm is.
    assert isinstance(TrajectoryMove.from_message(trajectory).check(CONFIG, HOME), TimedJointPath)


def test_a_polyline_through_the_hole_is_truncated_and_never_succeeds():
    request = plan_request([(0.15, 0.02, 0.0), (0.0, 0.17, 0.0), (0.13, 0.05, 0.0)])
    response = call(request)
    assert response.status == Response.IK_FAILED
    assert response.ik_status == SolveIK.Response.JOINT_LIMIT
    assert response.failed_waypoint == 1
    first = math.ceil(math.dist(tip_of(HOME), (0.15, 0.02)) / 0.001 - 1e-9)
    assert response.failed_index > first
    assert math.hypot(response.failed_point.x, response.failed_point.y) < math.hypot(L1, L2)
    # The feasible part: the first segment and the second up to the hole.
    total = math.dist(tip_of(HOME), (0.15, 0.02)) + math.dist((0.15, 0.02), (0.0, 0.17))
    total += math.dist((0.0, 0.17), (0.13, 0.05))
    reached = tip_of(response.trajectory.points[-1].positions)
    achieved = math.dist(tip_of(HOME), (0.15, 0.02)) + math.dist((0.15, 0.02), reached)
    assert response.fraction == pytest.approx(achieved / total, abs=1e-9)
    assert len(response.trajectory.points) == response.failed_index + 1  # the start + feasible
    assert "nothing moved" in response.message


def test_plan_requests_are_refused_at_once_when_malformed_or_too_big():
    calls = []

    def solve(points, seed) -> IkAnswers:
        calls.append(len(points))
        return chain_solver(ARM)(points, seed)

    with pytest.raises(Refusal, match=r"^4 waypoints: the most is max_waypoints = 3$"):
        call(plan_request([(0.15, 0.02, 0.0)] * 4), max_waypoints=3, solve=solve)
    with pytest.raises(Refusal, match=rf"the most is {MAX_PLAN_POINTS}"):
        call(plan_request([(0.15, 0.02, 0.0)], max_step=1e-7), solve=solve)
    with pytest.raises(Refusal, match=r"^no waypoints"):
        call(plan_request([]), solve=solve)
    with pytest.raises(WrongFrame, match=r"^waypoints frame 'camera' is not the arm's base frame"):
        call(plan_request([(0.15, 0.02, 0.0)], "camera"), solve=solve)
    bad_start = plan_request([(0.15, 0.02, 0.0)])
    bad_start.start_state = joint_state(["shoulder"], [0.0])
    with pytest.raises(Refusal, match=r"^start_state: joint 'elbow' is missing"):
        call(bad_start, solve=solve)
    assert calls == []
    # The node answers every Refusal so: INVALID_REQUEST with its words.
    answer = cartesian.refusal(Refusal("4 waypoints: the most is max_waypoints = 3"))
    assert answer.status == Response.INVALID_REQUEST
    assert answer.message == "4 waypoints: the most is max_waypoints = 3: nothing planned"
    assert (answer.failed_index, answer.failed_waypoint) == (-1, -1)
    no_state = call(plan_request([(0.15, 0.02, 0.0)]), start=None, solve=solve)
    assert no_state.status == Response.NO_JOINT_STATE
    assert (no_state.failed_index, no_state.failed_waypoint) == (-1, -1)

    def unavailable(_points, _seed) -> IkAnswers:
        raise IkUnavailableError("IK service '/solve_ik_batch' was not found within 1 s")

    assert call(plan_request([(0.15, 0.02, 0.0)]), solve=unavailable).status == (
        Response.IK_UNAVAILABLE
    )


def test_plan_waypoints_in_the_parent_frame_and_from_a_given_start_state():
    start = (0.3, 0.9)
    request = plan_request([world_of(0.15, 0.02), world_of(0.13, 0.07)], "world")
    request.start_state = joint_state(list(NAMES), start)
    response = call(request, config=MOUNTED, start=None)
    assert response.status == Response.SUCCEEDED, response.message
    positions = [p.positions for p in response.trajectory.points]
    assert positions[0].tolist() == list(start)
    assert tip_of(positions[-1]) == pytest.approx((0.13, 0.07), abs=1e-9)
