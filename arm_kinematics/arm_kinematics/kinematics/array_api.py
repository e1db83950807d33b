"""Formulas written once for one target and for many: floats or numpy arrays alike.

numpy 2 spells the functions of the Python array API standard as `math` spells them (`sqrt`,
`cos`, `sin`, `atan2`, `acos`, `hypot`), so a formula that takes its namespace from its
arguments runs on one target as plain floats (`math`, a fraction of a microsecond a call) and
on N targets as arrays (numpy, one pass over all of them), with the same text. A formula here
uses arithmetic and those functions only; where one target needs an `if`, the arrays need a
mask, and that choice is the caller's.
"""

from __future__ import annotations

import math
from types import ModuleType

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
