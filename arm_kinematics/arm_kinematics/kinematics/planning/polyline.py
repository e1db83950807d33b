"""Tool paths through waypoints: one straight `plan_line` segment after another.

Pure numpy. Metres, radians, seconds; poses in the base frame.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..types import IkStatus
from .joint_path import Setpoints
from .line import LinePath, checked_pose
from .line_plan import LinePlan, PlanArm, TimedPlan, plan_line


@dataclass(frozen=True, kw_only=True)
class PolylinePlan(TimedPlan):
    """A tool path through waypoints: one straight `plan_line` segment after another.

    The fields of `TimedPlan`, over the whole path: `total_steps` every point after the start
    on every segment, `failed_step` the index of the first failing point along the whole path
    (0 = the first after the start), `feasible_fraction` the feasible share of the path's
    length, `setpoints` every segment's, one per period throughout. And `failed_waypoint` the
    waypoint whose segment holds the failing point (None when none failed), `segment_steps`
    each segment's points.
    """

    failed_waypoint: int | None
    segment_steps: tuple[int, ...]


def polyline_paths(
    start: Sequence[float], waypoints: Sequence[Sequence[float]], position_dims: int = 2
) -> list[LinePath]:
    """The straight segments start -> waypoint 0 -> waypoint 1 -> ... (poses as `plan_line`
    takes them; a segment turns an angle only when both its ends have it).

    >>> [p.length for p in polyline_paths((0.0, 1.0), [(0.0, 1.5), (1.0, 1.5)])]
    [0.5, 1.0]
    """
    d = position_dims
    poses = [checked_pose(start, "start", d)]
    poses += [checked_pose(w, f"waypoint {i}", d) for i, w in enumerate(waypoints)]
    return [LinePath.between(p0, p1, d) for p0, p1 in itertools.pairwise(poses)]


def polyline_step_counts(
    arm: PlanArm,
    start: Sequence[float],
    waypoints: Sequence[Sequence[float]],
    max_step: float,
    speed: float | None = None,
    period: float | None = None,
) -> tuple[int, ...]:
    """Points each segment of the polyline gets from `plan_line` with the same `max_step`,
    `speed` and `period` (before any IK: to bound the work of a request, or to draw a plan).

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> polyline_step_counts(arm, (1.0, 0.8), [(0.9, 0.8)], 0.001, speed=0.02, period=0.02)
    (250,)
    """
    counts = []
    for path in polyline_paths(start, waypoints, arm.position_dims):
        if speed is not None and period is not None:
            counts.append(path.timed_step_count(max_step, arm.angle_radii, speed, period)[0])
        else:
            counts.append(path.step_count(max_step, arm.angle_radii))
    return tuple(counts)


def plan_polyline(
    arm: PlanArm,
    start: Sequence[float],
    waypoints: Sequence[Sequence[float]],
    max_step: float,
    current: Sequence[float] | None = None,
    **options: Any,
) -> PolylinePlan:
    """Plan the tool path `start` -> every waypoint in turn, each segment straight, with
    `plan_line` (every keyword option is `plan_line`'s: solve, speed, joint_velocity_limits,
    max_joint_step, period). Segment k starts at waypoint k - 1 seeded by the last joints of
    segment k - 1 (its last setpoint when there are setpoints); the first failing segment ends
    the plan. Poses, units and frames as `plan_line`.

    >>> import math
    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> home = (0.0, math.pi / 2)
    >>> x, y, _ = arm.forward(home)
    >>> plan = plan_polyline(arm, (x, y), [(x - 0.1, y), (x - 0.1, y - 0.1)], 0.01, home)
    >>> plan.status.name, plan.segment_steps, plan.total_steps, round(plan.duration, 6)
    ('OK', (10, 10), 20, 0.2)
    >>> [round(v, 9) for v in arm.forward(plan.joints[14])[:2]]  # on the second segment
    [0.9, 0.75]
    >>> hole = plan_polyline(arm, (x, y), [(x - 0.1, y), (0.1, 0.1), (x, y)], 0.01, home)
    >>> hole.status.name, hole.segment_steps, hole.failed_waypoint, hole.failed_step
    ('TOO_CLOSE', (10, 107, 115), 1, 111)
    >>> round(hole.feasible_fraction, 4)  # (0.1 m + 101/107 of 1.063 m) of 2.303 m
    0.4791
    """
    if not waypoints:
        raise ValueError("a polyline needs at least one waypoint")
    paths = polyline_paths(start, waypoints, arm.position_dims)
    counts = polyline_step_counts(
        arm, start, waypoints, max_step, options.get("speed"), options.get("period")
    )
    segments = _plan_segments(arm, [start, *waypoints], max_step, current, options)
    return _joined(arm, paths, counts, segments, options.get("period"))


def _plan_segments(
    arm: PlanArm,
    poses: Sequence[Sequence[float]],
    max_step: float,
    current: Sequence[float] | None,
    options: dict[str, Any],
) -> list[LinePlan]:
    """`plan_line` of each segment in turn, each seeded by the one before (its last setpoint
    when there are setpoints), up to the first that fails."""
    plans: list[LinePlan] = []
    seed = current
    for segment in range(len(poses) - 1):
        plan = plan_line(arm, poses[segment], poses[segment + 1], max_step, seed, **options)
        plans.append(plan)
        if not plan.ok:
            break
        if plan.setpoints is not None:
            seed = tuple(plan.setpoints.joints[-1].tolist())
        elif len(plan.joints):
            seed = tuple(plan.joints[-1].tolist())
    return plans


def _joined(
    arm: PlanArm,
    paths: list[LinePath],
    counts: tuple[int, ...],
    plans: list[LinePlan],
    period: float | None,
) -> PolylinePlan:
    """One PolylinePlan of the segments' plans: times one after another, the failure's place
    along the whole path, the feasible share of its length."""
    last, segment = plans[-1], len(plans) - 1
    offsets = np.concatenate(([0.0], np.cumsum([p.duration for p in plans[:-1]])))
    total, many = int(sum(counts)), len(paths) > 1
    singular = any(plan.ik_status == IkStatus.SINGULAR for plan in plans)
    failed_step = failed_waypoint = None
    fraction, ik_status, message = 1.0, last.ik_status, last.message
    if last.ok:
        ik_status = IkStatus.SINGULAR if singular else IkStatus.OK
        if many:
            message = f"OK: all {total} steps of {len(paths)} segments feasible"
    else:
        assert last.failed_step is not None
        failed_step = sum(p.total_steps for p in plans[:-1]) + last.failed_step
        failed_waypoint = segment
        lengths = np.array([path.length for path in paths])
        weights = lengths if lengths.sum() > 0 else np.array(counts, dtype=float)
        done = weights[:segment].sum() + last.feasible_fraction * weights[segment]
        fraction = float(done / weights.sum())
        if many:
            message = (
                f"segment {segment + 1} of {len(paths)} (to waypoint {segment}), path step "
                f"{failed_step} of {total}: {last.message}"
            )
    setpoints = None
    if last.ok and period is not None and plans[0].setpoints is not None:
        rows = np.vstack([plan.setpoints.joints for plan in plans if plan.setpoints is not None])
        setpoints = Setpoints(joints=rows, period=period, forward=arm.tool_vector)
    n = arm.n_joints
    return PolylinePlan(
        points=np.concatenate([p.points for p in plans]).reshape(-1, plans[0].points.shape[1]),
        joints=np.concatenate([p.joints for p in plans]).reshape(-1, n),
        times=np.concatenate([p.times + o for p, o in zip(plans, offsets, strict=True)]),
        step_status=np.concatenate([p.step_status for p in plans]).astype(np.uint8),
        total_steps=total,
        failed_step=failed_step,
        failed_waypoint=failed_waypoint,
        status=last.status,
        ik_status=ik_status,
        feasible_fraction=fraction,
        failed_point=last.failed_point,
        message=message,
        segment_steps=counts,
        setpoints=setpoints,
        solve_calls=sum(p.solve_calls for p in plans),
    )
