"""`SpatialArm.solve_many` and `solve_rotation_many`: the spatial solve of `arm.py` on arrays of
targets, the same answer for each.

The steps of `SpatialArm.solve` (its module docstring), each a mask over all rows: the input
checks; a rotation's pitch, roll and twist (`outward.outward_angles_of`); the sides whose yaw fits
the yaw limits (YAW_LIMIT where none does); a roll on an arm without a roll joint; each side's
vertical plane solved by the planar array solve, and the roll joint (`sides_many.py`); the
side; the nearest failure where no side solves; and SINGULAR on and near the yaw axis. Rows
without a seed try the back only where the front fails (or for MAX_LIMIT_MARGIN); rows with
a seed each try both sides where both fit, and take the one the seed's rules pick
(`solve_rows`).

In a chain every row is seeded by the previous answer: the rows are solved on arrays by a
fixed-point iteration over their seeds, each pass `solve_rows` with one seed per row
(`planar/chain_rows.py`); where it crawls, in order, one at a time, by the scalar solve's
answer without its words (`SpatialArm.answer`). A chain of position-only targets on a 3-joint
plane runs in order from the start: the pitch of least motion moves with its seed, so the
passes would finalize one row each (unless a target repeats) and cost more than they save.

Metres and radians, the base frame, joint order (yaw, pitch joints, roll).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..angles import wrap_angles
from ..array_api import norm
from ..planar.branches import MARGIN_TIE
from ..planar.chain_rows import reusing_repeats
from ..planar.elbows_many import Answers, Columns, nearer
from ..planar.rows import Order
from ..types import Branch, IkArrays, IkStatus
from .outward import outward_angles_of
from .sides import ROLL_MATCH_TOLERANCE
from .sides_many import Side, Tried, attempt, margin, moves_at_most, rank, sides, yaw_gaps

if TYPE_CHECKING:
    from .arm import SpatialArm


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

    def on_arrays(part: np.ndarray, columns: Columns | None) -> Answers:
        x, y, z = (positions[part, axis] for axis in range(3))
        rows = Rows(x, y, z, _at(pitch, part), _at(roll, part), rule, columns)
        if rotations is not None:
            rows.orient(arm, rotations[part])
        return solve_rows(arm, rows)

    for part in (order.unseeded, order.seeded):
        out.put(
            part, on_arrays(part, None if part is order.unseeded else list(seeds.values[part].T))
        )
    in_order = order.in_order
    solve_row = reusing_repeats(
        _in_order(arm, in_order, positions, pitch, roll, rotations, rule),
        _target_rows(in_order, positions, pitch, roll, rotations),
    )
    least_motion = pitch is None and rotations is None and arm.vertical.n_joints == 3
    out.put_chain(
        in_order,
        seeds,
        solve_row,
        None if least_motion else lambda places, columns: on_arrays(in_order[places], columns),
    )
    return out.arrays(
        seeds,
        lambda i: scalar_row(
            arm, i, positions, pitch, roll, rotations, branch, seeds.row(i, current)
        ),
    )


def _at(column: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if column is None else column[rows]


def _target_rows(rows, positions, pitch, roll, rotations) -> np.ndarray:
    """Every number of the targets of `rows`, one row each (for `reusing_repeats`)."""
    columns = [positions[rows]] + [c[rows, None] for c in (pitch, roll) if c is not None]
    if rotations is not None:
        columns.append(rotations[rows].reshape(len(rows), 9))
    return np.hstack(columns)


def _in_order(arm, rows, positions, pitch, roll, rotations, branch):
    """`solve_row(place, seed)` of `Output.put_chain` for the valid `rows` solved in order
    (finite values, a checked `branch` and seed): the scalar solve's answer of each, without
    its words, its values read from the arrays once."""
    points = positions[rows].tolist()
    if rotations is not None:
        matrices = rotations[rows].tolist()

        def solve_row(place: int, seed: tuple[float, ...] | None) -> tuple:
            x, y, z = points[place]
            answer = arm.rotation_answer(x, y, z, matrices[place], branch, seed)
            return answer.status, answer.joints, answer.alternative, answer.manipulability

        return solve_row
    pitches = [None] * len(points) if pitch is None else pitch[rows].tolist()
    rolls = [None] * len(points) if roll is None else roll[rows].tolist()

    def solve_row(place: int, seed: tuple[float, ...] | None) -> tuple:
        x, y, z = points[place]
        answer = arm.answer(x, y, z, pitches[place], rolls[place], branch, seed)
        return answer.status, answer.joints, answer.alternative, answer.manipulability

    return solve_row


def scalar_row(arm, index, positions, pitch, roll, rotations, branch, seed):
    """The scalar solve of row `index` (for a seeded row, and for the words of any row)."""
    x, y, z = positions[index].tolist()
    if rotations is not None:
        return arm.solve_rotation(x, y, z, rotations[index], branch, seed)
    row_pitch = None if pitch is None else float(pitch[index])
    row_roll = None if roll is None else float(roll[index])
    return arm.solve(x, y, z, row_pitch, row_roll, branch, seed)


class Rows:
    """The rows being solved on arrays: their target, the pitch and roll asked for (columns
    or None), their seeds (one column per joint, or None), the yaw a target on the yaw axis
    takes, and the rows already refused."""

    def __init__(self, x, y, z, pitch, roll, branch: Branch, seeds: Columns | None) -> None:
        self.x, self.y, self.z, self.pitch, self.roll, self.branch = x, y, z, pitch, roll, branch
        self.seeds = seeds
        self.status = np.zeros(len(x), dtype=np.uint8)  # OK: not refused (yet)
        self.axis_yaw: np.ndarray | None = None

    def orient(self, arm: SpatialArm, rotations: np.ndarray) -> None:
        """A rotation's pitch and roll (outward), ORIENTATION_UNREACHABLE where it turns
        about the tool's z axis (as `SpatialArm.rotation_answer`)."""
        on_axis = norm(self.x, self.y) <= arm.edge_tolerance
        kept = arm._kept_yaw(None) if self.seeds is None else self.seeds[0]
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


