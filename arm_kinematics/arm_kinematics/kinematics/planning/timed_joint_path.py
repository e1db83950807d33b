"""A joint trajectory from another planner as it is streamed: interpolated between its points
as joint_trajectory_controller interpolates them, from where the arm is.

Numpy and scipy, no ROS. Radians, seconds. Between two points the joints follow
- a straight line at constant speed when the points give positions only;
- a cubic when every point gives velocities too, a quintic when also accelerations
  (`scipy.interpolate.BPoly.from_derivatives`: the polynomial with those values at both ends),
as the controller's spline interpolation does. The trajectory's time 0 is where the arm is at
rest. To a first point at rest (no velocities, or zero ones) it goes along the straight joint
line by the fastest rest-to-rest motion within the joint limits (`joint_plan.joint_profile`)
slowed down evenly to take the point's `time_from_start` (`approach`; where the arm is there
already, it holds): it starts and ends at rest, where a straight line at constant speed would
start and stop with a jump. To a first point that moves, along a cubic or quintic from rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.interpolate import BPoly

from .joint_path import Setpoints
from .options import MotionLimits
from .profile import SpeedProfile

_ROUNDING = 1e-9  # s


def stretched(profile: SpeedProfile, duration: float) -> SpeedProfile:
    """`profile` slowed down evenly to take `duration` s (at least its own): every speed times
    its duration over `duration`, so velocities scale by that and accelerations by its square.

    >>> fast = SpeedProfile.limited(1.0, speed=1.0, acceleration=4.0)  # 1.25 s
    >>> stretched(fast, 2.5).speeds.tolist()
    [0.0, 0.5, 0.5, 0.0]
    """
    scale = profile.duration / duration if duration > 0.0 else 1.0
    return SpeedProfile(profile.positions, profile.speeds * scale)


@dataclass(frozen=True)
class TimedJointPath:
    """A checked trajectory in the arm's joint order (module docstring): `times` (P + 1,)
    strictly increasing from 0 and `positions` (P + 1, n) rad, row 0 where the arm is;
    `velocities` and `accelerations` (P + 1, n), row 0 zeros, when every point gave them (None
    else); `approach` the progress (0 -> 1) along the joint line to point 1 when that one is at
    rest (None: the splines from row 0).

    >>> path = TimedJointPath(np.array([0.0, 2.0]), np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> [values.tolist() for values in path.at(0.5)]  # no approach given: straight
    [[0.25, 0.75], [0.5, -0.5]]
    >>> [values.tolist() for values in path.at(3.0)]
    [[1.0, 0.0], [0.0, 0.0]]
    """

    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray | None = None
    accelerations: np.ndarray | None = None
    approach: SpeedProfile | None = field(default=None, compare=False)

    @property
    def duration(self) -> float:
        """Seconds from the start to the last point."""
        return float(self.times[-1])

    @cached_property
    def _splines(self) -> list[BPoly]:
        """One piecewise polynomial per joint, from the first knot they cover on."""
        first = 1 if self.approach is not None else 0
        times = self.times[first:]
        if len(times) < 2:
            return []
        columns = [self.positions[first:]]
        for extra in (self.velocities, self.accelerations):
            if extra is None:
                break
            columns.append(extra[first:])
        splines = []
        for joint in range(self.positions.shape[1]):
            values = np.stack([column[:, joint] for column in columns], axis=1)
            splines.append(BPoly.from_derivatives(times, values))
        return splines

    def _evaluate(self, at: np.ndarray, order: int) -> np.ndarray:
        """Positions (order 0) or velocities (order 1) at the times `at` (K,), (K, n)."""
        at = np.clip(np.asarray(at, dtype=float), 0.0, self.duration)
        n = self.positions.shape[1]
        out = np.zeros((len(at), n))
        along = np.ones(len(at), dtype=bool)
        if self.approach is not None:
            early = at <= self.times[1]
            q0, q1 = self.positions[0], self.positions[1]
            if order == 0:
                out[early] = q0 + self.approach.position_at(at[early])[:, None] * (q1 - q0)
            else:
                out[early] = self.approach.speed_at(at[early])[:, None] * (q1 - q0)
            along = ~early
        if along.any() and self._splines:
            for joint, spline in enumerate(self._splines):
                function = spline if order == 0 else spline.derivative(order)
                out[along, joint] = function(at[along])
        elif along.any():  # one knot past the approach: there already
            out[along] = self.positions[-1] if order == 0 else 0.0
        if order > 0:
            out[np.asarray(at) >= self.duration] = 0.0
        return out

    def positions_at(self, at: np.ndarray) -> np.ndarray:
        """Where the path wants the joints (rad, (K, n)) at the times `at` (s, (K,))."""
        return self._evaluate(np.asarray(at, dtype=float).reshape(-1), 0)

    def at(self, time: float) -> tuple[np.ndarray, np.ndarray]:
        """Where the path wants the joints `time` s after the start (rad), and how fast
        (rad/s); before the start the start and after the end the last point, at rest."""
        if time <= 0.0 or time >= self.duration:
            row = self.positions[0] if time <= 0.0 else self.positions[-1]
            return row.copy(), np.zeros_like(row)
        moment = np.array([time])
        return self._evaluate(moment, 0)[0], self._evaluate(moment, 1)[0]

    def sample_times(self, period: float) -> np.ndarray:
        """The times (s) of the setpoints: one `period` apart from one period after the start,
        the last one the end."""
        count = max(1, math.ceil(self.duration / period - _ROUNDING))
        times = np.minimum(np.arange(1, count + 1, dtype=float) * period, self.duration)
        times[-1] = self.duration
        return times

    def sample(self, period: float) -> np.ndarray:
        """Joint setpoints (K, n) every `period` seconds after the start, the last point last.

        >>> path = TimedJointPath(np.array([0.0, 1.0]), np.array([[0.0, 0.0], [0.5, -1.0]]))
        >>> path.sample(0.25).round(3).tolist()
        [[0.125, -0.25], [0.25, -0.5], [0.375, -0.75], [0.5, -1.0]]
        """
        joints = self.positions_at(self.sample_times(period))
        joints[-1] = self.positions[-1]
        return joints


@dataclass(frozen=True)
class TimedPathFollower:
    """A joint trajectory's setpoints along its own time, for a stop (`joint_path.PathFollower`):
    the path position is the trajectory's time, run at speed 1; no tool limits."""

    path: TimedJointPath
    positions: np.ndarray
    limits: MotionLimits

    @property
    def start(self) -> tuple[float, ...]:
        return tuple(self.path.positions[0].tolist())

    @cached_property
    def profile(self) -> SpeedProfile:
        return SpeedProfile(np.array([0.0, self.path.duration]), np.array([1.0, 1.0]))

    def joints_at(self, positions: np.ndarray, seed: tuple[float, ...]) -> np.ndarray:
        return self.path.positions_at(positions)

    def tool_at(self, positions: np.ndarray) -> None:
        return None


def trajectory_setpoints(
    path: TimedJointPath,
    limits: MotionLimits,
    forward: Callable[[Sequence[float]], tuple[float, ...]],
) -> Setpoints:
    """The setpoints a checked trajectory streams, one per `limits.period`, with how a stop
    follows it (`forward`: the arm's `tool_vector`, for the tips).

    >>> path = TimedJointPath(np.array([0.0, 1.0]), np.array([[0.0], [0.5]]))
    >>> setpoints = trajectory_setpoints(path, MotionLimits(0.25, (1.0,), (8.0,)), tuple)
    >>> setpoints.joints.ravel().tolist(), setpoints.follower.positions.tolist()
    ([0.125, 0.25, 0.375, 0.5], [0.25, 0.5, 0.75, 1.0])
    """
    times = path.sample_times(limits.period)
    return Setpoints(
        joints=path.sample(limits.period),
        period=limits.period,
        forward=forward,
        follower=TimedPathFollower(path, times, limits),
    )
