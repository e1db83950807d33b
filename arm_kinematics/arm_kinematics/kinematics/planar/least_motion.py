"""The tool heading of a 3R chain with the least joint motion from a seed (`current`), where
no heading is requested (`least_motion_heading`).

Over every feasible heading (`tool_angles.py`) of the elbows the branch rule allows, the joint
motion from `current` is a smooth function of the heading, piece by piece, whose slope is known
in closed form (`joint_rates`); its minimum on a piece is an end or where the slope turns from
falling to rising (Newton's method within a bracket). The pieces are cut where a joint meets a
limit, where a joint equals its value in `current` (so every joint's motion keeps its sign on
a piece) and where a continuous joint is half a turn from it. Pieces farther from current's own
heading than sqrt(3) times the best motion found cannot do better (the heading is the sum of
the joints), and a seed near the answer (a chain of nearby targets) is settled from its own
heading alone (`_near_current`). This is a search per target: one seed, one answer.

Floats, one target. Metres and radians, the chain's plane, relative joint angles.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..angles import TAU, wrap_angle
from ..array_api import array_namespace
from .closed_form import HeadingIk
from .limits import CONTINUOUS, LIMIT_TOLERANCE, WIDE, joint_motion
from .tool_angles import heading_band, joint_value_headings, limit_headings

if TYPE_CHECKING:
    from .chain import PlanarChain

SQRT_3 = math.sqrt(3.0)
NEAR = 0.05
"""rad: the widest window of headings about current's own heading that `_near_current`
searches alone (a chain of nearby targets moves far less per target)."""

SETTLED = 1e-24
"""rad^2: a squared motion this small is none (current reaches the target, up to rounding)."""

Joints = tuple[float, float, float]


def joint_rates(lengths: Sequence[float], joints: Joints) -> tuple[Joints, Joints]:
    """How the joints of a 3R chain (m, rad) move as its heading turns with the tip held: the
    first and second derivatives of (theta_1, theta_2, theta_3) by the heading.

    The wrist W = P - L3 u(h) moves as -L3 u'(h); links 1-2 follow it through their 2x2
    Jacobian, whose determinant is L1 L2 sin theta_2:

        theta_1' = L3 sin theta_3 / (L1 sin theta_2),
        (theta_1 + theta_2)' = -L3 sin(theta_2 + theta_3) / (L2 sin theta_2),
        theta_3' = 1 - (theta_1 + theta_2)'.

    Floats for one pose, arrays (one per joint) for many (`array_api`).

    >>> first, _ = joint_rates((1.0, 0.8, 0.3), (0.3, 1.0, 0.5))
    >>> round(sum(first), 12)  # the joints add up to the heading
    1.0
    """
    l1, l2, l3 = lengths
    _, q2, q3 = joints
    xp = array_namespace(q2, q3)
    s2, c2 = xp.sin(q2), xp.cos(q2)
    s3, c3 = xp.sin(q3), xp.cos(q3)
    s23, c23 = xp.sin(q2 + q3), xp.cos(q2 + q3)
    if xp is not math:  # links 1-2 in line: the rates are infinite (NaN) on those rows
        s2 = np.where(s2 == 0.0, np.nan, s2)
    elif s2 == 0.0:
        nan = (math.nan, math.nan, math.nan)
        return nan, nan
    rate_1 = l3 * s3 / (l1 * s2)
    rate_12 = -l3 * s23 / (l2 * s2)
    rate_2, rate_3 = rate_12 - rate_1, 1.0 - rate_12
    accel_1 = l3 / l1 * (c3 * rate_3 * s2 - s3 * c2 * rate_2) / (s2 * s2)
    accel_12 = -l3 / l2 * (c23 * (rate_2 + rate_3) * s2 - s23 * c2 * rate_2) / (s2 * s2)
    return (rate_1, rate_2, rate_3), (accel_1, accel_12 - accel_1, -accel_12)


class _Motion(dict):
    """The joint motion from `current` of one elbow (0 up, 1 down) of a 3R chain reaching one
    target (`ik`: its closed form at any heading) as the heading turns: `motion[heading]` is
    the elbow's `Pose` there, or None off the ring, each heading's computed once (a dict that
    fills itself). A 3R chain has three joints: the sums over them are written out."""

    def __init__(self, chain: PlanarChain, ik: HeadingIk, elbow: int, current: Joints):
        self.chain, self.ik, self.elbow, self.current = chain, ik, elbow, current
        self.x, self.y = ik.x, ik.y
        self.lengths = chain.link_lengths
        self.wrapped = CONTINUOUS in chain.joint_kinds  # some motion goes the short way round

    def __missing__(self, heading: float) -> Pose | None:
        elbows = self.ik[heading]
        if elbows is None:
            self[heading] = None
            return None
        joints = elbows[self.elbow]
        if self.chain.shifts_can_fit:  # moved by 2 pi into the limits nearest current
            joints = self.chain.fit_into_limits(joints, self.current) or joints
        if self.wrapped:
            m1, m2, m3 = joint_motion(self.current, joints, self.chain.joint_kinds)
        else:
            (q1, q2, q3), (c1, c2, c3) = joints, self.current
            m1, m2, m3 = q1 - c1, q2 - c2, q3 - c3
        rates = joint_rates(self.lengths, joints)
        (d1, d2, d3), (s1, s2, s3) = rates
        cost = m1 * m1 + m2 * m2 + m3 * m3
        slope = m1 * d1 + m2 * d2 + m3 * d3
        curvature = (d1 * d1 + m1 * s1) + (d2 * d2 + m2 * s2) + (d3 * d3 + m3 * s3)
        pose = (joints, cost, slope, curvature, rates[0])
        self[heading] = pose
        return pose

    def joints(self, heading: float) -> Joints | None:
        """The elbow's joints at `heading`, moved by 2 pi into the limits nearest `current`
        (as the solve does); None off the ring."""
        pose = self[heading]
        return None if pose is None else pose[0]

    def feasible(self, heading: float) -> Pose | None:
        """The elbow's pose at `heading` where it is within the limits (after the 2 pi shift
        the limits allow), else None."""
        pose = self[heading]
        if pose is None:
            return None
        fitted = pose[0]
        if self.chain.shifts_can_fit:
            fitted = self.chain.fit_into_limits(fitted, fitted)
        if fitted is None or not self.chain.limit_margin(fitted) >= -LIMIT_TOLERANCE:
            return None
        return pose

    def cost(self, heading: float) -> float:
        """Squared joint motion (rad^2) at `heading`; inf off the ring."""
        pose = self[heading]
        return math.inf if pose is None else pose[1]

    def slope(self, heading: float) -> tuple[float, float]:
        """Half the first and second derivatives of the squared motion by the heading."""
        pose = self[heading]
        return (math.nan, math.nan) if pose is None else (pose[2], pose[3])


Pose = tuple[Joints, float, float, float, Joints]
"""One elbow at one heading: (its joints (rad), their squared motion from current (rad^2),
half its first and second derivatives by the heading, the joints' rates (`joint_rates`)): a
plain tuple, unpacked where read (built for every heading a search tries)."""


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
    method within the bracket, halving it where a step would leave it, until a Newton step
    moves less than ROOT_STEP (the root found to rounding) or the bracket is narrower than
    ROOT_BRACKET."""
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
        newton = lo < step < hi
        settled = newton and abs(step - heading) < ROOT_STEP
        heading = step if newton else 0.5 * (lo + hi)
        if settled or hi - lo < ROOT_BRACKET:
            break
    return motion.cost(heading), heading


ROOT_STEP = 1e-14
"""rad: a Newton step this small ends the search for the slope's root (the next would be
about its square: rounding)."""
ROOT_BRACKET = 1e-15
"""rad: a bracket this narrow ends it too (a few units in the last place of a heading)."""


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


def _feasible_elbows(chain: PlanarChain, ik: HeadingIk, heading: float) -> list[int]:
    """The elbows (0 up, 1 down) that reach the target with `heading` within the limits."""
    elbows = ik[heading]
    if elbows is None:
        return []
    return [elbow for elbow in (0, 1) if _within_limits(chain, elbows[elbow])]


def _within_limits(chain: PlanarChain, joints: Joints) -> bool:
    fitted = chain.fit_into_limits(joints, joints) if chain.shifts_can_fit else joints
    return fitted is not None and chain.limit_margin(fitted) >= -LIMIT_TOLERANCE


def least_motion_heading(
    chain: PlanarChain,
    x: float,
    y: float,
    elbows: Sequence[int],
    current: Joints,
    ik: HeadingIk | None = None,
) -> tuple[float, int] | None:
    """(heading, elbow) with the least joint motion from `current` (rad) among the headings
    on which one of `elbows` (0 up, 1 down) of the 3R `chain` reaches (x, y) (m) within its
    limits; None when no heading does. `ik`: the target's closed form, each heading solved
    once (the caller's, to solve again at the heading found for nothing).

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
    ik = HeadingIk(chain, x, y) if ik is None else ik
    order = elbows
    if len(elbows) == 2 and _elbow_gap(chain, 1, current) < _elbow_gap(chain, 0, current):
        order = (1, 0)  # the elbow nearer current first (a stable sort of the two)
    near = _near_current(chain, ik, order, current, held)
    if near is not None:
        return near
    pieces = heading_pieces(chain, x, y, _current_headings(chain, x, y, current))

    def gap(piece: tuple[float, float]) -> float:
        """How far (rad) the piece is from the held heading: a bound on its motion."""
        lo, hi = piece
        near = held + TAU * round((0.5 * (lo + hi) - held) / TAU)
        return 0.0 if lo <= near <= hi else min(abs(near - lo), abs(near - hi))

    best: tuple[float, float, int] | None = None
    nearest_first = sorted([(gap(piece), index, piece) for index, piece in enumerate(pieces)])
    for piece_gap, _, piece in nearest_first:
        if best is not None and piece_gap / SQRT_3 >= math.sqrt(best[0]):
            break  # this and the later pieces cannot move less
        lo, hi = piece
        feasible = _feasible_elbows(chain, ik, 0.5 * (lo + hi))
        for elbow in order:
            if elbow not in feasible:
                continue
            if best is not None and _elbow_gap(chain, elbow, current) >= math.sqrt(best[0]):
                continue
            heading, cost = _minimum_on(_Motion(chain, ik, elbow, current), lo, hi)
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
    ik: HeadingIk,
    elbows: Sequence[int],
    current: Joints,
    held: float,
) -> tuple[float, int] | None:
    """The least motion near current's own heading `held` (rad), when it is sure to be the
    least: (heading, elbow), or None to search every piece.

    On the first elbow feasible at `held`: `current` itself when it reaches the target (a
    motion of 1e-12 rad at most); else Newton's method from `held` for where the motion's
    slope is 0, D the motion there. Only headings within sqrt(3) D of `held` could move less
    (the heading is the sum of the joints); it is sure when that window is small (NEAR) and,
    across it, the elbow stays within its limits and on the ring (`_clear`), or else when the limit
    headings in it, where that elbow is feasible, are among the candidates; and the other
    elbows are farther than D (`_elbow_gap`)."""
    x, y = ik.x, ik.y
    for index, elbow in enumerate(elbows):
        motion = _Motion(chain, ik, elbow, current)
        at_held = motion.feasible(held)
        if at_held is None:
            continue
        found = [(at_held[1], held)]
        if at_held[1] <= SETTLED:  # current reaches the target: nothing moves less
            return wrap_angle(held), elbow
        heading = _newton_from(motion, held)
        if heading is not None:
            at_heading = motion.feasible(heading)
            if at_heading is not None:
                found.append((at_heading[1], heading))
        cost, heading = min(found)
        window = SQRT_3 * math.sqrt(cost) + 1e-9
        if window > NEAR:
            return None
        for other in elbows[index + 1 :]:
            if _elbow_gap(chain, other, current) ** 2 < cost:
                return None
        if heading != held and _clear(chain, motion, (held, heading), window):
            return wrap_angle(heading), elbow
        phi, delta_lo, delta_hi = heading_band(chain.link_lengths, x, y, chain.edge_tolerance)
        ends = (phi + delta_lo, phi - delta_lo, phi + delta_hi, phi - delta_hi)
        for cut in (*limit_headings(chain, x, y), *ends):
            near = math.isfinite(cut) and abs(wrap_angle(cut - held)) <= window
            at_cut = motion.feasible(cut) if near else None
            if at_cut is not None:
                found.append((at_cut[1], cut))
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
        pose = motion[heading]
        if pose is None:
            return False
        joints, _, _, _, (d1, d2, d3) = pose
        if abs(math.sin(joints[1])) < 0.05:
            return False
        moved = 2.0 * window * (abs(d1) + abs(d2) + abs(d3))
        if chain.limit_margin(joints) <= moved:
            return False
        wrist_x, wrist_y = motion.x - l3 * math.cos(heading), motion.y - l3 * math.sin(heading)
        wrist = math.sqrt(wrist_x * wrist_x + wrist_y * wrist_y)
        if min(wrist - inner, outer - wrist) <= 2.0 * window * l3:
            return False
    return True


def _newton_from(motion: _Motion, heading: float) -> float | None:
    """Where the slope of the motion is 0, by Newton's method from `heading` (rad), to 1e-10
    rad (the motion is flat there: 1e-20 rad^2 off the least); None when it does not settle
    within 12 steps or meets a non-convex stretch."""
    for _ in range(12):
        pose = motion[heading]
        if pose is None:
            return None
        _, _, slope, curvature, _ = pose
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
