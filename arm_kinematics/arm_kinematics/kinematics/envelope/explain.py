"""The texts of the envelope's refusals: which constraint, which part of the arm, how far.

Each function returns one line that starts with the status name OUTSIDE_WORKSPACE and names
the parameter that set the constraint. Metres inside; the depth is printed in millimetres,
the constraint's numbers in metres (`metres_text`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..planar.explain import metres_text

STATUS = "OUTSIDE_WORKSPACE"


def millimetres_text(metres: float) -> str:
    """A depth (m) in millimetres to a tenth, "under 0.1" below that.

    >>> millimetres_text(0.01204), millimetres_text(0.0123456), millimetres_text(2e-9)
    ('12', '12.3', 'under 0.1')
    """
    value = metres * 1e3
    if value < 0.05:
        return "under 0.1"
    return f"{value:.1f}".removesuffix(".0")


def _radius_text(link_radius: float) -> str:
    return f"counting workspace.link_radius_m = {metres_text(link_radius)} m around the arm"


def table_text(part: str, depth: float, table_z: float, link_radius: float) -> str:
    """A part below the table.

    >>> print(table_text("the elbow", 0.012, 0.0, 0.015))
    OUTSIDE_WORKSPACE: the elbow would be 12 mm below the table (workspace.table_z_m = 0 m,
    counting workspace.link_radius_m = 0.015 m around the arm)
    """
    return (
        f"{STATUS}: {part} would be {millimetres_text(depth)} mm below the table "
        f"(workspace.table_z_m = {metres_text(table_z)} m, {_radius_text(link_radius)})"
    )


def box_text(part: str, depth: float, index: int, box: Sequence[float], link_radius: float) -> str:
    """A part inside keep-out box `index` (0-based; said 1-based, the order of the file).

    >>> print(box_text("the forearm (link 2)", 0.008, 0, (0.1, -0.05, 0.0, 0.2, 0.05, 0.1), 0.01))
    OUTSIDE_WORKSPACE: the forearm (link 2) would be 8 mm inside keep-out box 1 (x 0.1..0.2, y
    -0.05..0.05, z 0..0.1 m of workspace.keep_out_boxes_m, counting workspace.link_radius_m =
    0.01 m around the arm)
    """
    sides = ", ".join(
        f"{axis} {metres_text(box[i])}..{metres_text(box[i + 3])}" for i, axis in enumerate("xyz")
    )
    return (
        f"{STATUS}: {part} would be {millimetres_text(depth)} mm inside keep-out box "
        f"{index + 1} ({sides} m of workspace.keep_out_boxes_m, {_radius_text(link_radius)})"
    )


def column_text(part: str, depth: float, radius: float, top: float, link_radius: float) -> str:
    """A part inside the arm's own base column.

    >>> print(column_text("the tool point", 0.005, 0.035, 0.07, 0.01))
    OUTSIDE_WORKSPACE: the tool point would be 5 mm inside the arm's base column
    (workspace.base_column_radius_m = 0.035 m about the base's z axis, up to z = 0.07 m,
    counting workspace.link_radius_m = 0.01 m around the arm)
    """
    return (
        f"{STATUS}: {part} would be {millimetres_text(depth)} mm inside the arm's base column "
        f"(workspace.base_column_radius_m = {metres_text(radius)} m about the base's z axis, "
        f"up to z = {metres_text(top)} m, {_radius_text(link_radius)})"
    )


def path_text(index: int, fraction: float, reason: str) -> str:
    """Where along a joint path (point `index`, 0-based, and the fraction of the way to the
    next) the envelope is left, then the reason without its status word.

    >>> path_text(3, 0.4, "OUTSIDE_WORKSPACE: the elbow would be 2 mm below the table (...)")
    'OUTSIDE_WORKSPACE: between path points 3 and 4 (40% of the way): the elbow would be 2 mm
    below the table (...)'
    >>> path_text(0, 0.0, "OUTSIDE_WORKSPACE: the wrist would be 1 mm below the table (...)")
    'OUTSIDE_WORKSPACE: at path point 0: the wrist would be 1 mm below the table (...)'
    """
    where = (
        f"at path point {index}"
        if fraction == 0.0
        else f"between path points {index} and {index + 1} ({fraction:.0%} of the way)"
    )
    return f"{STATUS}: {where}: {reason.removeprefix(STATUS + ': ')}"
