"""The planar serial arm: forward kinematics, Jacobian and closed-form IK for 2R and 3R.

Conventions: lengths in metres, angles in radians, joint angles relative (link i's absolute
angle is the sum of joints 1..i; 0 means link i is in line with link i-1, link 1 along +x of the
base frame), counter-clockwise positive seen from +z. A pose is `(x, y, heading)` in the base
frame, heading being the absolute angle of the last link.

IK rules, in order of precedence of the statuses:

1. INVALID_INPUT: a target or heading that is not a finite number, a `current` of the wrong
   length or with a non-finite value, a branch that is not a `Branch` value, or an arm with more
   than 3 joints (the closed forms cover 2R and 3R).
2. TOO_FAR / TOO_CLOSE: the target's distance r from the base lies outside the ring
   `|L1 - L2| <= r <= L1 + L2` (2R) or outside the tip's reachable ring of a 3R arm
   (`max(0, 2 max(L) - sum(L)) <= r <= sum(L)`); checked on r before any trigonometry. A target
   outside the ring by at most `edge_tolerance` (m) is solved on the edge (joint 2 exactly 0 or
   pi) and flagged SINGULAR; the round trip `forward(joints) == target` to 1e-9 m is promised
   for targets inside the ring.
3. ORIENTATION_UNREACHABLE: the position is reachable but not with the requested heading: for
   3R the wrist point `target - L3 (cos h, sin h)` lies outside the 2R ring of links 1-2; a 2R
   arm meets a requested heading h only when one of its two solutions has it: when the elbow
   point `target - L2 (cos h, sin h)` lies L1 from the base (to HEADING_MATCH_TOLERANCE m, which
   is about 1e-10 / L2 rad of heading away from full stretch).
4. JOINT_LIMIT: geometrically reachable, but every candidate (or the explicitly requested elbow)
   breaks a joint limit. Never hidden by the SINGULAR flag.
5. SINGULAR: solved, but |sin(joint 2)| (of the 2R part / the wrist solve) is below
   `singularity_margin`: near full stretch or full fold, where joint speeds blow up.
6. OK.

Joint limits: `None` (or a `None` or `(-inf, inf)` pair) is a continuous joint; its IK angles are
wrapped to (-pi, pi] and its motion is measured the short way round. A limited joint's angle is
the value within its limits among `angle + k * 2 pi` (the one nearest `current` when several
fit), motion measured directly. An angle up to LIMIT_TOLERANCE (1e-9 rad) outside a limit counts
as within it and is returned as computed, never clamped: near full stretch a target at a limit is
ill-conditioned (rounding of 1e-16 m in the target moves the angles by up to ~1e-8 rad).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .angles import TAU, wrap_angle
from .types import Branch, DeferredText, IkResult, IkStatus

if TYPE_CHECKING:
    from .batch import BatchResult

_PI = math.pi
_MINUS_PI = -math.pi
_INF = math.inf
_atan2 = math.atan2
_sqrt = math.sqrt
_hypot = math.hypot  # messages only: radii are sqrt(x * x + y * y), bit-identical in numpy
_isfinite = math.isfinite
_cos = math.cos
_sin = math.sin
_tuple_new = tuple.__new__  # IkResult(...) without the Python-level __new__ (hot path)

_OK = IkStatus.OK
_SINGULAR = IkStatus.SINGULAR
_TOO_FAR = IkStatus.TOO_FAR
_TOO_CLOSE = IkStatus.TOO_CLOSE
_JOINT_LIMIT = IkStatus.JOINT_LIMIT
_ORIENTATION = IkStatus.ORIENTATION_UNREACHABLE
_INVALID = IkStatus.INVALID_INPUT

_CLOSEST = Branch.CLOSEST
_UP = Branch.ELBOW_UP
_DOWN = Branch.ELBOW_DOWN
_MARGIN = Branch.MAX_LIMIT_MARGIN
_BRANCH_BY_VALUE = {int(b): b for b in Branch}

LIMIT_TOLERANCE = 1e-9
"""rad: an angle this close outside a joint limit counts as within it (rounding; not clamped)."""
MIN_LINK_LENGTH = 1e-9
MAX_LINK_LENGTH = 1e9
HEADING_MATCH_TOLERANCE = 1e-10
"""m: a 2R arm meets a requested heading h at (x, y) when the elbow point (x, y) - L2 (cos h,
sin h) lies this close to L1 from the base (plus the part of the target outside the ring)."""
_NEAR_COINCIDENT = 1e-7  # |sin(joint 2)| below which the heading cannot tell the elbows apart

_UNLIMITED, _NARROW, _WIDE = 0, 1, 2
_BRANCH_WORDS = ("", "elbow up", "elbow down", "")
_MSG_UP_CLOSEST = "OK: solved elbow up (least motion from current)"
_MSG_DOWN_CLOSEST = "OK: solved elbow down (least motion from current)"
_MSG_UP_MARGIN = "OK: solved elbow up (largest joint-limit margin)"
_MSG_DOWN_MARGIN = "OK: solved elbow down (largest joint-limit margin)"
_MSG_UP = "OK: solved elbow up"
_MSG_DOWN = "OK: solved elbow down"
_MSG_UP_ONLY = "OK: solved elbow up (the only branch within limits)"
_MSG_DOWN_ONLY = "OK: solved elbow down (the only branch within limits)"
_HEADING_SAMPLES = 48  # per reachable heading interval, for the 3R free-heading search


def _deg(angle: float) -> str:
    return f"{math.degrees(angle):.2f} deg"


# Message texts, built only when a result's message is read (DeferredText): formatting floats
# costs more than a solve. Each takes the values it prints (immutable), nothing that may change.


def _too_far_text(x: float, y: float, r: float, outer: float) -> str:
    return (
        f"TOO_FAR: target ({x:.6g}, {y:.6g}) m is {r:.6g} m from the base, beyond the arm's "
        f"reach of {outer:.6g} m (by {r - outer:.3g} m)"
    )


def _too_close_text(x: float, y: float, r: float, inner: float) -> str:
    return (
        f"TOO_CLOSE: target ({x:.6g}, {y:.6g}) m is {r:.6g} m from the base, inside the "
        f"unreachable hole of radius {inner:.6g} m around the base (by {inner - r:.3g} m)"
    )


def _singular_text(ok_message: str | DeferredText, s2: float, margin: float) -> str:
    return (
        f"SINGULAR: {str(ok_message)[4:]}, but |sin(joint 2)| = {s2:.3g} is below the "
        f"singularity margin {margin:g}: slow down"
    )


def _solved_text(joints: tuple[float, ...], coincident: bool, reason: str) -> str:
    if coincident:
        shape = "at full fold" if abs(joints[1]) > 1.0 else "at full stretch"
    else:
        shape = "elbow up" if joints[1] < 0.0 else "elbow down"
    return f"OK: solved {shape}{reason}"


def _heading_note_text(result: IkResult, heading: float, rule: str) -> str:
    return f"{result.message}; heading {_deg(wrap_angle(heading))} chosen ({rule})"


def _heading_mismatch_text(
    x: float, y: float, heading: float, raw_up: tuple[float, ...], raw_down: tuple[float, ...]
) -> str:
    up_heading = wrap_angle(raw_up[0] + raw_up[1])
    down_heading = wrap_angle(raw_down[0] + raw_down[1])
    return (
        f"ORIENTATION_UNREACHABLE: a 2-joint arm reaches ({x:.6g}, {y:.6g}) only with "
        f"heading {_deg(up_heading)} (elbow up) or {_deg(down_heading)} (elbow down), "
        f"not the requested {_deg(heading)}"
    )


def _wrong_elbow_heading_text(
    x: float, y: float, heading: float, raw: tuple[float, ...], elbow: str, other: str
) -> str:
    reached = wrap_angle(raw[0] + raw[1])
    return (
        f"ORIENTATION_UNREACHABLE: {elbow} reaches ({x:.6g}, {y:.6g}) with heading "
        f"{_deg(reached)}, not {_deg(heading)}; {other} has the requested heading"
    )


def _orientation_3r_text(
    x: float,
    y: float,
    heading: float,
    wrist: tuple[float, float],
    ring: tuple[float, float],
    intervals: list[tuple[float, float]],
) -> str:
    if intervals:
        reachable = "; reachable headings there: " + ", ".join(
            f"[{_deg(wrap_angle(lo))}, {_deg(wrap_angle(lo) + hi - lo)}]" for lo, hi in intervals
        )
    else:
        reachable = ""
    wx, wy = wrist
    return (
        f"ORIENTATION_UNREACHABLE: ({x:.6g}, {y:.6g}) is reachable but not with heading "
        f"{_deg(heading)}: the wrist point ({wx:.6g}, {wy:.6g}) is "
        f"{_hypot(wx, wy):.6g} m from the base, outside the ring "
        f"[{ring[0]:.6g}, {ring[1]:.6g}] m of links 1-2{reachable}"
    )


def _shift_range(q: float, lo: float, hi: float) -> tuple[float, float]:
    """The k for which q + k * 2 pi lies within [lo, hi] (LIMIT_TOLERANCE of slack): k_min..k_max,
    +-inf on an unbounded side; empty (k_min > k_max) when no shift fits."""
    k_min = -_INF if lo == -_INF else math.ceil((lo - LIMIT_TOLERANCE - q) / TAU)
    k_max = _INF if hi == _INF else math.floor((hi + LIMIT_TOLERANCE - q) / TAU)
    return k_min, k_max


def _violation_words(
    joints: tuple[float, ...],
    limits: tuple[tuple[float, float], ...],
    kinds: tuple[int, ...],
    names: tuple[str, ...],
) -> str:
    """Words for the first joint of a raw candidate that no 2 pi shift brings into limits."""
    for index, q in enumerate(joints):
        lo, hi = limits[index]
        if kinds[index] == _UNLIMITED:
            continue
        k_min, k_max = _shift_range(q, lo, hi)
        if k_min > k_max:
            return f"{names[index]} = {_deg(q)}, outside [{_deg(lo)}, {_deg(hi)}]"
    return "a joint outside its limits"


def _limit_failure_text(
    branch: Branch,
    up: tuple[float, ...] | None,
    down: tuple[float, ...] | None,
    up_fit: tuple[float, ...] | None,
    down_fit: tuple[float, ...] | None,
    limits: tuple[tuple[float, float], ...],
    kinds: tuple[int, ...],
    names: tuple[str, ...],
) -> str:
    if branch is _UP or branch is _DOWN:
        wanted, raw, other_fit = (
            ("elbow up", up, down_fit) if branch is _UP else ("elbow down", down, up_fit)
        )
        other_words = "elbow down" if branch is _UP else "elbow up"
        tail = (
            f"; the {other_words} branch is feasible (request it or use closest)"
            if other_fit is not None
            else f"; the {other_words} branch is not feasible either"
        )
        return f"JOINT_LIMIT: {wanted} needs {_violation_words(raw, limits, kinds, names)}{tail}"
    parts = []
    for words, raw in (("elbow up", up), ("elbow down", down)):
        if raw is not None:
            parts.append(f"{words} needs {_violation_words(raw, limits, kinds, names)}")
    return "JOINT_LIMIT: reachable, but no solution is within the joint limits: " + "; ".join(parts)


def _no_heading_text(x: float, y: float, branch: Branch) -> str:
    return (
        f"JOINT_LIMIT: ({x:.6g}, {y:.6g}) is reachable, but no heading gives a solution "
        "within the joint limits"
        + (f" on the {_BRANCH_WORDS[branch]} branch" if _BRANCH_WORDS[branch] else "")
    )


def _coerce_branch(branch: Any) -> Branch | None:
    """The Branch for a Branch, a valid int value or a branch name; None when invalid."""
    if isinstance(branch, bool):
        return None
    if isinstance(branch, int | np.integer):
        return _BRANCH_BY_VALUE.get(int(branch))
    if isinstance(branch, str):
        try:
            return Branch.from_name(branch)
        except ValueError:
            return None
    return None


def _as_number(value: Any) -> float | None:
    """float(value) if it is a real number (any finiteness), else None."""
    if isinstance(value, str | bytes | bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


class PlanarArm:
    """A planar serial arm of n >= 2 revolute joints, one link after each joint.

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

    Raises:
        ValueError: naming the bad value.
    """

    def __init__(
        self,
        link_lengths: Sequence[float],
        joint_limits: Sequence[tuple[float, float] | None] | None = None,
        *,
        singularity_margin: float = 0.02,
        edge_tolerance: float = 1e-6,
        joint_names: Sequence[str] | None = None,
    ) -> None:
        lengths = self._check_lengths(link_lengths)
        n = len(lengths)
        self.link_lengths: tuple[float, ...] = lengths
        self.n_joints: int = n
        self.reach: float = math.fsum(lengths)
        self.joint_limits: tuple[tuple[float, float], ...] = self._check_limits(joint_limits, n)
        margin = _as_number(singularity_margin)
        if margin is None or not 0.0 <= margin < 1.0:
            raise ValueError(f"singularity_margin {singularity_margin!r} must be in [0, 1)")
        tolerance = _as_number(edge_tolerance)
        if tolerance is None or not (_isfinite(tolerance) and tolerance >= 0.0):
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

        # Precomputed numbers for the closed forms (links 1-2 form the 2R / wrist part).
        l1, l2 = lengths[0], lengths[1]
        self._l1, self._l2 = l1, l2
        self._k = 2.0 * l1 * l2
        self._l1sq_l2sq = l1 * l1 + l2 * l2
        self._ring_max = l1 + l2
        self._ring_min = abs(l1 - l2)
        self._l3 = lengths[2] if n >= 3 else 0.0
        self.ring: tuple[float, float] = (
            max(0.0, 2.0 * max(lengths) - self.reach),
            self.reach,
        )
        """Tip distances from the base that some configuration reaches, metres (n joints)."""
        # The ring the IK checks the tip against: for 2R the closed form's own bounds (equal to
        # `ring` up to rounding of 2 max(L) - sum(L)), so that the check and the solve agree.
        self._tip_ring = (self._ring_min, self._ring_max) if n == 2 else self.ring
        self._kinds = tuple(self._limit_kind(lo, hi) for lo, hi in self.joint_limits)
        self._any_limits = any(kind != _UNLIMITED for kind in self._kinds)
        self._zero_reference = (0.0,) * n
        self._l1l2 = l1 * l2
        # The inlined 2R path handles both joints narrow-limited or both continuous.
        self._fast_limited = all(
            kind == _NARROW and lo > -_PI and hi < _PI
            for kind, (lo, hi) in zip(self._kinds, self.joint_limits, strict=True)
        )
        self._fast = n == 2 and (self._fast_limited or not self._any_limits)
        (lo1, hi1), (lo2, hi2) = self.joint_limits[:2]
        self._fast_constants = (
            l1,
            l2,
            self._l1l2,
            self._k,
            self._l1sq_l2sq,
            self._ring_min,
            self._ring_max,
            lo1,
            hi1,
            lo2,
            hi2,
            self._fast_limited,
        )
        # Limits widened by LIMIT_TOLERANCE: "clearly out of limits" for the inlined path.
        self._fast_tolerant_limits = (
            lo1 - LIMIT_TOLERANCE,
            hi1 + LIMIT_TOLERANCE,
            lo2 - LIMIT_TOLERANCE,
            hi2 + LIMIT_TOLERANCE,
        )

    # --- construction ---------------------------------------------------------------------

    @staticmethod
    def _check_lengths(link_lengths: Any) -> tuple[float, ...]:
        if isinstance(link_lengths, str | bytes):
            raise ValueError(f"link_lengths {link_lengths!r} must be a sequence of numbers")
        try:
            raw = list(link_lengths)
        except TypeError:
            raise ValueError(
                f"link_lengths {link_lengths!r} must be a sequence of numbers"
            ) from None
        if len(raw) < 2:
            raise ValueError(f"link_lengths {raw!r} must give at least 2 links")
        lengths = []
        for index, value in enumerate(raw):
            length = _as_number(value)
            if length is None or not _isfinite(length) or length <= 0.0:
                raise ValueError(f"link length {index + 1} = {value!r} must be finite and > 0")
            if not MIN_LINK_LENGTH <= length <= MAX_LINK_LENGTH:
                # Keeps every product of the closed forms clear of overflow and underflow.
                raise ValueError(
                    f"link length {index + 1} = {value!r} m is outside the supported range "
                    f"[{MIN_LINK_LENGTH:g}, {MAX_LINK_LENGTH:g}] m"
                )
            lengths.append(length)
        return tuple(lengths)

    @staticmethod
    def _check_limits(joint_limits: Any, n: int) -> tuple[tuple[float, float], ...]:
        if joint_limits is None:
            return ((-_INF, _INF),) * n
        try:
            pairs = list(joint_limits)
        except TypeError:
            raise ValueError(f"joint_limits {joint_limits!r} must be (min, max) pairs") from None
        if len(pairs) != n:
            raise ValueError(f"joint_limits {joint_limits!r} must give {n} (min, max) pairs")
        limits = []
        for index, pair in enumerate(pairs):
            if pair is None:
                limits.append((-_INF, _INF))
                continue
            try:
                lo_raw, hi_raw = pair
            except (TypeError, ValueError):
                raise ValueError(
                    f"joint {index + 1} limits {pair!r} must be a (min, max) pair"
                ) from None
            lo, hi = _as_number(lo_raw), _as_number(hi_raw)
            if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
                raise ValueError(f"joint {index + 1} limits {pair!r} must be numbers")
            if lo > hi:
                raise ValueError(f"joint {index + 1} limits {pair!r}: min {lo} > max {hi}")
            if lo == _INF or hi == -_INF:
                raise ValueError(f"joint {index + 1} limits {pair!r} exclude every angle")
            limits.append((lo, hi))
        return tuple(limits)

    @staticmethod
    def _limit_kind(lo: float, hi: float) -> int:
        if lo == -_INF and hi == _INF:
            return _UNLIMITED
        return _WIDE if hi - lo >= TAU else _NARROW

    def __repr__(self) -> str:
        return (
            f"PlanarArm(link_lengths={self.link_lengths!r}, joint_limits={self.joint_limits!r}, "
            f"singularity_margin={self.singularity_margin!r}, "
            f"edge_tolerance={self.edge_tolerance!r})"
        )

    # --- forward kinematics ---------------------------------------------------------------

    def _joint_values(self, joints: Any) -> tuple[float, ...]:
        try:
            values = tuple(float(q) for q in joints)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"joints {joints!r} must be {self.n_joints} numbers") from None
        if len(values) != self.n_joints:
            raise ValueError(
                f"joints {joints!r} has {len(values)} values, the arm has {self.n_joints} joints"
            )
        if not all(_isfinite(q) for q in values):
            raise ValueError(f"joints {values!r} must be finite")
        return values

    def frames(self, joints: Sequence[float]) -> list[tuple[float, float, float]]:
        """Every frame from the base to the tip as (x, y, heading), n+1 entries, base first.

        The product of one homogeneous transform per link, Rot_z(theta_i) * Trans_x(L_i),
        kept as (x, y, cos, sin) of the running transform. Headings in (-pi, pi].

        Raises:
            ValueError: wrong number of joints or a non-finite value.
        """
        values = self._joint_values(joints)
        x = y = 0.0
        c, s = 1.0, 0.0
        result = [(0.0, 0.0, 0.0)]
        for theta, length in zip(values, self.link_lengths, strict=True):
            ct, st = _cos(theta), _sin(theta)
            c, s = c * ct - s * st, s * ct + c * st
            x += length * c
            y += length * s
            result.append((x, y, _atan2(s, c)))
        return result

    def forward(self, joints: Sequence[float]) -> tuple[float, float, float]:
        """The tip's (x, y, heading) in the base frame (m, m, rad in (-pi, pi])."""
        return self.frames(joints)[-1]

    def jacobian(self, joints: Sequence[float]) -> np.ndarray:
        """Geometric Jacobian (3, n): rows d x, d y, d heading of the tip per joint (m/rad, 1)."""
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
        """
        return self._manipulability_of(self.frames(joints))

    @staticmethod
    def _manipulability_of(frames: list[tuple[float, float, float]]) -> float:
        # Cauchy-Binet: det(Jp Jp^T) is the sum of the squared 2x2 minors of Jp, and the minor
        # of columns i, j is the cross product of (tip - origin_i) and (tip - origin_j).
        tip_x, tip_y, _ = frames[-1]
        arms = [(tip_x - fx, tip_y - fy) for fx, fy, _ in frames[:-1]]
        total = 0.0
        for i in range(len(arms)):
            ax, ay = arms[i]
            for bx, by in arms[i + 1 :]:
                cross = ax * by - ay * bx
                total += cross * cross
        return _sqrt(total)

    def within_limits(self, joints: Sequence[float]) -> bool:
        """True when every joint lies within its limits (LIMIT_TOLERANCE rad of slack)."""
        values = self._joint_values(joints)
        return all(
            lo - LIMIT_TOLERANCE <= q <= hi + LIMIT_TOLERANCE
            for q, (lo, hi) in zip(values, self.joint_limits, strict=True)
        )

    def joint_delta(self, from_joints: Sequence[float], to_joints: Sequence[float]) -> tuple:
        """Per-joint motion to - from, radians: short way round for continuous joints."""
        a = self._joint_values(from_joints)
        b = self._joint_values(to_joints)
        return tuple(
            wrap_angle(qb - qa) if kind == _UNLIMITED else qb - qa
            for qa, qb, kind in zip(a, b, self._kinds, strict=True)
        )

    def unwrap_near(self, joints: Sequence[float], reference: Sequence[float]) -> tuple[float, ...]:
        """`joints` with each continuous joint moved by k * 2 pi to lie nearest `reference`.

        Limited joints are returned unchanged (their angle is absolute). Radians.
        """
        a = self._joint_values(joints)
        ref = self._joint_values(reference)
        return tuple(
            q + round((r - q) / TAU) * TAU if kind == _UNLIMITED else q
            for q, r, kind in zip(a, ref, self._kinds, strict=True)
        )

    def _distance_sq(self, joints: tuple[float, ...], reference: tuple[float, ...]) -> float:
        total = 0.0
        for q, ref, kind in zip(joints, reference, self._kinds, strict=True):
            d = q - ref
            if kind == _UNLIMITED and not -_PI < d <= _PI:
                d = wrap_angle(d)
            total += d * d
        return total

    def _limit_margin(self, joints: tuple[float, ...]) -> float:
        margin = _INF
        for q, (lo, hi) in zip(joints, self.joint_limits, strict=True):
            margin = min(margin, q - lo, hi - q)
        return margin

    # --- IK helpers -----------------------------------------------------------------------

    def _fit(self, joints: tuple[float, ...], reference: tuple[float, ...]) -> tuple | None:
        """The joints moved by k * 2 pi into their limits, or None if some joint cannot be."""
        fitted = []
        for q, (lo, hi), kind, ref in zip(
            joints, self.joint_limits, self._kinds, reference, strict=True
        ):
            if kind == _UNLIMITED or (kind == _NARROW and lo <= q <= hi):
                fitted.append(q)
                continue
            k_min, k_max = _shift_range(q, lo, hi)
            if k_min > k_max:
                return None
            fitted.append(q + min(max(round((ref - q) / TAU), k_min), k_max) * TAU)
        return tuple(fitted)

    @staticmethod
    def _invalid(message: str) -> IkResult:
        # Formatted now: it may show the caller's (mutable) input.
        return _tuple_new(IkResult, (_INVALID, None, message, None, 0.0))

    def _check_current(self, current: Any) -> tuple[float, ...] | str:
        if isinstance(current, str | bytes):
            return f"current {current!r} must be {self.n_joints} joint angles (rad)"
        try:
            values = tuple(float(v) for v in current)
        except (TypeError, ValueError, OverflowError):
            return f"current {current!r} must be {self.n_joints} joint angles (rad)"
        if len(values) != self.n_joints:
            return (
                f"current has {len(values)} values but the arm has {self.n_joints} joints "
                f"({', '.join(self.joint_names)})"
            )
        for value in values:
            if not _isfinite(value):
                return f"current {values!r} holds a NaN or infinite value"
        return values

    @staticmethod
    def _ring_failure(r: float, x: float, y: float, ring: tuple[float, float]) -> IkResult:
        inner, outer = ring
        if r > outer:
            message = DeferredText(_too_far_text, x, y, r, outer)
            return _tuple_new(IkResult, (_TOO_FAR, None, message, None, 0.0))
        message = DeferredText(_too_close_text, x, y, r, inner)
        return _tuple_new(IkResult, (_TOO_CLOSE, None, message, None, 0.0))

    def _elbow(self, x: float, y: float) -> tuple[float, float, float, float] | None:
        """2R geometry of links 1-2 for the point (x, y): (phi, beta, t2, s2), or None.

        t2 = |theta_2| in [0, pi], s2 = sin(t2) >= 0; the elbow-down solution is
        (phi - beta, t2), the elbow-up one (phi + beta, -t2). None when the point lies outside
        the ring by more than edge_tolerance. Only atan2 and sqrt: no acos domain errors.
        """
        r = _sqrt(x * x + y * y)
        outer = self._ring_max
        inner = self._ring_min
        if r > outer:
            if r > outer + self.edge_tolerance:  # the same comparison as the ring check
                return None
            s2, c2 = 0.0, 1.0
        elif r < inner:
            if r < inner - self.edge_tolerance:
                return None
            s2, c2 = 0.0, -1.0
        else:
            k = self._k
            # (1 - cos t2)(1 + cos t2) from factors that keep their precision near both edges.
            s2 = _sqrt((outer - r) * (outer + r) * (r - inner) * (r + inner)) / k
            c2 = (r * r - self._l1sq_l2sq) / k
        l2 = self._l2
        return _atan2(y, x), _atan2(l2 * s2, self._l1 + l2 * c2), _atan2(s2, c2), s2

    def _raw_candidates(
        self, x: float, y: float, heading: float | None
    ) -> tuple[tuple[float, ...], tuple[float, ...], float] | None:
        """Elbow-up and elbow-down joints (wrapped, limits not applied) and s2, or None."""
        if self.n_joints == 2:
            geometry = self._elbow(x, y)
        else:
            l3 = self._l3
            geometry = self._elbow(x - l3 * _cos(heading), y - l3 * _sin(heading))
        if geometry is None:
            return None
        phi, beta, t2, s2 = geometry
        up1 = phi + beta
        if up1 > _PI:
            up1 -= TAU
        down1 = phi - beta
        if down1 <= -_PI:
            down1 += TAU
        up2 = _PI if t2 >= _PI else (-t2 if t2 > 0.0 else 0.0)
        if self.n_joints == 2:
            return (up1, up2), (down1, t2), s2
        up3 = wrap_angle(heading - up1 - up2)
        down3 = wrap_angle(heading - down1 - t2)
        return (up1, up2, up3), (down1, t2, down3), s2

    # --- IK -------------------------------------------------------------------------------

    def solve(
        self,
        x: float,
        y: float,
        heading: float | None = None,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
    ) -> IkResult:
        """Joint angles that put the tip at (x, y) (metres, base frame), optionally with a heading.

        Closed form (law of cosines with atan2). 2R: (x, y); a requested heading (rad) is met
        only if one of the two elbow solutions has it. 3R with a heading: the wrist point
        `(x, y) - L3 (cos h, sin h)` is solved as 2R and joint 3 = h - theta1 - theta2. 3R
        without a heading: the heading is chosen: with `current`, the reachable heading with the
        least joint motion from `current` (sampled over the reachable heading intervals, then
        refined); without `current`, the heading pointing away from the base (atan2(y, x)),
        else the nearest reachable heading, else (joint limits) the nearest feasible one.

        Branch rules: ELBOW_UP (joint 2 < 0) / ELBOW_DOWN (joint 2 > 0) exactly that elbow, or
        JOINT_LIMIT saying whether the other one is feasible; CLOSEST the feasible one with the
        least motion from `current` (sum of squared joint differences, short way round for
        continuous joints), or with no `current` as MAX_LIMIT_MARGIN; MAX_LIMIT_MARGIN the
        feasible one whose smallest distance to a limit is largest (elbow up on a tie, e.g.
        without limits). Never raises: bad numbers give INVALID_INPUT.
        """
        # The common case, inlined for speed: 2R, no heading, float inputs, both joints limited
        # within (-pi, pi) or both continuous. Anything unusual (off or on the ring's edge, an
        # explicitly requested branch out of limits, NaN) takes the general path, which gives
        # the same answer for the same input (a test checks it). Messages of failures are
        # formatted only when read (DeferredText); those of successes are constants.
        if not (
            x.__class__ is float
            and y.__class__ is float
            and heading is None
            and (branch is _CLOSEST or branch.__class__ is Branch)
            and self._fast
        ):
            return self._solve_unusual(x, y, heading, branch, current)
        if current is not None:
            kind = current.__class__
            if (kind is not tuple and kind is not list) or len(current) != 2:
                return self._solve_any(x, y, None, branch, current)
            c1, c2 = current
            if c1.__class__ is not float or c2.__class__ is not float:
                if not (isinstance(c1, float) and isinstance(c2, float)):
                    return self._solve_any(x, y, None, branch, current)
                c1, c2 = float(c1), float(c2)  # numpy.float64 and the like
            if c1 - c1 != 0.0 or c2 - c2 != 0.0:  # NaN or infinity
                return self._solve_any(x, y, None, branch, current)
        l1, l2, l1l2, k, l1sq_l2sq, inner, outer, lo1, hi1, lo2, hi2, limited = self._fast_constants
        r = _sqrt(x * x + y * y)
        if not (r > inner and r < outer):  # also NaN and infinity
            tolerance = self.edge_tolerance
            if (r > outer + tolerance or r < inner - tolerance) and r - r == 0.0:
                return self._ring_failure(r, x, y, (inner, outer))  # as the general path
            return self._solve_any(x, y, None, branch, current)
        s2 = _sqrt((outer - r) * (outer + r) * (r - inner) * (r + inner)) / k
        cos2 = (r * r - l1sq_l2sq) / k
        phi = _atan2(y, x)
        beta = _atan2(l2 * s2, l1 + l2 * cos2)
        t2 = _atan2(s2, cos2)
        if t2 <= 0.0 or t2 >= _PI:  # exactly on an edge: the general path names it
            return self._solve_any(x, y, None, branch, current)
        up1 = phi + beta
        if up1 > _PI:
            up1 -= TAU
        down1 = phi - beta
        if down1 <= _MINUS_PI:
            down1 += TAU
        up2 = -t2
        if limited:
            if branch is _MARGIN or (branch is _CLOSEST and current is None):
                # Each branch's smallest distance to a limit (as _limit_margin, without min()):
                # >= 0 exactly when the branch is within limits; it ranks the branches.
                margin_up = up1 - lo1
                if (margin := hi1 - up1) < margin_up:
                    margin_up = margin
                if (margin := up2 - lo2) < margin_up:
                    margin_up = margin
                if (margin := hi2 - up2) < margin_up:
                    margin_up = margin
                margin_down = down1 - lo1
                if (margin := hi1 - down1) < margin_down:
                    margin_down = margin
                if (margin := t2 - lo2) < margin_down:
                    margin_down = margin
                if (margin := hi2 - t2) < margin_down:
                    margin_down = margin
            else:  # the other rules only need to know which branches are within limits
                margin_up = 0.0 if lo1 <= up1 <= hi1 and lo2 <= up2 <= hi2 else -1.0
                margin_down = 0.0 if lo1 <= down1 <= hi1 and lo2 <= t2 <= hi2 else -1.0
            if margin_up < 0.0 or margin_down < 0.0:
                # At most one branch within limits. The limits lie inside (-pi, pi), so no 2 pi
                # shift can help: the one within limits, unless it was explicitly refused or
                # the other is out by less than LIMIT_TOLERANCE (the general path decides).
                lo1_tol, hi1_tol, lo2_tol, hi2_tol = self._fast_tolerant_limits
                if margin_up >= 0.0:
                    if branch is _DOWN or (
                        lo1_tol <= down1 <= hi1_tol and lo2_tol <= t2 <= hi2_tol
                    ):
                        return self._solve_any(x, y, None, branch, current)
                    chosen = (up1, up2)
                    message = _MSG_UP if branch is _UP else _MSG_UP_ONLY
                elif margin_down >= 0.0:
                    if branch is _UP or (lo1_tol <= up1 <= hi1_tol and lo2_tol <= up2 <= hi2_tol):
                        return self._solve_any(x, y, None, branch, current)
                    chosen = (down1, t2)
                    message = _MSG_DOWN if branch is _DOWN else _MSG_DOWN_ONLY
                elif (lo1_tol <= up1 <= hi1_tol and lo2_tol <= up2 <= hi2_tol) or (
                    lo1_tol <= down1 <= hi1_tol and lo2_tol <= t2 <= hi2_tol
                ):
                    return self._solve_any(x, y, None, branch, current)
                else:
                    return self._limit_failure(branch, (up1, up2), (down1, t2), None, None)
                if s2 < self.singularity_margin:
                    return self._singular_result(chosen, None, s2, message)
                return _tuple_new(IkResult, (_OK, chosen, message, None, l1l2 * s2))
        if branch is _UP:
            chosen, other, message = (up1, up2), (down1, t2), _MSG_UP
        elif branch is _DOWN:
            chosen, other, message = (down1, t2), (up1, up2), _MSG_DOWN
        elif current is None or branch is _MARGIN:
            if limited and margin_down > margin_up:
                chosen, other, message = (down1, t2), (up1, up2), _MSG_DOWN_MARGIN
            else:  # elbow up on a tie (always without limits)
                chosen, other, message = (up1, up2), (down1, t2), _MSG_UP_MARGIN
        else:  # CLOSEST from current
            du1 = up1 - c1
            du2 = up2 - c2
            dd1 = down1 - c1
            dd2 = t2 - c2
            if not limited:  # the short way round, as _distance_sq
                if not -_PI < du1 <= _PI:
                    du1 = wrap_angle(du1)
                if not -_PI < du2 <= _PI:
                    du2 = wrap_angle(du2)
                if not -_PI < dd1 <= _PI:
                    dd1 = wrap_angle(dd1)
                if not -_PI < dd2 <= _PI:
                    dd2 = wrap_angle(dd2)
            if dd1 * dd1 + dd2 * dd2 < du1 * du1 + du2 * du2:
                chosen, other, message = (down1, t2), (up1, up2), _MSG_DOWN_CLOSEST
            else:
                chosen, other, message = (up1, up2), (down1, t2), _MSG_UP_CLOSEST
        if s2 < self.singularity_margin:
            return self._singular_result(chosen, other, s2, message)
        return _tuple_new(IkResult, (_OK, chosen, message, other, l1l2 * s2))

    def _solve_unusual(self, x: Any, y: Any, heading: Any, branch: Any, current: Any) -> IkResult:
        """solve() off its inlined path: numpy floats and int branches are converted and take
        it when they can; anything else takes the general path."""
        if branch.__class__ is int:
            branch = _BRANCH_BY_VALUE.get(branch, branch)
        if x.__class__ is not float and isinstance(x, float):  # numpy.float64 and the like
            x = float(x)
        if y.__class__ is not float and isinstance(y, float):
            y = float(y)
        if (
            self._fast
            and heading is None
            and x.__class__ is float
            and y.__class__ is float
            and branch.__class__ is Branch
        ):
            return self.solve(x, y, None, branch, current)
        return self._solve_any(x, y, heading, branch, current)

    def _singular_result(
        self, chosen: tuple, other: tuple | None, s2: float, ok_message: str
    ) -> IkResult:
        message = DeferredText(_singular_text, ok_message, s2, self.singularity_margin)
        return _tuple_new(IkResult, (_SINGULAR, chosen, message, other, self._l1l2 * s2))

    def _solve_any(
        self,
        x: Any,
        y: Any,
        heading: Any,
        branch: Any,
        current: Any,
    ) -> IkResult:
        """solve() for any input: validation, then the general closed forms."""
        n = self.n_joints
        if x.__class__ is not float or y.__class__ is not float:
            x, y = _as_number(x), _as_number(y)
            if x is None or y is None:
                return self._invalid("INVALID_INPUT: target x and y must be numbers (m)")
        if not (_isfinite(x) and _isfinite(y)):
            return self._invalid(f"INVALID_INPUT: target ({x}, {y}) must be finite (m)")
        if branch.__class__ is not Branch:
            checked = _coerce_branch(branch)
            if checked is None:
                return self._invalid(
                    f"INVALID_INPUT: unknown branch {branch!r}: expected "
                    + ", ".join(f"{b.value} ({b.name})" for b in Branch)
                )
            branch = checked
        if current is not None:
            checked_current = self._check_current(current)
            if checked_current.__class__ is str:
                return self._invalid("INVALID_INPUT: " + checked_current)
            current = checked_current
        if heading is not None:
            heading = _as_number(heading)
            if heading is None or not _isfinite(heading):
                return self._invalid("INVALID_INPUT: heading must be a finite number (rad)")
        if n > 3:
            return self._invalid(
                f"INVALID_INPUT: closed-form IK covers 2 and 3 joints; this arm has {n}"
            )
        if n == 3 and heading is None:
            return self._solve_free_heading(x, y, branch, current)
        return self._solve(x, y, heading, branch, current)

    def _solve(
        self,
        x: float,
        y: float,
        heading: float | None,
        branch: Branch,
        current: tuple[float, ...] | None,
    ) -> IkResult:
        """solve() on checked inputs; heading required for 3R."""
        # 1. The ring, on the radius only.
        r = _sqrt(x * x + y * y)
        inner, outer = self._tip_ring
        if not inner - self.edge_tolerance <= r <= outer + self.edge_tolerance:
            return self._ring_failure(r, x, y, self._tip_ring)
        candidates = self._raw_candidates(x, y, heading)
        if candidates is None:  # 3R: the wrist point is off the ring for this heading
            if self.n_joints == 2:  # unreachable: the ring checks use the same comparisons
                return self._ring_failure(r, x, y, self._tip_ring)
            return self._orientation_failure_3r(x, y, heading)
        up, down, s2 = candidates
        coincident = s2 == 0.0

        # 2. The heading, for 2R. The elbow follows from the heading (well conditioned even at
        # full stretch, where a heading computed from the position is only good to 1e-8 rad).
        if heading is not None and self.n_joints == 2:
            elbow_x = x - self._l2 * _cos(heading)
            elbow_y = y - self._l2 * _sin(heading)
            outside = max(0.0, r - self._ring_max, self._ring_min - r)
            meets = abs(_hypot(elbow_x, elbow_y) - self._l1) <= HEADING_MATCH_TOLERANCE + outside
            if meets:
                theta1 = _atan2(elbow_y, elbow_x)
                matched = (theta1, wrap_angle(heading - theta1))
                if s2 < _NEAR_COINCIDENT:
                    up = down = matched
                    coincident = True
                elif matched[1] < 0.0:
                    up, down = matched, None
                else:
                    up, down = None, matched
            failure = self._heading_failure_2r(
                x, y, heading, branch, candidates[0], candidates[1], meets, up, down
            )
            if failure is not None:
                return failure
            only_reason = " (the only branch with that heading)"
        else:
            only_reason = " (the only branch within limits)"

        # 3. Joint limits.
        reference = current if current is not None else self._zero_reference
        up_fit = down_fit = None
        if self._any_limits:
            if up is not None:
                up_fit = self._fit(up, reference)
            if down is not None:
                down_fit = self._fit(down, reference)
        else:
            up_fit, down_fit = up, down
        if coincident and up_fit is not None:
            down_fit = None  # one configuration: do not offer it twice

        # 4. The branch.
        if branch is _UP or branch is _DOWN:
            chosen, other = (up_fit, down_fit) if branch is _UP else (down_fit, up_fit)
            if chosen is None and coincident:
                chosen, other = other, None  # one configuration: either elbow name fits
            if chosen is None:
                return self._limit_failure(branch, up, down, up_fit, down_fit)
            reason = ""
        elif up_fit is None or down_fit is None:
            chosen = up_fit if up_fit is not None else down_fit
            other = None
            if chosen is None:
                return self._limit_failure(branch, up, down, up_fit, down_fit)
            reason = "" if coincident else only_reason
        elif branch is _CLOSEST and current is not None:
            if self._distance_sq(down_fit, current) < self._distance_sq(up_fit, current):
                chosen, other = down_fit, up_fit
            else:
                chosen, other = up_fit, down_fit
            reason = " (least motion from current)"
        else:
            if self._limit_margin(down_fit) > self._limit_margin(up_fit):
                chosen, other = down_fit, up_fit
            else:
                chosen, other = up_fit, down_fit
            reason = " (largest joint-limit margin)"

        # 5. The flag.
        if self.n_joints == 2:
            manipulability = self._l1l2 * s2
        else:
            manipulability = self._manipulability_of(self.frames(chosen))
        message = DeferredText(_solved_text, chosen, coincident, reason)
        if s2 < self.singularity_margin:
            message = DeferredText(_singular_text, message, s2, self.singularity_margin)
            return _tuple_new(IkResult, (_SINGULAR, chosen, message, other, manipulability))
        return _tuple_new(IkResult, (_OK, chosen, message, other, manipulability))

    def _heading_failure_2r(
        self,
        x: float,
        y: float,
        heading: float,
        branch: Branch,
        raw_up: tuple[float, ...],
        raw_down: tuple[float, ...],
        meets: bool,
        up: tuple[float, ...] | None,
        down: tuple[float, ...] | None,
    ) -> IkResult | None:
        if not meets:
            message = DeferredText(_heading_mismatch_text, x, y, heading, raw_up, raw_down)
        elif branch is _UP and up is None:
            message = DeferredText(
                _wrong_elbow_heading_text, x, y, heading, raw_up, "elbow up", "elbow down"
            )
        elif branch is _DOWN and down is None:
            message = DeferredText(
                _wrong_elbow_heading_text, x, y, heading, raw_down, "elbow down", "elbow up"
            )
        else:
            return None
        return _tuple_new(IkResult, (_ORIENTATION, None, message, None, 0.0))

    def _orientation_failure_3r(self, x: float, y: float, heading: float) -> IkResult:
        l3 = self._l3
        message = DeferredText(
            _orientation_3r_text,
            x,
            y,
            heading,
            (x - l3 * _cos(heading), y - l3 * _sin(heading)),
            (self._ring_min, self._ring_max),
            self._heading_intervals(x, y),  # computed now: edge_tolerance may change later
        )
        return _tuple_new(IkResult, (_ORIENTATION, None, message, None, 0.0))

    def _limit_failure(
        self,
        branch: Branch,
        up: tuple[float, ...] | None,
        down: tuple[float, ...] | None,
        up_fit: tuple[float, ...] | None,
        down_fit: tuple[float, ...] | None,
    ) -> IkResult:
        message = DeferredText(
            _limit_failure_text,
            branch,
            up,
            down,
            up_fit,
            down_fit,
            self.joint_limits,
            self._kinds,
            self.joint_names,
        )
        return _tuple_new(IkResult, (_JOINT_LIMIT, None, message, None, 0.0))

    # --- 3R without a heading ---------------------------------------------------------------

    def _heading_intervals(self, x: float, y: float) -> list[tuple[float, float]]:
        """Headings (rad, increasing pairs, possibly beyond (-pi, pi]) with the wrist on the ring.

        |wrist|^2 = r^2 + L3^2 - 2 r L3 cos(h - phi) must lie in [inner^2, outer^2] of links
        1-2, which bounds cos(h - phi) from both sides. A tip on the edge of its own ring (up to
        rounding or edge_tolerance) gets the single heading that brings the wrist nearest to
        the 2R ring (h = phi or phi + pi), when that is within edge_tolerance.
        """
        r = _hypot(x, y)
        l3 = self._l3
        phi = _atan2(y, x)
        inner, outer = self._ring_min, self._ring_max
        tolerance = self.edge_tolerance
        if r < 1e-12 * self.reach:
            # The wrist stays L3 from the base whatever the heading.
            if inner - tolerance <= l3 <= outer + tolerance:
                return [(phi - _PI, phi + _PI)]
            return []
        cos_max = (r * r + l3 * l3 - inner * inner) / (2.0 * r * l3)
        cos_min = (r * r + l3 * l3 - outer * outer) / (2.0 * r * l3)
        if cos_max < -1.0:  # the wrist cannot get out to the inner edge: best h = phi + pi
            wrist = r + l3
            return [(phi + _PI, phi + _PI)] if wrist >= inner - tolerance else []
        if cos_min > 1.0:  # the wrist cannot get in to the outer edge: best h = phi
            wrist = abs(r - l3)
            return [(phi, phi)] if wrist <= outer + tolerance else []
        delta_lo = math.acos(min(1.0, cos_max))
        delta_hi = math.acos(max(-1.0, cos_min))
        if delta_lo == 0.0:
            if delta_hi >= _PI:
                return [(phi - _PI, phi + _PI)]
            return [(phi - delta_hi, phi + delta_hi)]
        if delta_hi >= _PI:
            return [(phi + delta_lo, phi + TAU - delta_lo)]
        # Counter-clockwise side first: it wins the tie for the heading nearest phi.
        return [(phi + delta_lo, phi + delta_hi), (phi - delta_hi, phi - delta_lo)]

    def _solve_free_heading(
        self, x: float, y: float, branch: Branch, current: tuple[float, ...] | None
    ) -> IkResult:
        r = _hypot(x, y)
        inner, outer = self.ring
        if not inner - self.edge_tolerance <= r <= outer + self.edge_tolerance:
            return self._ring_failure(r, x, y, self.ring)
        intervals = self._heading_intervals(x, y)
        if not intervals:  # only within edge_tolerance of the ring: nothing fits
            return self._ring_failure(r, x, y, self.ring)
        phi = _atan2(y, x)

        if current is None:
            away = min(
                (min(max(phi, lo), hi) for lo, hi in intervals),
                key=lambda h: abs(h - phi),
            )
            result = self._solve(x, y, wrap_angle(away), branch, None)
            if result.status is not _JOINT_LIMIT:
                return self._with_heading_note(result, away, "pointing away from the base")

            def cost(result: IkResult, h: float) -> float:
                return abs(h - phi)
        else:
            ref = current

            def cost(result: IkResult, h: float) -> float:
                return self._distance_sq(result.joints, ref)

        best = self._search_heading(x, y, intervals, branch, current, cost)
        if best is None:
            message = DeferredText(_no_heading_text, x, y, branch)
            return _tuple_new(IkResult, (_JOINT_LIMIT, None, message, None, 0.0))
        result, h = best
        rule = "least motion from current" if current is not None else "nearest feasible"
        return self._with_heading_note(result, h, rule)

    @staticmethod
    def _with_heading_note(result: IkResult, heading: float, rule: str) -> IkResult:
        if not result.ok:
            return result
        message = DeferredText(_heading_note_text, result, heading, rule)
        return _tuple_new(
            IkResult,
            (result.status, result.joints, message, result.alternative, result.manipulability),
        )

    def _search_heading(
        self,
        x: float,
        y: float,
        intervals: list[tuple[float, float]],
        branch: Branch,
        current: tuple[float, ...] | None,
        cost: Any,
    ) -> tuple[IkResult, float] | None:
        """Least-cost feasible heading: sample every interval, then golden-section refine."""
        best: tuple[float, IkResult, float, float, float] | None = None
        for lo, hi in intervals:
            samples = np.linspace(lo, hi, _HEADING_SAMPLES).tolist()
            if current is not None:
                # The current heading (shifted into the interval) is a natural candidate and
                # makes sure a `current` that is itself a solution is found.
                held = math.fsum(current)
                held += round(((lo + hi) / 2.0 - held) / TAU) * TAU
                if lo <= held <= hi:
                    samples.append(held)
            step = (hi - lo) / (_HEADING_SAMPLES - 1)
            for h in samples:
                result = self._solve(x, y, wrap_angle(h), branch, current)
                if result.ok:
                    value = cost(result, h)
                    if best is None or value < best[0]:
                        best = (value, result, h, max(lo, h - step), min(hi, h + step))
        if best is None:
            return None
        value, result, h, a, b = best
        # Golden-section search on [a, b] around the best sample (the cost is smooth there).
        ratio = (math.sqrt(5.0) - 1.0) / 2.0
        c, d = b - ratio * (b - a), a + ratio * (b - a)

        def evaluate(h: float) -> tuple[float, IkResult | None]:
            candidate = self._solve(x, y, wrap_angle(h), branch, current)
            return (cost(candidate, h), candidate) if candidate.ok else (_INF, None)

        fc, rc = evaluate(c)
        fd, rd = evaluate(d)
        for _ in range(40):
            if fc < fd:
                b, d, fd, rd = d, c, fc, rc
                c = b - ratio * (b - a)
                fc, rc = evaluate(c)
            else:
                a, c, fc, rc = c, d, fd, rd
                d = a + ratio * (b - a)
                fd, rd = evaluate(d)
            if b - a < 1e-10:
                break
        for f, r, hh in ((fc, rc, c), (fd, rd, d)):
            if r is not None and f < value:
                value, result, h = f, r, hh
        return result, h

    # --- many targets -----------------------------------------------------------------------

    def solve_batch(
        self,
        x: Any,
        y: Any,
        heading: Any = None,
        branch: Branch | int = Branch.CLOSEST,
        current: Any = None,
    ) -> BatchResult:
        """Vectorised IK of N targets (arrays x, y and optional headings, metres/radians).

        Returns a BatchResult: `status` (N,) uint8 IkStatus values, `joints` (N, n) with NaN
        rows where there is no solution, `manipulability` (N,). Same closed forms and rules as
        `solve` for one `branch`; `current` is (n,) or (N, n) and is not chained. 3R without
        headings takes the heading away from the base (or the nearest reachable one) without
        the scalar solve's search. See `batch.py`.
        """
        from .batch import solve_batch

        return solve_batch(self, x, y, heading, branch, current)

    def solve_chain(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        headings: Sequence[float | None] | None = None,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
        stop_on_failure: bool = False,
    ) -> list[IkResult]:
        """Solve targets in order, each seeded by the previous successful solution.

        The first target is seeded by `current`. `headings` is None or one heading (or None)
        per target. With `stop_on_failure` the list ends at the first failure (included).
        Lengths that disagree give one INVALID_INPUT result per target of the longest sequence.
        """
        try:
            xs_list, ys_list = list(xs), list(ys)
            heading_list = [None] * len(xs_list) if headings is None else list(headings)
        except TypeError:
            return [self._invalid("INVALID_INPUT: xs, ys and headings must be sequences")]
        count = len(xs_list)
        if len(ys_list) != count or len(heading_list) != count:
            longest = max(count, len(ys_list), len(heading_list))
            failure = self._invalid(
                f"INVALID_INPUT: {count} xs, {len(ys_list)} ys and {len(heading_list)} headings "
                "must have the same length"
            )
            return [failure] * (1 if stop_on_failure else longest)
        results = []
        seed = current
        for x, y, heading in zip(xs_list, ys_list, heading_list, strict=True):
            result = self.solve(x, y, heading, branch, seed)
            results.append(result)
            if result.ok:
                seed = result.joints
            elif stop_on_failure:
                break
        return results
