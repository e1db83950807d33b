"""Angle helpers (radians)."""

from __future__ import annotations

import math

TAU = 2.0 * math.pi
"""One full turn, radians."""


def wrap_angle(angle: float) -> float:
    """The angle (rad) wrapped to (-pi, pi].

    >>> round(wrap_angle(math.radians(270.0)), 6) == round(math.radians(-90.0), 6)
    True
    >>> wrap_angle(-math.pi) == math.pi
    True
    """
    wrapped = math.remainder(angle, TAU)
    return math.pi if wrapped <= -math.pi else wrapped
