"""The motion of many seeded 3R targets as the tool heading turns: `Rows` (the targets, their
seeds, the chain) and `Poses` (one elbow of each row at a heading each: its joints, their
squared motion from the seed, the slope and curvature of that by the heading, the joint
rates), the array counterpart of `least_motion._Motion`, for `least_motion_many.py` and
`piece_search_many.py`.

Arrays (M,), one row per target. Metres and radians, the chain's plane, relative joints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..angles import wrap_angles
from .closed_form import last_joint, two_link_ik_many, wrist_point
from .least_motion import joint_rates
from .limits import CONTINUOUS, LIMIT_TOLERANCE

if TYPE_CHECKING:
    from .chain import PlanarChain

Columns = list[np.ndarray]
"""One array (M,) per joint (rad)."""


@dataclass
class Poses:
    """One elbow of each row at one heading each: `solved` where the closed form reaches it,
    the joints (moved by 2 pi into the limits nearest the seed), their squared motion from
    the seed, half its first and second derivatives by the heading, the joints' rates."""

    solved: np.ndarray
    joints: Columns
    cost: np.ndarray
    slope: np.ndarray
    curvature: np.ndarray
    rates: Columns


@dataclass
class Rows:
    """The targets (x, y), their seeds and the chain, for a subset of rows (`at`)."""

    chain: PlanarChain
    x: np.ndarray
    y: np.ndarray
    seeds: Columns

    def at(self, rows: np.ndarray) -> Rows:
        return Rows(self.chain, self.x[rows], self.y[rows], [q[rows] for q in self.seeds])

    def poses(self, heading: np.ndarray, elbow: np.ndarray) -> Poses:
        """`least_motion._Motion`'s pose of `elbow` (0 up, 1 down, per row) at `heading`."""
        chain = self.chain
        l1, l2, l3 = chain.link_lengths
        wrist_x, wrist_y = wrist_point(self.x, self.y, heading, l3, np)
        solved, (up_1, up_2, down_1, down_2), _ = two_link_ik_many(
            l1, l2, wrist_x, wrist_y, chain.edge_tolerance
        )
        up = elbow == 0
        q1, q2 = np.where(up, up_1, down_1), np.where(up, up_2, down_2)
        joints = [q1, q2, last_joint(heading, q1, q2, wrap_angles)]
        if chain.shifts_can_fit:
            joints, _ = chain.fit_into_limits_many(joints, self.seeds)
        m1, m2, m3 = _motion(chain, joints, self.seeds)
        (d1, d2, d3), (s1, s2, s3) = joint_rates(chain.link_lengths, joints)
        cost = m1 * m1 + m2 * m2 + m3 * m3
        slope = m1 * d1 + m2 * d2 + m3 * d3
        curvature = (d1 * d1 + m1 * s1) + (d2 * d2 + m2 * s2) + (d3 * d3 + m3 * s3)
        return Poses(
            solved, joints, np.where(solved, cost, np.inf), np.where(solved, slope, np.nan),
            np.where(solved, curvature, np.nan), [d1, d2, d3],
        )  # fmt: skip

    def feasible(self, poses: Poses) -> np.ndarray:
        """`_Motion.feasible`: solved, and within the limits after the 2 pi shift they allow."""
        fitted, fits = poses.joints, np.ones(len(self.x), dtype=bool)
        if self.chain.shifts_can_fit:
            fitted, fits = self.chain.fit_into_limits_many(fitted, fitted)
        margin = self.chain.limit_margin_many(fitted)
        return poses.solved & fits & (margin >= -LIMIT_TOLERANCE)

    def elbow_gap(self, elbow: np.ndarray) -> np.ndarray:
        """`least_motion._elbow_gap` of each row's `elbow` from its seed (rad)."""
        if self.chain.shifts_can_fit:
            return np.zeros(len(self.x))
        value = np.where(elbow == 0, self.seeds[1], -self.seeds[1])
        if self.chain.joint_kinds[1] == CONTINUOUS:
            value = wrap_angles(value)
            return np.maximum(0.0, np.minimum(value, math.pi - value))
        return np.maximum(0.0, value)


def _motion(chain: PlanarChain, joints: Columns, seeds: Columns) -> Columns:
    """Each joint's motion from the seed (`joint_motion`: the short way round where
    continuous)."""
    return [
        wrap_angles(q - seed) if kind == CONTINUOUS else q - seed
        for q, seed, kind in zip(joints, seeds, chain.joint_kinds, strict=True)
    ]


def subset(poses: Poses, keep: np.ndarray) -> Poses:
    return Poses(
        poses.solved[keep], [q[keep] for q in poses.joints], poses.cost[keep],
        poses.slope[keep], poses.curvature[keep], [d[keep] for d in poses.rates],
    )  # fmt: skip


def stacked(rows: Rows, times: int) -> Rows:
    """`rows` repeated `times` over, one block after another."""
    return Rows(
        rows.chain, np.tile(rows.x, times), np.tile(rows.y, times),
        [np.tile(q, times) for q in rows.seeds],
    )  # fmt: skip


def least(*candidates: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The least (cost, heading) of each row, as `min` orders the tuples (cost first)."""
    best_cost, best = candidates[0]
    for cost, heading in candidates[1:]:
        better = (cost < best_cost) | ((cost == best_cost) & (heading < best))
        best_cost, best = np.where(better, cost, best_cost), np.where(better, heading, best)
    return best_cost.copy(), best.copy()
