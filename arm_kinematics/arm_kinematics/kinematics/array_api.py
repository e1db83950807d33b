"""Formulas written once for one target and for many: floats or numpy arrays alike.

numpy 2 spells the functions of the Python array API standard as `math` spells them (`sqrt`,
`cos`, `sin`, `atan2`), so a formula that takes its namespace from its
arguments runs on one target as plain floats (`math`, a fraction of a microsecond a call) and
on N targets as arrays (numpy, one pass over all of them), with the same text. A formula here
uses arithmetic and those functions only; where one target needs an `if`, the arrays need a
mask, and that choice is the caller's.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np


def array_namespace(*values: object) -> ModuleType:
    """numpy when any of `values` is a numpy array, else `math`.

    >>> array_namespace(1.0, 2.0).__name__, array_namespace(1.0, np.zeros(3)).__name__
    ('math', 'numpy')
    """
    for value in values:
        if isinstance(value, np.ndarray):
            return np
    return math


def where(condition: Any, if_true: Any, if_false: Any) -> Any:
    """`if_true` where `condition` holds, else `if_false`: numpy's `where` on arrays, a plain
    choice on floats (both values are computed first either way).

    >>> where(True, 1.0, 2.0), where(np.array([True, False]), 1.0, 2.0).tolist()
    (1.0, [1.0, 2.0])
    """
    if isinstance(condition, np.ndarray):
        return np.where(condition, if_true, if_false)
    return if_true if condition else if_false


def clip(value: Any, lo: float, hi: float) -> Any:
    """`value` within [lo, hi] (NaN stays NaN).

    >>> clip(1.5, -1.0, 1.0), clip(np.array([-2.0, 0.5]), -1.0, 1.0).tolist()
    (1.0, [-1.0, 0.5])
    """
    if isinstance(value, np.ndarray):
        return np.clip(value, lo, hi)
    return value if value != value else min(max(value, lo), hi)


def norm(x: Any, y: Any) -> Any:
    """sqrt(x^2 + y^2): the length of (x, y), the same bits on floats and arrays (math.hypot
    and numpy's hypot are different algorithms, an ulp apart at times).

    >>> norm(3.0, 4.0), norm(np.array([3.0]), np.array([4.0])).tolist()
    (5.0, [5.0])
    """
    xp = array_namespace(x, y)
    return xp.sqrt(x * x + y * y)


def hypot(x: Any, y: Any) -> Any:
    """The length of (x, y) by C's hypot on floats and arrays alike (numpy's hypot calls it;
    math.hypot is an algorithm of its own, an ulp apart at times).

    >>> hypot(3.0, 4.0), hypot(np.array([3.0]), np.array([4.0])).tolist()
    (5.0, [5.0])
    """
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return np.hypot(x, y)
    return abs(complex(x, y))


def arccos(cosine: Any) -> Any:
    """acos (rad, in [0, pi]) of a cosine within [-1, 1], as atan2(sqrt((1 - c)(1 + c)), c):
    the same bits on floats and arrays (numpy's acos and math's differ by an ulp at times,
    and an ulp decides at the edge of a reachable band), and precise near +-1.

    >>> arccos(-1.0) == math.pi, arccos(np.array([0.5])).round(12).tolist()
    (True, [1.047197551197])
    """
    xp = array_namespace(cosine)
    return xp.atan2(xp.sqrt((1.0 - cosine) * (1.0 + cosine)), cosine)


def arcsin(sine: Any) -> Any:
    """asin (rad, in [-pi/2, pi/2]) of a sine within [-1, 1], as atan2(s, sqrt((1 - s)(1 +
    s))): the same bits on floats and arrays (see `arccos`).

    >>> arcsin(1.0) == math.pi / 2, arcsin(np.array([0.5])).round(12).tolist()
    (True, [0.523598775598])
    """
    xp = array_namespace(sine)
    return xp.atan2(sine, xp.sqrt((1.0 - sine) * (1.0 + sine)))


def acos_or_nan(cosine: Any, slack: float = 0.0) -> Any:
    """acos (rad, in [0, pi]) of `cosine`, NaN where |cosine| > 1 + `slack` (no such angle;
    within the slack, the cosine is taken as +-1).

    >>> acos_or_nan(1.0 + 1e-15, 1e-12), acos_or_nan(2.0) != acos_or_nan(2.0)
    (0.0, True)
    """
    if isinstance(cosine, np.ndarray):
        inside = np.abs(cosine) <= 1.0 + slack
        return np.where(inside, arccos(np.clip(cosine, -1.0, 1.0)), np.nan)
    if not abs(cosine) <= 1.0 + slack:
        return math.nan
    return arccos(min(max(cosine, -1.0), 1.0))
