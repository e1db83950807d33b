"""`PlanarArm.solve_many`: the solve of `arm.py` on arrays of targets, the same answer for each.

The same steps in the same order of precedence as `PlanarArm.solve` (its module docstring),
each a mask over all rows instead of an `if`, with the same formulas (`closed_form.py`,
`tool_angles.py`, the limit rules of `limits.py` on arrays):

1. INVALID_INPUT: a target or heading that is not finite, a seed row that is not;
2. the closed form of both elbows (`elbows_many`): TOO_FAR / TOO_CLOSE, ORIENTATION_UNREACHABLE;
3. the limits and the branch rule without a seed (`choose_many`): JOINT_LIMIT, SINGULAR, OK.

A seed changes only the choice among a row's elbows (least motion) and which 2 pi shift a
joint takes, so seeded rows get their elbows from step 2 like every other row and the cheap
choice in order, one row at a time (`PlanarArm`'s own `_within_limits` and `choose_branch`):
in a chain each row's seed is the previous row's answer. A 3R target without a heading takes
its heading by `tool_angles.py`: without a seed, the feasible heading nearest the one pointing
away from the base, on arrays (the away heading for every row, the limit headings for the
rows where it is not feasible); with a seed, the least motion from it, which is a search per
row: those rows are solved one at a time by the scalar solve.

Radians and metres, the arm's plane, joint order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..angles import TAU, wrap_angles
from ..array_api import norm
from ..types import Branch, IkArrays, IkStatus
from .branches import MARGIN_TIE, choose_branch
from .closed_form import (
    HEADING_MATCH_TOLERANCE,
    NEAR_COINCIDENT,
    last_joint,
    three_link_manipulability,
    two_link_ik_many,
    wrist_point,
)
from .limits import LIMIT_TOLERANCE
from .rows import Order
from .tool_angles import TIE, heading_band, nearest_heading

if TYPE_CHECKING:
    from .arm import PlanarArm

Columns = list[np.ndarray]
"""One array (M,) per joint (rad)."""


@dataclass
class Elbows:
    """Both elbows of every row (step 2), before limits: `solved` rows have them (`up` and
    `down`, one column per joint; `has_up` / `has_down` False for an elbow a 2R arm's heading
    rules out), the others a `failure` status. `sin_elbow` |sin joint 2|; `coincident` where
    the two are one configuration (full stretch or fold)."""

    solved: np.ndarray
    failure: np.ndarray
    up: Columns
    down: Columns
    has_up: np.ndarray
    has_down: np.ndarray
    sin_elbow: np.ndarray
    coincident: np.ndarray


@dataclass
class Answers:
    """The answer of every row: status (uint8), joints and the other elbow (one column per
    joint), whether there is one, the manipulability (m^2)."""

    status: np.ndarray
    joints: Columns
    other: Columns
    has_other: np.ndarray
    manipulability: np.ndarray


def ring_failure(r: np.ndarray, ring: tuple[float, float]) -> np.ndarray:
    """TOO_FAR beyond the ring's outer edge, else TOO_CLOSE (rows off the ring), uint8."""
    return np.where(r > ring[1], IkStatus.TOO_FAR, IkStatus.TOO_CLOSE).astype(np.uint8)


