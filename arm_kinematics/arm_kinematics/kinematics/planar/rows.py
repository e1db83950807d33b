"""How the rows of an array solve are taken (`solve_many` of both kinds of arm): which rows are
valid, which are seeded and by what (`Seeds`: none, one pose for all, one per row, or a chain's
first, each later row seeded by the previous answer), which are solved on arrays and which as
a chain (`Order`; a chain on arrays too, with the row-by-row chain's answers: `chain_rows.py`),
and the answers being filled in (`Output`: a refused row holds its seed). Radians, joint order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..types import Branch, IkArrays, IkStatus, branch_of
from .chain_rows import SolveOnArrays, SolveRow, solve_chain

if TYPE_CHECKING:
    from .elbows_many import Answers


@dataclass
class Order:
    """How the rows of a `solve_many` are taken: their `seeds`, the branch `rule` (CLOSEST
    where the one given is not a branch: every row INVALID_INPUT then), the `out`put with the
    invalid rows marked, the `unseeded` rows and the `seeded` ones (each its own seed: both on
    arrays), and those solved `in_order` (every row of a chain: `Output.put_chain`)."""

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
    is given; each later row's is the previous solution (`Output.put_chain`)."""

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

    def put_chain(
        self,
        rows: np.ndarray,
        seeds: Seeds,
        solve_row: SolveRow,
        on_arrays: SolveOnArrays | None,
    ) -> None:
        """The chain of `rows` (`chain_rows.solve_chain`: on arrays with `on_arrays(places,
        seed columns)`, row by row with `solve_row(place, seed)` where that crawls or without
        `on_arrays`, `place` a row's place in `rows`) from the first row's seed; each row's
        seed kept in `seeds` (a refused row's joints, and its words)."""
        if not rows.size:
            return
        first = tuple(seeds.values[0].tolist()) if seeds.given[0] else None
        chain = solve_chain(len(rows), self.joints.shape[1], first, solve_row, on_arrays)
        self.status[rows] = chain.status
        self.joints[rows] = chain.joints
        self.other[rows] = chain.other
        self.has_other[rows] = chain.has_other
        self.manipulability[rows] = chain.manipulability
        seeds.values[rows] = chain.seeds
        seeds.given[rows] = chain.seeded

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
