"""The tool headings of a 3R chain that reach a target, in closed form: where no heading is
requested, which one the solve takes.

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
intervals whose ends are among these (`limit_headings`). Which one is taken:

- without `current` (`nearest_heading`): the feasible heading nearest the one pointing away
  from the base, atan2(y, x): that one itself, or the nearest reachable one, or the nearest end
  of a feasible interval; ties (1e-12 rad) to the counter-clockwise side;
- with `current` (`least_motion_heading`): the heading with the least joint motion from
  `current` over every feasible interval of the elbows the branch rule allows. The joint motion
  along an interval is a smooth function of the heading whose derivative is known in closed
  form (`joint_rates`); its minimum on each interval is a root of that derivative (safeguarded
  Newton) or an end. Intervals farther from current's own heading than sqrt(3) times the best
  motion found cannot do better (the heading is the sum of the joints), so a seed near the
  answer (a chain of nearby targets) looks at one interval only.

Floats for one target; `heading_band`, `joint_value_headings` and `limit_headings` take arrays
of targets too (`array_api`). Metres and radians, the chain's plane, relative joint angles.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..angles import TAU, wrap_angle
from ..array_api import acos_or_nan, arccos, array_namespace, clip, norm, where
from .closed_form import three_link_ik, triangle_cosine
from .limits import CONTINUOUS, WIDE, joint_motion

if TYPE_CHECKING:
    from .chain import PlanarChain

TIE = 1e-12
"""rad: candidate headings this close in distance are a tie (the counter-clockwise one wins)."""
SLACK = 1e-12
"""A cosine this far beyond +-1 is taken as +-1 (a tangency, up to rounding)."""
SQRT_3 = math.sqrt(3.0)
NEAR = 0.05
"""rad: the widest window of headings about current's own heading that `_near_current`
searches alone (a chain of nearby targets moves far less per target)."""

Joints = tuple[float, float, float]


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
    l1, l2, l3 = lengths
    xp = array_namespace(x, y)
    phi = xp.atan2(y, x)
    r = _positive(norm(x, y))
    if which == "joint 1":  # W is L2 from E and L3 from P: the angle at P
        ex, ey = l1 * math.cos(value) - x, l1 * math.sin(value) - y
        gamma = acos_or_nan(triangle_cosine(l3, _positive(norm(ex, ey)), l2), SLACK)
        base, offset = xp.atan2(ey, ex), math.pi
    elif which == "joint 2":  # W at a fixed distance from the base: the angle at P
        radius = math.sqrt(max(0.0, l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * math.cos(value)))
        gamma = acos_or_nan(triangle_cosine(r, l3, radius), SLACK)
        base, offset = phi, 0.0
    elif which == "joint 3":  # links 2-3 rigid, E on both circles: the angle at P
        rigid = complex(l2 + l3 * math.cos(value), l3 * math.sin(value))
        gamma = acos_or_nan(triangle_cosine(r, abs(rigid), l1), SLACK)
        base, offset = phi, value - math.atan2(rigid.imag, rigid.real)
    elif which == "link 2":  # E is L3 from Q = P - L2 u(v) and L1 from the base
        qx, qy = x - l2 * math.cos(value), y - l2 * math.sin(value)
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
    headings: list[Any] = []
    for which, limits in _limited_angles(chain):
        for value in limits:
            if math.isfinite(value):
                headings.extend(joint_value_headings(chain.link_lengths, x, y, which, value))
    return headings


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


# --- the least motion from current -----------------------------------------------------------


def joint_rates(lengths: Sequence[float], joints: Joints) -> tuple[Joints, Joints]:
    """How the joints of a 3R chain (m, rad) move as its heading turns with the tip held: the
    first and second derivatives of (theta_1, theta_2, theta_3) by the heading.

    The wrist W = P - L3 u(h) moves as -L3 u'(h); links 1-2 follow it through their 2x2
    Jacobian, whose determinant is L1 L2 sin theta_2:

        theta_1' = L3 sin theta_3 / (L1 sin theta_2),
        (theta_1 + theta_2)' = -L3 sin(theta_2 + theta_3) / (L2 sin theta_2),
        theta_3' = 1 - (theta_1 + theta_2)'.

    >>> first, _ = joint_rates((1.0, 0.8, 0.3), (0.3, 1.0, 0.5))
    >>> round(sum(first), 12)  # the joints add up to the heading
    1.0
    """
    l1, l2, l3 = lengths
    _, q2, q3 = joints
    s2, c2 = math.sin(q2), math.cos(q2)
    s3, c3 = math.sin(q3), math.cos(q3)
    s23, c23 = math.sin(q2 + q3), math.cos(q2 + q3)
    if s2 == 0.0:  # links 1-2 in line: the rates are infinite
        nan = (math.nan, math.nan, math.nan)
        return nan, nan
    rate_1 = l3 * s3 / (l1 * s2)
    rate_12 = -l3 * s23 / (l2 * s2)
    rate_2, rate_3 = rate_12 - rate_1, 1.0 - rate_12
    accel_1 = l3 / l1 * (c3 * rate_3 * s2 - s3 * c2 * rate_2) / (s2 * s2)
    accel_12 = -l3 / l2 * (c23 * (rate_2 + rate_3) * s2 - s23 * c2 * rate_2) / (s2 * s2)
    return (rate_1, rate_2, rate_3), (accel_1, accel_12 - accel_1, -accel_12)


class _Motion:
    """The joint motion from `current` of one elbow of a 3R chain as the heading turns."""

    def __init__(self, chain: PlanarChain, x: float, y: float, elbow: int, current: Joints):
        self.chain, self.x, self.y, self.elbow, self.current = chain, x, y, elbow, current
        self._known: dict[float, Joints | None] = {}

    def joints(self, heading: float) -> Joints | None:
        """The elbow's joints at `heading`, moved by 2 pi into the limits nearest `current`
        (as the solve does); None off the ring. Each heading's are computed once."""
        if heading not in self._known:
            self._known[heading] = self._joints(heading)
        return self._known[heading]

    def _joints(self, heading: float) -> Joints | None:
        lengths, tolerance = self.chain.link_lengths, self.chain.edge_tolerance
        elbows = three_link_ik(lengths, self.x, self.y, heading, tolerance)
        if elbows is None:
            return None
        joints = elbows[self.elbow]
        if self.chain.shifts_can_fit:
            joints = self.chain.fit_into_limits(joints, self.current) or joints
        return joints

    def cost(self, heading: float) -> float:
        """Squared joint motion (rad^2) at `heading`; inf off the ring."""
        joints = self.joints(heading)
        if joints is None:
            return math.inf
        return sum(d * d for d in joint_motion(self.current, joints, self.chain.joint_kinds))

    def slope(self, heading: float) -> tuple[float, float]:
        """Half the first and second derivatives of the squared motion by the heading."""
        joints = self.joints(heading)
        if joints is None:
            return math.nan, math.nan
        motion = joint_motion(self.current, joints, self.chain.joint_kinds)
        first, second = joint_rates(self.chain.link_lengths, joints)
        slope = sum(m * d for m, d in zip(motion, first, strict=True))
        curvature = sum(d * d + m * s for m, d, s in zip(motion, first, second, strict=True))
        return slope, curvature


