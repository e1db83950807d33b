"""The fastest speed along a path under joint velocity and acceleration limits: toppra.

toppra (hungpham2511/toppra, TOPP-RA: time-optimal path parameterization by reachability
analysis) answers, for a path q(p) given as a spline and per-coordinate velocity and
acceleration bounds, the fastest path speed at chosen gridpoints with constant acceleration
between them: exactly a `SpeedProfile`. Here the path position p is the distance along a tool
line (or a JOINT move's progress), q(p) a cubic spline through the joints the IK gave at the
planned points, used only for the constraints: the setpoints are solved again where the
profile puts them. On a Cartesian line the path position itself is appended to the spline as
one more coordinate (a straight line: its derivative is 1), so that its velocity and
acceleration bounds are the tool's speed and acceleration limits.

toppra imports scipy and matplotlib (about 0.9 s here): it is imported on first use, and
`load` lets a node pay that at start-up instead of in its first goal.
"""

from __future__ import annotations

import logging
from types import ModuleType

import numpy as np

from .options import MotionLimits
from .profile import SpeedProfile

#: Most gridpoints toppra works on per path (about 25 us each here): a line of 1,000 planned
#: points is parameterized at 200 of them. The setpoints are checked afterwards.
MAX_GRIDPOINTS = 200
#: Fewest gridpoints: a short path gets this many evenly along it (from rest to rest needs two
#: intervals at least: one interval of constant acceleration cannot start and end at rest).
MIN_GRIDPOINTS = 10
#: A bound toppra gets for a coordinate with no limit of its own (per second or per second^2).
UNBOUNDED = 1e9


def load() -> ModuleType:
    """Import toppra (once) and quiet its own log: failures come back as None here."""
    import toppra
    import toppra.algorithm
    import toppra.constraint

    logging.getLogger("toppra").setLevel(logging.ERROR)
    return toppra


def gridpoints(positions: np.ndarray, most: int = MAX_GRIDPOINTS) -> np.ndarray:
    """At most `most` of the increasing `positions`, evenly among them, both ends kept; at
    least MIN_GRIDPOINTS evenly from the first to the last.

    >>> gridpoints(np.arange(11.0), 4).tolist()
    [0.0, 3.0, 7.0, 10.0]
    >>> gridpoints(np.array([0.0, 1.0])).tolist()[:3]
    [0.0, 0.1111111111111111, 0.2222222222222222]
    """
    if len(positions) < MIN_GRIDPOINTS:
        return np.linspace(positions[0], positions[-1], MIN_GRIDPOINTS)
    if len(positions) <= most:
        return positions
    index = np.unique(np.round(np.linspace(0, len(positions) - 1, most)).astype(int))
    return positions[index]


def time_optimal(
    positions: np.ndarray,
    joints: np.ndarray,
    limits: MotionLimits,
    *,
    tool: bool,
    start_speed: float = 0.0,
    end_speed: float = 0.0,
    headroom: float = 1.0,
    interval: tuple[float, float] | None = None,
) -> SpeedProfile | None:
    """The time-optimal `SpeedProfile` along the path through `joints` (M, n, rad) at the
    increasing path `positions` (M,), within `headroom` times every limit of `limits` (with
    `tool`, the path position is the tool's distance in m and gets the tool's limits), from
    `start_speed` to `end_speed` (path units per second); over `interval` (a part of the path)
    when given. None when no parameterization keeps the limits (a stretch that needs a joint
    faster than its limit at any speed, or boundary speeds too high to reach or leave).

    >>> limits = MotionLimits(0.02, (1.0,), (2.0,))
    >>> grid = np.linspace(0.0, 1.0, 101)  # a JOINT move's progress, one joint 0 -> 1 rad
    >>> profile = time_optimal(grid, grid[:, None], limits, tool=False)
    >>> round(profile.duration, 2)  # 0.5 s up to 1 rad/s, 0.5 s at it, 0.5 s down
    1.5
    """
    toppra = load()
    columns = np.column_stack((joints, positions)) if tool else np.asarray(joints, dtype=float)
    path = toppra.SplineInterpolator(positions, columns)
    if interval is not None:
        low, high = interval
        inside = positions[(positions > low) & (positions < high)]
        grid = np.concatenate(([low], inside, [high]))
        path = toppra.SplineInterpolator(grid, path(grid))
    else:
        grid = positions
    velocities = np.array(limits.joint_velocities, dtype=float)
    accelerations = np.array(limits.joint_accelerations, dtype=float)
    if tool:
        velocities = np.append(velocities, limits.tool_speed or UNBOUNDED)
        accelerations = np.append(accelerations, limits.tool_acceleration or UNBOUNDED)
    velocities, accelerations = velocities * headroom, accelerations * headroom
    constraint = toppra.constraint
    algorithm = toppra.algorithm.TOPPRA(
        [
            constraint.JointVelocityConstraint(np.column_stack((-velocities, velocities))),
            constraint.JointAccelerationConstraint(
                np.column_stack((-accelerations, accelerations)),
                discretization_scheme=constraint.DiscretizationType.Interpolation,
            ),
        ],
        path,
        gridpoints=gridpoints(grid),
        solver_wrapper="seidel",
    )
    _, speeds, _ = algorithm.compute_parameterization(start_speed, end_speed)
    if speeds is None or not np.all(np.isfinite(speeds)):
        return None
    speeds = np.maximum(speeds, 0.0)
    if np.any((speeds[:-1] == 0.0) & (speeds[1:] == 0.0)):
        return None  # at rest over a whole interval: a stretch no speed keeps within the limits
    return SpeedProfile(algorithm.gridpoints, speeds)
