"""Time-parameterised joint trajectories from other planners: checked whole, then sampled.

Numpy only, no ROS. A trajectory is what `trajectory_msgs/JointTrajectory` carries: joint names
in any order, and points with positions (rad) and `time_from_start` (s). It is accepted only
whole, before anything moves:

1. the names are exactly the arm's joints, each once (in any order; a subset is refused, since
   the joints left out would have no command, unless `hold_missing` asks that they keep their
   current position, as FollowJointTrajectory's partial goals do);
2. every point has one finite position per joint and a finite time;
3. times strictly increase, and the first is > 0 (the arm needs time to get from where it is to
   the first point) unless the first point is where the arm already is;
4. every position lies within its joint's limits (LIMIT_TOLERANCE of slack, never clamped);
5. no segment, including the one from the arm's current pose to the first point, needs a joint
   faster than its velocity limit: |dq| / dt <= max_velocity (1e-9 relative slack).

The positions are then interpolated linearly in joint space (each segment at constant joint
speed, so rule 5 is exactly the speed the servos see) and sampled at the command period.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..planar.chain import LIMIT_TOLERANCE

_SPEED_SLACK = 1e-9  # relative: rounding of positions and times, not a real excess
_AT_START_RAD = 1e-6  # a first point at time 0 must be this close to the current pose


class JointTrajectoryError(ValueError):
    """A trajectory that breaks a rule; the message names the point and joint."""


class JointNamesError(JointTrajectoryError):
    """The joint names break rule 1: unknown, named twice, or missing."""


@dataclass(frozen=True)
class TimedJointPath:
    """A checked trajectory in the arm's joint order, starting at the current pose.

    `times` (s, strictly increasing, times[0] == 0) and `positions` (rad, one row per time, the
    first row the current pose).
    """

    times: np.ndarray
    positions: np.ndarray

    @property
    def duration(self) -> float:
        """Seconds from the start to the last point."""
        return float(self.times[-1])

    def at(self, time: float) -> tuple[np.ndarray, np.ndarray]:
        """Where the path wants the joints `time` s after the start (rad), and how fast (rad/s:
        the slope of the segment that holds `time`); before the start the first point and after
        the end the last one, both at rest.

        >>> path = TimedJointPath(np.array([0.0, 2.0]), np.array([[0.0, 1.0], [1.0, 0.0]]))
        >>> [values.tolist() for values in path.at(0.5)]
        [[0.25, 0.75], [0.5, -0.5]]
        >>> [values.tolist() for values in path.at(3.0)]
        [[1.0, 0.0], [0.0, 0.0]]
        """
        times = self.times
        if time <= times[0] or time >= times[-1]:
            row = self.positions[0] if time <= times[0] else self.positions[-1]
            return row.copy(), np.zeros_like(row)
        segment = int(np.searchsorted(times, time, side="right")) - 1
        t0, t1 = times[segment], times[segment + 1]
        q0, q1 = self.positions[segment], self.positions[segment + 1]
        velocity = (q1 - q0) / (t1 - t0)
        return q0 + velocity * (time - t0), velocity

    def sample(self, period: float) -> np.ndarray:
        """Joint setpoints every `period` seconds after the start, the last point included.

        >>> path = TimedJointPath(np.array([0.0, 1.0]), np.array([[0.0, 0.0], [0.5, -1.0]]))
        >>> path.sample(0.25).round(3).tolist()
        [[0.125, -0.25], [0.25, -0.5], [0.375, -0.75], [0.5, -1.0]]
        """
        count = max(1, math.ceil(self.duration / period - 1e-9))
        sample_times = np.minimum(np.arange(1, count + 1) * period, self.duration)
        sample_times[-1] = self.duration
        return np.column_stack(
            [np.interp(sample_times, self.times, column) for column in self.positions.T]
        )


def check_joint_trajectory(
    names: Sequence[str],
    times: Sequence[float],
    positions: Sequence[Sequence[float]],
    *,
    joint_names: Sequence[str],
    joint_limits: Sequence[tuple[float, float]],
    max_velocities: Sequence[float],
    current: Sequence[float],
    hold_missing: bool = False,
) -> TimedJointPath:
    """Check a trajectory against the rules of the module docstring; the TimedJointPath.

    `names`, `times` (s) and `positions` (rad, one row per point in the order of `names`) are
    the trajectory's; `joint_names`, `joint_limits` (rad), `max_velocities` (rad/s) and
    `current` (rad) are the arm's, in its own joint order. With `hold_missing`, a joint the
    trajectory leaves out stays at its `current` position at every point. Raises
    JointTrajectoryError (JointNamesError for rule 1) naming the point and joint of the first
    broken rule. At least one point is required.

    >>> arm = dict(joint_names=("shoulder", "elbow"), joint_limits=((-1.6, 1.6),) * 2,
    ...            max_velocities=(2.0, 2.0), current=(0.0, 0.0))
    >>> path = check_joint_trajectory(("elbow", "shoulder"), [1.0], [[0.5, 1.0]], **arm)
    >>> path.positions.tolist()  # reordered to the arm's joints, the current pose first
    [[0.0, 0.0], [1.0, 0.5]]
    >>> try:
    ...     check_joint_trajectory(("elbow", "shoulder"), [0.2], [[0.5, 1.0]], **arm)
    ... except JointTrajectoryError as error:
    ...     print(error)
    point 0: joint shoulder moves 1 rad in 0.2 s (5 rad/s), faster than its limit 2 rad/s
    >>> held = check_joint_trajectory(("elbow",), [1.0], [[0.5]], hold_missing=True, **arm)
    >>> held.positions.tolist()  # the shoulder stays where it is
    [[0.0, 0.0], [0.0, 0.5]]
    """
    order = joint_columns(names, joint_names, hold_missing)
    if len(times) != len(positions):
        raise JointTrajectoryError(f"{len(times)} times for {len(positions)} points")
    if not positions:
        raise JointTrajectoryError("the trajectory has no points")
    rows = []
    for index, row in enumerate(positions):
        if len(row) != len(names):
            raise JointTrajectoryError(
                f"point {index}: {len(row)} positions for {len(names)} joint names"
            )
        values = [
            float(row[order[name]]) if name in order else float(held)
            for name, held in zip(joint_names, current, strict=True)
        ]
        for name, value, (lo, hi) in zip(joint_names, values, joint_limits, strict=True):
            if not math.isfinite(value):
                raise JointTrajectoryError(f"point {index}: joint {name} position {value}")
            if not lo - LIMIT_TOLERANCE <= value <= hi + LIMIT_TOLERANCE:
                raise JointTrajectoryError(
                    f"point {index}: joint {name} = {math.degrees(value):.2f} deg is outside its "
                    f"limits [{math.degrees(lo):.2f}, {math.degrees(hi):.2f}] deg"
                )
        rows.append(values)
    stamps = [float(t) for t in times]
    previous_time, previous_row = 0.0, [float(q) for q in current]
    for index, (time, row) in enumerate(zip(stamps, rows, strict=True)):
        if not math.isfinite(time) or time < 0.0:
            raise JointTrajectoryError(f"point {index}: time_from_start {time} s")
        dt = time - previous_time
        if index > 0 and dt <= 0.0:
            raise JointTrajectoryError(
                f"point {index}: time_from_start {time:g} s does not increase "
                f"(point {index - 1} is at {previous_time:g} s)"
            )
        for name, start, end, limit in zip(
            joint_names, previous_row, row, max_velocities, strict=True
        ):
            step = abs(end - start)
            if dt <= 0.0:
                if step > _AT_START_RAD:
                    raise JointTrajectoryError(
                        f"point {index}: at time 0 joint {name} must be where the arm is "
                        f"({math.degrees(start):.2f} deg), not {math.degrees(end):.2f} deg"
                    )
            elif step > limit * dt * (1.0 + _SPEED_SLACK):
                raise JointTrajectoryError(
                    f"point {index}: joint {name} moves {step:.3g} rad in {dt:.3g} s "
                    f"({step / dt:.3g} rad/s), faster than its limit {limit:.3g} rad/s"
                )
        previous_time, previous_row = time, row
    all_times = np.array([0.0, *stamps])
    all_rows = np.array([[float(q) for q in current], *rows])
    if stamps[0] == 0.0:  # the first point is the current pose: keep one of the two
        all_times, all_rows = all_times[1:], all_rows[1:]
    return TimedJointPath(all_times, all_rows)


def joint_columns(
    names: Sequence[str], joint_names: Sequence[str], hold_missing: bool = False
) -> dict[str, int]:
    """Column of each named arm joint in a trajectory's `names`; JointNamesError unless they
    follow rule 1 (every arm joint named once; with `hold_missing` a subset will do).

    >>> joint_columns(("elbow", "shoulder"), ("shoulder", "elbow"))
    {'elbow': 0, 'shoulder': 1}
    >>> try:
    ...     joint_columns(("elbow",), ("shoulder", "elbow"))
    ... except JointNamesError as error:
    ...     print(error)
    joints shoulder are missing: a trajectory must command every joint
    """
    order: dict[str, int] = {}
    for column, name in enumerate(names):
        if name in order:
            raise JointNamesError(f"joint {name} is named twice")
        if name not in joint_names:
            raise JointNamesError(
                f"unknown joint {name} (the arm's joints: {', '.join(joint_names)})"
            )
        order[name] = column
    if not order:
        raise JointNamesError(f"no joint names (the arm's joints: {', '.join(joint_names)})")
    missing = [name for name in joint_names if name not in order]
    if missing and not hold_missing:
        raise JointNamesError(
            f"joints {', '.join(missing)} are missing: a trajectory must command every joint"
        )
    return order
