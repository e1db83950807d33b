"""Every motion the planner makes, for every shipped arm, starts and ends at rest within the
limits and stays on its path (no ROS).

For each `config/arm*.yaml`: random LINEAR lines, JOINT moves and polylines through waypoints,
each checked on the stream the servos would get, the rest before and after included: every
joint's velocity and acceleration and the tool point's acceleration (finite differences at the
command period, computed here from np.diff) within their limits, every setpoint's tool point
(forward kinematics) on its line within 1e-6 m, the first and the last setpoint at rest (moving
at most what one period of the acceleration limit gives). And a stop at a random setpoint of
each: the stream up to it and then the stop keeps the same limits and stays on the same path.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import (
    MotionLimits,
    PlanOptions,
    joint_setpoints,
    plan_polyline,
    stop_setpoints,
)

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
CONFIGS = sorted(CONFIG_DIR.glob("arm*.yaml"))
ON_THE_LINE_M = 1e-6
SLACK = 1 + 1e-9  # rounding of the differences


def padded(first: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The stream with the rest around it: `first` twice before, the last row twice after."""
    return np.vstack((first, first, rows, rows[-1], rows[-1]))


def check_stream(config: ArmConfig, start: np.ndarray, joints: np.ndarray, limits: MotionLimits,
                 tool_start=None, tool=None) -> None:  # fmt: skip
    period = limits.period
    stream = padded(start, joints)
    velocity = np.diff(stream, axis=0) / period
    acceleration = np.diff(stream, n=2, axis=0) / period**2
    assert np.all(np.abs(velocity) <= np.array(limits.joint_velocities) * SLACK)
    assert np.all(np.abs(acceleration) <= np.array(limits.joint_accelerations) * SLACK)
    # At rest before the first setpoint and after the last one: the first and last steps are
    # what one period of the acceleration limit allows from rest.
    rest = np.array(limits.joint_accelerations) * period * SLACK
    assert np.all(np.abs(velocity[1]) <= rest)
    assert np.all(np.abs(velocity[-2]) <= rest)
    low, high = np.array(config.joint_limits).T
    assert np.all((joints >= low - 1e-9) & (joints <= high + 1e-9))
    if tool is not None:
        points = padded(tool_start, tool)
        tool_acceleration = np.linalg.norm(np.diff(points, n=2, axis=0), axis=1) / period**2
        assert tool_acceleration.max() <= limits.tool_acceleration * SLACK


def off_polyline(points: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Each point's distance to the nearest segment of the polyline through `corners`."""
    best = np.full(len(points), math.inf)
    for a, b in itertools.pairwise(corners):
        direction = b - a
        length2 = float(direction @ direction)
        share = np.zeros(len(points)) if length2 == 0 else (points - a) @ direction / length2
        nearest = a + np.clip(share, 0.0, 1.0)[:, None] * direction
        best = np.minimum(best, np.linalg.norm(points - nearest, axis=1))
    return best


def random_joints(config: ArmConfig, rng: np.random.Generator) -> np.ndarray:
    low, high = np.array(config.joint_limits).T
    return rng.uniform(low + 0.1 * (high - low), high - 0.1 * (high - low))


def near(config: ArmConfig, joints: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Joints about 0.3 rad from `joints`, within the limits."""
    low, high = np.array(config.joint_limits).T
    return np.clip(joints + rng.normal(0.0, 0.3, len(joints)), low, high)


def tool_pose(arm, joints, with_angle: bool) -> tuple[float, ...]:
    """The tool pose a goal would give: the position, and the first angle (a planar heading, a
    spatial pitch) when asked."""
    vector = arm.tool_vector(joints)
    d = arm.position_dims
    return tuple(vector[: d + 1]) if with_angle and len(vector) > d else tuple(vector[:d])


def check_path(config, arm, start_joints, poses, limits, rng) -> bool:
    """Plan start -> poses; when feasible, check its stream and a stop; True if feasible."""
    d = arm.position_dims
    start = tool_pose(arm, start_joints, len(poses[0]) > d)
    options = PlanOptions(config.trajectory.default_max_step, limits,
                          config.trajectory.max_joint_step)  # fmt: skip
    plan = plan_polyline(arm, start, poses, start_joints, options)
    if not plan.ok:
        return False
    setpoints = plan.setpoints
    tips = setpoints.tips[:, :d]
    corners = np.array([start[:d], *[pose[:d] for pose in poses]])
    assert off_polyline(tips, corners).max() <= ON_THE_LINE_M
    assert tips[-1] == pytest.approx(np.array(poses[-1][:d]), abs=1e-9)
    check_stream(config, start_joints, setpoints.joints, limits, corners[0], tips)
    # A stop at a random setpoint: the stream so far, then the stop, within the same limits,
    # and on the same path.
    sent = int(rng.integers(1, len(setpoints))) if len(setpoints) > 1 else 1
    stop = stop_setpoints(setpoints, sent)
    joints = np.vstack((setpoints.joints[:sent], stop.joints))
    stopped_tips = np.array([arm.tool_vector(q)[:d] for q in joints])
    check_stream(config, start_joints, joints, limits, corners[0], stopped_tips)
    assert off_polyline(stopped_tips, corners).max() <= ON_THE_LINE_M
    return True


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_random_lines_and_polylines_of_every_shipped_arm_keep_their_limits(path: Path) -> None:
    config = ArmConfig.from_file(path)
    arm = config.make_model()
    rng = np.random.default_rng(23)
    feasible = {"line": 0, "polyline": 0}
    for trial in range(16):
        speed = float(rng.uniform(0.02, 0.15))
        limits = config.motion_limits(speed)
        start = random_joints(config, rng)
        # Mostly with the tool's first angle (a heading, a pitch) given where the arm sets it
        # (three links in its plane): the IK without one searches it, ten times slower.
        with_angle = trial % 4 != 0 and len(arm.link_lengths) == 3
        count, kind = (1, "line") if trial % 2 == 0 else (int(rng.integers(2, 5)), "polyline")
        # Waypoints near each other: some corners can be passed at speed, some not.
        poses = [tool_pose(arm, near(config, start, rng), with_angle) for _ in range(count)]
        feasible[kind] += check_path(config, arm, start, poses, limits, rng)
    assert feasible["line"] >= 3, feasible
    assert feasible["polyline"] >= 3, feasible


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_random_joint_moves_of_every_shipped_arm_keep_their_limits(path: Path) -> None:
    config = ArmConfig.from_file(path)
    arm = config.make_model()
    rng = np.random.default_rng(7)
    for _ in range(10):
        fraction = float(rng.uniform(0.1, 1.0))
        limits = config.motion_limits().scaled(fraction)
        start, goal = random_joints(config, rng), random_joints(config, rng)
        setpoints = joint_setpoints(arm, start, goal, limits)
        assert setpoints.joints[-1].tolist() == goal.tolist()
        check_stream(config, start, setpoints.joints, limits)
        # Every setpoint on the joint line from start to goal.
        share = (setpoints.joints - start) @ (goal - start) / ((goal - start) @ (goal - start))
        line = start + share[:, None] * (goal - start)
        assert np.abs(setpoints.joints - line).max() < 1e-12
        sent = int(rng.integers(1, len(setpoints)))
        stopped = np.vstack((setpoints.joints[:sent], stop_setpoints(setpoints, sent).joints))
        check_stream(config, start, stopped, limits)
