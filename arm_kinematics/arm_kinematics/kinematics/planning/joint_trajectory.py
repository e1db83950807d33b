"""Time-parameterised joint trajectories from other planners: checked whole, then sampled.

Numpy (and scipy, `timed_joint_path.py`), no ROS. A trajectory is what
`trajectory_msgs/JointTrajectory` carries: joint names in any order, and points with positions
(rad), optionally velocities (rad/s) and accelerations (rad/s^2), and `time_from_start` (s).
Its timing is the sender's (MoveIt times its own); it is accepted only whole, before anything
moves, when:

1. the names are exactly the arm's joints, each once (in any order; a subset is refused, since
   the joints left out would have no command, unless `hold_missing` asks that they keep their
   current position, as FollowJointTrajectory's partial goals do);
2. every point has one finite position per joint (and velocities, accelerations: none, or
   one finite value per joint) and a finite time;
3. times strictly increase, and the first is > 0 (the arm needs time to get from where it is to
   the first point) unless the first point is where the arm already is;
4. every position lies within its joint's limits (LIMIT_TOLERANCE of slack, never clamped);
5. the velocities and accelerations the points give are within the joint limits;
6. no segment, including the one from the arm's current pose to the first point, needs a joint
   faster than its velocity limit on average: |dq| / dt <= max_velocity (1e-9 relative slack);
   a first point at rest (no velocities, or zero ones) is not sooner than the fastest
   rest-to-rest move there within the limits allows (its approach, `timed_joint_path.py`);
7. as it will be streamed (interpolated as `timed_joint_path.py` says and sampled at the
   command period, with the rest before and after it), every setpoint lies within the joint
   limits and keeps every joint's velocity and acceleration limit: the finite differences of
   `stream_limits.py`, the one measure every motion of the stack is held to. So a trajectory's
   acceleration is that of the motion it asks for: where it gives accelerations they shape the
   quintic and are checked as given (5); with positions only, a change of velocity at a point
   happens within one period, and is refused unless the acceleration limit allows it;
8. with an `envelope` (the arm's workspace envelope), the same stream from the arm's pose (the
   approach to the first point included) stays inside it: every setpoint, and between two on
   the straight joint line the servos follow, no point of the arm moving more than
   `PATH_RESOLUTION_M` between checks (`Envelope.check_path`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..envelope import Envelope
from ..planar.chain import LIMIT_TOLERANCE
from .joint_plan import joint_profile
from .options import MotionLimits
from .profile import SpeedProfile
from .stream_limits import stream_excesses, with_rest
from .timed_joint_path import TimedJointPath, stretched

_SPEED_SLACK = 1e-9  # relative: rounding of positions and times, not a real excess
_AT_START_RAD = 1e-6  # a first point at time 0 must be this close to the current pose


class JointTrajectoryError(ValueError):
    """A trajectory that breaks a rule; the message names the point and joint."""


class JointNamesError(JointTrajectoryError):
    """The joint names break rule 1: unknown, named twice, or missing."""


def _rows(
    values: Sequence[Sequence[float]] | None,
    what: str,
    order: dict[str, int],
    joint_names: Sequence[str],
    points: int,
    width: int,
) -> np.ndarray | None:
    """A per-point field (velocities, accelerations) in the arm's joint order, the joints the
    trajectory leaves out at 0; None unless every point gives one value per joint."""
    if values is None or not all(len(row) for row in values) or len(values) != points:
        return None
    rows = []
    for index, row in enumerate(values):
        if len(row) != width:
            raise JointTrajectoryError(f"point {index}: {len(row)} {what} for {width} joint names")
        rows.append([float(row[order[name]]) if name in order else 0.0 for name in joint_names])
    array = np.array(rows, dtype=float)
    if not np.all(np.isfinite(array)):
        index, column = np.argwhere(~np.isfinite(array))[0]
        raise JointTrajectoryError(
            f"point {index}: joint {joint_names[column]} {what} {array[index, column]}"
        )
    return array


def _within(array: np.ndarray | None, bounds: Sequence[float], what: str, unit: str,
            joint_names: Sequence[str]) -> None:  # fmt: skip
    """Rule 5 for one field: every given value within its joint's bound."""
    if array is None:
        return
    over = np.abs(array) > np.asarray(bounds) * (1.0 + _SPEED_SLACK)
    if over.any():
        index, column = np.argwhere(over)[0]
        raise JointTrajectoryError(
            f"point {index}: joint {joint_names[column]} {what} {array[index, column]:.3g} "
            f"{unit} is over its limit {bounds[column]:.3g} {unit}"
        )


