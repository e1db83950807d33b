"""JointTrajectory input: every refusal rule names the point and joint; accepted ones sample at
the command rate without exceeding a joint speed (no ROS)."""

from __future__ import annotations

import math

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

CONFIG = ArmConfig.from_file()  # shoulder, elbow: +-90 deg, 120 deg/s
ARM = {
    "joint_names": CONFIG.joint_names,
    "joint_limits": CONFIG.joint_limits,
    "max_velocities": CONFIG.max_velocities,
    "current": (0.0, 0.5),
}
NAMES = ("shoulder", "elbow")


def check(names=NAMES, times=(1.0, 2.0), positions=((0.3, 0.4), (0.6, 0.2)), **arm):
    return check_joint_trajectory(
        names, list(times), [list(p) for p in positions], **{**ARM, **arm}
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
    ],
)
def test_each_rule_refuses_the_whole_trajectory_naming_point_and_joint(changes, words) -> None:
    with pytest.raises(JointTrajectoryError, match=words.replace("(", r"\(")):
        check(**changes)


def test_a_first_point_at_time_zero_on_the_current_pose_is_taken_as_the_start() -> None:
    path = check(times=(0.0, 1.0), positions=((0.0, 0.5), (0.3, 0.4)))
    assert path.times.tolist() == [0.0, 1.0]
    assert path.positions.tolist() == [[0.0, 0.5], [0.3, 0.4]]


def test_a_segment_at_exactly_the_speed_limit_is_accepted() -> None:
    limit = CONFIG.max_velocities[0]
    path = check(times=(1.0 / limit,), positions=((1.0, 0.5),))
    assert path.duration == pytest.approx(1.0 / limit)
    with pytest.raises(JointTrajectoryError, match="faster than its limit"):
        check(times=(0.99 / limit,), positions=((1.0, 0.5),))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.05, 1.0), st.floats(-1.5, 1.5), st.floats(-1.5, 1.5)),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([0.02, 0.01, 0.04]),
)
def test_samples_keep_every_joint_within_its_speed_and_end_on_the_last_point(points, period):
    times, positions, time = [], [], 0.0
    previous = np.array(ARM["current"])
    limit = np.array(CONFIG.max_velocities)
    for gap, q1, q2 in points:
        target = np.array([q1, q2])
        # Slow enough for the limits: each segment takes at least what the fastest joint needs.
        gap = max(gap, float(np.max(np.abs(target - previous) / limit)) * 1.01)
        time += gap
        times.append(time)
        positions.append(target.tolist())
        previous = target
    path = check(times=times, positions=positions)
    samples = path.sample(period)
    steps = np.abs(np.diff(np.vstack([ARM["current"], samples]), axis=0))
    assert np.all(steps <= limit * period * (1 + 1e-9))
    assert samples[-1].tolist() == positions[-1]
    assert len(samples) == math.ceil(time / period - 1e-9)


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
