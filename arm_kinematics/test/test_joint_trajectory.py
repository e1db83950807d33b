"""JointTrajectory input: every refusal rule names the point and joint; accepted ones sample at
the command rate without exceeding a joint's velocity or acceleration limit (no ROS)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics.planning.joint_trajectory import (
    JointNamesError,
    JointTrajectoryError,
    TimedJointPath,
    check_joint_trajectory,
)

CONFIG = ArmConfig.from_file()  # shoulder, elbow: +-90 deg, 120 deg/s, 480 deg/s^2
LIMITS = CONFIG.motion_limits()
ARM = {
    "joint_names": CONFIG.joint_names,
    "joint_limits": CONFIG.joint_limits,
    "limits": LIMITS,
    "current": (0.0, 0.5),
}
NAMES = ("shoulder", "elbow")
# At each point the velocity it gives (a cubic between points), at rest at the end.
VELOCITIES = ((0.3, -0.2), (0.0, 0.0))


def check(names=NAMES, times=(1.0, 2.0), positions=((0.3, 0.4), (0.6, 0.2)), **arm):
    arm = {"velocities": VELOCITIES, **arm}
    return check_joint_trajectory(
        names, list(times), [list(p) for p in positions], **{**ARM, **arm}
    )


def trapezoid_seconds(distance: float, speed: float, acceleration: float) -> float:
    """The shortest rest-to-rest time over `distance` within a speed and an acceleration."""
    if distance * acceleration <= speed * speed:
        return 2.0 * math.sqrt(distance / acceleration)
    return distance / speed + speed / acceleration


def stream_within_limits(current, samples, period, limits) -> bool:
    """Finite differences of the samples, with the rest before and after, within the limits
    (computed here from np.diff, independently of the check)."""
    stream = np.vstack((current, current, samples, samples[-1], samples[-1]))
    velocity = np.abs(np.diff(stream, axis=0)) / period
    acceleration = np.abs(np.diff(stream, n=2, axis=0)) / period**2
    slack = 1 + 1e-9
    return bool(
        np.all(velocity <= np.array(limits.joint_velocities) * slack)
        and np.all(acceleration <= np.array(limits.joint_accelerations) * slack)
    )


def test_a_valid_trajectory_starts_at_the_current_pose_in_the_arms_joint_order() -> None:
    path = check(names=("elbow", "shoulder"), positions=((0.4, 0.3), (0.2, 0.6)))
    assert path.times.tolist() == [0.0, 1.0, 2.0]
    assert path.positions.tolist() == [[0.0, 0.5], [0.3, 0.4], [0.6, 0.2]]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"names": ("shoulder",)}, "joints elbow are missing"),
        ({"names": ("shoulder", "elbow", "wrist")}, "unknown joint wrist"),
        ({"names": ("shoulder", "shoulder")}, "joint shoulder is named twice"),
        ({"times": (1.0,)}, "1 times for 2 points"),
        ({"times": (), "positions": ()}, "no points"),
        ({"positions": ((0.3, 0.4), (0.6,))}, "point 1: 1 positions for 2 joint names"),
        ({"positions": ((0.3, math.nan), (0.6, 0.2))}, "point 0: joint elbow position nan"),
        ({"times": (1.0, math.inf)}, "point 1: time_from_start inf"),
        ({"times": (1.0, 1.0)}, "point 1: time_from_start 1 s does not increase"),
        ({"times": (1.0, 0.5)}, "point 1: time_from_start 0.5 s does not increase"),
        ({"times": (-1.0, 1.0)}, "point 0: time_from_start -1.0 s"),
        ({"positions": ((0.3, 0.4), (1.7, 0.2))}, "point 1: joint shoulder = 97.40 deg is outside"),
        ({"times": (0.1, 2.0)}, "point 0: joint shoulder moves 0.3 rad in 0.1 s"),
        ({"times": (1.0, 1.1)}, "point 1: joint shoulder moves 0.3 rad in 0.1 s"),
        ({"times": (0.0, 1.0)}, "point 0: at time 0 joint shoulder must be where the arm is"),
        (
            {"velocities": ((3.0, 0.0), (0.0, 0.0))},
            "point 0: joint shoulder velocity 3 rad/s is over",
        ),
        ({"velocities": ((0.3,), (0.0, 0.0))}, "point 0: 1 velocity for 2 joint names"),
        (
            {"accelerations": ((0.0, 0.0), (0.0, -9.0))},
            "point 1: joint elbow acceleration -9 rad/s^2 is over its limit 8.38 rad/s^2",
        ),
        # Positions only: at rest at point 0, then at once 0.3 rad/s towards point 1.
        (
            {"velocities": None},
            "point 0 (1.00 s): joint shoulder accelerates at 14.4 rad/s^2, over its limit 8.38",
        ),
        # A cubic that overshoots: 1.5 rad/s at the shoulder's 90 deg limit.
        (
            {"positions": ((1.5, 0.5), (1.55, 0.5)), "velocities": ((1.5, 0.0), (0.0, 0.0))},
            "joint shoulder would reach 90.",
        ),
    ],
)
def test_each_rule_refuses_the_whole_trajectory_naming_point_and_joint(changes, words) -> None:
    with pytest.raises(JointTrajectoryError, match=re.escape(words)):
        check(**changes)


def test_a_first_point_at_time_zero_on_the_current_pose_is_taken_as_the_start() -> None:
    path = check(times=(0.0, 1.0), positions=((0.0, 0.5), (0.3, 0.4)),
                 velocities=((0.0, 0.0), (0.0, 0.0)))  # fmt: skip
    assert path.times.tolist() == [0.0, 1.0]
    assert path.positions.tolist() == [[0.0, 0.5], [0.3, 0.4]]


def test_a_first_point_as_soon_as_the_limits_allow_is_accepted_not_sooner() -> None:
    # Positions only: the arm goes to the first point along the joint line, from rest to rest,
    # as fast as the limits allow (1 rad of shoulder at 120 deg/s and 480 deg/s^2: 1.0997 s).
    velocity, acceleration = CONFIG.max_velocities[0], CONFIG.max_accelerations[0]
    fastest = trapezoid_seconds(1.0, velocity, acceleration)
    path = check(times=(fastest,), positions=((1.0, 0.5),), velocities=None)
    assert path.duration == pytest.approx(fastest)
    samples = path.sample(LIMITS.period)
    assert stream_within_limits(ARM["current"], samples, LIMITS.period, LIMITS)
    assert samples[0, 0] == pytest.approx(0.5 * acceleration * LIMITS.period**2, rel=1e-9)
    with pytest.raises(JointTrajectoryError, match=f"takes at least {fastest:.3g} s"):
        check(times=(0.99 * fastest,), positions=((1.0, 0.5),), velocities=None)
    # Given more time, it goes there just as evenly, slower.
    slow = check(times=(2 * fastest,), positions=((1.0, 0.5),), velocities=None)
    assert slow.sample(LIMITS.period)[0, 0] == pytest.approx(samples[0, 0] / 4, rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.05, 1.0), st.floats(-1.5, 1.5), st.floats(-1.5, 1.5)),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([0.02, 0.01, 0.04]),
)
def test_samples_keep_every_joint_within_its_limits_and_end_on_the_last_point(points, period):
    # Every point at rest (velocities 0): a cubic from rest to rest between two points peaks
    # at 1.5 dq / dt and 6 dq / dt^2; each segment takes at least what keeps both within the
    # limits.
    times, positions, time = [], [], 0.0
    previous = np.array(ARM["current"])
    velocity, acceleration = np.array(CONFIG.max_velocities), np.array(CONFIG.max_accelerations)
    for gap, q1, q2 in points:
        target = np.array([q1, q2])
        travel = np.abs(target - previous)
        need = max(np.max(1.5 * travel / velocity), np.max(np.sqrt(6 * travel / acceleration)))
        time += max(gap, float(need) * 1.01)
        times.append(time)
        positions.append(target.tolist())
        previous = target
    limits = CONFIG.motion_limits()
    limits = type(limits)(period, limits.joint_velocities, limits.joint_accelerations)
    rest = [(0.0, 0.0)] * len(points)
    path = check(times=times, positions=positions, velocities=rest, limits=limits)
    samples = path.sample(period)
    assert stream_within_limits(ARM["current"], samples, period, limits)
    assert samples[-1].tolist() == positions[-1]
    assert len(samples) == math.ceil(time / period - 1e-9)


def test_a_moveit_trajectory_with_velocities_and_accelerations_is_followed_as_a_quintic() -> None:
    # As MoveIt sends one: point 0 the current pose at time 0, then positions, velocities and
    # accelerations of a smooth motion (here q = q0 + 0.5 (1 - cos(pi t / 2)) on the shoulder).
    q0 = np.array(ARM["current"])
    times = np.linspace(0.0, 2.0, 9)
    phase = np.pi * times / 2.0
    shoulder = 0.5 * (1 - np.cos(phase))
    speed = 0.5 * np.pi / 2.0 * np.sin(phase)
    rate = 0.5 * (np.pi / 2.0) ** 2 * np.cos(phase)
    rate[[0, -1]] = 0.0  # at rest at both ends, as a time parameterization ends
    positions = [(s, q0[1]) for s in shoulder]
    path = check(
        times=times,
        positions=positions,
        velocities=[(v, 0.0) for v in speed],
        accelerations=[(a, 0.0) for a in rate],
    )
    assert path.accelerations is not None
    # Between the points the quintic follows the cosine closely (a line would be 3 mm off).
    middle = (times[3] + times[4]) / 2
    exact = 0.5 * (1 - np.cos(np.pi * middle / 2))
    assert path.at(middle)[0][0] == pytest.approx(exact, abs=1e-4)
    assert stream_within_limits(q0, path.sample(LIMITS.period), LIMITS.period, LIMITS)


def test_a_partial_trajectory_is_a_names_error_unless_the_others_hold() -> None:
    with pytest.raises(JointNamesError, match="joints shoulder are missing"):
        check(names=("elbow",), times=(1.0,), positions=((0.2,),))
    path = check(names=("elbow",), times=(1.0,), positions=((0.2,),), hold_missing=True)
    assert path.positions.tolist() == [[0.0, 0.5], [0.0, 0.2]]  # the shoulder stays at 0
    # The joints it names still follow every rule: beyond its limit, too fast.
    with pytest.raises(JointTrajectoryError, match=r"point 0: joint elbow = 100\.00 deg"):
        check(names=("elbow",), times=(2.0,), positions=((math.radians(100),),), hold_missing=True)
    with pytest.raises(JointTrajectoryError, match="point 0: joint elbow moves"):
        check(names=("elbow",), times=(0.01,), positions=((1.0,),), hold_missing=True)
    # Its velocities hold the others at rest.
    held = check(names=("elbow",), times=(1.0,), positions=((0.2,),), velocities=((0.0,),),
                 hold_missing=True)  # fmt: skip
    assert held.velocities.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_a_path_at_a_time_is_on_its_segment_with_the_segment_speed() -> None:
    path = TimedJointPath(np.array([0.0, 1.0, 3.0]), np.array([[0.0], [1.0], [0.0]]))
    for time, position, speed in [
        (-1.0, 0.0, 0.0),
        (0.25, 0.25, 1.0),
        (1.0, 1.0, -0.5),  # a point starts the next segment
        (2.0, 0.5, -0.5),
        (3.0, 0.0, 0.0),
        (9.0, 0.0, 0.0),
    ]:
        q, v = path.at(time)
        assert (q.tolist(), v.tolist()) == ([pytest.approx(position)], [pytest.approx(speed)])
