"""The timing stage of a tool path (start -> waypoints, each segment straight): the speed
along the whole path under the joint and tool limits, as one `SpeedProfile`.

Pure numpy (and toppra, `time_optimal.py`). Metres, radians, seconds. The path position S runs
over the segments one after another (`PathLayout`: segment j holds [offset_j, offset_j +
travel_j]), so one profile times the whole path and the setpoints keep one period apart across
the corners.

Two profiles, the first that keeps the limits wins (`path_plan.py` checks the setpoints):

- the **tool profile** (`tool_profile`), before any IK: the fastest motion of the tool point
  alone, at most the tool speed and within the tool acceleration, trapezoids between the
  corners. Where no joint limits the tool (most lines) this is the time-optimal motion, and the
  planner places a point at every one of its setpoints, so their IK is the plan's;
- the **joint profile** (`joint_profile`), after the IK: toppra per segment on the solved
  joints, with the joint limits and the tool's.

**Corners.** At a waypoint the tool's direction turns: passing it at speed v changes the tool
velocity by v |d_out - d_in| (d the unit directions) at once, and each joint's by v times the
change of dq/dS. Over one command period that is an acceleration of the change / T in the
finite differences, so a corner is passed at most at `CORNER_SHARE` of every acceleration limit
times T over that change (`tool_corner_speeds`, `joint_corner_speeds`), and a stop where that
is 0. Each side of a corner the speed then stays constant for one period (a cruise of v T), so
that no finite difference over two periods mixes the corner's change with a speed change. A
segment too short for its corner speeds gets a stop at its corners instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .line import LinePath
from .line_points import SolvedSegment
from .options import MotionLimits
from .profile import SpeedProfile
from .time_optimal import time_optimal

#: The share of an acceleration limit that passing a corner may take in the finite differences.
CORNER_SHARE = 0.9
#: The tool profile keeps this share of the tool's speed and acceleration limits, so that the
#: setpoints' tool points (IK solutions, 1e-9 m from the line's points) stay within them.
TOOL_HEADROOM = 0.999
#: The joint profile's first try keeps this share of every limit: toppra bounds the motion at
#: its gridpoints and on a spline through the planned joints; the setpoints are then checked.
JOINT_HEADROOM = 0.98


@dataclass(frozen=True)
class PathLayout:
    """The segments of a path along its path position S (m): `travels` (N,) each segment's
    path length (`line_points.travel`)."""

    paths: tuple[LinePath, ...]
    travels: np.ndarray

    @property
    def offsets(self) -> np.ndarray:
        """(N + 1,) where each segment starts along the path, and the path's end."""
        return np.concatenate(([0.0], np.cumsum(self.travels)))

    @property
    def moves_tool(self) -> np.ndarray:
        """(N,) True for a segment along which the tool point moves (its length is the path
        length: the tool's limits apply to the path speed)."""
        return np.array([path.length > 0.0 for path in self.paths])

    def locate(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(segment, progress u) of path positions S; a corner belongs to the segment it ends.

        >>> layout = PathLayout((LinePath((0, 0), (1, 0)), LinePath((1, 0), (1, 2))),
        ...                     np.array([1.0, 2.0]))
        >>> [a.tolist() for a in layout.locate(np.array([0.5, 1.0, 2.0]))]
        [[0, 0, 1], [0.5, 1.0, 0.5]]
        """
        offsets, travels = self.offsets, self.travels
        segment = np.clip(np.searchsorted(offsets[1:], positions, side="left"), 0,
                          len(travels) - 1)  # fmt: skip
        span = travels[segment]
        into = np.asarray(positions, dtype=float) - offsets[segment]
        u = np.divide(into, span, out=np.ones_like(into), where=span > 0.0)
        return segment, np.clip(u, 0.0, 1.0)


def _direction(path: LinePath) -> np.ndarray:
    return (np.asarray(path.goal) - np.asarray(path.start)) / path.length


def tool_corner_speeds(layout: PathLayout, limits: MotionLimits) -> np.ndarray:
    """(N - 1,) the fastest each corner may be passed for the tool's finite differences: the
    tool speed, and `CORNER_SHARE` of the tool acceleration times the period over the change
    of direction; 0 beside a segment along which the tool point does not move.

    >>> layout = PathLayout((LinePath((0, 0), (1, 0)), LinePath((1, 0), (1, 1))),
    ...                     np.array([1.0, 1.0]))
    >>> round(float(tool_corner_speeds(layout, MotionLimits(0.02, (1.0,), (1.0,), 0.05, 0.3))[0]), 6)
    0.003818
    """  # noqa: E501
    speeds = np.zeros(max(0, len(layout.paths) - 1))
    moves = layout.moves_tool
    speed = limits.tool_speed if limits.tool_speed is not None else math.inf
    for j in range(len(speeds)):
        if not (moves[j] and moves[j + 1]):
            continue
        turn = float(np.linalg.norm(_direction(layout.paths[j + 1]) - _direction(layout.paths[j])))
        bound = math.inf
        if limits.tool_acceleration is not None and turn > 0.0:
            bound = CORNER_SHARE * limits.tool_acceleration * limits.period / turn
        speeds[j] = min(speed, bound)
    return speeds


def joint_corner_speeds(segments: Sequence[SolvedSegment], limits: MotionLimits) -> np.ndarray:
    """(N - 1,) the fastest each corner may be passed for the joints' finite differences:
    each joint's dq/dS on either side (from the planned points next to the corner) sets the
    change of its velocity per unit of path speed, kept within `CORNER_SHARE` of its
    acceleration limit times the period, and its speed on either side within its velocity
    limit."""
    speeds = np.full(max(0, len(segments) - 1), math.inf)
    velocity = np.array(limits.joint_velocities)
    acceleration = np.array(limits.joint_accelerations)
    for j in range(len(speeds)):
        before, after = segments[j], segments[j + 1]
        slope_in, slope_out = _end_slope(before, last=True), _end_slope(after, last=False)
        if slope_in is None or slope_out is None:
            speeds[j] = 0.0
            continue
        change = np.abs(slope_out - slope_in)
        steep = np.maximum(np.abs(slope_in), np.abs(slope_out))
        with np.errstate(divide="ignore"):
            bound = min(
                float(np.min(CORNER_SHARE * acceleration * limits.period / change)),
                float(np.min(velocity / steep)),
            )
        speeds[j] = bound
    return speeds


def _end_slope(segment: SolvedSegment, *, last: bool) -> np.ndarray | None:
    """dq/dS (rad/m) at the segment's end (`last`) or start, from its two planned joints
    nearest it; None for a segment without travel or points."""
    if segment.points.travel <= 0.0 or segment.seed is None or not len(segment.joints):
        return None
    joints = np.vstack((segment.seed, segment.joints))
    positions = segment.points.positions[: len(joints)]
    pair = slice(-2, None) if last else slice(0, 2)
    dq, ds = np.diff(joints[pair], axis=0)[0], float(np.diff(positions[pair])[0])
    return dq / ds


def feasible_corners(
    travels: np.ndarray, corners: np.ndarray, acceleration: float, period: float
) -> np.ndarray:
    """`corners` (N - 1,) lowered so that each segment can go from its entry speed to its exit
    speed within `acceleration` over what its corner cruises (v T each) leave of it.

    From speed w at one end, the other end's speed v is reachable when v^2 <= w^2 + 2 a
    (L - (w + v) T): v <= -a T + sqrt((a T)^2 + w^2 + 2 a (L - w T)).

    >>> feasible_corners(np.array([0.01, 1.0]), np.array([1.0]), 2.0, 0.02).round(4).tolist()
    [0.164]
    """
    speeds = np.asarray(corners, dtype=float).copy()
    n = len(travels)

    def reach(other: float, length: float) -> float:
        room = length - other * period
        if room <= 0.0:
            return 0.0
        at = acceleration * period
        return max(0.0, -at + math.sqrt(at * at + other * other + 2.0 * acceleration * room))

    def entry(j: int) -> float:
        return float(speeds[j - 1]) if j > 0 else 0.0

    def exit_(j: int) -> float:
        return float(speeds[j]) if j < n - 1 else 0.0

    for _ in range(3):
        for j in range(n - 1):  # forward: how fast each segment can leave from its entry
            speeds[j] = min(speeds[j], reach(entry(j), float(travels[j])))
        for j in range(n - 1, 0, -1):  # backward: how fast it can enter and still leave
            speeds[j - 1] = min(speeds[j - 1], reach(exit_(j), float(travels[j])))
    return speeds


def _cruise(speed: float, period: float) -> SpeedProfile:
    """One period at a constant `speed` (nothing without speed)."""
    return SpeedProfile(np.array([0.0, speed * period]), np.array([speed, speed]))


def _corner_speeds_with_stops(corners: np.ndarray, stops: set[int]) -> np.ndarray:
    speeds = corners.copy()
    for j in stops:  # a segment that cannot keep its corner speeds: stop at both its corners
        if j > 0:
            speeds[j - 1] = 0.0
        if j < len(speeds):
            speeds[j] = 0.0
    return speeds


def tool_profile(layout: PathLayout, limits: MotionLimits) -> SpeedProfile | None:
    """The tool profile (module docstring); None when the path is not one the tool's limits
    alone can time (no tool speed or acceleration, or a segment that only turns the tool).

    >>> layout = PathLayout((LinePath((0.0, 0.0), (0.1, 0.0)),), np.array([0.1]))
    >>> profile = tool_profile(layout, MotionLimits(0.02, (1.0,), (1.0,), 0.05, 0.3))
    >>> round(profile.duration, 3)  # 1/6 s to 0.05 m/s, 1.83 s at it, 1/6 s to rest
    2.169
    """
    moves = layout.moves_tool
    if limits.tool_speed is None or limits.tool_acceleration is None:
        return None
    if np.any(~moves & (layout.travels > 0.0)):
        return None
    speed = limits.tool_speed * TOOL_HEADROOM
    acceleration = limits.tool_acceleration * TOOL_HEADROOM
    corners = np.minimum(tool_corner_speeds(layout, limits), speed)
    corners = feasible_corners(layout.travels, corners, acceleration, limits.period)
    stops: set[int] = set()
    while True:
        speeds = _corner_speeds_with_stops(corners, stops)
        parts, failed = [], None
        for j, length in enumerate(layout.travels.tolist()):
            v_in = float(speeds[j - 1]) if j > 0 else 0.0
            v_out = float(speeds[j]) if j < len(speeds) else 0.0
            try:
                middle = SpeedProfile.limited(
                    length - (v_in + v_out) * limits.period, speed=speed,
                    acceleration=acceleration, start_speed=v_in, end_speed=v_out,
                )  # fmt: skip
            except ValueError:
                failed = j
                break
            parts += [_cruise(v_in, limits.period), middle, _cruise(v_out, limits.period)]
        if failed is None:
            return SpeedProfile.joined(parts)
        if failed in stops:
            return None
        stops.add(failed)


@dataclass(frozen=True)
class NoProfile:
    """No speed keeps the joints of `segment` within their limits, even from rest to rest (a
    stretch near a singularity that no speed keeps within them, as toppra found)."""

    segment: int


def joint_profile(
    layout: PathLayout,
    segments: Sequence[SolvedSegment],
    limits: MotionLimits,
    headroom: float = JOINT_HEADROOM,
) -> SpeedProfile | NoProfile:
    """The joint profile (module docstring) of the solved `segments` (their feasible points)
    within `headroom` of every limit, or the segment for which toppra finds none."""
    moves = layout.moves_tool
    corners = joint_corner_speeds(segments, limits)  # the feasible segments' corners only
    if limits.bounds_tool:
        corners = np.minimum(corners, tool_corner_speeds(layout, limits)[: len(corners)])
    corners = corners * headroom
    stops: set[int] = set()
    while True:
        speeds = _corner_speeds_with_stops(corners, stops)
        parts, failed = [], None
        for j, segment in enumerate(segments):
            v_in = float(speeds[j - 1]) if j > 0 else 0.0
            v_out = float(speeds[j]) if j < len(speeds) else 0.0
            part = _segment_profile(segment, bool(moves[j]), limits, headroom, v_in, v_out)
            if part is None:
                failed = j
                break
            parts.append(part)
        if failed is None:
            return SpeedProfile.joined(parts)
        if failed in stops:
            return NoProfile(failed)  # rest to rest, and still no profile
        stops.add(failed)


def _segment_profile(
    segment: SolvedSegment,
    tool: bool,
    limits: MotionLimits,
    headroom: float,
    v_in: float,
    v_out: float,
) -> SpeedProfile | None:
    """toppra's profile of one solved segment between its corner cruises (None: none)."""
    if segment.points.travel <= 0.0 or segment.seed is None or not len(segment.joints):
        return SpeedProfile(np.array([0.0, 0.0]), np.array([0.0, 0.0]))
    positions = segment.points.positions[: segment.feasible + 1]
    travel = float(positions[-1])
    low, high = v_in * limits.period, travel - v_out * limits.period
    if high - low <= 0.0:
        return None
    joints = np.vstack((segment.seed, segment.joints))
    middle = time_optimal(
        positions, joints, limits, tool=tool, start_speed=v_in, end_speed=v_out,
        headroom=headroom, interval=(low, high) if v_in or v_out else None,
    )  # fmt: skip
    if middle is None:
        return None
    return SpeedProfile.joined(
        [_cruise(v_in, limits.period), middle, _cruise(v_out, limits.period)]
    )
