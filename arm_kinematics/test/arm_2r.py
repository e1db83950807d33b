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
L1, L2 = CONFIG.link_lengths
PERIOD = 1.0 / CONFIG.trajectory.command_rate_hz  # s between setpoints
LIMITS = np.asarray(CONFIG.max_velocities)  # rad/s


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


def line_points(start, target, step=0.001) -> list[tuple[float, float]]:
    """The points of the straight line start -> target at most `step` m apart, start excluded
    (as the planner places them)."""
    count = math.ceil(math.dist(start, target) / step - 1e-9)
    return [
        (
            start[0] + (i + 1) / count * (target[0] - start[0]),
            start[1] + (i + 1) / count * (target[1] - start[1]),
        )
        for i in range(count)
    ]


def first_index(points, predicate) -> int:
    """Index of the first of `points` for which `predicate` holds."""
    return next(i for i, p in enumerate(points) if predicate(p))
