"""Vectorised IK over numpy arrays: the closed forms of `PlanarArm.solve` for N targets at once.

Same rules and statuses as the scalar solve (see `arm.py`), with these differences: one
`branch` for every target; no messages; `current` is one pose (n,) or one per target (N, n)
and is not chained (use `solve_chain` for targets seeded by each other); a 3R arm without
headings takes the heading pointing away from the base (else the nearest reachable one) and
does not search other headings when that one breaks a joint limit or to reduce motion from
`current` (the scalar solve does both). Units: metres and radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .angles import TAU
from .arm import (
    _NARROW,
    _NEAR_COINCIDENT,
    _UNLIMITED,
    HEADING_MATCH_TOLERANCE,
    LIMIT_TOLERANCE,
    PlanarArm,
    _coerce_branch,
)
from .types import Branch, IkStatus

_PI = math.pi
CHUNK = 16384
"""Targets per block: solve_batch works through longer arrays block by block."""


@dataclass(frozen=True)
class BatchResult:
    """IK of N targets: `status` (N,) uint8 IkStatus values; `joints` (N, n) radians, NaN rows
    where there is no solution; `manipulability` (N,) m^2, 0 without a solution."""

    status: np.ndarray
    joints: np.ndarray
    manipulability: np.ndarray

    @property
    def ok(self) -> np.ndarray:
        """(N,) bool: OK or SINGULAR."""
        return self.status <= IkStatus.SINGULAR

    def __len__(self) -> int:
        return len(self.status)


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Wrap to (-pi, pi] in place (for values within (-3 pi, 3 pi], as produced here)."""
    angle[angle > _PI] -= TAU
    angle[angle <= -_PI] += TAU
    return angle


def _invalid(count: int, n: int) -> BatchResult:
    return BatchResult(
        status=np.full(count, IkStatus.INVALID_INPUT, dtype=np.uint8),
        joints=np.full((count, n), np.nan),
        manipulability=np.zeros(count),
    )