def elbows_many(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, heading: np.ndarray | None, branch: Branch
) -> Elbows:
    """Step 2 for every row: both elbows by the closed form, or why there are none."""
    l1, l2 = arm.link_lengths[:2]
    tolerance = arm.edge_tolerance
    if arm.n_joints == 3:
        assert heading is not None
        wrist_x, wrist_y = wrist_point(x, y, heading, arm.link_lengths[2], np)
        solved, (up_1, up_2, down_1, down_2), sin_elbow = two_link_ik_many(
            l1, l2, wrist_x, wrist_y, tolerance
        )
        r = np.sqrt(x * x + y * y)
        inner, outer = arm.ring
        off_ring = (r < inner - tolerance) | (r > outer + tolerance)
        failure = np.where(
            off_ring, ring_failure(r, arm.ring), IkStatus.ORIENTATION_UNREACHABLE
        ).astype(np.uint8)
        up = [up_1, up_2, last_joint(heading, up_1, up_2, wrap_angles)]
        down = [down_1, down_2, last_joint(heading, down_1, down_2, wrap_angles)]
        every = np.ones_like(solved)
        return Elbows(solved, failure, up, down, every, every, sin_elbow, sin_elbow == 0.0)
    solved, (up_1, up_2, down_1, down_2), sin_elbow = two_link_ik_many(l1, l2, x, y, tolerance)
    failure = ring_failure(np.sqrt(x * x + y * y), arm.ring_12)
    elbows = Elbows(
        solved, failure, [up_1, up_2], [down_1, down_2], np.ones_like(solved),
        np.ones_like(solved), sin_elbow, sin_elbow == 0.0,
    )  # fmt: skip
    if heading is not None:
        _match_heading(arm, x, y, heading, branch, elbows)
    return elbows


def _match_heading(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, heading: np.ndarray, branch: Branch, elbows
) -> None:
    """Step 2 of a 2R arm with a heading (`PlanarArm._heading_elbows` on arrays): the elbow
    that has the heading, or ORIENTATION_UNREACHABLE; in place."""
    l1, l2 = arm.link_lengths
    elbow_x, elbow_y = wrist_point(x, y, heading, l2, np)
    r = np.sqrt(x * x + y * y)
    inner, outer = arm.ring_12
    outside = np.maximum(0.0, np.maximum(r - outer, inner - r))
    met = np.abs(norm(elbow_x, elbow_y) - l1) <= HEADING_MATCH_TOLERANCE + outside
    shoulder = np.atan2(elbow_y, elbow_x)
    matched = [shoulder, wrap_angles(heading - shoulder)]
    near = elbows.sin_elbow < NEAR_COINCIDENT
    is_up = matched[1] < 0.0
    wrong = ~near & (
        (is_up & (branch is Branch.ELBOW_DOWN)) | (~is_up & (branch is Branch.ELBOW_UP))
    )
    unreachable = elbows.solved & (~met | wrong)
    elbows.failure = np.where(unreachable, IkStatus.ORIENTATION_UNREACHABLE, elbows.failure)
    elbows.failure = elbows.failure.astype(np.uint8)
    elbows.solved = elbows.solved & ~unreachable
    elbows.up, elbows.down = matched, matched
    elbows.has_up = near | is_up
    elbows.has_down = near | ~is_up
    elbows.coincident = np.where(near, True, elbows.sin_elbow == 0.0)


def choose_many(arm: PlanarArm, elbows: Elbows, branch: Branch) -> Answers:
    """Steps 4-6 for rows without a seed (`PlanarArm._choose` on arrays): the elbows within the
    limits (2 pi shifts nearest 0), the branch rule (`choose_branch` without `current`: the
    requested elbow, else the feasible one, else the larger limit margin, elbow up on a tie),
    JOINT_LIMIT where it leaves none, SINGULAR below the singularity margin, else OK."""
    take_up, take_down, has_other, up_fit, down_fit = branch_rule(arm, elbows, branch)
    joints = [np.where(take_down, d, u) for u, d in zip(up_fit, down_fit, strict=True)]
    other = [np.where(take_down, u, d) for u, d in zip(up_fit, down_fit, strict=True)]
    sin_elbow = elbows.sin_elbow
    status = np.where(sin_elbow < arm.singularity_margin, IkStatus.SINGULAR, IkStatus.OK)
    status = np.where(take_up | take_down, status, IkStatus.JOINT_LIMIT)
    status = np.where(elbows.solved, status, elbows.failure).astype(np.uint8)
    solved = status <= IkStatus.SINGULAR
    manipulability = _manipulability(arm, joints, sin_elbow) * solved
    return Answers(status, joints, other, has_other & solved, manipulability)


