"""`PlanarArm.solve_many`: the solve of `arm.py` on arrays of targets, the same answer for each.

The same steps in the same order of precedence as `PlanarArm.solve` (its module docstring),
each a mask over all rows instead of an `if` (`elbows_many.py`, `free_heading_many.py`):

1. INVALID_INPUT: a target or heading that is not finite, a seed row that is not;
2. the closed form of both elbows: TOO_FAR / TOO_CLOSE, ORIENTATION_UNREACHABLE;
3. the limits and the branch rule: JOINT_LIMIT, SINGULAR, OK.

Rows without a seed and rows with one each are solved on arrays (a seed changes the choice
among a row's elbows, which 2 pi shift a joint takes and, for a 3R target without a heading,
the heading: the least motion from it, `least_motion_many.py`). In a chain each row's seed is
the previous row's answer: the chain is solved on arrays by a fixed-point iteration over the
rows' seeds, each pass the seeded array solve (`chain_rows.py`); where it crawls, row by row:
the rows' elbows from step 2 on arrays and the choice one row at a time (`choose_row`, by
`PlanarArm`'s own rules). A 3R chain without a heading runs row by row from the start, by the
scalar solve (its search starts from its seed): the heading of least motion moves with its
seed, so the passes would finalize one row each (unless a target repeats) and cost more than
they save.

Radians and metres, the arm's plane, joint order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..types import Branch, IkArrays, IkStatus
from .branches import choose_branch
from .chain_rows import SolveRow, reusing_repeats
from .closed_form import three_link_manipulability
from .elbows_many import Answers, Columns, Elbows, choose_many, elbows_many
from .free_heading_many import solve_free_heading, solve_from_seeds
from .rows import Order

if TYPE_CHECKING:
    from .arm import PlanarArm


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


def solve_many(arm: PlanarArm, targets: Any, branch: Any, current: Any, chain: bool) -> IkArrays:
    """`PlanarArm.solve_many` (its docstring says the arguments)."""
    rows = np.asarray(targets, dtype=float)
    if rows.ndim != 2 or rows.shape[1] not in (2, 3):
        raise ValueError(f"targets of shape {rows.shape} must be (N, 2) or (N, 3) rows (m, rad)")
    n = arm.n_joints
    valid = np.isfinite(rows).all(axis=1) & (n <= 3)  # the closed forms cover 2 and 3 joints
    order = Order.of(valid, n, branch, current, chain)
    seeds, rule, out = order.seeds, order.rule, order.out
    x, y = rows[:, 0], rows[:, 1]
    heading = rows[:, 2] if rows.shape[1] == 3 else None
    for part in (order.unseeded, order.seeded):
        part_seeds = None if part is order.unseeded else list(seeds.values[part].T)
        part_heading = _at(heading, part)
        out.put(part, solve_on_arrays(arm, x[part], y[part], part_heading, rule, part_seeds))
    in_order = order.in_order
    x_chain, y_chain, heading_chain = x[in_order], y[in_order], _at(heading, in_order)

    def on_arrays(places: np.ndarray, columns: Columns | None) -> Answers:
        part_heading = _at(heading_chain, places)
        return solve_on_arrays(arm, x_chain[places], y_chain[places], part_heading, rule, columns)

    free_heading = n == 3 and heading is None  # the least motion moves with its seed
    solve_row = reusing_repeats(_in_order(arm, rows[in_order], rule), rows[in_order])
    out.put_chain(in_order, seeds, solve_row, None if free_heading else on_arrays)
    return out.arrays(
        seeds, lambda i: arm.solve(*target_of(rows[i]), branch, seeds.row(i, current))
    )


def _in_order(arm: PlanarArm, rows: np.ndarray, rule: Branch) -> SolveRow:
    """`solve_row(place, seed)` of the chain's `rows` one at a time (where the arrays crawl):
    both elbows of every row at once, the choice row by row (`choose_row`); a 3R row without a
    heading by the scalar solve (the least motion from a seed: a search per row)."""
    if arm.n_joints == 3 and rows.shape[1] == 2:
        points = rows.tolist()

        def solve_row(place: int, seed: tuple[float, ...] | None) -> tuple:
            x_row, y_row = points[place]
            answer = arm.solve_valid(x_row, y_row, None, rule, seed)
            return answer.status, answer.joints, answer.alternative, answer.manipulability

        return solve_row
    heading = rows[:, 2] if rows.shape[1] == 3 else None
    elbows: list[Elbows] = []  # made at the first row asked for

    def solve_row(place: int, seed: tuple[float, ...] | None) -> tuple:
        if not elbows:
            elbows.append(elbows_many(arm, rows[:, 0], rows[:, 1], heading, rule))
        return choose_row(arm, elbows[0], place, rule, seed)

    return solve_row


def solve_on_arrays(
    arm: PlanarArm,
    x: np.ndarray,
    y: np.ndarray,
    heading: np.ndarray | None,
    branch: Branch,
    seeds: Columns | None,
) -> Answers:
    """Rows of finite targets, each without a seed (`seeds` None) or with its own (one column
    per joint, rad), on arrays: a 3R arm without a heading takes its heading by
    `solve_free_heading` (`least_motion_many` from a seed), then steps 2-6."""
    if arm.n_joints == 3 and heading is None:
        if seeds is None or branch is Branch.MAX_LIMIT_MARGIN:  # the seed plays no part
            return solve_free_heading(arm, x, y, branch)
        return solve_from_seeds(arm, x, y, branch, seeds)
    return choose_many(arm, elbows_many(arm, x, y, heading, branch), branch, seeds)


def _at(column: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    """`column[rows]`, or None without a column."""
    return None if column is None else column[rows]


def target_of(row: np.ndarray) -> tuple[float, float, float | None]:
    """(x, y, heading or None) of a target row, as `PlanarArm.solve` takes them."""
    values = row.tolist()
    return values[0], values[1], (values[2] if len(values) == 3 else None)
