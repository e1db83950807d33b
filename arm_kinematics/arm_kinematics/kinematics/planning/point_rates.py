"""How fast the joints move as a timed tool path passes its planned points.

Pure numpy. Radians, seconds; path positions in metres. Along a segment the joints are a
function of the path position S (the IK of the line's points), so at a point q' = dq/dS S' and
q'' = d2q/dS2 S'^2 + dq/dS S'' (S' and S'' the profile's speed and acceleration there). The
derivatives along S are finite differences over the segment's planned points and its start
(`np.gradient`, one-sided at the segment's ends: a corner's two sides are its segments').
This is what a planned path hands on as a JointTrajectory's velocities and accelerations, so
that a controller interpolating them as splines follows the plan's timing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .line_points import SolvedSegment
from .profile import SpeedProfile


def point_rates(
    segments: Sequence[SolvedSegment], offsets: np.ndarray, profile: SpeedProfile
) -> tuple[np.ndarray, np.ndarray]:
    """(velocities, accelerations) (M, n) of the joints at every feasible planned point of the
    solved `segments` (segment j starting at path position `offsets[j]`), timed by `profile`.

    >>> from arm_kinematics.kinematics.planning.line import LinePath
    >>> from arm_kinematics.kinematics.planning.line_points import SegmentPoints
    >>> points = SegmentPoints(LinePath((0.0,), (1.0,)), np.array([0.5, 1.0]), 1.0)
    >>> segment = SolvedSegment(points, (0.0,), np.array([[1.0], [2.0]]), np.zeros(2), None)
    >>> cruise = SpeedProfile(np.array([0.0, 1.0]), np.array([0.5, 0.5]))
    >>> [rows.ravel().tolist() for rows in point_rates([segment], np.zeros(1), cruise)]
    [[1.0, 1.0], [0.0, 0.0]]
    """
    velocities, accelerations = [], []
    for offset, segment in zip(offsets, segments, strict=False):
        if segment.seed is None or not len(segment.joints):
            continue
        if segment.points.travel <= 0.0:  # no motion along it: at rest at its point
            velocities.append(np.zeros_like(segment.joints))
            accelerations.append(np.zeros_like(segment.joints))
            continue
        positions = offset + segment.points.positions[: segment.feasible + 1]
        joints = np.vstack((segment.seed, segment.joints))
        slope = np.gradient(joints, positions, axis=0)
        bend = np.gradient(slope, positions, axis=0)
        at = positions[1:]
        speed = np.sqrt(np.maximum(np.interp(at, profile.positions, profile.speeds**2), 0.0))
        rate = profile.acceleration_where(at)
        velocities.append(slope[1:] * speed[:, None])
        accelerations.append(bend[1:] * (speed**2)[:, None] + slope[1:] * rate[:, None])
    n = len(segments[0].seed) if segments and segments[0].seed is not None else 0
    if not velocities:
        return np.zeros((0, n)), np.zeros((0, n))
    return np.vstack(velocities), np.vstack(accelerations)
