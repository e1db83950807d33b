"""Where a planned tool path would leave the arm's workspace envelope, in the plan's terms.

Pure numpy. Metres, radians. Every IK point of a path (a planned point or a setpoint) is a pose
the arm's solve answered, and an arm carrying an envelope answers none outside it: such a point
fails the plan at its step with OUTSIDE_WORKSPACE, as any IK failure does. What remains is the
motion between them: the servos go from one setpoint to the next along the straight line in
joint space (the hardware node's ramps), from the start pose through every setpoint. That stream
is checked with the envelope's `check_path` (every setpoint, and between two so that no point of
the arm travels more than `PATH_RESOLUTION_M` between checks); a plan without setpoints (no
limits) checks its planned points the same way. The first place outside fails the plan at the
plan step whose stretch holds it, with the reason, before anything moves.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..envelope import PathViolation
from ..types import IkStatus
from .joint_path import Setpoints
from .line_points import Failure, PlanArm, SolvedSegment, pose_text, segment_step
from .path_timing import PathLayout

STATUS = IkStatus.OUTSIDE_WORKSPACE


def stream_failure(
    arm: PlanArm,
    layout: PathLayout,
    solved: Sequence[SolvedSegment],
    setpoints: Setpoints,
    start: Sequence[float],
) -> tuple[int, Failure] | None:
    """(its segment, its Failure) of the first place where the stream start -> `setpoints`
    leaves `arm.envelope`; None when it stays inside (or the arm has no envelope). The
    setpoints' path positions are their follower's (`LineFollower.positions`)."""
    envelope = arm.envelope
    if envelope is None:
        return None
    found = envelope.check_path(np.vstack((np.asarray(start, dtype=float), setpoints.joints)))
    if found is None:
        return None
    assert setpoints.follower is not None  # a tool path's setpoints follow their line
    positions = np.concatenate(([0.0], setpoints.follower.positions))
    index = found.index
    after = positions[min(index + 1, len(positions) - 1)]
    position = positions[index] + found.fraction * (after - positions[index])
    segments, progress = layout.locate(np.array([position]))
    j, u = int(segments[0]), float(progress[0])
    where = _place(found, "setpoint", len(setpoints))
    return j, _failure(arm, layout, solved, j, u, where, found)


def points_failure(
    arm: PlanArm, layout: PathLayout, solved: Sequence[SolvedSegment], start: Sequence[float]
) -> tuple[int, Failure] | None:
    """The same for a plan without setpoints: the start and its planned points' joints."""
    envelope = arm.envelope
    if envelope is None:
        return None
    joints = np.vstack([np.asarray(start, dtype=float)] + [s.joints for s in solved])
    found = envelope.check_path(joints)
    if found is None:
        return None
    counts = np.cumsum([len(s.joints) for s in solved])
    point = found.index + (1 if found.fraction > 0.0 else 0)  # 1-based: the point it is before
    j = min(int(np.searchsorted(counts, point, side="left")), len(solved) - 1)
    before = point - (counts[j - 1] if j else 0)  # 1-based in segment j
    u_end = solved[j].points.u[before - 1] if before >= 1 else 0.0
    u_start = solved[j].points.u[before - 2] if before >= 2 else 0.0
    u = float(u_start + found.fraction * (u_end - u_start)) if found.fraction else float(u_end)
    where = _place(found, "planned point", int(counts[-1]))
    return j, _failure(arm, layout, solved, j, u, where, found)


def _place(found: PathViolation, name: str, count: int) -> str:
    """Where along a stream of `count` `name`s (after the start) `found` is."""
    if found.index == 0 and found.fraction == 0.0:
        return "at the start"
    if found.fraction == 0.0:
        return f"at {name} {found.index} of {count}"
    start = "the start" if found.index == 0 else f"{name} {found.index}"
    return f"between {start} and {name} {found.index + 1} ({found.fraction:.0%} of the way)"


def _failure(
    arm: PlanArm,
    layout: PathLayout,
    solved: Sequence[SolvedSegment],
    segment: int,
    u: float,
    where: str,
    found: PathViolation,
) -> Failure:
    points = solved[segment].points
    step = segment_step(points, u)
    point = tuple(layout.paths[segment].sample(np.array([u]))[0].tolist())
    reason = found.violation.message.removeprefix(f"{STATUS.name}: ")
    return Failure(
        step, STATUS, STATUS, point,
        f"step {step} of {points.total} at {pose_text(point, arm.position_dims)} fails: "
        f"{STATUS.name}: the motion {where}: {reason}",
    )  # fmt: skip
