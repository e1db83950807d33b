"""The ways a spatial arm can face a target (`Side`), and what the planar solve answered on
one of them (`Attempt`): the values `arm.py` tries and `explain.py` puts into words, apart
from both so that neither imports the other; a side's yaw (and the roll joint) moved into its
limits (`fit_angle`), a roll matched (`same_angle`). Radians and metres, the base frame.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..angles import wrap_angle
from ..planar.limits import shift_range
from ..types import Answer, IkStatus

ROLL_MATCH_TOLERANCE = 1e-9
"""rad: how close a requested roll must be to 0 or pi on an arm without a wrist roll."""
FAILURE_ORDER = (
    IkStatus.INVALID_INPUT,
    IkStatus.TOO_FAR,
    IkStatus.TOO_CLOSE,
    IkStatus.ORIENTATION_UNREACHABLE,
    IkStatus.JOINT_LIMIT,
    IkStatus.OUTSIDE_WORKSPACE,
)
"""Failure statuses from farthest to nearest to a solution, for choosing which side reports."""


class Side(NamedTuple):
    """One way to face the target: the yaw (rad, within its limits) and whether the chain
    reaches over the back (then `planar_x` is measured in the mirrored plane)."""

    name: str  # "front", "back" or "axis"
    yaw: float
    back: bool
    planar_x: float  # the target ahead of the shoulder in the (possibly mirrored) plane, m

    @property
    def tool_roll(self) -> float:
        """The roll of the tool with the roll joint at 0: 0 from the front, pi over the back."""
        return math.pi if self.back else 0.0


class Attempt(NamedTuple):
    """A side and what the planar solve (and the roll) answered there: joints in joint order
    (an `Answer`: its words made when read)."""

    side: Side
    result: Answer


def same_angle(a: float, b: float) -> bool:
    """True when the angles `a` and `b` (rad) are one, to ROLL_MATCH_TOLERANCE."""
    return abs(wrap_angle(a - b)) <= ROLL_MATCH_TOLERANCE


def fit_angle(angle: float, limits: tuple[float, float], near: float | None) -> float | None:
    """`angle` (rad) moved by k * 2 pi into `limits`, the shift nearest `near` (else the
    smallest; a continuous joint's angle as it is), or None when no shift fits (the yaw of
    a side, the roll joint).

    >>> fit_angle(7.0, (-1.0, 1.0), None), fit_angle(3.0, (-1.0, 1.0), None)
    (0.7168146928204138, None)
    """
    lo, hi = limits
    if near is None and lo <= angle <= hi:
        return angle  # the common case: as it is
    if lo == -math.inf and hi == math.inf:
        if near is None:
            return wrap_angle(angle)
        return angle + round((near - angle) / (2 * math.pi)) * 2 * math.pi
    k_min, k_max = shift_range(angle, lo, hi)
    if k_min > k_max:
        return None
    wanted = 0 if near is None else round((near - angle) / (2 * math.pi))
    return angle + min(max(wanted, k_min), k_max) * 2 * math.pi
