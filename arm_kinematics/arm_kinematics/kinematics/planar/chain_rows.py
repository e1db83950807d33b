"""A chain solved on arrays: `solve_many(..., chain=True)`, each row seeded by the last solution
before it, with every row's answer the one the row-by-row chain gives.

Row i's seed is the joints of the last solved row (OK or SINGULAR) before it; before any, the
chain's first seed (or none): a forward fill over the rows (`_seeds`). The iteration, over a
window of rows at a time:

1. the guess: every row of the window solved on arrays from the seed at its start (the
   first row is final then: its seed was);
2. a pass: each row's seed forward-filled from the current answers, every row not yet final
   solved again on arrays with its own seed. The rows up to the first one whose answer changed
   where a seed comes from (solved or not, and its joints where solved) are final, that one
   included: their seeds came from final rows only. The next pass starts after it.

A row's answer is its solve from its seed, so the final rows are the row-by-row chain's (to the
array solve's agreement with the row solve: the same closed forms, and numpy's last bit of
atan2 and the like is at times not math's, so joints agree to 1e-12 rad, not always to the bit;
`many.py` of each arm). A pass can finalize a single row (a crawl): a continuous joint whose 2
pi turn carries along the chain, or a tool angle chosen by the least motion from the seed (a
position-only target of a 3-joint plane), which moves a little in every later row at each pass
(the arms pass no array solve for such chains: `many.py` of each). A pass over m rows costs
about a quarter of m rows solved one at a time, so a pass that finalizes fewer than a quarter
of the rows it solved (CRAWL) stops the iteration; not the first pass after the guess, which
mends the guess's blind seeds (a target repeated, for one) and says nothing yet of how fast the
passes converge. The chain then goes on row by row for a run of RUN rows (four times as many at
each next crawl), and tries arrays again on a window of WINDOW rows (twice as many while the
windows finish). A chain that crawls everywhere pays the row-by-row loop plus three array
solves of WINDOW rows after RUN, 4 RUN, 16 RUN.. rows (5 to 15 ms on this 2-core machine); one
that never crawls pays a few passes over windows of growing size.

Places 0..N-1 are the chain's rows in order; radians, joint order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..types import SOLVED_MAX
from .elbows_many import Answers, Columns

Seed = tuple[float, ...] | None
SolveOnArrays = Callable[[np.ndarray, Columns | None], Answers]
"""The array solve of rows `places`, each from its own seed (one column per joint) or all
without one (None)."""
SolveRow = Callable[[int, Seed], tuple]
"""The solve of one row from its seed: (status, joints or None, the other elbow or None,
the manipulability)."""

WINDOW = 64
"""Rows of the first window taken on arrays (twice as many in each next one); fewer rows left
than this go row by row (an array solve costs a few milliseconds however few its rows)."""
RUN = 2048
"""Rows of the first run row by row after a crawl (four times as many after each next): an
array solve costs a few milliseconds however few its rows, so a retry of the arrays (two of
them) should come after enough rows solved one at a time to make it small beside them."""
CRAWL = 4
"""A pass that finalizes fewer than 1/CRAWL of the rows it solved ends the iteration (a row
solved on arrays costs about a quarter of one solved alone)."""


@dataclass
class Chain:
    """The chain's answers (status, joints, the other elbow, whether there is one, the
    manipulability), the seed of every row (`seeds`, where `seeded`), and what it took:
    array `passes` (guesses included) and the rows solved one at a time (`row_by_row`)."""

    status: np.ndarray
    joints: np.ndarray
    other: np.ndarray
    has_other: np.ndarray
    manipulability: np.ndarray
    seeds: np.ndarray
    seeded: np.ndarray
    passes: int = 0
    row_by_row: int = 0

    @classmethod
    def empty(cls, count: int, n: int) -> Chain:
        zeros = np.zeros((count, n))
        flags = np.zeros(count, dtype=bool)
        return cls(np.zeros(count, np.uint8), zeros, zeros.copy(), flags, np.zeros(count),
                   zeros.copy(), flags.copy())  # fmt: skip

    def _seeds(self, start: int, stop: int, seed: Seed) -> tuple[np.ndarray, np.ndarray]:
        """The seeds of rows start..stop - 1 from the answers before each (`seed` the one
        at `start`): (values (m, n), given (m,))."""
        return forward_seeds(self.status[start:stop], self.joints[start:stop], seed)

    def _seed_at(self, start: int, stop: int, seed: Seed) -> Seed:
        """The seed of row `stop` (`seed_after` rows start..stop - 1, `seed` the one at
        `start`)."""
        return seed_after(self.status[start:stop], self.joints[start:stop], seed)

    def _solve(self, start: int, stop: int, seeds: tuple, on_arrays: SolveOnArrays) -> None:
        """Rows start..stop - 1 on arrays from `seeds` (values, given)."""
        values, given = seeds
        places = np.arange(start, stop)
        for part, columns in ((~given, None), (given, list(values[given].T))):
            rows = places[part]
            if rows.size:
                answers = on_arrays(rows, columns)
                self.status[rows] = answers.status
                self.joints[rows] = np.stack(answers.joints, axis=-1)
                self.other[rows] = np.stack(answers.other, axis=-1)
                self.has_other[rows] = answers.has_other
                self.manipulability[rows] = answers.manipulability
        self.passes += 1

    def iterate(self, start: int, stop: int, seed: Seed, on_arrays: SolveOnArrays) -> int:
        """The module docstring's steps 1-2 on rows start..stop - 1 (`seed` the one at
        `start`): the first row not final when they finish or crawl."""
        values = np.zeros((stop - start, self.joints.shape[1]))
        values[:] = 0.0 if seed is None else seed
        self._solve(start, stop, (values, np.full(stop - start, seed is not None)), on_arrays)
        final, passes = start + 1, 0
        while final < stop:
            passes += 1
            seed = self._seed_at(start, final, seed)
            start = final
            before_ok = self.status[start:stop] <= SOLVED_MAX
            before = self.joints[start:stop].copy()
            self._solve(start, stop, self._seeds(start, stop, seed), on_arrays)
            ok = self.status[start:stop] <= SOLVED_MAX
            changed = (ok != before_ok) | (ok & (self.joints[start:stop] != before).any(axis=1))
            first = np.flatnonzero(changed)
            final = stop if not first.size else start + int(first[0]) + 1
            if passes > 1 and (final - start) * CRAWL < stop - start:
                break
        return final

    def in_order(self, start: int, stop: int, seed: Seed, solve_row: SolveRow) -> None:
        """Rows start..stop - 1 one at a time, each from the last solution (`seed` the one at
        `start`): the row-by-row chain."""
        for place in range(start, stop):
            status, joints, other, manipulability = solve_row(place, seed)
            self.status[place] = status
            if joints is not None and status <= SOLVED_MAX:
                self.joints[place] = joints
                self.manipulability[place] = manipulability
                self.has_other[place] = other is not None
                if other is not None:
                    self.other[place] = other
                seed = tuple(map(float, joints))
        self.row_by_row += stop - start


def reusing_repeats(solve_row: SolveRow, targets: np.ndarray) -> SolveRow:
    """`solve_row` of the rows `targets` (one row of numbers each) that answers a row whose
    target and seed are those of the row solved just before with that row's answer: the same
    solve of the same numbers, bit for bit (a target repeated along a chain reaches its own
    answer in a step or two, then every repeat is a lookup).

    >>> calls = []
    >>> solve = reusing_repeats(lambda place, seed: calls.append(place) or (0, (1.0,), None, 1.0),
    ...                         np.array([[0.5], [0.5], [0.5], [0.7]]))
    >>> [solve(place, (1.0,))[1] for place in range(4)], calls
    ([(1.0,), (1.0,), (1.0,), (1.0,)], [0, 3])
    """
    same = [False, *(targets[1:] == targets[:-1]).all(axis=1).tolist()]
    last: list = [-1, None, None]  # the place, seed and answer of the last row solved

    def solve(place: int, seed: Seed) -> tuple:
        if not (same[place] and last[0] == place - 1 and last[1] == seed):
            last[2] = solve_row(place, seed)
        last[0], last[1] = place, seed
        return last[2]

    return solve


def seed_after(status: np.ndarray, joints: np.ndarray, seed: Seed) -> Seed:
    """The seed of the row after a chain's answers (`status` (m,), `joints` (m, n) rad): the
    joints of the last solved row, else `seed` (the one before them).

    >>> seed_after(np.array([0, 2]), np.array([[1.0], [9.0]]), None), seed_after(
    ...     np.array([2]), np.array([[9.0]]), (0.5,))
    ((1.0,), (0.5,))
    """
    solved = np.flatnonzero(status <= SOLVED_MAX)
    return tuple(joints[solved[-1]].tolist()) if solved.size else seed


def forward_seeds(
    status: np.ndarray, joints: np.ndarray, seed: Seed
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's seed in a chain of answers (`status` (m,), `joints` (m, n) rad) from `seed`
    (or none) at the first: the joints of the last solved row before it, else `seed`.
    (values (m, n), given (m,)).

    >>> values, given = forward_seeds(np.array([0, 2, 0]), np.array([[1.0], [9.0], [3.0]]), None)
    >>> values[:, 0].tolist(), given.tolist()
    ([0.0, 1.0, 1.0], [False, True, True])
    """
    if not len(status):
        return joints.copy(), np.zeros(0, dtype=bool)
    solved = np.where(status <= SOLVED_MAX, np.arange(len(status)), -1)
    before = np.concatenate(([-1], np.maximum.accumulate(solved)[:-1]))
    values = joints[np.maximum(before, 0)]
    values[before < 0] = 0.0 if seed is None else seed
    return values, (before >= 0) | (seed is not None)


