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

`points_many` gets the points from the arm model's own forward kinematics on arrays: every link
frame's position (`chain_points_many`) and, for the fingertips, the tool's rotation (a spatial
chain's `tool_rotations_many`; a planar tool turned by its heading, the sum of its joints).
"""

from __future__ import annotations

import math

import numpy as np

from ..planar.chain import PlanarChain
from ..spatial.model import SpatialChain
from ..spatial.rotations import tool_rotation

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
        frame, in the order of `point_names`."""
        joints = np.asarray(joints, dtype=float).reshape(-1, self.chain.n_joints)
        plane = _plane_points(self.chain, joints, self.plane_z)
        if self.tool_length == self.fingertip_half_width == 0.0:
            return plane
        rotations = _tool_rotations(self.chain, joints)
        extra = []
        tool = plane[:, -1]
        if self.tool_length > 0.0:
            tool = tool + self.tool_length * rotations[:, :, 0]
            extra.append(tool)
        if self.fingertip_half_width > 0.0:
            side = self.fingertip_half_width * rotations[:, :, 1]
            extra += [tool + side, tool - side]
        return np.concatenate((plane, np.stack(extra, axis=1)), axis=1)


def _plane_points(
    chain: PlanarChain | SpatialChain, joints: np.ndarray, plane_z: float
) -> np.ndarray:
    """The arm's plane's joints and the tool point (N, k + 1, 3) for joints (N, n), from the
    model's forward kinematics on arrays (`chain_points_many`)."""
    frames = chain.chain_points_many(joints)  # base, [yaw,] link_1 .. link_k, [roll,] tool
    if isinstance(chain, SpatialChain):
        k = chain.n_pitch
        return np.concatenate((frames[:, 2 : 2 + k], frames[:, -1:]), axis=1)
    points = frames[:, 1:]  # link_1 is on joint 1's axis, at the base
    points[:, :, 2] = plane_z
    return points


def _tool_rotations(chain: PlanarChain | SpatialChain, joints: np.ndarray) -> np.ndarray:
    """The tool's rotation (N, 3, 3) for joints (N, n): a spatial chain's own, a planar tool
    turned about z by its heading (the sum of its joint angles)."""
    if isinstance(chain, SpatialChain):
        return chain.tool_rotations_many(joints)
    zero = np.zeros(len(joints))
    return tool_rotation(joints.sum(axis=1), zero, zero)
