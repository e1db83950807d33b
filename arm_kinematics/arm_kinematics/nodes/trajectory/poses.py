"""What the trajectory node needs to know of the arm's kind: tool poses in and out.

A planner's tool pose is a planar arm's (x, y[, heading]) or a spatial arm's (x, y, z[, pitch[,
roll]]) (m, rad; `kinematics.planning.line_plan`). `ToolPoses` turns a goal's stamped pose into
one (`targets.TargetCheck`: the frame, finite numbers, the plane of a planar arm, the
orientation), gives the pose the arm is at from its joints, where a pose's tool point is in the
base frame (x, y, z: feedback, results, markers) and a pose in words. Nothing else in the node
asks which kind of arm it drives.

No rclpy node here, message types only. Units: metres, radians.
"""

from __future__ import annotations

from collections.abc import Sequence

from geometry_msgs.msg import Pose

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, SpatialArm
from arm_kinematics.kinematics.planning.line_points import pose_text
from arm_kinematics.nodes.targets import TargetCheck


class ToolPoses:
    """Tool poses of one arm (planar or spatial) for the trajectory node."""

    def __init__(self, arm: PlanarArm | SpatialArm, config: ArmConfig) -> None:
        self.arm = arm
        self.check = TargetCheck.from_config(config)
        self.plane_z = config.plane_z
        self.position_dims = arm.position_dims

    def goal(
        self, frame_id: str, pose: Pose, mode: int, tool_angle: float = 0.0, what: str = "target"
    ) -> tuple[float, ...]:
        """The planner's pose of a goal's `pose` stamped in `frame_id`, in the base frame; a
        Refusal (WrongFrame, OffPlane, InvalidOrientation...) says why it is refused."""
        if self.position_dims == 3:
            return self.check.spatial_pose(frame_id, pose, mode, tool_angle, what).point
        return self.check.planar_pose(frame_id, pose, mode, tool_angle, what).point

    def start(self, joints: Sequence[float], angles: int) -> tuple[float, ...]:
        """The tool pose at `joints` (rad) with its first `angles` angles (as many as the
        path's poses have: a line turns an angle only when both its ends have it)."""
        return tuple(self.arm.tool_vector(joints)[: self.position_dims + angles])

    def angles_of(self, pose: Sequence[float]) -> int:
        """How many angles a planner's pose holds."""
        return len(pose) - self.position_dims

    def point(self, pose: Sequence[float]) -> tuple[float, float, float]:
        """The tool point (x, y, z) of a pose (or of a `tool_vector`), m in the base frame: a
        planar arm's on its plane."""
        if self.position_dims == 3:
            return (float(pose[0]), float(pose[1]), float(pose[2]))
        return (float(pose[0]), float(pose[1]), self.plane_z)

    def tip(self, joints: Sequence[float]) -> tuple[float, float, float]:
        """The tool point (x, y, z) at `joints` (rad), m in the base frame."""
        return self.point(self.arm.tool_vector(joints))

    def words(self, pose: Sequence[float]) -> str:
        """A pose in words: the position (m) and its angles (deg)."""
        return pose_text(pose, self.position_dims)

    def words_at(self, joints: Sequence[float]) -> str:
        """Where the tool is at `joints` (rad), in words: every angle of its pose."""
        return pose_text(self.arm.tool_vector(joints), self.position_dims)
