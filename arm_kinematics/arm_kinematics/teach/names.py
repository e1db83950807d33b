"""The rules of a name and of a number in the teach files, and how this package says no.

A name is a YAML key and a file name: a letter, then letters, digits, `_` or `-`, at most 64
characters (no spaces, dots or slashes, so it never leaves its directory). `home` is the
built-in pose of the params file's `joints.*.home_deg`.
"""

from __future__ import annotations

import math
import re
from typing import Any

HOME = "home"
"""The built-in named pose: the params file's home (`joints.*.home_deg`)."""
NAME_RULE = "a letter, then letters, digits, '_' or '-', at most 64 characters"
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")


class TeachError(ValueError):
    """A named pose, a sequence or a file refused: the message says what is wrong and what
    to give instead."""


def checked_name(name: object, what: str) -> str:
    """`name` when it follows the rule, else TeachError naming `what` it was for.

    >>> checked_name("above_box", "a named pose")
    'above_box'
    >>> checked_name("above box", "a named pose")
    Traceback (most recent call last):
    ...
    arm_kinematics.teach.names.TeachError: 'above box' is not a name for a named pose: a \
letter, then letters, digits, '_' or '-', at most 64 characters
    """
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise TeachError(f"{name!r} is not a name for {what}: {NAME_RULE}")
    return name


def finite_number(value: Any, name: str) -> float:
    """`value` as a float when it is a finite number (not a bool), else TeachError naming it.

    >>> finite_number(3, "wait_s"), finite_number(0.5, "wait_s")
    (3.0, 0.5)
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TeachError(f"{name} must be a finite number, not {value!r}")
    return float(value)