def solve_chain(
    count: int, n: int, first: Seed, solve_row: SolveRow, on_arrays: SolveOnArrays | None
) -> Chain:
    """The chain of `count` rows of an `n`-joint arm from the seed `first` (or none): on
    arrays by the module docstring's iteration where `on_arrays` is given, else (and where it
    crawls) row by row with `solve_row`.

    A toy chain: one continuous joint that turns to each target angle by the least motion
    from its seed (the angle itself without one), a NaN refused. The targets turn by 0.5 rad
    a row; past pi each row's 2 pi turn follows from the previous row, so the arrays crawl
    and the rest goes row by row, with the same answers:

    >>> from arm_kinematics.kinematics.planar.elbows_many import Answers
    >>> def turn(target, seed):
    ...     turns = 0.0 if seed is None else np.round((seed - target) / (2 * np.pi))
    ...     return target + 2 * np.pi * turns
    >>> def on_arrays(places, seeds):
    ...     joint = turn(targets[places], None if seeds is None else seeds[0])
    ...     ok = np.isfinite(joint)
    ...     status, joint = np.where(ok, 0, 2).astype(np.uint8), np.nan_to_num(joint)
    ...     return Answers(status, [joint], [joint], ok & False, ok * 1.0)
    >>> def solve_row(place, seed):
    ...     joint = float(turn(targets[place], None if seed is None else seed[0]))
    ...     return (0, (joint,), None, 1.0) if np.isfinite(joint) else (2, None, None, 0.0)
    >>> targets = np.angle(np.exp(0.5j * np.arange(100)))  # wrapped to (-pi, pi]
    >>> targets[3] = np.nan
    >>> chain = solve_chain(100, 1, (0.0,), solve_row, on_arrays)
    >>> chain.joints[:9, 0].round(2).tolist()  # row 3 refused (its seed: row 2's joints)
    [0.0, 0.5, 1.0, 0.0, 2.0, 2.5, 3.0, 3.5, 4.0]
    >>> chain.status.tolist()[:5], chain.seeds[3].tolist(), chain.joints[-1].round(2).tolist()
    ([0, 0, 0, 2, 0], [1.0], [49.5])
    >>> chain.passes, chain.row_by_row  # the guess, a pass to row 7, one to row 8 alone
    (3, 91)
    """
    chain = Chain.empty(count, n)
    start, window, run = 0, WINDOW, RUN
    seed = first
    while start < count:
        stop = min(count, start + window)
        if on_arrays is None or count - start < WINDOW:  # too few rows to pay for arrays
            chain.in_order(start, count, seed, solve_row)
            break
        final = chain.iterate(start, stop, seed, on_arrays)
        seed = chain._seed_at(start, final, seed)
        if final == stop:
            start, window, run = stop, 2 * window, RUN
            continue
        end = min(count, final + run)
        chain.in_order(final, end, seed, solve_row)
        seed = chain._seed_at(final, end, seed)
        start, window, run = end, WINDOW, 4 * run
    chain.seeds[:], chain.seeded[:] = chain._seeds(0, count, first)
    return chain
