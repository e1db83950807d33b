"""Closed-form inverse kinematics of the planar 2R chain, and the wrist point of a 3R chain.

Each formula is written once and runs on floats (one target) or on numpy arrays (many targets
at once): see `array_api`. Metres and radians, relative joint angles, base frame. Joint limits,
branch choice and statuses are not applied here (see `branches.py`, `arm.py` and `many.py`).

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
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from ..angles import TAU, wrap_angle

HEADING_MATCH_TOLERANCE = 1e-10
"""m: a 2R arm meets a requested heading h at (x, y) when the elbow point (x, y) - L2 (cos h,
sin h) lies this close to L1 from the base (plus the part of the target outside the ring)."""
NEAR_COINCIDENT = 1e-7
"""|sin(joint 2)| below which a heading cannot tell the two elbows apart."""


def on_edge(l1: float, l2: float, r: Any) -> Any:
    """Whether a point at `r` (m) from the base, inside the 2R ring of links `l1`, `l2` (m), is
    on one of its edges up to rounding: within NEAR_COINCIDENT**2 of the outer radius
    (relative), the distance that an |sin(joint 2)| of NEAR_COINCIDENT leaves there. Not the
    sine alone: where the links are equal the inner edge is the base itself, and a point 1e-7 m
    from it has an elbow of |sin| 1e-7 that is no edge pose (the folded pose misses it by r).

    >>> on_edge(1.0, 1.0, 2.0 - 1e-15), on_edge(1.0, 1.0, 9.4e-8), on_edge(1.0, 0.8, 0.2)
    (True, False, True)
    """
    outer, inner = l1 + l2, abs(l1 - l2)
    return (outer - r <= NEAR_COINCIDENT**2 * outer) | (r - inner <= NEAR_COINCIDENT**2 * outer)


def triangle_cosine(a: Any, b: Any, opposite: Any) -> Any:
    """cos of the angle between sides `a` and `b` of a triangle whose third side is `opposite`
    (law of cosines; any consistent length unit). Outside [-1, 1] when no such triangle exists.

    >>> triangle_cosine(3.0, 4.0, 5.0)
    0.0
    >>> triangle_cosine(1.0, 1.0, 1.0)
    0.5
    """
    return (a * a + b * b - opposite * opposite) / (2.0 * a * b)


def elbow_sine(l1: float, l2: float, r: Any, xp: ModuleType = math) -> Any:
    """|sin theta_2| of the 2R chain (links `l1`, `l2`, m) whose tip is `r` m from the base, r
    within the ring |l1 - l2| <= r <= l1 + l2: the factored law of cosines (module docstring).
    `xp`: `math` for floats, numpy for arrays (`array_api`).

    >>> round(elbow_sine(1.0, 0.8, math.hypot(1.0731, 1.2727)), 4), elbow_sine(1.0, 0.8, 1.8)
    (0.7071, 0.0)
    """
    outer, inner = l1 + l2, abs(l1 - l2)
    return xp.sqrt((outer - r) * (outer + r) * (r - inner) * (r + inner)) / (2.0 * l1 * l2)


def two_link_angles(
    l1: float, l2: float, x: Any, y: Any, sin_elbow: Any, cos_elbow: Any, xp: ModuleType = math
) -> tuple[Any, Any, Any, Any]:
    """Both elbows' joints (rad) of the 2R chain (links `l1`, `l2`, m) with its tip at (x, y)
    (m) and its elbow angle's sine and cosine (|theta_2|, from the law of cosines):
    (up shoulder, up elbow, down shoulder, down elbow). Elbow up has theta_2 <= 0, elbow down
    theta_2 >= 0; the shoulders in (-pi, pi], the elbows in [-pi, pi] (pi, not -pi, at full
    fold; never -0.0). `xp`: `math` for floats, numpy for arrays.

    >>> up_1, up_2, down_1, down_2 = two_link_angles(1.0, 0.8, 1.0731, 1.2727, 0.7071, 0.7071)
    >>> [round(math.degrees(q), 1) for q in (down_1, down_2, up_1, up_2)]
    [30.0, 45.0, 69.7, -45.0]
    """
    phi = xp.atan2(y, x)  # the direction of the target
    beta = xp.atan2(l2 * sin_elbow, l1 + l2 * cos_elbow)  # between link 1 and the target
    elbow = xp.atan2(sin_elbow, cos_elbow)  # |theta_2|, in [0, pi]
    # phi is in (-pi, pi] and beta in [0, pi]: one turn brings theta_1 back into (-pi, pi].
    up_shoulder = phi + beta
    up_shoulder = up_shoulder - TAU * (up_shoulder > math.pi)
    down_shoulder = phi - beta
    down_shoulder = down_shoulder + TAU * (down_shoulder <= -math.pi)
    up_elbow = TAU * (elbow >= math.pi) - elbow + 0.0  # + 0.0: never -0.0
    return up_shoulder, up_elbow, down_shoulder, elbow


def two_link_ik(
    l1: float, l2: float, x: float, y: float, edge_tolerance: float = 0.0
) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """Both elbows of the 2R chain with links `l1`, `l2` (m) whose tip is at (x, y) (m), one
    target on floats (`two_link_ik_many` is the same for arrays).

    Returns `(elbow_up, elbow_down, sin_elbow)` (`two_link_angles`), `sin_elbow` = |sin
    theta_2| (0 at full stretch or fold, where both elbows coincide). None when (x, y) lies
    outside the ring inner <= r <= outer by more than `edge_tolerance` (m); a point outside by
    less is solved on the edge (theta_2 exactly 0 or pi), and so is a point whose |sin
    theta_2| is below NEAR_COINCIDENT and that is `on_edge` (within about 1e-14 m of it), where
    rounding of the target decides the sign of theta_2 and the edge's pose reaches it to that
    distance.

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
        sin_elbow, cos_elbow = elbow_sine(l1, l2, r), -triangle_cosine(l1, l2, r)
        if sin_elbow < NEAR_COINCIDENT and on_edge(l1, l2, r):  # up to rounding: on it
            sin_elbow, cos_elbow = 0.0, (1.0 if cos_elbow > 0.0 else -1.0)
    up_1, up_2, down_1, down_2 = two_link_angles(l1, l2, x, y, sin_elbow, cos_elbow)
    return (up_1, up_2), (down_1, down_2), sin_elbow


