"""Named poses as the trajectory node uses them: looked up, checked, turned into moves.

No rclpy here (message types only). `NamedPoses` reads the file afresh on every lookup (a
person may edit it while the node runs), checks a pose against the running config
(`teach.poses.check_pose`: joint names, limits, the workspace envelope, the geometry) and gives
the planner's `Move` to it: the tool pose its joints set (the coordinates the arm's joints set
freely, `JogAxes.controlled`: a planar 2R arm's x, y; a desk kit's x, y, z, pitch, roll) and the
joints themselves, which a JOINT move goes to and a LINEAR move must arrive at. Every refusal is
a `Refusal` (INVALID_GOAL, INVALID_SEQUENCE) in the words of `teach`.
"""

from __future__ import annotations

from geometry_msgs.msg import PoseStamped

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, PlanOptions, SpatialArm
from arm_kinematics.kinematics.jog.axes import JogAxes
from arm_kinematics.kinematics.planning.line_points import pose_text
from arm_kinematics.nodes.messages import fill_pose_stamped, fill_transform_pose, joint_state
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.trajectory.goals import Move
from arm_kinematics.teach.names import HOME, TeachError
from arm_kinematics.teach.poses import NamedPose, PoseFile, check_pose, home_pose
from arm_kinematics_interfaces.msg import NamedPose as NamedPoseMessage


class NamedPoses:
    """The named poses of one arm: `home` and those of `file`."""

    def __init__(self, config: ArmConfig, arm: PlanarArm | SpatialArm, file: PoseFile) -> None:
        self.config = config
        self.arm = arm
        self.file = file
        self.envelope = config.make_envelope(arm)
        self._dims = len(JogAxes.of(arm).controlled)
        self.base_frame = config.frame(config.base_frame)

    def all(self) -> list[NamedPose]:
        """`home`, then the file's poses in its order; TeachError when the file is unusable."""
        return [home_pose(self.config, self.arm), *self.file.poses().values()]

    def all_builtin(self) -> list[NamedPose]:
        """`home` alone (what is listed when the file cannot be read)."""
        return [home_pose(self.config, self.arm)]

    def describe(self, joints: tuple[float, ...]) -> str:
        """Where the tool is at `joints` (rad), in words (m, deg)."""
        return pose_text(self.arm.tool_vector(joints), self.arm.position_dims)

    def find(self, name: str) -> NamedPose:
        """The pose `name`; a Refusal when there is none or the file cannot be read."""
        if name == HOME:
            return home_pose(self.config, self.arm)
        try:
            poses = self.file.poses()
        except TeachError as error:
            raise Refusal(str(error)) from None
        if name not in poses:
            known = ", ".join([HOME, *poses])
            raise Refusal(f"no named pose '{name}' (named poses: {known}; {self.file.path})")
        return poses[name]

    def joints(self, pose: NamedPose) -> tuple[float, ...]:
        """The pose's joints (rad, the arm's order) when this arm may go there, else a
        Refusal saying why not."""
        try:
            return check_pose(pose, self.config, self.arm, self.envelope)
        except TeachError as error:
            raise Refusal(str(error)) from None

    def problem(self, pose: NamedPose) -> str:
        """'' when the pose can be gone to, else why not."""
        try:
            self.joints(pose)
        except Refusal as refusal:
            return refusal.message
        return ""

    def move(self, name: str, mode: int, options: PlanOptions) -> Move:
        """The Move to the named pose `name` (MoveArm's LINEAR or JOINT `mode`), planned with
        `options`; a Refusal when it is unknown or not valid for this arm."""
        joints = self.joints(self.find(name))
        target = tuple(float(v) for v in self.arm.tool_vector(joints)[: self._dims])
        return Move(mode=mode, target=target, options=options, joints=joints)

    def message(self, pose: NamedPose, stamp=None) -> NamedPoseMessage:
        """The NamedPose message of `pose`: its joints and, when known, its tool pose in the
        base frame (from the joints by this arm's forward kinematics)."""
        names, values = zip(*pose.joints, strict=True) if pose.joints else ((), ())
        msg = NamedPoseMessage(name=pose.name, saved_at=pose.saved_at)
        msg.joints = joint_state(list(names), list(values), stamp=stamp)
        by_name = pose.joints_by_name()
        if all(n in by_name for n in self.config.joint_names):
            self.fill_tool(msg.tool, tuple(by_name[n] for n in self.config.joint_names), stamp)
        return msg

    def fill_tool(self, msg: PoseStamped, joints: tuple[float, ...], stamp=None) -> None:
        """Set `msg` to the tool pose at `joints` (rad) in the base frame."""
        if isinstance(self.arm, SpatialArm):
            frame = self.arm.link_frames(joints)[-1]
            fill_transform_pose(msg, frame, frame_id=self.base_frame, stamp=stamp)
        else:
            x, y, heading = self.arm.forward(joints)
            fill_pose_stamped(
                msg, x, y, heading, frame_id=self.base_frame, z=self.config.plane_z, stamp=stamp
            )
