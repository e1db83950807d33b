"""The sides of many spatial targets on arrays (`SpatialArm._sides`, `_attempt`, `_roll_joint`
as masks): each side's yaw fitted into the yaw limits (nearest the row's seed where it has
one and the limits leave a choice), the vertical plane solved on it by the planar array solve
(with the row's seed in that plane, mirrored over the back), the roll joint, what each side
answered for every row (`Tried`), and the seed's measures of a side (`yaw_gaps`,
`moves_at_most`).

Arrays (M,), one row per target. Metres and radians, the base frame, joint order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..angles import TAU, wrap_angles
from ..array_api import norm
from ..planar.branches import joint_distance
from ..planar.elbows_many import TIE_SCALE, Answers, Columns
from ..planar.limits import CONTINUOUS
from ..planar.many import solve_on_arrays
from ..types import IkStatus
from .sides import FAILURE_ORDER

if TYPE_CHECKING:
    from ..planar.arm import PlanarArm
    from .arm import SpatialArm
    from .many import Rows


def fit_angle_many(
    angle: np.ndarray, limits: tuple[float, float], near: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """`sides.fit_angle` for arrays: (the angle moved by k * 2 pi into `limits` (rad), the
    shift nearest `near` (one per row), else the smallest; where it fits).

    >>> fitted, fits = fit_angle_many(np.array([0.5, 3.0, 7.0]), (-1.0, 1.0))
    >>> fitted.round(3).tolist(), fits.tolist()
    ([0.5, 3.0, 0.717], [True, False, True])
    >>> fit_angle_many(np.array([0.5]), (-7.0, 7.0), np.array([6.0]))[0].round(3).tolist()
    [6.783]
    """
    lo, hi = limits
    everywhere = np.ones(angle.shape, dtype=bool)
    if lo == -math.inf and hi == math.inf:  # continuous: as it is, or nearest `near`
        if near is None:
            return angle, everywhere
        return angle + np.round((near - angle) / TAU) * TAU, everywhere
    inside = (lo <= angle) & (angle <= hi)
    k_min = np.ceil((lo - 1e-9 - angle) / TAU) if lo > -math.inf else np.full(angle.shape, -np.inf)
    k_max = np.floor((hi + 1e-9 - angle) / TAU) if hi < math.inf else np.full(angle.shape, np.inf)
    fits = k_min <= k_max
    if near is None:
        turns = np.minimum(np.maximum(0.0, k_min), k_max)
        fits |= inside
        return np.where(inside | ~fits, angle, angle + turns * TAU), fits
    turns = np.minimum(np.maximum(np.round((near - angle) / TAU), k_min), k_max)
    return np.where(fits, angle + turns * TAU, angle), fits


@dataclass
class Side:
    """One way to face the target, for every row: its yaw (fitted), whether it exists
    there (`fits`), over the back or not, the target in its (maybe mirrored) plane."""

    yaw: np.ndarray
    fits: np.ndarray
    back: bool
    planar_x: np.ndarray


def sides(arm: SpatialArm, rows: Rows) -> tuple[Side, Side, np.ndarray]:
    """The first side (front, or the yaw axis) and the back of every row, and where the
    target is on the yaw axis (`SpatialArm._sides`: a seed's yaw is kept on the axis, and
    a yaw is fitted nearest it where the limits leave a choice)."""
    rho = norm(rows.x, rows.y)
    d = arm.shoulder_forward
    on_axis = rho <= arm.edge_tolerance
    psi = np.atan2(rows.y, rows.x)
    near = None if rows.seeds is None or arm.yaw_fits_once else rows.seeds[0]
    axis_yaw = rows.axis_yaw
    if axis_yaw is None:
        axis_yaw = rows.seeds[0] if rows.seeds is not None else arm._kept_yaw(None)
    yaw, fits = fit_angle_many(np.where(on_axis, axis_yaw, psi), arm.yaw_limits, near)
    front = Side(yaw, fits, False, rho - d)
    back_yaw, back_fits = fit_angle_many(wrap_angles(psi + math.pi), arm.yaw_limits, near)
    back = Side(back_yaw, back_fits & ~on_axis, True, rho + d)
    return front, back, on_axis


def attempt(arm: SpatialArm, rows: Rows, side: Side, index: np.ndarray) -> Answers:
    """The vertical plane solved on `side` for the rows `index` (`SpatialArm._attempt`):
    the planar array solve (seeded by each row's seed in the plane), then the roll joint;
    joints in joint order, for those rows."""
    chain: PlanarArm = arm.vertical_back if side.back else arm.vertical
    heading = None
    if rows.pitch is not None:  # the planar heading: the last straight link's angle
        delta = arm.link_angle_offsets[-1]
        pitch = rows.pitch[index]
        heading = wrap_angles(pitch - delta if side.back else pitch + delta)
    planar_x, planar_z = side.planar_x[index], rows.z[index] - arm.shoulder_height
    planar = solve_on_arrays(
        chain, planar_x, planar_z, heading, rows.branch, _planar_seeds(arm, rows, side, index)
    )
    roll, roll_ok = _roll_joint(arm, rows, side, index)
    planar_ok = planar.status <= IkStatus.SINGULAR
    status = np.where(planar_ok & ~roll_ok, IkStatus.JOINT_LIMIT, planar.status)
    yaw = side.yaw[index]
    columns = []
    for phis in (planar.joints, planar.other):
        if side.back:  # seen from behind: pi - phi_1, the others change sign
            phis = [math.pi - phis[0], *(-phi for phi in phis[1:])]
        pitches = [phi - shift for phi, shift in zip(phis, arm.planar_shifts, strict=True)]
        columns.append([yaw, *pitches, *([roll] if arm.has_roll else [])])
    return Answers(
        status.astype(np.uint8), columns[0], columns[1], planar.has_other,
        planar.manipulability,
    )  # fmt: skip


def _planar_seeds(arm: SpatialArm, rows: Rows, side: Side, index: np.ndarray) -> Columns | None:
    """The rows' seeds in the vertical plane of `side` (`planar_joints`, mirrored over the
    back), or None without seeds."""
    if rows.seeds is None:
        return None
    pitches = rows.seeds[1 : 1 + arm.n_pitch]
    planar = [q[index] + shift for q, shift in zip(pitches, arm.planar_shifts, strict=True)]
    if side.back:
        planar = [math.pi - planar[0], *(-phi for phi in planar[1:])]
    return planar


def _roll_joint(
    arm: SpatialArm, rows: Rows, side: Side, index: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The roll joint's angle for the requested roll (`SpatialArm._roll_joint`: without one
    the seed's roll, or 0) and where it fits the roll limits; 0.0 without a roll joint."""
    if not arm.has_roll:
        return np.zeros(index.size), np.ones(index.size, dtype=bool)
    assert arm.roll_limits is not None
    held = None if rows.seeds is None else rows.seeds[-1][index]
    if rows.roll is None:
        wanted = np.zeros(index.size) if held is None else held
    else:
        wanted = rows.roll[index] - (math.pi if side.back else 0.0)
    near = None if arm.roll_fits_once else held
    fitted, fits = fit_angle_many(wanted, arm.roll_limits, near)
    if rows.roll is None:  # outside the limits: the middle of them
        fitted = np.where(fits, fitted, 0.5 * (arm.roll_limits[0] + arm.roll_limits[1]))
        fits = np.ones(index.size, dtype=bool)
    return fitted, fits


