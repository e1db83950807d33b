"""The region the tip really reaches: the ring cut down by the joint limits, on a grid.

The outer and inner circle of the ring (`PlanarArm.ring`) ignore the joint limits; on the
default desk arm the +-90 deg elbow keeps the tip between 0.128 m and 0.180 m from the base, a
much narrower band than the 0.020..0.180 m ring. `reachable_region` asks the core itself which
targets it solves, so the drawn region and the IK can never disagree:

- a square grid of `cell_size` metres covers the disc of radius `reach` about the base (base
  frame, metres); a cell is *reachable* when the core solves its centre (OK or SINGULAR). A
  3-joint arm may take any tool heading: a cell is reachable when its centre solves for some
  heading (the heading pointing away from the base, else one of `headings` sampled headings);
- a cell is *near-singular* when it holds a target that the core solves SINGULAR without a
  heading (what a caller gets by default): the tip of a configuration within the joint limits
  whose |sin joint 2| is below the arm's `singularity_margin`, kept when the heading-free solve
  of that tip says SINGULAR (a 3R arm then takes the heading away from the base, so only the
  rim at full reach is left). The zone is thin (about 9 um at the default arm's full stretch),
  so the grid cell is the width it is drawn with;
- each grid row is merged into runs of consecutive cells: one rectangle per run
  (`Rectangle`), so a drawing of the region stays a few hundred rectangles.

Only the public API of `PlanarArm` is used: `solve`, `forward`, `joint_limits`,
`link_lengths`, `reach`, `singularity_margin`. Radians and metres, base frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from .planar.arm import PlanarArm
from .spatial.arm import SpatialArm
from .types import IkStatus

DEFAULT_CELLS_ACROSS_REACH = 100
"""The default cell size is the arm's reach divided by this (1.8 mm on the default arm)."""
DEFAULT_HEADINGS = 72
"""Headings (evenly spaced over a full turn) tried for a 3R cell the away-heading misses."""


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
    """

    cell_size: float
    origin: tuple[float, float]
    reachable: np.ndarray
    near_singular: np.ndarray

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


def _statuses(
    arm: PlanarArm, xs: np.ndarray, ys: np.ndarray, heading: float | None = None
) -> np.ndarray:
    """The core's IkStatus (uint8) for each target (x, y), with one heading or none."""
    return np.fromiter(
        (arm.solve(x, y, heading).status for x, y in zip(xs.tolist(), ys.tolist(), strict=True)),
        dtype=np.uint8,
        count=len(xs),
    )


def _wrist_candidates(arm: PlanarArm, xs: np.ndarray, ys: np.ndarray, size: float) -> np.ndarray:
    """3R: True where a tip might be reached, False where it surely is not (grid order).

    The tip is the wrist plus the last link, so a reachable tip lies within L3 of a point that
    links 1-2 reach within their limits: the 2R region of the first two links, dilated by L3
    (and one cell, for the grid). Cells beyond that need no solve at all.
    """
    wrist_arm = PlanarArm(arm.link_lengths[:2], arm.joint_limits[:2])
    count = round(math.sqrt(len(xs)))
    wrist = (_statuses(wrist_arm, xs, ys) <= IkStatus.SINGULAR).reshape(count, count)
    radius = arm.link_lengths[2] / size + 1.0
    reach = math.ceil(radius)
    padded = np.pad(wrist, reach)
    candidates = np.zeros_like(wrist)
    for drow in range(-reach, reach + 1):
        for dcol in range(-reach, reach + 1):
            if drow * drow + dcol * dcol <= radius * radius:
                candidates |= padded[
                    reach + drow : reach + drow + count, reach + dcol : reach + dcol + count
                ]
    return candidates.ravel()


def _reachable_cells(
    arm: PlanarArm, xs: np.ndarray, ys: np.ndarray, headings: int, size: float
) -> np.ndarray:
    """Status per target (uint8 IkStatus): 2R the solve itself; 3R the best over headings.

    A 3R target is solved with the heading pointing away from the base, then with each of
    `headings` headings over a full turn until one solves (OK before SINGULAR). The core's
    heading-free solve would answer too, but it searches the headings itself and costs ~50x a
    solve with a given heading, over tens of thousands of cells.
    """
    if arm.n_joints < 3:
        return _statuses(arm, xs, ys)
    status = np.full(len(xs), IkStatus.JOINT_LIMIT, dtype=np.uint8)
    retry = np.flatnonzero(_wrist_candidates(arm, xs, ys, size))
    trials = [None, *np.linspace(-math.pi, math.pi, headings, endpoint=False).tolist()]
    for heading in trials:
        if retry.size == 0:
            break
        cell_x, cell_y = xs[retry], ys[retry]
        if heading is None:
            away = np.arctan2(cell_y, cell_x).tolist()
            tried = np.fromiter(
                (
                    arm.solve(x, y, h).status
                    for x, y, h in zip(cell_x.tolist(), cell_y.tolist(), away, strict=True)
                ),
                dtype=np.uint8,
                count=retry.size,
            )
        else:
            tried = _statuses(arm, cell_x, cell_y, heading)
        solved = tried <= IkStatus.SINGULAR
        status[retry[solved]] = np.minimum(status[retry[solved]], tried[solved])
        retry = retry[status[retry] > IkStatus.SINGULAR]
    return status


