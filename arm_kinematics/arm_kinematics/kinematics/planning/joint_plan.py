"""JOINT-mode moves: every joint along the straight line in joint space from its start to its
goal angle, starting and ending at rest.

Pure numpy, no ROS. Units: radians, rad/s, rad/s^2, seconds. The move's path position is its
progress u in [0, 1] (q = start + u (goal - start)): joint j moves |dq_j| u, so the fastest
progress the joints allow is min_j v_j / |dq_j| and its acceleration min_j a_j / |dq_j|, the
slowest joint (relative to its limits) setting the pace; the time-optimal rest-to-rest motion
is then the trapezoid (`SpeedProfile.limited`) of u, and every joint starts and stops together.
The tool follows a curve, not a line; every intermediate pose is inside the joint limits
because the start and goal are (the limits are a box, and a box is convex), but not always
inside the workspace envelope: `joint_move_outside` checks the line against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..envelope import PathViolation
from ..planar.arm import PlanarArm
from ..spatial.arm import SpatialArm
from .joint_path import Setpoints
from .options import MotionLimits
from .profile import SpeedProfile

_STILL = 1e-12  # rad: a joint that moves less does not move (no speed bound of its own)


def joint_profile(
    start: Sequence[float], goal: Sequence[float], limits: MotionLimits
) -> SpeedProfile | None:
    """The fastest progress u from 0 to 1 along the joint line within `limits`; None for a
    move of zero length.

    >>> profile = joint_profile((0.0, 0.0), (1.0, 0.5), MotionLimits(0.02, (1.0, 1.0), (4.0, 4.0)))
    >>> round(profile.duration, 6)  # 0.25 s to 1 rad/s, 0.75 s at it, 0.25 s to rest
    1.25
    """
    q0 = np.asarray(start, dtype=float)
    q1 = np.asarray(goal, dtype=float)
    if q0.shape != q1.shape or len(q0) != limits.n_joints:
        raise ValueError("start and goal need one angle per joint of the limits")
    if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(q1))):
        raise ValueError("start and goal joints must be finite")
    change = np.abs(q1 - q0)
    moving = change > _STILL
    if not np.any(moving):
        return None
    speed = float(np.min(np.array(limits.joint_velocities)[moving] / change[moving]))
    acceleration = float(np.min(np.array(limits.joint_accelerations)[moving] / change[moving]))
    return SpeedProfile.limited(1.0, speed=speed, acceleration=acceleration)


def joint_move_duration(
    start: Sequence[float], goal: Sequence[float], limits: MotionLimits
) -> float:
    """Seconds the time-optimal JOINT move takes within `limits` (0 for no move)."""
    profile = joint_profile(start, goal, limits)
    return 0.0 if profile is None else profile.duration


@dataclass(frozen=True)
class JointLineFollower:
    """A JOINT move's setpoints along their joint line, for a stop (`joint_path.PathFollower`):
    path position u, joints start + u (goal - start), no tool limits."""

    start: tuple[float, ...]
    goal: tuple[float, ...]
    positions: np.ndarray
    profile: SpeedProfile
    limits: MotionLimits

    def joints_at(self, positions: np.ndarray, seed: tuple[float, ...]) -> np.ndarray:
        q0, q1 = np.asarray(self.start), np.asarray(self.goal)
        return q0 + np.asarray(positions)[:, None] * (q1 - q0)

    def tool_at(self, positions: np.ndarray) -> None:
        return None


def joint_setpoints(
    arm: PlanarArm, start: Sequence[float], goal: Sequence[float], limits: MotionLimits
) -> Setpoints:
    """Setpoints of a JOINT move, one per `limits.period`, the last exactly `goal`: the
    trapezoid of `joint_profile` sampled. A move of zero length gives the single setpoint
    `goal`. (A JOINT goal's speed fraction scales the velocity limits: `MotionLimits.scaled`.)

    >>> limits = MotionLimits(0.02, (1.0, 1.0), (4.0, 4.0))
    >>> move = joint_setpoints(PlanarArm((1.0, 0.8)), (0.0, 0.0), (1.0, 0.5), limits)
    >>> len(move), move.joints[:2].round(4).tolist()  # from rest: 2 mrad, then 8 mrad
    (63, [[0.0008, 0.0004], [0.0032, 0.0016]])
    """
    q0 = tuple(float(q) for q in start)
    q1 = tuple(float(q) for q in goal)
    profile = joint_profile(q0, q1, limits)
    if profile is None:
        return Setpoints(joints=np.array([q1]), period=limits.period, forward=arm.tool_vector)
    progress = profile.sample(limits.period)
    follower = JointLineFollower(q0, q1, progress, profile, limits)
    joints = follower.joints_at(progress, q0)
    joints[-1] = q1
    return Setpoints(joints=joints, period=limits.period, forward=arm.tool_vector,
                     follower=follower)  # fmt: skip


def joint_move_outside(
    arm: PlanarArm | SpatialArm, start: Sequence[float], goal: Sequence[float]
) -> PathViolation | None:
    """Where the JOINT move from `start` to `goal` (rad), the straight line in joint space its
    setpoints follow, leaves the arm's workspace envelope (`Envelope.check_path`: no point of
    the arm travelling more than PATH_RESOLUTION_M between checks); None when it stays inside,
    or the arm carries none.

    >>> import math
    >>> from arm_kinematics.kinematics import Envelope
    >>> bare = PlanarArm((1.0, 0.8))
    >>> arm = bare.with_envelope(
    ...     Envelope(bare, link_radius=0.01, keep_out_boxes=[(1.7, -0.1, -0.1, 1.9, 0.1, 0.1)]))
    >>> found = joint_move_outside(arm, (0.0, -math.pi / 2), (0.0, math.pi / 2))
    >>> found.index, round(found.fraction, 2), found.violation.part
    (0, 0.45, 'the forearm (link 2)')
    """
    envelope = arm.envelope
    return None if envelope is None else envelope.check_path([tuple(start), tuple(goal)])
