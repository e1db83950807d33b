"""Straight-line moves: the line, IK at its points, timing, and setpoints ON the line.

Pure numpy, no ROS. Units: metres, radians, seconds; tool poses in the arm's base frame (a
planar arm's (x, y[, heading]), a spatial arm's (x, y, z[, pitch[, roll]])).

There is one line planner, `plan_line`, for every caller (`polyline.py` runs it segment by
segment) and every arm (planar or spatial: it reads only what both have, see `PlanArm`). It
never solves IK itself: it hands batches of targets to a `solve` callable (`ik_answers.py`:
targets -> one answer per target, in order, each seeded by the previous answer). The trajectory
node passes one `solve_ik_batch` round trip to the IK node, so a goal's IK has one home; the
tour and the tests pass `chain_solver(arm)`, the same `solve_chain` the IK node runs. The line
itself is `line.py`'s `LinePath`; the solved joints become `joint_path.py`'s `Setpoints`.

`plan_line` is a pipeline of stages, one function each:

1. `place_points`: points along the line at most `max_step` apart, the goal included; with a
   speed and a command period, as many as make every setpoint of the tool at full speed one of
   them (`LinePath.timed_step_count`: the tool a little below `speed` so that the line takes a
   whole number of periods);
2. `solve_points`: IK of the points (call 1, seeded by `current`), with the full-speed setpoints,
   which are plan points, answered once;
3. `feasible_prefix`: the first point without a solution, or the first whose joints jump more
   than `max_joint_step` from the previous one (a branch flip), ends the plan there;
4. `time_steps`: each step takes max(distance / speed, max_j |dq_j| / limit_j), so the tool
   moves at `speed` unless a joint would exceed its velocity limit, then that joint sets the
   pace;
5. `setpoint_progress` (with a command `period`): setpoint positions on the line, one per
   period, by that timing; `solve_setpoints` solves the ones not solved in call 1 (those from the
   first stretch a joint slows), seeded by `current`, so every setpoint is an IK solution of a
   point on the line; joints are never interpolated;
6. `slowdown`: no joint may move more than limit * period between setpoints. The joints are not
   linear between two plan points, so a setpoint can come out slightly fast where a joint sets
   the pace; the plan steps around it are then slowed by the excess and the setpoints from there
   on solved again (a further call, at most `MAX_REFINEMENTS`). A line that still cannot keep
   its limits fails (JOINT_JUMP) rather than exceed them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

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


class PlanArm(Protocol):
    """What the planner reads of an arm (`PlanarArm` and `SpatialArm` both have it)."""

    n_joints: int
    joint_names: tuple[str, ...]
    joint_limits: tuple[tuple[float, float], ...]
    position_dims: int  # 2 (planar) or 3 (spatial): the coordinates of a tool pose
    angle_radii: tuple[float, ...]  # m per rad of each tool angle's turn (how far it swings)

    def tool_vector(self, joints: Sequence[float]) -> tuple[float, ...]: ...

    def unwrap_near(self, joints: Sequence[float], reference: Sequence[float]) -> tuple: ...


@dataclass(frozen=True)
class TimedPlan:
    """A planned tool path: its feasible prefix and, when asked for, its setpoints (what
    `LinePlan` and `PolylinePlan` both answer).

    `points` (M, D) are the tool poses after the start (the last is the goal when the whole
    path is feasible); `joints` (M, n) their IK solutions (radians, continuous joints unwrapped
    so the path has no 2 pi jumps); `times` (M,) seconds from the start at which each point is
    reached; `step_status` (M,) the IkStatus (OK or SINGULAR) of each point. `total_steps`
    counts every point after the start, `failed_step` is None or the index of the first failing
    point (0 = the first point after the start), `failed_point` the target that failed (a
    setpoint's, when a setpoint between plan points failed). `status` is IkStatus.OK, the
    failing step's status, or PlanStatus.JOINT_JUMP; `ik_status` is the IK status of the failing
    step (SINGULAR on success when any step is singular, else OK); `feasible_fraction` the
    feasible share of the path. `setpoints` are set when the plan was asked for them (a
    `period`) and the path is feasible; `solve_calls` counts the calls to `solve` the plan made.
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


@dataclass(frozen=True)
class LineRequest:
    """A checked `plan_line` request: the path, the step (m), the seed joints (rad), the tool
    speed (m/s), the joint velocity limits (rad/s), the branch-flip step (rad), the command
    period (s), and the `solve` callable."""

    arm: PlanArm
    path: LinePath
    max_step: float
    seed: tuple[float, ...] | None
    speed: float | None
    limits: np.ndarray | None
    max_joint_step: float | None
    period: float | None
    solve: SolvePoints


@dataclass(frozen=True)
class PlacedPoints:
    """Stage 1: `total` points after the start (`points`, (total, D)), the tool `speed` they
    are timed for (m/s; a hair below the request's with a period), the start and every point
    as progress (`u_grid`, total + 1), and the full-speed setpoints' progress (`nominal_u`)."""

    total: int
    points: np.ndarray
    speed: float | None
    u_grid: np.ndarray
    nominal_u: np.ndarray


@dataclass(frozen=True)
class Failure:
    """Where and why a plan stops: the failing plan step, statuses, the target, the text."""

    step: int
    status: IkStatus | PlanStatus | int
    ik_status: IkStatus | int
    point: tuple[float, ...]
    message: str


@dataclass(frozen=True)
class Prefix:
    """Stages 2-3: the feasible points' joints (unwrapped) and statuses, and the failure that
    ended the plan before the goal (None: all feasible)."""

    joints: np.ndarray
    statuses: np.ndarray
    failure: Failure | None

    @property
    def feasible(self) -> int:
        return len(self.joints)


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


def pose_text(point: Sequence[float], position_dims: int = 2) -> str:
    """A tool pose as text: the position (m) and its angles (deg).

    >>> pose_text((0.12, 0.05, 0.5)), pose_text((0.1, 0.0, 0.2, -1.5708), 3)
    ('(0.1200, 0.0500) heading 28.65 deg', '(0.1000, 0.0000, 0.2000) pitch -90.00 deg')
    """
    text = "(" + ", ".join(f"{v:.4f}" for v in point[:position_dims]) + ")"
    names = ("heading",) if position_dims == 2 else ("pitch", "roll")
    for name, angle in zip(names, point[position_dims:], strict=False):
        text += f" {name} {math.degrees(angle):.2f} deg"
    return text


def check_request(
    arm: PlanArm,
    start: Sequence[float],
    goal: Sequence[float],
    max_step: float,
    current: Sequence[float] | None,
    solve: SolvePoints | None,
    speed: float | None,
    joint_velocity_limits: Sequence[float] | None,
    max_joint_step: float | None,
    period: float | None,
) -> LineRequest:
    """`plan_line`'s arguments checked into a LineRequest; ValueError naming a bad one.

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> check_request(PlanarArm((1.0, 0.8)), (1, 0), (1, 1), 0.1, None, None, 0.05, None,
    ...               None, None).path.length
    1.0
    """
    n, d = arm.n_joints, arm.position_dims
    path = LinePath.between(checked_pose(start, "start", d), checked_pose(goal, "goal", d), d)
    seed = None
    if current is not None:
        seed = tuple(float(v) for v in current)
        if len(seed) != n or not all(math.isfinite(v) for v in seed):
            raise ValueError(f"current {current!r} must be {n} finite joint angles (rad)")
    limits = None
    if joint_velocity_limits is not None:
        limits = np.array([_positive(v, "joint velocity limit") for v in joint_velocity_limits])
        if len(limits) != n:
            raise ValueError(f"joint_velocity_limits {joint_velocity_limits!r} needs {n} values")
    if period is not None and seed is None:
        raise ValueError("period: setpoints need the current joints")
    return LineRequest(
        arm=arm,
        path=path,
        max_step=_positive(max_step, "max_step"),
        seed=seed,
        speed=None if speed is None else _positive(speed, "speed"),
        limits=limits,
        max_joint_step=None
        if max_joint_step is None
        else _positive(max_joint_step, "max_joint_step"),
        period=None if period is None else _positive(period, "period"),
        solve=solve or chain_solver(arm),
    )


def _step_durations(
    distances: np.ndarray,
    deltas: np.ndarray,
    speed: float | None,
    limits: np.ndarray | None,
) -> np.ndarray:
    """Seconds per step: max(distance / speed, max_j |delta_j| / limit_j); without `speed`
    the joints alone set the pace; with neither, the tool moves at 1 m/s.

    >>> _step_durations(np.array([0.01, 0.01]), np.array([[0.1], [0.4]]), 0.05,
    ...                 np.array([1.0])).round(9).tolist()  # the tool sets the pace, then a joint
    [0.2, 0.4]
    """
    if speed is None and limits is None:
        return distances.copy()
    durations = distances / speed if speed is not None else np.zeros(len(distances))
    if limits is not None and len(deltas):
        durations = np.maximum(durations, (np.abs(deltas) / limits).max(axis=1))
    return durations


def setpoint_progress(durations: np.ndarray, u_grid: np.ndarray, period: float) -> np.ndarray:
    """Progress u at each setpoint, one per `period` along the timed plan, the last u = 1.

    >>> setpoint_progress(np.array([0.02, 0.02, 0.02]), np.linspace(0, 1, 4), 0.03).round(9)
    array([0.5, 1. ])
    """
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


def _distances(request: LineRequest, points: np.ndarray) -> np.ndarray:
    """Tool travel (m) of each step from the start through `points` (positions only)."""
    d = request.arm.position_dims
    positions = np.vstack((np.asarray(request.path.start)[None, :], points[:, :d]))
    return np.linalg.norm(np.diff(positions, axis=0), axis=1)


# --- the stages ---------------------------------------------------------------------------------


def place_points(request: LineRequest) -> PlacedPoints:
    """Stage 1: where the plan points (and, with a speed and a period, the full-speed
    setpoints) go.

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> req = check_request(arm, (1, 0.8), (0.9, 0.8), 0.01, (0, 1.5708), None, 0.05, None,
    ...                     None, 0.02)
    >>> placed = place_points(req)
    >>> placed.total, len(placed.nominal_u), round(placed.speed, 6)  # a point per setpoint
    (100, 100, 0.05)
    """
    path, arm = request.path, request.arm
    speed, period = request.speed, request.period
    if period is not None and speed is not None:
        total, speed = path.timed_step_count(request.max_step, arm.angle_radii, speed, period)
    else:
        total = path.step_count(request.max_step, arm.angle_radii)
    points = path.points(total)
    u_grid = np.arange(total + 1, dtype=float) / total  # the start, then every plan point
    nominal_u = np.zeros(0)
    if period is not None and speed is not None:
        durations = _distances(request, points) / speed
        nominal_u = setpoint_progress(durations, u_grid, period)
    return PlacedPoints(total, points, speed, u_grid, nominal_u)


def solve_points(request: LineRequest, placed: PlacedPoints) -> tuple[IkAnswers, np.ndarray]:
    """Stage 2: one `solve` call for the plan points and the full-speed setpoints, in order
    along the line, a setpoint on a plan point (each full-speed one, by `timed_step_count`)
    sent once, as the plan point. Returns (the answers, for each plan point and then each
    setpoint the index of its answer).

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> req = check_request(arm, (1, 0.8), (0.9, 0.8), 0.01, (0, 1.5708), None, 0.05, None,
    ...                     None, 0.02)
    >>> answers, at = solve_points(req, place_points(req))
    >>> len(answers), len(at)  # 100 points and 100 setpoints, each solved once
    (100, 200)
    """
    total = placed.total
    progress = np.concatenate((placed.u_grid[1:], placed.nominal_u))
    order = np.argsort(progress, kind="stable")
    first = np.concatenate(([True], np.diff(progress[order]) > SAME_PROGRESS))
    everything = np.concatenate((placed.points, request.path.sample(placed.nominal_u)))
    targets = everything[order[first]]
    answers = request.solve(targets, request.seed)
    _answered(answers, len(targets))
    position = np.empty_like(order)
    position[order] = np.cumsum(first) - 1  # the target that answers each point / setpoint
    assert len(position) >= total
    return answers, position


def feasible_prefix(
    request: LineRequest, placed: PlacedPoints, answers: IkAnswers, position: np.ndarray
) -> Prefix:
    """Stage 3: the points solved in order up to the first failure or branch flip (a joint
    moving more than `max_joint_step` in one step), unwrapped (no 2 pi jumps).

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> req = check_request(arm, (1.2, 0.0), (3.0, 0.0), 0.5, None, None, None, None, None,
    ...                     None)
    >>> placed = place_points(req)
    >>> prefix = feasible_prefix(req, placed, *solve_points(req, placed))
    >>> prefix.feasible, prefix.failure.status.name, prefix.failure.message[:33]
    (1, 'TOO_FAR', 'step 1 of 4 at (2.1000, 0.0000) f')
    """
    arm, total, d = request.arm, placed.total, request.arm.position_dims
    plan_status = answers.status[position[:total]]
    feasible = _answered(IkAnswers(plan_status, answers.joints[position[:total]], str), total)
    joints = answers.joints[position[:feasible]]
    failure = None
    if feasible < total:
        point = placed.points[feasible]
        status = _status(plan_status[feasible])
        text = f"step {feasible} of {total} at {pose_text(point, d)} fails: "
        explained = answers.explain(int(position[feasible]))
        failure = Failure(feasible, status, status, tuple(point.tolist()), text + explained)
    seed, limit = request.seed, request.max_joint_step
    if seed is not None:
        if limit is not None:
            jump, joints = first_joint_jump(arm, seed, joints, limit)
        else:
            jump, joints = None, unwrap_path(arm, seed, joints)
        if jump is not None:
            previous = np.asarray(seed if jump == 0 else joints[jump - 1])
            delta = joints[jump] - previous
            worst = int(np.argmax(np.abs(delta)))
            point = placed.points[jump]
            failure = Failure(
                jump,
                PlanStatus.JOINT_JUMP,
                _status(plan_status[jump]),
                tuple(point.tolist()),
                f"step {jump} of {total} at {pose_text(point, d)} fails: JOINT_JUMP: "
                f"{arm.joint_names[worst]} would move {math.degrees(delta[worst]):.2f} deg in "
                f"one step (max {math.degrees(limit):.2f} deg): a branch flip",
            )
            joints = joints[:jump]
    statuses = plan_status[: len(joints)].astype(np.uint8)
    return Prefix(joints, statuses, failure)


def step_deltas(request: LineRequest, joints: np.ndarray) -> np.ndarray:
    """Each step's joint motion (rad) from the seed (or zero for the first step, without one).

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> req = check_request(PlanarArm((1.0, 0.8)), (1, 0), (1, 1), 0.5, (0.0, 0.0), None,
    ...                     None, None, None, None)
    >>> step_deltas(req, np.array([[0.1, 0.2], [0.3, 0.2]])).round(9).tolist()
    [[0.1, 0.2], [0.2, 0.0]]
    """
    if request.seed is not None:
        return np.diff(np.vstack((request.seed, joints)), axis=0)
    first = np.zeros((min(1, len(joints)), request.arm.n_joints))
    return np.vstack((first, np.diff(joints, axis=0)))


def time_steps(
    request: LineRequest, placed: PlacedPoints, prefix: Prefix
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 4: (the seconds at which each feasible point is reached, each step's distance
    (m) and joint motion (rad)) with the tool at `placed.speed` unless a joint sets the pace.

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> req = check_request(arm, (1, 0.8), (0.9, 0.8), 0.01, (0, 1.5708), None, 0.05, None,
    ...                     None, None)
    >>> placed = place_points(req)
    >>> times, _, _ = time_steps(req, placed, feasible_prefix(req, placed, *solve_points(req, placed)))
    >>> round(float(times[-1]), 9)  # 0.1 m at 0.05 m/s
    2.0
    """  # noqa: E501
    distances = _distances(request, placed.points[: prefix.feasible])
    deltas = step_deltas(request, prefix.joints)
    times = np.cumsum(_step_durations(distances, deltas, placed.speed, request.limits))
    return times, distances, deltas


def _nominal_setpoints(
    request: LineRequest, placed: PlacedPoints, answers: IkAnswers, position: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The full-speed setpoints call 1 solved: (their progress, their joints unwrapped), up to
    the first that failed (the later ones are solved again where the timing puts them)."""
    at = position[placed.total :]
    valid = _answered(IkAnswers(answers.status[at], answers.joints[at], str), len(at))
    assert request.seed is not None
    return placed.nominal_u[:valid], unwrap_path(
        request.arm, request.seed, answers.joints[at[:valid]]
    )


def _joint_jump(path: LinePath, u: float, total: int, why: str, position_dims: int) -> Failure:
    """A JOINT_JUMP of the setpoint at progress u; `why` names {point} and {step}."""
    step = _segment(u, total)
    point = tuple(path.sample(np.array([u]))[0].tolist())
    text = why.format(point=pose_text(point, position_dims), step=step)
    return Failure(
        step, PlanStatus.JOINT_JUMP, IkStatus.OK, point, f"step {step} of {total}: {text}"
    )


def _solve_run(
    request: LineRequest, total: int, u: np.ndarray, keep: int, solved: np.ndarray
) -> tuple[np.ndarray | Failure, bool]:
    """The setpoints at progress `u`, those before `keep` being `solved[:keep]` already: the
    joints of them all (unwrapped), or the Failure of the first that fails; and whether
    `solve` was called."""
    assert request.seed is not None
    seed = request.seed if keep == 0 else tuple(solved[keep - 1].tolist())
    targets = request.path.sample(u[keep:])
    if not len(targets):
        return solved[:keep], False
    answers = request.solve(targets, seed)
    count = _answered(answers, len(targets))
    if count < len(targets):
        point = tuple(targets[count].tolist())
        step = _segment(float(u[keep + count]), total)
        status = _status(int(answers.status[count]))
        text = (
            f"step {step} of {total}: the setpoint at {pose_text(point, request.arm.position_dims)}"
            f" on the line before planned point {step} fails: {answers.explain(count)}"
        )
        return Failure(step, status, status, point, text), True
    return np.vstack((solved[:keep], unwrap_path(request.arm, seed, answers.joints))), True


def _branch_flip(
    request: LineRequest, placed: PlacedPoints, grid: np.ndarray, u: np.ndarray, joints: np.ndarray
) -> Failure | None:
    """A setpoint far from the plan's joints (more than max_joint_step) is on another branch:
    the plan's points are within max_joint_step of each other, so the true path stays near."""
    if request.max_joint_step is None:
        return None
    columns = [np.interp(u, placed.u_grid, grid[:, j]) for j in range(grid.shape[1])]
    off = np.abs(joints - np.column_stack(columns)).max(axis=1)
    flipped = np.flatnonzero(~(off <= request.max_joint_step))
    if not len(flipped):
        return None
    k = int(flipped[0])
    why = (
        "the IK solution at {point} on the line before planned point {step} is "
        f"{math.degrees(off[k]):.3g} deg away from the plan (a branch flip)"
    )
    return _joint_jump(request.path, float(u[k]), placed.total, why, request.arm.position_dims)


def slowdown(
    request: LineRequest, placed: PlacedPoints, u: np.ndarray, joints: np.ndarray
) -> tuple[np.ndarray, int] | None:
    """Stage 6: (a factor per plan step that slows every step a too-fast setpoint interval
    overlaps by its excess, the first too-fast setpoint), or None when every setpoint keeps
    the joint velocity limits.

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> req = check_request(PlanarArm((1.0, 0.8)), (1, 0), (1, 1), 0.5, (0.0, 0.0), None,
    ...                     None, (1.0, 1.0), None, 0.1)
    >>> placed = PlacedPoints(2, np.zeros((2, 2)), None, np.array([0, 0.5, 1]), np.zeros(0))
    >>> factor, first = slowdown(req, placed, np.array([0.5, 1.0]), np.array([[0.05, 0], [0.2, 0]]))
    >>> factor.round(3).tolist(), first
    ([1.0, 1.508], 1)
    """
    assert request.limits is not None
    assert request.period is not None
    assert request.seed is not None
    moves = np.abs(np.diff(np.vstack((request.seed, joints)), axis=0))
    ratio = (moves / (request.limits * request.period)).max(axis=1)
    too_fast = np.flatnonzero(ratio > 1.0)
    if len(too_fast) == 0:
        return None
    u_grid, factor = placed.u_grid, np.ones(placed.total)
    for k in too_fast.tolist():
        lo = float(u[k - 1]) if k > 0 else 0.0
        first = int(np.searchsorted(u_grid, lo, side="right")) - 1
        last = int(np.searchsorted(u_grid, float(u[k]), side="left"))
        factor[first:last] = np.maximum(factor[first:last], ratio[k] / SETPOINT_HEADROOM)
    return factor, int(too_fast[0])


def solve_setpoints(
    request: LineRequest,
    placed: PlacedPoints,
    prefix: Prefix,
    steps: tuple[np.ndarray, np.ndarray],
    solved_u: np.ndarray,
    solved: np.ndarray,
) -> tuple[Setpoints | Failure, int]:
    """Stages 5-6: the setpoints on the line within the velocity limits, or the Failure that
    stops the plan; and the further `solve` calls made. `steps` are the plan steps' distances
    (m) and joint motions (rad); `solved` (K, n) the setpoints call 1 solved at `solved_u`."""
    assert request.seed is not None
    assert request.period is not None
    distances, deltas = steps
    grid = np.vstack((request.seed, prefix.joints))
    headroom = None if request.limits is None else request.limits * SETPOINT_HEADROOM
    durations = _step_durations(distances, deltas, placed.speed, headroom)
    calls, worst = 0, 0
    for _ in range(1 + MAX_REFINEMENTS):
        u = setpoint_progress(durations, placed.u_grid, request.period)
        # Setpoints before the first slowed stretch are where they were: keep their solutions.
        same = min(len(u), len(solved_u))
        differs = np.flatnonzero(u[:same] != solved_u[:same])
        keep = int(differs[0]) if len(differs) else same
        joints, called = _solve_run(request, placed.total, u, keep, solved)
        calls += int(called)
        if isinstance(joints, Failure):
            return joints, calls
        flip = _branch_flip(request, placed, grid, u, joints)
        if flip is not None:
            return flip, calls
        slowed = None if request.limits is None else slowdown(request, placed, u, joints)
        if slowed is None:
            tool = request.arm.tool_vector
            return Setpoints(joints=joints, period=request.period, forward=tool), calls
        factor, worst = slowed
        durations = durations * factor
        solved_u, solved = u, joints
    why = (
        "the joints cannot follow the line within their velocity limits at {point} before "
        "planned point {step}"
    )
    return _joint_jump(
        request.path, float(u[worst]), placed.total, why, request.arm.position_dims
    ), calls


def _assemble(
    placed: PlacedPoints,
    prefix: Prefix,
    times: np.ndarray,
    setpoints: Setpoints | None,
    calls: int,
) -> LinePlan:
    """The LinePlan of the stages' results."""
    total, failure, feasible = placed.total, prefix.failure, prefix.feasible
    if failure is None:
        singular = int(np.count_nonzero(prefix.statuses == int(IkStatus.SINGULAR)))
        status: IkStatus | PlanStatus | int = IkStatus.OK
        ik_status: IkStatus | int = IkStatus.SINGULAR if singular else IkStatus.OK
        message = f"OK: all {total} steps feasible" + (
            f", {singular} near a singularity" if singular else ""
        )
        failed_step, failed_point = None, None
    else:
        status, ik_status, message = failure.status, failure.ik_status, failure.message
        failed_step, failed_point = failure.step, failure.point
    return LinePlan(
        points=placed.points[:feasible],
        joints=prefix.joints,
        times=times,
        step_status=prefix.statuses,
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


def plan_line(
    arm: PlanArm,
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
    """Plan a straight tool line from `start` to `goal` with IK at every point (the stages in
    the module docstring).

    `start`/`goal` are tool poses (a planar arm's (x, y) or (x, y, heading); a spatial arm's
    (x, y, z), (x, y, z, pitch) or (x, y, z, pitch, roll)) in metres and radians (an angle is
    planned only when both have it); `current` the joints at `start` (radians), which seed the
    first point; `solve` answers batches of targets (default `chain_solver(arm)`); `speed` m/s
    and `joint_velocity_limits` rad/s time the steps; `max_joint_step` (rad) is the largest
    joint move between two points that is not a branch flip; `period` (s, needs `current`) asks
    for setpoints on the line, one per period, within the velocity limits. With both a speed
    and a period the points are placed so that every setpoint of the tool at full speed is one
    of them, the tool up to one period's share below `speed` (`LinePath.timed_step_count`).

    >>> from arm_kinematics.kinematics import PlanarArm
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
    request = check_request(
        arm, start, goal, max_step, current, solve, speed, joint_velocity_limits,
        max_joint_step, period,
    )  # fmt: skip
    placed = place_points(request)
    answers, position = solve_points(request, placed)
    prefix = feasible_prefix(request, placed, answers, position)
    times, distances, deltas = time_steps(request, placed, prefix)
    if prefix.failure is not None or request.period is None:
        return _assemble(placed, prefix, times, None, 1)
    solved_u, solved = _nominal_setpoints(request, placed, answers, position)
    outcome, calls = solve_setpoints(request, placed, prefix, (distances, deltas), solved_u, solved)
    if isinstance(outcome, Setpoints):
        return _assemble(placed, prefix, times, outcome, 1 + calls)
    cut = outcome.step
    prefix = Prefix(prefix.joints[:cut], prefix.statuses[:cut], outcome)
    return _assemble(placed, prefix, times[:cut], None, 1 + calls)
