"""The default arm (config/arm.yaml, 2R) as the tests see it: its numbers, and its geometry
written out independently of the code under test (the tip as the sum of the two link vectors,
distances to lines and polylines, the points of a straight line).

Used by the trajectory node's tests (test_trajectory_*.py, test_calibration_mode.py) and
`trajectory_harness.py`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from arm_kinematics.config import ArmConfig

CONFIG = ArmConfig.from_file()
NAMES = list(CONFIG.joint_names)
HOME = CONFIG.home  # rad
L1, L2 = CONFIG.link_lengths
PERIOD = 1.0 / CONFIG.trajectory.command_rate_hz  # s between setpoints
LIMITS = np.asarray(CONFIG.max_velocities)  # rad/s
ACCELERATIONS = np.asarray(CONFIG.max_accelerations)  # rad/s^2
TOOL_ACCELERATION = CONFIG.trajectory.max_tool_acceleration  # m/s^2
#: The tool's own timing keeps this share of its speed and acceleration limits
#: (kinematics/planning/path_timing.py, TOOL_HEADROOM).
TOOL_SHARE = 0.999


def tip_of(joints) -> tuple[float, float]:
    """Tip (x, y) m of the 2R arm at joints (rad): the sum of the two link vectors."""
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


def distance_to_polyline(point, corners) -> float:
    """Distance (m) from (x, y) to the nearest of the segments between `corners`."""
    p = np.asarray(point, dtype=float)
    best = math.inf
    for a, b in itertools.pairwise(corners):
        a_, b_ = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        t = np.clip(np.dot(p - a_, b_ - a_) / np.dot(b_ - a_, b_ - a_), 0.0, 1.0)
        best = min(best, float(np.linalg.norm(p - (a_ + t * (b_ - a_)))))
    return best


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


def passes_every_corner(tips, corners, acceleration=0.3, period=0.02) -> bool:
    """Whether the tool passes every inner corner of the polyline through `corners` close
    enough: at most at the speed whose change of direction keeps 0.9 of the tool's
    `acceleration` (m/s^2) over a `period` (s), so a setpoint within a period's travel at it."""
    for before, corner, after in zip(corners, corners[1:], corners[2:], strict=False):
        turn = np.linalg.norm(
            np.subtract(after, corner) / math.dist(after, corner)
            - np.subtract(corner, before) / math.dist(corner, before)
        )
        passing = 0.9 * acceleration * period / turn
        if min(math.dist(t, corner) for t in tips) > passing * period + 1e-9:
            return False
    return True


def check_stream(start, commands, tool_line=None) -> None:
    """The commands (JointState) as the servos get them, with the rest before and after: every
    joint's velocity and acceleration (finite differences at the command period) within its
    limits, and with a `tool_line` (a, b) every tip on it within 1e-6 m and the tool's
    acceleration within its limit."""
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


def first_index(points, predicate) -> int:
    """Index of the first of `points` for which `predicate` holds."""
    return next(i for i, p in enumerate(points) if predicate(p))
