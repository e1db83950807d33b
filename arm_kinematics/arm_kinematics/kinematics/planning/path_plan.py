"""The one tool-path planner, for a straight line (`plan_line`) or a polyline through waypoints
(`plan_polyline`), for planar and spatial arms: a pipeline of stages.

Pure numpy (and toppra), no ROS. Metres, radians, seconds; tool poses in the arm's base frame
(a planar arm's (x, y[, heading]), a spatial arm's (x, y, z[, pitch[, roll]])). It never solves
IK itself: it hands batches of targets to `options.solve` (`ik_answers.py`); the trajectory
node passes one `solve_ik_batch` round trip to the IK node, the tour and the tests
`chain_solver(arm)`.

1. `place_path` (no IK): each segment's points at most `max_step` apart, the goal included;
   with `limits` (a tool speed and acceleration) also the tool profile (`path_timing`) and a
   point at each of its setpoints, so that where no joint limits the tool their IK is the
   plan's. This is the one place a path's point counts come from.
2. `line_points.solve_segment` per segment (one `solve` call each, seeded by the segment
   before): the feasible prefix, up to the first point without IK or whose joints jump more
   than `max_joint_step` (a branch flip).
3. The timing (`timing_stage.time_path`): the tool profile's setpoints, if they keep every
   limit (checked as finite differences with the rest before and after, `stream_limits`); else
   the joint profile (toppra on the solved joints), its setpoints solved ON the path
   (`path_setpoints`, a further `solve` call per segment) and checked. A path that cannot keep
   its limits fails (JOINT_JUMP) rather than exceed them. Joints are never interpolated.
4. The workspace envelope (`path_envelope`), with an arm that carries one: its every IK point
   is inside already (the solve refuses one outside: OUTSIDE_WORKSPACE at its step); the stream
   from the start through every setpoint (without limits, every planned point) is checked
   between them too. A place outside fails the plan there (OUTSIDE_WORKSPACE).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..types import IkStatus, PlanStatus
from .ik_answers import chain_solver
from .joint_path import Setpoints
from .line import LinePath, checked_pose
from .line_points import (
    Failure,
    PlanArm,
    SegmentPoints,
    SolvedSegment,
    even_points,
    points_through,
    solve_segment,
    travel,
)
from .options import PlanOptions
from .path_envelope import points_failure, stream_failure
from .path_timing import PathLayout, tool_profile
from .point_rates import point_rates
from .profile import SpeedProfile
from .timing_stage import ToolSetpoints, prefix_profile, time_path


@dataclass(frozen=True, kw_only=True)
class PathPlan:
    """A planned tool path: its feasible prefix and, when it was asked for limits and is
    feasible, its setpoints.

    `points` (M, D) the tool poses after the start (the last the goal when the whole path is
    feasible); `joints` (M, n) their IK solutions (radians, unwrapped: no 2 pi jumps); `times`
    (M,) the seconds at which the motion passes each (None without limits); `step_status` (M,)
    the IkStatus of each (OK or SINGULAR). `total_steps` counts every point after the start
    on every segment (`segment_steps` per segment), `failed_step` is None or the index of the
    first failing point along the whole path (0 = the first after the start), `failed_waypoint`
    the waypoint whose segment holds it, `failed_point` the target that failed (a setpoint's,
    when a setpoint between points failed). `status` is IkStatus.OK, the failing step's
    status, or PlanStatus.JOINT_JUMP; `ik_status` the IK status of the failing step (SINGULAR
    on success when any step is, else OK); `feasible_fraction` the feasible share of the path's
    length. `setpoints` one per command period (with limits, on success); `profile` the speed
    along the path, and `velocities`, `accelerations` (M, n) the joints' as the motion passes
    each point (rad/s, rad/s^2; `point_rates`); `solve_calls` how many calls to `solve` the
    plan made.
    """

    points: np.ndarray
    joints: np.ndarray
    times: np.ndarray | None
    step_status: np.ndarray
    total_steps: int
    failed_step: int | None
    failed_waypoint: int | None
    status: IkStatus | PlanStatus | int
    ik_status: IkStatus | int
    feasible_fraction: float
    failed_point: tuple[float, ...] | None
    message: str
    segment_steps: tuple[int, ...]
    setpoints: Setpoints | None = None
    profile: SpeedProfile | None = None
    velocities: np.ndarray | None = None
    accelerations: np.ndarray | None = None
    solve_calls: int = 0

    @property
    def ok(self) -> bool:
        """True when the whole path, goal included, is feasible."""
        return self.status == IkStatus.OK

    @property
    def duration(self) -> float:
        """Seconds from the start to the last feasible point (0 without times)."""
        return float(self.times[-1]) if self.times is not None and len(self.times) else 0.0


@dataclass(frozen=True)
class PathPlacement:
    """Stage 1 (no IK): the `layout` of the segments, each segment's `segments` points, and
    with limits the tool `profile` and `setpoint_rows` (the segment and point index of each of
    its setpoints; None without a tool profile)."""

    layout: PathLayout
    segments: tuple[SegmentPoints, ...]
    profile: SpeedProfile | None
    setpoint_rows: tuple[np.ndarray, np.ndarray] | None

    @property
    def step_counts(self) -> tuple[int, ...]:
        return tuple(points.total for points in self.segments)

    @property
    def total(self) -> int:
        return sum(self.step_counts)

    def points(self) -> np.ndarray:
        """Every planned point of the path (M, D), without IK (e.g. to draw a failed plan)."""
        return np.concatenate([points.points for points in self.segments])

    def tool_setpoints(self) -> ToolSetpoints | None:
        """The tool profile and where its setpoints are among the points (None: none)."""
        if self.profile is None or self.setpoint_rows is None:
            return None
        return ToolSetpoints(self.profile, *self.setpoint_rows)


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


def place_path(
    arm: PlanArm,
    start: Sequence[float],
    waypoints: Sequence[Sequence[float]],
    options: PlanOptions,
) -> PathPlacement:
    """Stage 1 of the module docstring.

    >>> from arm_kinematics.kinematics import MotionLimits, PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> limits = MotionLimits(0.02, (2.0, 2.0), (8.0, 8.0), tool_speed=0.05,
    ...                       tool_acceleration=0.3)
    >>> placed = place_path(arm, (1.0, 0.8), [(0.9, 0.8)], PlanOptions(0.001, limits))
    >>> placed.total, len(placed.setpoint_rows[1])  # a point at each of the 109 setpoints
    (109, 109)
    >>> place_path(arm, (1.0, 0.8), [(0.9, 0.8)], PlanOptions(0.001)).total  # 1 mm apart
    100
    """
    if not waypoints:
        raise ValueError("a path needs at least one waypoint")
    paths = polyline_paths(start, waypoints, arm.position_dims)
    radii = arm.angle_radii
    layout = PathLayout(tuple(paths), np.array([travel(p, radii) for p in paths]))
    limits = options.limits
    profile = None if limits is None else tool_profile(layout, limits)
    if profile is None or limits is None:
        segments = tuple(even_points(path, options.max_step, radii) for path in paths)
        return PathPlacement(layout, segments, None, None)
    segment, u = layout.locate(profile.sample(limits.period))
    placed, index = [], np.zeros(len(u), dtype=int)
    for j, path in enumerate(paths):
        rows = np.flatnonzero(segment == j)
        points, at = points_through(path, u[rows], options.max_step, radii)
        placed.append(points)
        index[rows] = at
    return PathPlacement(layout, tuple(placed), profile, (segment, index))


def plan_polyline(
    arm: PlanArm,
    start: Sequence[float],
    waypoints: Sequence[Sequence[float]],
    current: Sequence[float] | None,
    options: PlanOptions,
) -> PathPlan:
    """Plan the tool path `start` -> every waypoint in turn, each segment straight (the
    stages of the module docstring). `start` and the waypoints are tool poses (an angle is
    planned on a segment only when both its ends have it), `current` the joints at `start`
    (rad), which seed the first point (needed with limits).

    >>> import math
    >>> from arm_kinematics.kinematics import MotionLimits, PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> home = (0.0, math.pi / 2)
    >>> x, y, _ = arm.forward(home)
    >>> plan = plan_polyline(arm, (x, y), [(x - 0.1, y), (x - 0.1, y - 0.1)], home,
    ...                      PlanOptions(0.01))
    >>> plan.status.name, plan.segment_steps, plan.total_steps
    ('OK', (10, 10), 20)
    >>> [round(v, 9) for v in arm.forward(plan.joints[14])[:2]]  # on the second segment
    [0.9, 0.75]
    >>> hole = plan_polyline(arm, (x, y), [(x - 0.1, y), (0.1, 0.1), (x, y)], home,
    ...                      PlanOptions(0.01))
    >>> hole.status.name, hole.segment_steps, hole.failed_waypoint, hole.failed_step
    ('TOO_CLOSE', (10, 107, 115), 1, 111)
    >>> round(hole.feasible_fraction, 4)  # (0.1 m + 101/107 of 1.063 m) of 2.303 m
    0.4791

    Raises:
        ValueError: a malformed pose, `current`, or limits without `current`.
    """
    return plan_placed(arm, place_path(arm, start, waypoints, options), current, options)


def plan_line(
    arm: PlanArm,
    start: Sequence[float],
    goal: Sequence[float],
    current: Sequence[float] | None,
    options: PlanOptions,
) -> PathPlan:
    """Plan a straight tool line from `start` to `goal`: `plan_polyline` with one waypoint.

    >>> import math
    >>> from arm_kinematics.kinematics import MotionLimits, PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> home = (0.0, math.pi / 2)
    >>> x, y, _ = arm.forward(home)
    >>> limits = MotionLimits(0.02, (2.0, 2.0), (8.0, 8.0), tool_speed=0.05,
    ...                       tool_acceleration=0.3)
    >>> plan = plan_line(arm, (x, y), (x - 0.1, y), home, PlanOptions(0.01, limits))
    >>> plan.status.name, len(plan.setpoints), plan.solve_calls  # 2.17 s, 1 call to `solve`
    ('OK', 109, 1)
    >>> tips = plan.setpoints.tips
    >>> bool(abs(tips[:, 1] - y).max() < 1e-12)  # every setpoint on the line
    True
    >>> (1000 * (x - tips[:3, 0])).round(2).tolist()  # from rest at 0.3 m/s^2: mm from the start
    [0.06, 0.24, 0.54]
    """
    return plan_polyline(arm, start, [goal], current, options)


def _checked_seed(arm: PlanArm, current: Sequence[float] | None) -> tuple[float, ...] | None:
    if current is None:
        return None
    seed = tuple(float(v) for v in current)
    if len(seed) != arm.n_joints or not all(np.isfinite(seed)):
        raise ValueError(f"current {current!r} must be {arm.n_joints} finite joint angles (rad)")
    return seed


def plan_placed(
    arm: PlanArm,
    placement: PathPlacement,
    current: Sequence[float] | None,
    options: PlanOptions,
) -> PathPlan:
    """Stages 2 and 3 of a placed path (`place_path`) from the joints `current`."""
    seed = _checked_seed(arm, current)
    limits = options.limits
    if limits is not None:
        if seed is None:
            raise ValueError("limits: setpoints need the current joints")
        if limits.n_joints != arm.n_joints:
            raise ValueError(f"the limits are for {limits.n_joints} joints, not {arm.n_joints}")
    solve = options.solve or chain_solver(arm)  # type: ignore[arg-type]
    solved: list[SolvedSegment] = []
    for points in placement.segments:
        segment = solve_segment(arm, points, seed, solve, options.max_joint_step)
        solved.append(segment)
        seed = segment.end_joints
        if segment.failure is not None:
            break
    calls = len(solved)
    start = _checked_seed(arm, current)
    layout = placement.layout
    if limits is None or solved[-1].failure is not None:
        outside = None
        if solved[-1].failure is None and start is not None:
            outside = points_failure(arm, layout, solved, start)
        if outside is not None:
            solved = _cut(solved, *outside)
        profile = None if limits is None else prefix_profile(layout, solved, limits)
        return _assemble(arm, placement, solved, profile, None, None, calls)
    timed = time_path(arm, layout, placement.tool_setpoints(), solved, options)
    calls += timed.calls
    outcome = timed.outcome
    if not isinstance(outcome, Failure):
        assert start is not None
        outside = stream_failure(arm, layout, solved, outcome[1], start)
        outcome = outcome if outside is None else outside[1]
        timed = timed if outside is None else replace(timed, segment=outside[0])
    if isinstance(outcome, Failure):
        cut = _cut(solved, timed.segment, outcome)
        profile = prefix_profile(layout, cut, limits)
        return _assemble(arm, placement, cut, profile, None, outcome, calls)
    profile, setpoints = outcome
    return _assemble(arm, placement, solved, profile, setpoints, None, calls)


def _cut(solved: Sequence[SolvedSegment], segment: int, failure: Failure) -> list[SolvedSegment]:
    """The solved segments up to `segment`, that one cut before the failing step."""
    kept = list(solved[:segment])
    last = solved[segment]
    step = failure.step
    kept.append(SolvedSegment(last.points, last.seed, last.joints[:step],
                              last.statuses[:step], failure))  # fmt: skip
    return kept


def _assemble(
    arm: PlanArm,
    placement: PathPlacement,
    solved: Sequence[SolvedSegment],
    profile: SpeedProfile | None,
    setpoints: Setpoints | None,
    failure: Failure | None,
    calls: int,
) -> PathPlan:
    """The PathPlan of the stages' results: steps counted along the whole path, the failure's
    place, the feasible share of its length, the points' times."""
    failure = failure or solved[-1].failure
    counts = placement.step_counts
    total, many = placement.total, len(counts) > 1
    segment = len(solved) - 1
    statuses = np.concatenate([s.statuses for s in solved]).astype(np.uint8)
    n, d = arm.n_joints, solved[0].points.points.shape[1] if solved else 0
    points = np.concatenate([s.points.points[: s.feasible] for s in solved]).reshape(-1, d)
    joints = np.concatenate([s.joints for s in solved]).reshape(-1, n)
    times = velocities = accelerations = None
    if profile is not None:
        offsets = placement.layout.offsets
        positions = np.concatenate(
            [offsets[j] + s.points.positions[1 : s.feasible + 1] for j, s in enumerate(solved)]
        )
        times = profile.time_at(positions)
        velocities, accelerations = point_rates(solved, offsets, profile)
    failed_step = failed_waypoint = failed_point = None
    fraction, status, ik_status = 1.0, IkStatus.OK, IkStatus.OK
    if failure is None:
        singular = int(np.count_nonzero(statuses == int(IkStatus.SINGULAR)))
        ik_status = IkStatus.SINGULAR if singular else IkStatus.OK
        message = (
            f"OK: all {total} steps of {len(counts)} segments feasible"
            if many
            else f"OK: all {total} steps feasible"
        ) + (f", {singular} near a singularity" if singular else "")
    else:
        status, ik_status, failed_point = failure.status, failure.ik_status, failure.point
        failed_step = sum(counts[:segment]) + failure.step
        failed_waypoint = segment
        travels = placement.layout.travels
        weights = travels if travels.sum() > 0 else np.array(counts, dtype=float)
        done = solved[segment].points.u[: failure.step]  # progress of its feasible points
        share = float(done[-1]) if len(done) else 0.0
        fraction = float((weights[:segment].sum() + share * weights[segment]) / weights.sum())
        message = failure.message
        if many:
            message = (
                f"segment {segment + 1} of {len(counts)} (to waypoint {segment}), path step "
                f"{failed_step} of {total}: {message}"
            )
    return PathPlan(
        points=points,
        joints=joints,
        times=times,
        step_status=statuses,
        total_steps=total,
        failed_step=failed_step,
        failed_waypoint=failed_waypoint,
        status=status,
        ik_status=ik_status,
        feasible_fraction=fraction,
        failed_point=failed_point,
        message=message,
        segment_steps=counts,
        setpoints=setpoints,
        profile=profile,
        velocities=velocities,
        accelerations=accelerations,
        solve_calls=calls,
    )
