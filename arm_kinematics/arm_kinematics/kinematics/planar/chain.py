"""The planar serial chain: its validated geometry, forward kinematics and Jacobian.

Conventions: lengths in metres, angles in radians, joint angles relative (link i's absolute
angle is the sum of joints 1..i; 0 means link i is in line with link i-1, link 1 along +x of the
base frame), counter-clockwise positive seen from +z. A pose is `(x, y, heading)` in the base
frame, heading being the absolute angle of the last link. The joint limits and their rules are
`limits.py` (`JointLimits`, which `PlanarChain` mixes in).

Forward kinematics is one formula (`chain_frames`) for one pose (`frames`, `link_frames`,
`forward`) and for many (`chain_points_many`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..array_api import array_namespace
from .limits import (
    CONTINUOUS,
    LIMIT_TOLERANCE,
    JointLimits,
    checked_limits,
    limit_kind,
)

MIN_LINK_LENGTH = 1e-9
"""m: the shortest supported link (keeps the closed forms clear of underflow)."""
MAX_LINK_LENGTH = 1e9
"""m: the longest supported link (keeps the closed forms clear of overflow)."""


def as_number(value: Any) -> float | None:
    """float(value) for a real number (any finiteness, numpy scalars too), else None.

    >>> as_number(2), as_number("2"), as_number(True)
    (2.0, None, None)
    """
    if type(value) is float:
        return value
    if isinstance(value, float):  # numpy.float64 and other subclasses: a plain float
        return float(value)
    if isinstance(value, str | bytes | bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


class PlanarChain(JointLimits):
    """The model of a planar serial arm of n >= 2 revolute joints, one link after each joint.

    Args:
        link_lengths: link lengths L1..Ln, metres, each finite and > 0 (and within
            [MIN_LINK_LENGTH, MAX_LINK_LENGTH] = [1e-9, 1e9] m).
        joint_limits: None (every joint continuous) or one `(min, max)` pair per joint, radians
            (a pair may be None or use +-inf for an unbounded side).
        singularity_margin: IK flags SINGULAR when |sin(joint 2)| of the (wrist) 2R solve is
            below this; 0 <= margin < 1.
        edge_tolerance: metres; a target (wrist point for 3R) this close outside the reachable
            ring is solved on its edge and flagged SINGULAR.
        joint_names: optional names used in messages ("joint 1".. by default).
        link_angle_limits: None, or per joint None or a `(min, max)` pair (radians) that bounds
            the link's absolute angle, the sum of joints 1..i (a servo that sets a link's angle
            through a parallelogram linkage instead of its joint). Checked wherever the joint
            limits are.

    Raises:
        ValueError: naming the bad value.

    >>> chain = PlanarChain((1.0, 0.8), [(-math.pi / 2, math.pi / 2), None])
    >>> chain.n_joints, chain.reach, chain.ring
    (2, 1.8, (0.19999999999999996, 1.8))
    >>> PlanarChain((1.0, -0.8))
    Traceback (most recent call last):
    ValueError: link length 2 = -0.8 must be finite and > 0
    """

    def __init__(
        self,
        link_lengths: Sequence[float],
        joint_limits: Sequence[tuple[float, float] | None] | None = None,
        *,
        singularity_margin: float = 0.02,
        edge_tolerance: float = 1e-6,
        joint_names: Sequence[str] | None = None,
        link_angle_limits: Sequence[tuple[float, float] | None] | None = None,
    ) -> None:
        lengths = _checked_lengths(link_lengths)
        n = len(lengths)
        self.link_lengths: tuple[float, ...] = lengths
        self.n_joints: int = n
        self.reach: float = math.fsum(lengths)
        """The tip's largest distance from the base, metres."""
        self.ring: tuple[float, float] = (max(0.0, 2.0 * max(lengths) - self.reach), self.reach)
        """Tip distances from the base that some configuration reaches, metres (n joints)."""
        l1, l2 = lengths[0], lengths[1]
        self.ring_12: tuple[float, float] = (abs(l1 - l2), l1 + l2)
        """Distances from the base that the end of link 2 reaches, metres: the ring of the 2R
        part (for 3R, of the wrist point)."""
        self.joint_limits: tuple[tuple[float, float], ...] = checked_limits(
            joint_limits, n, as_number
        )
        self._lows = tuple(lo for lo, _ in self.joint_limits)
        self._highs = tuple(hi for _, hi in self.joint_limits)
        self.joint_kinds: tuple[str, ...] = tuple(
            limit_kind(lo, hi) for lo, hi in self.joint_limits
        )
        """CONTINUOUS, NARROW or WIDE per joint."""
        self.has_limits: bool = any(kind != CONTINUOUS for kind in self.joint_kinds)
        self.shifts_can_fit: bool = _shifts_can_fit(self.joint_limits, self.joint_kinds)
        """True when some joint's limits reach (-pi, pi]'s ends: an angle in (-pi, pi] may then
        fit its limits only once moved by k * 2 pi (`fit_into_limits`); else it fits as it is
        or not at all."""
        margin = as_number(singularity_margin)
        if margin is None or not 0.0 <= margin < 1.0:
            raise ValueError(f"singularity_margin {singularity_margin!r} must be in [0, 1)")
        tolerance = as_number(edge_tolerance)
        if tolerance is None or not (math.isfinite(tolerance) and tolerance >= 0.0):
            raise ValueError(f"edge_tolerance {edge_tolerance!r} must be finite and >= 0")
        self.singularity_margin: float = margin
        self.edge_tolerance: float = tolerance
        if joint_names is None:
            names = tuple(f"joint {i + 1}" for i in range(n))
        else:
            names = tuple(str(name) for name in joint_names)
            if len(names) != n:
                raise ValueError(f"joint_names {joint_names!r} must give {n} names")
        self.joint_names: tuple[str, ...] = names
        self.link_angle_limits: tuple[tuple[float, float], ...] | None = None
        """(min, max) of each link's absolute angle (sum of joints 1..i), radians, or None."""
        if link_angle_limits is not None:
            checked = checked_limits(link_angle_limits, n, as_number)
            if any(pair != (-math.inf, math.inf) for pair in checked):
                self.link_angle_limits = checked
                self.has_limits = True

    position_dims = 2
    """A tool pose's coordinates: x and y (then the heading)."""

    @property
    def angle_radii(self) -> tuple[float, ...]:
        """m per rad of a heading turn: the last link's length (how far the wrist swings)."""
        return (self.link_lengths[-1],)

    def tool_vector(self, joints: Sequence[float]) -> tuple[float, float, float]:
        """The tool pose (x, y, heading) in the base frame (m, m, rad): `forward`, under the
        name the planner reads for every kind of arm."""
        return self.forward(joints)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(link_lengths={self.link_lengths!r}, "
            f"joint_limits={self.joint_limits!r}, "
            f"singularity_margin={self.singularity_margin!r}, "
            f"edge_tolerance={self.edge_tolerance!r})"
        )

    # --- forward kinematics ---------------------------------------------------------------

    def checked_joints(self, joints: Any) -> tuple[float, ...]:
        """`joints` as n finite floats (rad); ValueError naming the value else.

        >>> PlanarChain((1.0, 0.8)).checked_joints([0, 1])
        (0.0, 1.0)
        """
        try:
            values = tuple(float(q) for q in joints)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"joints {joints!r} must be {self.n_joints} numbers") from None
        if len(values) != self.n_joints:
            raise ValueError(
                f"joints {joints!r} has {len(values)} values, the arm has {self.n_joints} joints"
            )
        if not all(math.isfinite(q) for q in values):
            raise ValueError(f"joints {values!r} must be finite")
        return values

    def frames(self, joints: Sequence[float]) -> list[tuple[float, float, float]]:
        """Every frame from the base to the tip as (x, y, heading) (m, m, rad in (-pi, pi]),
        n+1 entries, base first (`chain_frames`).

        >>> chain = PlanarChain((1.0, 0.8))
        >>> [tuple(round(v, 4) for v in f) for f in chain.frames((0.0, math.pi / 2))]
        [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 0.8, 1.5708)]

        Raises:
            ValueError: wrong number of joints or a non-finite value.
        """
        frames = chain_frames(self.link_lengths, self.checked_joints(joints))
        return [(x, y, math.atan2(s, c)) for x, y, c, s in frames]

    def link_frames(self, joints: Sequence[float]) -> list[tuple[float, float, float]]:
        """The frames of the URDF's links from the base to the tip as (x, y, heading) in the
        base frame (m, m, rad): the base; link k on joint k's axis, turned by joints 1..k; the
        tip. n + 2 entries, the names TF gives them (base_link, link_1 .. link_n, tool0).

        `frames` gives the same positions, each turned as the link that ends there.

        >>> chain = PlanarChain((1.0, 0.8))
        >>> [tuple(round(v, 4) for v in f) for f in chain.link_frames((0.0, math.pi / 2))]
        [(0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (1.0, 0.0, 1.5708), (1.0, 0.8, 1.5708)]
        """
        frames = self.frames(joints)
        links = [(x, y, h) for (x, y, _), (_, _, h) in itertools.pairwise(frames)]
        return [frames[0], *links, frames[-1]]

    def chain_points_many(self, joints: Any) -> np.ndarray:
        """The positions of every `link_frames` frame for many poses at once: joints (N, n)
        (rad) -> (N, n + 2, 3) (m, base frame): the base, link_1 .. link_n (each on its
        joint's axis: joint 1's is the base) and the tip, in the arm's plane at z = 0 (the
        model's plane; a node adds the plane's height). A NaN joint gives NaN in the points
        it moves.

        >>> chain = PlanarChain((1.0, 0.8))
        >>> chain.chain_points_many([[0.0, math.pi / 2]]).round(4).tolist()
        [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.8, 0.0]]]
        """
        values = np.asarray(joints, dtype=float).reshape(-1, self.n_joints)
        frames = chain_frames(self.link_lengths, list(values.T))
        points = np.zeros((len(values), self.n_joints + 2, 3))
        for index, (x, y, _, _) in enumerate([frames[0], *frames]):
            points[:, index, 0], points[:, index, 1] = x, y
        return points

    def forward(self, joints: Sequence[float]) -> tuple[float, float, float]:
        """The tip's (x, y, heading) in the base frame (m, m, rad in (-pi, pi]).

        The reference arm: links 1.0 and 0.8 m, joints 30 and 45 degrees.

        >>> x, y, heading = PlanarChain((1.0, 0.8)).forward((math.radians(30), math.radians(45)))
        >>> round(x, 4), round(y, 4), round(math.degrees(heading), 6)
        (1.0731, 1.2727, 75.0)
        """
        x, y, c, s = chain_frames(self.link_lengths, self.checked_joints(joints))[-1]
        return x, y, math.atan2(s, c)

    def jacobian(self, joints: Sequence[float]) -> np.ndarray:
        """Geometric Jacobian (3, n): rows d x, d y (m/rad) and d heading (1) of the tip per
        joint; column i is (-(y_tip - y_i), x_tip - x_i, 1) for joint i at (x_i, y_i).

        >>> PlanarChain((1.0, 0.8)).jacobian((0.0, 0.0)).round(6).tolist()
        [[-0.0, -0.0], [1.8, 0.8], [1.0, 1.0]]
        """
        frames = self.frames(joints)
        tip_x, tip_y, _ = frames[-1]
        jac = np.empty((3, self.n_joints))
        for i in range(self.n_joints):
            ox, oy, _ = frames[i]
            jac[0, i] = -(tip_y - oy)
            jac[1, i] = tip_x - ox
            jac[2, i] = 1.0
        return jac

    def manipulability(self, joints: Sequence[float]) -> float:
        """Yoshikawa manipulability sqrt(det(Jp Jp^T)) of the position rows Jp (m^2).

        For 2R it equals L1 * L2 * |sin(theta_2)|; 0 at full stretch or full fold.

        >>> round(PlanarChain((1.0, 0.8)).manipulability((0.3, math.pi / 2)), 12)
        0.8
        """
        return manipulability_of_frames(self.frames(joints))


