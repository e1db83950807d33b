"""Elementary rotations and homogeneous transforms (numpy, right-handed, radians, metres).

The spatial arm chains only rotations about the coordinate axes, so these four lines are what it
needs; the nodes turn quaternions into matrices with transforms3d.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def rot_x(angle: float) -> np.ndarray:
    """Rotation by `angle` (rad) about x.

    >>> rot_x(math.pi / 2).round(9).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]
    """
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(angle: float) -> np.ndarray:
    """Rotation by `angle` (rad) about y (x turns toward -z).

    >>> rot_y(math.pi / 2).round(9).tolist()
    [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
    """
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(angle: float) -> np.ndarray:
    """Rotation by `angle` (rad) about z.

    >>> rot_z(math.pi / 2).round(9).tolist()
    [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def transform(rotation: np.ndarray, translation: Sequence[float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """The 4x4 homogeneous transform of a rotation (3x3) and a translation (m).

    >>> transform(np.eye(3), (1.0, 2.0, 3.0))[:3, 3].tolist()
    [1.0, 2.0, 3.0]
    """
    matrix = np.eye(4)
    matrix[:3, :3] = rotation
    matrix[:3, 3] = translation
    return matrix


def checked_rotation(rotation: Any) -> np.ndarray | None:
    """`rotation` as a 3x3 array when it is a rotation matrix (orthonormal to 1e-6, det +1;
    as `many.rotations_ok` checks many), else None.

    >>> checked_rotation(rot_z(0.3)) is not None, checked_rotation(2.0 * np.eye(3))
    (True, None)
    """
    try:
        matrix = np.asarray(rotation, dtype=float)
    except (TypeError, ValueError):
        return None
    if matrix.shape != (3, 3):
        return None
    (a, b, c), (d, e, f), (g, h, i) = matrix.tolist()
    if not math.isfinite(a + b + c + d + e + f + g + h + i):
        return None
    dots = (
        a * a + b * b + c * c - 1.0,
        d * d + e * e + f * f - 1.0,
        g * g + h * h + i * i - 1.0,
        a * d + b * e + c * f,
        a * g + b * h + c * i,
        d * g + e * h + f * i,
    )
    if max(map(abs, dots)) > 1e-6:
        return None
    if a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) < 0.0:
        return None
    return matrix
