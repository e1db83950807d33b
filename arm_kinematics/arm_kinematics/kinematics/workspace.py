"""The region the tip really reaches: the ring cut down by the joint limits, on a grid.

The outer and inner circle of the ring (`PlanarArm.ring`) ignore the joint limits; on the
default desk arm the +-90 deg elbow keeps the tip between 0.128 m and 0.180 m from the base, a
much narrower band than the 0.020..0.180 m ring. `reachable_region` asks the core itself which
targets it solves, so the drawn region and the IK can never disagree:

- a square grid of `cell_size` metres covers the disc of radius `reach` about the base (base
  frame, metres); a cell is *reachable* when the core solves its centre (OK or SINGULAR), every
  centre at once (`PlanarArm.solve_many`). A 3-joint arm is asked without a heading: it takes
  one when some heading reaches the centre within the limits (`tool_angles.py`, in closed
  form);
- a cell is *near-singular* when it holds a target that the core solves SINGULAR without a
  heading (what a caller gets by default): the tip of a configuration within the joint limits
  whose |sin joint 2| is below the arm's `singularity_margin`, kept when the heading-free solve
  of that tip says SINGULAR (a 3R arm then takes the heading away from the base, so only the
  rim at full reach is left). The zone is thin (about 9 um at the default arm's full stretch),
  so the grid cell is the width it is drawn with;
- with a workspace envelope (`arm.envelope`, docs/workspace.md), a cell the joints reach is
  *removed by the envelope* when every answer the IK has for its centre breaks the envelope:
  the branch rule's choice and the other elbow (at the same tool angle), checked on arrays
  (`Envelope.check_many`), which is when the IK's own rule (`envelope/rule.py`) answers
  OUTSIDE_WORKSPACE there. Such a cell is not reachable; `removed` keeps it apart from the
  cells the joints never reach;
- each grid row is merged into runs of consecutive cells: one rectangle per run
  (`Rectangle`), so a drawing of the region stays a few hundred rectangles.

Only the public API of `PlanarArm` is used: `solve_many`, `chain_points_many`, `joint_limits`,
`link_lengths`, `reach`, `singularity_margin`, `bare`, `envelope`. Radians and metres, base
frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .planar.arm import PlanarArm
from .spatial.arm import SpatialArm
from .types import IkArrays, IkStatus

if TYPE_CHECKING:
    from .envelope import Envelope

DEFAULT_CELLS_ACROSS_REACH = 100
"""The default cell size is the arm's reach divided by this (1.8 mm on the default arm)."""


class Rectangle(NamedTuple):
    """An axis-aligned rectangle in the base frame: x from x_min to x_max, y likewise (m)."""

    x_min: float
    y_min: float
    x_max: float
    y_max: float


@dataclass(frozen=True)
class ReachableRegion:
    """The reachable cells of a square grid about the base (see the module docstring).

    Attributes:
        cell_size: edge of one grid cell, metres.
        origin: (x, y) of the lower-left corner of cell (row 0, column 0), metres.
        reachable: (rows, columns) bool; row i spans y in origin[1] + [i, i+1] * cell_size,
            column j spans x in origin[0] + [j, j+1] * cell_size.
        near_singular: (rows, columns) bool, same grid.
        removed: (rows, columns) bool, same grid: reached by the joints, removed by the
            workspace envelope (never `reachable`; all False without an envelope).
    """

    cell_size: float
    origin: tuple[float, float]
    reachable: np.ndarray
    near_singular: np.ndarray
    removed: np.ndarray

    def cell_of(self, x: float, y: float) -> tuple[int, int]:
        """(row, column) of the cell holding the point (x, y) (m); may lie off the grid."""
        return (
            math.floor((y - self.origin[1]) / self.cell_size),
            math.floor((x - self.origin[0]) / self.cell_size),
        )

    def cell_centre(self, row: int, column: int) -> tuple[float, float]:
        """(x, y) of a cell's centre, metres."""
        return (
            self.origin[0] + (column + 0.5) * self.cell_size,
            self.origin[1] + (row + 0.5) * self.cell_size,
        )

    def contains(self, x: float, y: float) -> bool:
        """True when (x, y) (m) falls in a reachable cell."""
        row, column = self.cell_of(x, y)
        rows, columns = self.reachable.shape
        return 0 <= row < rows and 0 <= column < columns and bool(self.reachable[row, column])

    def rectangles(self, mask: np.ndarray | None = None) -> list[Rectangle]:
        """One rectangle per run of consecutive True cells in each row of `mask` (metres).

        `mask` is `reachable` (the default), `near_singular` or any bool array of the grid.
        """
        cells = self.reachable if mask is None else mask
        rectangles = []
        x0, y0 = self.origin
        size = self.cell_size
        for row, line in enumerate(cells):
            # Run starts and ends are where the padded row changes value.
            edges = np.flatnonzero(np.diff(np.concatenate(([0], line.astype(np.int8), [0]))))
            for start, stop in zip(edges[0::2], edges[1::2], strict=True):
                rectangles.append(
                    Rectangle(
                        x0 + start * size, y0 + row * size, x0 + stop * size, y0 + (row + 1) * size
                    )
                )
        return rectangles


