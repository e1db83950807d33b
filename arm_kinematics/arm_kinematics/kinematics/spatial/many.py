"""`SpatialArm.solve_many` and `solve_rotation_many`: the spatial solve of `arm.py` on arrays of
targets, the same answer for each.

The steps of `SpatialArm.solve` (its module docstring), each a mask over all rows: the input
checks; a rotation's pitch, roll and twist (`model.outward_angles_of`); the sides whose yaw fits
the yaw limits (YAW_LIMIT where none does); a roll on an arm without a roll joint; each side's
vertical plane solved by the planar core's `solve_many` (the front for every row, over the back
only for the rows that need it: without a seed the back is tried only where the front fails, or
for MAX_LIMIT_MARGIN); the roll joint; the side; the nearest failure where no side solves; and
SINGULAR on and near the yaw axis.

A seeded row (one seed per row, or a chain whose every row is seeded by the previous answer)
is solved one row at a time by the scalar solve: the seed moves the yaw and roll it keeps,
which side and elbow are chosen, and, without a pitch, the tool's pitch (a search per row).

Metres and radians, the base frame, joint order (yaw, pitch joints, roll).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..angles import TAU, wrap_angles
from ..array_api import norm
from ..planar.branches import MARGIN_TIE
from ..planar.many import Answers, solve_unseeded
from ..planar.rows import Order
from ..types import Branch, IkArrays, IkStatus
from .model import outward_angles_of

if TYPE_CHECKING:
    from ..planar.arm import PlanarArm
    from .arm import SpatialArm

ROLL_MATCH_TOLERANCE = 1e-9
"""rad: how close a requested roll must be to 0 or pi on an arm without a wrist roll."""
FAILURE_ORDER = (
    IkStatus.INVALID_INPUT,
    IkStatus.TOO_FAR,
    IkStatus.TOO_CLOSE,
    IkStatus.ORIENTATION_UNREACHABLE,
    IkStatus.JOINT_LIMIT,
    IkStatus.OUTSIDE_WORKSPACE,
)
"""Failure statuses from farthest to nearest to a solution, for choosing which side reports."""


def fit_angle_many(angle: np.ndarray, limits: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """`arm._fit_angle` without a `near` for arrays: (the angle moved by k * 2 pi into
    `limits` (rad), the smallest such shift; where it fits).

    >>> fitted, fits = fit_angle_many(np.array([0.5, 3.0, 7.0]), (-1.0, 1.0))
    >>> fitted.round(3).tolist(), fits.tolist()
    ([0.5, 3.0, 0.717], [True, False, True])
    """
    lo, hi = limits
    if lo == -math.inf and hi == math.inf:  # as it is: within (-inf, inf)
        return angle, np.ones(angle.shape, dtype=bool)
    inside = (lo <= angle) & (angle <= hi)
    k_min = np.ceil((lo - 1e-9 - angle) / TAU) if lo > -math.inf else np.full(angle.shape, -np.inf)
    k_max = np.floor((hi + 1e-9 - angle) / TAU) if hi < math.inf else np.full(angle.shape, np.inf)
    turns = np.minimum(np.maximum(0.0, k_min), k_max)
    fits = inside | (k_min <= k_max)
    return np.where(inside | ~fits, angle, angle + turns * TAU), fits


def rotations_ok(rotations: np.ndarray) -> np.ndarray:
    """(N,) True where a 3x3 matrix of `rotations` (N, 3, 3) is a rotation: finite,
    orthonormal rows to 1e-6, determinant +1 (as `arm._checked_rotation`)."""
    finite = np.isfinite(rotations).all(axis=(1, 2))
    rows = [np.where(finite, rotations[:, i, :].T, 0.0) for i in range(3)]  # 3 x (3, N)
    ok = finite
    for k in range(3):
        for m in range(k, 3):
            dot = rows[k][0] * rows[m][0] + rows[k][1] * rows[m][1] + rows[k][2] * rows[m][2]
            ok &= np.abs(dot - (1.0 if k == m else 0.0)) <= 1e-6
    (a, b, c), (d, e, f), (g, h, i) = rows
    determinant = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return ok & (determinant >= 0.0)


def solve_many(
    arm: SpatialArm,
    positions: np.ndarray,
    pitch: np.ndarray | None,
    roll: np.ndarray | None,
    rotations: np.ndarray | None,
    branch: Any,
    current: Any,
    chain: bool,
) -> IkArrays:
    """`SpatialArm.solve_many` / `solve_rotation_many` (their docstrings say the arguments):
    `positions` (N, 3), a pitch and a roll column or None, or `rotations` (N, 3, 3)."""
    valid = np.isfinite(positions).all(axis=1)
    for column in (pitch, roll):
        if column is not None:
            valid &= np.isfinite(column)
    if rotations is not None:
        valid &= rotations_ok(rotations)
    order = Order.of(valid, arm.n_joints, branch, current, chain)
    seeds, rule, out = order.seeds, order.rule, order.out
    unseeded, in_order = order.unseeded, order.in_order
    x, y, z = (positions[unseeded, axis] for axis in range(3))
    rows = _Rows(x, y, z, _at(pitch, unseeded), _at(roll, unseeded), rule)
    if rotations is not None:
        rows.orient(arm, rotations[unseeded])
    out.put(unseeded, _solve_unseeded(arm, rows))

    def solve_row(index: int, seed: tuple[float, ...] | None) -> tuple:
        result = scalar_row(arm, index, positions, pitch, roll, rotations, rule, seed)
        return result.status, result.joints, result.alternative, result.manipulability

    out.put_in_order(in_order, seeds, chain, solve_row)
    return out.arrays(
        seeds,
        lambda i: scalar_row(
            arm, i, positions, pitch, roll, rotations, branch, seeds.row(i, current)
        ),
    )


def _at(column: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if column is None else column[rows]


def scalar_row(arm, index, positions, pitch, roll, rotations, branch, seed):
    """The scalar solve of row `index` (for a seeded row, and for the words of any row)."""
    x, y, z = positions[index].tolist()
    if rotations is not None:
        return arm.solve_rotation(x, y, z, rotations[index], branch, seed)
    row_pitch = None if pitch is None else float(pitch[index])
    row_roll = None if roll is None else float(roll[index])
    return arm.solve(x, y, z, row_pitch, row_roll, branch, seed)


class _Rows:
    """The unseeded rows being solved: their target, the pitch and roll asked for (columns or
    None), the yaw a target on the yaw axis takes, and the rows already refused."""

    def __init__(self, x, y, z, pitch, roll, branch: Branch) -> None:
        self.x, self.y, self.z, self.pitch, self.roll, self.branch = x, y, z, pitch, roll, branch
        self.status = np.zeros(len(x), dtype=np.uint8)  # OK: not refused (yet)
        self.axis_yaw: np.ndarray | None = None

    def orient(self, arm: SpatialArm, rotations: np.ndarray) -> None:
        """A rotation's pitch and roll (outward), ORIENTATION_UNREACHABLE where it turns
        about the tool's z axis (as `SpatialArm.solve_rotation`)."""
        on_axis = norm(self.x, self.y) <= arm.edge_tolerance
        kept = arm._kept_yaw(None)
        vertical = np.abs(rotations[:, 2, 0]) >= 1.0 - 1e-12
        self.axis_yaw = np.where(
            on_axis & ~vertical, np.atan2(rotations[:, 1, 0], rotations[:, 0, 0]), kept
        )
        entries = [rotations[:, i, j] for i, j in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2))]
        entries.append(rotations[:, 2, 2])
        pitch, roll, twist = outward_angles_of(self.x, self.y, entries, self.axis_yaw)
        self.pitch, self.roll = pitch, roll
        twisted = np.abs(twist) > ROLL_MATCH_TOLERANCE
        self.status[twisted] = IkStatus.ORIENTATION_UNREACHABLE


