"""Solved joint paths: setpoints to stream, 2 pi unwrapping, branch-flip checks.

Pure numpy. Joints (M, n) in radians, one row per point or setpoint; seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from ..planar.arm import PlanarArm
from .options import MotionLimits
from .profile import SpeedProfile


class PathFollower(Protocol):
    """How a motion's setpoints follow their path, for a stop along it (`stop.py`):
    `positions` (K,) the path position of each setpoint, `profile` the planned speed along the
    path (setpoint k is at profile time (k + 1) * period), `limits` what the stream keeps,
    `start` the joints before the first setpoint; the joints at further path positions (None:
    one has no solution) and, for a Cartesian path, the tool point there (m; None: no tool
    limits)."""

    positions: np.ndarray
    profile: SpeedProfile
    limits: MotionLimits
    start: tuple[float, ...]

    def joints_at(self, positions: np.ndarray, seed: tuple[float, ...]) -> np.ndarray | None: ...

    def tool_at(self, positions: np.ndarray) -> np.ndarray | None: ...


@dataclass(frozen=True)
class Setpoints:
    """Joint setpoints streamed one per `period` (s).

    `joints` (K, n) radians. Setpoint k is commanded k periods after the first one. `tips`
    (K, D) is the tool pose of each setpoint in the base frame (the arm's `tool_vector`: a
    planar arm's x, y, heading; a spatial arm's x, y, z, pitch, roll), computed by `forward` on
    first use (so that the first setpoint need not wait for it). `follower`: how a stop
    decelerates along their path (None: a stop holds the last setpoint).
    """

    joints: np.ndarray
    period: float
    forward: Callable[[Sequence[float]], tuple[float, ...]]
    follower: PathFollower | None = field(default=None, compare=False)

    def __len__(self) -> int:
        return len(self.joints)

    @property
    def duration(self) -> float:
        """Seconds of motion: one period per setpoint."""
        return len(self.joints) * self.period

    @cached_property
    def tips(self) -> np.ndarray:
        if len(self.joints) == 0:
            return np.zeros((0, 3))  # no setpoint: nothing to draw
        return np.array([self.forward(row) for row in self.joints.tolist()], dtype=float)


def unwrap_path(arm: PlanarArm, start: Sequence[float], joints: np.ndarray) -> np.ndarray:
    """`joints` (M, n) with every continuous joint moved by k * 2 pi to lie next to the row
    before it (row 0 next to `start`), so the path has no 2 pi jumps. Rows from the first
    non-finite one on are left as they are. Limited joints are absolute and never change.

    >>> free = PlanarArm((1.0, 0.8))  # no limits: joints wrapped to (-pi, pi]
    >>> unwrap_path(free, (3.1, 0.5), np.array([[-3.1, 0.5]])).round(4).tolist()
    [[3.1832, 0.5]]
    """
    path = np.asarray(joints, dtype=float)
    continuous = any(lo == -math.inf and hi == math.inf for lo, hi in arm.joint_limits)
    steps = np.abs(np.diff(np.vstack((np.asarray(start, dtype=float)[None, :], path)), axis=0))
    if not continuous or np.all(steps <= math.pi):
        return path  # no step crosses +-pi the long way: nothing to unwrap
    rows = path.tolist()
    previous: Sequence[float] = tuple(float(v) for v in start)
    for index, row in enumerate(rows):
        if not all(math.isfinite(q) for q in row):
            break
        rows[index] = previous = arm.unwrap_near(row, previous)
    return np.array(rows, dtype=float).reshape(path.shape)


def first_joint_jump(
    arm: PlanarArm, start: Sequence[float], joints: np.ndarray, max_joint_step: float
) -> tuple[int | None, np.ndarray]:
    """Check a solved path for branch flips.

    Returns (index of the first row of `joints` (M, n) that moves some joint more than
    `max_joint_step` rad from the previous row, row 0 from `start`, or None; the joints
    unwrapped by `unwrap_path`). A non-finite row (a failed point) counts as a jump.

    >>> arm = PlanarArm((1.0, 0.8))
    >>> first_joint_jump(arm, (0.0, 0.5), np.array([[0.0, 0.55], [0.3, -0.6]]), 0.2)[0]
    1
    """
    path = unwrap_path(arm, start, joints)
    steps = np.abs(np.diff(np.vstack((np.asarray(start, dtype=float)[None, :], path)), axis=0))
    bad = ~np.all(steps <= max_joint_step, axis=1)  # NaN compares False: a jump
    index = int(np.argmax(bad)) if bad.any() else None
    return index, path