def _grid(reach: float, cell_size: float) -> tuple[int, float]:
    """Cells across and the lower-left coordinate of a grid covering [-reach, reach]^2.

    Symmetric about the base, with room for a tip exactly at the reach on either side.
    """
    count = 2 * (math.floor(reach / cell_size) + 1)
    return count, -0.5 * count * cell_size


def _bounded(limits: tuple[float, float]) -> tuple[float, float]:
    """A joint's limits with an unbounded side replaced by a full turn about zero."""
    lo, hi = limits
    return (max(lo, -math.pi), min(hi, math.pi))


def _near_singular_joint2(limits: tuple[float, float], margin: float) -> list[float]:
    """Joint 2 samples (rad) within its limits where |sin joint 2| < margin."""
    lo, hi = _bounded(limits)
    half_width = math.asin(margin) * (1.0 - 1e-9)  # strictly inside the zone
    zones = [(-half_width, half_width)]
    zones += [(math.pi - half_width, math.pi), (-math.pi, -math.pi + half_width)]
    samples: list[float] = []
    for zone_lo, zone_hi in zones:
        a, b = max(lo, zone_lo), min(hi, zone_hi)
        if a <= b:
            samples.extend(np.linspace(a, b, 3).tolist())
    return samples


def near_singular_tips(arm: PlanarArm, step: float) -> np.ndarray:
    """Tips (x, y, heading) (m, m, rad; one row each) of configurations within the limits with
    |sin joint 2| < margin.

    Joint 1 (and a 3R arm's joint 3) are sampled so that neighbouring tips are at most about
    `step` metres apart; joint 2 at a few angles inside the zone. Empty (0 rows) when the
    limits keep joint 2 out of the zone.

    >>> arm = PlanarArm((0.1, 0.08), [(-1.5708, 1.5708)] * 2)
    >>> tips = near_singular_tips(arm, 0.002)
    >>> bool(np.abs(np.hypot(tips[:, 0], tips[:, 1]) - 0.18).max() < 1e-5)  # at full stretch
    True
    """
    joint2 = _near_singular_joint2(arm.joint_limits[1], arm.singularity_margin)
    if not joint2:
        return np.zeros((0, 3))
    lo1, hi1 = _bounded(arm.joint_limits[0])
    axes = [
        np.linspace(lo1, hi1, max(2, math.ceil((hi1 - lo1) * arm.reach / step) + 1)),
        np.asarray(joint2),
    ]
    for index in range(2, arm.n_joints):
        lo, hi = _bounded(arm.joint_limits[index])
        reach_after = sum(arm.link_lengths[index:])
        samples = np.linspace(lo, hi, max(2, math.ceil((hi - lo) * reach_after / step) + 1))
        if lo <= 0.0 <= hi:  # the links after the elbow in line: the heading-free solve's pose
            samples = np.union1d(samples, [0.0])
        axes.append(samples)
    joints = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, arm.n_joints)
    tips = arm.chain_points_many(joints)[:, -1, :2]
    return np.column_stack([tips, joints.sum(axis=1)])


def reachable_region(arm: PlanarArm, cell_size: float | None = None) -> ReachableRegion:
    """The grid of cells the arm's tip reaches within its joint limits, near-singular marked,
    and with an envelope (`arm.envelope`) the cells it removes.

    Args:
        arm: the arm (2 or 3 joints), with or without an envelope.
        cell_size: grid cell edge, metres (> 0); default `arm.reach / 100`.

    Raises:
        ValueError: cell_size not a positive finite number, or more than 10^6 cells.

    The default arm (L1 = 0.1, L2 = 0.08 m, both joints +-90 deg) reaches a band from
    0.128 m (elbow at its 90 deg limit) to 0.18 m (full stretch) from the base:

    >>> arm = PlanarArm((0.1, 0.08), [(-math.pi / 2, math.pi / 2)] * 2)
    >>> region = reachable_region(arm, 0.002)
    >>> region.contains(0.15, 0.0), region.contains(0.05, 0.0), region.contains(0.0, -0.17)
    (True, False, True)
    >>> bool(region.near_singular[region.cell_of(0.1795, 0.0)])  # at full stretch
    True
    >>> len(region.rectangles()) < 400
    True

    A keep-out box over part of the band removes the cells whose both elbows enter it:

    >>> from arm_kinematics.kinematics import Envelope
    >>> box = Envelope(arm, link_radius=0.005, keep_out_boxes=[(0.14, -0.02, -1, 0.2, 0.02, 1)])
    >>> boxed = reachable_region(arm.with_envelope(box), 0.002)
    >>> boxed.contains(0.16, 0.0), bool(boxed.removed[boxed.cell_of(0.16, 0.0)])
    (False, True)
    >>> bool(boxed.removed[boxed.cell_of(0.05, 0.0)])  # never reached: not removed either
    False
    """
    return _region(arm, cell_size, arm.envelope, lambda rows: rows)


