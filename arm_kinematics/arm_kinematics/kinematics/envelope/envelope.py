"""`Envelope`: where the arm may be, in its base frame, checked on whole arrays of joints.

Three kinds of constraint, each optional:

- the table, a horizontal plane z = `table_z` that no part of the arm goes below;
- keep-out boxes, axis-aligned, that no part enters;
- the arm's own base column, the points within `column_radius` of the base's z axis up to
  `column_top` (a spatial arm's shoulder height, a planar arm's plane; rounded at its top as
  the arm's capsules are), which no part but link 1 (standing on it) enters.

The parts are `parts.ArmParts`' capsules, each `link_radius` around its centre line. A part
breaks a constraint by its depth: how far its surface is past the table, or inside the box or
the column (more than `TOUCH_TOLERANCE`; touching is allowed). For each row of joints the
answer is the first constraint broken in the order table, boxes (in their order), column, and
in it the deepest part: named by its point when the deepest is a segment's end ("the elbow"),
else by its segment ("the forearm (link 2)").

Speed: the boxes and the column are first tested against each capsule's bounding box; the
exact distance (`geometry.py`) is computed only for the pairs that may meet. One pose (`check`,
the IK's rule) is first put to a cheap conservative bound on plain floats (`bound.py`): a pose
far from every constraint is inside without any array.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from ..planar.chain import PlanarChain
from ..spatial.model import SpatialChain
from ..types import Answer, IkResult, IkStatus
from . import explain, rule
from .bound import FarBound
from .geometry import segment_box_distance, segment_box_signed_distance
from .parts import ArmParts
from .path import PATH_RESOLUTION_M, path_samples

TOUCH_TOLERANCE = 1e-9
"""m: a part this little past a constraint only touches it (rounding), and is allowed."""
_END = 1e-9
"""A nearest point this close to a segment's end (in its parameter) is named by that end."""
_PAIRS_AT_ONCE = 16384
"""Capsule-obstacle pairs whose exact distance is computed in one array operation (memory)."""


class Constraint(IntEnum):
    """Which constraint a part breaks (NONE: none)."""

    NONE = 0
    TABLE = 1
    KEEP_OUT_BOX = 2
    BASE_COLUMN = 3


class _Worst(NamedTuple):
    """Per row, the deepest part past one constraint: its depth (m; -inf where nothing comes
    near), the part (an index into `names`) and its centre-line point (m)."""

    depth: np.ndarray  # (N,)
    part: np.ndarray  # (N,) int
    point: np.ndarray  # (N, 3)


@dataclass(frozen=True)
class Violation:
    """What one pose breaks: the constraint, the part of the arm by name, how deep (m), the
    part's point nearest the obstacle (its centre line, m, base frame), the keep-out box's
    index (0-based; -1 for another constraint) and the message."""

    constraint: Constraint
    part: str
    depth: float
    point: tuple[float, float, float]
    box: int
    message: str

    def ik_result(self) -> IkResult:
        """The OUTSIDE_WORKSPACE answer of a solve whose solution breaks it."""
        return IkResult(IkStatus.OUTSIDE_WORKSPACE, None, self.message)


@dataclass(frozen=True)
class PathViolation:
    """Where a joint path leaves the envelope: at path point `index` (0-based) when `fraction`
    is 0, else that fraction of the way from point `index` to the next; the joints there
    (rad), what they break and the message (OUTSIDE_WORKSPACE, the place, the reason)."""

    index: int
    fraction: float
    joints: tuple[float, ...]
    violation: Violation
    message: str

    def ik_result(self) -> IkResult:
        """The OUTSIDE_WORKSPACE answer for this path."""
        return IkResult(IkStatus.OUTSIDE_WORKSPACE, None, self.message)


@dataclass(frozen=True, eq=False)
class Violations:
    """`Envelope.check_many`'s answer: per row of joints (N), the first constraint broken.

    `constraint` (N,) int (Constraint values, 0: inside), `box` (N,) the keep-out box's index
    (-1 else), `part` (N,) an index into `names`, `depth` (N,) m (0 where inside), `point`
    (N, 3) m; `at(row)` one row as a `Violation`."""

    envelope: Envelope
    constraint: np.ndarray
    box: np.ndarray
    part: np.ndarray
    depth: np.ndarray
    point: np.ndarray

    @property
    def ok(self) -> np.ndarray:
        """(N,) bool: the row is inside the envelope."""
        return self.constraint == Constraint.NONE

    def first(self) -> int | None:
        """The first row outside the envelope, or None."""
        outside = np.flatnonzero(~self.ok)
        return int(outside[0]) if len(outside) else None

    def at(self, row: int) -> Violation | None:
        """Row `row` as a `Violation` with its message, None when it is inside."""
        constraint = Constraint(int(self.constraint[row]))
        if constraint == Constraint.NONE:
            return None
        envelope = self.envelope
        part = envelope.part_names[int(self.part[row])]
        depth, box = float(self.depth[row]), int(self.box[row])
        radius = envelope.link_radius
        if constraint == Constraint.TABLE:
            assert envelope.table_z is not None
            message = explain.table_text(part, depth, envelope.table_z, radius)
        elif constraint == Constraint.KEEP_OUT_BOX:
            message = explain.box_text(part, depth, box, envelope.keep_out_boxes[box], radius)
        else:
            top = envelope.column_top
            message = explain.column_text(part, depth, envelope.column_radius, top, radius)
        point = tuple(float(v) for v in self.point[row])
        return Violation(constraint, part, depth, point, box, message)  # type: ignore[arg-type]


