"""A 3R target without a heading, on arrays (`free_heading.solve` as masks): without
a seed the feasible heading nearest the one pointing away from the base (`solve_free_heading`:
the away heading for every row, the limit headings for the rows where it is not feasible,
asked nearest first in two passes), with one the least motion from it (`solve_from_seeds`,
`least_motion_many.py`). Radians and metres, the arm's plane, joint order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..angles import TAU, wrap_angles
from ..array_api import norm
from ..types import Branch, IkStatus
from . import least_motion_many
from .branches import branch_elbows
from .elbows_many import (
    Answers,
    Columns,
    Elbows,
    branch_rule,
    choose_many,
    elbows_many,
    joined,
    merge,
    ring_failure,
    subset,
)
from .tool_angles import TIE, heading_band, heading_candidates, nearest_heading

if TYPE_CHECKING:
    from .arm import PlanarArm


def solve_free_heading(arm: PlanarArm, x: np.ndarray, y: np.ndarray, branch: Branch) -> Answers:
    """Unseeded 3R rows without a heading (`free_heading.solve` without `current`,
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
        candidates = heading_candidates(arm, rx, ry, rphi, rlo)
        table = np.stack(candidates, axis=-1)  # (rows, candidates)
        finite = np.isfinite(table)
        finite[:, 0] = False  # the away heading failed already
        wrapped = wrap_angles(np.where(finite, table, 0.0))
        asked = _feasible_nearest_first(arm, rx, ry, rphi, wrapped, finite, branch)
        index = nearest_heading(rphi, candidates, list(asked.feasible.T))
        found = np.flatnonzero(index >= 0)
        answers.status[rest] = IkStatus.JOINT_LIMIT  # where no heading is feasible
        if found.size:  # solved at that heading (its elbows asked already)
            chosen = choose_many(arm, asked.elbows_at(found, index[found]), branch)
            merge(answers, rest[found], chosen)
    answers.status = answers.status.astype(np.uint8)
    return answers


@dataclass
class Asked:
    """The candidate headings of each row asked: `feasible` (rows, candidates), and the
    elbows of every one asked (`elbows_at`)."""

    feasible: np.ndarray
    where: np.ndarray
    """(rows, candidates): the place of each one asked in `elbows`, -1 where not asked."""
    elbows: Elbows

    def elbows_at(self, rows: np.ndarray, columns: np.ndarray) -> Elbows:
        """The elbows of `rows` at their asked candidate `columns`."""
        return subset(self.elbows, self.where[rows, columns])


def _feasible_nearest_first(
    arm: PlanarArm,
    x: np.ndarray,
    y: np.ndarray,
    phi: np.ndarray,
    headings: np.ndarray,
    exists: np.ndarray,
    branch: Branch,
) -> Asked:
    """Which of each row's `headings` (rows, candidates; rad) are feasible, asked nearest
    `phi` first: the nearest FIRST_ROUND of every row in one array solve, then, for the rows
    whose nearest feasible one is not sure yet, all the others in a second (a farther one
    cannot win `nearest_heading` and is left False, as `tool_angles.nearest_feasible` leaves
    it for one target). Two passes over many rows instead of one per candidate: an array
    solve's cost is mostly per pass."""
    delta = headings - phi[:, None]
    distance = np.where(exists, np.abs(delta - TAU * np.round(delta / TAU)), np.inf)
    order = np.argsort(distance, axis=1, kind="stable")
    ok = np.zeros(headings.shape, dtype=bool)
    where = np.full(headings.shape, -1)
    rounds: list[Elbows] = []
    first = min(FIRST_ROUND, headings.shape[1])
    for second, columns in enumerate((order[:, :first], order[:, first:])):
        near = np.take_along_axis(distance, columns, axis=1)
        asked = np.isfinite(near)
        if second:  # the rows whose nearest feasible heading is not sure yet
            best = np.where(ok, distance, np.inf).min(axis=1)
            asked &= near <= best[:, None] + TIE
        row_index, place = np.nonzero(asked)
        column = columns[row_index, place]
        elbows = elbows_many(arm, x[row_index], y[row_index], headings[row_index, column], branch)
        take_up, take_down, _, _, _ = branch_rule(arm, elbows, branch)
        ok[row_index, column] = elbows.solved & (take_up | take_down)
        where[row_index, column] = np.arange(row_index.size) + sum(len(e.solved) for e in rounds)
        rounds.append(elbows)
    return Asked(ok, where, joined(rounds))


FIRST_ROUND = 4
"""Candidate headings per row asked in the first pass (the nearest; most rows find theirs
among them)."""


def solve_from_seeds(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, branch: Branch, seeds: Columns
) -> Answers:
    """Seeded 3R rows without a heading (`free_heading.solve` with `current`, on
    arrays): off the ring a ring failure; else solved at the heading with the least motion
    from the seed (`least_motion_many`); where none is feasible, a ring failure where no
    heading reaches the target (within edge_tolerance of its ring), else JOINT_LIMIT."""
    r = norm(x, y)
    inner, outer = arm.ring
    tolerance = arm.edge_tolerance
    on_ring = np.flatnonzero((r >= inner - tolerance) & (r <= outer + tolerance))
    found, heading, _ = least_motion_many.least_motion_headings(
        arm, x[on_ring], y[on_ring], branch_elbows(branch), [q[on_ring] for q in seeds]
    )
    headings = np.zeros(len(x))
    headings[on_ring] = heading
    answers = choose_many(arm, elbows_many(arm, x, y, headings, branch), branch, seeds)
    _, delta_lo, _ = heading_band(arm.link_lengths, x, y, tolerance)
    status = np.where(np.isnan(delta_lo), ring_failure(r, arm.ring), IkStatus.JOINT_LIMIT)
    solved = np.zeros(len(x), dtype=bool)
    solved[on_ring] = found
    answers.status = np.where(solved, answers.status, status).astype(np.uint8)
    answers.has_other &= solved
    return answers
