"""Straight-line Cartesian planning: points along a line, IK at every point, and timing.

Units: metres, radians, seconds; positions in the arm's base frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .arm import PlanarArm
from .streaming import LinePath
from .types import Branch, IkStatus, PlanStatus


@dataclass(frozen=True)
class LinePlan:
    """The feasible prefix of a straight-line move.

    `points` (M, 2), or (M, 3) with the heading, are the targets after the start (the last is
    the goal when the whole line is feasible); `joints` (M, n) their IK solutions (radians,
    continuous joints unwrapped so the path has no 2 pi jumps); `times` (M,) seconds from the
    start at which each point is reached; `step_status` (M,) the IkStatus (OK or SINGULAR) of
    each point. `total_steps` counts every point after the start, `failed_step` is None or the
    index of the first failing point (0 = the first point after the start), `failed_point` its
    target. `status` is IkStatus.OK, the failing step's IkStatus, or PlanStatus.JOINT_JUMP;
    `ik_status` is the IK status of the failing step (SINGULAR on success when any step is
    singular, else OK).
    """

    points: np.ndarray
    joints: np.ndarray
    times: np.ndarray
    step_status: np.ndarray
    total_steps: int
    failed_step: int | None
    status: IkStatus | PlanStatus
    ik_status: IkStatus
    feasible_fraction: float
    failed_point: tuple[float, ...] | None
    message: str

    @property
    def ok(self) -> bool:
        """True when the whole line, goal included, is feasible."""
        return self.status == IkStatus.OK

    @property
    def duration(self) -> float:
        """Seconds from the start to the last feasible point (0 without any)."""
        return float(self.times[-1]) if len(self.times) else 0.0


def _pose(value: Any, name: str) -> tuple[float, ...]:
    try:
        pose = tuple(float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} {value!r} must be (x, y) or (x, y, heading)") from None
    if len(pose) not in (2, 3) or not all(math.isfinite(v) for v in pose):
        raise ValueError(f"{name} {value!r} must be (x, y) or (x, y, heading), finite")
    return pose


def _positive(value: Any, name: str) -> float:
    number = float(value)
    if not (math.isfinite(number) and number > 0.0):
        raise ValueError(f"{name} {value!r} must be finite and > 0")
    return number


def line_points(
    start: Sequence[float], goal: Sequence[float], max_step: float
) -> tuple[np.ndarray, np.ndarray]:
    """Evenly spaced targets after `start` up to `goal` (included), at most `max_step` m apart.

    `start`/`goal` are (x, y) or (x, y, heading); the heading is interpolated the short way
    round when both have one (columns x, y, heading), else ignored (columns x, y). Returns
    (points (M, 2|3), u (M,) the fraction of the line at each point). M = max(1,
    ceil(length / max_step)); the last point is exactly the goal.

    Raises:
        ValueError: bad start, goal or max_step.
    """
    p0, p1 = _pose(start, "start"), _pose(goal, "goal")
    step = _positive(max_step, "max_step")
    headings = (p0[2], p1[2]) if len(p0) == 3 and len(p1) == 3 else (None, None)
    path = LinePath(p0[:2], p1[:2], *headings)
    count = path.step_count(step)
    return path.points(count), np.arange(1, count + 1, dtype=float) / count


def step_times(
    arm: PlanarArm,
    start_point: Sequence[float],
    points: np.ndarray,
    start_joints: Sequence[float] | None,
    joints: np.ndarray,
    *,
    speed: float | None = None,
    joint_velocity_limits: Sequence[float] | None = None,
) -> np.ndarray:
    """Seconds from the start at which each point is reached.

    Each step takes max(distance / speed, max_j |delta q_j| / limit_j): the tool moves at
    `speed` (m/s) unless a joint would exceed its velocity limit (rad/s), then that joint sets
    the pace, so the tool speed is <= speed everywhere and every joint speed <= its limit.
    Without `speed` the joints alone set the pace; with neither, the tool moves at 1 m/s.
    Joint motion is measured the short way round for continuous joints. Without
    `start_joints` the first step is timed by its distance only.
    """
    xy = np.asarray(points, dtype=float)[:, :2]
    q = np.asarray(joints, dtype=float)
    if len(xy) == 0:
        return np.zeros(0)
    previous_xy = np.vstack((np.asarray(start_point, dtype=float)[None, :2], xy[:-1]))
    distances = np.hypot(*(xy - previous_xy).T)
    if speed is None and joint_velocity_limits is None:
        durations = distances.copy()
    else:
        durations = distances / speed if speed is not None else np.zeros(len(xy))
    if joint_velocity_limits is not None:
        limits = np.asarray(joint_velocity_limits, dtype=float)
        deltas = np.empty_like(q)
        if start_joints is not None:
            deltas[0] = arm.joint_delta(start_joints, q[0])
        else:
            deltas[0] = 0.0
        for i in range(1, len(q)):
            deltas[i] = arm.joint_delta(q[i - 1], q[i])
        durations = np.maximum(durations, (np.abs(deltas) / limits).max(axis=1))
    return np.cumsum(durations)


def plan_line(
    arm: PlanarArm,
    start: Sequence[float],
    goal: Sequence[float],
    max_step: float,
    current: Sequence[float] | None = None,
    *,
    speed: float | None = None,
    joint_velocity_limits: Sequence[float] | None = None,
    max_joint_step: float | None = None,
) -> LinePlan:
    """Plan a straight tool line from `start` to `goal` with IK at every point.

    Points come from `line_points` (at most `max_step` m apart, the goal included); each is
    solved with Branch.CLOSEST seeded by the previous solution (the first by `current`, the
    joints at `start`). A point fails when its IK fails, or when some joint moves more than
    `max_joint_step` (rad) from the previous point (a branch flip: PlanStatus.JOINT_JUMP; the
    first point is compared with `current`). The plan keeps the feasible prefix, timed by
    `step_times` with `speed` (m/s) and `joint_velocity_limits` (rad/s).

    Raises:
        ValueError: malformed start, goal, max_step, current, speed or limits.
    """
    n = arm.n_joints
    points, _ = line_points(start, goal, max_step)
    start_pose = _pose(start, "start")
    if current is not None:
        seed: tuple[float, ...] | None = tuple(float(v) for v in current)
        if len(seed) != n or not all(math.isfinite(v) for v in seed):
            raise ValueError(f"current {current!r} must be {n} finite joint angles (rad)")
    else:
        seed = None
    if speed is not None:
        speed = _positive(speed, "speed")
    if joint_velocity_limits is not None:
        limits = [_positive(v, "joint velocity limit") for v in joint_velocity_limits]
        if len(limits) != n:
            raise ValueError(f"joint_velocity_limits {joint_velocity_limits!r} needs {n} values")
    if max_joint_step is not None:
        max_joint_step = _positive(max_joint_step, "max_joint_step")

    total = len(points)
    with_heading = points.shape[1] == 3
    rows = points.tolist()
    solutions: list[tuple[float, ...]] = []
    statuses: list[int] = []
    failed_step: int | None = None
    status: IkStatus | PlanStatus = IkStatus.OK
    ik_status = IkStatus.OK
    message = ""
    previous = seed
    for index, row in enumerate(rows):
        result = arm.solve(
            row[0], row[1], row[2] if with_heading else None, Branch.CLOSEST, previous
        )
        if not result.ok:
            failed_step, status, ik_status = index, result.status, result.status
            message = f"step {index} of {total} fails: {result.message}"
            break
        joints = result.joints
        if previous is not None:
            # Continuous joints follow the short way round: no 2 pi jumps in the path.
            joints = arm.unwrap_near(joints, previous)
            delta = arm.joint_delta(previous, joints)
            jump = max(abs(d) for d in delta)
            if max_joint_step is not None and jump > max_joint_step:
                failed_step, status, ik_status = index, PlanStatus.JOINT_JUMP, result.status
                worst = max(range(n), key=lambda j: abs(delta[j]))
                message = (
                    f"step {index} of {total} fails: JOINT_JUMP: {arm.joint_names[worst]} would "
                    f"move {math.degrees(delta[worst]):.2f} deg in one step (max "
                    f"{math.degrees(max_joint_step):.2f} deg): a branch flip"
                )
                break
        solutions.append(joints)
        statuses.append(int(result.status))
        previous = joints

    feasible = len(solutions)
    joint_array = np.array(solutions, dtype=float).reshape(feasible, n)
    feasible_points = points[:feasible]
    times = step_times(
        arm,
        start_pose,
        feasible_points,
        seed,
        joint_array,
        speed=speed,
        joint_velocity_limits=joint_velocity_limits,
    )
    singular = statuses.count(int(IkStatus.SINGULAR))
    if failed_step is None:
        ik_status = IkStatus.SINGULAR if singular else IkStatus.OK
        message = f"OK: all {total} steps feasible" + (
            f", {singular} near a singularity" if singular else ""
        )
    return LinePlan(
        points=feasible_points,
        joints=joint_array,
        times=times,
        step_status=np.array(statuses, dtype=np.uint8),
        total_steps=total,
        failed_step=failed_step,
        status=status,
        ik_status=ik_status,
        feasible_fraction=feasible / total,
        failed_point=None if failed_step is None else tuple(rows[failed_step]),
        message=message,
    )