def branch_rule(
    arm: PlanarArm, elbows: Elbows, branch: Branch
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Columns, Columns]:
    """Steps 4-5 for rows without a seed: (where elbow up is taken, where elbow down is, where
    the other one is feasible too, both elbows moved into the limits)."""
    up_fit, up_ok, up_margin = _within_limits(arm, elbows.up, elbows.has_up & elbows.solved)
    down_fit, down_ok, down_margin = _within_limits(
        arm, elbows.down, elbows.has_down & elbows.solved
    )
    coincident = elbows.coincident
    down_ok = down_ok & ~(coincident & up_ok)  # one configuration: not offered twice
    if branch is Branch.ELBOW_UP:
        take_up = up_ok
        take_down = ~up_ok & coincident & down_ok
        has_other = up_ok & down_ok
    elif branch is Branch.ELBOW_DOWN:
        take_down = down_ok
        take_up = ~down_ok & coincident & up_ok
        has_other = down_ok & up_ok
    else:  # CLOSEST without a seed, MAX_LIMIT_MARGIN: the larger margin, up on a tie
        both = up_ok & down_ok
        take_down = (down_ok & ~up_ok) | (both & (down_margin > up_margin + MARGIN_TIE))
        take_up = up_ok & ~take_down
        has_other = both
    return take_up, take_down, has_other, up_fit, down_fit


def _within_limits(
    arm: PlanarArm, joints: Columns, exists: np.ndarray
) -> tuple[Columns, np.ndarray, np.ndarray]:
    """Step 4 on arrays (`PlanarArm._within_limits` without a seed): (the elbow moved by
    k * 2 pi into the limits nearest 0, where it is within them, its limit margin)."""
    if arm.shifts_can_fit:
        joints, fits = arm.fit_into_limits_many(joints, [0.0] * arm.n_joints)
        exists = exists & fits
    margin = np.where(exists, arm.limit_margin_many(joints), -np.inf)
    return joints, margin >= -LIMIT_TOLERANCE, margin


def _manipulability(arm: PlanarArm, joints: Columns, sin_elbow: np.ndarray) -> np.ndarray:
    """As `PlanarArm._choose`: L1 L2 |sin joint 2| for 2R, the 3R formula for 3R (m^2)."""
    if arm.n_joints == 2:
        return arm.link_lengths[0] * arm.link_lengths[1] * sin_elbow
    return three_link_manipulability(arm.link_lengths, joints, np)


def choose_row(
    arm: PlanarArm, elbows: Elbows, row: int, branch: Branch, seed: tuple[float, ...]
) -> tuple[int, tuple[float, ...] | None, tuple[float, ...] | None, float]:
    """Steps 4-6 of one seeded row, by the scalar rules (`PlanarArm._within_limits` and
    `choose_branch` with `current`): (status, joints or None, the other elbow or None, the
    manipulability)."""
    if not elbows.solved[row]:
        return int(elbows.failure[row]), None, None, 0.0
    up = tuple(q[row] for q in elbows.up) if elbows.has_up[row] else None
    down = tuple(q[row] for q in elbows.down) if elbows.has_down[row] else None
    coincident = bool(elbows.coincident[row])
    up = tuple(map(float, up)) if up is not None else None
    down = tuple(map(float, down)) if down is not None else None
    up_fit, up_margin, down_fit, down_margin = arm._within_limits(seed, up, down, coincident)
    choice = choose_branch(
        branch, up_fit, up_margin, down_fit, down_margin, coincident, seed, arm.joint_kinds
    )
    if choice is None:
        return int(IkStatus.JOINT_LIMIT), None, None, 0.0
    chosen, other, _ = choice
    sin_elbow = float(elbows.sin_elbow[row])
    if arm.n_joints == 2:
        manipulability = arm.link_lengths[0] * arm.link_lengths[1] * sin_elbow
    else:
        manipulability = three_link_manipulability(arm.link_lengths, chosen)
    status = IkStatus.SINGULAR if sin_elbow < arm.singularity_margin else IkStatus.OK
    return int(status), chosen, other, manipulability


