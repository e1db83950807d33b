"""Stage 3 of the tool-path planner (`path_plan.py`): the timing and the setpoints of a path
whose every planned point is solved.

Pure numpy (and toppra, through `path_timing`). Metres, radians, seconds. The tool profile's
setpoints, which are planned points and so already solved, are taken if they keep every limit
(`stream_limits`: finite differences, with the rest before and after); else the joint profile
(toppra), its setpoints solved ON the path (`path_setpoints`), and checked; each time one still
exceeds a limit (toppra bounds the motion at its gridpoints, on a spline through the planned
joints), timed again a little slower, at most `MAX_RETIMES` times. A path that cannot keep its
limits fails (JOINT_JUMP, naming where and which limit) rather than exceed them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..types import IkStatus, PlanStatus
from .ik_answers import chain_solver
from .joint_path import Setpoints
from .line_points import Failure, PlanArm, SolvedSegment, pose_text, segment_step
from .options import MotionLimits, PlanOptions
from .path_setpoints import (
    LineFollower,
    SetpointFailure,
    branch_flip,
    name_failure,
    solve_path_points,
    tool_points,
)
from .path_timing import JOINT_HEADROOM, NoProfile, PathLayout, joint_profile
from .profile import SpeedProfile
from .stream_limits import Excess, stream_excesses, with_rest

#: Most times the joint profile is made again, a little slower, when a setpoint exceeds a limit.
MAX_RETIMES = 4


@dataclass(frozen=True)
class ToolSetpoints:
    """The tool profile of a path and, for each of its setpoints, the segment and the index of
    the planned point it is (`path_plan.place_path`)."""

    profile: SpeedProfile
    segments: np.ndarray
    rows: np.ndarray


def prefix_profile(
    layout: PathLayout, solved: Sequence[SolvedSegment], limits: MotionLimits
) -> SpeedProfile | None:
    """The timing of a failed plan's feasible part, from rest to rest (its `times`); None
    where none keeps the limits."""
    profile = joint_profile(layout, solved, limits)
    return None if isinstance(profile, NoProfile) else profile


@dataclass(frozen=True)
class Timed:
    """What the timing stage answers: (profile, setpoints) or the Failure of segment
    `segment`, and the further `solve` calls it made."""

    outcome: tuple[SpeedProfile, Setpoints] | Failure
    segment: int
    calls: int


def time_path(
    arm: PlanArm,
    layout: PathLayout,
    tool: ToolSetpoints | None,
    solved: Sequence[SolvedSegment],
    options: PlanOptions,
) -> Timed:
    """The module docstring's stage on the fully `solved` segments of `layout`, with the
    tool profile's setpoints `tool` (None: no tool profile) and `options.limits`."""
    limits, start = options.limits, solved[0].seed
    assert limits is not None
    assert start is not None
    if tool is not None:
        pairs = zip(tool.segments, tool.rows, strict=True)
        joints = np.vstack([solved[j].joints[i] for j, i in pairs])
        positions = tool.profile.sample(limits.period)
        if _first_excess(arm, layout, start, positions, joints, limits) is None:
            timed = _timed(arm, layout, tool.profile, positions, joints, limits, start)
            return Timed(timed, 0, 0)
    solve = options.solve or chain_solver(arm)  # type: ignore[arg-type]
    headroom, calls = JOINT_HEADROOM, 0
    excess: tuple[float, Excess] | NoProfile | None = None
    for _ in range(1 + MAX_RETIMES):
        profile = joint_profile(layout, solved, limits, headroom)
        if isinstance(profile, NoProfile):
            excess = profile
            break
        positions = profile.sample(limits.period)
        answer, made = solve_path_points(arm, layout, positions, start, solve)
        calls += made
        if isinstance(answer, SetpointFailure):
            return Timed(name_failure(arm, solved, answer), answer.segment, calls)
        flip = branch_flip(arm, layout, solved, positions, answer, options.max_joint_step)
        if flip is not None:
            return Timed(flip[1], flip[0], calls)
        excess = _first_excess(arm, layout, start, positions, answer, limits)
        if excess is None:
            return Timed(_timed(arm, layout, profile, positions, answer, limits, start), 0, calls)
        headroom *= min(0.97, 0.99 / excess[1].ratio)
    segment, failure = _cannot_keep(arm, layout, solved, excess, limits)
    return Timed(failure, segment, calls)


def _first_excess(
    arm: PlanArm,
    layout: PathLayout,
    start: tuple[float, ...],
    positions: np.ndarray,
    joints: np.ndarray,
    limits: MotionLimits,
) -> tuple[float, Excess] | None:
    """The first setpoint over a limit, with the rest before and after: (its path position,
    the Excess), or None when all keep them."""
    tool = None
    if limits.bounds_tool:
        start_point = layout.paths[0].start[: arm.position_dims]
        tool = with_rest(start_point, tool_points(layout, positions, arm.position_dims))
    first, _ = stream_excesses(with_rest(start, joints), limits.period, limits, tool)
    if first is None:
        return None
    row = min(max(first.row, 0), len(positions) - 1)
    return float(positions[row]), first


def _timed(
    arm: PlanArm,
    layout: PathLayout,
    profile: SpeedProfile,
    positions: np.ndarray,
    joints: np.ndarray,
    limits: MotionLimits,
    start: tuple[float, ...],
) -> tuple[SpeedProfile, Setpoints]:
    follower = LineFollower(arm, layout, positions, profile, limits, start)
    setpoints = Setpoints(joints=joints, period=limits.period, forward=arm.tool_vector,
                          follower=follower)  # fmt: skip
    return profile, setpoints


def _cannot_keep(
    arm: PlanArm,
    layout: PathLayout,
    solved: Sequence[SolvedSegment],
    excess: tuple[float, Excess] | NoProfile | None,
    limits: MotionLimits,
) -> tuple[int, Failure]:
    """(segment, the JOINT_JUMP failure) of a path no timing keeps within its limits: where a
    setpoint still exceeded one, or the start of the segment toppra found no timing for."""
    if isinstance(excess, NoProfile) or excess is None:
        j, u = (excess.segment if excess is not None else 0), 0.0
        why = "no speed keeps the joints within their limits on this segment (a singularity?)"
    else:
        segments, progress = layout.locate(np.array([excess[0]]))
        j, u = int(segments[0]), float(progress[0])
        why = excess[1].words(arm.joint_names, limits.period)
    points = solved[j].points
    step = segment_step(points, u)
    point = tuple(layout.paths[j].sample(np.array([u]))[0].tolist())
    return j, Failure(
        step, PlanStatus.JOINT_JUMP, IkStatus.OK, point,
        f"step {step} of {points.total}: the joints cannot follow the line within their "
        f"limits at {pose_text(point, arm.position_dims)} before planned point {step}: {why}",
    )  # fmt: skip
