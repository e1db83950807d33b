"""A motion's speed along its path: where it is at each time, as knots with constant
acceleration between them.

Pure numpy. A path is followed by one coordinate, its path position p (metres along a tool
line, the progress u of a JOINT move, the time of a joint trajectory): `SpeedProfile` holds
knots p_i (non-decreasing) and the speed there v_i >= 0, and between two knots the acceleration
is constant, a_i = (v_{i+1}^2 - v_i^2) / (2 (p_{i+1} - p_i)), so that v^2 is linear in p and the
knot interval takes dt_i = 2 (p_{i+1} - p_i) / (v_i + v_{i+1}). This is the form toppra's
parameterization answers in (its gridpoints and path velocities, ParametrizeConstAccel), and
a trapezoid (`limited`) or a stop (`stopping`) is exactly a few knots of it.

Sampling (`sample`) gives the path position at every command period; the motion starts and
ends at rest when the first and last speeds are 0. A profile whose speed never exceeds a bound
and whose acceleration stays within one keeps both in its finite differences too: a first
difference over one period is the mean speed of that period, a second difference a weighted
mean of the acceleration over two periods.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_ROUNDING = 1e-9  # s: a duration this close to a whole number of periods takes that number


@dataclass(frozen=True)
class SpeedProfile:
    """Knots `positions` (K,) along a path, non-decreasing, and `speeds` (K,) >= 0 there;
    constant acceleration between knots (module docstring).

    >>> profile = SpeedProfile.limited(0.1, speed=0.05, acceleration=0.5)  # a trapezoid
    >>> profile.positions.round(6).tolist(), profile.speeds.round(6).tolist()
    ([0.0, 0.0025, 0.0975, 0.1], [0.0, 0.05, 0.05, 0.0])
    >>> round(profile.duration, 6), profile.sample(0.5).round(6).tolist()
    (2.1, [0.0225, 0.0475, 0.0725, 0.0975, 0.1])
    """

    positions: np.ndarray
    speeds: np.ndarray

    def __post_init__(self) -> None:
        positions = np.asarray(self.positions, dtype=float).reshape(-1)
        speeds = np.maximum(np.asarray(self.speeds, dtype=float).reshape(-1), 0.0)
        if len(positions) != len(speeds) or len(positions) == 0:
            raise ValueError(f"{len(positions)} knots for {len(speeds)} speeds")
        if np.any(np.diff(positions) < 0.0) or not np.all(np.isfinite(positions)):
            raise ValueError("knot positions must be finite and non-decreasing")
        moving = np.diff(positions) > 0.0
        if np.any(moving & (speeds[:-1] + speeds[1:] == 0.0)):
            raise ValueError("a knot interval with length needs a speed at one of its ends")
        object.__setattr__(self, "positions", positions)
        object.__setattr__(self, "speeds", speeds)

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    def limited(
        cls,
        length: float,
        *,
        speed: float,
        acceleration: float,
        start_speed: float = 0.0,
        end_speed: float = 0.0,
        start: float = 0.0,
    ) -> SpeedProfile:
        """The fastest profile over `length` from `start_speed` to `end_speed` with the speed at
        most `speed` and the acceleration within +-`acceleration`: in the phase plane the lowest
        of the curve accelerating from the start, the one decelerating into the end and the
        speed bound (a trapezoid, or a triangle on a short path). ValueError when the end speed
        cannot be reached within `length`.

        >>> SpeedProfile.limited(0.01, speed=1.0, acceleration=2.0).speeds.round(6).tolist()
        [0.0, 0.141421, 0.0]
        """
        v0, v1 = min(start_speed, speed), min(end_speed, speed)
        if length <= 0.0:
            return cls(np.array([start, start]), np.array([v0, v0]))
        if abs(v1 * v1 - v0 * v0) > 2.0 * acceleration * length * (1.0 + 1e-9):
            raise ValueError(
                f"cannot go from {v0:g} to {v1:g} within {length:g} at {acceleration:g} per s^2"
            )
        rise = max(0.0, speed * speed - v0 * v0) / (2.0 * acceleration)
        fall = max(0.0, speed * speed - v1 * v1) / (2.0 * acceleration)
        if rise + fall <= length:
            knots = [0.0, rise, length - fall, length]
            speeds = [v0, speed, speed, v1]
        else:
            peak_squared = (v0 * v0 + v1 * v1) / 2.0 + acceleration * length
            peak = math.sqrt(peak_squared)
            top = min(length, max(0.0, (peak_squared - v0 * v0) / (2.0 * acceleration)))
            knots, speeds = [0.0, top, length], [v0, peak, v1]
        return cls(start + np.array(knots), np.array(speeds))

    @classmethod
    def stopping(cls, start: float, speed: float, deceleration: float) -> SpeedProfile:
        """From `start` at `speed` to rest at a constant `deceleration`.

        >>> SpeedProfile.stopping(1.0, 0.2, 0.4).positions.tolist()
        [1.0, 1.05]
        """
        return cls(np.array([start, start + speed * speed / (2.0 * deceleration)]),
                   np.array([speed, 0.0]))  # fmt: skip

    @classmethod
    def joined(cls, parts: Sequence[SpeedProfile]) -> SpeedProfile:
        """The profiles one after another along the path, each shifted to start where the one
        before ends (each should start at the speed the one before ends with)."""
        positions, speeds, offset = [], [], 0.0
        for part in parts:
            positions.append(part.positions - part.positions[0] + offset)
            speeds.append(part.speeds)
            offset = float(positions[-1][-1])
        return cls(np.concatenate(positions), np.concatenate(speeds))

    # --- what it says -----------------------------------------------------------------------

    @property
    def start(self) -> float:
        return float(self.positions[0])

    @property
    def end(self) -> float:
        return float(self.positions[-1])

    @property
    def accelerations(self) -> np.ndarray:
        """(K - 1,) the constant acceleration of each knot interval (0 where it has no length)."""
        step = np.diff(self.positions)
        change = np.diff(self.speeds**2) / 2.0
        return np.divide(change, step, out=np.zeros_like(step), where=step > 0.0)

    @property
    def times(self) -> np.ndarray:
        """(K,) the time (s) each knot is reached, from 0."""
        step = np.diff(self.positions)
        total = self.speeds[:-1] + self.speeds[1:]
        dt = np.divide(2.0 * step, total, out=np.zeros_like(step), where=step > 0.0)
        return np.concatenate(([0.0], np.cumsum(dt)))

    @property
    def duration(self) -> float:
        """Seconds from the first knot to the last."""
        return float(self.times[-1])

    def _interval(self, times: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The knot interval holding each time `at` and the time into it."""
        index = np.clip(np.searchsorted(times, at, side="right") - 1, 0, len(times) - 2)
        return index, at - times[index]

    def position_at(self, at: np.ndarray) -> np.ndarray:
        """Path positions at the times `at` (s from the start); before 0 the start, after the
        end the end."""
        at = np.asarray(at, dtype=float)
        if len(self.positions) == 1:
            return np.full(at.shape, self.start)
        times = self.times
        index, into = self._interval(times, np.clip(at, 0.0, times[-1]))
        position = (
            self.positions[index]
            + self.speeds[index] * into
            + 0.5 * self.accelerations[index] * into * into
        )
        return np.minimum(np.where(at >= times[-1], self.end, position), self.end)

    def speed_at(self, at: np.ndarray) -> np.ndarray:
        """Path speeds at the times `at` (s): the first knot's before the start, the last
        one's after the end."""
        at = np.asarray(at, dtype=float)
        if len(self.positions) == 1:
            return np.full(at.shape, float(self.speeds[0]))
        times = self.times
        index, into = self._interval(times, np.clip(at, 0.0, times[-1]))
        speed = self.speeds[index] + self.accelerations[index] * into
        return np.maximum(np.where(at >= times[-1], self.speeds[-1], speed), 0.0)

    def speed_where(self, position: float) -> float:
        """The speed at a path `position` (v^2 is linear in p between knots)."""
        return math.sqrt(max(0.0, float(np.interp(position, self.positions, self.speeds**2))))

    def acceleration_where(self, positions: np.ndarray) -> np.ndarray:
        """The path acceleration at path `positions`: that of the knot interval each starts
        (the last interval's at the end).

        >>> SpeedProfile.limited(1.0, speed=1.0, acceleration=2.0).acceleration_where(
        ...     np.array([0.0, 0.5, 1.0])).tolist()
        [2.0, 0.0, -2.0]
        """
        if len(self.positions) == 1:
            return np.zeros(np.shape(positions))
        index = np.searchsorted(self.positions, positions, side="right") - 1
        return self.accelerations[np.clip(index, 0, len(self.positions) - 2)]

    def time_at(self, positions: np.ndarray) -> np.ndarray:
        """The time (s) each path position is reached (positions within the profile)."""
        positions = np.clip(np.asarray(positions, dtype=float), self.start, self.end)
        times = self.times
        index = np.clip(np.searchsorted(self.positions, positions, side="right") - 1,
                        0, max(0, len(times) - 2))  # fmt: skip
        if len(times) == 1:
            return np.zeros(positions.shape)
        into = positions - self.positions[index]
        v, a = self.speeds[index], self.accelerations[index]
        root = np.sqrt(np.maximum(v * v + 2.0 * a * into, 0.0))
        total = v + root
        dt = np.divide(2.0 * into, total, out=np.zeros_like(into), where=total > 0.0)
        return times[index] + dt

    def sample(self, period: float) -> np.ndarray:
        """Path positions one `period` (s) apart from one period after the start, the last one
        the end exactly (at least one)."""
        count = max(1, math.ceil(self.duration / period - _ROUNDING))
        positions = self.position_at(np.arange(1, count + 1, dtype=float) * period)
        positions[-1] = self.end
        at_end = np.flatnonzero(positions >= self.end)
        return positions[: at_end[0] + 1]  # the end once, however close to it the one before

    def after(self, position: float) -> SpeedProfile:
        """The rest of the profile from `position` on (its speed there first)."""
        later = self.positions > position
        return SpeedProfile(
            np.concatenate(([position], self.positions[later])),
            np.concatenate(([self.speed_where(position)], self.speeds[later])),
        )

    def lower(self, other: SpeedProfile) -> SpeedProfile:
        """The lower of the two speeds at every position where both are defined (both start
        at the same position): a motion that keeps both profiles' limits where each holds.
        v^2 is linear in p between knots, so the knots of both and the crossings suffice.

        >>> ramp = SpeedProfile.stopping(0.0, 1.0, 1.0)  # to rest at 0.5
        >>> flat = SpeedProfile(np.array([0.0, 1.0]), np.array([0.8, 0.8]))
        >>> lower = ramp.lower(flat)  # the flat speed until the ramp is lower, from 0.18 on
        >>> lower.positions.round(6).tolist(), lower.speeds.round(6).tolist()
        ([0.0, 0.18, 0.5], [0.8, 0.8, 0.0])
        """
        end = min(self.end, other.end)
        grid = np.unique(np.concatenate((self.positions, other.positions)))
        grid = grid[(grid >= max(self.start, other.start)) & (grid <= end)]
        mine = np.interp(grid, self.positions, self.speeds**2)
        theirs = np.interp(grid, other.positions, other.speeds**2)
        gap = mine - theirs
        crossing = np.flatnonzero(gap[:-1] * gap[1:] < 0.0)
        cross = grid[crossing] + gap[crossing] / (gap[crossing] - gap[crossing + 1]) * (
            grid[crossing + 1] - grid[crossing]
        )
        grid = np.sort(np.concatenate((grid, cross)))
        squared = np.minimum(
            np.interp(grid, self.positions, self.speeds**2),
            np.interp(grid, other.positions, other.speeds**2),
        )
        return SpeedProfile(grid, np.sqrt(np.maximum(squared, 0.0)))
