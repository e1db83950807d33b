"""The arm as the envelope sees it: named points and the capsules between them.

Points, base to tip (metres, base frame): the joints of the arm's plane (a planar arm's every
joint, a spatial arm's pitch joints: the shoulder, the elbow, the wrist), the tool point, and
with a gripper or a tool beyond the tool point its fingertips:

- `tool_length` > 0: the fingers reach that far beyond the tool point along the tool's x axis
  (the URDF's fingers end at the tool point, so 0 there); their end is "the fingertips";
- `fingertip_half_width` > 0: the fingertips, at their widest, lie that far to either side of
  the tool's x axis along its y axis (the axis the URDF's fingers open along).

Segments: link i from joint i to the next joint (the last to the tool point), "the fingers"
from the tool point to their end, "the fingertips" from one fingertip to the other. Each is a
capsule of the envelope's link radius. The base and the yaw turret are not parts: they are the
base column the others must keep out of, and link 1 (on top of the column) is not checked
against it.

`points` gets the points from the arm model's own forward kinematics, one formula for one
pose on plain floats (`points`, what the envelope's cheap bound reads) and for many on arrays
(`points_many`): every joint's and the tool point's position (a planar chain's `chain_frames`,
a spatial chain's `frame_points`) and, for the fingertips, the tool's axes (a spatial chain's
`tool_axes`; a planar tool turned by its heading, its last frame's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..planar.chain import PlanarChain, chain_frames
from ..spatial.model import SpatialChain
from ..spatial.rotations import tool_axes

JOINT_ROLES = ("the shoulder", "the elbow", "the wrist")
LINK_ROLES = ("the upper arm", "the forearm", "the wrist link")
TOOL_POINT = "the tool point"
FINGERS = "the fingers"
FINGERTIPS = "the fingertips"


def _joint_name(index: int, joint_name: str, default: str) -> str:
    """'the elbow (joint3)': the role of the arm's plane's joint `index` (0-based), with the
    configured name where it says something else than the role or the model's `default`."""
    role = JOINT_ROLES[index] if index < len(JOINT_ROLES) else f"joint {index + 1}"
    plain = role.removeprefix("the ")
    return role if joint_name in (plain, default) else f"{role} ({joint_name})"


def _link_name(index: int) -> str:
    role = LINK_ROLES[index] if index < len(LINK_ROLES) else "the link"
    return f"{role} (link {index + 1})"


