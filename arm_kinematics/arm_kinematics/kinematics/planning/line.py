"""A straight tool path in the base frame, and where its plan points go.

Pure numpy. Metres and radians. A tool pose is its position (x, y on a planar arm, x, y, z on a
spatial one) followed by the angles the move controls (a planar arm's heading; a spatial arm's
pitch, then roll). The line is parameterised by progress u in [0, 1]: position
start + u * (goal - start), and each angle start + u * (goal - start) taken the short way round.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..angles import wrap_angle


def checked_pose(value: Any, name: str, position_dims: int = 2) -> tuple[float, ...]:
    """`value` as a tool pose: `position_dims` coordinates (m), then up to two angles (rad),
    all finite; ValueError naming it (as `name`) else.

    >>> checked_pose([0.1, 0], "goal")
    (0.1, 0.0)
    >>> checked_pose((0.1, 0.0, 0.2, -1.57), "goal", position_dims=3)
    (0.1, 0.0, 0.2, -1.57)
    """
    shape = "(x, y) or (x, y, heading)" if position_dims == 2 else "(x, y, z[, pitch[, roll]])"
    try:
        pose = tuple(float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} {value!r} must be {shape}") from None
    most = position_dims + (1 if position_dims == 2 else 2)
    if not position_dims <= len(pose) <= most or not all(math.isfinite(v) for v in pose):
        raise ValueError(f"{name} {value!r} must be {shape}, finite")
    return pose


@dataclass(frozen=True)
class LinePath:
    """A straight tool path from `start` to `goal` (positions, m) turning `start_angles` into
    `goal_angles` (rad, the short way round, in proportion to the progress). No angles: the move
    leaves them to the IK.

    >>> path = LinePath((0.0, 0.0), (0.3, 0.4))
    >>> path.length, path.step_count(0.1), path.points(5)[0].round(9).tolist()
    (0.5, 5, [0.06, 0.08])
    >>> LinePath((0.1, 0.0, 0.2), (0.1, 0.1, 0.2), (0.0,), (-1.0,)).at(0.5)
    (0.1, 0.05, 0.2, -0.5)
    """

    start: tuple[float, ...]
    goal: tuple[float, ...]
    start_angles: tuple[float, ...] = ()
    goal_angles: tuple[float, ...] = ()

    @classmethod
    def between(
        cls, start: Sequence[float], goal: Sequence[float], position_dims: int = 2
    ) -> LinePath:
        """The line between two tool poses (`checked_pose`'s shape): the angles both poses
        give are planned, the others left to the IK.

        >>> LinePath.between((0.0, 0.0, 1.0), (1.0, 0.0)).start_angles  # one pose has no heading
        ()
        """
        d = position_dims
        count = min(len(start), len(goal)) - d
        return cls(
            tuple(start[:d]),
            tuple(goal[:d]),
            tuple(start[d : d + count]),
            tuple(goal[d : d + count]),
        )

    @property
    def use_heading(self) -> bool:
        """True when the move controls an angle of the tool (a heading, a pitch)."""
        return bool(self.start_angles)

    @property
    def length(self) -> float:
        """Distance from start to goal, metres."""
        return math.dist(self.start, self.goal)

    @property
    def angle_changes(self) -> tuple[float, ...]:
        """Signed turn of each angle from start to goal (short way round), radians."""
        return tuple(
            wrap_angle(b - a) for a, b in zip(self.start_angles, self.goal_angles, strict=True)
        )

    @property
    def heading_change(self) -> float:
        """The first angle's turn (a planar heading), radians; 0 without one."""
        return self.angle_changes[0] if self.start_angles else 0.0

    def at(self, u: float) -> tuple[float, ...]:
        """The pose (position, then the angles) at progress u in [0, 1]; u = 1 is the goal."""
        return tuple(self.sample(np.array([u], dtype=float))[0].tolist())

    def sample(self, u: np.ndarray) -> np.ndarray:
        """Poses at progress `u` (K,): (K, position + angles); u >= 1 is exactly the goal."""
        start, goal = np.asarray(self.start), np.asarray(self.goal)
        position = start[None, :] + u[:, None] * (goal - start)[None, :]
        at_goal = u >= 1.0
        position[at_goal] = goal
        columns = [position]
        for start_angle, goal_angle, turn in zip(
            self.start_angles, self.goal_angles, self.angle_changes, strict=True
        ):
            angle = np.array([wrap_angle(start_angle + f * turn) for f in u.tolist()])
            angle[at_goal] = goal_angle
            columns.append(angle[:, None])
        return np.hstack(columns)

    def step_travel(self, angle_radii: Sequence[float] = ()) -> float:
        """How far the tool goes along the line for the step rule (m): its length, or farther
        where a turn swings a radius (`angle_radii[i]`, m: a planar heading's is the last
        link's length, how far the wrist swings) through angle i's turn."""
        turns = zip(self.angle_changes, angle_radii, strict=False)  # radii for every angle
        swings = [abs(turn) * radius for turn, radius in turns]
        return max(self.length, *swings) if swings else self.length

    def step_count(self, max_step: float, angle_radii: Sequence[float] = ()) -> int:
        """Number of points after the start so that no two are more than `max_step` apart,
        by `step_travel`'s measure."""
        if not (math.isfinite(max_step) and max_step > 0):
            raise ValueError(f"max_step must be finite and > 0, got {max_step!r}")
        return max(1, math.ceil(self.step_travel(angle_radii) / max_step - 1e-9))

    def points(self, count: int) -> np.ndarray:
        """`count` evenly spaced poses after the start, goal last: (count, position + angles)."""
        return self.sample(np.arange(1, count + 1, dtype=float) / count)