def chain_frames(lengths: Sequence[float], joints: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Forward kinematics of a planar chain: (x, y, cos, sin) of every frame from the base to
    the tip (m, and the cos and sin of the link's absolute angle), n+1 entries, base first.

    The product of one homogeneous transform per link, Rot_z(theta_i) * Trans_x(L_i), kept as
    (x, y, cos, sin) of the running transform. `joints` (rad) are n floats for one pose, or n
    arrays of one shape for many (`array_api`): the same formula either way.

    >>> [tuple(round(v, 4) for v in f) for f in chain_frames((1.0, 0.8), (0.0, math.pi / 2))]
    [(0.0, 0.0, 1.0, 0.0), (1.0, 0.0, 1.0, 0.0), (1.0, 0.8, 0.0, 1.0)]
    """
    xp = array_namespace(*joints)
    x = y = 0.0
    c, s = 1.0, 0.0
    frames: list[tuple[Any, ...]] = [(x, y, c, s)]
    for theta, length in zip(joints, lengths):  # noqa: B905 (checked by the callers)
        ct, st = xp.cos(theta), xp.sin(theta)
        c, s = c * ct - s * st, s * ct + c * st
        x = x + length * c
        y = y + length * s
        frames.append((x, y, c, s))
    return frames


def manipulability_of_frames(frames: Sequence[Sequence[float]]) -> float:
    """sqrt(det(Jp Jp^T)) (m^2) from the positions (x, y, ...) of the joints and the tip, base
    first, in metres (as `PlanarChain.frames` gives them; only x and y are read).

    Cauchy-Binet: det(Jp Jp^T) is the sum of the squared 2x2 minors of Jp, and the minor of
    columns i, j is the cross product of (tip - origin_i) and (tip - origin_j).

    >>> manipulability_of_frames([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 0.8, 1.5708)])
    0.8
    """
    tip_x, tip_y = frames[-1][0], frames[-1][1]
    total = 0.0
    seen: list[tuple[float, float]] = []  # tip - origin of the joints before this one
    for frame in frames[:-1]:
        ax, ay = tip_x - frame[0], tip_y - frame[1]
        for bx, by in seen:
            cross = bx * ay - by * ax
            total += cross * cross
        seen.append((ax, ay))
    return math.sqrt(total)


def _shifts_can_fit(limits: Sequence[tuple[float, float]], kinds: Sequence[str]) -> bool:
    """True when some limited joint's limits reach (-pi, pi]'s ends (rad)."""
    return any(
        kind != CONTINUOUS and (lo - LIMIT_TOLERANCE <= -math.pi or hi + LIMIT_TOLERANCE > math.pi)
        for kind, (lo, hi) in zip(kinds, limits, strict=True)
    )


def _checked_lengths(link_lengths: Any) -> tuple[float, ...]:
    if isinstance(link_lengths, str | bytes):
        raise ValueError(f"link_lengths {link_lengths!r} must be a sequence of numbers")
    try:
        raw = list(link_lengths)
    except TypeError:
        raise ValueError(f"link_lengths {link_lengths!r} must be a sequence of numbers") from None
    if len(raw) < 2:
        raise ValueError(f"link_lengths {raw!r} must give at least 2 links")
    lengths = []
    for index, value in enumerate(raw):
        length = as_number(value)
        if length is None or not math.isfinite(length) or length <= 0.0:
            raise ValueError(f"link length {index + 1} = {value!r} must be finite and > 0")
        if not MIN_LINK_LENGTH <= length <= MAX_LINK_LENGTH:
            raise ValueError(
                f"link length {index + 1} = {value!r} m is outside the supported range "
                f"[{MIN_LINK_LENGTH:g}, {MAX_LINK_LENGTH:g}] m"
            )
        lengths.append(length)
    return tuple(lengths)
