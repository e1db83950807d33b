"""`least_motion_heading`'s search over every piece of reachable headings, on arrays
(`full_search`): for the rows `least_motion_many.near_current` does not settle, the pieces cut
at the limit headings and where a joint equals its seed's value, nearest the held heading
first, a batch of them per row in one pass, each piece's least motion by the scalar search's
7-point slope scan and Newton's method within a bracket (`minimum_on`), taken in the scalar
order until a row's next piece is farther than sqrt(3) times its least motion.

Arrays (M,), one row per target. Metres and radians, the chain's plane, relative joints.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..angles import TAU, wrap_angles
from .closed_form import last_joint, two_link_ik_many, wrist_point
from .least_motion import ROOT_BRACKET, ROOT_STEP, SQRT_3
from .limits import CONTINUOUS, LIMIT_TOLERANCE, WIDE
from .motion_rows import Rows, least, stacked
from .tool_angles import _Target, _value_headings, heading_band, limit_headings


def full_search(
    rows: Rows, order: list[np.ndarray], held: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`least_motion_heading`'s search over every piece, for every row: (found, heading,
    elbow, whether it is a bracket's root: `minimum_on`). The pieces nearest `held` first,
    BATCH of them per row in one pass (a piece asked past the point where the scalar search
    stops counts for nothing: its bound shows it cannot move less), taken in the scalar
    order: each piece's feasible elbows, each
    kept only while it could still move less, the least motion found so far replaced only
    by a strictly lesser one; a row ends when its next piece is farther than sqrt(3) times
    its least motion (or it has none left)."""
    lo, hi, gap = _pieces(rows, held)
    nearest = np.argsort(gap, axis=1, kind="stable")  # ties in the scalar list's order
    count = len(held)
    best = _Best(
        np.full(count, np.inf), np.zeros(count), np.zeros(count, dtype=int),
        np.zeros(count, dtype=bool),
    )  # fmt: skip
    open_rows = np.arange(count)
    for start in range(0, lo.shape[1], BATCH):
        columns = nearest[open_rows, start : start + BATCH]
        piece_gap = np.take_along_axis(gap[open_rows], columns, axis=1)
        bound = np.where(best.found[open_rows], np.sqrt(best.cost[open_rows]), np.inf)
        asked = np.isfinite(piece_gap) & (piece_gap / SQRT_3 < bound[:, None])
        row, place = np.nonzero(asked)
        index, column = open_rows[row], columns[row, place]
        pieces = _ask_pieces(rows.at(index), order, index, lo[index, column], hi[index, column])
        for step in range(columns.shape[1]):  # the scalar order, piece by piece
            at = np.flatnonzero(place == step)
            best.take(rows, order, index[at], piece_gap[row[at], step], pieces, at)
        open_rows = open_rows[best.open_after(open_rows, piece_gap)]
        if open_rows.size == 0:
            break
    return best.found, best.heading, best.elbow, best.root


BATCH = 8
"""Pieces of each row asked in one pass of `full_search`."""


@dataclass
class _Best:
    """The least motion found so far of every row: its squared motion, heading and elbow."""

    cost: np.ndarray
    heading: np.ndarray
    elbow: np.ndarray
    root: np.ndarray

    @property
    def found(self) -> np.ndarray:
        return np.isfinite(self.cost)

    def take(self, rows, order, index, piece_gap, pieces, at) -> None:
        """One piece of each row `index` (its gap from held, its elbows' least motions
        `pieces` at `at`), in the scalar search's order."""
        go = ~(self.found[index] & (piece_gap / SQRT_3 >= np.sqrt(self.cost[index])))
        index, at = index[go], at[go]
        for slot, slot_elbow in enumerate(order):
            elbow = slot_elbow[index]
            heading, cost, feasible, root = (values[at] for values in pieces[slot])
            gap = rows.at(index).elbow_gap(elbow)
            ask = feasible & ~(self.found[index] & (gap >= np.sqrt(self.cost[index])))
            better = ask & (~self.found[index] | (cost < self.cost[index]))
            target = index[better]
            self.cost[target], self.heading[target] = cost[better], heading[better]
            self.elbow[target], self.root[target] = elbow[better], root[better]

    def open_after(self, rows: np.ndarray, piece_gap: np.ndarray) -> np.ndarray:
        """Where a row's last piece of the pass was one and nearer than its bound: it may go
        on to its next pieces."""
        last = piece_gap[:, -1]
        bound = np.where(self.found[rows], np.sqrt(self.cost[rows]), np.inf)
        return np.isfinite(last) & (last / SQRT_3 < bound)