def _minimum_on(motion: _Motion, lo: float, hi: float) -> tuple[float, float]:
    """(heading, squared motion) of the least motion on [lo, hi] (rad), a piece on which every
    joint's motion keeps its sign (`least_motion_heading` cuts there): an end, or where the
    slope turns from falling to rising, found by Newton's method within that bracket (halved
    where a Newton step would leave it)."""
    best = min((motion.cost(lo), lo), (motion.cost(hi), hi))
    if hi <= lo:
        return best[::-1]
    inward = 1e-9 * (hi - lo)

    def slope_at(heading: float, side: float) -> float:
        slope, _ = motion.slope(heading)
        if not math.isfinite(slope):  # at a band's end the rates are infinite: just inside
            slope, _ = motion.slope(heading + side * inward)
        return slope

    # A fall then a rise of the motion: a bracket [a, b] with the slope < 0 at a and > 0 at
    # b. Mostly the ends are one; a piece may still hold a rise, a fall and a rise (a joint's
    # motion grows while another's shrinks; near a band's end, where the elbow turns over,
    # the heading is a poor parameter and the motion rises steeply first), so the slope is
    # also read at the middle and at 1/4 and 1/16 of the way from each end.
    width = hi - lo
    points = [
        lo,
        lo + width / 16,
        lo + width / 4,
        lo + width / 2,
        hi - width / 4,
        hi - width / 16,
        hi,
    ]
    slopes = [slope_at(lo, 1.0), *(motion.slope(h)[0] for h in points[1:-1]), slope_at(hi, -1.0)]
    brackets = [
        (a, b)
        for (a, slope_a), (b, slope_b) in itertools.pairwise(zip(points, slopes, strict=True))
        if slope_a < 0.0 < slope_b
    ]
    for a, b in brackets:
        best = min(best, _slope_root(motion, a, b))
    return best[::-1]


