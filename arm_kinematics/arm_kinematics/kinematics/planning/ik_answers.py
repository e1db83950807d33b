"""How a planner asks for IK: a batch of targets in, `IkAnswers` out.

A planner never solves IK itself: it calls a `SolvePoints` callable. The trajectory node passes
one `solve_ik_batch` round trip to the IK node; the tour and the tests pass `chain_solver(arm)`,
the same chain on the array solve (`arm.solve_many(..., chain=True)`) the IK node runs.
Radians, metres.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..planar.arm import PlanarArm
from ..spatial.arm import SpatialArm
from ..types import Branch, IkArrays, IkResult


@dataclass(frozen=True)
class IkAnswers:
    """The IK answers to a batch of M targets, as arrays.

    `status` (M,) the IkStatus value of each target (or a service's request-level status, such
    as WRONG_FRAME, for every target); `joints` (M, n) radians, NaN rows where the status is not
    OK or SINGULAR; `explain(i)` the message that says why target i was refused.

    >>> answers = IkAnswers.from_results([PlanarArm((1.0, 0.8)).solve(3.0, 0.0)])
    >>> answers.status.tolist(), answers.explain(0).split(":")[0]
    ([2], 'TOO_FAR')
    """

    status: np.ndarray
    joints: np.ndarray
    explain: Callable[[int], str]

    def __len__(self) -> int:
        return len(self.status)

    @classmethod
    def from_arrays(cls, answers: IkArrays) -> IkAnswers:
        """From the core's array answers (`solve_many`): NaN rows where refused, the words of
        a row made when asked for.

        >>> arm = PlanarArm((1.0, 0.8))
        >>> IkAnswers.from_arrays(arm.solve_many([[3.0, 0.0]])).joints.tolist()
        [[nan, nan]]
        """
        joints = np.where(answers.ok[:, None], answers.joints, math.nan)
        return cls(answers.status.astype(np.int64), joints, answers.message)

    @classmethod
    def from_results(cls, results: Sequence[IkResult]) -> IkAnswers:
        """From the core's IkResult objects (as `PlanarArm.solve_chain` returns them)."""
        n = max((len(r.joints) for r in results if r.joints is not None), default=0)
        joints = np.array(
            [r.joints if r.joints is not None and r.ok else (math.nan,) * n for r in results],
            dtype=float,
        ).reshape(len(results), n)
        status = np.array([int(r.status) for r in results], dtype=np.int64)
        return cls(status, joints, lambda i: results[i].message)


SolvePoints = Callable[[np.ndarray, "tuple[float, ...] | None"], IkAnswers]
"""Solve targets (M, D): tool poses as the planner makes them (a planar arm's x, y[, heading];
a spatial arm's x, y, z[, pitch[, roll]]), in order with Branch.CLOSEST, the first
seeded by the given joints (or none), each later one by the previous solution; one answer per
target, also after a failure (the next target is then seeded by the last solution)."""


def chain_solver(arm: PlanarArm | SpatialArm) -> SolvePoints:
    """A SolvePoints that solves in this process, the rows as a chain on the array solve
    (`solve_many` with `chain`: what the IK node's `solve_ik_batch` runs), planar or spatial.

    >>> arm = PlanarArm((1.0, 0.8))
    >>> chain_solver(arm)(np.array([[1.0, 0.5], [3.0, 0.0]]), None).status.tolist()
    [0, 2]
    """

    def solve(points: np.ndarray, seed: tuple[float, ...] | None) -> IkAnswers:
        answers = arm.solve_many(points, Branch.CLOSEST, seed, chain=True)
        return IkAnswers.from_arrays(answers)

    return solve
