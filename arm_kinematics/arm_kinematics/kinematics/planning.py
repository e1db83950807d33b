"""Straight-line moves: the line, IK at its points, timing, and setpoints ON the line.

Pure numpy, no ROS. Units: metres, radians, seconds; positions in the arm's base frame.

There is one line planner, `plan_line`, for every caller. It never solves IK itself: it hands
batches of targets to a `solve` callable (targets -> one answer per target, in order, each
seeded by the previous answer). The trajectory node passes one `solve_ik_batch` round trip to
the IK node, so a goal's IK has one home; the tour and the tests pass `chain_solver(arm)`, the
same `arm.solve_chain` the IK node runs.

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

The line is parameterised by progress u in [0, 1]: position start + u * (goal - start) and,
with a heading, heading start + u * (goal - start) taken the short way round.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .angles import wrap_angle
from .arm import PlanarArm
from .types import Branch, IkResult, IkStatus, PlanStatus

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
class IkAnswers:
    """The IK answers to a batch of M targets, as arrays.

    `status` (M,) the IkStatus value of each target (or a service's request-level status, such
    as WRONG_FRAME, for every target); `joints` (M, n) radians, NaN rows where the status is not
    OK or SINGULAR; `explain(i)` the message that says why target i was refused.

    >>> answers = IkAnswers.from_results([PlanarArm((1.0, 0.8)).solve(3.0, 0.0)])
    >>> answers.status.tolist(), answers.explain(0).split(":")[0]
    ([2], 'TOO_FAR')
    """

    status: np.ndarray
    joints: np.ndarray
    explain: Callable[[int], str]

    def __len__(self) -> int:
        return len(self.status)

    @classmethod
    def from_results(cls, results: Sequence[IkResult]) -> IkAnswers:
        """From the core's IkResult objects (as `PlanarArm.solve_chain` returns them)."""
        n = max((len(r.joints) for r in results if r.joints is not None), default=0)
        joints = np.array(
            [r.joints if r.joints is not None and r.ok else (math.nan,) * n for r in results],
            dtype=float,
        ).reshape(len(results), n)
        status = np.array([int(r.status) for r in results], dtype=np.int64)
        return cls(status, joints, lambda i: results[i].message)


SolvePoints = Callable[[np.ndarray, "tuple[float, ...] | None"], IkAnswers]
"""Solve targets (M, 2) x, y or (M, 3) x, y, heading, in order with Branch.CLOSEST, the first
seeded by the given joints (or none), each later one by the previous solution; one answer per
target, also after a failure (the next target is then seeded by the last solution)."""


def chain_solver(arm: PlanarArm) -> SolvePoints:
    """A SolvePoints that solves in this process with `arm.solve_chain` (what the IK node's
    `solve_ik_batch` runs).

    >>> arm = PlanarArm((1.0, 0.8))
    >>> chain_solver(arm)(np.array([[1.0, 0.5], [3.0, 0.0]]), None).status.tolist()
    [0, 2]
    """

    def solve(points: np.ndarray, seed: tuple[float, ...] | None) -> IkAnswers:
        headings = points[:, 2].tolist() if points.shape[1] == 3 else None
        results = arm.solve_chain(
            points[:, 0].tolist(), points[:, 1].tolist(), headings, Branch.CLOSEST, seed
        )
        return IkAnswers.from_results(results)

    return solve


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


@dataclass(frozen=True)
class Setpoints:
    """Joint setpoints streamed one per `period` (s).

    `joints` (K, n) radians. Setpoint k is commanded k periods after the first one. `tips`
    (K, 3) is the forward kinematics (x, y, heading) of each setpoint in the base frame,
    computed by `forward` on first use (so that the first setpoint need not wait for it).
    """

    joints: np.ndarray
    period: float
    forward: Callable[[Sequence[float]], tuple[float, float, float]]

    def __len__(self) -> int:
        return len(self.joints)

    @property
    def duration(self) -> float:
        """Seconds of motion: one period per setpoint."""
        return len(self.joints) * self.period

    @cached_property
    def tips(self) -> np.ndarray:
        if len(self.joints) == 0:
            return np.zeros((0, 3))
        return np.array([self.forward(row) for row in self.joints.tolist()], dtype=float)


class _TimedPath:
    """What a line plan and a polyline plan both answer (they have `status` and `times`)."""

    status: IkStatus | PlanStatus | int
    times: np.ndarray

    @property
    def ok(self) -> bool:
        """True when the whole path, goal included, is feasible."""
        return self.status == IkStatus.OK

    @property
    def duration(self) -> float:
        """Seconds from the start to the last feasible point (0 without any)."""
        return float(self.times[-1]) if len(self.times) else 0.0