def _slope_root(motion: _Motion, lo: float, hi: float) -> tuple[float, float]:
    """(squared motion, heading) where the slope, < 0 at `lo` and > 0 at `hi`, is 0: Newton's
    method within the bracket, halving it where a step would leave it."""
    heading = 0.5 * (lo + hi)
    for _ in range(60):
        slope, curvature = motion.slope(heading)
        if not math.isfinite(slope) or slope == 0.0:
            break
        if slope < 0.0:
            lo = heading
        else:
            hi = heading
        step = heading - slope / curvature if curvature > 0.0 else math.nan
        heading = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo < 1e-13:
            break
    return motion.cost(heading), heading


def heading_pieces(
    chain: PlanarChain, x: float, y: float, cuts: Sequence[float]
) -> list[tuple[float, float]]:
    """The reachable headings of the 3R `chain` at (x, y) (m) (`heading_band`) cut at every
    limit heading and at `cuts` (rad): (lo, hi) pieces, increasing, and (h, h) for each cut
    itself (a heading alone may be feasible where its neighbours are not: a joint at a limit
    whose other side another limit closes)."""
    phi, delta_lo, delta_hi = heading_band(chain.link_lengths, x, y, chain.edge_tolerance)
    if delta_lo != delta_lo:
        return []
    if delta_lo == 0.0:
        bands = [(phi - delta_hi, phi + delta_hi)]
    elif delta_hi >= math.pi:
        bands = [(phi + delta_lo, phi + TAU - delta_lo)]
    else:
        bands = [(phi + delta_lo, phi + delta_hi), (phi - delta_hi, phi - delta_lo)]
    every_cut = [h for h in (*limit_headings(chain, x, y), *cuts) if math.isfinite(h)]
    pieces = []
    for lo, hi in bands:
        middle = 0.5 * (lo + hi)
        turned = {c + TAU * round((middle - c) / TAU) for c in every_cut}
        edges = sorted({lo, hi, *(h for h in turned if lo <= h <= hi)})
        pieces += [(h, h) for h in edges]
        pieces += list(itertools.pairwise(edges))
    return pieces


def _feasible_elbows(chain: PlanarChain, x: float, y: float, heading: float) -> list[int]:
    """The elbows (0 up, 1 down) that reach (x, y) with `heading` within the limits."""
    elbows = three_link_ik(chain.link_lengths, x, y, heading, chain.edge_tolerance)
    if elbows is None:
        return []
    return [elbow for elbow in (0, 1) if _within_limits(chain, elbows[elbow])]


def _within_limits(chain: PlanarChain, joints: Joints) -> bool:
    fitted = chain.fit_into_limits(joints, joints) if chain.shifts_can_fit else joints
    return fitted is not None and chain.limit_margin(fitted) >= -1e-9