@dataclass
class Tried:
    """What one side answered for every row (INVALID_INPUT where it was not tried): status,
    joints and the other elbow (rows, n), whether there is one, the manipulability."""

    status: np.ndarray
    joints: np.ndarray
    other: np.ndarray
    has_other: np.ndarray
    manipulability: np.ndarray

    @classmethod
    def none(cls, count: int, n: int) -> Tried:
        return cls(
            np.full(count, IkStatus.INVALID_INPUT, dtype=np.uint8), np.zeros((count, n)),
            np.zeros((count, n)), np.zeros(count, dtype=bool), np.zeros(count),
        )  # fmt: skip

    def put(self, rows: np.ndarray, answers: Answers) -> None:
        """The answers of the side tried on `rows`."""
        if rows.size == 0:
            return
        self.status[rows] = answers.status
        self.joints[rows] = np.stack(answers.joints, axis=-1)
        self.other[rows] = np.stack(answers.other, axis=-1)
        self.has_other[rows] = answers.has_other
        self.manipulability[rows] = answers.manipulability

    @property
    def ok(self) -> np.ndarray:
        return self.status <= IkStatus.SINGULAR

    def mixed(self, take: np.ndarray, other: Tried) -> Tried:
        """Each row from `other` where `take`, else from this side."""
        pick = take[:, None]
        return Tried(
            np.where(take, other.status, self.status),
            np.where(pick, other.joints, self.joints),
            np.where(pick, other.other, self.other),
            np.where(take, other.has_other, self.has_other),
            np.where(take, other.manipulability, self.manipulability),
        )

    def answers(self) -> Answers:
        """As `Answers` (one column per joint)."""
        return Answers(
            self.status.copy(), list(self.joints.T), list(self.other.T), self.has_other.copy(),
            self.manipulability.copy(),
        )  # fmt: skip


def yaw_gaps(front: Side, back: Side, seeds: Columns) -> tuple[np.ndarray, np.ndarray]:
    """How far (rad) each side's yaw is from the seed's, the short way round."""
    return tuple(np.abs(wrap_angles(side.yaw - seeds[0])) for side in (front, back))


def moves_at_most(
    kinds, joints: Columns, seeds: Columns, bound: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """Where `joint_distance(joints, seed)` <= `bound` (rad), decided on `rows`; near-ties
    measured again by the scalar rule, row by row."""
    total = np.zeros(len(bound))
    for q, seed, kind in zip(joints, seeds, kinds, strict=True):
        step = wrap_angles(q - seed) if kind == CONTINUOUS else q - seed
        total += step * step
    motion = np.sqrt(total)
    at_most = rows & (motion <= bound)
    for row in np.flatnonzero(rows & (np.abs(motion - bound) <= TIE_SCALE * bound)).tolist():
        row_joints = tuple(float(q[row]) for q in joints)
        row_seed = tuple(float(q[row]) for q in seeds)
        at_most[row] = joint_distance(row_joints, row_seed, kinds) <= float(bound[row])
    return at_most


def rank(status: np.ndarray) -> np.ndarray:
    """How near to a solution each failure status is (FAILURE_ORDER), -1 for any other."""
    ranks = np.full(status.shape, -1)
    for index, failure in enumerate(FAILURE_ORDER):
        ranks[status == failure] = index
    return ranks


def margin(arm: SpatialArm, joints: list[np.ndarray]) -> np.ndarray:
    """`SpatialArm.limit_margin` on arrays: the planar chain's, the yaw's and the roll's."""
    k = arm.n_pitch
    planar = [q + shift for q, shift in zip(joints[1 : 1 + k], arm.planar_shifts, strict=True)]
    least = arm.vertical.limit_margin_many(planar)
    pairs = [(joints[0], arm.yaw_limits)]
    if arm.roll_limits is not None:
        pairs.append((joints[-1], arm.roll_limits))
    for q, (lo, hi) in pairs:
        least = np.minimum(least, np.minimum(q - lo, hi - q))
    return least
