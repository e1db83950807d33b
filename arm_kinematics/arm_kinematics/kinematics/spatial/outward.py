"""The outward pitch and roll convention of a spatial arm's tool: a tool rotation as its pitch
above the horizontal and its roll about its own x axis, measured in the vertical half-plane
through the tool point facing away from the base z axis (`outward_angles`, for arrays too
`outward_angles_of`), and back (`outward_rotation`). Radians, the base frame (z up).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..angles import wrap_angle, wrap_angles
from ..array_api import array_namespace, where
from .rotations import tool_rotation


def outward_angles(
    x: float, y: float, rotation: np.ndarray, yaw_if_on_axis: float
) -> tuple[float, float, float]:
    """(pitch, roll, twist) of a tool `rotation` at a tool point (x, y, .) (m): the pitch of
    its x axis above the horizontal and the roll about it, measured in the point's vertical
    half-plane facing away from the base z axis (direction psi = atan2(y, x); on the axis,
    `yaw_if_on_axis`), so that rotation = Rz(psi) Ry(-pitch) Rx(roll) Rz(twist). `twist` is 0
    for every orientation a yaw-and-pitch arm can give; it is the part of a rotation no such
    arm gives (a turn about the tool's z axis). Of the two decompositions the one with the
    smaller twist is returned. (`outward_angles_of` is the formula, for arrays too.)

    >>> from arm_kinematics.kinematics.spatial.rotations import rot_y, rot_z
    >>> pitch, roll, twist = outward_angles(0.0, -0.2, rot_z(-math.pi / 2) @ rot_y(math.pi / 2), 0)
    >>> round(math.degrees(pitch), 6), abs(roll) < 1e-12, abs(twist) < 1e-12  # straight down
    (-90.0, True, True)
    """
    # Only five entries are read, as floats (numpy's 3x3 products cost more than the rest).
    (r00, r01, r02), (r10, r11, r12), (_, _, r22) = np.asarray(rotation, dtype=float).tolist()
    return outward_angles_of(x, y, (r00, r01, r02, r10, r11, r12, r22), yaw_if_on_axis)


def outward_angles_of(x: Any, y: Any, entries: Sequence[Any], yaw_if_on_axis: Any) -> tuple:
    """`outward_angles` from the rotation's entries (r00, r01, r02, r10, r11, r12, r22):
    floats for one tool, arrays for many (`array_api`).

    m = Rz(-psi) rotation = Ry(a) Rx(b) Rz(c), a = -pitch: a = atan2(m02, m22), b =
    atan2(-m12, sqrt(m10^2 + m11^2)) (the asin of -m12, precise also where the roll is near
    +-90 deg), c = atan2(m10, m11), and the other solution (a + pi, pi - b, c + pi).

    >>> [round(v, 9) + 0.0 for v in outward_angles_of(0.2, 0.0, (1, 0, 0, 0, 1, 0, 1), 0.0)]
    [0.0, 0.0, 0.0]
    """
    r00, r01, r02, r10, r11, r12, r22 = entries
    xp = array_namespace(x, y, r00)
    turn = wrap_angles if xp is np else wrap_angle
    psi = where(xp.sqrt(x * x + y * y) > 0.0, xp.atan2(y, x), yaw_if_on_axis)
    cos_psi, sin_psi = xp.cos(psi), xp.sin(psi)
    m02 = cos_psi * r02 + sin_psi * r12
    m10 = -sin_psi * r00 + cos_psi * r10
    m11 = -sin_psi * r01 + cos_psi * r11
    m12 = -sin_psi * r02 + cos_psi * r12
    a = xp.atan2(m02, r22)
    b = xp.atan2(-m12, xp.sqrt(m10 * m10 + m11 * m11))
    c = xp.atan2(m10, m11)
    other_a, other_b, other_c = turn(a + math.pi), turn(math.pi - b), turn(c + math.pi)
    flip = abs(other_c) < abs(c)
    a, b, c = where(flip, other_a, a), where(flip, other_b, b), where(flip, other_c, c)
    # b is within [-pi/2, pi/2] (an atan2 of a cosine >= 0) or already wrapped: as it is.
    return turn(-a) + 0.0, b + 0.0, turn(c) + 0.0  # + 0.0: never a negative zero


def outward_rotation(x: float, y: float, pitch: float, roll: float, yaw_if_on_axis: float):
    """The tool rotation (3x3) with `pitch` and `roll` (rad) in the outward convention at the
    tool point (x, y, .) m: Rz(psi) Ry(-pitch) Rx(roll) (see `outward_angles`; `tool_rotation`).

    >>> outward_rotation(0.2, 0.0, -math.pi / 2, 0.0, 0.0)[:, 0].round(9).tolist()  # x: down
    [0.0, 0.0, -1.0]
    """
    psi = math.atan2(y, x) if math.hypot(x, y) > 0.0 else yaw_if_on_axis
    return tool_rotation(psi, pitch, roll)
