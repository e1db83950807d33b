"""RViz markers of the IK node (`ik_markers`): the reachable ring and the last request.

Plain builders of visualization_msgs from values the node already has (the arm's geometry,
the last target, its status and joint frames); no rclpy here, so they are tested directly.

- namespace `workspace` (published once): the outer and inner circle of the ring the links
  reach (LINE_STRIP; joint limits can make the reachable part smaller, IK says so) and a thin
  translucent disc (CYLINDER) that RViz's "Publish Point" tool can hit.
- namespaces `reachable_region` and `near_singular` (published once, with the ring): the cells
  the tip reaches within the joint limits and, on top, the cells where the arm is near a
  singularity, as TRIANGLE_LISTs of one rectangle (two triangles) per run of grid cells
  (`kinematics.workspace.reachable_region`); for a spatial arm the cells of its vertical plane,
  drawn in the base frame's x-z plane (`vertical_region`), and namespaces `yaw_range` and
  `yaw_range_back`: arcs over the directions the plane can face, from the front and over the
  back; with a workspace envelope, namespace `envelope_removed`: the cells the joints reach
  but the envelope removes (`ReachableRegion.removed`).
- namespaces `envelope_table` and `keep_out_boxes` (published once, with the ring, when the
  arm's envelope has them): the table as a square outline at its height about the base, and
  every keep-out box's 12 edges (one LINE_LIST), so that RViz and the page draw the envelope
  the IK keeps to (docs/workspace.md).
- namespace `target` (after every solve_ik request): the target (SPHERE) coloured by status,
  green OK, yellow SINGULAR, red refused, with its status name (TEXT_VIEW_FACING) above it.
- namespaces `solution` and `alternative`: LINE_STRIPs through the joint frames of the chosen
  solution and, faded, of the other elbow branch; DELETE when there is none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.kinematics import IkResult
from arm_kinematics.kinematics.workspace import ReachableRegion, Rectangle
from arm_kinematics.nodes.messages import position_values, solve_ik_status_name
from arm_kinematics_interfaces.srv import SolveIK

GREEN = ColorRGBA(r=0.1, g=0.8, b=0.2, a=1.0)
YELLOW = ColorRGBA(r=0.95, g=0.8, b=0.1, a=1.0)
RED = ColorRGBA(r=0.9, g=0.1, b=0.1, a=1.0)
RING = ColorRGBA(r=0.6, g=0.6, b=0.65, a=0.8)
DISC = ColorRGBA(r=0.5, g=0.6, b=0.8, a=0.15)
SOLUTION = ColorRGBA(r=0.1, g=0.5, b=0.95, a=1.0)
ALTERNATIVE = ColorRGBA(r=0.1, g=0.5, b=0.95, a=0.3)
TEXT = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
REACHABLE = ColorRGBA(r=0.2, g=0.7, b=0.4, a=0.35)
NEAR_SINGULAR = ColorRGBA(r=0.95, g=0.6, b=0.1, a=0.7)
REMOVED = ColorRGBA(r=0.85, g=0.25, b=0.25, a=0.3)
TABLE = ColorRGBA(r=0.55, g=0.4, b=0.25, a=0.9)
KEEP_OUT = ColorRGBA(r=0.85, g=0.15, b=0.15, a=0.9)

RING_SEGMENTS = 120
DISC_THICKNESS_M = 0.001
REGION_DECIMALS = 6
"""Region corners are rounded to micrometres: far below a cell, and short in JSON."""


@dataclass(frozen=True)
class MarkerRequest:
    """What the marker timer draws of the last solve_ik request: its target (x, y, z, m, in
    `target_frame_id`; None when not finite), its status name and the joints (rad) of the
    solution and the other elbow (None when there is none)."""

    target: tuple[float, float, float] | None
    target_frame_id: str
    status_name: str
    solution: tuple[float, ...] | None
    alternative: tuple[float, ...] | None

    @classmethod
    def of(
        cls,
        request: SolveIK.Request,
        response: SolveIK.Response,
        result: IkResult | None,
        base_frame: str,
    ) -> MarkerRequest:
        """The markers of a request, its answer and the core's result (None when refused)."""
        position = position_values(request.target.pose)
        solved = result is not None and result.ok
        return cls(
            target=position if all(math.isfinite(v) for v in position) else None,
            target_frame_id=request.target.header.frame_id or base_frame,
            status_name=solve_ik_status_name(response.status),
            solution=result.joints if solved else None,
            alternative=result.alternative if solved else None,
        )


def status_colour(status_name: str) -> ColorRGBA:
    """Green for OK, yellow for SINGULAR, red for every refusal."""
    return {"OK": GREEN, "SINGULAR": YELLOW}.get(status_name, RED)