def least_motion_heading(
    chain: PlanarChain, x: float, y: float, elbows: Sequence[int], current: Joints
) -> tuple[float, int] | None:
    """(heading, elbow) with the least joint motion from `current` (rad) among the headings
    on which one of `elbows` (0 up, 1 down) of the 3R `chain` reaches (x, y) (m) within its
    limits; None when no heading does.

    First from current's own heading (`_near_current`: a chain of nearby targets ends
    there). Else every piece: the reachable headings are cut where a joint meets a limit,
    where a joint equals its value in `current` (so that every joint's motion keeps its sign
    on a piece) and where a continuous joint is half a turn from it; each piece is searched
    (`_minimum_on`) nearest current's heading first, until the pieces left are farther than
    sqrt(3) times the least motion found.

    >>> from arm_kinematics.kinematics import PlanarChain
    >>> chain = PlanarChain((1.0, 0.8, 0.3))
    >>> current = (0.3, 0.6, 0.2)
    >>> x, y, h = chain.forward(current)
    >>> heading, elbow = least_motion_heading(chain, x, y, (0, 1), current)
    >>> round(heading - h, 9), elbow  # a current that reaches the target is the answer
    (0.0, 1)
    """
    held = math.fsum(current)
    order = sorted(elbows, key=lambda elbow: _elbow_gap(chain, elbow, current))
    near = _near_current(chain, x, y, order, current, held)
    if near is not None:
        return near
    pieces = heading_pieces(chain, x, y, _current_headings(chain, x, y, current))

    def gap(piece: tuple[float, float]) -> float:
        """How far (rad) the piece is from the held heading: a bound on its motion."""
        lo, hi = piece
        near = held + TAU * round((0.5 * (lo + hi) - held) / TAU)
        return 0.0 if lo <= near <= hi else min(abs(near - lo), abs(near - hi))

    best: tuple[float, float, int] | None = None
    for piece in sorted(pieces, key=gap):
        if best is not None and gap(piece) / SQRT_3 >= math.sqrt(best[0]):
            break  # this and the later pieces cannot move less
        lo, hi = piece
        feasible = _feasible_elbows(chain, x, y, 0.5 * (lo + hi))
        for elbow in order:
            if elbow not in feasible:
                continue
            if best is not None and _elbow_gap(chain, elbow, current) >= math.sqrt(best[0]):
                continue
            heading, cost = _minimum_on(_Motion(chain, x, y, elbow, current), lo, hi)
            if best is None or cost < best[0]:
                best = (cost, heading, elbow)
    return None if best is None else (wrap_angle(best[1]), best[2])


def _elbow_gap(chain: PlanarChain, elbow: int, current: Joints) -> float:
    """A bound (rad) on the motion to any pose of `elbow` (0 up: joint 2 <= 0; 1 down: >= 0):
    how far current's joint 2 is from that elbow's range (0 where 2 pi shifts could help)."""
    if chain.shifts_can_fit:
        return 0.0
    value = current[1] if elbow == 0 else -current[1]  # > 0: on the other elbow's side
    if chain.joint_kinds[1] == CONTINUOUS:
        value = wrap_angle(value)
        return max(0.0, min(value, math.pi - value))
    return max(0.0, value)