class Envelope:
    """The workspace envelope of one arm, in its base frame (metres).

    Args:
        chain: the arm model (`PlanarArm`/`PlanarChain` or `SpatialArm`/`SpatialChain`).
        link_radius: every part's radius around its centre line, m (>= 0).
        table_z: the table's height, m; None: no table.
        keep_out_boxes: boxes as (min x, min y, min z, max x, max y, max z), m, min <= max.
        column_radius: the base column's radius about the base's z axis, m; 0: no column.
        column_top: the column's top, m; None: a spatial arm's shoulder height, a planar
            arm's plane.
        plane_z, tool_length, fingertip_half_width: as `ArmParts` (m).

    Raises:
        ValueError: naming the bad value.

    The reference planar arm (links 1.0 and 0.8 m) over a box: joints 30 and 45 degrees put
    the tool point at (1.0731, 1.2727), inside the box.

    >>> envelope = Envelope(PlanarChain((1.0, 0.8)), link_radius=0.01,
    ...                     keep_out_boxes=[(1.0, 1.2, -0.1, 1.2, 1.4, 0.1)])
    >>> print(envelope.check((math.radians(30), math.radians(45))).message)
    OUTSIDE_WORKSPACE: the tool point would be 82.7 mm inside keep-out box 1 (x 1..1.2, y
    1.2..1.4, z -0.1..0.1 m of workspace.keep_out_boxes_m, counting workspace.link_radius_m =
    0.01 m around the arm)
    >>> envelope.check_many([[0.0, 0.0], [math.radians(30), math.radians(45)]]).ok.tolist()
    [True, False]
    """

    def __init__(
        self,
        chain: PlanarChain | SpatialChain,
        *,
        link_radius: float,
        table_z: float | None = None,
        keep_out_boxes: Sequence[Sequence[float]] = (),
        column_radius: float = 0.0,
        column_top: float | None = None,
        plane_z: float = 0.0,
        tool_length: float = 0.0,
        fingertip_half_width: float = 0.0,
    ) -> None:
        self.parts = ArmParts(
            chain,
            plane_z=plane_z,
            tool_length=tool_length,
            fingertip_half_width=fingertip_half_width,
        )
        self.link_radius: float = _length(link_radius, "link_radius")
        self.table_z: float | None = None if table_z is None else _finite(table_z, "table_z")
        self.keep_out_boxes: tuple[tuple[float, ...], ...] = _checked_boxes(keep_out_boxes)
        self._box_sides = np.array(self.keep_out_boxes, dtype=float).reshape(-1, 2, 3)
        self.column_radius: float = _length(column_radius, "column_radius")
        if column_top is None:
            column_top = chain.shoulder_height if self.parts.spatial else plane_z
        self.column_top: float = _finite(column_top, "column_top")
        self.part_names: tuple[str, ...] = self.parts.point_names + self.parts.segment_names
        """Every part's name: the points' (indices 0..P-1), then the segments'."""
        self.bound = FarBound(self)
        """The cheap bound of one pose (`bound.py`): what `clears` asks."""

    @property
    def is_empty(self) -> bool:
        """True without a table, a box or a column: every pose is inside."""
        return self.table_z is None and not self.keep_out_boxes and self.column_radius == 0.0

    def __repr__(self) -> str:
        return (
            f"Envelope(link_radius={self.link_radius!r}, table_z={self.table_z!r}, "
            f"keep_out_boxes={self.keep_out_boxes!r}, column_radius={self.column_radius!r}, "
            f"column_top={self.column_top!r})"
        )

    def check(self, joints: Sequence[float]) -> Violation | None:
        """The first constraint one pose (n joints, rad) breaks, or None when inside: None at
        once where the cheap bound clears the pose (`clears`), else the exact `check_many`."""
        joints = self.parts.chain.checked_joints(joints)
        if self.clears(joints):
            return None
        return self.check_many([joints]).at(0)

    def clears(self, joints: Sequence[float]) -> bool:
        """True when the cheap bound (`bound.py`, a few comparisons on plain floats) proves one
        pose (n finite joints, rad) inside: every part farther than its radius (and a little
        slack) from every constraint. False says only "maybe not": `check` decides.

        >>> envelope = Envelope(PlanarChain((1.0, 1.0)), link_radius=0.01, column_radius=0.05)
        >>> envelope.clears((0.0, 0.0)), envelope.clears((0.0, math.pi))  # the tip on the base
        (True, False)
        """
        return self.bound.clears(self.parts.points(joints))

    def inside(self, joints: Sequence[float]) -> bool:
        """True when one pose (n finite joints, rad) breaks no constraint: the cheap bound
        first (`clears`), the exact check where it cannot tell (no words made)."""
        return self.clears(joints) or bool(self.check_many([joints]).ok[0])

    def check_many(self, joints: np.ndarray | Sequence[Sequence[float]]) -> Violations:
        """Every row of `joints` (N, n) rad checked: per row the first constraint broken."""
        joints = self._checked_rows(joints)
        rows = len(joints)
        worst: list[tuple[Constraint, int, _Worst]] = []
        if not self.is_empty:
            points = self.parts.points_many(joints)
            if self.table_z is not None:
                worst.append((Constraint.TABLE, -1, self._table(points)))
            for index, (lo, hi) in enumerate(self._box_sides):
                worst.append((Constraint.KEEP_OUT_BOX, index, self._box(points, lo, hi)))
            if self.column_radius > 0.0:
                worst.append((Constraint.BASE_COLUMN, -1, self._column(points)))
        constraint = np.zeros(rows, dtype=int)
        box = np.full(rows, -1)
        part = np.zeros(rows, dtype=int)
        depth = np.zeros(rows)
        point = np.zeros((rows, 3))
        for kind, index, found in reversed(worst):  # the first constraint is written last
            broken = found.depth > TOUCH_TOLERANCE
            constraint[broken], box[broken] = kind, index
            part[broken], depth[broken] = found.part[broken], found.depth[broken]
            point[broken] = found.point[broken]
        return Violations(self, constraint, box, part, depth, point)

    def check_path(
        self,
        path: np.ndarray | Sequence[Sequence[float]],
        resolution: float = PATH_RESOLUTION_M,
    ) -> PathViolation | None:
        """The first place where the joint path (M, n) rad, straight lines in joint space
        between its points, leaves the envelope, checked so that no point of the arm moves
        more than `resolution` (m) between two checks (`path.path_samples`); None when the
        whole path stays inside.

        The reference 2R arm swinging its elbow from -90 to +90 degrees past a box: both
        ends are clear, the sweep is not (the forearm's side touches the box first, 45% of
        the way).

        >>> envelope = Envelope(PlanarChain((1.0, 0.8)), link_radius=0.01,
        ...                     keep_out_boxes=[(1.7, -0.1, -0.1, 1.9, 0.1, 0.1)])
        >>> found = envelope.check_path([[0.0, -math.pi / 2], [0.0, math.pi / 2]])
        >>> found.index, round(found.fraction, 2), found.violation.part
        (0, 0.45, 'the forearm (link 2)')
        """
        if not (math.isfinite(resolution) and resolution > 0.0):
            raise ValueError(f"resolution {resolution!r} must be finite and > 0 (m)")
        path = self._checked_rows(path)
        if self.is_empty or len(path) == 0:
            return None
        poses, index, fraction = path_samples(path, self.parts.motion_radii, resolution)
        checked = self.check_many(poses)
        row = checked.first()
        if row is None:
            return None
        violation = checked.at(row)
        assert violation is not None
        place = (int(index[row]), float(fraction[row]))
        message = explain.path_text(*place, violation.message)
        return PathViolation(*place, tuple(float(q) for q in poses[row]), violation, message)

    def keep_inside(self, answer: Answer, branch, other) -> Answer:
        """The envelope as a rule of one solve (`rule.keep_inside`): what the arm carrying
        this envelope answers instead of its bare model's `answer`."""
        return rule.keep_inside(self, answer, branch, other)

    def keep_inside_many(self, answers, **rows) -> object:
        """The same over an array solve's rows (`rule.keep_inside_many`)."""
        return rule.keep_inside_many(self, answers, **rows)

    def _checked_rows(self, joints: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """`joints` as a finite (N, n) float array; ValueError naming the shape else."""
        n = self.parts.chain.n_joints
        try:
            rows = np.asarray(joints, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"joints must be rows of {n} numbers (rad)") from None
        if rows.size == 0:
            return rows.reshape(0, n)
        if rows.ndim != 2 or rows.shape[1] != n:
            raise ValueError(f"joints of shape {rows.shape} must be (N, {n}) (rad)")
        if not np.isfinite(rows).all():
            raise ValueError("joints must be finite (rad)")
        return rows

    def _table(self, points: np.ndarray) -> _Worst:
        """The lowest point: a capsule's lowest point is one of its ends, lowered by r."""
        assert self.table_z is not None
        depth = self.table_z - (points[..., 2] - self.link_radius)  # (N, P)
        deepest = _first_deepest(depth)
        rows = np.arange(len(points))
        return _Worst(depth[rows, deepest], deepest, points[rows, deepest])

    def _box(self, points: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> _Worst:
        segments = np.arange(len(self.parts.segments))
        return self._segments_near(points, segments, lo, hi, 0.0, segment_box_signed_distance)

    def _column(self, points: np.ndarray) -> _Worst:
        """The column is the degenerate box of its axis with its radius added."""
        lo = np.array([0.0, 0.0, -math.inf])
        hi = np.array([0.0, 0.0, self.column_top])
        segments = self.parts.column_segments
        return self._segments_near(
            points, segments, lo, hi, self.column_radius, segment_box_distance
        )

    def _segments_near(self, points, segments, lo, hi, clearance, distance) -> _Worst:
        """The deepest of `segments` (indices) past the box [lo, hi] grown by `clearance`:
        the exact `distance` only for the capsules whose bounding box reaches the box's."""
        ends = self.parts.segments[segments]
        a, b = points[:, ends[:, 0]], points[:, ends[:, 1]]  # (N, S, 3)
        reach = self.link_radius + clearance
        near = np.all((np.minimum(a, b) - reach <= hi) & (np.maximum(a, b) + reach >= lo), axis=-1)
        if not near.any():  # the common case: nothing comes near (the part named is moot)
            count = len(points)
            return _Worst(
                np.full(count, -math.inf), np.zeros(count, dtype=int), np.zeros((count, 3))
            )
        depth = np.full(near.shape, -math.inf)
        t = np.zeros(near.shape)
        rows, columns = np.nonzero(near)
        for start in range(0, len(rows), _PAIRS_AT_ONCE):
            r, c = rows[start : start + _PAIRS_AT_ONCE], columns[start : start + _PAIRS_AT_ONCE]
            signed, t[r, c] = distance(a[r, c], b[r, c], lo, hi)
            depth[r, c] = reach - signed
        deepest = _first_deepest(depth)
        row = np.arange(len(points))
        t_best = t[row, deepest]
        first, last = ends[deepest, 0], ends[deepest, 1]
        part = np.where(
            t_best <= _END,
            first,
            np.where(t_best >= 1.0 - _END, last, len(self.parts.point_names) + segments[deepest]),
        )
        a_best, b_best = a[row, deepest], b[row, deepest]
        return _Worst(depth[row, deepest], part, a_best + t_best[:, None] * (b_best - a_best))


def _first_deepest(depth: np.ndarray) -> np.ndarray:
    """Per row of `depth` (N, parts), the first part (base to tip) within TOUCH_TOLERANCE of
    the deepest: one point reached through two parts (a link's end, the fingertips' middle)
    is named by the first, whatever the rounding."""
    deepest = np.max(depth, axis=1, keepdims=True)
    return np.argmax(depth >= deepest - TOUCH_TOLERANCE, axis=1)


def _finite(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise ValueError(f"{name} {value!r} must be a number (m)")
    if not math.isfinite(value):
        raise ValueError(f"{name} {value!r} must be finite (m)")
    return float(value)


def _length(value: float, name: str) -> float:
    value = _finite(value, name)
    if value < 0.0:
        raise ValueError(f"{name} {value!r} must be >= 0 (m)")
    return value


def _checked_boxes(boxes: Sequence[Sequence[float]]) -> tuple[tuple[float, ...], ...]:
    """Each box as 6 finite floats, min <= max on every axis; ValueError naming it else."""
    checked = []
    for index, box in enumerate(boxes):
        values = tuple(_finite(v, f"keep-out box {index + 1}") for v in box)
        if len(values) != 6:
            raise ValueError(f"keep-out box {index + 1} {box!r} must give 6 numbers (m)")
        for axis, name in enumerate("xyz"):
            if values[axis] > values[axis + 3]:
                raise ValueError(
                    f"keep-out box {index + 1} {box!r}: min {name} {values[axis]} > max "
                    f"{name} {values[axis + 3]}"
                )
        checked.append(values)
    return tuple(checked)