def near_singular_tips(arm: PlanarArm, step: float) -> list[tuple[float, float, float]]:
    """Tips (x, y, heading) of configurations within the limits with |sin joint 2| < margin.

    Joint 1 (and a 3R arm's joint 3) are sampled so that neighbouring tips are at most about
    `step` metres apart; joint 2 at a few angles inside the zone. Empty when the limits keep
    joint 2 out of the zone.

    >>> arm = PlanarArm((0.1, 0.08), [(-1.5708, 1.5708)] * 2)
    >>> tips = near_singular_tips(arm, 0.002)
    >>> max(abs(math.hypot(x, y) - 0.18) for x, y, _ in tips) < 1e-5  # at full stretch
    True
    """
    joint2 = _near_singular_joint2(arm.joint_limits[1], arm.singularity_margin)
    if not joint2:
        return []
    lo1, hi1 = _bounded(arm.joint_limits[0])
    joint1 = np.linspace(lo1, hi1, max(2, math.ceil((hi1 - lo1) * arm.reach / step) + 1))
    others: list[tuple[float, ...]] = [()]
    for index in range(2, arm.n_joints):
        lo, hi = _bounded(arm.joint_limits[index])
        reach_after = sum(arm.link_lengths[index:])
        samples = np.linspace(lo, hi, max(2, math.ceil((hi - lo) * reach_after / step) + 1))
        if lo <= 0.0 <= hi:  # the links after the elbow in line: the heading-free solve's pose
            samples = np.union1d(samples, [0.0])
        others = [(*rest, float(q)) for rest in others for q in samples]
    return [
        arm.forward((float(q1), q2, *rest)) for q1 in joint1 for q2 in joint2 for rest in others
    ]


def reachable_region(
    arm: PlanarArm, cell_size: float | None = None, *, headings: int = DEFAULT_HEADINGS
) -> ReachableRegion:
    """The grid of cells the arm's tip reaches within its joint limits, near-singular marked.

    Args:
        arm: the arm (2 or 3 joints).
        cell_size: grid cell edge, metres (> 0); default `arm.reach / 100`.
        headings: headings sampled for 3R cells (see the module docstring).

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
    """
    size = arm.reach / DEFAULT_CELLS_ACROSS_REACH if cell_size is None else float(cell_size)
    if not (math.isfinite(size) and size > 0.0):
        raise ValueError(f"cell_size {cell_size!r} must be a positive number of metres")
    count, corner = _grid(arm.reach, size)
    if count * count > 1_000_000:
        raise ValueError(f"cell_size {size:g} m gives {count}x{count} cells, more than 10^6")
    centres = corner + (np.arange(count) + 0.5) * size
    xs, ys = np.meshgrid(centres, centres)
    status = _reachable_cells(arm, xs.ravel(), ys.ravel(), headings, size).reshape(count, count)
    reachable = status <= IkStatus.SINGULAR
    # What a caller gets by default is the heading-free solve: for 2R that is `status`; for 3R
    # only the near-singular tips below are solved without a heading.
    near_singular = (status == IkStatus.SINGULAR) if arm.n_joints < 3 else np.zeros_like(reachable)
    tips = np.asarray(near_singular_tips(arm, size)).reshape(-1, 3)
    singular = tips[_statuses(arm, tips[:, 0], tips[:, 1]) == IkStatus.SINGULAR]
    rows = np.floor((singular[:, 1] - corner) / size).astype(int)
    columns = np.floor((singular[:, 0] - corner) / size).astype(int)
    inside = (rows >= 0) & (rows < count) & (columns >= 0) & (columns < count)
    near_singular[rows[inside], columns[inside]] = True
    return ReachableRegion(size, (corner, corner), reachable, near_singular)


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
    """
    region = reachable_region(arm.vertical, cell_size)
    x0, y0 = region.origin
    return replace(region, origin=(x0 + arm.shoulder_forward, y0 + arm.shoulder_height))