def _ask_pieces(
    rows: Rows, order: list[np.ndarray], index: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> list[tuple[np.ndarray, ...]]:
    """Each piece [lo, hi] of `rows` (the rows `index` of the search): per elbow slot of
    `order`, (the heading of its least motion, that squared motion, whether the elbow is
    feasible at the piece's middle (`_feasible_elbows`), whether it is a bracket's root)."""
    up_ok, down_ok = _feasible_elbows(rows, 0.5 * (lo + hi))
    answers = []
    for slot_elbow in order:
        elbow = slot_elbow[index]
        ok = np.where(elbow == 0, up_ok, down_ok)
        heading, cost, root = np.zeros(len(lo)), np.full(len(lo), np.inf), ok & False
        asked = np.flatnonzero(ok)
        heading[asked], cost[asked], root[asked] = minimum_on(
            rows.at(asked), elbow[asked], lo[asked], hi[asked]
        )
        answers.append((heading, cost, ok, root))
    return answers


def _pieces(rows: Rows, held: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`least_motion.heading_pieces` of every row, cut also where a joint equals its seed's
    value (`_current_headings`), as tables (rows, pieces): lo, hi (rad) and the gap from
    `held` (inf for no piece), the columns in the scalar list's order (each band's single
    headings, then its intervals)."""
    chain = rows.chain
    phi, delta_lo, delta_hi = heading_band(chain.link_lengths, rows.x, rows.y, chain.edge_tolerance)
    one = delta_lo == 0.0
    whole = ~one & (delta_hi >= math.pi)
    bands = [
        (
            np.where(one, phi - delta_hi, phi + delta_lo),
            np.where(one, phi + delta_hi, np.where(whole, phi + TAU - delta_lo, phi + delta_hi)),
        ),
        (
            np.where(one | whole, np.nan, phi - delta_hi),
            np.where(one | whole, np.nan, phi - delta_lo),
        ),
    ]  # NaN where a row has no such band (no band at all where delta_lo is NaN)
    cuts = np.stack([*limit_headings(chain, rows.x, rows.y), *_seed_headings(rows)], axis=1)
    columns: list[tuple[np.ndarray, np.ndarray]] = []
    for band_lo, band_hi in bands:
        middle = 0.5 * (band_lo + band_hi)
        turned = cuts + TAU * np.round((middle[:, None] - cuts) / TAU)
        inside = (band_lo[:, None] <= turned) & (turned <= band_hi[:, None])
        edges = np.column_stack([band_lo, band_hi, np.where(inside, turned, np.nan)])
        edges = _unique_sorted(edges)
        columns += [(edges, edges), (edges[:, :-1], edges[:, 1:])]
    lo = np.concatenate([piece[0] for piece in columns], axis=1)
    hi = np.concatenate([piece[1] for piece in columns], axis=1)
    valid = np.isfinite(lo) & np.isfinite(hi)
    near = held[:, None] + TAU * np.round((0.5 * (lo + hi) - held[:, None]) / TAU)
    outside = np.minimum(np.abs(near - lo), np.abs(near - hi))
    gap = np.where((lo <= near) & (near <= hi), 0.0, outside)
    return lo, hi, np.where(valid, gap, np.inf)


def _unique_sorted(edges: np.ndarray) -> np.ndarray:
    """Each row's distinct finite values in increasing order, NaN after them."""
    edges = np.sort(edges, axis=1)  # NaN last
    repeated = np.zeros(edges.shape, dtype=bool)
    repeated[:, 1:] = edges[:, 1:] == edges[:, :-1]
    return np.sort(np.where(repeated, np.nan, edges), axis=1)


def _seed_headings(rows: Rows) -> list[np.ndarray]:
    """`least_motion._current_headings` of every row (NaN where none)."""
    chain = rows.chain
    target = _Target(rows.x, rows.y)
    headings: list[np.ndarray] = []
    for index, (value, kind) in enumerate(zip(rows.seeds, chain.joint_kinds, strict=True)):
        which = f"joint {index + 1}"
        headings += _value_headings(target, chain.link_lengths, which, value)
        if kind in (CONTINUOUS, WIDE):
            headings += _value_headings(target, chain.link_lengths, which, value + math.pi)
    return headings


def _feasible_elbows(rows: Rows, heading: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`least_motion._feasible_elbows` of every row: (elbow up within the limits at
    `heading`, elbow down within them), each elbow as the closed form gives it."""
    chain = rows.chain
    l1, l2, l3 = chain.link_lengths
    wrist_x, wrist_y = wrist_point(rows.x, rows.y, heading, l3, np)
    solved, (up_1, up_2, down_1, down_2), _ = two_link_ik_many(
        l1, l2, wrist_x, wrist_y, chain.edge_tolerance
    )
    within = []
    for q1, q2 in ((up_1, up_2), (down_1, down_2)):
        joints = [q1, q2, last_joint(heading, q1, q2, wrap_angles)]
        fits = np.ones(len(heading), dtype=bool)
        if chain.shifts_can_fit:
            joints, fits = chain.fit_into_limits_many(joints, joints)
        within.append(solved & fits & (chain.limit_margin_many(joints) >= -LIMIT_TOLERANCE))
    return within[0], within[1]


def minimum_on(
    rows: Rows, elbow: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`least_motion._minimum_on` of every row: (heading, squared motion) of the least motion
    on [lo, hi] (rad), an end or where the slope turns from falling to rising (the seven
    points of every row in one pass, every bracket's root in another), and whether it is
    such a root (known to the bracket's 1e-13 rad, not to rounding)."""
    count = len(lo)
    width = hi - lo
    points = [lo, lo + width / 16, lo + width / 4, lo + width / 2, hi - width / 4,
              hi - width / 16, hi]  # fmt: skip
    repeated = stacked(rows, len(points))
    poses = repeated.poses(np.concatenate(points), np.tile(elbow, len(points)))
    slopes = list(poses.slope.reshape(len(points), count))
    cost = poses.cost.reshape(len(points), count)
    best_cost, best = least((cost[0], lo), (cost[-1], hi))
    inward = 1e-9 * width  # at a band's end the rates are infinite: just inside
    retry = (
        stacked(rows, 2)
        .poses(np.concatenate([lo + inward, hi - inward]), np.tile(elbow, 2))
        .slope.reshape(2, count)
    )
    for end, inside in ((0, retry[0]), (-1, retry[1])):
        slopes[end] = np.where(np.isfinite(slopes[end]), slopes[end], inside)
    interval = hi > lo
    brackets = [
        (np.flatnonzero(interval & (slope_a < 0.0) & (slope_b > 0.0)), a, b)
        for (a, slope_a), (b, slope_b) in itertools.pairwise(zip(points, slopes, strict=True))
    ]
    which = np.concatenate([found for found, _, _ in brackets])
    root_taken = np.zeros(count, dtype=bool)
    if which.size:
        roots = _slope_root(
            rows.at(which),
            elbow[which],
            np.concatenate([a[found] for found, a, _ in brackets]),
            np.concatenate([b[found] for found, _, b in brackets]),
        )
        for root_cost, root, row in zip(*roots, which.tolist(), strict=True):
            if root_cost < best_cost[row] or (root_cost == best_cost[row] and root < best[row]):
                best_cost[row], best[row], root_taken[row] = root_cost, root, True
    return best, best_cost, root_taken


def _slope_root(
    rows: Rows, elbow: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`least_motion._slope_root` of every row: (squared motion, heading) where the slope,
    < 0 at `lo` and > 0 at `hi`, is 0, by Newton's method within the bracket (to rounding)."""
    lo, hi = lo.copy(), hi.copy()
    heading = 0.5 * (lo + hi)
    active = np.arange(len(lo))
    for _ in range(60):
        poses = rows.at(active).poses(heading[active], elbow[active])
        slope, curvature = poses.slope, poses.curvature
        going = np.isfinite(slope) & (slope != 0.0)
        active, slope, curvature = active[going], slope[going], curvature[going]
        if active.size == 0:
            break
        now = heading[active]
        lo[active] = np.where(slope < 0.0, now, lo[active])
        hi[active] = np.where(slope < 0.0, hi[active], now)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(curvature > 0.0, now - slope / curvature, np.nan)
        newton = (lo[active] < step) & (step < hi[active])
        settled = newton & (np.abs(step - now) < ROOT_STEP)
        heading[active] = np.where(newton, step, 0.5 * (lo[active] + hi[active]))
        active = active[~settled & (hi[active] - lo[active] >= ROOT_BRACKET)]
        if active.size == 0:
            break
    return rows.poses(heading, elbow).cost, heading