def check_joint_trajectory(
    names: Sequence[str],
    times: Sequence[float],
    positions: Sequence[Sequence[float]],
    *,
    joint_names: Sequence[str],
    joint_limits: Sequence[tuple[float, float]],
    limits: MotionLimits,
    current: Sequence[float],
    hold_missing: bool = False,
    velocities: Sequence[Sequence[float]] | None = None,
    accelerations: Sequence[Sequence[float]] | None = None,
    envelope: Envelope | None = None,
) -> TimedJointPath:
    """Check a trajectory against the rules of the module docstring; the TimedJointPath.

    `names`, `times` (s), `positions` (rad, one row per point in the order of `names`) and,
    if given, `velocities` and `accelerations` (one row per point, empty rows: none) are the
    trajectory's; `joint_names`, `joint_limits` (rad), `limits` (the command period and the
    joint velocity and acceleration limits) and `current` (rad) are the arm's, in its own
    joint order. With `hold_missing`, a joint the trajectory leaves out stays at its `current`
    position at every point; with `envelope`, rule 8. Raises JointTrajectoryError
    (JointNamesError for rule 1) naming the point and joint (rule 8: the place and the part)
    of the first broken rule. At least one point is required.

    >>> arm = dict(joint_names=("shoulder", "elbow"), joint_limits=((-1.6, 1.6),) * 2,
    ...            limits=MotionLimits(0.02, (2.0, 2.0), (8.0, 8.0)), current=(0.0, 0.0))
    >>> path = check_joint_trajectory(("elbow", "shoulder"), [1.0], [[0.5, 1.0]], **arm)
    >>> path.positions.tolist()  # reordered to the arm's joints, the current pose first
    [[0.0, 0.0], [1.0, 0.5]]
    >>> try:
    ...     check_joint_trajectory(("elbow", "shoulder"), [0.2], [[0.5, 1.0]], **arm)
    ... except JointTrajectoryError as error:
    ...     print(error)
    point 0: joint shoulder moves 1 rad in 0.2 s (5 rad/s), faster than its limit 2 rad/s
    >>> try:  # 2 points, positions only: at point 0 the shoulder is at once at 1 rad/s
    ...     check_joint_trajectory(("elbow", "shoulder"), [1.0, 2.0], [[0.5, 1.0], [0.5, 0.0]],
    ...                            **arm)
    ... except JointTrajectoryError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    point 0 (1.00 s): joint shoulder accelerates at 52.3 rad/s^2, over its limit 8 rad/s^2 ...
    >>> held = check_joint_trajectory(("elbow",), [1.0], [[0.5]], hold_missing=True, **arm)
    >>> held.positions.tolist()  # the shoulder stays where it is
    [[0.0, 0.0], [0.0, 0.5]]
    """
    order = joint_columns(names, joint_names, hold_missing)
    if len(times) != len(positions):
        raise JointTrajectoryError(f"{len(times)} times for {len(positions)} points")
    if not positions:
        raise JointTrajectoryError("the trajectory has no points")
    rows = _positions(positions, names, order, joint_names, joint_limits, current)
    stamps = _times(times)
    speeds = _rows(velocities, "velocity", order, joint_names, len(rows), len(names))
    rates = _rows(accelerations, "acceleration", order, joint_names, len(rows), len(names))
    if speeds is None:
        rates = None  # accelerations shape the motion only with velocities beside them
    _within(speeds, limits.joint_velocities, "velocity", "rad/s", joint_names)
    _within(rates, limits.joint_accelerations, "acceleration", "rad/s^2", joint_names)
    _average_speeds(stamps, rows, current, joint_names, limits.joint_velocities)
    path = _path(stamps, rows, speeds, rates, current, limits)
    _stream_check(path, stamps, limits, joint_names, joint_limits, positions_only=speeds is None)
    if envelope is not None:
        _envelope_check(path, stamps, limits.period, envelope)
    return path


def _envelope_check(
    path: TimedJointPath, stamps: list[float], period: float, envelope: Envelope
) -> None:
    """Rule 8 on the setpoints the stream would send, from the arm's pose."""
    times = np.concatenate(([0.0], path.sample_times(period)))
    found = envelope.check_path(np.vstack((path.positions[0], path.sample(period))))
    if found is None:
        return
    after = times[min(found.index + 1, len(times) - 1)]
    at = times[found.index] + found.fraction * (after - times[found.index])
    point = min(int(np.searchsorted(np.asarray(stamps), at - 1e-12)), len(stamps) - 1)
    way = " (the approach from where the arm is)" if point == 0 and stamps[0] > 0.0 else ""
    raise JointTrajectoryError(
        f"on the way to point {point}{way}, at {at:.2f} s: {found.violation.message}"
    )


