"""Elementary rotations and homogeneous transforms (numpy, right-handed, radians, metres).

The spatial arm chains only rotations about the coordinate axes, so these lines are what it
needs (and its tool's rotation multiplied out, `tool_rotation`, for one pose or many); the nodes
turn quaternions into matrices with transforms3d.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..array_api import array_namespace


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


def tool_axes(yaw: Any, pitch: Any, roll: Any) -> tuple[tuple[Any, Any, Any], ...]:
    """The rows of Rz(yaw) Ry(-pitch) Rx(roll) (rad), multiplied out (`tool_rotation`'s matrix;
    its columns are the tool's x, y and z axes in the base frame): floats for one pose, arrays
    of one shape for many (`array_api`), with no array built for one pose.

    >>> [round(row[0], 9) for row in tool_axes(math.pi / 2, 0.0, 0.0)]  # x axis along +y
    [0.0, 1.0, 0.0]
    """
    xp = array_namespace(yaw, pitch, roll)
    cy, sy, cp, sp = xp.cos(yaw), xp.sin(yaw), xp.cos(pitch), xp.sin(pitch)
    cr, sr = xp.cos(roll), xp.sin(roll)
    return (
        (cy * cp, -cy * sp * sr - sy * cr, -cy * sp * cr + sy * sr),
        (sy * cp, -sy * sp * sr + cy * cr, -sy * sp * cr - cy * sr),
        (sp, cp * sr, cp * cr),
    )


def tool_rotation(yaw: Any, pitch: Any, roll: Any) -> np.ndarray:
    """Rz(yaw) Ry(-pitch) Rx(roll) (rad) as a matrix (`tool_axes`): the tool frame of an arm
    that yaws about z, pitches its x axis up by `pitch` and rolls about it. Floats give (3, 3);
    arrays of one shape S give S + (3, 3) (`array_api`: the same formula for one pose and for
    many).

    >>> expected = rot_z(0.3) @ rot_y(-0.2) @ rot_x(0.1)
    >>> bool(np.abs(tool_rotation(0.3, 0.2, 0.1) - expected).max() < 1e-15)
    True
    >>> tool_rotation(np.zeros(4), np.zeros(4), np.zeros(4)).shape
    (4, 3, 3)
    """
    rows = tool_axes(yaw, pitch, roll)
    if array_namespace(yaw, pitch, roll) is math:
        return np.array(rows)
    matrices = np.empty((*np.broadcast(yaw, pitch, roll).shape, 3, 3))
    for i, row in enumerate(rows):
        for j, entry in enumerate(row):
            matrices[..., i, j] = entry
    return matrices


def transform(rotation: np.ndarray, translation: Sequence[float] = (0.0, 0.0, 0.0)) -> np.ndarray:
    """The 4x4 homogeneous transform of a rotation (3x3) and a translation (m).

    >>> transform(np.eye(3), (1.0, 2.0, 3.0))[:3, 3].tolist()
    [1.0, 2.0, 3.0]
    """
    matrix = np.eye(4)
    matrix[:3, :3] = rotation
    matrix[:3, 3] = translation
    return matrix


def checked_rotation(rotation: Any) -> list[list[float]] | None:
    """`rotation`'s rows as floats when it is a rotation matrix (orthonormal to 1e-6, det +1;
    as `many.rotations_ok` checks many), else None.

    >>> checked_rotation(rot_z(0.0)), checked_rotation(2.0 * np.eye(3))
    ([[1.0, -0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], None)
    """
    try:
        matrix = np.asarray(rotation, dtype=float)
    except (TypeError, ValueError):
        return None
    if matrix.shape != (3, 3):
        return None
    rows = matrix.tolist()
    (a, b, c), (d, e, f), (g, h, i) = rows
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
    return rows
