"""A cheap, conservative test of one pose against the envelope: `FarBound.clears`.

The exact check (`Envelope.check_many`) finds each capsule's least distance to each constraint
on numpy arrays; on one pose its fixed cost of numpy calls on tiny arrays (about 40 us) is ten
times a planar solve. Most poses a solve answers are nowhere near any constraint, and for those
a few comparisons on plain floats prove it, from the parts' points of one pose
(`ArmParts.points`, the model's own forward kinematics):

- the table: a capsule's lowest point is one of its ends, `link_radius` lower (a segment lies
  between its ends' heights), so every point above `table_z + link_radius` clears it;
- a keep-out box: a capsule lies inside the bounding box of its segment's ends grown by the
  radius (a segment is the convex hull of its ends); when that box is apart from the keep-out
  box along one axis, no point of the capsule comes near it (as `_segments_near` tests on
  arrays);
- the base column (its axis x = y = 0 up to `column_top`, `column_radius` around it): a point's
  distance to the axis is sqrt(h^2 + v^2), h its horizontal distance to the axis, v its height
  above the top (0 below it). Over a segment cut where it crosses the top, each piece's least h
  (its projection's point nearest the origin) and least v (at one of its ends) bound every
  point's distance from below; a capsule whose pieces are all farther than the two radii
  clears the column. A piece above the top (where the two least values may lie at different
  points) is halved a few times where that is not enough.

Each comparison holds `slack` (m) in reserve: the floats here may differ from the exact
check's arrays by rounding (math's and numpy's sin and cos may differ by an ulp, about 1e-16
times the arm's size), far less than the slack. So wherever `clears` says True, every part
is farther than its radius from every constraint in the exact check's own numbers too: the
exact check finds the pose inside (it breaks a constraint only more than TOUCH_TOLERANCE past
contact). Where `clears` says False the pose may still be inside; the exact check decides.
A NaN coordinate clears nothing (every comparison with it is False).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .envelope import Envelope

SLACK_M = 1e-9
"""m: the least reserve every comparison of the bound keeps (see `FarBound.slack`)."""
SLACK_PER_M = 1e-12
"""The reserve per metre of the arm's and the constraints' size: 1e4 times float64's rounding
of a coordinate (2.2e-16 per metre), for the few operations of a forward kinematics."""

COLUMN_SPLITS = 3
"""How many times a piece of a capsule above the column's top is halved before the bound gives
up on it (each halving tightens the bound; the exact check takes what is left)."""

Point = tuple[float, float, float]


class FarBound:
    """The bound of one `Envelope`: its constraints grown by the link radius and the slack,
    ready for plain-float comparisons.

    A planar arm of two 1 m links with a base column of 0.05 m: stretched out along x it clears
    everything; folded back, its tip over the base, the forearm is near the column, and the
    exact check must decide.

    >>> import math
    >>> from arm_kinematics.kinematics import Envelope, PlanarChain
    >>> envelope = Envelope(PlanarChain((1.0, 1.0)), link_radius=0.01, column_radius=0.05)
    >>> bound = FarBound(envelope)
    >>> bound.clears(envelope.parts.points((0.0, 0.0)))
    True
    >>> bound.clears(envelope.parts.points((0.0, math.pi)))
    False
    """

    def __init__(self, envelope: Envelope) -> None:
        parts = envelope.parts
        radius = envelope.link_radius
        boxes = envelope.keep_out_boxes
        height = parts.chain.shoulder_height if parts.spatial else parts.plane_z
        size = sum(parts.motion_radii) + abs(height) + envelope.column_radius
        size += abs(envelope.column_top)
        size += max((abs(v) for box in boxes for v in box), default=0.0)
        size += 0.0 if envelope.table_z is None else abs(envelope.table_z)
        self.slack: float = SLACK_M + SLACK_PER_M * size
        """m: the reserve of every comparison, over the rounding of the floats compared."""
        self.lowest: float | None = (
            None if envelope.table_z is None else envelope.table_z + radius + self.slack
        )
        """m: every point above this height clears the table (None: no table)."""
        self.segments: list[tuple[int, int]] = [tuple(s) for s in parts.segments.tolist()]
        """Each capsule's ends (indices into the points)."""
        grow = radius + self.slack
        self.boxes: list[tuple[tuple[float, ...], tuple[float, ...]]] = [
            (tuple(v - grow for v in box[:3]), tuple(v + grow for v in box[3:])) for box in boxes
        ]
        """The keep-out boxes grown by the radius and the slack: (min x, y, z), (max x, y, z)."""
        self.column_segments: list[tuple[int, int]] = [
            self.segments[i] for i in parts.column_segments.tolist()
        ]
        reach = radius + envelope.column_radius + self.slack
        self.column_reach_squared: float = reach * reach if envelope.column_radius > 0 else -1.0
        """m^2: a segment whose projection passes farther than this (squared) from the axis
        clears the column (-1: no column, every segment clears it)."""
        self.column_top: float = envelope.column_top

    def clears(self, points: Sequence[Point]) -> bool:
        """True when the pose whose parts' points (`ArmParts.points`, m, base frame) these are
        is inside the envelope by more than the slack everywhere; False: maybe not."""
        lowest = self.lowest
        if lowest is not None:
            for point in points:
                if not point[2] > lowest:
                    return False
        for lo, hi in self.boxes:
            for i, j in self.segments:
                if not _apart(points[i], points[j], lo, hi):
                    return False
        if self.column_reach_squared >= 0.0:
            for i, j in self.column_segments:
                if not self._off_column(points[i], points[j]):
                    return False
        return True

    def _off_column(self, a: Point, b: Point, splits: int = COLUMN_SPLITS) -> bool:
        """True when the capsule a-b clears the base column: the segment cut where it crosses
        the column's top, each piece's least horizontal distance to the axis and least height
        above the top (0 below it) bound its distance to the axis (module docstring); a piece
        above the top that the bound cannot clear is halved, `splits` times at most."""
        top = self.column_top
        if (a[2] - top) * (b[2] - top) < 0.0:  # crosses the top: two pieces
            t = (top - a[2]) / (b[2] - a[2])
            cut = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), top)
            return self._off_column(a, cut, splits) and self._off_column(cut, b, splits)
        above = min(a[2], b[2]) - top
        height_squared = above * above if above > 0.0 else 0.0
        if _horizontal_squared(a, b) + height_squared > self.column_reach_squared:
            return True
        if splits == 0 or max(a[2], b[2]) <= top:  # below the top the bound is exact
            return False
        middle = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2)
        return self._off_column(a, middle, splits - 1) and self._off_column(middle, b, splits - 1)


def _horizontal_squared(a: Point, b: Point) -> float:
    """The least squared horizontal distance (m^2) of the segment a-b from the z axis: of the
    point of its projection nearest the origin."""
    ax, ay = a[0], a[1]
    dx, dy = b[0] - ax, b[1] - ay
    along = dx * dx + dy * dy
    t = -(ax * dx + ay * dy) / along if along > 0.0 else 0.0
    t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
    x, y = ax + t * dx, ay + t * dy
    return x * x + y * y


def _apart(a: Point, b: Point, lo: Sequence[float], hi: Sequence[float]) -> bool:
    """True when the bounding box of the segment a-b and the box [lo, hi] (grown) are apart
    along some axis."""
    for axis in range(3):
        if a[axis] < lo[axis] and b[axis] < lo[axis]:
            return True
        if a[axis] > hi[axis] and b[axis] > hi[axis]:
            return True
    return False