class ArmParts:
    """The named points and capsule segments of one arm model (`PlanarChain` or
    `SpatialChain`), and how fast its points can move per radian of each joint.

    Args:
        chain: the arm model.
        plane_z: a planar arm's plane (its z in the base frame), m; unused by a spatial arm.
        tool_length: how far the fingers reach beyond the tool point along the tool's x, m.
        fingertip_half_width: the fingertips' widest distance from the tool's x axis, m.

    The reference planar arm (links 1.0 and 0.8 m) with fingers 0.1 m long:

    >>> parts = ArmParts(PlanarChain((1.0, 0.8)), tool_length=0.1)
    >>> parts.point_names
    ('the shoulder', 'the elbow', 'the tool point', 'the fingertips')
    >>> parts.segment_names
    ('the upper arm (link 1)', 'the forearm (link 2)', 'the fingers')
    >>> parts.points_many(np.array([[0.0, math.pi / 2]]))[0].round(9).tolist()
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.8, 0.0], [1.0, 0.9, 0.0]]
    """

    def __init__(
        self,
        chain: PlanarChain | SpatialChain,
        *,
        plane_z: float = 0.0,
        tool_length: float = 0.0,
        fingertip_half_width: float = 0.0,
    ) -> None:
        for name, value in (("tool_length", tool_length), ("width", fingertip_half_width)):
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{name} {value!r} must be finite and >= 0 (m)")
        self.chain = chain
        self.spatial: bool = isinstance(chain, SpatialChain)
        self.plane_z: float = float(plane_z)
        self.tool_length: float = float(tool_length)
        self.fingertip_half_width: float = float(fingertip_half_width)
        first = 1 if self.spatial else 0  # a spatial arm's plane starts after the yaw
        links = len(chain.link_lengths)
        names = [
            _joint_name(i, chain.joint_names[first + i], f"joint {first + i + 1}")
            for i in range(links)
        ] + [TOOL_POINT]
        segments = [(i, i + 1) for i in range(links)]
        segment_names = [_link_name(i) for i in range(links)]
        if self.tool_length > 0.0:
            names.append(FINGERTIPS)
            segments.append((links, len(names) - 1))
            segment_names.append(FINGERS)
        if self.fingertip_half_width > 0.0:
            names += [FINGERTIPS, FINGERTIPS]
            segments.append((len(names) - 2, len(names) - 1))
            segment_names.append(FINGERTIPS)
        self.point_names: tuple[str, ...] = tuple(names)
        """Each point's name in messages, in the order of `points_many`'s points."""
        self.segments: np.ndarray = np.array(segments, dtype=int)
        """(S, 2) the point indices of each capsule's ends."""
        self.segment_names: tuple[str, ...] = tuple(segment_names)
        self.column_segments: np.ndarray = np.arange(1, len(segments))
        """The segments the base column must keep out: all but link 1, which stands on it."""
        self.motion_radii: np.ndarray = self._motion_radii()
        """(n,) m/rad: no point moves faster than this per rad/s of each joint."""

    def _motion_radii(self) -> np.ndarray:
        """Per joint, the farthest any point can be from the joint's axis, m (a point turning
        about an axis moves that distance per radian): what lies beyond the joint, stretched
        out, plus the fingers; a roll moves only the fingertips' width."""
        extra = self.tool_length + self.fingertip_half_width
        lengths = np.asarray(self.chain.link_lengths)
        beyond = np.cumsum(lengths[::-1])[::-1] + extra  # from each plane joint to the tip
        if not self.spatial:
            return beyond
        yaw = abs(self.chain.shoulder_forward) + beyond[0]
        roll = [self.fingertip_half_width] if self.chain.has_roll else []
        return np.array([yaw, *beyond, *roll])

    def points_many(self, joints: np.ndarray) -> np.ndarray:
        """Every point of the arm for each row of `joints` (N, n) rad: (N, P, 3) m in the base
        frame, in the order of `point_names` (`points` of the joints' columns)."""
        joints = np.asarray(joints, dtype=float).reshape(-1, self.chain.n_joints)
        values = self.points(list(joints.T))
        points = np.empty((len(joints), len(values), 3))
        for index, point in enumerate(values):
            for axis, value in enumerate(point):
                points[:, index, axis] = value
        return points

    def points(self, joints: Sequence[Any]) -> list[tuple[Any, Any, Any]]:
        """The points' (x, y, z) (m, base frame, in the order of `point_names`) for joints given
        one value per joint (rad): floats for one pose (no array made: what the envelope's
        cheap bound reads), arrays of one shape for many (`points_many`; `array_api`). The
        model's own forward kinematics (a planar chain's `chain_frames` in its plane at
        `plane_z`, a spatial chain's `frame_points`), and for the fingertips the tool's x and y
        axes (a planar tool's heading is its last frame's; a spatial tool's `tool_axes`).

        >>> parts = ArmParts(PlanarChain((1.0, 0.8)), tool_length=0.1)
        >>> [tuple(round(v, 9) + 0.0 for v in p) for p in parts.points((0.0, math.pi / 2))][1:]
        [(1.0, 0.0, 0.0), (1.0, 0.8, 0.0), (1.0, 0.9, 0.0)]
        """
        chain = self.chain
        if isinstance(chain, SpatialChain):
            k = chain.n_pitch
            yaw, pitches = joints[0], joints[1 : 1 + k]
            frames = chain.frame_points(yaw, pitches)  # base, yaw, link_1 .. link_k, [roll,] tool
            points = [*frames[2 : 2 + k], frames[-1]]
            if self.tool_length == self.fingertip_half_width == 0.0:
                return points
            rows = tool_axes(yaw, sum(pitches), joints[-1] if chain.has_roll else 0.0)
            along = (rows[0][0], rows[1][0], rows[2][0])
            across = (rows[0][1], rows[1][1], rows[2][1])
        else:
            plane = chain_frames(chain.link_lengths, joints)  # joint 1 (the base) .. the tip
            points = [(x, y, self.plane_z) for x, y, _, _ in plane]
            if self.tool_length == self.fingertip_half_width == 0.0:
                return points
            _, _, cos_heading, sin_heading = plane[-1]
            along, across = (cos_heading, sin_heading, 0.0), (-sin_heading, cos_heading, 0.0)
        x, y, z = points[-1]
        if self.tool_length > 0.0:  # the fingers' end, along the tool's x axis
            length = self.tool_length
            x, y, z = x + length * along[0], y + length * along[1], z + length * along[2]
            points.append((x, y, z))
        if self.fingertip_half_width > 0.0:  # the fingertips, either side along its y axis
            width = self.fingertip_half_width
            dx, dy, dz = width * across[0], width * across[1], width * across[2]
            points += [(x + dx, y + dy, z + dz), (x - dx, y - dy, z - dz)]
        return points