def _region(
    arm: PlanarArm,
    cell_size: float | None,
    envelope: Envelope | None,
    arm_joints: Callable[[np.ndarray], np.ndarray],
) -> ReachableRegion:
    """`reachable_region` of the bare `arm`, the cells `envelope` removes taken out: its
    answers' joints (rows of the plane's joints) turned into the envelope's arm's by
    `arm_joints`."""
    arm = arm.bare
    size = arm.reach / DEFAULT_CELLS_ACROSS_REACH if cell_size is None else float(cell_size)
    if not (math.isfinite(size) and size > 0.0):
        raise ValueError(f"cell_size {cell_size!r} must be a positive number of metres")
    count, corner = _grid(arm.reach, size)
    if count * count > 1_000_000:
        raise ValueError(f"cell_size {size:g} m gives {count}x{count} cells, more than 10^6")
    centres = corner + (np.arange(count) + 0.5) * size
    xs, ys = np.meshgrid(centres, centres)
    answers = arm.solve_many(np.column_stack([xs.ravel(), ys.ravel()]))
    removed = _removed(answers, envelope, arm_joints).reshape(count, count)
    status = answers.status.reshape(count, count)
    reachable = (status <= IkStatus.SINGULAR) & ~removed
    # 2R: the centres the solve calls SINGULAR, and the zone's tips below (thinner than a
    # cell); 3R: the tips alone (the heading-free solve, whose heading mostly keeps away from
    # the singular poses).
    near_singular = (status == IkStatus.SINGULAR) if arm.n_joints < 3 else np.zeros_like(reachable)
    tips = near_singular_tips(arm, size)
    tip_answers = arm.solve_many(tips[:, :2])
    singular = tip_answers.status == IkStatus.SINGULAR
    kept = singular & ~_removed(tip_answers, envelope, arm_joints, among=singular)
    singular = tips[kept]
    rows = np.floor((singular[:, 1] - corner) / size).astype(int)
    columns = np.floor((singular[:, 0] - corner) / size).astype(int)
    inside = (rows >= 0) & (rows < count) & (columns >= 0) & (columns < count)
    near_singular[rows[inside], columns[inside]] = True
    near_singular &= ~removed
    return ReachableRegion(size, (corner, corner), reachable, near_singular, removed)


def _removed(
    answers: IkArrays,
    envelope: Envelope | None,
    arm_joints: Callable[[np.ndarray], np.ndarray],
    among: np.ndarray | None = None,
) -> np.ndarray:
    """(N,) bool: the rows the bare model solves (`among` them, a mask; default all) whose
    choice and other elbow (where there is one) both break `envelope` (all False without
    one)."""
    removed = np.zeros(len(answers), dtype=bool)
    if envelope is None:
        return removed
    solved = np.flatnonzero(answers.ok if among is None else answers.ok & among)
    outside = solved[~envelope.check_many(arm_joints(answers.joints[solved])).ok]
    other = outside[answers.has_alternative[outside]]
    other_inside = other[envelope.check_many(arm_joints(answers.alternative[other])).ok]
    removed[outside] = True
    removed[other_inside] = False
    return removed


def vertical_region(arm: SpatialArm, cell_size: float | None = None) -> ReachableRegion:
    """The region of a spatial arm's vertical plane its tool point reaches within the joint
    limits, in that plane's coordinates: x forward from the yaw axis (negative: behind it, the
    chain bent back), y up from the base frame, metres. The same for every yaw, since the yaw
    turns the whole plane; the yaw's range says which directions the plane can face.

    >>> from arm_kinematics.kinematics import SpatialArm
    >>> arm = SpatialArm((0.1, 0.08), [None, (-1.6, 1.6), (-1.6, 1.6)], shoulder_height=0.05)
    >>> region = vertical_region(arm, 0.004)
    >>> region.contains(0.15, 0.05), region.contains(0.0, 0.05)  # out in front; the shoulder
    (True, False)

    With an envelope (`arm.envelope`) the cells it removes are those of the plane at yaw 0 (the
    x-z plane; the table and the base column are the same at every yaw, a keep-out box is
    not), the roll at 0:

    >>> from arm_kinematics.kinematics import Envelope
    >>> table = Envelope(arm, link_radius=0.01, table_z=0.0)
    >>> low = vertical_region(arm.with_envelope(table), 0.004)
    >>> bool(low.removed[low.cell_of(0.15, -0.02)]), low.contains(0.15, 0.05)
    (True, True)
    """

    def arm_joints(planar: np.ndarray) -> np.ndarray:
        """The arm's joints (yaw 0, the pitch joints, roll 0) of the plane's rows."""
        pitches = np.column_stack(arm.pitch_joints(tuple(planar.T))) if len(planar) else planar
        yaw = np.zeros((len(planar), 1))
        return np.hstack([yaw, pitches, yaw] if arm.has_roll else [yaw, pitches])

    region = _region(arm.vertical, cell_size, arm.envelope, arm_joints)
    x0, y0 = region.origin
    return replace(region, origin=(x0 + arm.shoulder_forward, y0 + arm.shoulder_height))