def solve_rows(arm: SpatialArm, rows: Rows) -> Answers:
    """Steps 2-6 of `SpatialArm.answer` on arrays, for rows without a seed or with one each:
    the side tried first (the front; with a seed the one whose yaw is nearer the seed's), the
    other where the rule needs it (`_second_needed`), the side taken (`_second_taken`)."""
    count, n = len(rows.x), arm.n_joints
    front, back, on_axis = sides(arm, rows)
    yaw_limited = (rows.status == IkStatus.OK) & ~front.fits & ~back.fits
    status = np.where(yaw_limited, IkStatus.YAW_LIMIT, rows.status)
    if rows.roll is not None and not arm.has_roll:
        front.fits &= np.abs(wrap_angles(rows.roll)) <= ROLL_MATCH_TOLERANCE
        back.fits &= np.abs(wrap_angles(rows.roll - math.pi)) <= ROLL_MATCH_TOLERANCE
        no_roll = (status == IkStatus.OK) & ~front.fits & ~back.fits
        status = np.where(no_roll, IkStatus.ORIENTATION_UNREACHABLE, status)
    open_rows = status == IkStatus.OK
    back_first = back.fits & ~front.fits
    if rows.seeds is not None and rows.branch is not Branch.MAX_LIMIT_MARGIN:
        front_gap, back_gap = yaw_gaps(front, back, rows.seeds)
        back_first |= back.fits & (back_gap < front_gap)  # the front first on a tie
    tried = {side.back: Tried.none(count, n) for side in (front, back)}
    for side, first in ((front, ~back_first), (back, back_first)):
        index = np.flatnonzero(open_rows & side.fits & first)
        tried[side.back].put(index, attempt(arm, rows, side, index))
    need = _second_needed(arm, rows, front, back, tried, back_first) & open_rows
    for side, second in ((front, back_first), (back, ~back_first)):
        index = np.flatnonzero(need & side.fits & second)
        tried[side.back].put(index, attempt(arm, rows, side, index))
    take_back = _second_taken(arm, rows, tried, back_first)
    ahead, behind = tried[False], tried[True]
    solved = (ahead.ok & ~take_back) | take_back
    # No side solves: the failure nearest to a solution (the one tried first on a tie).
    rank_front, rank_back = rank(ahead.status), rank(behind.status)
    back_wins = np.where(back_first, rank_back >= rank_front, rank_back > rank_front)
    failure = np.where(back_wins, behind.status, ahead.status)
    status = np.where(open_rows & ~solved, failure, status)
    answer = ahead.mixed(take_back, behind).answers()
    rho = norm(rows.x, rows.y)
    near = on_axis | (rho < arm.near_axis)
    answer.status = np.where(
        solved, np.where(near, IkStatus.SINGULAR, answer.status), status
    ).astype(np.uint8)
    answer.has_other &= solved
    answer.manipulability = rho * answer.manipulability * solved
    return answer


def _second_needed(
    arm: SpatialArm, rows: Rows, front: Side, back: Side, tried: dict, back_first: np.ndarray
) -> np.ndarray:
    """Where the side not tried first is tried too (`SpatialArm._attempts`): for
    MAX_LIMIT_MARGIN every row; without a seed where the first has no solution; with one also
    where it moves the joints more than the other side's yaw alone would."""
    if rows.branch is Branch.MAX_LIMIT_MARGIN:
        return np.ones(len(back_first), dtype=bool)
    first = _first(tried, back_first)
    need = ~first.ok
    if rows.seeds is not None:
        _, far = _first_and_second(yaw_gaps(front, back, rows.seeds), back_first)
        both = front.fits & back.fits & first.ok
        need |= both & ~moves_at_most(arm.joint_kinds, list(first.joints.T), rows.seeds,
                                      far, both)  # fmt: skip
    return need


def _second_taken(arm: SpatialArm, rows: Rows, tried: dict, back_first: np.ndarray) -> np.ndarray:
    """Where the back is taken (`SpatialArm._choose`): for MAX_LIMIT_MARGIN the larger limit
    margin (the front on a tie); else the second side tried where the first has no solution,
    and with a seed where it moves the joints less (the first on a tie)."""
    ahead, behind = tried[False], tried[True]
    if rows.branch is Branch.MAX_LIMIT_MARGIN:
        margins = [np.where(t.ok, margin(arm, list(t.joints.T)), -np.inf) for t in (ahead, behind)]
        return behind.ok & (~ahead.ok | (margins[1] > margins[0] + MARGIN_TIE))
    first, second = _first(tried, back_first), _first(tried, ~back_first)
    take_second = second.ok & ~first.ok
    if rows.seeds is not None:
        both = first.ok & second.ok
        kinds = arm.joint_kinds
        take_second |= both & nearer(kinds, list(second.joints.T), list(first.joints.T),
                                     rows.seeds, both)  # fmt: skip
    return np.where(back_first, ~take_second & behind.ok, take_second)


def _first(tried: dict, back_first: np.ndarray) -> Tried:
    """Each row's side tried first (the back where `back_first`) as one `Tried`."""
    return tried[False].mixed(back_first, tried[True])


def _first_and_second(values: tuple, back_first: np.ndarray) -> tuple:
    """(front, back) `values` as (the first tried's, the second's) of each row."""
    front, back = values
    return np.where(back_first, back, front), np.where(back_first, front, back)