def _marker(ns: str, marker_id: int, marker_type: int, frame_id: str, stamp: Time | None) -> Marker:
    marker = Marker(ns=ns, id=marker_id, type=marker_type, action=Marker.ADD)
    marker.header.frame_id = frame_id
    if stamp is not None:
        marker.header.stamp = stamp
    marker.pose.orientation.w = 1.0
    return marker


def _circle(
    ns: str, marker_id: int, radius: float, z: float, frame_id: str, stamp: Time | None
) -> Marker:
    marker = _marker(ns, marker_id, Marker.LINE_STRIP, frame_id, stamp)
    marker.scale.x = 0.002  # line width, m
    marker.color = RING
    marker.points = [
        Point(
            x=radius * math.cos(2 * math.pi * k / RING_SEGMENTS),
            y=radius * math.sin(2 * math.pi * k / RING_SEGMENTS),
            z=z,
        )
        for k in range(RING_SEGMENTS + 1)
    ]
    return marker


def workspace_markers(
    inner_radius: float,
    outer_radius: float,
    *,
    frame_id: str,
    z: float,
    stamp: Time | None = None,
) -> MarkerArray:
    """The reachable ring (radii in metres, about the base origin) and the clickable disc."""
    outer = _circle("workspace", 0, outer_radius, z, frame_id, stamp)
    inner = _circle("workspace", 1, inner_radius, z, frame_id, stamp)
    if inner_radius <= 0.0:
        inner.action = Marker.DELETE  # no hole: nothing to draw
    disc = _marker("workspace", 2, Marker.CYLINDER, frame_id, stamp)
    disc.pose.position.z = z - DISC_THICKNESS_M
    disc.scale.x = disc.scale.y = 2.0 * outer_radius
    disc.scale.z = DISC_THICKNESS_M
    disc.color = DISC
    return MarkerArray(markers=[outer, inner, disc])


def _points_marker(
    ns: str,
    marker_type: int,
    points: Sequence[tuple[float, float, float]],
    colour: ColorRGBA,
    width: float,
    *,
    frame_id: str,
    stamp: Time | None,
) -> Marker:
    """A LINE_STRIP, LINE_LIST or TRIANGLE_LIST through `points` (x, y, z, m); DELETE if
    empty."""
    marker = _marker(ns, 0, marker_type, frame_id, stamp)
    if not points:
        marker.action = Marker.DELETE
        return marker
    marker.scale.x = width  # a line's width; TRIANGLE_LIST scales its points by 1
    if marker_type == Marker.TRIANGLE_LIST:
        marker.scale.y = marker.scale.z = width
    marker.color = colour
    marker.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in points]
    return marker


def _rectangle_triangles(rectangles: Sequence[Rectangle]) -> list[tuple[float, float]]:
    """Two counter-clockwise triangles per rectangle, corners rounded to REGION_DECIMALS."""
    corners = []
    for x_min, y_min, x_max, y_max in rectangles:
        x0, y0 = round(x_min, REGION_DECIMALS), round(y_min, REGION_DECIMALS)
        x1, y1 = round(x_max, REGION_DECIMALS), round(y_max, REGION_DECIMALS)
        corners += [(x0, y0), (x1, y0), (x1, y1), (x0, y0), (x1, y1), (x0, y1)]
    return corners


def region_markers(
    region: ReachableRegion,
    *,
    frame_id: str,
    z: float,
    stamp: Time | None = None,
    vertical: bool = False,
) -> list[Marker]:
    """The reachable cells (`reachable_region`), the near-singular ones (`near_singular`) and
    those the workspace envelope removes (`envelope_removed`).

    TRIANGLE_LISTs in `frame_id`, one rectangle per row run of the grid: a planar arm's at
    height `z` (m); with `vertical`, a spatial arm's vertical plane (`workspace.vertical_region`:
    its x forward, its y up) drawn in the base frame's x-z plane, the plane at yaw 0.
    """

    def placed(corners: list[tuple[float, float]]) -> list[tuple[float, float, float]]:
        if vertical:
            return [(a, 0.0, b) for a, b in corners]
        return [(a, b, z) for a, b in corners]

    return [
        _points_marker(
            ns,
            Marker.TRIANGLE_LIST,
            placed(_rectangle_triangles(region.rectangles(mask))),
            colour,
            1.0,
            frame_id=frame_id,
            stamp=stamp,
        )
        for ns, mask, colour in (
            ("reachable_region", region.reachable, REACHABLE),
            ("near_singular", region.near_singular, NEAR_SINGULAR),
            ("envelope_removed", region.removed, REMOVED),
        )
    ]


