"""MoveIt Servo's interface on the trajectory node: its topics and services, named as a
`servo_node` of MoveIt Servo names them (relative names: a namespace moves them all).

- subscription `servo_node/delta_twist_cmds` (geometry_msgs/TwistStamped): the tool's velocity;
- subscription `servo_node/delta_joint_cmds` (control_msgs/JointJog): joint velocities;
- publisher `servo_node/status` (moveit_msgs/ServoStatus, transient local, depth 1): the code
  and its words, when they change;
- service `servo_node/switch_command_type` (moveit_msgs/srv/ServoCommandType): MoveIt Servo
  follows one kind of command at a time and needs this call first; here both kinds are
  followed at any time (the latest command wins), so TWIST and JOINT_JOG succeed at once and
  POSE, which is not served, fails;
- service `servo_node/pause_servo` (std_srvs/SetBool): true pauses (a running jog decelerates to
  rest, commands are ignored), false goes on.

The jog itself, and the rule of who moves, is `control.JogControl`; messages become commands in
`commands.JogInputs`. This module only wires them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from control_msgs.msg import JointJog
from geometry_msgs.msg import TwistStamped
from moveit_msgs.msg import ServoStatus
from moveit_msgs.srv import ServoCommandType
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_srvs.srv import SetBool

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Envelope, PlanarArm, SpatialArm
from arm_kinematics.kinematics.jog import JogCode, JogLimits
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.servo.commands import JogInputs
from arm_kinematics.nodes.servo.control import JogControl
from arm_kinematics.nodes.servo.settings import declare_servo_parameters
from arm_kinematics.nodes.trajectory.goals import Admission

TWIST_TOPIC = "servo_node/delta_twist_cmds"
JOINT_TOPIC = "servo_node/delta_joint_cmds"
STATUS_TOPIC = "servo_node/status"
_FOLLOWED = (ServoCommandType.Request.JOINT_JOG, ServoCommandType.Request.TWIST)


def jog_limits(config: ArmConfig) -> JogLimits:
    """The jog's limits from the arm's: the command period, the joints' velocity and
    acceleration limits, the tool's acceleration, the branch-flip step."""
    trajectory = config.trajectory
    return JogLimits(
        period=1.0 / trajectory.command_rate_hz,
        joint_velocities=config.max_velocities,
        joint_accelerations=config.max_accelerations,
        tool_acceleration=trajectory.max_tool_acceleration,
        max_joint_step=trajectory.max_joint_step,
    )


class ServoInterface:
    """The topics and services above on `node`, feeding a `JogControl` it builds."""

    def __init__(
        self,
        node: Node,
        config: ArmConfig,
        arm: PlanarArm | SpatialArm,
        envelope: Envelope | None,
        admission: Admission,
        start_pose: Callable,
        publish: Callable[[Sequence[float]], object],
        group: CallbackGroup,
    ) -> None:
        self._node = node
        settings = declare_servo_parameters(node)
        self.inputs = JogInputs(config, settings)
        self._status = node.create_publisher(
            ServoStatus,
            STATUS_TOPIC,
            QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL),
        )
        self.control = JogControl(
            arm,
            jog_limits(config),
            envelope,
            settings,
            admission,
            start_pose,
            publish,
            self._say,
            node.get_logger(),
        )
        # Depth 1: the latest command wins (JogControl keeps only it), so no older command
        # waits in a queue behind a newer one to be handed on after it.
        node.create_subscription(TwistStamped, TWIST_TOPIC, self._on_twist, 1, callback_group=group)
        node.create_subscription(JointJog, JOINT_TOPIC, self._on_joint_jog, 1, callback_group=group)
        node.create_service(
            ServoCommandType,
            "servo_node/switch_command_type",
            self._on_switch,
            callback_group=group,
        )
        node.create_service(SetBool, "servo_node/pause_servo", self._on_pause, callback_group=group)
        self._say(JogCode.NO_WARNING, "ready: no jog")
        units = "unitless" if settings.unitless else "speed units"
        node.get_logger().info(
            f"jog on '{node.resolve_topic_name(TWIST_TOPIC)}' and "
            f"'{node.resolve_topic_name(JOINT_TOPIC)}' ({units}, at most "
            f"{settings.scale_linear:g} m/s and {settings.scale_rotational:g} rad/s, a command "
            f"{settings.incoming_command_timeout:g} s old is none), status on "
            f"'{node.resolve_topic_name(STATUS_TOPIC)}'"
        )

    def _on_twist(self, msg: TwistStamped) -> None:
        try:
            command = self.inputs.twist(msg)
        except Refusal as refusal:
            self.control.refuse(refusal)
            return
        self.control.put(command)

    def _on_joint_jog(self, msg: JointJog) -> None:
        try:
            command = self.inputs.joint_jog(msg)
        except Refusal as refusal:
            self.control.refuse(refusal)
            return
        self.control.put(command)

    def _on_switch(
        self, request: ServoCommandType.Request, response: ServoCommandType.Response
    ) -> ServoCommandType.Response:
        response.success = request.command_type in _FOLLOWED
        if not response.success:
            self._node.get_logger().warning(
                f"switch_command_type {request.command_type}: only JOINT_JOG (0) and TWIST (1) "
                "commands are served here, both at any time"
            )
        return response

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        self.control.set_paused(request.data)
        response.success = True
        response.message = "jogging paused" if request.data else "jogging on"
        return response

    def _say(self, code: int, message: str) -> None:
        self._status.publish(ServoStatus(code=int(code), message=message))
        if code == JogCode.INVALID:
            self._node.get_logger().warning(message)
        elif code != JogCode.NO_WARNING:
            self._node.get_logger().info(f"jog {JogCode(code).name}: {message}")
