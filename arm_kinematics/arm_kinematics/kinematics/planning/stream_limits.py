"""The one measure of a setpoint stream's speed and acceleration: finite differences at the
command period, checked against `MotionLimits`.

Pure numpy. A stream is what the servos get: one row per command period (joints in rad, or the
tool point in m). Its velocity at row k is (x_k - x_{k-1}) / T and its acceleration
(x_{k+1} - 2 x_k + x_{k-1}) / T^2. Every planned motion is checked with the rest before and
after it: the start row twice before the first setpoint (the arm was still) and the last row
twice after it (it stays), so a motion that starts or stops with a jolt shows it here. The tool
row's speed and acceleration are the norms of the vector differences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .options import MotionLimits

#: A finite difference this little over its limit is rounding, not an excess (relative).
ROUNDING = 1e-9


@dataclass(frozen=True)
class Excess:
    """The worst or first row of a stream over a limit: `row` its index in the stream as given
    (-1: the start, before the first row), `quantity` "velocity" or "acceleration", `joint` the
    joint's index (None: the tool point), and the `value` and `limit` (rad/s, rad/s^2, m/s or
    m/s^2)."""

    row: int
    quantity: str
    joint: int | None
    value: float
    limit: float

    @property
    def ratio(self) -> float:
        return self.value / self.limit

    def words(self, joint_names: Sequence[str], period: float) -> str:
        """'joint elbow accelerates at 9.1 rad/s^2 at 0.46 s (limit 6.28 rad/s^2)'."""
        unit = ("rad" if self.joint is not None else "m") + (
            "/s" if self.quantity == "velocity" else "/s^2"
        )
        who = "the tool" if self.joint is None else f"joint {joint_names[self.joint]}"
        verb = "moves at" if self.quantity == "velocity" else "accelerates at"
        at = (self.row + 1) * period
        return f"{who} {verb} {self.value:.3g} {unit} at {at:.2f} s (limit {self.limit:.3g} {unit})"


def with_rest(start: Sequence[float], rows: np.ndarray) -> np.ndarray:
    """`rows` (K, n) with the rest around them: `start` twice before, the last row twice after.

    >>> with_rest((0.0,), np.array([[1.0], [2.0]])).ravel().tolist()
    [0.0, 0.0, 1.0, 2.0, 2.0, 2.0]
    """
    first = np.asarray(start, dtype=float)[None, :]
    rows = np.asarray(rows, dtype=float).reshape(-1, first.shape[1])
    last = rows[-1:] if len(rows) else first
    return np.vstack((first, first, rows, last, last))


def differences(stream: np.ndarray, period: float) -> tuple[np.ndarray, np.ndarray]:
    """(velocities (K - 1, n), accelerations (K - 2, n)) of a stream's rows (K, n) one
    `period` (s) apart: velocity i between rows i and i + 1, acceleration i at row i + 1.

    >>> v, a = differences(np.array([[0.0], [0.0], [0.1], [0.3]]), 0.1)
    >>> v.round(9).ravel().tolist(), a.round(9).ravel().tolist()
    ([0.0, 1.0, 2.0], [10.0, 10.0])
    """
    stream = np.asarray(stream, dtype=float)
    velocities = np.diff(stream, axis=0) / period
    accelerations = np.diff(stream, n=2, axis=0) / (period * period)
    return velocities, accelerations


def stream_excesses(
    joints: np.ndarray,
    period: float,
    limits: MotionLimits,
    tool: np.ndarray | None = None,
) -> tuple[Excess | None, Excess | None]:
    """(the first setpoint over a limit, the one with the largest ratio of value to limit) of
    a joint stream (K, n) and, where the limits bound the tool, the tool point's stream (K, D),
    both with their rest already (`with_rest`: the stream's rows 0 and 1 are the start, so row
    2 is setpoint 0). The first is None when every difference keeps its limit (ROUNDING of
    slack); the worst is None only for a stream of fewer than three rows.

    >>> limits = MotionLimits(0.1, (1.0,), (5.0,))
    >>> first, worst = stream_excesses(with_rest((0.0,), np.array([[0.1], [0.2]])), 0.1, limits)
    >>> first.quantity, first.row, round(first.value, 6), round(worst.ratio, 6)
    ('acceleration', -1, 10.0, 2.0)
    """
    velocities, accelerations = differences(joints, period)
    checks = [
        ("velocity", np.abs(velocities), np.array(limits.joint_velocities), True),
        ("acceleration", np.abs(accelerations), np.array(limits.joint_accelerations), True),
    ]
    if tool is not None:
        tool_velocities, tool_accelerations = differences(tool, period)
        for quantity, values, bound in (
            ("velocity", tool_velocities, limits.tool_speed),
            ("acceleration", tool_accelerations, limits.tool_acceleration),
        ):
            if bound is not None:
                checks.append((quantity, np.linalg.norm(values, axis=1)[:, None], bound, False))
    first: Excess | None = None
    worst: Excess | None = None
    for quantity, values, bound, per_joint in checks:
        if not len(values):
            continue
        ratios = values / bound
        # Difference i (velocity into stream row i + 1, acceleration at row i + 1) belongs to
        # setpoint i - 1: the stream's first two rows are the rest before setpoint 0.
        row, column = np.unravel_index(int(np.argmax(ratios)), ratios.shape)
        candidate = _excess(quantity, values, bound, per_joint, int(row), int(column))
        if worst is None or candidate.ratio > worst.ratio:
            worst = candidate
        over = np.flatnonzero(ratios.max(axis=1) > 1.0 + ROUNDING)
        if len(over):
            row = int(over[0])
            candidate = _excess(
                quantity, values, bound, per_joint, row, int(np.argmax(ratios[row]))
            )
            if first is None or candidate.row < first.row:
                first = candidate
    return first, worst


def _excess(
    quantity: str, values: np.ndarray, bound: object, per_joint: bool, row: int, column: int
) -> Excess:
    limit = float(np.asarray(bound, dtype=float).reshape(-1)[column if per_joint else 0])
    return Excess(
        row=row - 1,
        quantity=quantity,
        joint=column if per_joint else None,
        value=float(values[row, column]),
        limit=limit,
    )