# --- 3R without a heading ---------------------------------------------------------------------


def solve_free_heading(arm: PlanarArm, x: np.ndarray, y: np.ndarray, branch: Branch) -> Answers:
    """Unseeded 3R rows without a heading (`PlanarArm._solve_free_heading` without `current`,
    on arrays): off the ring a ring failure; else solved at the heading pointing away from the
    base (or the nearest reachable one); where that has no solution, at the feasible limit
    heading nearest it (`nearest_heading`), or JOINT_LIMIT where none is feasible."""
    r = norm(x, y)
    inner, outer = arm.ring
    tolerance = arm.edge_tolerance
    phi, delta_lo, _ = heading_band(arm.link_lengths, x, y, tolerance)
    off_ring = (r < inner - tolerance) | (r > outer + tolerance) | np.isnan(delta_lo)
    lo = np.where(off_ring, 0.0, delta_lo)
    away = wrap_angles(phi + lo)  # pointing away from the base, or the nearest reachable
    answers = choose_many(arm, elbows_many(arm, x, y, away, branch), branch)
    answers.status = np.where(off_ring, ring_failure(r, arm.ring), answers.status)
    rest = np.flatnonzero(~off_ring & (answers.status > IkStatus.SINGULAR))
    if rest.size:
        rx, ry, rphi, rlo = x[rest], y[rest], phi[rest], lo[rest]
        candidates = arm.free_heading_candidates(rx, ry, rphi, rlo)
        table = np.stack(candidates, axis=-1)  # (rows, candidates)
        finite = np.isfinite(table)
        finite[:, 0] = False  # the away heading failed already
        wrapped = wrap_angles(np.where(finite, table, 0.0))
        ok = _feasible_nearest_first(arm, rx, ry, rphi, wrapped, finite, branch)
        index = nearest_heading(rphi, candidates, list(ok.T))
        found = index >= 0
        heading = wrapped[np.arange(rest.size), np.maximum(index, 0)]
        again = choose_many(arm, elbows_many(arm, rx, ry, heading, branch), branch)
        again.status = np.where(found, again.status, IkStatus.JOINT_LIMIT)
        _merge(answers, rest, again)
    answers.status = answers.status.astype(np.uint8)
    return answers


def _feasible_nearest_first(
    arm: PlanarArm,
    x: np.ndarray,
    y: np.ndarray,
    phi: np.ndarray,
    headings: np.ndarray,
    exists: np.ndarray,
    branch: Branch,
) -> np.ndarray:
    """Which of each row's `headings` (rows, candidates; rad) are feasible, asked nearest
    `phi` first, one column of every open row at a time, until a row's next is farther than
    its nearest feasible one (by more than TIE): those cannot win `nearest_heading`, and are
    left False (as `tool_angles.nearest_feasible` does for one target)."""
    delta = headings - phi[:, None]
    distance = np.where(exists, np.abs(delta - TAU * np.round(delta / TAU)), np.inf)
    order = np.argsort(distance, axis=1, kind="stable")
    ok = np.zeros(headings.shape, dtype=bool)
    best = np.full(len(x), np.inf)
    rows = np.arange(len(x))
    for step in range(headings.shape[1]):
        column = order[rows, step]
        near = distance[rows, column]
        open_rows = np.isfinite(near) & (near <= best[rows] + TIE)
        rows, column, near = rows[open_rows], column[open_rows], near[open_rows]
        if rows.size == 0:
            break
        found = _feasible(arm, x[rows], y[rows], headings[rows, column], branch)
        ok[rows, column] = found
        best[rows] = np.where(found, np.minimum(best[rows], near), best[rows])
    return ok


