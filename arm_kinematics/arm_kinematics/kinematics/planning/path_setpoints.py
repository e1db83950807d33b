"""Setpoints ON a tool path: the IK of the points where a profile puts the tool at each
command period, and how a stop finds the joints further along the same path.

Pure numpy. Metres, radians, seconds. Joints are never interpolated: each setpoint is the IK
solution of a point of its segment's line, solved through a `solve` callable in order along
the path, each seeded by the setpoint before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..types import PlanStatus
from .ik_answers import SolvePoints, chain_solver
from .joint_path import unwrap_path
from .line_points import (
    Failure,
    PlanArm,
    SolvedSegment,
    answered,
    joints_of,
    pose_text,
    segment_step,
    status_of,
)
from .options import MotionLimits
from .path_timing import PathLayout
from .profile import SpeedProfile


@dataclass(frozen=True)
class SetpointFailure:
    """A setpoint without IK: its `segment` and progress `u` there, the IK `status`, the
    target `point` and why (`reason`, the IK's words)."""

    segment: int
    u: float
    status: int
    point: tuple[float, ...]
    reason: str


def tool_points(layout: PathLayout, positions: np.ndarray, position_dims: int) -> np.ndarray:
    """(K, position_dims) the tool point (m) at path positions S.

    >>> from arm_kinematics.kinematics.planning.line import LinePath
    >>> layout = PathLayout((LinePath((0, 0), (1, 0)),), np.array([1.0]))
    >>> tool_points(layout, np.array([0.25, 1.0]), 2).tolist()
    [[0.25, 0.0], [1.0, 0.0]]
    """
    segment, u = layout.locate(positions)
    out = np.empty((len(positions), position_dims))
    for j in np.unique(segment).tolist():
        rows = segment == j
        out[rows] = layout.paths[j].sample(u[rows])[:, :position_dims]
    return out


def solve_path_points(
    arm: PlanArm,
    layout: PathLayout,
    positions: np.ndarray,
    seed: tuple[float, ...],
    solve: SolvePoints,
) -> tuple[np.ndarray | SetpointFailure, int]:
    """The joints (K, n, unwrapped from `seed`) of the poses at path positions S (K,), one
    `solve` call per run of positions on one segment (a segment's poses have their own
    angles); or the first that fails. And the number of calls."""
    segment, u = layout.locate(positions)
    runs = np.flatnonzero(np.diff(segment)) + 1
    rows: list[np.ndarray] = []
    calls, previous = 0, seed
    for chunk, chunk_u in zip(np.split(np.arange(len(positions)), runs), np.split(u, runs),
                              strict=True):  # fmt: skip
        if not len(chunk):
            continue
        j = int(segment[chunk[0]])
        targets = layout.paths[j].sample(chunk_u)
        answers = solve(targets, previous)
        calls += 1
        count = answered(answers, len(targets))
        if count < len(targets):
            point = tuple(targets[count].tolist())
            reason = answers.explain(count)
            failed = SetpointFailure(j, float(chunk_u[count]), int(answers.status[count]),
                                     point, reason)  # fmt: skip
            return failed, calls
        joints = unwrap_path(arm, previous, joints_of(answers, arm.n_joints))
        rows.append(joints)
        previous = tuple(joints[-1].tolist())
    return np.vstack(rows) if rows else np.zeros((0, arm.n_joints)), calls


def name_failure(
    arm: PlanArm, segments: Sequence[SolvedSegment], failed: SetpointFailure
) -> Failure:
    """The Failure of a setpoint, with the plan step of its segment whose stretch holds it."""
    points = segments[failed.segment].points
    step = segment_step(points, failed.u)
    status = status_of(failed.status)
    return Failure(
        step,
        status,
        status,
        failed.point,
        f"step {step} of {points.total}: the setpoint at "
        f"{pose_text(failed.point, arm.position_dims)} on the line before planned point {step} "
        f"fails: {failed.reason}",
    )


def branch_flip(
    arm: PlanArm,
    layout: PathLayout,
    segments: Sequence[SolvedSegment],
    positions: np.ndarray,
    joints: np.ndarray,
    max_joint_step: float | None,
) -> tuple[int, Failure] | None:
    """(its segment, its Failure) of the first setpoint farther than `max_joint_step` rad
    from the plan's joints (interpolated between its planned points, which are within that of
    each other): it is on another branch. None when none is."""
    if max_joint_step is None:
        return None
    segment, u = layout.locate(positions)
    for j in np.unique(segment).tolist():
        rows = np.flatnonzero(segment == j)
        solved = segments[j]
        assert solved.seed is not None
        grid = np.vstack((solved.seed, solved.joints))
        plan_u = np.concatenate(([0.0], solved.points.u))
        expected = np.column_stack(
            [np.interp(u[rows], plan_u, grid[:, k]) for k in range(grid.shape[1])]
        )
        off = np.abs(joints[rows] - expected).max(axis=1)
        flipped = np.flatnonzero(~(off <= max_joint_step))
        if len(flipped):
            k = int(flipped[0])
            step = segment_step(solved.points, float(u[rows[k]]))
            point = tuple(layout.paths[j].sample(u[rows[k : k + 1]])[0].tolist())
            return j, Failure(
                step, PlanStatus.JOINT_JUMP, status_of(0), point,
                f"step {step} of {solved.points.total}: the IK solution at "
                f"{pose_text(point, arm.position_dims)} on the line before planned point {step} "
                f"is {math.degrees(off[k]):.3g} deg away from the plan (a branch flip)",
            )  # fmt: skip
    return None


@dataclass(frozen=True)
class LineFollower:
    """What a stop needs of a timed tool path (`stop.py`): the path positions of the
    setpoints, the plan's profile, the limits, and the joints at further positions, solved in
    this process (`chain_solver(arm)`, the same `solve_chain` the IK node runs: a stop must not
    wait for, or depend on, another node; it solves a few dozen points)."""

    arm: PlanArm
    layout: PathLayout
    positions: np.ndarray
    profile: SpeedProfile
    limits: MotionLimits
    start: tuple[float, ...]
    solve: SolvePoints | None = field(default=None, compare=False)

    def joints_at(self, positions: np.ndarray, seed: tuple[float, ...]) -> np.ndarray | None:
        """Joints (K, n) at path positions S, or None where one has no IK."""
        solve = self.solve or chain_solver(self.arm)  # type: ignore[arg-type]
        joints, _ = solve_path_points(self.arm, self.layout, positions, seed, solve)
        return None if isinstance(joints, SetpointFailure) else joints

    def tool_at(self, positions: np.ndarray) -> np.ndarray | None:
        """The tool point (m) at path positions S."""
        return tool_points(self.layout, positions, self.arm.position_dims)
