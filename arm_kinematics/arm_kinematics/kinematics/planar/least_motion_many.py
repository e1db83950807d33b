"""`least_motion.py` on arrays: the tool heading of many 3R targets without one requested, each
with its own seed, the least joint motion from it (`least_motion_headings`).

The same search as `least_motion_heading` row by row, its steps as masks over the rows: first
from each seed's own heading (`near_current`: Newton's method from there, settled when the
window it leaves is clear), then, for the rows it does not settle, every piece of reachable
headings, nearest the held heading first (`piece_search_many.full_search`). The formulas are
the scalar search's (`closed_form`, `tool_angles`, `joint_rates` on arrays); a row's answer
equals the scalar one to rounding: numpy's atan2 differs from math's in the last bit at times,
which moves a heading found inside a piece by rounding, so rows whose joints turn very fast
there (RATE_GUARD) are searched by the scalar search itself.

Arrays (M,), one row per target. Metres and radians, the chain's plane, relative joints.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..angles import wrap_angles
from .least_motion import NEAR, SETTLED, SQRT_3, joint_rates, least_motion_heading
from .motion_rows import Columns, Rows, subset
from .piece_search_many import full_search
from .tool_angles import heading_band, limit_headings

if TYPE_CHECKING:
    from .chain import PlanarChain


def least_motion_headings(
    chain: PlanarChain, x: np.ndarray, y: np.ndarray, elbows: tuple[int, ...], seeds: Columns
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`least_motion_heading` of every row: (found, heading (rad, wrapped), elbow), `found`
    False where no heading is feasible (heading and elbow 0 there)."""
    rows = Rows(chain, x, y, seeds)
    columns = [q.tolist() for q in seeds]  # the held heading as the scalar search sums it
    held = np.array([math.fsum(seed) for seed in zip(*columns, strict=True)]).reshape(len(x))
    order = [np.full(len(x), elbow) for elbow in elbows]
    if len(elbows) == 2:  # the elbow nearer the seed first (a stable sort of the two)
        first = np.where(rows.elbow_gap(order[1]) < rows.elbow_gap(order[0]), 1, 0)
        order = [first, 1 - first]
    found, heading, elbow, settled = near_current(rows, order, held)
    search = np.flatnonzero(~settled)
    root = np.zeros(len(x), dtype=bool)
    if search.size:
        part = full_search(rows.at(search), [e[search] for e in order], held[search])
        found[search], heading[search], elbow[search], root[search] = part
    heading = wrap_angles(heading)
    for row in _sensitive(rows, found & root, heading, elbow).tolist():  # as the scalar
        seed = tuple(float(q[row]) for q in seeds)
        scalar = least_motion_heading(chain, float(x[row]), float(y[row]), elbows, seed)
        found[row] = scalar is not None
        heading[row], elbow[row] = scalar if scalar is not None else (0.0, 0)
    return found, heading, elbow


RATE_GUARD = 100.0
"""A least motion inside a piece is a root of the slope found to rounding (a Newton step under
`least_motion.ROOT_STEP`, or a bracket under `ROOT_BRACKET`, 1e-15 rad), and numpy's last
bits and math's (atan2 differs at times) can move it that much; a joint turning this many
times as fast as the heading there (right at full stretch or fold) could then move by 1e-13
rad: such rows are searched by the scalar search itself, so that every row's answer is the
scalar one to 1e-12 rad."""


def _sensitive(rows: Rows, found: np.ndarray, heading: np.ndarray, elbow: np.ndarray) -> np.ndarray:
    """The `found` rows whose joints turn more than RATE_GUARD times as fast as the heading."""
    (d1, d2, d3), _ = joint_rates(rows.chain.link_lengths, rows.poses(heading, elbow).joints)
    fastest = np.maximum(np.abs(d1), np.maximum(np.abs(d2), np.abs(d3)))
    return np.flatnonzero(found & ~(fastest <= RATE_GUARD))


