"""The FollowJointTrajectory rules without a ROS graph: tolerances, the goal's checks and their
error codes, the start time, the checks at every setpoint and after the last, the results.

Expected values are written out from the goals (joint_trajectory_controller's semantics,
control_msgs' tolerance rule), not read back from the code.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest
from builtin_interfaces.msg import Duration
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics.planning.joint_trajectory import TimedJointPath
from arm_kinematics.nodes.refusals import InvalidJoints, Refusal
from arm_kinematics.nodes.trajectory.follow_joint_trajectory import (
    FeedbackValues,
    FollowOutcome,
    FollowSettings,
    FollowWatch,
    OldHeaderTimestamp,
    Tolerances,
    duration,
    error_code_of,
    feedback_message,
    follow_move,
    goal_end,
    goal_tolerances,
    resolve_tolerance,
)
from arm_kinematics.nodes.trajectory.goals import GoalRun, Outcome, Result
from arm_kinematics.nodes.trajectory.streaming import JointStateMonitor

Code = FollowJointTrajectory.Result
CONFIG = ArmConfig.from_file()  # the planar 2R arm: shoulder, elbow
NAMES = CONFIG.joint_names
HOME = tuple(CONFIG.home)
DEFAULTS = Tolerances(path=(0.0, 0.0), goal=(0.02, 0.02), goal_time=1.0)
SETTINGS = FollowSettings("arm_controller", False, DEFAULTS)


def goal(points, names=NAMES, stamp: float = 0.0, **fields) -> FollowJointTrajectory.Goal:
    """A goal of (time s, positions rad[, velocities]) points."""
    trajectory = JointTrajectory(joint_names=list(names))
    if stamp:
        trajectory.header.stamp.sec = int(stamp)
        trajectory.header.stamp.nanosec = round((stamp - int(stamp)) * 1e9)
    for time_s, *values in points:
        point = JointTrajectoryPoint(time_from_start=duration(time_s), positions=list(values[0]))
        if len(values) > 1:
            point.velocities = list(values[1])
        trajectory.points.append(point)
    return FollowJointTrajectory.Goal(trajectory=trajectory, **fields)


# --- tolerances --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [(0.05, 0.05), (0.0, 0.1), (-1.0, 0.0), (-1.0 + 1e-8, 0.0)],
    ids=["a_bound", "zero_keeps_the_default", "minus_one_lifts_it", "minus_one_as_a_float32"],
)
def test_a_tolerance_follows_control_msgs_rule(given, expected) -> None:
    assert resolve_tolerance(0.1, given, "x") == expected


@pytest.mark.parametrize("given", [-0.5, -2.0, math.nan, math.inf])
def test_any_other_tolerance_is_refused(given) -> None:
    with pytest.raises(Refusal, match=r"^x = "):
        resolve_tolerance(0.1, given, "x")


def test_a_goal_sets_the_tolerances_it_names_and_keeps_the_defaults_of_the_others() -> None:
    message = goal(
        [(1.0, HOME)],
        path_tolerance=[JointTolerance(name="elbow", position=0.2)],
        goal_tolerance=[
            JointTolerance(name="shoulder", position=-1.0),
            JointTolerance(name="elbow", position=0.0, velocity=0.5),
        ],
        goal_time_tolerance=Duration(sec=0, nanosec=250_000_000),
    )
    resolved = goal_tolerances(message, NAMES, DEFAULTS)
    assert resolved == Tolerances(path=(0.0, 0.2), goal=(0.0, 0.02), goal_time=0.25)
    erased = goal([(1.0, HOME)], goal_time_tolerance=Duration(sec=-1))
    assert goal_tolerances(erased, NAMES, DEFAULTS).goal_time == 0.0  # -1 s: no time limit


def test_a_tolerance_of_an_unknown_or_twice_named_joint_or_a_bad_value_is_refused() -> None:
    unknown = goal([(1.0, HOME)], path_tolerance=[JointTolerance(name="wrist", position=0.1)])
    with pytest.raises(InvalidJoints, match="path_tolerance names joint 'wrist', not one of"):
        goal_tolerances(unknown, NAMES, DEFAULTS)
    twice = goal([(1.0, HOME)], goal_tolerance=[JointTolerance(name="elbow")] * 2)
    with pytest.raises(InvalidJoints, match="goal_tolerance names joint elbow twice"):
        goal_tolerances(twice, NAMES, DEFAULTS)
    velocity = goal([(1.0, HOME)], goal_tolerance=[JointTolerance(name="elbow", velocity=-3)])
    with pytest.raises(Refusal, match="goal_tolerance of joint elbow: velocity = -3"):
        goal_tolerances(velocity, NAMES, DEFAULTS)
    late = goal([(1.0, HOME)], goal_time_tolerance=Duration(sec=-2))
    with pytest.raises(Refusal, match=r"goal_time_tolerance \(s\) = -2"):
        goal_tolerances(late, NAMES, DEFAULTS)


# --- the goal's checks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "refusal", "words"),
    [
        (goal([(1.0, HOME[:1])], names=NAMES[:1]), InvalidJoints, "allow_partial_joints_goal"),
        (goal([(1.0, HOME)], names=("shoulder", "wrist")), InvalidJoints, "unknown joint wrist"),
        (goal([(1.0, HOME)], names=()), InvalidJoints, "no joint names"),
        (goal([]), Refusal, "the trajectory has no points"),
        (goal([(1.0, HOME, (0.0,))]), Refusal, "point 0: 1 velocities for 2 joint names"),
        (goal([(1.0, HOME, (0.0, 0.3))]), Refusal, "velocity 0.3 rad/s for joint elbow"),
    ],
    ids=["subset", "unknown", "no_names", "no_points", "velocities", "moving_at_the_end"],
)
def test_a_goal_that_breaks_a_rule_is_refused_with_the_class_of_its_error_code(
    message, refusal, words
) -> None:
    with pytest.raises(refusal) as refused:
        follow_move(message, SETTINGS, NAMES, now=100.0)
    assert words in str(refused.value)
    assert type(refused.value) is refusal  # not a subclass: the code is the class's


def test_effort_and_multi_dof_trajectories_are_refused() -> None:
    effort = goal([(1.0, HOME)])
    effort.trajectory.points[0].effort = [1.0, 1.0]
    with pytest.raises(Refusal, match="effort is not supported"):
        follow_move(effort, SETTINGS, NAMES, now=100.0)
    multi_dof = goal([(1.0, HOME)])
    multi_dof.multi_dof_trajectory.joint_names = ["base"]
    with pytest.raises(InvalidJoints, match="no multi-DOF joints"):
        follow_move(multi_dof, SETTINGS, NAMES, now=100.0)


def test_a_partial_goal_holds_the_other_joints_at_the_pose_it_starts_from() -> None:
    settings = FollowSettings("arm_controller", True, DEFAULTS)
    move = follow_move(goal([(1.0, (0.4,))], names=("elbow",)), settings, NAMES, now=100.0)
    path = move.check(CONFIG, (0.1, 0.2))
    assert path.positions.tolist() == [[0.1, 0.2], [0.1, 0.4]]


def test_the_stamp_sets_the_start_and_an_old_one_is_refused() -> None:
    points = [(1.0, (0.1, 0.2)), (2.0, (0.2, 0.3))]
    at_once = follow_move(goal(points), SETTINGS, NAMES, now=100.0)
    assert at_once.scheduled(100.0) == (at_once, 0.0)
    stamped = follow_move(goal(points, stamp=100.5), SETTINGS, NAMES, now=100.0)
    scheduled, late = stamped.scheduled(100.0)
    assert scheduled.times == pytest.approx((1.5, 2.5), abs=1e-9)
    assert late == 0.0
    # From the pose now, the first segment ends at the stamp plus its time: 1.5 s.
    path = scheduled.check(CONFIG, HOME)
    assert path.times.tolist() == pytest.approx([0.0, 1.5, 2.5], abs=1e-9)
    assert stamped.scheduled(100.8) == (stamped, pytest.approx(0.3))
    with pytest.raises(OldHeaderTimestamp, match="more than goal_time_tolerance 1 s"):
        stamped.scheduled(101.6)
    with pytest.raises(OldHeaderTimestamp, match="would have ended already"):
        follow_move(goal(points, stamp=90.0), SETTINGS, NAMES, now=100.0)
    # Without a goal time limit, only a trajectory that would have ended is too old.
    unlimited = FollowSettings("arm_controller", False, Tolerances((0, 0), (0, 0), 0.0))
    late_move = follow_move(goal(points, stamp=98.5), unlimited, NAMES, now=100.0)
    assert late_move.scheduled(100.0)[1] == pytest.approx(1.5)


# --- results ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "refusal", "cancel", "expected"),
    [
        (FollowOutcome(Result.SUCCEEDED, "ok"), None, False, (Code.SUCCESSFUL, "succeeded")),
        (Outcome(Result.CANCELED, "c"), None, True, (Code.SUCCESSFUL, "canceled")),
        (Outcome(Result.PREEMPTED, "p"), None, False, (Code.INVALID_GOAL, "aborted")),
        (Outcome(Result.SHUTDOWN, "s"), None, False, (Code.INVALID_GOAL, "aborted")),
        (Outcome(Result.NO_JOINT_STATE, "n"), None, False, (Code.INVALID_GOAL, "aborted")),
        (
            Outcome(Result.HARDWARE_FAULT, "h"),
            None,
            False,
            (Code.PATH_TOLERANCE_VIOLATED, "aborted"),
        ),
        (
            Outcome(Result.INVALID_GOAL, "j"),
            InvalidJoints("j"),
            False,
            (Code.INVALID_JOINTS, "aborted"),
        ),
        (
            Outcome(Result.INVALID_GOAL, "o"),
            OldHeaderTimestamp("o"),
            False,
            (Code.OLD_HEADER_TIMESTAMP, "aborted"),
        ),
        (
            FollowOutcome(Result.HARDWARE_FAULT, "g", error_code=Code.GOAL_TOLERANCE_VIOLATED),
            None,
            False,
            (Code.GOAL_TOLERANCE_VIOLATED, "aborted"),
        ),
        # A cancel nobody asked for is no CANCELED, and never ABORTED with SUCCESSFUL.
        (Outcome(Result.CANCELED, "c"), None, False, (Code.INVALID_GOAL, "aborted")),
    ],
)
def test_the_goal_status_agrees_with_the_error_code(outcome, refusal, cancel, expected) -> None:
    end = goal_end(outcome, refusal, cancel)
    assert (end.error_code, end.status) == expected
    assert end.error_string == outcome.message


def test_error_codes_of_refusals() -> None:
    assert error_code_of(Refusal("x")) == Code.INVALID_GOAL
    assert error_code_of(InvalidJoints("x")) == Code.INVALID_JOINTS
    assert error_code_of(OldHeaderTimestamp("x")) == Code.OLD_HEADER_TIMESTAMP


def test_feedback_carries_desired_actual_and_their_difference() -> None:
    values = FeedbackValues(-0.25, (0.5, 0.2), (1.0, 0.0), (0.4, 0.25), (0.9, 0.1))
    message = feedback_message(NAMES, values)
    assert list(message.joint_names) == list(NAMES)
    assert message.error.positions.tolist() == pytest.approx([0.1, -0.05])
    assert message.error.velocities.tolist() == pytest.approx([0.1, -0.1])
    # -0.25 s: sec rounds down, nanosec counts up from there.
    assert (message.actual.time_from_start.sec, message.actual.time_from_start.nanosec) == (
        -1,
        750_000_000,
    )


# --- the checks while it runs and at its end ----------------------------------------------------


PATH = TimedJointPath(np.array([0.0, 1.0]), np.array([[0.0, 0.0], [1.0, -0.5]]))


def watch(monitor, tolerances, feedback, offset=0.0) -> FollowWatch:
    return FollowWatch(NAMES, PATH, tolerances, offset, monitor, 0.02, 2.0, feedback)


def test_the_path_tolerance_compares_joint_states_with_the_path_when_they_came() -> None:
    monitor, feedback = JointStateMonitor(), []
    run = GoalRun(b"1", None, None)
    bounds = Tolerances(path=(0.1, 0.0), goal=(0.0, 0.0), goal_time=1.0)
    check = watch(monitor, bounds, lambda _run, values: feedback.append(values))
    monitor.update((0.45, 0.0))  # 0.5 s in, the path wants (0.5, -0.25): 0.05 and 0.25 off
    started = monitor.sample().received_at - 0.5
    assert check.check(run, started) is None  # the elbow has no path bound
    assert feedback[-1].desired == pytest.approx((0.5, -0.25))
    assert feedback[-1].time == pytest.approx(0.5)
    monitor.update((0.35, 0.0))  # the shoulder 0.15 off, beyond its 0.1
    started = monitor.sample().received_at - 0.5
    broken = check.check(run, started)
    assert isinstance(broken, FollowOutcome)
    assert broken.error_code == Code.PATH_TOLERANCE_VIOLATED
    assert broken.holds  # the node holds the arm where it stops
    assert "joint shoulder 0.1500 rad (8.59 deg) off, beyond 0.1000 rad (5.73 deg)" in (
        broken.message
    )


def test_the_end_succeeds_within_the_goal_tolerance_and_fails_past_the_goal_time() -> None:
    monitor = JointStateMonitor()
    run = GoalRun(b"1", None, None)
    bounds = Tolerances(path=(0.0, 0.0), goal=(0.02, 0.02), goal_time=0.1)
    check = watch(monitor, bounds, lambda _run, _values: None)
    monitor.update((1.01, -0.5))
    ended = check.arrival(run, (1.0, -0.5), 50, time.monotonic() - 1.0)
    assert ended.status == Result.SUCCEEDED
    assert ended.error_code == Code.SUCCESSFUL
    monitor.update((0.95, -0.5))  # 0.05 off, and the goal time is over
    missed = check.arrival(run, (1.0, -0.5), 50, time.monotonic() - 1.2)
    assert missed.error_code == Code.GOAL_TOLERANCE_VIOLATED
    assert missed.holds
    assert "joint shoulder 0.0500 rad (2.86 deg) off, beyond 0.0200 rad (1.15 deg)" in (
        missed.message
    )


def test_without_a_goal_time_limit_the_end_waits_until_something_stops_the_goal() -> None:
    monitor = JointStateMonitor()
    run = GoalRun(b"1", None, None)
    unlimited = Tolerances(path=(0.0, 0.0), goal=(0.02, 0.02), goal_time=0.0)
    check = watch(monitor, unlimited, lambda _run, _values: None)
    monitor.update((0.9, -0.5))
    threading.Timer(0.3, monitor.update, ((0.9, -0.5),)).start()  # joint_states go on
    threading.Timer(0.5, run.stop, (Result.CANCELED, "canceled by the client")).start()
    ended = check.arrival(run, (1.0, -0.5), 50, time.monotonic() - 10.0)
    assert ended.status == Result.CANCELED


def test_the_arm_is_at_rest_when_two_joint_states_in_a_row_agree() -> None:
    monitor = JointStateMonitor()
    monitor.update((0.1, 0.2), stamp=10.00)
    monitor.update((0.2, 0.2), stamp=10.02)  # moving: 5 rad/s from the stamps
    assert monitor.sample().velocities == pytest.approx((5.0, 0.0))
    assert monitor.wait_still(0.05) is None
    threading.Timer(0.1, monitor.update, ((0.25, 0.2), 10.04)).start()
    threading.Timer(0.2, monitor.update, ((0.25, 0.2), 10.06)).start()
    assert monitor.wait_still(5.0) == (0.25, 0.2)