def solve_batch(
    arm: PlanarArm,
    x: Any,
    y: Any,
    heading: Any = None,
    branch: Branch | int = Branch.CLOSEST,
    current: Any = None,
) -> BatchResult:
    """IK for arrays of targets x, y (N,) and optional headings (N,) (NaN = no heading is not
    supported: give all or none). Never raises for bad numbers: INVALID_INPUT rows; a bad
    `branch`, `current` or shape makes every row INVALID_INPUT."""
    n = arm.n_joints
    try:
        xs = np.asarray(x, dtype=float).reshape(-1)
        ys = np.asarray(y, dtype=float).reshape(-1)
        hs = None if heading is None else np.asarray(heading, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return _invalid(0, n)
    count = len(xs)
    if len(ys) != count or (hs is not None and len(hs) not in (1, count)):
        return _invalid(max(count, len(ys)), n)
    if hs is not None and len(hs) == 1 and count != 1:
        hs = np.full(count, hs[0])
    # A Branch or its int value (not its name, unlike the scalar solve).
    checked_branch = None if isinstance(branch, str) else _coerce_branch(branch)
    if checked_branch is None:
        return _invalid(count, n)
    branch = checked_branch
    ref = None
    if current is not None:
        try:
            ref = np.asarray(current, dtype=float)
        except (TypeError, ValueError):
            return _invalid(count, n)
        if ref.shape == (n,):
            ref = np.broadcast_to(ref, (count, n))
        if ref.shape != (count, n) or not np.isfinite(ref).all():
            return _invalid(count, n)
    if n > 3:
        return _invalid(count, n)

    with np.errstate(invalid="ignore", over="ignore"):
        if count <= CHUNK:
            return _solve_block(arm, xs, ys, hs, branch, ref)
        # Blocks whose temporaries stay in cache are about 3x faster than whole arrays.
        status = np.empty(count, dtype=np.uint8)
        joints = np.empty((count, n))
        manipulability = np.empty(count)
        for start in range(0, count, CHUNK):
            block = slice(start, start + CHUNK)
            part = _solve_block(
                arm,
                xs[block],
                ys[block],
                None if hs is None else hs[block],
                branch,
                None if ref is None else ref[block],
            )
            status[block] = part.status
            joints[block] = part.joints
            manipulability[block] = part.manipulability
        return BatchResult(status=status, joints=joints, manipulability=manipulability)


def _solve_block(
    arm: PlanarArm,
    xs: np.ndarray,
    ys: np.ndarray,
    hs: np.ndarray | None,
    branch: Branch,
    ref: np.ndarray | None,
) -> BatchResult:
    if hs is None and arm._fast:
        return _solve_2r_fast(arm, xs, ys, branch, ref)
    return _solve(arm, xs, ys, hs, branch, ref)


def _solve_2r_fast(
    arm: PlanarArm, xs: np.ndarray, ys: np.ndarray, branch: Branch, ref: np.ndarray | None
) -> BatchResult:
    """2R without headings, joints limited within (-pi, pi) or continuous: few array passes.

    The same answers as `_solve` (and the scalar solve); written for speed: no hypot (slow in
    numpy), arithmetic in place, the chosen elbow as a sign (joint 1 = phi + sign *
    beta, joint 2 = -sign * t2, exact) instead of a select, failures handled only if any.
    """
    count = len(xs)
    l1, l2 = arm.link_lengths
    k = 2.0 * l1 * l2
    inner, outer = abs(l1 - l2), l1 + l2
    tolerance = arm.edge_tolerance
    r2 = xs * xs
    r2 += ys * ys
    r = np.sqrt(r2)
    c2 = r * r
    c2 -= l1 * l1 + l2 * l2
    c2 /= k
    # sin(t2) from factors that keep their precision at both edges, as the scalar solve; beyond
    # an edge (within the tolerance) the product is negative: on the edge, s2 = 0.
    s2 = outer - r
    s2 *= outer + r
    s2 *= r - inner
    s2 *= r + inner
    np.maximum(s2, 0.0, out=s2)
    np.sqrt(s2, out=s2)
    s2 /= k
    phi = np.arctan2(ys, xs)
    t2 = np.arctan2(s2, c2)
    c2 *= l2
    c2 += l1
    beta = np.arctan2(l2 * s2, c2)

    limited = arm._fast_limited
    sign: np.ndarray | float
    feasible = None
    if limited or (branch is Branch.CLOSEST and ref is not None):
        up1 = phi + beta
        up1 -= (up1 > _PI) * TAU
        down1 = phi - beta
        down1 += (down1 <= -_PI) * TAU
    if limited:
        (lo1, hi1), (lo2, hi2) = arm.joint_limits
        lo1t, lo2t = lo1 - LIMIT_TOLERANCE, lo2 - LIMIT_TOLERANCE
        hi1t, hi2t = hi1 + LIMIT_TOLERANCE, hi2 + LIMIT_TOLERANCE
        # Elbow up has joint 2 = -t2, elbow down +t2 (t2 in [0, pi]).
        up_ok = (up1 >= lo1t) & (up1 <= hi1t) & (t2 <= -lo2t) & (t2 >= -hi2t)
        down_ok = (down1 >= lo1t) & (down1 <= hi1t) & (t2 >= lo2t) & (t2 <= hi2t)
        down_ok &= (s2 != 0.0) | ~up_ok  # coincident branches: one configuration
    if branch is Branch.ELBOW_UP:
        sign = 1.0
        if limited:
            feasible = up_ok
    elif branch is Branch.ELBOW_DOWN:
        sign = -1.0
        if limited:
            feasible = down_ok | (up_ok & (s2 == 0.0))
            sign = 1.0 - 2.0 * down_ok
    else:
        if branch is Branch.CLOSEST and ref is not None:
            d1 = up1 - ref[:, 0]
            d2 = -t2 - ref[:, 1]
            e1 = down1 - ref[:, 0]
            e2 = t2 - ref[:, 1]
            if not limited:
                for d in (d1, d2, e1, e2):
                    d += _PI
                    np.remainder(d, TAU, out=d)
                    d -= _PI
            d1 *= d1
            d2 *= d2
            d1 += d2
            e1 *= e1
            e2 *= e2
            e1 += e2
            take_down = e1 < d1
        elif limited:
            margin_up = np.minimum(up1 - lo1, hi1 - up1)
            np.minimum(margin_up, -t2 - lo2, out=margin_up)
            np.minimum(margin_up, hi2 + t2, out=margin_up)
            margin_down = np.minimum(down1 - lo1, hi1 - down1)
            np.minimum(margin_down, t2 - lo2, out=margin_down)
            np.minimum(margin_down, hi2 - t2, out=margin_down)
            take_down = margin_down > margin_up
        else:
            take_down = None  # margins tie without limits: elbow up
        if limited:
            take_down |= ~up_ok
            take_down &= down_ok
            feasible = up_ok | down_ok
        sign = 1.0 if take_down is None else 1.0 - 2.0 * take_down

    status = (s2 < arm.singularity_margin).view(np.uint8)  # OK = 0, SINGULAR = 1
    solved = feasible
    if feasible is not None:  # JOINT_LIMIT (4) where infeasible, even if singular
        status = np.maximum(status, (~feasible).view(np.uint8) * np.uint8(IkStatus.JOINT_LIMIT))
    far = r > outer + tolerance
    close = r < inner - tolerance
    on_ring = ~(far | close)
    on_ring &= r == r  # NaN
    if not on_ring.all():
        solved = on_ring if solved is None else solved & on_ring
        ring_status = far.view(np.uint8) * np.uint8(IkStatus.TOO_FAR)
        ring_status += close.view(np.uint8) * np.uint8(IkStatus.TOO_CLOSE)
        status = np.where(on_ring, status, ring_status)
        invalid = ~np.isfinite(r)
        if invalid.any():
            invalid &= ~(np.isfinite(xs) & np.isfinite(ys))  # not just an overflow of x * x
            status[invalid] = IkStatus.INVALID_INPUT

    theta1 = sign * beta
    theta1 += phi
    theta1 -= (theta1 > _PI) * TAU
    theta1 += (theta1 <= -_PI) * TAU
    theta2 = np.multiply(-sign, t2, out=t2) if isinstance(sign, np.ndarray) else -sign * t2
    if (theta2 <= -_PI).any():  # elbow up at full fold: -pi is +pi
        theta2[theta2 <= -_PI] = _PI
    manipulability = s2
    manipulability *= l1 * l2
    if solved is not None and not solved.all():
        unsolved = ~solved
        np.copyto(theta1, np.nan, where=unsolved)
        np.copyto(theta2, np.nan, where=unsolved)
        np.copyto(manipulability, 0.0, where=unsolved)
    joints = np.empty((count, 2))
    joints[:, 0] = theta1
    joints[:, 1] = theta2
    return BatchResult(status=status, joints=joints, manipulability=manipulability)


def _solve(
    arm: PlanarArm,
    xs: np.ndarray,
    ys: np.ndarray,
    hs: np.ndarray | None,
    branch: Branch,
    ref: np.ndarray | None,
) -> BatchResult:
    n = arm.n_joints
    count = len(xs)
    valid = np.isfinite(xs) & np.isfinite(ys)
    if hs is not None:
        valid &= np.isfinite(hs)
    xs = np.where(valid, xs, 0.0)
    ys = np.where(valid, ys, 0.0)
    if hs is not None:
        hs = np.remainder(np.where(valid, hs, 0.0) + _PI, TAU) - _PI
    l1, l2 = arm.link_lengths[0], arm.link_lengths[1]
    inner, outer = abs(l1 - l2), l1 + l2
    tolerance = arm.edge_tolerance
    r = np.sqrt(xs * xs + ys * ys)  # as the scalar solve, to the bit
    tip_inner, tip_outer = arm._tip_ring
    too_far = r > tip_outer + tolerance
    too_close = r < tip_inner - tolerance

    heading_given = hs is not None
    if n == 3:
        l3 = arm.link_lengths[2]
        if hs is None:
            hs = _away_headings(arm, xs, ys, r)
        wx = xs - l3 * np.cos(hs)
        wy = ys - l3 * np.sin(hs)
        wr = np.sqrt(wx * wx + wy * wy)
    else:
        wx, wy, wr = xs, ys, r
    off_ring = (wr > outer + tolerance) | (wr < inner - tolerance)

    # 2R on (wx, wy): law of cosines with atan2; on the edges s2 = 0 exactly.
    k = 2.0 * l1 * l2
    prod = (outer - wr) * (outer + wr) * (wr - inner) * (wr + inner)
    np.maximum(prod, 0.0, out=prod)
    s2 = np.sqrt(prod)
    s2 /= k
    c2 = wr * wr
    c2 -= l1 * l1 + l2 * l2
    c2 /= k
    outside = wr > outer
    c2[outside] = 1.0
    c2[wr < inner] = -1.0
    phi = np.arctan2(wy, wx)
    beta = np.arctan2(l2 * s2, l1 + l2 * c2)
    t2 = np.arctan2(s2, c2)
    up1 = _wrap(phi + beta)
    down1 = _wrap(phi - beta)
    up2 = -t2
    up2[t2 >= _PI] = _PI
    down2 = t2
    coincident = s2 == 0.0
    up_ok = np.ones(count, dtype=bool)
    down_ok = np.ones(count, dtype=bool)

    orientation = np.zeros(count, dtype=bool)
    if n == 3 and heading_given:
        orientation = off_ring
    elif n == 3:  # the away heading misses the ring only at the tip ring's edges
        too_far |= off_ring & (wr > outer)
        too_close |= off_ring & (wr < inner)
    if n == 2 and hs is not None:
        ex = xs - l2 * np.cos(hs)
        ey = ys - l2 * np.sin(hs)
        slack = HEADING_MATCH_TOLERANCE + np.maximum(np.maximum(r - outer, inner - r), 0.0)
        meets = np.abs(np.hypot(ex, ey) - l1) <= slack
        m1 = np.arctan2(ey, ex)
        m2 = _wrap(hs - m1)
        near = s2 < _NEAR_COINCIDENT
        as_up = meets & (near | (m2 < 0.0))
        as_down = meets & (near | (m2 >= 0.0))
        up1 = np.where(as_up, m1, up1)
        up2 = np.where(as_up, m2, up2)
        down1 = np.where(as_down, m1, down1)
        down2 = np.where(as_down, m2, down2)
        coincident = coincident | near
        up_ok &= as_up
        down_ok &= as_down
        orientation = ~meets
        if branch is Branch.ELBOW_UP:
            orientation = orientation | ~as_up
        elif branch is Branch.ELBOW_DOWN:
            orientation = orientation | ~as_down

    ups = [up1, up2]
    downs = [down1, down2]
    if n == 3:
        ups.append(_wrap(_wrap(hs - up1) - up2))
        downs.append(_wrap(_wrap(hs - down1) - down2))

    # Joint limits, with the k * 2 pi shifts of the scalar solve.
    reference = ref if ref is not None else np.zeros((count, n))
    for j, ((lo, hi), kind) in enumerate(zip(arm.joint_limits, arm._kinds, strict=True)):
        if kind == _UNLIMITED:
            continue
        for values, ok in ((ups, up_ok), (downs, down_ok)):
            q = values[j]
            if kind == _NARROW and lo > -_PI and hi < _PI:
                ok &= (q >= lo - LIMIT_TOLERANCE) & (q <= hi + LIMIT_TOLERANCE)
                continue
            k_min = np.ceil((lo - LIMIT_TOLERANCE - q) / TAU) if lo != -math.inf else -np.inf
            k_max = np.floor((hi + LIMIT_TOLERANCE - q) / TAU) if hi != math.inf else np.inf
            ok &= k_min <= k_max
            inside = (q >= lo) & (q <= hi)
            shift = np.clip(np.round((reference[:, j] - q) / TAU), k_min, k_max)
            shifted = q + np.where(np.isfinite(shift), shift, 0.0) * TAU
            values[j] = np.where(inside & (kind == _NARROW), q, shifted)

    up = np.column_stack(ups)
    down = np.column_stack(downs)
    # Coincident branches: one configuration.
    down_ok &= ~(coincident & up_ok)

    if branch is Branch.ELBOW_UP:
        take_down = coincident & down_ok & ~up_ok
        feasible = up_ok | take_down
    elif branch is Branch.ELBOW_DOWN:
        take_down = down_ok
        feasible = down_ok | (coincident & up_ok)
    else:
        if branch is Branch.CLOSEST and ref is not None:
            continuous = np.array([kind == _UNLIMITED for kind in arm._kinds])
            d_up = up - ref
            d_down = down - ref
            if continuous.any():
                d_up[:, continuous] = np.remainder(d_up[:, continuous] + _PI, TAU) - _PI
                d_down[:, continuous] = np.remainder(d_down[:, continuous] + _PI, TAU) - _PI
            better_down = (d_down * d_down).sum(axis=1) < (d_up * d_up).sum(axis=1)
        else:
            lows = np.array([lo for lo, _ in arm.joint_limits])
            highs = np.array([hi for _, hi in arm.joint_limits])
            margin_up = np.minimum(up - lows, highs - up).min(axis=1)
            margin_down = np.minimum(down - lows, highs - down).min(axis=1)
            better_down = margin_down > margin_up
        take_down = down_ok & (~up_ok | better_down)
        feasible = up_ok | down_ok
    joints = np.where(take_down[:, None], down, up)

    status = np.zeros(count, dtype=np.uint8)  # IkStatus.OK
    status[s2 < arm.singularity_margin] = IkStatus.SINGULAR
    status[~feasible] = IkStatus.JOINT_LIMIT
    status[orientation] = IkStatus.ORIENTATION_UNREACHABLE
    status[too_close] = IkStatus.TOO_CLOSE
    status[too_far] = IkStatus.TOO_FAR
    status[~valid] = IkStatus.INVALID_INPUT
    solved = status <= IkStatus.SINGULAR
    joints[~solved] = np.nan
    manipulability = l1 * l2 * s2 if n == 2 else _manipulability_3r(arm, joints)
    manipulability[~solved] = 0.0
    return BatchResult(status=status, joints=joints, manipulability=manipulability)


def _away_headings(arm: PlanarArm, xs: np.ndarray, ys: np.ndarray, r: np.ndarray) -> np.ndarray:
    """3R without a heading: atan2(y, x) when reachable, else the nearest reachable heading
    (the counter-clockwise one of the two), as the scalar solve without `current`."""
    l1, l2, l3 = arm.link_lengths
    inner = abs(l1 - l2)
    phi = np.arctan2(ys, xs)
    safe_r = np.where(r > 0.0, r, 1.0)
    cos_max = (r * r + l3 * l3 - inner * inner) / (2.0 * safe_r * l3)
    delta_lo = np.arccos(np.clip(cos_max, -1.0, 1.0))
    delta_lo[cos_max >= 1.0] = 0.0
    delta_lo[r == 0.0] = 0.0
    return phi + delta_lo


def _manipulability_3r(arm: PlanarArm, joints: np.ndarray) -> np.ndarray:
    l1, l2, l3 = arm.link_lengths
    a1 = joints[:, 0]
    a2 = a1 + joints[:, 1]
    a3 = a2 + joints[:, 2]
    o1 = np.column_stack((l1 * np.cos(a1), l1 * np.sin(a1)))
    o2 = o1 + np.column_stack((l2 * np.cos(a2), l2 * np.sin(a2)))
    tip = o2 + np.column_stack((l3 * np.cos(a3), l3 * np.sin(a3)))
    arms = (tip, tip - o1, tip - o2)
    total = np.zeros(len(joints))
    for i in range(3):
        for j in range(i + 1, 3):
            cross = arms[i][:, 0] * arms[j][:, 1] - arms[i][:, 1] * arms[j][:, 0]
            total += cross * cross
    return np.sqrt(total)