def near_current(
    rows: Rows, order: list[np.ndarray], held: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`least_motion._near_current` of every row: (found, heading, elbow, settled); `settled`
    False where it leaves the row to the full search (found False there too)."""
    count = len(held)
    settled, decided = np.zeros(count, dtype=bool), np.zeros(count, dtype=bool)
    heading, elbow = np.zeros(count), np.zeros(count, dtype=int)
    for slot, slot_elbow in enumerate(order):
        index = np.flatnonzero(~decided)
        part = rows.at(index)
        at_held = part.poses(held[index], slot_elbow[index])
        feasible = part.feasible(at_held)
        index, keep = index[feasible], np.flatnonzero(feasible)
        if index.size == 0:
            continue
        later = [e[index] for e in order[slot + 1 :]]
        near, near_heading = _near_one_elbow(
            part.at(keep), slot_elbow[index], later, held[index], at_held.cost[keep]
        )
        decided[index] = True  # feasible at held on this elbow: this elbow decides
        settled[index], heading[index], elbow[index] = near, near_heading, slot_elbow[index]
    return settled, heading, elbow, settled


def _near_one_elbow(
    rows: Rows, elbow: np.ndarray, later: list[np.ndarray], held: np.ndarray, cost_held
) -> tuple[np.ndarray, np.ndarray]:
    """The rows feasible at `held` on `elbow` (their squared motion there `cost_held`):
    (where `_near_current` settles them, the heading it settles on)."""
    settled = cost_held <= SETTLED  # the seed reaches the target: nothing moves less
    heading = held.copy()
    moving = np.flatnonzero(~settled)
    if moving.size == 0:
        return settled, heading
    part, part_elbow, part_held = rows.at(moving), elbow[moving], held[moving]
    newton, converged = _newton_from(part, part_elbow, part_held)
    at_newton = part.poses(newton, part_elbow)
    take = converged & part.feasible(at_newton)
    cost_before = cost_held[moving]
    take &= (at_newton.cost < cost_before) | (
        (at_newton.cost == cost_before) & (newton < part_held)
    )
    cost = np.where(take, at_newton.cost, cost_before)
    found = np.where(take, newton, part_held)
    window = SQRT_3 * np.sqrt(cost) + 1e-9
    near = window <= NEAR
    for other in later:
        near &= ~(part.elbow_gap(other[moving]) ** 2 < cost)
    ask = np.flatnonzero(near & (found != part_held))
    clear = np.zeros(len(moving), dtype=bool)
    clear[ask] = _clear(part.at(ask), part_elbow[ask], (part_held[ask], found[ask]), window[ask])
    ask = np.flatnonzero(near & ~clear)  # the limit headings and band ends in the window
    cut, cut_cost = _cut_candidates(part.at(ask), part_elbow[ask], part_held[ask], window[ask])
    better = (cut_cost < cost[ask]) | ((cut_cost == cost[ask]) & (cut < found[ask]))
    found[ask] = np.where(better, cut, found[ask])
    settled[moving] = near
    heading[moving] = found
    return settled, heading


def _newton_from(rows: Rows, elbow: np.ndarray, held: np.ndarray) -> tuple[np.ndarray, ...]:
    """`least_motion._newton_from` of every row: (heading, converged)."""
    heading = held.copy()
    converged = np.zeros(len(held), dtype=bool)
    active = np.arange(len(held))
    for _ in range(12):
        poses = rows.at(active).poses(heading[active], elbow[active])
        good = poses.solved & np.isfinite(poses.slope) & (poses.curvature > 0.0)
        active, poses = active[good], subset(poses, good)
        step = poses.slope / poses.curvature
        heading[active] -= step
        done = np.abs(step) < 1e-10
        converged[active[done]] = True
        active = active[~done]
        if active.size == 0:
            break
    return heading, converged


def _clear(
    rows: Rows, elbow: np.ndarray, headings: tuple[np.ndarray, ...], window: np.ndarray
) -> np.ndarray:
    """`least_motion._clear` of every row."""
    chain = rows.chain
    l1, l2, l3 = chain.link_lengths
    inner, outer = abs(l1 - l2), l1 + l2
    clear = np.ones(len(window), dtype=bool)
    for heading in headings:
        poses = rows.poses(heading, elbow)
        clear &= poses.solved & (np.abs(np.sin(poses.joints[1])) >= 0.05)
        d1, d2, d3 = poses.rates
        moved = 2.0 * window * (np.abs(d1) + np.abs(d2) + np.abs(d3))
        clear &= chain.limit_margin_many(poses.joints) > moved
        wrist_x, wrist_y = rows.x - l3 * np.cos(heading), rows.y - l3 * np.sin(heading)
        wrist = np.sqrt(wrist_x * wrist_x + wrist_y * wrist_y)
        clear &= np.minimum(wrist - inner, outer - wrist) > 2.0 * window * l3
    return clear


def _cut_candidates(
    rows: Rows, elbow: np.ndarray, held: np.ndarray, window: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The least (squared motion, heading) among the limit headings and band ends within
    `window` of `held` where the elbow is feasible (`_near_current`'s last step): (heading,
    cost), cost inf where none is."""
    chain = rows.chain
    phi, delta_lo, delta_hi = heading_band(chain.link_lengths, rows.x, rows.y, chain.edge_tolerance)
    cuts = [*limit_headings(chain, rows.x, rows.y)]
    cuts += [phi + delta_lo, phi - delta_lo, phi + delta_hi, phi - delta_hi]
    best_cost, best = np.full(len(held), np.inf), np.zeros(len(held))
    for cut in cuts:
        near = np.isfinite(cut) & (
            np.abs(wrap_angles(np.where(np.isfinite(cut), cut, 0.0) - held)) <= window
        )
        poses = rows.poses(np.where(near, cut, held), elbow)
        cost = np.where(near & rows.feasible(poses), poses.cost, np.inf)
        better = (cost < best_cost) | ((cost == best_cost) & (cut < best) & np.isfinite(cost))
        best_cost, best = np.where(better, cost, best_cost), np.where(better, cut, best)
    return best, best_cost
