"""JOINT-mode moves: every joint interpolated from its start to its goal angle.

Pure numpy, no ROS. Units: radians, rad/s, seconds. The joints start and stop together and move
at constant speed, the slowest joint (relative to its limit) setting the duration, so no joint
ever exceeds `speed_fraction` of its velocity limit. The tool follows a curve, not a line; every
intermediate pose is inside the joint limits because the start and goal are (the limits are a
box, and a box is convex).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..planar.arm import PlanarArm
from .joint_path import Setpoints


def joint_move_duration(
    start: Sequence[float],
    goal: Sequence[float],
    velocity_limits: Sequence[float],
    speed_fraction: float,
) -> float:
    """Seconds a synchronised joint move takes: max over joints of |goal - start| / (fraction *
    limit)."""
    if not (math.isfinite(speed_fraction) and 0 < speed_fraction <= 1):
        raise ValueError(f"speed_fraction must be in (0, 1], got {speed_fraction!r}")
    q0 = np.asarray(start, dtype=float)
    q1 = np.asarray(goal, dtype=float)
    limits = np.asarray(velocity_limits, dtype=float)
    if not (q0.shape == q1.shape == limits.shape):
        raise ValueError("start, goal and velocity_limits must have one value per joint")
    if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(q1))):
        raise ValueError("start and goal joints must be finite")
    if not np.all(limits > 0):
        raise ValueError(f"velocity limits must be > 0, got {velocity_limits!r}")
    return float(np.max(np.abs(q1 - q0) / (speed_fraction * limits)))


def joint_setpoints(
    arm: PlanarArm,
    start: Sequence[float],
    goal: Sequence[float],
    *,
    velocity_limits: Sequence[float],
    speed_fraction: float,
    period: float,
) -> Setpoints:
    """Setpoints of a JOINT move, one per `period`, the last exactly `goal`.

    Setpoint k (k = 1..K) is start + (k / K) * (goal - start) with K the number of periods the
    slowest joint needs; each period moves every joint by at most speed_fraction * limit *
    period. A move of zero length gives the single setpoint `goal`.
    """
    if not (math.isfinite(period) and period > 0):
        raise ValueError(f"period must be finite and > 0, got {period!r}")
    duration = joint_move_duration(start, goal, velocity_limits, speed_fraction)
    count = max(1, math.ceil(duration / period - 1e-9))
    q0 = np.asarray(start, dtype=float)
    q1 = np.asarray(goal, dtype=float)
    fractions = np.arange(1, count + 1, dtype=float)[:, None] / count
    joints = q0 + fractions * (q1 - q0)
    joints[-1] = q1
    return Setpoints(joints=joints, period=period, forward=arm.tool_vector)