class _Side:
    """One way to face the target, for every row: its yaw (fitted), whether it exists
    there (`fits`), over the back or not, the target in its (maybe mirrored) plane."""

    def __init__(self, yaw, fits, back, planar_x) -> None:
        self.yaw, self.fits, self.back, self.planar_x = yaw, fits, back, planar_x


def _sides(arm: SpatialArm, rows: _Rows) -> tuple[_Side, _Side, np.ndarray]:
    """The first side (front, or the yaw axis) and the back of every row, and where the
    target is on the yaw axis (as `SpatialArm._sides` without a seed)."""
    rho = norm(rows.x, rows.y)
    d = arm.shoulder_forward
    on_axis = rho <= arm.edge_tolerance
    psi = np.atan2(rows.y, rows.x)
    axis_yaw = rows.axis_yaw if rows.axis_yaw is not None else arm._kept_yaw(None)
    front_yaw = np.where(on_axis, axis_yaw, psi)
    yaw, fits = fit_angle_many(front_yaw, arm.yaw_limits)
    front = _Side(yaw, fits, False, rho - d)
    back_yaw, back_fits = fit_angle_many(wrap_angles(psi + math.pi), arm.yaw_limits)
    back = _Side(back_yaw, back_fits & ~on_axis, True, rho + d)
    return front, back, on_axis