def _near_current(
    chain: PlanarChain,
    x: float,
    y: float,
    elbows: Sequence[int],
    current: Joints,
    held: float,
) -> tuple[float, int] | None:
    """The least motion near current's own heading `held` (rad), when it is sure to be the
    least: (heading, elbow), or None to search every piece.

    On the first elbow feasible at `held`: `current` itself when it reaches the target (no
    motion at all); else Newton's method from `held` for where the motion's slope is 0, D
    the motion there. Only headings within sqrt(3) D of `held` could move less (the heading
    is the sum of the joints); it is sure when that window is small (NEAR) and, across it,
    the elbow stays within its limits and on the ring (`_clear`), or else when the limit
    headings in it, where that elbow is feasible, are among the candidates; and the other
    elbows are farther than D (`_elbow_gap`)."""
    for index, elbow in enumerate(elbows):
        motion = _Motion(chain, x, y, elbow, current)
        held_joints = motion.joints(held)
        if held_joints is None or not _within_limits(chain, held_joints):
            continue
        found = [(motion.cost(held), held)]
        if found[0][0] == 0.0:  # current reaches the target: nothing moves less
            return wrap_angle(held), elbow
        heading = _newton_from(motion, held)
        if heading is not None:
            joints = motion.joints(heading)
            if joints is not None and _within_limits(chain, joints):
                found.append((motion.cost(heading), heading))
        cost, heading = min(found)
        window = SQRT_3 * math.sqrt(cost) + 1e-9
        if window > NEAR:
            return None
        if any(_elbow_gap(chain, other, current) ** 2 < cost for other in elbows[index + 1 :]):
            return None
        if heading != held and _clear(chain, motion, (held, heading), window):
            return wrap_angle(heading), elbow
        phi, delta_lo, delta_hi = heading_band(chain.link_lengths, x, y, chain.edge_tolerance)
        ends = (phi + delta_lo, phi - delta_lo, phi + delta_hi, phi - delta_hi)
        for cut in (*limit_headings(chain, x, y), *ends):
            if math.isfinite(cut) and abs(wrap_angle(cut - held)) <= window:
                joints = motion.joints(cut)
                if joints is not None and _within_limits(chain, joints):
                    found.append((motion.cost(cut), cut))
        cost, heading = min(found)
        return wrap_angle(heading), elbow
    return None


def _clear(chain: PlanarChain, motion: _Motion, headings: Sequence[float], window: float) -> bool:
    """True when, within `window` rad of each of `headings`, the elbow's joints keep clear of
    their limits and its wrist of the ring's edges: at both headings each limit margin is
    more than twice what the joints' rates (`joint_rates`) move in the window, the wrist's
    distance from the edges more than twice L3 times it, and the elbow well bent."""
    l1, l2, l3 = chain.link_lengths
    inner, outer = abs(l1 - l2), l1 + l2
    for heading in headings:
        joints = motion.joints(heading)
        if joints is None or abs(math.sin(joints[1])) < 0.05:
            return False
        first, _ = joint_rates(chain.link_lengths, joints)
        moved = 2.0 * window * sum(abs(rate) for rate in first)
        if chain.limit_margin(joints) <= moved:
            return False
        wrist = norm(motion.x - l3 * math.cos(heading), motion.y - l3 * math.sin(heading))
        if min(wrist - inner, outer - wrist) <= 2.0 * window * l3:
            return False
    return True


def _newton_from(motion: _Motion, heading: float) -> float | None:
    """Where the slope of the motion is 0, by Newton's method from `heading` (rad), to 1e-10
    rad (the motion is flat there: 1e-20 rad^2 off the least); None when it does not settle
    within 12 steps or meets a non-convex stretch."""
    for _ in range(12):
        slope, curvature = motion.slope(heading)
        if not (math.isfinite(slope) and curvature > 0.0):
            return None
        step = slope / curvature
        heading -= step
        if abs(step) < 1e-10:
            return heading
    return None


def _current_headings(chain: PlanarChain, x: float, y: float, current: Joints) -> list[float]:
    """Headings where a joint equals its value in `current` (its motion changes sign there),
    and where a continuous (or wide) joint is half a turn from it (its motion flips from +pi
    to -pi there, or its 2 pi shift does)."""
    headings: list[float] = []
    for index, (value, kind) in enumerate(zip(current, chain.joint_kinds, strict=True)):
        which = f"joint {index + 1}"
        headings.extend(joint_value_headings(chain.link_lengths, x, y, which, value))
        if kind in (CONTINUOUS, WIDE):
            headings.extend(joint_value_headings(chain.link_lengths, x, y, which, value + math.pi))
    return [h for h in headings if math.isfinite(h)]
