"""Straight-line moves: the line, IK at its points, timing, and setpoints ON the line.

Pure numpy, no ROS. Units: metres, radians, seconds; positions in the arm's base frame.

There is one line planner, `plan_line`, for every caller (`polyline.py` runs it segment by
segment). It never solves IK itself: it hands batches of targets to a `solve` callable
(`ik_answers.py`: targets -> one answer per target, in order, each seeded by the previous
answer). The trajectory node passes one `solve_ik_batch` round trip to the IK node, so a
goal's IK has one home; the tour and the tests pass `chain_solver(arm)`, the same
`arm.solve_chain` the IK node runs. The line itself is `line.py`'s `LinePath`; the solved
joints become `joint_path.py`'s `Setpoints`.

A plan takes these steps:

1. points along the line at most `max_step` apart, the goal included (`LinePath`); with a
   speed and a command period, as many as make every setpoint of the tool at full speed one of
   them (`LinePath.timed_step_count`: the tool a little below `speed` so that the line takes a
   whole number of periods);
2. solve them (call 1, seeded by `current`); the first point without a solution, or the first
   whose joints jump more than `max_joint_step` from the previous one (a branch flip), ends the
   plan there: `failed_step`, `status`, `feasible_fraction`;
3. time them: each step takes max(distance / speed, max_j |dq_j| / limit_j), so the tool moves
   at `speed` unless a joint would exceed its velocity limit, then that joint sets the pace;
4. with a command `period`: setpoint positions on the line, one per period, by that timing;
5. solve the setpoints, seeded by `current`, so every setpoint is an IK solution of a point on
   the line; joints are never interpolated. The setpoints of the tool at `speed` throughout are
   known before any IK and are plan points, so call 1 solves each point once; where a joint
   sets the pace (step 3) they move, and those from the first slowed one on are solved in
   call 2;
6. check every setpoint step: no joint may move more than limit * period. The joints are not
   linear between two plan points, so a setpoint can come out slightly fast where a joint sets
   the pace; the plan steps around it are then slowed by the excess and the setpoints from there
   on solved again (a further call, at most `MAX_REFINEMENTS`). A line that still cannot keep
   its limits fails (JOINT_JUMP) rather than exceed them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..planar.arm import PlanarArm
from ..types import IkStatus, PlanStatus
from .ik_answers import IkAnswers, SolvePoints, chain_solver
from .joint_path import Setpoints, first_joint_jump, unwrap_path
from .line import LinePath, checked_pose

#: Setpoints are timed with this share of each joint velocity limit, a little headroom for the
#: joints not being linear between plan points; the plan's own `times` use the full limits.
SETPOINT_HEADROOM = 0.995
#: Progress (a share of the line) within which a setpoint is the plan point it falls on:
#: the setpoint timing puts it there to rounding (about 1e-16).
SAME_PROGRESS = 1e-12
#: Most further `solve` calls that slow a stretch where a setpoint still came out too fast.
MAX_REFINEMENTS = 8

_SOLVED = (int(IkStatus.OK), int(IkStatus.SINGULAR))


@dataclass(frozen=True)
class TimedPlan:
    """A planned tool path: its feasible prefix and, when asked for, its setpoints (what
    `LinePlan` and `PolylinePlan` both answer).

    `points` (M, 2), or (M, 3) with the heading, are the targets after the start (the last is
    the goal when the whole path is feasible); `joints` (M, n) their IK solutions (radians,
    continuous joints unwrapped so the path has no 2 pi jumps); `times` (M,) seconds from the
    start at which each point is reached; `step_status` (M,) the IkStatus (OK or SINGULAR) of
    each point. `total_steps` counts every point after the start, `failed_step` is None or the
    index of the first failing point (0 = the first point after the start), `failed_point` the
    target that failed (a setpoint's, when a setpoint between plan points failed). `status` is
    IkStatus.OK, the failing step's status, or PlanStatus.JOINT_JUMP; `ik_status` is the IK
    status of the failing step (SINGULAR on success when any step is singular, else OK);
    `feasible_fraction` the feasible share of the path. `setpoints` are set when the plan was
    asked for them (a `period`) and the path is feasible; `solve_calls` counts the calls to
    `solve` the plan made.
    """

    points: np.ndarray
    joints: np.ndarray
    times: np.ndarray
    step_status: np.ndarray
    total_steps: int
    failed_step: int | None
    status: IkStatus | PlanStatus | int
    ik_status: IkStatus | int
    feasible_fraction: float
    failed_point: tuple[float, ...] | None
    message: str
    setpoints: Setpoints | None = None
    solve_calls: int = 0

    @property
    def ok(self) -> bool:
        """True when the whole path, goal included, is feasible."""
        return self.status == IkStatus.OK

    @property
    def duration(self) -> float:
        """Seconds from the start to the last feasible point (0 without any)."""
        return float(self.times[-1]) if len(self.times) else 0.0


@dataclass(frozen=True)
class LinePlan(TimedPlan):
    """A straight-line move (`plan_line`), the fields as `TimedPlan`'s."""


def _positive(value: Any, name: str) -> float:
    number = float(value)
    if not (math.isfinite(number) and number > 0.0):
        raise ValueError(f"{name} {value!r} must be finite and > 0")
    return number


def _status(value: int) -> IkStatus | int:
    """The IkStatus of an answer's status value; the bare int for a value the core does not
    define (a request-level refusal of the IK service, such as WRONG_FRAME)."""
    try:
        return IkStatus(int(value))
    except ValueError:
        return int(value)


def _point_text(point: Sequence[float]) -> str:
    text = f"({point[0]:.4f}, {point[1]:.4f})"
    if len(point) > 2:
        text += f" heading {math.degrees(point[2]):.2f} deg"
    return text


def _step_durations(
    distances: np.ndarray,
    deltas: np.ndarray,
    speed: float | None,
    limits: np.ndarray | None,
) -> np.ndarray:
    """Seconds per step: max(distance / speed, max_j |delta_j| / limit_j); without `speed`
    the joints alone set the pace; with neither, the tool moves at 1 m/s."""
    if speed is None and limits is None:
        return distances.copy()
    durations = distances / speed if speed is not None else np.zeros(len(distances))
    if limits is not None and len(deltas):
        durations = np.maximum(durations, (np.abs(deltas) / limits).max(axis=1))
    return durations


def _setpoint_progress(durations: np.ndarray, u_grid: np.ndarray, period: float) -> np.ndarray:
    """Progress u at each setpoint, one per `period` along the timed plan, the last u = 1."""
    times = np.concatenate(([0.0], np.cumsum(durations)))
    count = max(1, math.ceil(times[-1] / period - 1e-9))
    u = np.interp(np.arange(1, count + 1, dtype=float) * period, times, u_grid)
    u[-1] = 1.0
    return u


def _segment(u: float, total: int) -> int:
    """Index of the plan step whose segment holds progress u (step i ends at plan point i)."""
    return max(0, min(total - 1, math.ceil(u * total - 1e-9) - 1))


def _answered(answers: IkAnswers, count: int) -> int:
    """How many leading answers solved their target (checks there are `count` answers)."""
    if len(answers) != count or answers.joints.shape[0] != count:
        raise ValueError(f"solve answered {len(answers)} of {count} targets")
    failed = np.flatnonzero(~np.isin(answers.status, _SOLVED))
    return int(failed[0]) if len(failed) else count


def plan_line(
    arm: PlanarArm,
    start: Sequence[float],
    goal: Sequence[float],
    max_step: float,
    current: Sequence[float] | None = None,
    *,
    solve: SolvePoints | None = None,
    speed: float | None = None,
    joint_velocity_limits: Sequence[float] | None = None,
    max_joint_step: float | None = None,
    period: float | None = None,
) -> LinePlan:
    """Plan a straight tool line from `start` to `goal` with IK at every point (the steps in
    the module docstring).

    `start`/`goal` are (x, y) or (x, y, heading) in metres and radians (the heading is planned
    only when both have one); `current` the joints at `start` (radians), which seed the first
    point; `solve` answers batches of targets (default `chain_solver(arm)`); `speed` m/s and
    `joint_velocity_limits` rad/s time the steps; `max_joint_step` (rad) is the largest joint
    move between two points that is not a branch flip; `period` (s, needs `current`) asks for
    setpoints on the line, one per period, within the velocity limits. With both a speed and a
    period the points are placed so that every setpoint of the tool at full speed is one of
    them, the tool up to one period's share below `speed` (`LinePath.timed_step_count`).

    >>> arm = PlanarArm((1.0, 0.8))
    >>> home = (0.0, math.pi / 2)
    >>> x, y, _ = arm.forward(home)
    >>> plan = plan_line(arm, (x, y), (x - 0.1, y), 0.01, home, speed=0.05, period=0.02)
    >>> plan.status.name, len(plan.setpoints), round(plan.duration, 6)
    ('OK', 100, 2.0)
    >>> plan.total_steps  # a point at each setpoint (1 mm apart), not only every 10 mm
    100
    >>> [round(v, 9) for v in arm.forward(plan.setpoints.joints[49])[:2]]  # on the line
    [0.95, 0.8]

    Raises:
        ValueError: malformed start, goal, max_step, current, speed, limits or period.
    """
    n = arm.n_joints
    p0, p1 = checked_pose(start, "start"), checked_pose(goal, "goal")
    step = _positive(max_step, "max_step")
    seed: tuple[float, ...] | None = None
    if current is not None:
        seed = tuple(float(v) for v in current)
        if len(seed) != n or not all(math.isfinite(v) for v in seed):
            raise ValueError(f"current {current!r} must be {n} finite joint angles (rad)")
    if speed is not None:
        speed = _positive(speed, "speed")
    limits: np.ndarray | None = None
    if joint_velocity_limits is not None:
        limits = np.array([_positive(v, "joint velocity limit") for v in joint_velocity_limits])
        if len(limits) != n:
            raise ValueError(f"joint_velocity_limits {joint_velocity_limits!r} needs {n} values")
    if max_joint_step is not None:
        max_joint_step = _positive(max_joint_step, "max_joint_step")
    if period is not None:
        period = _positive(period, "period")
        if seed is None:
            raise ValueError("period: setpoints need the current joints")
    solve = solve or chain_solver(arm)

    headings = (p0[2], p1[2]) if len(p0) == 3 and len(p1) == 3 else (None, None)
    path = LinePath((p0[0], p0[1]), (p1[0], p1[1]), *headings)
    heading_radius = arm.link_lengths[-1] if path.use_heading else 0.0
    if period is not None and speed is not None:
        total, speed = path.timed_step_count(step, heading_radius, speed, period)
    else:
        total = path.step_count(step, heading_radius)
    points = path.points(total)

    # 2. IK of every point; the first failure or branch flip ends the feasible prefix. With a
    # speed and a period, the setpoints where no joint sets the pace (the tool at `speed`
    # throughout) ride along in the same call, in order along the line: on a line that no
    # joint slows, the plan and its setpoints take one call.
    u_grid = np.arange(total + 1, dtype=float) / total  # the start, then every plan point
    nominal_u = np.zeros(0)
    if period is not None and speed is not None:
        xy_all = np.vstack(((p0[0], p0[1]), points[:, :2]))
        nominal_u = _setpoint_progress(np.hypot(*np.diff(xy_all, axis=0).T) / speed, u_grid, period)
    progress = np.concatenate((u_grid[1:], nominal_u))
    order = np.argsort(progress, kind="stable")
    # A setpoint on a plan point (each full-speed one, by `timed_step_count`) is that point:
    # sent once, as the plan point (first in a stable sort).
    first = np.concatenate(([True], np.diff(progress[order]) > SAME_PROGRESS))
    targets = np.concatenate((points, path.sample(nominal_u)))[order[first]]
    answers = solve(targets, seed)
    _answered(answers, len(targets))
    position = np.empty_like(order)
    position[order] = np.cumsum(first) - 1  # the target that answers each plan point / setpoint
    plan_status = answers.status[position[:total]]
    feasible = _answered(IkAnswers(plan_status, answers.joints[position[:total]], str), total)
    joints = answers.joints[position[:feasible]]
    failed_step: int | None = None
    status: IkStatus | PlanStatus | int = IkStatus.OK
    ik_status: IkStatus | int = IkStatus.OK
    message = ""
    if feasible < total:
        failed_step = feasible
        status = ik_status = _status(plan_status[feasible])
        message = (
            f"step {feasible} of {total} at {_point_text(points[feasible])} fails: "
            f"{answers.explain(int(position[feasible]))}"
        )
    if seed is not None:
        if max_joint_step is not None:
            jump, joints = first_joint_jump(arm, seed, joints, max_joint_step)
        else:
            jump, joints = None, unwrap_path(arm, seed, joints)
        if jump is not None:
            previous = np.asarray(seed if jump == 0 else joints[jump - 1])
            delta = joints[jump] - previous
            worst = int(np.argmax(np.abs(delta)))
            failed_step, feasible = jump, jump
            status, ik_status = PlanStatus.JOINT_JUMP, _status(plan_status[jump])
            message = (
                f"step {jump} of {total} at {_point_text(points[jump])} fails: JOINT_JUMP: "
                f"{arm.joint_names[worst]} would move {math.degrees(delta[worst]):.2f} deg in "
                f"one step (max {math.degrees(max_joint_step):.2f} deg): a branch flip"
            )
            joints = joints[:jump]
    statuses = plan_status[:feasible].astype(np.uint8)

    # 3. Timing of the feasible prefix.
    feasible_points = points[:feasible]
    xy = np.vstack(((p0[0], p0[1]), feasible_points[:, :2]))
    distances = np.hypot(*np.diff(xy, axis=0).T)
    if seed is not None:
        deltas = np.diff(np.vstack((seed, joints)), axis=0)
    else:  # nothing to measure the first step's joint motion from
        deltas = np.vstack((np.zeros((min(1, feasible), n)), np.diff(joints, axis=0)))
    times = np.cumsum(_step_durations(distances, deltas, speed, limits))

    def finish(setpoints: Setpoints | None = None, calls: int = 1) -> LinePlan:
        nonlocal message, ik_status
        if failed_step is None:
            singular = int(np.count_nonzero(statuses == int(IkStatus.SINGULAR)))
            ik_status = IkStatus.SINGULAR if singular else IkStatus.OK
            message = f"OK: all {total} steps feasible" + (
                f", {singular} near a singularity" if singular else ""
            )
        return LinePlan(
            points=feasible_points,
            joints=joints,
            times=times,
            step_status=statuses,
            total_steps=total,
            failed_step=failed_step,
            status=status,
            ik_status=ik_status,
            feasible_fraction=feasible / total,
            failed_point=failed_point,
            message=message,
            setpoints=setpoints,
            solve_calls=calls,
        )

    failed_point = None if failed_step is None else tuple(points[failed_step].tolist())
    if failed_step is not None or period is None:
        return finish()
    assert seed is not None
    nominal_at = position[total:]
    nominal_status = answers.status[nominal_at]
    valid = _answered(IkAnswers(nominal_status, answers.joints[nominal_at], str), len(nominal_at))
    nominal = answers.joints[nominal_at[:valid]]
    outcome, calls = _solve_setpoints(
        arm, path, seed, joints, deltas, distances, solve,
        speed=speed, limits=limits, max_joint_step=max_joint_step, period=period,
        solved_u=nominal_u[:valid], solved=unwrap_path(arm, seed, nominal),
    )  # fmt: skip
    if isinstance(outcome, Setpoints):
        return finish(outcome, calls=1 + calls)
    failed_step = feasible = outcome.step
    status, ik_status, failed_point, message = (
        outcome.status,
        outcome.ik_status,
        outcome.point,
        outcome.message,
    )
    feasible_points, joints, times = points[:feasible], joints[:feasible], times[:feasible]
    statuses = statuses[:feasible]
    return finish(calls=1 + calls)


@dataclass(frozen=True)
class _SetpointFailure:
    """A setpoint between plan points that failed: the plan step whose segment holds it."""

    step: int
    status: IkStatus | PlanStatus | int
    ik_status: IkStatus | int
    point: tuple[float, ...]
    message: str


def _solve_setpoints(
    arm: PlanarArm,
    path: LinePath,
    start: tuple[float, ...],
    plan_joints: np.ndarray,
    plan_deltas: np.ndarray,
    distances: np.ndarray,
    solve: SolvePoints,
    *,
    speed: float | None,
    limits: np.ndarray | None,
    max_joint_step: float | None,
    period: float,
    solved_u: np.ndarray,
    solved: np.ndarray,
) -> tuple[Setpoints | _SetpointFailure, int]:
    """Steps 4-6 of the module docstring: (the setpoints or the failure, further calls to
    `solve`). `solved` (K, n) are setpoints already solved at progress `solved_u` (K,)."""
    total, n = plan_joints.shape
    u_grid = np.arange(total + 1, dtype=float) / total  # the start, then every plan point
    grid = np.vstack((start, plan_joints))
    headroom = None if limits is None else limits * SETPOINT_HEADROOM
    durations = _step_durations(distances, plan_deltas, speed, headroom)
    calls = 0
    for _ in range(1 + MAX_REFINEMENTS):
        u = _setpoint_progress(durations, u_grid, period)
        # Setpoints before the first slowed stretch are where they were: keep their solutions.
        same = min(len(u), len(solved_u))
        differs = np.flatnonzero(u[:same] != solved_u[:same])
        keep = int(differs[0]) if len(differs) else same
        seed = start if keep == 0 else tuple(solved[keep - 1].tolist())
        targets = path.sample(u[keep:])
        answers = IkAnswers(np.zeros(0, dtype=np.int64), np.zeros((0, n)), str)
        if len(targets):
            answers = solve(targets, seed)
            calls += 1
        count = _answered(answers, len(targets))
        if count < len(targets):
            point = tuple(targets[count].tolist())
            step = _segment(float(u[keep + count]), total)
            status = _status(int(answers.status[count]))
            return _SetpointFailure(
                step,
                status,
                status,
                point,
                f"step {step} of {total}: the setpoint at {_point_text(point)} on the line "
                f"before planned point {step} fails: {answers.explain(count)}",
            ), calls
        fresh = answers.joints
        joints = np.vstack((solved[:keep], unwrap_path(arm, seed, fresh)))
        if max_joint_step is not None:
            # Far from the plan's joints there means another branch: the plan's points are
            # within max_joint_step of each other, so the true path stays close to them.
            expected = np.column_stack([np.interp(u, u_grid, grid[:, j]) for j in range(n)])
            off = np.abs(joints - expected).max(axis=1)
            flipped = np.flatnonzero(~(off <= max_joint_step))
            if len(flipped):
                k = int(flipped[0])
                why = (
                    "the IK solution at {point} on the line before planned point {step} is "
                    f"{math.degrees(off[k]):.3g} deg away from the plan (a branch flip)"
                )
                return _joint_jump(path, float(u[k]), total, why), calls
        if limits is None:
            return Setpoints(joints=joints, period=period, forward=arm.forward), calls
        moves = np.abs(np.diff(np.vstack((start, joints)), axis=0))
        ratio = (moves / (limits * period)).max(axis=1)
        too_fast = np.flatnonzero(ratio > 1.0)
        if len(too_fast) == 0:
            return Setpoints(joints=joints, period=period, forward=arm.forward), calls
        # Slow every plan step that a too-fast setpoint interval overlaps by its excess.
        factor = np.ones(total)
        for k in too_fast.tolist():
            lo = float(u[k - 1]) if k > 0 else 0.0
            first = int(np.searchsorted(u_grid, lo, side="right")) - 1
            last = int(np.searchsorted(u_grid, float(u[k]), side="left"))
            factor[first:last] = np.maximum(factor[first:last], ratio[k] / SETPOINT_HEADROOM)
        durations = durations * factor
        solved_u, solved = u, joints
    why = (
        "the joints cannot follow the line within their velocity limits at {point} before "
        "planned point {step}"
    )
    return _joint_jump(path, float(u[int(too_fast[0])]), total, why), calls


def _joint_jump(path: LinePath, u: float, total: int, why: str) -> _SetpointFailure:
    """A JOINT_JUMP of the setpoint at progress u; `why` names {point} and {step}."""
    step = _segment(u, total)
    point = tuple(path.sample(np.array([u]))[0].tolist())
    text = why.format(point=_point_text(point), step=step)
    return _SetpointFailure(
        step, PlanStatus.JOINT_JUMP, IkStatus.OK, point, f"step {step} of {total}: {text}"
    )