def _solve_unseeded(arm: SpatialArm, rows: _Rows) -> Answers:
    """Steps 2-6 of `SpatialArm._solve` for rows without a seed, on arrays."""
    count, n = len(rows.x), arm.n_joints
    front, back, on_axis = _sides(arm, rows)
    yaw_limited = (rows.status == IkStatus.OK) & ~front.fits & ~back.fits
    status = np.where(yaw_limited, IkStatus.YAW_LIMIT, rows.status)
    if rows.roll is not None and not arm.has_roll:
        front.fits &= np.abs(wrap_angles(rows.roll)) <= ROLL_MATCH_TOLERANCE
        back.fits &= np.abs(wrap_angles(rows.roll - math.pi)) <= ROLL_MATCH_TOLERANCE
        no_roll = (status == IkStatus.OK) & ~front.fits & ~back.fits
        status = np.where(no_roll, IkStatus.ORIENTATION_UNREACHABLE, status)
    open_rows = status == IkStatus.OK
    first_rows = np.flatnonzero(open_rows & front.fits)
    first = _attempt(arm, rows, front, first_rows)
    first_status = np.full(count, IkStatus.INVALID_INPUT, dtype=np.uint8)
    first_status[first_rows] = first.status
    both = rows.branch is Branch.MAX_LIMIT_MARGIN
    need_back = open_rows & back.fits & (both | (first_status > IkStatus.SINGULAR))
    second_rows = np.flatnonzero(need_back)
    second = _attempt(arm, rows, back, second_rows)
    second_status = np.full(count, IkStatus.INVALID_INPUT, dtype=np.uint8)
    second_status[second_rows] = second.status
    first_ok = first_status <= IkStatus.SINGULAR
    second_ok = need_back & (second_status <= IkStatus.SINGULAR)
    if both:
        margin = np.full((2, count), -np.inf)
        margin[0, first_rows] = _margin(arm, first.joints)
        margin[1, second_rows] = _margin(arm, second.joints)
        take_second = second_ok & (~first_ok | (margin[1] > margin[0] + MARGIN_TIE))
    else:
        take_second = second_ok & ~first_ok
    solved = first_ok | take_second
    # No side solves: the failure nearest to a solution (the first side on a tie).
    rank_first = np.where(open_rows & front.fits, _rank(first_status), -1)
    rank_second = np.where(need_back, _rank(second_status), -1)
    failure = np.where(rank_second > rank_first, second_status, first_status)
    status = np.where(open_rows & ~solved, failure, status)
    answer = _taken(n, np.where(take_second, second_status, first_status), take_second,
                    (first, first_rows), (second, second_rows))  # fmt: skip
    rho = norm(rows.x, rows.y)
    near = on_axis | (rho < arm.singularity_margin * arm.reach)
    planar_status = answer.status
    answer.status = np.where(
        solved, np.where(near, IkStatus.SINGULAR, planar_status), status
    ).astype(np.uint8)
    answer.has_other &= solved
    answer.manipulability = rho * answer.manipulability * solved
    return answer