def _positions(
    positions: Sequence[Sequence[float]],
    names: Sequence[str],
    order: dict[str, int],
    joint_names: Sequence[str],
    joint_limits: Sequence[tuple[float, float]],
    current: Sequence[float],
) -> list[list[float]]:
    """Rules 2 and 4 for the positions: the rows in the arm's joint order."""
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
    return rows


def _times(times: Sequence[float]) -> list[float]:
    """Rules 2 and 3 for the times."""
    stamps = [float(t) for t in times]
    previous = 0.0
    for index, time in enumerate(stamps):
        if not math.isfinite(time) or time < 0.0:
            raise JointTrajectoryError(f"point {index}: time_from_start {time} s")
        if index > 0 and time <= previous:
            raise JointTrajectoryError(
                f"point {index}: time_from_start {time:g} s does not increase "
                f"(point {index - 1} is at {previous:g} s)"
            )
        previous = time
    return stamps


def _average_speeds(
    stamps: list[float],
    rows: list[list[float]],
    current: Sequence[float],
    joint_names: Sequence[str],
    max_velocities: Sequence[float],
) -> None:
    """Rule 6's average speeds, from the current pose through every point."""
    previous_time, previous_row = 0.0, [float(q) for q in current]
    for index, (time, row) in enumerate(zip(stamps, rows, strict=True)):
        dt = time - previous_time
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


def _path(
    stamps: list[float],
    rows: list[list[float]],
    speeds: np.ndarray | None,
    rates: np.ndarray | None,
    current: Sequence[float],
    limits: MotionLimits,
) -> TimedJointPath:
    """The TimedJointPath from the current pose (rule 6's approach for positions only)."""
    start = [float(q) for q in current]
    all_times = np.array([0.0, *stamps])
    all_rows = np.array([start, *rows])
    zeros = np.zeros((1, len(start)))
    all_speeds = None if speeds is None else np.vstack((zeros, speeds))
    all_rates = None if rates is None else np.vstack((zeros, rates))
    if stamps[0] == 0.0:  # the first point is the current pose: keep one of the two
        all_times, all_rows = all_times[1:], all_rows[1:]
        all_speeds = None if all_speeds is None else all_speeds[1:]
        all_rates = None if all_rates is None else all_rates[1:]
        return TimedJointPath(all_times, all_rows, all_speeds, all_rates)
    approach = None
    if speeds is None or not np.any(speeds[0]):  # the first point at rest: rule 6's approach
        fastest = joint_profile(start, rows[0], limits)
        if fastest is None:  # there already: the arm holds until its time
            approach = SpeedProfile(np.array([0.0, 1.0]), np.full(2, 1.0 / stamps[0]))
        elif stamps[0] < fastest.duration * (1.0 - _SPEED_SLACK):
            raise JointTrajectoryError(
                f"point 0: from where the arm is, the first point takes at least "
                f"{fastest.duration:.3g} s within the joint limits (starting and ending at "
                f"rest), not {stamps[0]:g} s"
            )
        else:
            approach = stretched(fastest, stamps[0])
    return TimedJointPath(all_times, all_rows, all_speeds, all_rates, approach)


def _stream_check(
    path: TimedJointPath,
    stamps: list[float],
    limits: MotionLimits,
    joint_names: Sequence[str],
    joint_limits: Sequence[tuple[float, float]],
    *,
    positions_only: bool,
) -> None:
    """Rule 7 on the setpoints the stream would send."""
    period = limits.period
    sample_times = path.sample_times(period)
    joints = path.sample(period)
    low = np.array([lo for lo, _ in joint_limits]) - LIMIT_TOLERANCE
    high = np.array([hi for _, hi in joint_limits]) + LIMIT_TOLERANCE
    outside = (joints < low) | (joints > high)
    if outside.any():
        row, column = np.argwhere(outside)[0]
        raise JointTrajectoryError(
            f"at {sample_times[row]:.2f} s joint {joint_names[column]} would reach "
            f"{math.degrees(joints[row, column]):.2f} deg between the points, outside its limits"
        )
    first, _ = stream_excesses(with_rest(path.positions[0], joints), period, limits)
    if first is None:
        return
    at = (first.row + 1) * period
    point = min(int(np.searchsorted(np.asarray(stamps), at - 1e-12)), len(stamps) - 1)
    verb = "moves at" if first.quantity == "velocity" else "accelerates at"
    unit = "rad/s" if first.quantity == "velocity" else "rad/s^2"
    hint = (
        " (positions only are followed at constant speed between points, so the speed changes "
        "at a point within one period: give velocities and accelerations)"
        if positions_only
        else ""
    )
    assert first.joint is not None
    raise JointTrajectoryError(
        f"point {point} ({at:.2f} s): joint {joint_names[first.joint]} {verb} "
        f"{first.value:.3g} {unit}, over its limit {first.limit:.3g} {unit}{hint}"
    )


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
