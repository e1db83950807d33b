"""Tool paths through waypoints: one straight `plan_line` segment after another.

Pure numpy. Metres, radians, seconds; poses in the base frame.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..planar.arm import PlanarArm
from ..types import IkStatus
from .joint_path import Setpoints
from .line import LinePath, checked_pose
from .line_plan import LinePlan, TimedPlan, plan_line


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


def polyline_paths(start: Sequence[float], waypoints: Sequence[Sequence[float]]) -> list[LinePath]:
    """The straight segments start -> waypoint 0 -> waypoint 1 -> ... (poses as `plan_line`
    takes them; a segment turns the heading only when both its ends have one).

    >>> [p.length for p in polyline_paths((0.0, 1.0), [(0.0, 1.5), (1.0, 1.5)])]
    [0.5, 1.0]
    """
    poses = [checked_pose(start, "start")]
    poses += [checked_pose(w, f"waypoint {i}") for i, w in enumerate(waypoints)]
    paths = []
    for p0, p1 in itertools.pairwise(poses):
        headings = (p0[2], p1[2]) if len(p0) == 3 and len(p1) == 3 else (None, None)
        paths.append(LinePath((p0[0], p0[1]), (p1[0], p1[1]), *headings))
    return paths


def polyline_step_counts(
    arm: PlanarArm,
    start: Sequence[float],
    waypoints: Sequence[Sequence[float]],
    max_step: float,
    speed: float | None = None,
    period: float | None = None,
) -> tuple[int, ...]:
    """Points each segment of the polyline gets from `plan_line` with the same `max_step`,
    `speed` and `period` (before any IK: to bound the work of a request, or to draw a plan).

    >>> arm = PlanarArm((1.0, 0.8))
    >>> polyline_step_counts(arm, (1.0, 0.8), [(0.9, 0.8)], 0.001, speed=0.02, period=0.02)
    (250,)
    """
    counts = []
    for path in polyline_paths(start, waypoints):
        radius = arm.link_lengths[-1] if path.use_heading else 0.0
        if speed is not None and period is not None:
            counts.append(path.timed_step_count(max_step, radius, speed, period)[0])
        else:
            counts.append(path.step_count(max_step, radius))
    return tuple(counts)


def plan_polyline(
    arm: PlanarArm,
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
    paths = polyline_paths(start, waypoints)
    counts = polyline_step_counts(
        arm, start, waypoints, max_step, options.get("speed"), options.get("period")
    )
    lengths = np.array([path.length for path in paths])
    weights = lengths if lengths.sum() > 0 else np.array(counts, dtype=float)
    n = arm.n_joints
    points, joints, times, statuses, setpoints = [], [], [], [], []
    seed = current
    offset, calls, done = 0.0, 0, 0
    singular = False
    plan: LinePlan | None = None
    poses = [start, *waypoints]
    segment = 0
    for segment in range(len(paths)):
        plan = plan_line(arm, poses[segment], poses[segment + 1], max_step, seed, **options)
        calls += plan.solve_calls
        points.append(plan.points)
        joints.append(plan.joints)
        times.append(plan.times + offset)
        statuses.append(plan.step_status)
        singular = singular or plan.ik_status == IkStatus.SINGULAR
        if not plan.ok:
            break
        done += plan.total_steps
        offset += plan.duration
        if plan.setpoints is not None:
            setpoints.append(plan.setpoints.joints)
            seed = tuple(plan.setpoints.joints[-1].tolist())
        elif len(plan.joints):
            seed = tuple(plan.joints[-1].tolist())
    assert plan is not None
    total = int(sum(counts))
    many = len(paths) > 1
    if plan.ok:
        failed_step = failed_waypoint = None
        fraction = 1.0
        ik_status: IkStatus | int = IkStatus.SINGULAR if singular else IkStatus.OK
        message = plan.message
        if many:
            message = f"OK: all {total} steps of {len(paths)} segments feasible"
    else:
        assert plan.failed_step is not None
        failed_step, failed_waypoint = done + plan.failed_step, segment
        fraction = float(
            (weights[:segment].sum() + plan.feasible_fraction * weights[segment]) / weights.sum()
        )
        ik_status = plan.ik_status
        message = plan.message
        if many:
            message = (
                f"segment {segment + 1} of {len(paths)} (to waypoint {segment}), path step "
                f"{failed_step} of {total}: {plan.message}"
            )
    period = options.get("period")
    all_setpoints = None
    if plan.ok and period is not None and setpoints:
        all_setpoints = Setpoints(joints=np.vstack(setpoints), period=period, forward=arm.forward)
    return PolylinePlan(
        points=np.concatenate(points) if points else np.zeros((0, 2)),
        joints=np.concatenate(joints).reshape(-1, n) if joints else np.zeros((0, n)),
        times=np.concatenate(times),
        step_status=np.concatenate(statuses).astype(np.uint8),
        total_steps=total,
        failed_step=failed_step,
        failed_waypoint=failed_waypoint,
        status=plan.status,
        ik_status=ik_status,
        feasible_fraction=fraction,
        failed_point=plan.failed_point,
        message=message,
        segment_steps=counts,
        setpoints=all_setpoints,
        solve_calls=calls,
    )
