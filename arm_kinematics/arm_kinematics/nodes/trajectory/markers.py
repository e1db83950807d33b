"""RViz markers of `trajectory_markers`, as plain message builders.

Every builder returns a MarkerArray that first clears the previous markers (DELETEALL), in the
base frame; points are tool points (x, y, z, m; `poses.ToolPoses.point`: a planar arm's on its
plane); `scale` is a size that suits the arm (5 % of its reach, m).
"""

from __future__ import annotations

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.nodes.messages import solve_ik_status_name
from arm_kinematics.nodes.trajectory.goals import Result, status_name

PLANNED = ColorRGBA(r=0.1, g=0.6, b=1.0, a=1.0)
FEASIBLE = ColorRGBA(r=0.1, g=0.9, b=0.2, a=1.0)
FAILED = ColorRGBA(r=1.0, g=0.1, b=0.1, a=1.0)
INFEASIBLE = ColorRGBA(r=1.0, g=0.3, b=0.3, a=0.35)
LABEL = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)


def marker_scale(link_lengths) -> float:
    """5 % of the arm's reach, metres."""
    return 0.05 * sum(link_lengths)


class TrajectoryMarkers:
    """Builds the plan and abort markers of one arm (frame, marker size)."""

    def __init__(self, base_frame: str, scale: float) -> None:
        self.base_frame = base_frame
        self.scale = scale

    def _marker(self, kind: int, marker_id: int, ns: str, color: ColorRGBA, stamp: Time) -> Marker:
        marker = Marker(type=kind, id=marker_id, ns=ns, action=Marker.ADD, color=color)
        marker.header.frame_id = self.base_frame
        marker.header.stamp = stamp
        marker.pose.orientation.w = 1.0
        return marker

    def _line(
        self, marker_id: int, ns: str, xyz: np.ndarray, color: ColorRGBA, width: float, stamp: Time
    ) -> Marker | None:
        if len(xyz) < 2:
            return None
        marker = self._marker(Marker.LINE_STRIP, marker_id, ns, color, stamp)
        marker.scale.x = width
        marker.points = [Point(x=x, y=y, z=z) for x, y, z in xyz.tolist()]
        return marker

    def _array(self, markers: list[Marker | None]) -> MarkerArray:
        clear = Marker(action=Marker.DELETEALL)
        clear.header.frame_id = self.base_frame
        return MarkerArray(markers=[clear, *[m for m in markers if m is not None]])

    def plan(
        self, start_tip: tuple[float, float, float], tips: np.ndarray, stamp: Time
    ) -> MarkerArray:
        """The path the tool will follow: from `start_tip` through the setpoints' tool points
        (K, 3)."""
        path = np.vstack((np.asarray(start_tip, dtype=float)[None, :], tips))
        return self._array([self._line(0, "planned_path", path, PLANNED, 0.1 * self.scale, stamp)])

    def abort(
        self,
        start_tip: tuple[float, float, float],
        points: np.ndarray,
        step: int,
        status: int,
        ik_status: int,
        stamp: Time,
    ) -> MarkerArray:
        """Feasible part green, the rest faded red, a red sphere and a label at `step` (the
        index in `points` (M, 3), the path's tool points, of the failing point)."""
        xyz = np.vstack((np.asarray(start_tip, dtype=float)[None, :], points))
        scale = self.scale
        # xyz[0] is the start, xyz[step + 1] the failing point.
        feasible = self._line(0, "feasible_path", xyz[: step + 1], FEASIBLE, 0.1 * scale, stamp)
        rest = self._line(1, "infeasible_path", xyz[step:], INFEASIBLE, 0.06 * scale, stamp)
        x, y, z = (float(v) for v in points[step])
        sphere = self._marker(Marker.SPHERE, 2, "failed_step", FAILED, stamp)
        sphere.pose.position = Point(x=x, y=y, z=z)
        sphere.scale.x = sphere.scale.y = sphere.scale.z = 0.5 * scale
        text = self._marker(Marker.TEXT_VIEW_FACING, 3, "failed_step", LABEL, stamp)
        text.pose.position = Point(x=x, y=y, z=z + 0.8 * scale)
        text.scale.z = 0.35 * scale
        label = status_name(status)
        if status == Result.IK_FAILED:
            label += f" ({solve_ik_status_name(ik_status)})"
        text.text = f"{label} at step {step}/{len(points)}"
        return self._array([feasible, rest, sphere, text])
