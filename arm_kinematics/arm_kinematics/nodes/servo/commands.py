"""MoveIt Servo's command messages as the jog engine's commands: units, frames and names.

- A TwistStamped (`servo_node/delta_twist_cmds`) is in the arm's base frame when its frame_id
  is the base frame (with the arm's `frame_prefix`) or empty, in the tool frame when it is the
  tip frame (the twist's axes are then the tool's, at the pose it is at), or, with a mount, in
  the mount's parent frame (turned into the base frame by the mount's fixed rotation). Any
  other frame is refused (WrongFrame), as MoveIt Servo refuses a frame it cannot look up.
- A JointJog (`servo_node/delta_joint_cmds`) names some of the arm's joints with a velocity
  each; the others are not jogged. Displacements are refused: MoveIt Servo does not support
  them either (it ignores them).

Units by `moveit_servo.command_in_type`: speed units (m/s, rad/s), or unitless (times
`moveit_servo.scale.*`). Either way a twist's linear speed is at most `scale.linear`, its
angular speed at most `scale.rotational`, and a joint's speed at most its velocity limit. A
non-finite number is refused. Every refusal is a `Refusal` whose words say what to send.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from control_msgs.msg import JointJog
from geometry_msgs.msg import TwistStamped

from arm_kinematics.config import ArmConfig
from arm_kinematics.frames import Mount
from arm_kinematics.kinematics.jog import JointJogCommand, TwistCommand
from arm_kinematics.nodes.refusals import InvalidJoints, Refusal, WrongFrame
from arm_kinematics.nodes.servo.settings import ServoSettings


class JogInputs:
    """Turns the jog's messages into commands for one arm (its frames, joints and limits)."""

    def __init__(self, config: ArmConfig, settings: ServoSettings) -> None:
        self.settings = settings
        self.base_frame = config.frame(config.base_frame)
        self.tool_frame = config.frame(config.tip_frame)
        self.mount = None if config.mount is None else Mount.from_config(config.mount)
        self.joint_names = config.joint_names
        self.gripper = None if config.gripper is None else config.gripper.name
        self.max_velocities = config.max_velocities

    def frames_words(self) -> str:
        """The frames a twist may be stamped in, in words."""
        frames = [f"'{self.base_frame}' (or '')", f"'{self.tool_frame}' (the tool's axes)"]
        if self.mount is not None:
            frames.append(f"'{self.mount.parent_frame}'")
        return ", ".join(frames)

    def twist(self, msg: TwistStamped) -> TwistCommand:
        """The command of a TwistStamped; a Refusal says why not."""
        linear = (msg.twist.linear.x, msg.twist.linear.y, msg.twist.linear.z)
        angular = (msg.twist.angular.x, msg.twist.angular.y, msg.twist.angular.z)
        if not all(math.isfinite(v) for v in (*linear, *angular)):
            raise Refusal(f"twist {linear} m/s, {angular} rad/s: every value must be finite")
        frame = msg.header.frame_id
        in_tool = frame == self.tool_frame
        if frame not in ("", self.base_frame) and not in_tool:
            if self.mount is None or frame != self.mount.parent_frame:
                raise WrongFrame(f"twist in frame '{frame}': send it in {self.frames_words()}")
            linear = _to_base(self.mount, linear)
            angular = _to_base(self.mount, angular)
        settings = self.settings
        if settings.unitless:
            linear = tuple(v * settings.scale_linear for v in linear)
            angular = tuple(v * settings.scale_rotational for v in angular)
        command = TwistCommand(linear, angular, in_tool)  # type: ignore[arg-type]
        return command.capped(settings.scale_linear, settings.scale_rotational)

    def joint_jog(self, msg: JointJog) -> JointJogCommand:
        """The command of a JointJog; a Refusal (InvalidJoints for the names) says why not."""
        if msg.displacements:
            raise Refusal(
                "JointJog displacements are not supported (MoveIt Servo ignores them): send "
                "velocities, rad/s"
            )
        names, velocities = list(msg.joint_names), list(msg.velocities)
        if len(velocities) != len(names):
            raise Refusal(
                f"JointJog names {len(names)} joints but gives {len(velocities)} velocities: "
                "one velocity per named joint"
            )
        by_name = _checked_names(names, self.joint_names, self.gripper)
        if not all(math.isfinite(v) for v in velocities):
            raise Refusal(f"JointJog velocities {velocities} must be finite (rad/s)")
        scale = self.settings.scale_joint if self.settings.unitless else 1.0
        wanted = dict(zip(by_name, velocities, strict=True))
        command = JointJogCommand(
            tuple(wanted.get(i, 0.0) * scale for i in range(len(self.joint_names)))
        )
        return command.capped(self.max_velocities)


def _checked_names(names: Sequence[str], joints: Sequence[str], gripper: str | None) -> list[int]:
    """The index of each named joint; InvalidJoints for an unknown or repeated name."""
    indices = []
    for name in names:
        if name == gripper:
            raise InvalidJoints(
                f"'{name}' is the gripper's joint: open and close it with "
                "gripper_controller/gripper_cmd"
            )
        if name not in joints:
            raise InvalidJoints(
                f"unknown joint '{name}' (the arm's joints are {', '.join(joints)})"
            )
        if joints.index(name) in indices:
            raise InvalidJoints(f"joint '{name}' is named twice")
        indices.append(joints.index(name))
    return indices


def _to_base(mount: Mount, vector: tuple[float, float, float]) -> tuple[float, float, float]:
    """A vector given in the mount's parent frame, in the base frame (the mount's rotation)."""
    x, y, z = (float(v) for v in mount.rotation.T @ vector)
    return (x, y, z)
