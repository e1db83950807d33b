"""Closed-form inverse kinematics of the planar 2R chain, and the wrist point of a 3R chain.

Plain functions on floats: metres and radians, relative joint angles, base frame. Joint limits,
branch choice and statuses are not applied here (see `branches.py` and `arm.py`).

The law of cosines, for the triangle base - elbow - target with sides L1, L2 and r:

    r^2 = L1^2 + L2^2 + 2 L1 L2 cos(theta_2)

gives |theta_2| from r, and theta_1 = atan2(y, x) -+ atan2(L2 sin theta_2, L1 + L2 cos theta_2).
`sin theta_2` is computed from the factored form

    (2 L1 L2 sin theta_2)^2 = (outer - r)(outer + r)(r - inner)(r + inner),
    outer = L1 + L2, inner = |L1 - L2|,

which keeps its precision at full stretch and full fold (where 1 - cos^2 loses it), and every
angle comes from atan2: no acos domain errors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..angles import TAU, wrap_angle


def triangle_cosine(a: float, b: float, opposite: float) -> float:
    """cos of the angle between sides `a` and `b` of a triangle whose third side is `opposite`
    (law of cosines; any consistent length unit). Outside [-1, 1] when no such triangle exists.

    >>> triangle_cosine(3.0, 4.0, 5.0)
    0.0
    >>> triangle_cosine(1.0, 1.0, 1.0)
    0.5
    """
    return (a * a + b * b - opposite * opposite) / (2.0 * a * b)


def two_link_ik(
    l1: float, l2: float, x: float, y: float, edge_tolerance: float = 0.0
) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """Both elbows of the 2R chain with links `l1`, `l2` (m) whose tip is at (x, y) (m).

    Returns `(elbow_up, elbow_down, sin_elbow)`: elbow up has theta_2 <= 0, elbow down
    theta_2 >= 0 (radians, theta_1 in (-pi, pi], theta_2 in [-pi, pi]), `sin_elbow` =
    |sin theta_2| (0 at full stretch or fold, where both elbows coincide). None when (x, y) lies
    outside the ring inner <= r <= outer by more than `edge_tolerance` (m); a point outside by
    less is solved on the edge (theta_2 exactly 0 or pi).

    The reference arm: links 1.0 and 0.8 m, tip (1.0731, 1.2727) gives back both elbows, the
    elbow-down one being joints 30 and 45 degrees, the elbow-up one 69.73 and -45 degrees.

    >>> up, down, sin_elbow = two_link_ik(1.0, 0.8, 1.0731, 1.2727)
    >>> [round(math.degrees(q), 2) for q in down], [round(math.degrees(q), 2) for q in up]
    ([30.0, 45.0], [69.73, -45.0])
    >>> round(sin_elbow, 4)
    0.7071
    >>> two_link_ik(1.0, 0.8, 2.0, 0.0) is None
    True
    """
    r = math.sqrt(x * x + y * y)
    outer = l1 + l2
    inner = abs(l1 - l2)
    if r > outer:
        if r > outer + edge_tolerance:
            return None
        sin_elbow, cos_elbow = 0.0, 1.0
    elif r < inner:
        if r < inner - edge_tolerance:
            return None
        sin_elbow, cos_elbow = 0.0, -1.0
    else:
        k = 2.0 * l1 * l2
        sin_elbow = math.sqrt((outer - r) * (outer + r) * (r - inner) * (r + inner)) / k
        cos_elbow = -triangle_cosine(l1, l2, r)
    phi = math.atan2(y, x)  # direction of the target
    beta = math.atan2(l2 * sin_elbow, l1 + l2 * cos_elbow)  # angle between link 1 and the target
    elbow = math.atan2(sin_elbow, cos_elbow)  # |theta_2|, in [0, pi]
    # phi is in (-pi, pi] and beta in [0, pi]: one turn brings theta_1 back into (-pi, pi].
    up_shoulder = phi + beta
    if up_shoulder > math.pi:
        up_shoulder -= TAU
    down_shoulder = phi - beta
    if down_shoulder <= -math.pi:
        down_shoulder += TAU
    up_elbow = math.pi if elbow >= math.pi else (-elbow if elbow > 0.0 else 0.0)
    return (up_shoulder, up_elbow), (down_shoulder, elbow), sin_elbow


def wrist_point(x: float, y: float, heading: float, l3: float) -> tuple[float, float]:
    """The wrist (start of the last link, length `l3` m) of a tip at (x, y) m with `heading` rad.

    >>> wrist_point(1.0, 0.0, math.pi / 2, 0.5)
    (1.0, -0.5)
    """
    return x - l3 * math.cos(heading), y - l3 * math.sin(heading)


def three_link_ik(
    lengths: tuple[float, float, float],
    x: float,
    y: float,
    heading: float,
    edge_tolerance: float = 0.0,
) -> tuple[tuple[float, float, float], tuple[float, float, float], float] | None:
    """Both elbows of the 3R chain whose tip is at (x, y) (m) with `heading` (rad): the 2R
    solve of links 1-2 on the wrist point, then theta_3 = heading - theta_1 - theta_2 (wrapped
    to (-pi, pi]). Returns `(elbow_up, elbow_down, sin_elbow)` (`sin_elbow` as in
    `two_link_ik`), or None when the wrist point is off links 1-2's ring.

    The reference arm with a third link of 0.3 m pointing straight up: its wrist is the 2R
    reference tip (1.0731, 1.2727), so elbow down is joints 30, 45 and 15 degrees.

    >>> up, down, _ = three_link_ik((1.0, 0.8, 0.3), 1.0731, 1.5727, math.radians(90))
    >>> [round(math.degrees(q), 2) for q in down], [round(math.degrees(q), 2) for q in up]
    ([30.0, 45.0, 15.0], [69.73, -45.0, 65.27])
    """
    l1, l2, l3 = lengths
    wrist_x, wrist_y = wrist_point(x, y, heading, l3)
    elbows = two_link_ik(l1, l2, wrist_x, wrist_y, edge_tolerance)
    if elbows is None:
        return None
    (up1, up2), (down1, down2), sin_elbow = elbows
    up = (up1, up2, wrap_angle(heading - up1 - up2))
    down = (down1, down2, wrap_angle(heading - down1 - down2))
    return up, down, sin_elbow


def three_link_manipulability(
    lengths: tuple[float, float, float], joints: Sequence[float]
) -> float:
    """sqrt(det(Jp Jp^T)) (m^2) of the 3R chain `lengths` (m) at relative `joints` (rad): the
    Yoshikawa manipulability of the tip's position (see `PlanarChain.manipulability`).

    By Cauchy-Binet, det(Jp Jp^T) is the sum of the squared 2x2 minors of Jp. Column i of Jp is
    the tip seen from joint i turned by 90 degrees, the sum of the link vectors a_k from link i
    on, so the minor of columns i < j is cross(a_i + ... + a_(j-1), a_j + ... + a_n), and
    cross(a_k, a_m) = L_k L_m sin(theta_(k+1) + ... + theta_m). For 3R:

        m_12 = L1 (L2 sin theta_2 + L3 sin(theta_2 + theta_3))
        m_13 = L3 (L1 sin(theta_2 + theta_3) + L2 sin theta_3)
        m_23 = L2 L3 sin theta_3

    It does not depend on theta_1, and is 0 only when all three links are in line.

    >>> round(three_link_manipulability((1.0, 0.8, 0.3), (0.3, math.pi / 2, 0.0)), 12)
    1.140175425099
    >>> three_link_manipulability((1.0, 0.8, 0.3), (0.3, 0.0, 0.0))  # stretched out
    0.0
    """
    l1, l2, l3 = lengths
    sin_2, sin_3, sin_23 = math.sin(joints[1]), math.sin(joints[2]), math.sin(joints[1] + joints[2])
    m_12 = l1 * (l2 * sin_2 + l3 * sin_23)
    m_13 = l3 * (l1 * sin_23 + l2 * sin_3)
    m_23 = l2 * l3 * sin_3
    return math.sqrt(m_12 * m_12 + m_13 * m_13 + m_23 * m_23)


def reachable_headings(
    lengths: tuple[float, float, float], x: float, y: float, edge_tolerance: float = 0.0
) -> list[tuple[float, float]]:
    """Tool headings (rad, increasing pairs, possibly beyond (-pi, pi]) for which the 3R chain
    `lengths` (m) reaches (x, y) (m): those that put the wrist point on links 1-2's ring.

    |wrist|^2 = r^2 + L3^2 - 2 r L3 cos(h - phi) must lie within [inner^2, outer^2], which
    bounds cos(h - phi) from both sides (the law of cosines again). A tip on the edge of its own
    ring (up to rounding or `edge_tolerance`) gets the single heading that brings the wrist
    nearest to the 2R ring (h = phi or phi + pi), when that is within `edge_tolerance`.
    The counter-clockwise interval comes first.

    >>> def degrees(intervals):
    ...     return [(round(math.degrees(lo)), round(math.degrees(hi))) for lo, hi in intervals]
    >>> degrees(reachable_headings((1.0, 0.8, 0.3), 2.0, 0.0))
    [(-45, 45)]
    >>> degrees(reachable_headings((1.0, 0.5, 0.6), 1.0, 0.0))  # the wrist must clear the hole
    [(22, 138), (-138, -22)]
    """
    l1, l2, l3 = lengths
    inner, outer = abs(l1 - l2), l1 + l2
    r = math.hypot(x, y)
    phi = math.atan2(y, x)
    if r < 1e-12 * math.fsum(lengths):
        # The wrist stays L3 from the base whatever the heading.
        if inner - edge_tolerance <= l3 <= outer + edge_tolerance:
            return [(phi - math.pi, phi + math.pi)]
        return []
    cos_max = triangle_cosine(r, l3, inner)
    cos_min = triangle_cosine(r, l3, outer)
    if cos_max < -1.0:  # the wrist cannot get out to the inner edge: best h = phi + pi
        wrist = r + l3
        return [(phi + math.pi, phi + math.pi)] if wrist >= inner - edge_tolerance else []
    if cos_min > 1.0:  # the wrist cannot get in to the outer edge: best h = phi
        wrist = abs(r - l3)
        return [(phi, phi)] if wrist <= outer + edge_tolerance else []
    delta_lo = math.acos(min(1.0, cos_max))
    delta_hi = math.acos(max(-1.0, cos_min))
    if delta_lo == 0.0:
        if delta_hi >= math.pi:
            return [(phi - math.pi, phi + math.pi)]
        return [(phi - delta_hi, phi + delta_hi)]
    if delta_hi >= math.pi:
        return [(phi + delta_lo, phi + TAU - delta_lo)]
    return [(phi + delta_lo, phi + delta_hi), (phi - delta_hi, phi - delta_lo)]
