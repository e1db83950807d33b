"""The `workspace.*` section read and checked into an `EnvelopeConfig` (docs/workspace.md).

ROS parameters have no null, so "no table" is `workspace.table_z_m` left out of the file (a
number is always a table; the shipped planar files show the key commented out). "No keep-out
box" is `workspace.keep_out_boxes_m` left out (ROS 2 cannot type an empty list: a node given
`[]` stops at start-up and says so, `nodes/runner.py`). `workspace.base_column_radius_m: 0` (or
left out) is no base column. A file without the section constrains nothing, as before the
section existed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .model import ConfigError, EnvelopeConfig

if TYPE_CHECKING:
    from .reader import Reader

TABLE, BOXES, RADIUS, COLUMN, TOOL = (
    f"workspace.{key}"
    for key in (
        "table_z_m",
        "keep_out_boxes_m",
        "link_radius_m",
        "base_column_radius_m",
        "tool_length_m",
    )
)


def read_workspace(reader: Reader) -> EnvelopeConfig:
    """The workspace section of `reader`'s parameters, every key checked (ConfigError)."""
    table = _table(reader.params.get(TABLE))
    boxes = keep_out_boxes(reader.params.get(BOXES))
    column = _length(reader, COLUMN)
    tool = _length(reader, TOOL)
    constrained = table is not None or bool(boxes) or column > 0.0
    if constrained and reader.params.get(RADIUS) is None:
        raise ConfigError(
            RADIUS,
            None,
            "is missing: the workspace envelope takes the arm's parts as capsules of this "
            "radius about their centre lines (m; about half a link's width)",
        )
    return EnvelopeConfig(table, boxes, _length(reader, RADIUS), column, tool)


def _table(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(TABLE, value, "must be a number (m)")
    if not math.isfinite(value):
        raise ConfigError(
            TABLE, value, f"must be finite: for no table, leave {TABLE} out of the file"
        )
    return float(value)


def _length(reader: Reader, name: str) -> float:
    if reader.params.get(name) is None:
        return 0.0
    return reader.number(name, non_negative=True)


def keep_out_boxes(value: Any) -> tuple[tuple[float, ...], ...]:
    """`workspace.keep_out_boxes_m` (a flat list, six numbers a box) as boxes; ConfigError
    naming the box and the number else.

    >>> keep_out_boxes([0.1, -0.05, 0, 0.2, 0.05, 0.1])
    ((0.1, -0.05, 0.0, 0.2, 0.05, 0.1),)
    >>> keep_out_boxes([0.1, -0.05, 0.3, 0.2, 0.05, 0.1])
    Traceback (most recent call last):
    arm_kinematics.config.model.ConfigError: parameter 'workspace.keep_out_boxes_m' = [0.1, -0.05, 0.3, 0.2, 0.05, 0.1]: box 1 has min z 0.3 > max z 0.1 (each box: min x, y, z, then max x, y, z)
    """  # noqa: E501
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise ConfigError(BOXES, value, "must be a list of numbers, six per box")
    if not value:
        raise ConfigError(
            BOXES, value, f"ROS 2 cannot type an empty list: for no box, leave {BOXES} out"
        )
    for number in value:
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise ConfigError(BOXES, value, f"must hold numbers ({number!r} is not one)")
        if not math.isfinite(number):
            raise ConfigError(BOXES, value, f"must hold finite numbers ({number} is not)")
    if len(value) % 6:
        raise ConfigError(
            BOXES,
            value,
            f"must give six numbers per box (min x, y, z, max x, y, z): {len(value)} numbers "
            f"are {len(value) // 6} box(es) and {len(value) % 6} more",
        )
    boxes = tuple(tuple(float(v) for v in value[i : i + 6]) for i in range(0, len(value), 6))
    for index, box in enumerate(boxes):
        for axis, name in enumerate("xyz"):
            if box[axis] > box[axis + 3]:
                raise ConfigError(
                    BOXES,
                    value,
                    f"box {index + 1} has min {name} {box[axis]:g} > max {name} "
                    f"{box[axis + 3]:g} (each box: min x, y, z, then max x, y, z)",
                )
    return boxes
