"""`SpatialArm`'s answers for many targets: `solve_many` and `solve_rotation_many` on numpy
arrays (`many.py`, the envelope's rule over the rows), and `solve_chain`, targets in order by
the scalar solve. A part of `SpatialArm` (arm.py) kept apart: the solve of one target there, the
many here. Metres and radians, the base frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..types import Branch, IkArrays, IkResult, invalid_input
from . import many


class ManyTargets:
    """`SpatialArm`'s solves of many targets (a mixin: `self` is the `SpatialArm`)."""

    # --- many targets -----------------------------------------------------------------------

    def solve_many(
        self,
        targets: Any,
        branch: Branch | int = Branch.CLOSEST,
        current: Any = None,
        *,
        chain: bool = False,
    ) -> IkArrays:
        """`solve` for N targets at once, on numpy arrays: the same answer for each target.

        Args:
            targets: (N, 3) rows (x, y, z), (N, 4) rows (x, y, z, pitch) or (N, 5) rows
                (x, y, z, pitch, roll): m and rad (outward), the base frame.
            branch: the branch rule of every row.
            current: None; one pose (n joint angles, rad) that seeds every row; or (N, n), one
                seed per row. With `chain`, None or one pose: the first row's seed, each later
                row seeded by the previous solution (the last one found), as `solve_chain`.

        Returns:
            `IkArrays` (see `PlanarArm.solve_many`); a wrong shape of `targets` raises
            ValueError. What runs on arrays and what row by row: `many.py`.

        >>> import math
        >>> from arm_kinematics.kinematics import SpatialArm
        >>> arm = SpatialArm((0.1, 0.08), shoulder_height=0.05)
        >>> answers = arm.solve_many([[0.0, 0.1, 0.13], [1.0, 0.0, 0.0]], Branch.ELBOW_DOWN)
        >>> answers.status.tolist(), [round(math.degrees(q), 6) + 0.0 for q in answers.joints[0]]
        ([0, 2], [90.0, 0.0, 90.0])
        """
        rows = np.asarray(targets, dtype=float)
        if rows.ndim != 2 or not 3 <= rows.shape[1] <= 5:
            raise ValueError(
                f"targets of shape {rows.shape} must be (N, 3), (N, 4) or (N, 5) rows "
                "(x, y, z[, pitch[, roll]], m and rad)"
            )
        pitch = rows[:, 3] if rows.shape[1] > 3 else None
        roll = rows[:, 4] if rows.shape[1] > 4 else None
        return self._many(rows[:, :3], pitch, roll, None, branch, current, chain)

    def solve_rotation_many(
        self,
        positions: Any,
        rotations: Any,
        branch: Branch | int = Branch.CLOSEST,
        current: Any = None,
        *,
        chain: bool = False,
    ) -> IkArrays:
        """`solve_rotation` for N targets at once: `positions` (N, 3) (m) and `rotations`
        (N, 3, 3) of the tool in the base frame; the rest as `solve_many`.

        >>> from arm_kinematics.kinematics.spatial.rotations import rot_y, rot_z
        >>> from arm_kinematics.kinematics import IkStatus, SpatialArm
        >>> arm = SpatialArm((0.1, 0.08, 0.04), has_roll=False)
        >>> answers = arm.solve_rotation_many([[0.12, 0.0, 0.0]] * 2, [rot_y(0.3), rot_z(0.2)])
        >>> [IkStatus(s).name for s in answers.status]
        ['OK', 'ORIENTATION_UNREACHABLE']
        """
        points = np.asarray(positions, dtype=float)
        matrices = np.asarray(rotations, dtype=float)
        if points.ndim != 2 or points.shape[1] != 3 or matrices.shape != (len(points), 3, 3):
            raise ValueError(
                f"positions {points.shape} and rotations {matrices.shape} must be (N, 3) and "
                "(N, 3, 3)"
            )
        return self._many(points, None, None, matrices, branch, current, chain)

    def _many(self, positions, pitch, roll, rotations, branch, current, chain) -> IkArrays:
        """`many.solve_many` of the bare model; with an envelope, then its rule on the rows
        (`envelope/rule.py`)."""
        bare = self.bare
        answers = many.solve_many(bare, positions, pitch, roll, rotations, branch, current, chain)
        if self.envelope is None:
            return answers

        def rows(start: int, stop: int, seed: tuple[float, ...] | None) -> IkArrays:
            columns = [None if c is None else c[start:stop] for c in (pitch, roll, rotations)]
            return many.solve_many(bare, positions[start:stop], *columns, branch, seed, True)

        return self.envelope.keep_inside_many(
            answers,
            current=current,
            chain=chain,
            bare=rows,
            scalar=lambda i, seed: many.scalar_row(
                self, i, positions, pitch, roll, rotations, branch, seed
            ),
        )

    # --- chains -----------------------------------------------------------------------------

    def solve_chain(
        self,
        targets: Any,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
        stop_on_failure: bool = False,
    ) -> list[IkResult]:
        """Solve rows (x, y, z), (x, y, z, pitch) or (x, y, z, pitch, roll) (m, rad) in order,
        each seeded by the previous successful solution (the first by `current`).

        >>> from arm_kinematics.kinematics import SpatialArm
        >>> arm = SpatialArm((0.1, 0.08), shoulder_height=0.05)
        >>> [r.status.name for r in arm.solve_chain([(0.12, 0.0, 0.05), (1.0, 0.0, 0.0)])]
        ['OK', 'TOO_FAR']
        """
        try:
            rows = [tuple(row) for row in targets]
        except TypeError:
            return [invalid_input("targets must be rows of (x, y, z[, pitch[, roll]])")]
        seed = current
        results = []
        for row in rows:
            if not 3 <= len(row) <= 5:
                result = invalid_input(f"target {row!r} must be (x, y, z[, pitch[, roll]])")
            else:
                pitch = row[3] if len(row) > 3 else None
                roll = row[4] if len(row) > 4 else None
                result = self.solve(row[0], row[1], row[2], pitch, roll, branch, seed)
            results.append(result)
            if result.joints is not None:
                seed = result.joints
            elif stop_on_failure:
                break
        return results
