"""One step tried: would this velocity for one period keep every limit, and could the arm stop
after it? The two kinds of jog each have theirs: `task_trial` (a twist: the tool pose moved,
then the closed-form solve seeded by the current joints) and `joint_trial` (joint velocities).

A trial passes when the step's joints are within their limits (the solver keeps them there),
no joint jumps (a branch flip: more than `max_joint_step`), no joint exceeds its velocity or
acceleration limit, the SINGULAR band comes no nearer (`singularity.py`), and the stop that
would follow (`limits.stop_displacement`, solved too) keeps the same rules, its path inside the
envelope at its resolution. Otherwise it fails with the `Limit` that held it back. Metres,
radians, seconds, the base frame.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..envelope import PATH_RESOLUTION_M, Constraint, Envelope, path_samples
from ..planar.arm import PlanarArm
from ..spatial.arm import SpatialArm
from ..types import IkResult, IkStatus
from .axes import JogAxes
from .limits import JogLimits, stop_displacement, stop_time, weighted_norm
from .singularity import SingularRatio, singular_ratio
from .status import Bound, Limit

TOLERANCE = 1e-9
"""Relative slack of the velocity and acceleration checks (rounding of the solver's joints)."""
APPROACH_ZONE = 5.0
"""A joint at its velocity limit while the arm nears the SINGULAR band (within this many times
the band's width: |sin(elbow)| below 5 * singularity_margin) is said as slowing for the
singularity, which is why the joint is that fast."""


class Here(NamedTuple):
    """The state a step starts from, and what every trial of it needs."""

    arm: PlanarArm | SpatialArm
    axes: JogAxes
    limits: JogLimits
    envelope: Envelope | None
    joints: np.ndarray  # rad
    velocities: np.ndarray  # rad/s
    ratio: SingularRatio  # of `joints`
    depth: float  # m: how deep `joints` are in the envelope's first constraint (0: inside)


class Trial(NamedTuple):
    """A tried step: passed (`limit` None) with its joints (rad), joint velocities (rad/s), the
    velocity tried (`rates`: the task's or the joints'), its singular ratio and envelope
    depth; or failed with the `limit` that held it back."""

    limit: Limit | None
    rates: np.ndarray
    joints: np.ndarray | None = None
    velocities: np.ndarray | None = None
    ratio: SingularRatio | None = None
    depth: float = 0.0

    @property
    def ok(self) -> bool:
        return self.limit is None


def task_trial(here: Here, pose: np.ndarray, rates: np.ndarray) -> Trial:
    """The tool pose `pose` (`JogAxes.tool`) moved at `rates` (controlled coordinates, m/s and
    rad/s) for one period, tried."""
    arm, axes, limits = here.arm, here.axes, here.limits
    if not rates.any():  # rest: the joints stay exactly where they are (no solve, no rounding)
        zeros = np.zeros_like(here.joints)
        return Trial(None, rates, here.joints, zeros, here.ratio, here.depth)
    period = limits.period
    target = pose.copy()
    target[list(axes.controlled)] += rates * period
    joints, limit = _solved(here, target, here.joints)
    if limit is not None:
        return Trial(limit, rates)
    step = joints - here.joints
    velocities = step / period
    ratio = singular_ratio(arm, joints, target[:2])
    limit = _jump(here, step, 0.0) or _speed(here, velocities, ratio)
    if limit is None and ratio.ratio < min(1.0, here.ratio.ratio) - TOLERANCE:
        limit = Limit(Bound.SINGULARITY, ratio.words)
    if limit is not None:
        return Trial(limit, rates)
    speed = weighted_norm(rates, axes.weights)
    time_to_stop = stop_time(
        speed, limits.tool_acceleration, velocities, limits.joint_accelerations
    )
    path = [joints]
    if time_to_stop > 0.0:
        stop = target.copy()
        stop[list(axes.controlled)] += stop_displacement(rates, period, time_to_stop)
        stopped, limit = _solved(here, stop, joints)
        if limit is None:
            stop_ratio = singular_ratio(arm, stopped, stop[:2])
            limit = _jump(here, stopped - joints, time_to_stop, velocities)
            if limit is None and stop_ratio.ratio < min(1.0, ratio.ratio) - TOLERANCE:
                limit = Limit(Bound.SINGULARITY, stop_ratio.words)
        if limit is not None:
            return Trial(limit, rates)
        path.append(stopped)
    limit, depth = _envelope(here, path)
    if limit is not None:
        return Trial(limit, rates)
    return Trial(None, rates, joints, velocities, ratio, depth)


def joint_trial(here: Here, rates: np.ndarray) -> Trial:
    """The joints moved at `rates` (rad/s) for one period, tried."""
    arm, limits = here.arm, here.limits
    joints = here.joints + rates * limits.period
    limit = _outside(here, joints, rates) or _speed(here, rates, None)
    if limit is not None:
        return Trial(limit, rates)
    time_to_stop = stop_time(0.0, math.inf, rates, limits.joint_accelerations)
    path = [joints]
    if time_to_stop > 0.0:
        stopped = joints + stop_displacement(rates, limits.period, time_to_stop)
        limit = _outside(here, stopped, rates)
        if limit is not None:
            return Trial(limit, rates)
        path.append(stopped)
    limit, depth = _envelope(here, path)
    if limit is not None:
        return Trial(limit, rates)
    tool = arm.tool_vector(tuple(joints.tolist()))
    return Trial(None, rates, joints, rates, singular_ratio(arm, joints, tool[:2]), depth)


def _solved(here: Here, target: np.ndarray, seed: np.ndarray) -> tuple[np.ndarray, Limit | None]:
    """The joints of `target` (a full tool pose), seeded by `seed`, or the Limit of the solver's
    refusal."""
    result = here.axes.solve(here.arm, target, tuple(seed.tolist()))
    if not result.ok:
        return seed, _refusal(here, result)
    return np.array(here.arm.unwrap_near(result.joints, tuple(seed.tolist()))), None


def _refusal(here: Here, result: IkResult) -> Limit:
    """The Limit of a refused solve, in words that hold while the arm stays where it is."""
    status = result.status
    if status in (IkStatus.JOINT_LIMIT, IkStatus.YAW_LIMIT):
        index = 0 if status == IkStatus.YAW_LIMIT else _nearest_limit(here)
        return Limit(Bound.JOINT_LIMIT, f"the limit of {here.arm.joint_names[index]}")
    if status in (IkStatus.TOO_FAR, IkStatus.TOO_CLOSE, IkStatus.ORIENTATION_UNREACHABLE):
        # Past the edge of the reach (with the tool's angle held: the wrist's): the stretch or
        # the fold that the SINGULAR band lies before, named as the band is.
        return Limit(Bound.SINGULARITY, here.ratio.words)
    if status == IkStatus.OUTSIDE_WORKSPACE:
        return Limit(Bound.WORKSPACE, result.message)
    return Limit(Bound.REACH, f"no pose ahead ({result.message})")


def _nearest_limit(here: Here) -> int:
    """The joint nearest a limit it moves toward (by time at its velocity), else nearest any."""
    lows, highs = np.array(here.arm.joint_limits).T
    q, v = here.joints, here.velocities
    either = np.minimum(q - lows, highs - q)
    margin = np.where(v > 0.0, highs - q, np.where(v < 0.0, q - lows, either))
    moving = v != 0.0
    if moving.any():
        times = np.where(moving, margin / np.where(moving, np.abs(v), 1.0), np.inf)
        return int(np.argmin(times))
    return int(np.argmin(margin))


def _jump(
    here: Here, step: np.ndarray, time: float, velocities: np.ndarray | None = None
) -> Limit | None:
    """A joint moving more than `max_joint_step` beyond what `velocities` (rad/s) carry it in
    `time` (s): the solver found the pose on another branch."""
    allowed = here.limits.max_joint_step
    if velocities is not None:
        allowed = allowed + np.abs(velocities) * time
    jumped = np.flatnonzero(np.abs(step) > allowed)
    if len(jumped) == 0:
        return None
    name = here.arm.joint_names[int(jumped[0])]
    return Limit(Bound.JUMP, f"going on needs {name} to jump (the arm's other elbow or side)")


def _speed(here: Here, velocities: np.ndarray, ratio: SingularRatio | None) -> Limit | None:
    """A joint beyond its velocity limit (said as the singularity when the arm nears it) or
    beyond its acceleration limit (rad/s, rad/s^2)."""
    limits = here.limits
    fast = np.abs(velocities) > np.array(limits.joint_velocities) * (1.0 + TOLERANCE)
    if fast.any():
        approaching = ratio is not None and ratio.ratio < min(APPROACH_ZONE, here.ratio.ratio)
        if approaching:
            return Limit(Bound.SINGULARITY, ratio.words)
        name = here.arm.joint_names[int(np.flatnonzero(fast)[0])]
        return Limit(Bound.VELOCITY, f"{name} at its velocity limit")
    change = np.abs(velocities - here.velocities)
    most = np.array(limits.joint_accelerations) * limits.period
    sharp = change > most * (1.0 + TOLERANCE) + TOLERANCE
    if sharp.any():
        name = here.arm.joint_names[int(np.flatnonzero(sharp)[0])]
        return Limit(Bound.ACCELERATION, f"{name} at its acceleration limit")
    return None


def _outside(here: Here, joints: np.ndarray, rates: np.ndarray) -> Limit | None:
    """The Limit of joints outside their limits (a linkage's travel included), else None."""
    if here.arm.within_limits(tuple(joints.tolist())):
        return None
    lows, highs = np.array(here.arm.joint_limits).T
    outside = np.flatnonzero((joints < lows) | (joints > highs))
    if len(outside):
        return Limit(Bound.JOINT_LIMIT, f"the limit of {here.arm.joint_names[int(outside[0])]}")
    moving = np.flatnonzero(rates)
    name = here.arm.joint_names[int(moving[0])] if len(moving) else "a joint"
    return Limit(Bound.JOINT_LIMIT, f"the travel of {name}'s linkage")


_CONSTRAINT_WORDS = {
    Constraint.TABLE: "the table",
    Constraint.BASE_COLUMN: "the arm's base column",
}


def _envelope(here: Here, path: list[np.ndarray]) -> tuple[Limit | None, float]:
    """The envelope along `path` (the step's joints, then the stop's), at the envelope's
    resolution: a Limit where a part would go deeper than the arm already is, else (None, the
    step's depth, m)."""
    envelope = here.envelope
    if envelope is None or envelope.is_empty:
        return None, 0.0
    rows = np.array(path)
    if len(rows) > 1:
        rows = path_samples(rows, envelope.parts.motion_radii, PATH_RESOLUTION_M)[0]
    found = envelope.check_many(rows)
    deeper = np.flatnonzero(found.depth > here.depth + TOLERANCE)
    if len(deeper) == 0:
        return None, float(found.depth[0])
    violation = found.at(int(deeper[0]))
    assert violation is not None
    where = _CONSTRAINT_WORDS.get(violation.constraint, f"keep-out box {violation.box + 1}")
    return Limit(Bound.WORKSPACE, f"{where} in the way of {violation.part}"), 0.0
