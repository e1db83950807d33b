"""The limits a jog keeps, and the two rules of its speed: how fast it may change, how it stops.

The tool's velocity changes by at most `tool_acceleration * period` per step, measured as the
speed of the tool point (turns weighted by `JogAxes.weights`): `toward`, a clip of the change
vector, which keeps the change's direction. A stop is a straight-line deceleration: every
coordinate (and every joint) slows in proportion, over `stop_time`, the longest of the tool's
stop at its acceleration limit and each joint's at its own, so that none exceeds its limit;
`braked` is one period of that stop. The stop's distance is what a step checks ahead
(`stop_displacement`): a step is taken only if the arm could stop after it within the limits.

Why not ruckig: its limits are per degree of freedom, while the tool's limit is on the length
of the velocity vector (a diagonal jog would get up to sqrt(3) times the limit, or a third of
it per axis); without a jerk limit (the configuration has none) its profile toward a target
velocity is this clip, and its stop this trapezoid; and each step's state is the solver's
answer, not the profile's, so ruckig would be asked anew every period with only its first step
used. Seconds, metres, radians.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class JogLimits:
    """The limits of one arm's jog: the command `period` (s), per joint the velocity (rad/s)
    and acceleration (rad/s^2) limits, the tool's acceleration limit (m/s^2, inf: none) and
    `max_joint_step` (rad): a joint moving more in one period is a jump (a branch flip)."""

    period: float
    joint_velocities: tuple[float, ...]
    joint_accelerations: tuple[float, ...]
    tool_acceleration: float = math.inf
    max_joint_step: float = math.radians(10.0)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.period) and self.period > 0.0):
            raise ValueError(f"period {self.period!r} must be > 0 s")
        if len(self.joint_velocities) != len(self.joint_accelerations):
            raise ValueError("one velocity and one acceleration limit per joint")
        for value in (*self.joint_velocities, *self.joint_accelerations, self.tool_acceleration):
            if not value > 0.0:
                raise ValueError(f"limit {value!r} must be > 0")


def weighted_norm(vector: np.ndarray, weights: Sequence[float]) -> float:
    """|vector| with each coordinate times its weight (m/s for a task velocity).

    >>> weighted_norm(np.array([0.03, 0.04, 1.0]), (1.0, 1.0, 0.0))
    0.05
    """
    return float(np.linalg.norm(np.asarray(vector) * np.asarray(weights)))


def toward(
    velocity: np.ndarray, goal: np.ndarray, weights: Sequence[float], most: float
) -> np.ndarray:
    """`velocity` moved toward `goal` by at most `most` (weighted, e.g. m/s) in one step.

    >>> toward(np.zeros(2), np.array([0.3, 0.4]), (1.0, 1.0), 0.05).round(6).tolist()
    [0.03, 0.04]
    """
    change = goal - velocity
    size = weighted_norm(change, weights)
    if size <= most:
        return goal.copy()
    return velocity + change * (most / size)


def stop_time(
    speed: float,
    tool_acceleration: float,
    joint_velocities: np.ndarray,
    joint_accelerations: Sequence[float],
) -> float:
    """Seconds a straight-line stop from `speed` (m/s, weighted) with these joint velocities
    (rad/s) takes when neither the tool (m/s^2) nor any joint (rad/s^2) exceeds its limit.

    >>> stop_time(0.06, 0.3, np.array([0.5, 1.0]), (2.0, 2.0))
    0.5
    """
    tool = speed / tool_acceleration if math.isfinite(tool_acceleration) else 0.0
    joints = np.abs(joint_velocities) / np.asarray(joint_accelerations, dtype=float)
    return max(tool, float(joints.max(initial=0.0)))


def braked(velocity: np.ndarray, period: float, time_to_stop: float) -> np.ndarray:
    """`velocity` one `period` (s) into a straight-line stop that takes `time_to_stop` (s):
    every coordinate slowed in proportion, zero once the stop is done.

    >>> braked(np.array([0.04, -0.02]), 0.02, 0.1).round(6).tolist()
    [0.032, -0.016]
    """
    if time_to_stop <= period:
        return np.zeros_like(velocity)
    return velocity * (1.0 - period / time_to_stop)


def stop_displacement(velocity: np.ndarray, period: float, time_to_stop: float) -> np.ndarray:
    """How far a straight-line stop from `velocity` goes (per coordinate), with one `period`
    more than the continuous stop: the steps are whole periods.

    >>> stop_displacement(np.array([0.05]), 0.02, 0.2).round(6).tolist()
    [0.006]
    """
    return velocity * (0.5 * time_to_stop + period)
