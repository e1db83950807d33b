"""Angle helpers (radians)."""

from __future__ import annotations

import math

TAU = 2.0 * math.pi


def wrap_angle(angle: float) -> float:
    """The angle wrapped to (-pi, pi], radians."""
    wrapped = math.remainder(angle, TAU)
    return math.pi if wrapped <= -math.pi else wrapped
