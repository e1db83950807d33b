"""Angle helpers (radians)."""

from __future__ import annotations

import math

import numpy as np

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


def wrap_angles(angles: np.ndarray) -> np.ndarray:
    """`wrap_angle` of every element (rad, to (-pi, pi]): the angle less the nearest whole
    number of turns (within 1e-15 rad of `wrap_angle` for angles of a few turns; numpy has no
    IEEE remainder).

    >>> wrap_angles(np.array([math.radians(270.0), -math.pi, math.pi])).round(6).tolist()
    [-1.570796, 3.141593, 3.141593]
    """
    wrapped = angles - TAU * np.round(angles / TAU)
    return np.where(wrapped <= -math.pi, wrapped + TAU, wrapped)


def wrap(angle):
    """`wrap_angle` of a float, `wrap_angles` of an array (rad, to (-pi, pi]).

    >>> wrap(3 * math.pi / 2) == wrap_angle(3 * math.pi / 2), wrap(np.array([-math.pi])).tolist()
    (True, [3.141592653589793])
    """
    return wrap_angles(angle) if isinstance(angle, np.ndarray) else wrap_angle(angle)
