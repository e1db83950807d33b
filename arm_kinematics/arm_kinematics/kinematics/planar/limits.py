"""Joint limits of a planar chain: kinds, 2 pi shifts, margins, violations.

A joint's limits are a `(min, max)` pair in radians; `(-inf, inf)` is a continuous joint, whose
angles are wrapped to (-pi, pi] and whose motion is measured the short way round. A limited
joint's angle is the value within its limits among `angle + k * 2 pi` (the one nearest a
reference when several fit), motion measured directly. An angle up to LIMIT_TOLERANCE (1e-9 rad)
outside a limit counts as within it and is kept as computed, never clamped: near full stretch a
target at a limit is ill-conditioned (rounding of 1e-16 m in the target moves the angles by up
to ~1e-8 rad). A link's absolute angle (the sum of joints 1..i) may have limits too
(`link_angle_limits`: a servo that sets it through a parallelogram linkage).

`JointLimits` is the part of `PlanarChain` (chain.py) that knows the limits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..angles import TAU, wrap_angle

LIMIT_TOLERANCE = 1e-9
"""rad: an angle this close outside a joint limit counts as within it (rounding; not clamped)."""

CONTINUOUS, NARROW, WIDE = "continuous", "narrow", "wide"
"""Kinds of joint: no limits; limits less than a turn apart; limits a turn or more apart."""


def joint_motion(
    from_joints: Sequence[float], to_joints: Sequence[float], kinds: Sequence[str]
) -> tuple[float, ...]:
    """Per-joint motion `to - from` (rad), the short way round for continuous joints.

    >>> [round(d, 3) for d in joint_motion((3.0, 3.0), (-3.0, -3.0), (CONTINUOUS, NARROW))]
    [0.283, -6.0]
    """
    return tuple(
        [
            wrap_angle(b - a) if kind == CONTINUOUS else b - a
            for a, b, kind in zip(from_joints, to_joints, kinds, strict=True)
        ]
    )


def shift_range(angle: float, lo: float, hi: float) -> tuple[float, float]:
    """The k for which `angle + k * 2 pi` (rad) lies within [lo, hi] (LIMIT_TOLERANCE of slack):
    (k_min, k_max), +-inf on an unbounded side, k_min > k_max when no shift fits.

    >>> shift_range(2.5 * math.pi, -math.pi / 2, math.pi / 2)
    (-1, -1)
    >>> shift_range(math.pi, -1.0, 1.0)
    (0, -1)
    """
    k_min = -math.inf if lo == -math.inf else math.ceil((lo - LIMIT_TOLERANCE - angle) / TAU)
    k_max = math.inf if hi == math.inf else math.floor((hi + LIMIT_TOLERANCE - angle) / TAU)
    return k_min, k_max


def fits_once(limits: tuple[float, float]) -> bool:
    """True when at most one k * 2 pi shift puts an angle within `limits` (rad), their
    LIMIT_TOLERANCE of slack included: limits less than a turn apart.

    >>> fits_once((-3.0, 3.0)), fits_once((-math.pi, math.pi)), fits_once((-4.0, 4.0))
    (True, False, False)
    """
    lo, hi = limits
    return hi - lo + 2.0 * LIMIT_TOLERANCE < TAU


def limit_kind(lo: float, hi: float) -> str:
    """CONTINUOUS, NARROW or WIDE for limits (lo, hi) in rad.

    >>> limit_kind(-math.inf, math.inf), limit_kind(-1.0, 1.0), limit_kind(-4.0, 4.0)
    ('continuous', 'narrow', 'wide')
    """
    if lo == -math.inf and hi == math.inf:
        return CONTINUOUS
    return WIDE if hi - lo >= TAU else NARROW


def checked_limits(joint_limits: Any, n: int, as_number) -> tuple[tuple[float, float], ...]:
    """`joint_limits` (None, or n pairs each None or (min, max), rad) as n (min, max) pairs,
    +-inf for an unbounded side; ValueError naming the bad pair. `as_number` reads a number.

    >>> checked_limits([None, (-1, 1)], 2, float)
    ((-inf, inf), (-1.0, 1.0))
    """
    if joint_limits is None:
        return ((-math.inf, math.inf),) * n
    try:
        pairs = list(joint_limits)
    except TypeError:
        raise ValueError(f"joint_limits {joint_limits!r} must be (min, max) pairs") from None
    if len(pairs) != n:
        raise ValueError(f"joint_limits {joint_limits!r} must give {n} (min, max) pairs")
    limits = []
    for index, pair in enumerate(pairs):
        if pair is None:
            limits.append((-math.inf, math.inf))
            continue
        try:
            lo_raw, hi_raw = pair
        except (TypeError, ValueError):
            raise ValueError(
                f"joint {index + 1} limits {pair!r} must be a (min, max) pair"
            ) from None
        lo, hi = as_number(lo_raw), as_number(hi_raw)
        if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
            raise ValueError(f"joint {index + 1} limits {pair!r} must be numbers")
        if lo > hi:
            raise ValueError(f"joint {index + 1} limits {pair!r}: min {lo} > max {hi}")
        if lo == math.inf or hi == -math.inf:
            raise ValueError(f"joint {index + 1} limits {pair!r} exclude every angle")
        limits.append((lo, hi))
    return tuple(limits)


class JointLimits:
    """The limit rules of a chain (mixed into `PlanarChain`, which sets the attributes read
    here: `joint_limits`, `joint_kinds`, `link_angle_limits`, `shifts_can_fit`, `n_joints`,
    and `checked_joints`). Radians throughout."""

    joint_limits: tuple[tuple[float, float], ...]
    joint_kinds: tuple[str, ...]
    link_angle_limits: tuple[tuple[float, float], ...] | None
    shifts_can_fit: bool
    _lows: tuple[float, ...]
    _highs: tuple[float, ...]

    def checked_joints(self, joints: Any) -> tuple[float, ...]:
        raise NotImplementedError

    def within_limits(self, joints: Sequence[float]) -> bool:
        """True when every joint (rad) lies within its limits (LIMIT_TOLERANCE rad of slack).

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> chain = PlanarChain((1.0, 0.8), [(-1.0, 1.0), (-1.0, 1.0)])
        >>> chain.within_limits((0.5, 1.0 + 1e-10)), chain.within_limits((0.5, 1.1))
        (True, False)
        """
        values = self.checked_joints(joints)
        return (
            all(
                lo - LIMIT_TOLERANCE <= q <= hi + LIMIT_TOLERANCE
                for q, (lo, hi) in zip(values, self.joint_limits, strict=True)
            )
            and self.link_angle_violation(values) is None
        )

    def joint_delta(self, from_joints: Sequence[float], to_joints: Sequence[float]) -> tuple:
        """Per-joint motion to - from, radians: short way round for continuous joints.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> [round(d, 3) for d in PlanarChain((1.0, 0.8)).joint_delta((3.0, 0.0), (-3.0, 0.5))]
        [0.283, 0.5]
        """
        return joint_motion(
            self.checked_joints(from_joints), self.checked_joints(to_joints), self.joint_kinds
        )

    def unwrap_near(self, joints: Sequence[float], reference: Sequence[float]) -> tuple[float, ...]:
        """`joints` with each continuous joint moved by k * 2 pi to lie nearest `reference`.

        Limited joints are returned unchanged (their angle is absolute). Radians.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> chain = PlanarChain((1.0, 0.8), [None, (-1.0, 1.0)])
        >>> [round(q, 3) for q in chain.unwrap_near((-3.0, 0.5), (3.0, 0.0))]
        [3.283, 0.5]
        """
        values = self.checked_joints(joints)
        ref = self.checked_joints(reference)
        return tuple(
            q + round((r - q) / TAU) * TAU if kind == CONTINUOUS else q
            for q, r, kind in zip(values, ref, self.joint_kinds, strict=True)
        )

    def fit_into_limits(
        self, joints: Sequence[float], reference: Sequence[float]
    ) -> tuple[float, ...] | None:
        """`joints` (rad) with each limited joint moved by k * 2 pi into its limits (nearest
        `reference` when several shifts fit), or None when some joint cannot be.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> chain = PlanarChain((1.0, 0.8), [(0.0, 7.0), (-1.0, 1.0)])
        >>> [round(q, 3) for q in chain.fit_into_limits((-3.0, 0.5), (0.0, 0.0))]
        [3.283, 0.5]
        >>> chain.fit_into_limits((0.0, 2.0), (0.0, 0.0)) is None
        True
        """
        fitted = tuple(joints)
        for index, (q, (lo, hi), kind) in enumerate(
            zip(joints, self.joint_limits, self.joint_kinds, strict=True)
        ):
            if kind == CONTINUOUS or (kind == NARROW and lo <= q <= hi):
                continue  # the common case: as it is
            k_min, k_max = shift_range(q, lo, hi)
            if k_min > k_max:
                return None
            turns = min(max(round((reference[index] - q) / TAU), k_min), k_max)
            fitted = (*fitted[:index], q + turns * TAU, *fitted[index + 1 :])
        return fitted

    def limit_margin(self, joints: Sequence[float]) -> float:
        """The smallest distance (rad) of any joint to one of its limits: negative when a joint
        is outside them, inf when no joint has limits. The MAX_LIMIT_MARGIN branch rule ranks
        elbows by it, and a joint within LIMIT_TOLERANCE outside a limit counts as within.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> round(PlanarChain((1.0, 0.8), [(-1.5, 1.5), None]).limit_margin((0.5, -1.2)), 6)
        1.0
        """
        margin = math.inf
        # zip without its strict keyword: passing a keyword to zip costs more than this
        # two-joint loop (the lengths are checked where the joints come in).
        for q, lo, hi in zip(joints, self._lows, self._highs):  # noqa: B905
            if q - lo < margin:
                margin = q - lo
            if hi - q < margin:
                margin = hi - q
        if self.link_angle_limits is not None:
            angle = 0.0
            for q, (lo, hi) in zip(joints, self.link_angle_limits):  # noqa: B905
                angle += q
                margin = min(margin, angle - lo, hi - angle)
        return margin

    def link_angle_violation(self, joints: Sequence[float]) -> tuple[int, float] | None:
        """(index, absolute angle) of the first link whose angle (sum of joints 1..i, rad) is
        outside its `link_angle_limits` (LIMIT_TOLERANCE of slack), or None.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> chain = PlanarChain((1.0, 0.8), link_angle_limits=[None, (-0.5, 0.5)])
        >>> chain.link_angle_violation((0.4, 0.3)), chain.link_angle_violation((0.4, -0.3))
        ((1, 0.7), None)
        """
        if self.link_angle_limits is None:
            return None
        angle = 0.0
        for index, (q, (lo, hi)) in enumerate(zip(joints, self.link_angle_limits, strict=True)):
            angle += q
            if not lo - LIMIT_TOLERANCE <= angle <= hi + LIMIT_TOLERANCE:
                return index, angle
        return None

    def limit_violation(self, joints: Sequence[float]) -> tuple[int, float] | None:
        """(index, angle) of the first joint that no 2 pi shift brings into its limits, or None.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> PlanarChain((1.0, 0.8), [(-1.0, 1.0), (-1.0, 1.0)]).limit_violation((0.5, 2.0))
        (1, 2.0)
        """
        for index, (q, (lo, hi), kind) in enumerate(
            zip(joints, self.joint_limits, self.joint_kinds, strict=True)
        ):
            if kind == CONTINUOUS:
                continue
            k_min, k_max = shift_range(q, lo, hi)
            if k_min > k_max:
                return index, q
        return None

    # --- the same rules on arrays: one column per joint, one row per pose ------------------

    def fit_into_limits_many(
        self, joints: Sequence[np.ndarray], reference: Sequence[Any]
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """`fit_into_limits` for many poses: `joints` one array (M,) per joint (rad),
        `reference` one array (or float) per joint; (the fitted columns, the rows where every
        joint could be fitted). A row that cannot be fitted keeps its angles.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> chain = PlanarChain((1.0, 0.8), [(0.0, 7.0), (-1.0, 1.0)])
        >>> fitted, ok = chain.fit_into_limits_many(
        ...     [np.array([-3.0, 0.0]), np.array([0.5, 2.0])], [0.0, 0.0])
        >>> np.round(fitted[0], 3).tolist(), ok.tolist()
        ([3.283, 0.0], [True, False])
        """
        fitted = []
        ok = np.ones(len(joints[0]), dtype=bool)
        for q, ref, (lo, hi), kind in zip(
            joints, reference, self.joint_limits, self.joint_kinds, strict=True
        ):
            if kind == CONTINUOUS:
                fitted.append(q)
                continue
            inside = (lo <= q) & (q <= hi) if kind == NARROW else np.zeros_like(ok)
            k_min = np.ceil((lo - LIMIT_TOLERANCE - q) / TAU) if lo > -math.inf else -np.inf
            k_max = np.floor((hi + LIMIT_TOLERANCE - q) / TAU) if hi < math.inf else np.inf
            fits = inside | (k_min <= k_max)
            turns = np.minimum(np.maximum(np.round((ref - q) / TAU), k_min), k_max)
            fitted.append(np.where(inside | ~fits, q, q + turns * TAU))
            ok &= fits
        return fitted, ok

    def limit_margin_many(self, joints: Sequence[np.ndarray]) -> np.ndarray:
        """`limit_margin` for many poses: one array (M,) per joint (rad) -> (M,) margins.

        >>> from arm_kinematics.kinematics import PlanarChain
        >>> chain = PlanarChain((1.0, 0.8), [(-1.5, 1.5), None])
        >>> chain.limit_margin_many([np.array([0.5, 1.4]), np.array([-1.2, 0.0])]).round(6).tolist()
        [1.0, 0.1]
        """
        margin = np.full(len(joints[0]), np.inf)
        for q, lo, hi in zip(joints, self._lows, self._highs, strict=True):
            if lo > -math.inf:
                margin = np.minimum(margin, q - lo)
            if hi < math.inf:
                margin = np.minimum(margin, hi - q)
        if self.link_angle_limits is not None:
            angle = 0.0
            for q, (lo, hi) in zip(joints, self.link_angle_limits, strict=True):
                angle = angle + q
                margin = np.minimum(margin, np.minimum(angle - lo, hi - angle))
        return margin