def envelope_markers(
    table_z: float | None,
    boxes: Sequence[Sequence[float]],
    half_width: float,
    *,
    frame_id: str,
    stamp: Time | None = None,
) -> list[Marker]:
    """The envelope's table (`envelope_table`: a LINE_STRIP square of half side `half_width`
    m about the base at height `table_z` m; DELETE when None) and keep-out boxes
    (`keep_out_boxes`: one LINE_LIST of every box's 12 edges, boxes as (min x, y, z, max x, y,
    z) m; DELETE when none), in `frame_id` (the base frame)."""
    square = []
    if table_z is not None:
        w = half_width
        square = [(x, y, table_z) for x, y in ((w, w), (-w, w), (-w, -w), (w, -w), (w, w))]
    edges = []
    for x0, y0, z0, x1, y1, z1 in boxes:
        # Corner k takes max x when bit 0 of k is set, max y bit 1, max z bit 2; an edge joins
        # two corners that differ in one bit.
        corners = [(x0, y0, z0), (x1, y0, z0), (x0, y1, z0), (x1, y1, z0)]
        corners += [(x, y, z1) for x, y, _ in corners]
        for bit in (1, 2, 4):
            edges += [c for k in range(8) if not k & bit for c in (corners[k], corners[k | bit])]
    return [
        _points_marker(
            "envelope_table",
            Marker.LINE_STRIP,
            square,
            TABLE,
            0.003,
            frame_id=frame_id,
            stamp=stamp,
        ),
        _points_marker(
            "keep_out_boxes",
            Marker.LINE_LIST,
            edges,
            KEEP_OUT,
            0.003,
            frame_id=frame_id,
            stamp=stamp,
        ),
    ]


def yaw_range_markers(
    limits: tuple[float, float], radius: float, *, frame_id: str, stamp: Time | None = None
) -> list[Marker]:
    """The directions a spatial arm's vertical plane can face: an arc of `radius` (m) on the
    base frame's x-y plane over the yaw limits (rad; a full circle for a continuous yaw,
    namespace `yaw_range`), and the same turned by pi, where it reaches over the back
    (`yaw_range_back`)."""
    lo, hi = (max(limits[0], -math.pi), min(limits[1], math.pi))
    steps = max(2, math.ceil((hi - lo) / (2 * math.pi) * RING_SEGMENTS))

    def arc(offset: float) -> list[tuple[float, float, float]]:
        angles = [lo + offset + (hi - lo) * k / steps for k in range(steps + 1)]
        return [(radius * math.cos(a), radius * math.sin(a), 0.0) for a in angles]

    return [
        _points_marker(
            ns, Marker.LINE_STRIP, arc(offset), colour, 0.003, frame_id=frame_id, stamp=stamp
        )
        for ns, offset, colour in (
            ("yaw_range", 0.0, RING),
            ("yaw_range_back", math.pi, ALTERNATIVE),
        )
    ]


def request_markers(
    target: tuple[float, float, float] | None,
    target_frame_id: str,
    status_name: str,
    solution_frames: Sequence[tuple[float, float, float]] | None,
    alternative_frames: Sequence[tuple[float, float, float]] | None,
    *,
    frame_id: str,
    stamp: Time | None = None,
) -> MarkerArray:
    """Markers of one solve_ik request.

    `target` is (x, y, z) in `target_frame_id` as the request gave it (None when it has no
    finite position to draw); the frames are the (x, y, z) of the arm's frames in `frame_id`
    (the base), base first (`link_points` of the IK node's layout).
    """
    sphere = _marker("target", 0, Marker.SPHERE, target_frame_id, stamp)
    label = _marker("target", 1, Marker.TEXT_VIEW_FACING, target_frame_id, stamp)
    if target is None:
        sphere.action = label.action = Marker.DELETE
    else:
        sphere.pose.position = Point(x=target[0], y=target[1], z=target[2])
        sphere.scale.x = sphere.scale.y = sphere.scale.z = 0.012
        sphere.color = status_colour(status_name)
        label.pose.position = Point(x=target[0], y=target[1], z=target[2] + 0.02)
        label.scale.z = 0.012  # text height, m
        label.color = TEXT
        label.text = status_name
    return MarkerArray(
        markers=[
            sphere,
            label,
            *(
                _points_marker(
                    ns,
                    Marker.LINE_STRIP,
                    list(frames or ()),
                    colour,
                    0.006,
                    frame_id=frame_id,
                    stamp=stamp,
                )
                for ns, frames, colour in (
                    ("solution", solution_frames, SOLUTION),
                    ("alternative", alternative_frames, ALTERNATIVE),
                )
            ),
        ]
    )