def two_link_ik_many(
    l1: float, l2: float, x: np.ndarray, y: np.ndarray, edge_tolerance: float = 0.0
) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """`two_link_ik` for arrays of targets (m): `(solved, (up_1, up_2, down_1, down_2),
    sin_elbow)`, `solved` False where `two_link_ik` gives None (the angles there are those of
    the nearest edge: defined, not meaningful).

    >>> solved, (up_1, up_2, down_1, down_2), _ = two_link_ik_many(
    ...     1.0, 0.8, np.array([1.0731, 2.0]), np.array([1.2727, 0.0]))
    >>> solved.tolist(), [round(math.degrees(q), 2) for q in (down_1[0], down_2[0])]
    ([True, False], [30.0, 45.0])
    """
    r = np.sqrt(x * x + y * y)
    outer, inner = l1 + l2, abs(l1 - l2)
    beyond, within = r > outer, r < inner
    solved = (r <= outer + edge_tolerance) & (r >= inner - edge_tolerance)
    on_ring = np.clip(r, inner, outer)
    sin_elbow = elbow_sine(l1, l2, on_ring, np)
    cos_elbow = -triangle_cosine(l1, l2, on_ring)
    edge = beyond | within | ((sin_elbow < NEAR_COINCIDENT) & on_edge(l1, l2, on_ring))
    cos_elbow = np.where(
        edge, np.where(beyond | (~within & (cos_elbow > 0.0)), 1.0, -1.0), cos_elbow
    )
    sin_elbow = np.where(edge, 0.0, sin_elbow)
    return solved, two_link_angles(l1, l2, x, y, sin_elbow, cos_elbow, np), sin_elbow


def wrist_point(x: Any, y: Any, heading: Any, l3: float, xp: ModuleType = math) -> tuple[Any, Any]:
    """The wrist (start of the last link, length `l3` m) of a tip at (x, y) m with `heading`
    rad (`xp`: `math` for floats, numpy for arrays).

    >>> wrist_point(1.0, 0.0, math.pi / 2, 0.5)
    (1.0, -0.5)
    """
    return x - l3 * xp.cos(heading), y - l3 * xp.sin(heading)


