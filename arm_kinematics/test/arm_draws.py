"""What the array-solve tests (test_solve_many.py, test_solve_many_seeded.py) share: `load`, a
shipped config's arm, and `joints_within_limits`, joint vectors drawn uniformly within an arm's
limits (each joint's range clipped to one turn), the targets' joints by forward kinematics.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, SpatialArm


def load(path: Path) -> PlanarArm | SpatialArm:
    """The arm of the config file at `path`."""
    return ArmConfig.from_file(path).make_arm()


def joints_within_limits(arm, count: int, rng: np.random.Generator) -> np.ndarray:
    """`count` joint vectors (rad), shape (count, n_joints), each within the arm's limits."""
    lows = np.array([max(lo, -math.pi) for lo, _ in arm.joint_limits])
    highs = np.array([min(hi, math.pi) for _, hi in arm.joint_limits])
    rows: list[list[float]] = []
    while len(rows) < count:
        draws = rng.uniform(lows, highs, (count, arm.n_joints)).tolist()
        rows += [q for q in draws if arm.within_limits(q)][: count - len(rows)]
    return np.array(rows)
