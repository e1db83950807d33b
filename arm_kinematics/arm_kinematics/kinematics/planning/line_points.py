"""One straight segment of a tool path: where its planned points go, their IK, and how far
the segment is feasible.

Pure numpy. Metres, radians; tool poses in the base frame (a planar arm's (x, y[, heading]), a
spatial arm's (x, y, z[, pitch[, roll]])). A planner never solves IK itself: it hands the
points to a `solve` callable (`ik_answers.py`), in order along the line, the first seeded by the
joints at the segment's start and each later one by the answer before it.

A point's place is its progress u in (0, 1] along the segment (`LinePath`); the segment's path
position is u times its `travel` (m): its length, or for a turn of the tool on the spot the
distance its wrist swings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..envelope import Envelope
from ..types import IkStatus, PlanStatus
from .ik_answers import IkAnswers, SolvePoints
from .joint_path import first_joint_jump, unwrap_path
from .line import LinePath

SOLVED = (int(IkStatus.OK), int(IkStatus.SINGULAR))
#: Progress (a share of the segment) below which two points are one.
SAME_PROGRESS = 1e-12


class PlanArm(Protocol):
    """What the planner reads of an arm (`PlanarArm` and `SpatialArm` both have it)."""

    n_joints: int
    joint_names: tuple[str, ...]
    joint_limits: tuple[tuple[float, float], ...]
    position_dims: int  # 2 (planar) or 3 (spatial): the coordinates of a tool pose
    angle_radii: tuple[float, ...]  # m per rad of each tool angle's turn (how far it swings)
    envelope: Envelope | None  # the workspace envelope its solves and motions keep inside

    def tool_vector(self, joints: Sequence[float]) -> tuple[float, ...]: ...

    def unwrap_near(self, joints: Sequence[float], reference: Sequence[float]) -> tuple: ...


@dataclass(frozen=True)
class Failure:
    """Where and why a plan stops: the failing plan step (0 = the first point after the
    segment's start), statuses, the target, the text."""

    step: int
    status: IkStatus | PlanStatus | int
    ik_status: IkStatus | int
    point: tuple[float, ...]
    message: str


def status_of(value: int) -> IkStatus | int:
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


def answered(answers: IkAnswers, count: int) -> int:
    """How many leading answers solved their target (checks there are `count` answers)."""
    if len(answers) != count or answers.joints.shape[0] != count:
        raise ValueError(f"solve answered {len(answers)} of {count} targets")
    failed = np.flatnonzero(~np.isin(answers.status, SOLVED))
    return int(failed[0]) if len(failed) else count


def joints_of(answers: IkAnswers, n_joints: int) -> np.ndarray:
    """The answers' joints as (M, n_joints), NaN rows where none (also when no target had a
    solution, and the answers carry no joint columns at all)."""
    joints = np.asarray(answers.joints, dtype=float)
    if joints.ndim == 2 and joints.shape[1] == n_joints:
        return joints
    return np.full((len(answers), n_joints), np.nan)


def travel(path: LinePath, angle_radii: Sequence[float]) -> float:
    """The segment's path length (m): its length, or for a turn on the spot the farthest
    swing of the tool's angles (`angle_radii[i]` m per rad), or 0 without motion.

    >>> travel(LinePath((0.0, 0.0), (0.0, 0.0), (0.0,), (0.5,)), (0.1,))
    0.05
    """
    if path.length > 0.0:
        return path.length
    swings = [abs(t) * r for t, r in zip(path.angle_changes, angle_radii, strict=False)]
    return max(swings, default=0.0)


@dataclass(frozen=True)
class SegmentPoints:
    """A segment's planned points: `u` (M,) their progress, increasing, the last 1 (the
    segment's end), and `travel` (m) the segment's path length."""

    path: LinePath
    u: np.ndarray
    travel: float

    @property
    def total(self) -> int:
        return len(self.u)

    @property
    def points(self) -> np.ndarray:
        """(M, D) the tool poses of the points."""
        return self.path.sample(self.u)

    @property
    def positions(self) -> np.ndarray:
        """(M + 1,) the path position (m) of the start and of every point."""
        return np.concatenate(([0.0], self.u)) * self.travel


def even_points(path: LinePath, max_step: float, angle_radii: Sequence[float]) -> SegmentPoints:
    """`LinePath.step_count` points evenly along the segment.

    >>> even_points(LinePath((0.0, 0.0), (0.3, 0.4)), 0.1, ()).u.tolist()
    [0.2, 0.4, 0.6, 0.8, 1.0]
    """
    count = path.step_count(max_step, angle_radii)
    return SegmentPoints(path, np.arange(1, count + 1, dtype=float) / count,
                         travel(path, angle_radii))  # fmt: skip


def points_through(
    path: LinePath, marks: np.ndarray, max_step: float, angle_radii: Sequence[float]
) -> tuple[SegmentPoints, np.ndarray]:
    """Points at the progress values `marks` (increasing, in (0, 1]: where setpoints fall)
    and the end, with as many evenly between two of them as keep every step within
    `max_step` (`LinePath.step_travel`'s measure); and the index of each mark among them.

    >>> points, at = points_through(LinePath((0.0, 0.0), (1.0, 0.0)), np.array([0.25, 0.5]),
    ...                             0.2, ())
    >>> points.u.round(4).tolist(), at.tolist()
    ([0.125, 0.25, 0.375, 0.5, 0.6667, 0.8333, 1.0], [1, 3])
    """
    measure = path.step_travel(angle_radii)
    most = max_step / measure if measure > 0.0 else 1.0  # the largest step, in progress
    ends = np.unique(np.concatenate((marks, [1.0])))
    ends = ends[np.append(np.diff(ends) > SAME_PROGRESS, True)]  # one point where two touch
    gaps = np.diff(np.concatenate(([0.0], ends)))
    counts = np.maximum(1, np.ceil(gaps / most - 1e-9).astype(int))
    gap = np.repeat(np.arange(len(ends)), counts)  # the gap of each point
    at = np.cumsum(counts) - 1  # each end's index
    step = np.arange(len(gap)) - (at - counts + 1)[gap] + 1  # 1 .. count within its gap
    u = (ends[gap] - gaps[gap]) + gaps[gap] * step / counts[gap]
    u[at] = ends  # the ends exactly
    index = at[np.searchsorted(ends, marks - SAME_PROGRESS)]
    return SegmentPoints(path, u, travel(path, angle_radii)), index


@dataclass(frozen=True)
class SolvedSegment:
    """A segment's points with their IK up to the first failure: `seed` the joints at its
    start, `joints` (F, n) the feasible points' (unwrapped: no 2 pi jumps), `statuses` (F,)
    theirs (OK or SINGULAR), `failure` what stopped it (None: all F = M feasible)."""

    points: SegmentPoints
    seed: tuple[float, ...] | None
    joints: np.ndarray
    statuses: np.ndarray
    failure: Failure | None

    @property
    def feasible(self) -> int:
        return len(self.joints)

    @property
    def end_joints(self) -> tuple[float, ...] | None:
        """The joints at the last feasible point (the seed without any)."""
        return tuple(self.joints[-1].tolist()) if len(self.joints) else self.seed


def solve_segment(
    arm: PlanArm,
    points: SegmentPoints,
    seed: tuple[float, ...] | None,
    solve: SolvePoints,
    max_joint_step: float | None,
) -> SolvedSegment:
    """The segment's points solved in one `solve` call, up to the first that has no solution
    or whose joints jump more than `max_joint_step` rad from the point before (a branch flip).

    >>> from arm_kinematics.kinematics import PlanarArm, chain_solver
    >>> arm = PlanarArm((1.0, 0.8))
    >>> points = even_points(LinePath((1.2, 0.0), (3.0, 0.0)), 0.5, ())
    >>> solved = solve_segment(arm, points, None, chain_solver(arm), None)
    >>> solved.feasible, solved.failure.status.name, solved.failure.message[:33]
    (1, 'TOO_FAR', 'step 1 of 4 at (2.1000, 0.0000) f')
    """
    total, d = points.total, arm.position_dims
    targets = points.points
    answers = solve(targets, seed)
    feasible = answered(answers, total)
    joints = joints_of(answers, arm.n_joints)[:feasible]
    failure = None
    if feasible < total:
        status = status_of(answers.status[feasible])
        text = f"step {feasible} of {total} at {pose_text(targets[feasible], d)} fails: "
        failure = Failure(feasible, status, status, tuple(targets[feasible].tolist()),
                          text + answers.explain(feasible))  # fmt: skip
    if seed is not None:
        if max_joint_step is not None:
            jump, joints = first_joint_jump(arm, seed, joints, max_joint_step)
        else:
            jump, joints = None, unwrap_path(arm, seed, joints)
        if jump is not None:
            assert max_joint_step is not None
            previous = np.asarray(seed if jump == 0 else joints[jump - 1])
            delta = joints[jump] - previous
            worst = int(np.argmax(np.abs(delta)))
            failure = Failure(
                jump,
                PlanStatus.JOINT_JUMP,
                status_of(answers.status[jump]),
                tuple(targets[jump].tolist()),
                f"step {jump} of {total} at {pose_text(targets[jump], d)} fails: JOINT_JUMP: "
                f"{arm.joint_names[worst]} would move {math.degrees(delta[worst]):.2f} deg in "
                f"one step (max {math.degrees(max_joint_step):.2f} deg): a branch flip",
            )
            joints = joints[:jump]
    statuses = answers.status[: len(joints)].astype(np.uint8)
    return SolvedSegment(points, seed, joints, statuses, failure)


def segment_step(points: SegmentPoints, u: float) -> int:
    """The plan step whose stretch holds progress `u` (step i ends at point i).

    >>> segment_step(even_points(LinePath((0.0, 0.0), (1.0, 0.0)), 0.25, ()), 0.3)
    1
    """
    index = int(np.searchsorted(points.u, u - SAME_PROGRESS, side="left"))
    return max(0, min(points.total - 1, index))
