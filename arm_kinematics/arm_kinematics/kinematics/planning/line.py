"""A straight tool path in the base frame, and where its plan points go.

Pure numpy. Metres and radians. The line is parameterised by progress u in [0, 1]: position
start + u * (goal - start) and, with a heading, heading start + u * (goal - start) taken the
short way round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..angles import wrap_angle


def checked_pose(value: Any, name: str) -> tuple[float, ...]:
    """`value` as a tool pose (x, y) or (x, y, heading), m and rad, finite; ValueError naming
    it (as `name`) else.

    >>> checked_pose([0.1, 0], "goal")
    (0.1, 0.0)
    """
    try:
        pose = tuple(float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} {value!r} must be (x, y) or (x, y, heading)") from None
    if len(pose) not in (2, 3) or not all(math.isfinite(v) for v in pose):
        raise ValueError(f"{name} {value!r} must be (x, y) or (x, y, heading), finite")
    return pose


@dataclass(frozen=True)
class LinePath:
    """A straight tool path from `start` to `goal` ((x, y) metres, headings radians).

    `start_heading`/`goal_heading` are both set when the move controls the tool heading (then
    the heading turns the short way round in proportion to the distance travelled), else None.

    >>> path = LinePath((0.0, 0.0), (0.3, 0.4))
    >>> path.length, path.step_count(0.1), path.points(5)[0].round(9).tolist()
    (0.5, 5, [0.06, 0.08])
    """

    start: tuple[float, float]
    goal: tuple[float, float]
    start_heading: float | None = None
    goal_heading: float | None = None

    @property
    def use_heading(self) -> bool:
        return self.start_heading is not None and self.goal_heading is not None

    @property
    def length(self) -> float:
        """Distance from start to goal, metres."""
        return math.hypot(self.goal[0] - self.start[0], self.goal[1] - self.start[1])

    @property
    def heading_change(self) -> float:
        """Signed heading turn from start to goal (short way round), radians; 0 without one."""
        if not self.use_heading:
            return 0.0
        return wrap_angle(self.goal_heading - self.start_heading)  # type: ignore[operator]

    def at(self, u: float) -> tuple[float, float, float | None]:
        """(x, y, heading or None) at progress u in [0, 1]; u = 1 is exactly the goal."""
        row = self.sample(np.array([u], dtype=float))[0].tolist()
        return (row[0], row[1], row[2] if self.use_heading else None)

    def sample(self, u: np.ndarray) -> np.ndarray:
        """Points at progress `u` (K,): (K, 2), or (K, 3) with the heading column; u >= 1 is
        exactly the goal."""
        x = self.start[0] + u * (self.goal[0] - self.start[0])
        y = self.start[1] + u * (self.goal[1] - self.start[1])
        at_goal = u >= 1.0
        x[at_goal], y[at_goal] = self.goal
        if not self.use_heading:
            return np.column_stack((x, y))
        start, turn = self.start_heading, self.heading_change
        heading = np.array([wrap_angle(start + f * turn) for f in u.tolist()])  # type: ignore[operator]
        heading[at_goal] = self.goal_heading
        return np.column_stack((x, y, heading))

    def step_count(self, max_step: float, heading_radius: float = 0.0) -> int:
        """Number of points after the start so that no two are more than `max_step` apart.

        With a heading, the turn counts as a distance too: `heading_radius` (the last link's
        length, m) times the turn is how far the wrist swings, and that is kept under
        `max_step` as well.
        """
        if not (math.isfinite(max_step) and max_step > 0):
            raise ValueError(f"max_step must be finite and > 0, got {max_step!r}")
        travel = max(self.length, abs(self.heading_change) * heading_radius)
        return max(1, math.ceil(travel / max_step - 1e-9))

    def timed_step_count(
        self, max_step: float, heading_radius: float, speed: float, period: float
    ) -> tuple[int, float]:
        """(points, tool speed in m/s) of a line timed at `speed` m/s with a setpoint every
        `period` s, so that every setpoint of the tool at full speed is a plan point.

        The line takes n = ceil(length / (speed * period)) periods: the tool goes at length /
        (n * period) <= speed, each period covering the same distance, and each of those
        intervals is cut into the same number k of steps, the fewest that keep `max_step`
        (`step_count`). The n * k points are then at most `max_step` apart and every k-th one
        is where a setpoint falls, so the plan and its setpoints share their IK. Never more
        points than `step_count` plus the setpoints. A line without length (a turn of the
        heading on the spot) is timed by its joints: `step_count` points, `speed` unchanged.

        >>> path = LinePath((0.0, 0.0), (0.1118, 0.0))
        >>> def timed(speed):
        ...     count, tool_speed = path.timed_step_count(0.001, 0.0, speed, 0.02)
        ...     return count, round(tool_speed, 6)
        >>> path.step_count(0.001), timed(0.05)  # 112 setpoints 0.998 mm apart
        (112, (112, 0.049911))
        >>> timed(0.1)  # a setpoint on every 2nd point
        (112, 0.099821)
        >>> timed(0.02)  # a point at every setpoint, 0.3993 mm apart
        (280, 0.019964)
        """
        count = self.step_count(max_step, heading_radius)
        if self.length == 0.0:
            return count, speed
        periods = max(1, math.ceil(self.length / (speed * period) - 1e-9))
        return periods * math.ceil(count / periods), self.length / (periods * period)

    def points(self, count: int) -> np.ndarray:
        """`count` evenly spaced points after the start, goal last: (count, 2), or (count, 3)
        with the heading column when the path has one."""
        return self.sample(np.arange(1, count + 1, dtype=float) / count)