@dataclass(frozen=True)
class LinePlan(_TimedPath):
    """A straight-line move: its feasible prefix and, when asked for, its setpoints.

    `points` (M, 2), or (M, 3) with the heading, are the targets after the start (the last is
    the goal when the whole line is feasible); `joints` (M, n) their IK solutions (radians,
    continuous joints unwrapped so the path has no 2 pi jumps); `times` (M,) seconds from the
    start at which each point is reached; `step_status` (M,) the IkStatus (OK or SINGULAR) of
    each point. `total_steps` counts every point after the start, `failed_step` is None or the
    index of the first failing point (0 = the first point after the start), `failed_point` the
    target that failed (a setpoint's, when a setpoint between plan points failed). `status` is
    IkStatus.OK, the failing step's status, or PlanStatus.JOINT_JUMP; `ik_status` is the IK
    status of the failing step (SINGULAR on success when any step is singular, else OK).
    `setpoints` are set when the plan was asked for them (a `period`) and the line is
    feasible; `solve_calls` counts the calls to `solve` the plan made.
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


def unwrap_path(arm: PlanarArm, start: Sequence[float], joints: np.ndarray) -> np.ndarray:
    """`joints` (M, n) with every continuous joint moved by k * 2 pi to lie next to the row
    before it (row 0 next to `start`), so the path has no 2 pi jumps. Rows from the first
    non-finite one on are left as they are. Limited joints are absolute and never change.

    >>> free = PlanarArm((1.0, 0.8))  # no limits: joints wrapped to (-pi, pi]
    >>> unwrap_path(free, (3.1, 0.5), np.array([[-3.1, 0.5]])).round(4).tolist()
    [[3.1832, 0.5]]
    """
    path = np.asarray(joints, dtype=float)
    continuous = any(lo == -math.inf and hi == math.inf for lo, hi in arm.joint_limits)
    steps = np.abs(np.diff(np.vstack((np.asarray(start, dtype=float)[None, :], path)), axis=0))
    if not continuous or np.all(steps <= math.pi):
        return path  # no step crosses +-pi the long way: nothing to unwrap
    rows = path.tolist()
    previous: Sequence[float] = tuple(float(v) for v in start)
    for index, row in enumerate(rows):
        if not all(math.isfinite(q) for q in row):
            break
        rows[index] = previous = arm.unwrap_near(row, previous)
    return np.array(rows, dtype=float).reshape(path.shape)


def first_joint_jump(
    arm: PlanarArm, start: Sequence[float], joints: np.ndarray, max_joint_step: float
) -> tuple[int | None, np.ndarray]:
    """Check a solved path for branch flips.

    Returns (index of the first row of `joints` (M, n) that moves some joint more than
    `max_joint_step` rad from the previous row, row 0 from `start`, or None; the joints
    unwrapped by `unwrap_path`). A non-finite row (a failed point) counts as a jump.

    >>> arm = PlanarArm((1.0, 0.8))
    >>> first_joint_jump(arm, (0.0, 0.5), np.array([[0.0, 0.55], [0.3, -0.6]]), 0.2)[0]
    1
    """
    path = unwrap_path(arm, start, joints)
    steps = np.abs(np.diff(np.vstack((np.asarray(start, dtype=float)[None, :], path)), axis=0))
    bad = ~np.all(steps <= max_joint_step, axis=1)  # NaN compares False: a jump
    index = int(np.argmax(bad)) if bad.any() else None
    return index, path


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
    setpoints on the line, one per period, within the velocity limits.

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
    p0, p1 = _pose(start, "start"), _pose(goal, "goal")
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


@dataclass(frozen=True)
class PolylinePlan(_TimedPath):
    """A tool path through waypoints: one straight `plan_line` segment after another.

    The fields mean what `LinePlan`'s do, over the whole path: `points`, `joints`, `times`
    (seconds from the start) and `step_status` of its feasible prefix, `total_steps` every point
    after the start on every segment, `failed_step` the index of the first failing point along
    the whole path (0 = the first after the start) and `failed_waypoint` the waypoint whose
    segment holds it (None when none failed). `feasible_fraction` is the feasible share of the
    path's length. `segment_steps` counts each segment's points; `setpoints` (with a `period`,
    the whole path feasible) are every segment's setpoints, one per period throughout.
    """

    points: np.ndarray
    joints: np.ndarray
    times: np.ndarray
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
    solve_calls: int = 0


def polyline_paths(start: Sequence[float], waypoints: Sequence[Sequence[float]]) -> list[LinePath]:
    """The straight segments start -> waypoint 0 -> waypoint 1 -> ... (poses as `plan_line`
    takes them; a segment turns the heading only when both its ends have one).

    >>> [p.length for p in polyline_paths((0.0, 1.0), [(0.0, 1.5), (1.0, 1.5)])]
    [0.5, 1.0]
    """
    poses = [_pose(start, "start")] + [_pose(w, f"waypoint {i}") for i, w in enumerate(waypoints)]
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
