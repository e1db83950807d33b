"""How the rows of an array solve are taken (`solve_many` of both kinds of arm): which rows are
valid, which are seeded and by what (`Seeds`: none, one pose for all, one per row, or a chain's
first, each later row seeded by the previous answer), which are solved on arrays and which in
order (`Order`), and the answers being filled in (`Output`: a refused row holds its seed).
Radians, joint order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..types import SOLVED_MAX, Branch, IkArrays, IkStatus, branch_of

if TYPE_CHECKING:
    from .elbows_many import Answers


@dataclass
class Order:
    """How the rows of a `solve_many` are taken: their `seeds`, the branch `rule` (CLOSEST
    where the one given is not a branch: every row INVALID_INPUT then), the `out`put with the
    invalid rows marked, the `unseeded` rows and the `seeded` ones (each its own seed: both on
    arrays), and those solved `in_order` (every row of a chain)."""

    seeds: Seeds
    rule: Branch
    out: Output
    unseeded: np.ndarray
    seeded: np.ndarray
    in_order: np.ndarray

    @classmethod
    def of(cls, valid: np.ndarray, n: int, branch: Any, current: Any, chain: bool) -> Order:
        """The order of rows whose targets are `valid` (finite, ...), for an arm of `n`
        joints."""
        count = len(valid)
        seeds = Seeds.of(current, count, n, chain)
        checked = branch if isinstance(branch, Branch) else branch_of(branch)
        valid = valid & ~seeds.bad & (checked is not None)
        out = Output(count, n)
        out.status[~valid] = IkStatus.INVALID_INPUT
        todo = np.flatnonzero(valid)
        none = todo[:0]
        unseeded = none if chain else todo[~seeds.given[todo]]
        seeded = none if chain else todo[seeds.given[todo]]
        in_order = todo if chain else none
        rule = checked if checked is not None else Branch.CLOSEST
        return cls(seeds, rule, out, unseeded, seeded, in_order)


@dataclass
class Seeds:
    """The seed of every row: `values` (N, n) rad, `given` where a row has one, `bad` where
    the one given is not n finite numbers (INVALID_INPUT). In a chain only the first row's
    is given; each later row's is the previous solution (`Output.put_in_order`)."""

    values: np.ndarray
    given: np.ndarray
    bad: np.ndarray

    @classmethod
    def of(cls, current: Any, count: int, n: int, chain: bool) -> Seeds:
        """The seeds of `current`: None, one pose (every row's; a chain's first), or one pose
        per row (not for a chain)."""
        values = np.zeros((count, n))
        given, bad = np.zeros(count, dtype=bool), np.zeros(count, dtype=bool)
        if current is None:
            return cls(values, given, bad)
        try:
            poses = np.asarray(current, dtype=float)
        except (TypeError, ValueError):
            poses = np.full((1, 1), np.nan)
        if poses.shape == (n,):
            poses = np.broadcast_to(poses, (count, n))
        elif poses.shape != (count, n) or chain:
            bad[:] = True
            return cls(values, given, bad)
        finite = np.isfinite(poses).all(axis=1)
        if chain:  # the first row's seed decides for the whole chain
            finite[:] = finite[0] if count else True
            given[:1] = finite[:1]
        else:
            given[:] = finite
        values[:] = np.where(finite[:, None], poses, 0.0)
        bad[:] = ~finite
        return cls(values, given, bad)

    def row(self, index: int, current: Any) -> Any:
        """The `current` the scalar solve of row `index` takes (the bad one as it came)."""
        if self.bad[index]:
            return current
        return tuple(self.values[index].tolist()) if self.given[index] else None


class Output:
    """The answers being filled in, one row or a set of rows at a time."""

    def __init__(self, count: int, n: int) -> None:
        self.status = np.zeros(count, dtype=np.uint8)
        self.joints = np.zeros((count, n))
        self.other = np.zeros((count, n))
        self.has_other = np.zeros(count, dtype=bool)
        self.manipulability = np.zeros(count)

    def put(self, rows: np.ndarray, answers: Answers) -> None:
        """The answers of `rows` (a column per joint)."""
        self.status[rows] = answers.status
        self.joints[rows] = np.stack(answers.joints, axis=-1)
        self.other[rows] = np.stack(answers.other, axis=-1)
        self.has_other[rows] = answers.has_other
        self.manipulability[rows] = answers.manipulability

    def put_in_order(self, rows: np.ndarray, seeds: Seeds, chain: bool, solve_row) -> None:
        """Solve `rows` one at a time, in order (`solve_row(place, seed)` -> (status,
        joints, other, manipulability), `place` the row's place in `rows`); in a chain each
        row seeded by the last solution. The loop is plain floats and lists; the arrays are
        filled once at the end."""
        indices = rows.tolist()
        if not indices:
            return
        if chain:
            seed = tuple(seeds.values[0].tolist()) if seeds.given[0] else None
            row_seeds: list[tuple[float, ...] | None] = []
        else:
            row_seeds = [tuple(values) for values in seeds.values[rows].tolist()]
        statuses = []
        solved: list[int] = []
        solved_joints, solved_manipulability = [], []
        with_other: list[int] = []
        other_joints = []
        for place, index in enumerate(indices):
            if chain:
                row_seeds.append(seed)
            else:
                seed = row_seeds[place]
            status, joints, other, manipulability = solve_row(place, seed)
            statuses.append(status)
            if joints is not None and status <= SOLVED_MAX:
                solved.append(index)
                solved_joints.append(joints)
                solved_manipulability.append(manipulability)
                if other is not None:
                    with_other.append(index)
                    other_joints.append(other)
                if chain:
                    seed = tuple(map(float, joints))
        self.status[rows] = statuses
        if solved:
            self.joints[solved] = solved_joints
            self.manipulability[solved] = solved_manipulability
        if with_other:
            self.other[with_other] = other_joints
            self.has_other[with_other] = True
        if chain:  # each row's seed, for a refused row's joints and for its words
            given = np.array([seed is not None for seed in row_seeds])
            seeds.given[rows] = given
            seeded = rows[given]
            if seeded.size:
                seeds.values[seeded] = [seed for seed in row_seeds if seed is not None]
            seeds.values[rows[~given]] = 0.0

    def arrays(self, seeds: Seeds, solve_row) -> IkArrays:
        """The finished `IkArrays`: a refused row holds its seed (zeros without one), a row
        without another elbow its own joints there."""
        refused = self.status > IkStatus.SINGULAR
        self.joints[refused] = seeds.values[refused]
        self.manipulability[refused] = 0.0
        self.has_other &= ~refused
        self.other[~self.has_other] = self.joints[~self.has_other]
        return IkArrays(
            self.status, self.joints, self.other, self.has_other, self.manipulability, solve_row
        )