def _merge(answers: Answers, rows: np.ndarray, part: Answers) -> None:
    """Put the answers `part` of `rows` into `answers`, in place."""
    answers.status[rows] = part.status
    for whole, piece in ((answers.joints, part.joints), (answers.other, part.other)):
        for column, values in zip(whole, piece, strict=True):
            column[rows] = values
    answers.has_other[rows] = part.has_other
    answers.manipulability[rows] = part.manipulability


def _feasible(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, heading: np.ndarray, branch: Branch
) -> np.ndarray:
    """Where the unseeded solve with `heading` (rad) has a solution (OK or SINGULAR)."""
    elbows = elbows_many(arm, x, y, heading, branch)
    take_up, take_down, _, _, _ = branch_rule(arm, elbows, branch)
    return elbows.solved & (take_up | take_down)


# --- the whole solve --------------------------------------------------------------------------


def solve_many(arm: PlanarArm, targets: Any, branch: Any, current: Any, chain: bool) -> IkArrays:
    """`PlanarArm.solve_many` (its docstring says the arguments)."""
    rows = np.asarray(targets, dtype=float)
    if rows.ndim != 2 or rows.shape[1] not in (2, 3):
        raise ValueError(f"targets of shape {rows.shape} must be (N, 2) or (N, 3) rows (m, rad)")
    n = arm.n_joints
    valid = np.isfinite(rows).all(axis=1) & (n <= 3)  # the closed forms cover 2 and 3 joints
    order = Order.of(valid, n, branch, current, chain)
    seeds, rule, out = order.seeds, order.rule, order.out
    unseeded, in_order = order.unseeded, order.in_order
    x, y = rows[:, 0], rows[:, 1]
    heading = rows[:, 2] if rows.shape[1] == 3 else None
    out.put(unseeded, solve_unseeded(arm, x[unseeded], y[unseeded], _at(heading, unseeded), rule))
    if n == 3 and heading is None:  # the least motion from a seed: a search per row

        def solve_row(index: int, seed: tuple[float, ...] | None) -> tuple:
            result = arm._solve(float(x[index]), float(y[index]), None, rule, seed)
            return result.status, result.joints, result.alternative, result.manipulability

    else:  # both elbows of every row at once, the choice row by row
        elbows = elbows_many(arm, x[in_order], y[in_order], _at(heading, in_order), rule)
        position = {index: place for place, index in enumerate(in_order.tolist())}

        def solve_row(index: int, seed: tuple[float, ...] | None) -> tuple:
            return choose_row(arm, elbows, position[index], rule, seed)

    out.put_in_order(in_order, seeds, chain, solve_row)
    return out.arrays(
        seeds, lambda i: arm.solve(*target_of(rows[i]), branch, seeds.row(i, current))
    )


def solve_unseeded(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, heading: np.ndarray | None, branch: Branch
) -> Answers:
    """Every row of finite targets without a seed, on arrays: a 3R arm without a heading takes
    its heading by `solve_free_heading`, then steps 2-6."""
    if arm.n_joints == 3 and heading is None:
        return solve_free_heading(arm, x, y, branch)
    return choose_many(arm, elbows_many(arm, x, y, heading, branch), branch)


def _at(column: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    """`column[rows]`, or None without a column."""
    return None if column is None else column[rows]


def target_of(row: np.ndarray) -> tuple[float, float, float | None]:
    """(x, y, heading or None) of a target row, as `PlanarArm.solve` takes them."""
    values = row.tolist()
    return values[0], values[1], (values[2] if len(values) == 3 else None)


def subset(elbows: Elbows, rows: np.ndarray) -> Elbows:
    """The elbows of `rows` only."""
    return Elbows(
        elbows.solved[rows], elbows.failure[rows], [q[rows] for q in elbows.up],
        [q[rows] for q in elbows.down], elbows.has_up[rows], elbows.has_down[rows],
        elbows.sin_elbow[rows], elbows.coincident[rows],
    )  # fmt: skip
