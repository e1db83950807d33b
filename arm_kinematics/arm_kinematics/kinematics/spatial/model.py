"""The spatial arm: a base yaw about z, a vertical chain of 2 or 3 pitch joints, a wrist roll.

Pure numpy. Metres and radians, base frame (z up). Joint order: yaw, pitch_1 .. pitch_k, then
the roll when the arm has one.

Geometry (what the URDF of the same config chains, joint by joint):

- the yaw turns about the base z axis; it sets the arm's vertical plane, whose forward axis is
  `f = (cos yaw, sin yaw, 0)`;
- the shoulder (pitch_1's axis) is `shoulder_height` above the base origin and
  `shoulder_forward` along f;
- pitch joints turn about the plane's lateral axis (-y of the yawed frame), so a positive angle
  raises the link; link i's frame is at `q_1 + .. + q_i` above the horizontal;
- link i is the straight line of length L_i at `delta_i` (its angle offset: a bent link) from
  its frame's x axis, from its joint to the next joint (the last one to the tool point);
- the roll turns about the tool's own x axis; the tool frame is at the tool point with the last
  link's frame turned by the roll: R_tool = Rz(yaw) Ry(-pitch_frame) Rx(roll).

The pitch joints are a planar chain in the (forward, up) plane with its origin at the shoulder:
`vertical` is a `PlanarArm` of the straight links, whose ("geometric") joint angles are
phi_1 = q_1 + delta_1 and phi_i = q_i + delta_i - delta_(i-1) (`planar_joints`), its joint
limits shifted the same way, its heading phi_1 + .. + phi_k = pitch_frame + delta_k. The planar
core solves that plane; this module only turns angles and points between the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..array_api import array_namespace
from ..planar.arm import PlanarArm
from ..planar.chain import as_number, chain_frames
from ..planar.limits import CONTINUOUS, fits_once
from .outward import outward_angles, outward_rotation  # noqa: F401 (model's names before)
from .rotations import rot_x, rot_y, rot_z, tool_rotation, transform

MIN_PITCH_JOINTS, MAX_PITCH_JOINTS = 2, 3


@dataclass(frozen=True)
class ToolPose:
    """The tool frame in the base frame: position (m), rotation (3x3), and its pitch and roll
    in the outward convention (`outward_angles`), radians."""

    x: float
    y: float
    z: float
    rotation: np.ndarray
    pitch: float
    roll: float

    @property
    def position(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.z)


class SpatialChain:
    """The model of a yaw joint under a vertical chain of 2 or 3 pitch joints, optionally a wrist
    roll: geometry, joint angles, forward kinematics, limits (`SpatialArm` adds the solve).

    Args:
        link_lengths: the pitch links' straight lengths L_1..L_k, m (k = 2 or 3).
        joint_limits: (min, max) per joint in joint order (yaw, pitches, roll), radians; None
            (or a None pair) for a continuous joint.
        shoulder_height, shoulder_forward: the shoulder axis above the base origin and ahead of
            the yaw axis, m.
        link_angle_offsets: delta_i per pitch link, rad (default zeros).
        has_roll: the last joint is a wrist roll.
        link_angle_limits: None, or per pitch joint None or (min, max) of the link frame's angle
            above the horizontal (q_1 + .. + q_i), rad: a parallelogram servo's travel.
        singularity_margin, edge_tolerance: as PlanarArm's (the vertical chain's); a target
            within `edge_tolerance` of the yaw axis has no direction.
        joint_names: names in joint order, for messages.

    The 6-servo desk kit's arm (yaw, shoulder, elbow, wrist pitch, wrist roll), all joints at 0:
    the links lie forward, horizontally, at the shoulder's height.

    >>> arm = SpatialChain((0.10, 0.09, 0.06), shoulder_height=0.07, has_roll=True)
    >>> tool = arm.forward((0.0, 0.0, 0.0, 0.0, 0.0))
    >>> round(tool.x, 9), round(tool.z, 9), tool.pitch, tool.roll
    (0.25, 0.07, 0.0, 0.0)

    Raises:
        ValueError: naming the bad value.
    """

    layout = "spatial"

    def __init__(
        self,
        link_lengths: Sequence[float],
        joint_limits: Sequence[tuple[float, float] | None] | None = None,
        *,
        shoulder_height: float = 0.0,
        shoulder_forward: float = 0.0,
        link_angle_offsets: Sequence[float] | None = None,
        has_roll: bool = False,
        link_angle_limits: Sequence[tuple[float, float] | None] | None = None,
        singularity_margin: float = 0.02,
        edge_tolerance: float = 1e-6,
        joint_names: Sequence[str] | None = None,
    ) -> None:
        k = len(tuple(link_lengths))
        if not MIN_PITCH_JOINTS <= k <= MAX_PITCH_JOINTS:
            raise ValueError(f"link_lengths {tuple(link_lengths)!r} must give 2 or 3 pitch links")
        n = 1 + k + (1 if has_roll else 0)
        self.n_joints: int = n
        self.n_pitch: int = k
        self.has_roll: bool = bool(has_roll)
        self.shoulder_height: float = _finite(shoulder_height, "shoulder_height")
        self.shoulder_forward: float = _finite(shoulder_forward, "shoulder_forward")
        offsets = (0.0,) * k if link_angle_offsets is None else tuple(link_angle_offsets)
        if len(offsets) != k:
            raise ValueError(f"link_angle_offsets {offsets!r} must give {k} angles (rad)")
        self.link_angle_offsets: tuple[float, ...] = tuple(
            _finite(v, "link angle offset") for v in offsets
        )
        self.planar_shifts: tuple[float, ...] = self._planar_shifts()
        """phi_i - q_i per pitch joint (rad): `planar_joints` adds them, `pitch_joints` takes
        them off."""
        self.bent: bool = any(shift != 0.0 for shift in self.planar_shifts)
        """Some link is bent: the plane's angles differ from the pitch joints."""
        names = tuple(f"joint {i + 1}" for i in range(n)) if joint_names is None else joint_names
        self.joint_names: tuple[str, ...] = tuple(str(name) for name in names)
        if len(self.joint_names) != n:
            raise ValueError(f"joint_names {joint_names!r} must give {n} names")
        limits = _limit_pairs(joint_limits, n)
        self.joint_limits: tuple[tuple[float, float], ...] = limits
        self.joint_kinds: tuple[str, ...] = tuple(
            CONTINUOUS if (lo, hi) == (-math.inf, math.inf) else "limited" for lo, hi in limits
        )
        """CONTINUOUS or "limited" per joint, in joint order (for the least-motion rule)."""
        self.yaw_limits: tuple[float, float] = limits[0]
        self.yaw_fits_once: bool = fits_once(self.yaw_limits)
        """At most one k * 2 pi shift puts a yaw within its limits (less than a turn apart):
        the seed's yaw cannot choose it."""
        self.roll_limits: tuple[float, float] | None = limits[-1] if has_roll else None
        self.roll_fits_once: bool = has_roll and fits_once(limits[-1])
        """As `yaw_fits_once`, for the roll joint."""
        planar = {
            "singularity_margin": singularity_margin,
            "edge_tolerance": edge_tolerance,
            "joint_names": self.joint_names[1 : 1 + k],
        }
        front, back = self._vertical_chains(link_lengths, link_angle_limits, planar)
        self.vertical: PlanarArm = front
        """The pitch joints as the planar chain of the arm's vertical plane, facing forward."""
        self.vertical_back: PlanarArm = back
        """The same chain seen from behind (`mirror`): reaching over the back is reaching
        forward for it, and its elbow names stay the physical ones (elbow up above the line)."""
        self.link_lengths: tuple[float, ...] = self.vertical.link_lengths
        self.reach: float = self.vertical.reach
        """The tool point's largest distance from the shoulder, m."""
        self.near_axis: float = self.vertical.singularity_margin * self.reach
        """m: a tool point nearer the yaw axis is SINGULAR (the yaw turns fast there)."""
        self.singularity_margin: float = self.vertical.singularity_margin
        self.edge_tolerance: float = self.vertical.edge_tolerance

    def _vertical_chains(
        self,
        link_lengths: Sequence[float],
        link_angle_limits: Sequence[tuple[float, float] | None] | None,
        planar: dict,
    ) -> tuple[PlanarArm, PlanarArm]:
        """The vertical plane's planar chain facing forward and seen from behind, with the
        pitch joints' limits in the planar chain's angles (the link offsets shifted in)."""
        k = self.n_pitch
        pitch_limits = [
            (lo + shift, hi + shift)
            for (lo, hi), shift in zip(
                self.joint_limits[1 : 1 + k], self.planar_shifts, strict=True
            )
        ]
        link_limits = None
        if link_angle_limits is not None:
            # Link i's frame angle is phi_1 + .. + phi_i - delta_i.
            link_limits = [
                (lo + delta, hi + delta)
                for (lo, hi), delta in zip(
                    _limit_pairs(link_angle_limits, k), self.link_angle_offsets, strict=True
                )
            ]
        front = PlanarArm(link_lengths, pitch_limits, link_angle_limits=link_limits, **planar)
        back = PlanarArm(
            link_lengths,
            [_mirror_limits(pair, first=i == 0) for i, pair in enumerate(pitch_limits)],
            link_angle_limits=None
            if link_limits is None
            else [_mirror_limits(pair, first=True) for pair in link_limits],
            **planar,
        )
        return front, back

    position_dims = 3
    """A tool pose's coordinates: x, y and z (then the pitch and the roll)."""

    @property
    def angle_radii(self) -> tuple[float, float]:
        """m per rad of a pitch and of a roll turn: the last link swings with the pitch, the
        tool point stays put when it rolls."""
        return (self.link_lengths[-1], 0.0)

    def tool_vector(self, joints: Sequence[float]) -> tuple[float, float, float, float, float]:
        """The tool pose as the planner reads it: (x, y, z, pitch, roll), m and rad (outward).

        >>> SpatialChain((0.1, 0.08)).tool_vector((0.0, 0.0, 0.0))
        (0.18, 0.0, 0.0, 0.0, 0.0)
        """
        tool = self.forward(joints)
        return (tool.x, tool.y, tool.z, tool.pitch, tool.roll)

    def unwrap_near(self, joints: Sequence[float], reference: Sequence[float]) -> tuple[float, ...]:
        """`joints` with each continuous joint moved by k * 2 pi to lie nearest `reference`
        (limited joints unchanged). Radians.

        >>> chain = SpatialChain((0.1, 0.08))
        >>> [round(q, 3) for q in chain.unwrap_near((-3.0, 0.0, 0.0), (3.0, 0.0, 0.0))]
        [3.283, 0.0, 0.0]
        """
        return tuple(
            q + round((r - q) / (2 * math.pi)) * 2 * math.pi if kind == CONTINUOUS else q
            for q, r, kind in zip(joints, reference, self.joint_kinds, strict=True)
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(link_lengths={self.link_lengths!r}, "
            f"joint_limits={self.joint_limits!r}, "
            f"shoulder_height={self.shoulder_height!r}, shoulder_forward="
            f"{self.shoulder_forward!r}, link_angle_offsets={self.link_angle_offsets!r}, "
            f"has_roll={self.has_roll!r})"
        )

    # --- joint angles <-> the vertical plane's geometric angles ---------------------------------

    def _planar_shifts(self) -> tuple[float, ...]:
        """phi_i - q_i for each pitch joint: delta_i - delta_(i-1) (delta_0 = 0)."""
        deltas = self.link_angle_offsets
        return tuple(d - (deltas[i - 1] if i else 0.0) for i, d in enumerate(deltas))

    def planar_joints(self, pitch_joints: Sequence[float]) -> tuple[float, ...]:
        """The vertical chain's geometric angles phi (rad) of pitch joint angles q (rad).

        >>> SpatialChain((0.13, 0.12), link_angle_offsets=(0.5, 0.0)).planar_joints((0.1, 0.2))
        (0.6, -0.3)
        """
        if not self.bent:
            return tuple(pitch_joints)
        return tuple([q + s for q, s in zip(pitch_joints, self.planar_shifts, strict=True)])

    def pitch_joints(self, planar: Sequence[float]) -> tuple[float, ...]:
        """The pitch joint angles q (rad) of the vertical chain's geometric angles phi (rad).

        >>> SpatialChain((0.13, 0.12), link_angle_offsets=(0.5, 0.0)).pitch_joints((0.6, -0.3))
        (0.09999999999999998, 0.2)
        """
        if not self.bent:
            return tuple(planar)
        return tuple([phi - s for phi, s in zip(planar, self.planar_shifts, strict=True)])

    @staticmethod
    def mirror(planar: Sequence[float]) -> tuple[float, ...]:
        """The vertical chain's angles seen from behind (the plane's forward axis reversed):
        phi_1 -> pi - phi_1, the others change sign. Its own inverse.

        >>> [round(v, 9) for v in SpatialChain.mirror((0.5, -0.25, 0.1))]
        [2.641592654, 0.25, -0.1]
        """
        return (math.pi - planar[0], *(-phi for phi in planar[1:]))

    def split(self, joints: Sequence[float]) -> tuple[float, tuple[float, ...], float]:
        """(yaw, the pitch joints, roll) of a joint vector (roll 0.0 without a roll joint)."""
        k = self.n_pitch
        return joints[0], tuple(joints[1 : 1 + k]), (joints[-1] if self.has_roll else 0.0)

    def checked_joints(self, joints: object) -> tuple[float, ...]:
        """`joints` as n finite floats (rad); ValueError naming the value else."""
        try:
            values = tuple(float(q) for q in joints)  # type: ignore[union-attr]
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"joints {joints!r} must be {self.n_joints} numbers") from None
        if len(values) != self.n_joints or not all(math.isfinite(q) for q in values):
            raise ValueError(f"joints {joints!r} must be {self.n_joints} finite numbers")
        return values

    # --- forward kinematics --------------------------------------------------------------------

    def frame_points(self, yaw: Any, pitches: Sequence[Any]) -> list[tuple[Any, Any, Any]]:
        """(x, y, z) in the base frame (m) of every `link_frames` frame for the yaw and the pitch
        joints (rad): floats for one pose, arrays of one shape for many (`array_api`).

        The vertical chain's frames (`chain_frames` of the planar core, in the geometric angles
        `planar_joints`) from the shoulder, then turned by the yaw: a point `forward` m ahead of
        the yaw axis and `up` m above the shoulder is (forward cos yaw, forward sin yaw, up + h).

        >>> arm = SpatialChain((0.1, 0.08), shoulder_height=0.05)
        >>> points = arm.frame_points(0.0, (0.0, math.pi / 2))
        >>> [tuple(round(v, 9) + 0.0 for v in point) for point in points][2:]
        [(0.0, 0.0, 0.05), (0.1, 0.0, 0.05), (0.1, 0.0, 0.13)]
        """
        xp = array_namespace(yaw, *pitches)
        shifts = self.planar_shifts
        planar = [q + shift for q, shift in zip(pitches, shifts, strict=True)]
        cos_yaw, sin_yaw = xp.cos(yaw), xp.sin(yaw)
        points = []
        for x_plane, z_plane, _, _ in chain_frames(self.link_lengths, planar):
            forward = self.shoulder_forward + x_plane
            points.append((forward * cos_yaw, forward * sin_yaw, self.shoulder_height + z_plane))
        zero = 0.0 * cos_yaw + 0.0  # a NaN row stays NaN; never -0.0
        origin = (zero, zero, zero)
        tool = points[-1]
        return [origin, origin, *points[:-1], *([tool] if self.has_roll else []), tool]

    def link_frames(self, joints: Sequence[float]) -> list[np.ndarray]:
        """Every frame of the URDF from the base to the tool as 4x4 transforms in the base
        frame: the base, the yaw link, link_1 .. link_k (each on its pitch joint's axis,
        turned by it), the roll link (with a roll joint) and the tool. Names: `frame_roles`.
        Positions: `frame_points`; link i turned by Rz(yaw) Ry(-(q_1 + .. + q_i)) (Rx(roll)).

        >>> arm = SpatialChain((0.1, 0.08), shoulder_height=0.05)
        >>> frames = arm.link_frames((math.pi / 2, 0.0, math.pi / 2))
        >>> [f[:3, 3].round(9).tolist() for f in frames]
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.05], [0.0, 0.1, 0.05], [0.0, 0.1, 0.13]]
        """
        yaw, pitches, roll = self.split(self.checked_joints(joints))
        turn = rot_z(yaw)
        rotations = [np.eye(3), turn]
        pitch = 0.0
        for q in pitches:
            pitch += q
            rotations.append(turn @ rot_y(-pitch))
        if self.has_roll:
            rotations.append(rotations[-1] @ rot_x(roll))
        rotations.append(rotations[-1])
        points = self.frame_points(yaw, pitches)
        return [transform(r, p) for r, p in zip(rotations, points, strict=True)]

    def chain_points_many(self, joints: Any) -> np.ndarray:
        """The positions of every `link_frames` frame for many poses at once: joints (N, n)
        (rad, joint order) -> (N, P, 3) (m, base frame), P = len(frame_roles()): the base, the
        yaw link (both at the origin), link_1 (the shoulder, `shoulder_height` up and
        `shoulder_forward` ahead), each later pitch joint's axis (after the bent links), the
        roll link (with a roll joint) and the tool point (both at the tool point). A NaN
        joint gives NaN in the coordinates it moves.

        >>> arm = SpatialChain((0.1, 0.08), shoulder_height=0.05)
        >>> points = arm.chain_points_many([[math.pi / 2, 0.0, math.pi / 2]])
        >>> points.shape, points[0, -1].round(9).tolist()
        ((1, 5, 3), [0.0, 0.1, 0.13])
        """
        values = np.asarray(joints, dtype=float).reshape(-1, self.n_joints)
        columns = list(values.T)
        frames = self.frame_points(columns[0], columns[1 : 1 + self.n_pitch])
        points = np.empty((len(values), len(frames), 3))
        for index, point in enumerate(frames):
            for axis, value in enumerate(point):
                points[:, index, axis] = value
        return points

    def frame_roles(self) -> list[str]:
        """What each `link_frames` entry is: "base", "yaw", "link_1".."link_k", "roll", "tool"
        (the URDF names them base_frame, yaw_link, link_1.., roll_link, tip_frame)."""
        links = [f"link_{i + 1}" for i in range(self.n_pitch)]
        return ["base", "yaw", *links, *(["roll"] if self.has_roll else []), "tool"]

    def forward(self, joints: Sequence[float]) -> ToolPose:
        """The tool frame (`ToolPose`) in the base frame for the joints (rad): the tool point of
        `frame_points`, turned by Rz(yaw) Ry(-(q_1 + .. + q_k)) Rx(roll).

        The reference: links 0.1 and 0.08 m, shoulder 0.05 m up, yaw 90 deg, elbow 90 deg up:
        the tool 0.1 m along +y, 0.08 m above the shoulder, pointing up.

        >>> arm = SpatialChain((0.1, 0.08), shoulder_height=0.05)
        >>> tool = arm.forward((math.pi / 2, 0.0, math.pi / 2))
        >>> [round(v, 9) for v in tool.position], round(math.degrees(tool.pitch), 6)
        ([0.0, 0.1, 0.13], 90.0)
        """
        yaw, pitches, roll = self.split(self.checked_joints(joints))
        x, y, z = self.frame_points(yaw, pitches)[-1]
        rotation = tool_rotation(yaw, math.fsum(pitches), roll)
        pitch, tool_roll, _ = outward_angles(x, y, rotation, yaw)
        return ToolPose(x, y, z, rotation, pitch, tool_roll)

    def manipulability(self, joints: Sequence[float]) -> float:
        """sqrt(det(Jp Jp^T)) of the tool point's position Jacobian (m^3): the vertical
        chain's (m^2) times the tool's distance from the yaw axis (m), since the yaw's column
        is that long and normal to the vertical plane, where the pitch columns lie; 0 on the
        yaw axis and at the chain's own singularities.

        >>> round(SpatialChain((0.1, 0.08)).manipulability((0.3, 0.0, math.pi / 2)), 12)
        0.0008
        """
        _, pitches, _ = self.split(self.checked_joints(joints))
        planar = self.planar_joints(pitches)
        forward = self.shoulder_forward + self.vertical.forward(planar)[0]
        return abs(forward) * self.vertical.manipulability(planar)

    def limit_margin(self, joints: Sequence[float]) -> float:
        """The smallest distance (rad) of any joint to a limit (link angles included)."""
        yaw, pitches, roll = self.split(joints)
        margin = self.vertical.limit_margin(self.planar_joints(pitches))
        pairs = [(yaw, self.yaw_limits)]
        if self.roll_limits is not None:
            pairs.append((roll, self.roll_limits))
        return min(margin, *(min(q - lo, hi - q) for q, (lo, hi) in pairs))

    def within_limits(self, joints: Sequence[float]) -> bool:
        """True when every joint (rad) lies within its limits, the link angles within theirs."""
        yaw, pitches, roll = self.split(self.checked_joints(joints))
        if not self.vertical.within_limits(self.planar_joints(pitches)):
            return False
        angles = [(yaw, self.yaw_limits)]
        if self.roll_limits is not None:
            angles.append((roll, self.roll_limits))
        return all(lo - 1e-9 <= q <= hi + 1e-9 for q, (lo, hi) in angles)


def _mirror_limits(pair: tuple[float, float], first: bool) -> tuple[float, float]:
    """Limits of a mirrored angle: pi - phi for the first joint (and every link angle), -phi
    for the others."""
    lo, hi = pair
    return (math.pi - hi, math.pi - lo) if first else (-hi, -lo)


def _finite(value: object, name: str) -> float:
    number = as_number(value)
    if number is None or not math.isfinite(number):
        raise ValueError(f"{name} {value!r} must be a finite number")
    return number


def _limit_pairs(
    limits: Sequence[tuple[float, float] | None] | None, n: int
) -> tuple[tuple[float, float], ...]:
    """(min, max) per joint, +-inf for a continuous joint; ValueError when malformed."""
    if limits is None:
        return ((-math.inf, math.inf),) * n
    pairs = list(limits)
    if len(pairs) != n:
        raise ValueError(f"joint_limits {limits!r} must give {n} (min, max) pairs")
    checked = []
    for index, pair in enumerate(pairs):
        if pair is None:
            checked.append((-math.inf, math.inf))
            continue
        lo, hi = (as_number(v) for v in pair)
        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise ValueError(f"joint {index + 1} limits {pair!r} must be numbers, min <= max")
        checked.append((lo, hi))
    return tuple(checked)
