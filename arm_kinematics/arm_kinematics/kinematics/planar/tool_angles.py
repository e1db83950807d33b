"""The tool headings of a 3R chain that reach a target, in closed form, and the heading taken
where none is requested and there is no seed.

A 3R chain (links L1, L2, L3) puts its tip at P = (x, y) with heading h when the wrist point
W(h) = P - L3 (cos h, sin h) lies on the ring of links 1-2 (`heading_band`), and with its joints
within their limits when no joint (or link angle) has crossed one of its limits. Each limit is a
heading where a joint equals a value v (`joint_value_headings`): a triangle with two known
sides and the law of cosines again, so at most two headings per value:

- joint 1 = v puts the elbow at E = L1 (cos v, sin v), and W is L2 from E and L3 from P;
- joint 2 = v puts W at a fixed distance from the base: sqrt(L1^2 + L2^2 + 2 L1 L2 cos v);
- joint 3 = v makes links 2-3 one rigid body |L2 + L3 e^(iv)| long from E to P;
- link 2's absolute angle = v puts E L3 from Q = P - L2 (cos v, sin v), and L1 from the base;
- link 3's absolute angle is the heading itself.

Between two such headings the joints within the limits stay so: the feasible headings are
intervals whose ends are among these (`limit_headings`). Without a seed the solve takes the
feasible heading nearest the one pointing away from the base, atan2(y, x): that one itself, or
the nearest reachable one, or the nearest end of a feasible interval; ties (1e-12 rad) to the
counter-clockwise side (`nearest_heading` on arrays, `nearest_feasible` for one target). With a
seed, the least motion from it: `least_motion.py`.

Floats for one target or arrays of targets alike (`array_api`). Metres and radians, the chain's
plane, relative joint angles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..angles import TAU
from ..array_api import acos_or_nan, arccos, array_namespace, clip, hypot, norm, where
from .closed_form import triangle_cosine
from .limits import CONTINUOUS

if TYPE_CHECKING:
    from .chain import PlanarChain

TIE = 1e-12
"""rad: candidate headings this close in distance are a tie (the counter-clockwise one wins)."""
SLACK = 1e-12
"""A cosine this far beyond +-1 is taken as +-1 (a tangency, up to rounding)."""


def heading_band(
    lengths: Sequence[float], x: Any, y: Any, edge_tolerance: float = 0.0
) -> tuple[Any, Any, Any]:
    """(phi, delta_lo, delta_hi): the headings h (rad) for which the 3R chain `lengths` (m)
    reaches (x, y) (m) are those with delta_lo <= |wrap(h - phi)| <= delta_hi, phi = atan2(y,
    x); NaN bounds where none does.

    |W|^2 = r^2 + L3^2 - 2 r L3 cos(h - phi) must lie within [inner^2, outer^2] of links 1-2,
    which bounds cos(h - phi) from both sides (the law of cosines). A tip on the edge of its
    own ring (within `edge_tolerance`, m) gets the single heading that brings the wrist nearest
    to the 2R ring (h = phi or phi + pi); a tip at the base every heading (or none).

    >>> [round(math.degrees(v)) for v in heading_band((1.0, 0.8, 0.3), 2.0, 0.0)]
    [0, 0, 45]
    >>> [round(math.degrees(v)) for v in heading_band((1.0, 0.5, 0.6), 1.0, 0.0)]
    [0, 22, 138]
    """
    l1, l2, l3 = lengths
    inner, outer = abs(l1 - l2), l1 + l2
    xp = array_namespace(x, y)
    r = norm(x, y)
    phi = xp.atan2(y, x)
    at_base = r < 1e-12 * (l1 + l2 + l3)
    radius = where(at_base, 1.0, r)  # no division by zero; the base's band is set below
    cos_max = triangle_cosine(radius, l3, inner)  # |W| >= inner  <=>  cos(h - phi) <= cos_max
    cos_min = triangle_cosine(radius, l3, outer)  # |W| <= outer  <=>  cos(h - phi) >= cos_min
    delta_lo = arccos(clip(cos_max, -1.0, 1.0))
    delta_hi = arccos(clip(cos_min, -1.0, 1.0))
    # The wrist cannot get out to the inner edge (only h = phi + pi comes nearest), or in to
    # the outer edge (only h = phi): reached within the tolerance, or not at all.
    missed = ((cos_max < -1.0) & (r + l3 < inner - edge_tolerance)) | (
        (cos_min > 1.0) & (abs(r - l3) > outer + edge_tolerance)
    )
    base_missed = not inner - edge_tolerance <= l3 <= outer + edge_tolerance
    empty = where(at_base, base_missed, missed)
    delta_lo = where(at_base, 0.0, delta_lo)
    delta_hi = where(at_base, math.pi, delta_hi)
    return phi, where(empty, math.nan, delta_lo), where(empty, math.nan, delta_hi)


def reachable_headings(
    lengths: Sequence[float], x: float, y: float, edge_tolerance: float = 0.0
) -> list[tuple[float, float]]:
    """The headings of `heading_band` as increasing intervals (rad, possibly beyond (-pi,
    pi]), the counter-clockwise one first; [] where none reaches (x, y).

    >>> def degrees(intervals):
    ...     return [(round(math.degrees(lo)), round(math.degrees(hi))) for lo, hi in intervals]
    >>> degrees(reachable_headings((1.0, 0.8, 0.3), 2.0, 0.0))
    [(-45, 45)]
    >>> degrees(reachable_headings((1.0, 0.5, 0.6), 1.0, 0.0))  # the wrist must clear the hole
    [(22, 138), (-138, -22)]
    """
    phi, delta_lo, delta_hi = heading_band(lengths, x, y, edge_tolerance)
    if delta_lo != delta_lo:  # NaN: none
        return []
    if delta_lo == 0.0:
        if delta_hi >= math.pi:
            return [(phi - math.pi, phi + math.pi)]
        return [(phi - delta_hi, phi + delta_hi)]
    if delta_hi >= math.pi:
        return [(phi + delta_lo, phi + TAU - delta_lo)]
    return [(phi + delta_lo, phi + delta_hi), (phi - delta_hi, phi - delta_lo)]


def joint_value_headings(
    lengths: Sequence[float], x: Any, y: Any, which: str, value: float
) -> tuple[Any, Any]:
    """The (at most two) headings (rad; NaN where none) at which the 3R chain `lengths` (m)
    reaching (x, y) (m) has `which` ("joint 1", "joint 2", "joint 3", "link 2" or "link 3":
    a joint angle or a link's absolute angle) equal to `value` (rad), on either elbow.

    >>> chain = (1.0, 0.8, 0.3)
    >>> sorted(round(math.degrees(h), 3) for h in joint_value_headings(chain, 1.0, 1.0,
    ...                                                                  "joint 3", 0.0))
    [0.261, 89.739]
    """
    return _value_headings(_Target(x, y), lengths, which, value)


class _Target:
    """What every `joint_value_headings` of one target (or one array of targets) needs: the
    point (m), its direction phi and distance r from the base (NaN at the base), and the
    namespace of its formulas (`array_api`)."""

    def __init__(self, x: Any, y: Any) -> None:
        self.x, self.y = x, y
        self.xp = array_namespace(x, y)
        self.phi = self.xp.atan2(y, x)
        self.r = _positive(norm(x, y))


def _value_headings(
    target: _Target, lengths: Sequence[float], which: str, value: Any
) -> tuple[Any, Any]:
    """`joint_value_headings` of a `_Target`; `value` (rad) one for every target, or an array
    of one per target (a seed's joints)."""
    l1, l2, l3 = lengths
    x, y, xp, phi, r = target.x, target.y, target.xp, target.phi, target.r
    vp = array_namespace(value)  # the value's own namespace: math for one value
    if which == "joint 1":  # W is L2 from E and L3 from P: the angle at P
        ex, ey = l1 * vp.cos(value) - x, l1 * vp.sin(value) - y
        gamma = acos_or_nan(triangle_cosine(l3, _positive(norm(ex, ey)), l2), SLACK)
        base, offset = xp.atan2(ey, ex), math.pi
    elif which == "joint 2":  # W at a fixed distance from the base: the angle at P
        squared = l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * vp.cos(value)
        radius = vp.sqrt(where(squared > 0.0, squared, 0.0))
        gamma = acos_or_nan(triangle_cosine(r, l3, radius), SLACK)
        base, offset = phi, 0.0
    elif which == "joint 3":  # links 2-3 rigid, E on both circles: the angle at P
        rigid_x, rigid_y = l2 + l3 * vp.cos(value), l3 * vp.sin(value)
        gamma = acos_or_nan(triangle_cosine(r, hypot(rigid_x, rigid_y), l1), SLACK)
        base, offset = phi, value - vp.atan2(rigid_y, rigid_x)
    elif which == "link 2":  # E is L3 from Q = P - L2 u(v) and L1 from the base
        qx, qy = x - l2 * vp.cos(value), y - l2 * vp.sin(value)
        gamma = acos_or_nan(triangle_cosine(_positive(norm(qx, qy)), l3, l1), SLACK)
        base, offset = xp.atan2(qy, qx), 0.0
    elif which == "link 3":
        heading = value + 0.0 * r
        return heading, heading
    else:
        raise ValueError(f"unknown angle {which!r}")
    return base + gamma + offset, base - gamma + offset


def _positive(distance: Any) -> Any:
    """`distance` where it is > 0, else NaN (a triangle with a side of 0 gives no angle)."""
    return where(distance > 0.0, distance, math.nan)


def limit_headings(chain: PlanarChain, x: Any, y: Any) -> list[Any]:
    """Every heading (rad; NaN where none) at which a joint or link angle of the 3R `chain`
    reaching (x, y) (m) meets one of its limits: the ends of the feasible intervals are among
    these and the ends of `heading_band`.

    >>> from arm_kinematics.kinematics import PlanarChain
    >>> chain = PlanarChain((1.0, 0.8, 0.3), [None, None, (-0.2, 0.2)])
    >>> len(limit_headings(chain, 1.0, 1.0))
    4
    """
    target = _Target(x, y)
    headings: list[Any] = []
    for which, limits in _limited_angles(chain):
        for value in limits:
            if math.isfinite(value):
                headings.extend(_value_headings(target, chain.link_lengths, which, value))
    return headings


def heading_candidates(chain: PlanarChain, x: Any, y: Any, phi: Any, delta_lo: Any) -> list[Any]:
    """The headings (rad; floats, or arrays for many targets) among which the feasible one
    nearest `phi` lies: the reachable one nearest `phi` (first), its mirror image about
    `phi`, and every limit heading (`limit_headings`).

    >>> from arm_kinematics.kinematics import PlanarChain
    >>> len(heading_candidates(PlanarChain((1.0, 0.8, 0.3)), 1.0, 1.0, 0.785, 0.2))
    2
    """
    return [phi + delta_lo, phi - delta_lo, *limit_headings(chain, x, y)]


def _limited_angles(chain: PlanarChain) -> list[tuple[str, tuple[float, float]]]:
    """(which angle, its limits) of every joint and link angle with limits."""
    angles = [
        (f"joint {index + 1}", limits)
        for index, (limits, kind) in enumerate(
            zip(chain.joint_limits, chain.joint_kinds, strict=True)
        )
        if kind != CONTINUOUS
    ]
    if chain.link_angle_limits is not None:
        angles += [
            (which, limits)
            for which, limits in zip(
                ("joint 1", "link 2", "link 3"), chain.link_angle_limits, strict=True
            )
            if limits != (-math.inf, math.inf)
        ]
    return angles


def nearest_heading(phi: Any, headings: Sequence[Any], feasible: Sequence[Any]) -> Any:
    """The index of the feasible heading nearest `phi` (rad), -1 where none is feasible: the
    smallest |wrap(h - phi)|; within TIE of it, one on the counter-clockwise side (h - phi >=
    0) before one on the other, then the earlier index. Floats and a list of bools for one
    target, or arrays (M,) each for M targets.

    >>> nearest_heading(0.0, [0.3, -0.3, 0.1], [True, True, False])
    0
    >>> nearest_heading(np.zeros(2), [np.array([0.3, 0.5]), np.array([-0.2, 0.4])],
    ...                 [np.array([True, True]), np.array([True, False])]).tolist()
    [1, 0]
    """
    if isinstance(phi, np.ndarray):
        delta = np.stack([h - phi for h in headings], axis=-1)
        delta = delta - TAU * np.round(delta / TAU)
        feasible_rows = np.stack(feasible, axis=-1) & np.isfinite(delta)
        distance = np.where(feasible_rows, np.abs(delta), np.inf)
        best = distance.min(axis=-1, keepdims=True)
        rank = np.where(distance <= best + TIE, np.where(delta >= 0.0, 0, 1), 2)
        choice = np.argmin(rank, axis=-1)  # the first of the best rank
        return np.where(np.isfinite(best[..., 0]), choice, -1)
    distances = []
    for heading, ok in zip(headings, feasible, strict=True):
        delta = heading - phi
        delta -= TAU * round(delta / TAU) if math.isfinite(delta) else 0.0
        distances.append((abs(delta), delta) if ok and math.isfinite(delta) else None)
    found = [d[0] for d in distances if d is not None]
    if not found:
        return -1
    best = min(found)
    rank = [2 if d is None or d[0] > best + TIE else 0 if d[1] >= 0.0 else 1 for d in distances]
    return rank.index(min(rank))


def nearest_feasible(phi: float, headings: Sequence[float], feasible: Callable[[int], bool]) -> int:
    """`nearest_heading` for one target, asking `feasible(index)` only of the headings that
    can still win: nearest first (most often the first is the answer).

    >>> nearest_feasible(0.0, [0.3, -0.3, 0.1], lambda index: index != 2)
    0
    """
    deltas = []
    for index, heading in enumerate(headings):
        delta = heading - phi
        if math.isfinite(delta):
            delta -= TAU * round(delta / TAU)
            deltas.append((abs(delta), index, delta))
    deltas.sort()
    best = math.inf
    ranked = []
    for distance, index, delta in deltas:
        if distance > best + TIE:
            break
        if feasible(index):
            best = min(best, distance)
            ranked.append((distance, 0 if delta >= 0.0 else 1, index))
    ranked = [(rank, index) for distance, rank, index in ranked if distance <= best + TIE]
    return min(ranked)[1] if ranked else -1