def last_joint(heading: Any, q1: Any, q2: Any, wrap: Callable[[Any], Any] = wrap_angle) -> Any:
    """Joint 3 (rad, in (-pi, pi]) of a 3R chain whose first two joints are q1, q2 (rad) and
    whose tool has `heading` (rad): the heading is the sum of the three (`wrap`: `wrap_angle`
    for floats, `wrap_angles` for arrays).

    >>> round(math.degrees(last_joint(math.radians(90), math.radians(30), math.radians(45))), 6)
    15.0
    """
    return wrap(heading - q1 - q2)


def three_link_ik(
    lengths: tuple[float, float, float],
    x: float,
    y: float,
    heading: float,
    edge_tolerance: float = 0.0,
) -> tuple[tuple[float, float, float], tuple[float, float, float], float] | None:
    """Both elbows of the 3R chain whose tip is at (x, y) (m) with `heading` (rad): the 2R
    solve of links 1-2 on the wrist point, then `last_joint`. Returns `(elbow_up, elbow_down,
    sin_elbow)` (`sin_elbow` as in `two_link_ik`), or None when the wrist point is off links
    1-2's ring.

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
    up = (up1, up2, last_joint(heading, up1, up2))
    down = (down1, down2, last_joint(heading, down1, down2))
    return up, down, sin_elbow


class HeadingIk(dict):
    """`three_link_ik` of one target (x, y) (m) of a 3R `chain` by heading (rad): `ik[heading]`
    is (elbow up, elbow down, |sin theta_2|), or None off the ring, each heading solved once
    (a heading search asks again for headings it has seen: both elbows at one heading, then
    the solve at the heading it picks). A dict that fills itself (`__missing__`).

    >>> from arm_kinematics.kinematics import PlanarChain
    >>> ik = HeadingIk(PlanarChain((1.0, 0.8, 0.3)), 1.0731, 1.5727)
    >>> ik[math.radians(90)] is ik[math.radians(90)], ik[math.radians(-90)] is None
    (True, True)
    """

    def __init__(self, chain: Any, x: float, y: float) -> None:
        self.lengths: tuple[float, float, float] = chain.link_lengths
        self.edge_tolerance: float = chain.edge_tolerance
        self.x, self.y = x, y

    def __missing__(
        self, heading: float
    ) -> tuple[tuple[float, float, float], tuple[float, float, float], float] | None:
        elbows = three_link_ik(self.lengths, self.x, self.y, heading, self.edge_tolerance)
        self[heading] = elbows
        return elbows


def three_link_manipulability(
    lengths: tuple[float, float, float], joints: Sequence[Any], xp: ModuleType = math
) -> Any:
    """sqrt(det(Jp Jp^T)) (m^2) of the 3R chain `lengths` (m) at relative `joints` (rad): the
    Yoshikawa manipulability of the tip's position (see `PlanarChain.manipulability`).

    By Cauchy-Binet, det(Jp Jp^T) is the sum of the squared 2x2 minors of Jp. Column i of Jp is
    the tip seen from joint i turned by 90 degrees, the sum of the link vectors a_k from link i
    on, so the minor of columns i < j is cross(a_i + ... + a_(j-1), a_j + ... + a_n), and
    cross(a_k, a_m) = L_k L_m sin(theta_(k+1) + ... + theta_m). For 3R:

        m_12 = L1 (L2 sin theta_2 + L3 sin(theta_2 + theta_3))
        m_13 = L3 (L1 sin(theta_2 + theta_3) + L2 sin theta_3)
        m_23 = L2 L3 sin theta_3

    It does not depend on theta_1, and is 0 only when all three links are in line. `xp`:
    `math` for floats, numpy for arrays.

    >>> round(three_link_manipulability((1.0, 0.8, 0.3), (0.3, math.pi / 2, 0.0)), 12)
    1.140175425099
    >>> three_link_manipulability((1.0, 0.8, 0.3), (0.3, 0.0, 0.0))  # stretched out
    0.0
    """
    l1, l2, l3 = lengths
    sin_2, sin_3, sin_23 = xp.sin(joints[1]), xp.sin(joints[2]), xp.sin(joints[1] + joints[2])
    m_12 = l1 * (l2 * sin_2 + l3 * sin_23)
    m_13 = l3 * (l1 * sin_23 + l2 * sin_3)
    m_23 = l2 * l3 * sin_3
    return xp.sqrt(m_12 * m_12 + m_13 * m_13 + m_23 * m_23)