def _taken(n: int, status: np.ndarray, take_second: np.ndarray, *sides) -> Answers:
    """Each row's answer from the side it takes: the first's, or the second's where
    `take_second`; `sides` are (its answers, its rows) for the first and the second."""
    count = len(status)
    answer = Answers(
        status,
        [np.zeros(count) for _ in range(n)],
        [np.zeros(count) for _ in range(n)],
        np.zeros(count, dtype=bool),
        np.zeros(count),
    )
    for number, (side, side_rows) in enumerate(sides):
        chosen = (take_second if number else ~take_second)[side_rows]
        rows_taken, taken = side_rows[chosen], np.flatnonzero(chosen)
        for column, values in ((answer.joints, side.joints), (answer.other, side.other)):
            for i in range(n):
                column[i][rows_taken] = values[i][taken]
        answer.has_other[rows_taken] = side.has_other[taken]
        answer.manipulability[rows_taken] = side.manipulability[taken]
    return answer


def _rank(status: np.ndarray) -> np.ndarray:
    """How near to a solution each failure status is (FAILURE_ORDER), -1 for any other."""
    rank = np.full(status.shape, -1)
    for index, failure in enumerate(FAILURE_ORDER):
        rank[status == failure] = index
    return rank


def _margin(arm: SpatialArm, joints: list[np.ndarray]) -> np.ndarray:
    """`SpatialArm.limit_margin` on arrays: the planar chain's, the yaw's and the roll's."""
    k = arm.n_pitch
    planar = [q + shift for q, shift in zip(joints[1 : 1 + k], arm._planar_shifts(), strict=True)]
    margin = arm.vertical.limit_margin_many(planar)
    pairs = [(joints[0], arm.yaw_limits)]
    if arm.roll_limits is not None:
        pairs.append((joints[-1], arm.roll_limits))
    for q, (lo, hi) in pairs:
        margin = np.minimum(margin, np.minimum(q - lo, hi - q))
    return margin


class _Attempt:
    """What one side answered for every row (rows where it was not tried: ignored)."""

    def __init__(self, status, joints, other, has_other, manipulability) -> None:
        self.status, self.joints, self.other = status, joints, other
        self.has_other, self.manipulability = has_other, manipulability


def _attempt(arm: SpatialArm, rows: _Rows, side: _Side, index: np.ndarray) -> Answers:
    """The vertical plane solved on `side` for the rows `index` (`SpatialArm._attempt`):
    the planar core's answer, then the roll joint; joints in joint order, for those rows."""
    chain: PlanarArm = arm.vertical_back if side.back else arm.vertical
    heading = None
    if rows.pitch is not None:  # the planar heading: the last straight link's angle
        delta = arm.link_angle_offsets[-1]
        pitch = rows.pitch[index]
        heading = wrap_angles(pitch - delta if side.back else pitch + delta)
    planar_x, planar_z = side.planar_x[index], rows.z[index] - arm.shoulder_height
    planar = solve_unseeded(chain, planar_x, planar_z, heading, rows.branch)
    roll, roll_ok = _roll_joint(arm, rows, side, index)
    planar_ok = planar.status <= IkStatus.SINGULAR
    status = np.where(planar_ok & ~roll_ok, IkStatus.JOINT_LIMIT, planar.status)
    yaw = side.yaw[index]
    columns = []
    for phis in (planar.joints, planar.other):
        if side.back:  # seen from behind: pi - phi_1, the others change sign
            phis = [math.pi - phis[0], *(-phi for phi in phis[1:])]
        pitches = [phi - shift for phi, shift in zip(phis, arm._planar_shifts(), strict=True)]
        columns.append([yaw, *pitches, *([roll] if arm.has_roll else [])])
    return Answers(
        status.astype(np.uint8), columns[0], columns[1], planar.has_other,
        planar.manipulability,
    )  # fmt: skip


def _roll_joint(
    arm: SpatialArm, rows: _Rows, side: _Side, index: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The roll joint's angle for the requested roll (`SpatialArm._roll_joint` without a
    seed) and where it fits the roll limits; 0.0 without a roll joint."""
    if not arm.has_roll:
        return np.zeros(index.size), np.ones(index.size, dtype=bool)
    assert arm.roll_limits is not None
    if rows.roll is None:
        wanted = np.zeros(index.size)
    else:
        wanted = rows.roll[index] - (math.pi if side.back else 0.0)
    fitted, fits = fit_angle_many(wanted, arm.roll_limits)
    if rows.roll is None:  # 0 outside the limits: the middle of them
        fitted = np.where(fits, fitted, 0.5 * (arm.roll_limits[0] + arm.roll_limits[1]))
        fits = np.ones(index.size, dtype=bool)
    return fitted, fits
