"""The jog's parameters: MoveIt Servo's names (under `moveit_servo.`), read-only, this node's.

A MoveIt Servo user's parameters mean the same here: `moveit_servo.incoming_command_timeout`
(s: a command older than this is no command, and the arm decelerates to rest),
`moveit_servo.command_in_type` (`speed_units`: m/s and rad/s; `unitless`: -1..1 as from a
joystick, times the scales), `moveit_servo.scale.linear` (m/s: the unit of a unitless linear
command, the cap of one in speed units), `moveit_servo.scale.rotational` (rad/s, alike) and
`moveit_servo.scale.joint` (rad/s: the unit of a unitless joint jog; joint jogs in speed units
are capped by each joint's velocity limit). Their names keep MoveIt Servo's, without units;
the descriptions say them.

Defaults differ from MoveIt Servo's where a hobby arm needs it: speed units (a number on the
topic is a speed, as `ros2 topic pub` users expect) and a tool speed of at most 0.1 m/s (MoveIt
Servo's 0.4 m/s is an industrial arm's). MoveIt Servo's other parameters have no counterpart:
the command rate is `trajectory.command_rate_hz` (one setpoint stream for every motion), the
topics' names are fixed, and the limits are the arm's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.node import Node

from arm_kinematics.nodes.params import ParameterStartupError

PREFIX = "moveit_servo."
COMMAND_IN_TYPES = ("speed_units", "unitless")


@dataclass(frozen=True)
class ServoSettings:
    """The jog's parameters (seconds, m/s, rad/s)."""

    incoming_command_timeout: float = 0.1
    command_in_type: str = "speed_units"
    scale_linear: float = 0.1
    scale_rotational: float = 1.0
    scale_joint: float = 0.5

    @property
    def unitless(self) -> bool:
        return self.command_in_type == "unitless"


#: (parameter name, field, description) of each positive double.
_DOUBLES = (
    (
        "incoming_command_timeout",
        "incoming_command_timeout",
        "s: a jog command older than this is no command (the arm decelerates to rest)",
    ),
    (
        "scale.linear",
        "scale_linear",
        "m/s: the tool's linear speed of a unitless command of 1, the most of one in speed units",
    ),
    (
        "scale.rotational",
        "scale_rotational",
        "rad/s: the tool's angular speed of a unitless command of 1, the most in speed units",
    ),
    (
        "scale.joint",
        "scale_joint",
        "rad/s: a joint's speed of a unitless joint jog of 1 (speed units: its velocity limit)",
    ),
)


def _declare(node: Node, name: str, default: Any, kind: int, description: str) -> Any:
    descriptor = ParameterDescriptor(
        type=kind,
        description=description,
        read_only=True,
        dynamic_typing=kind == ParameterType.PARAMETER_DOUBLE,  # a whole number for a double
    )
    try:
        return node.declare_parameter(PREFIX + name, default, descriptor).value
    except Exception as error:  # rclpy's complaint about a value of the wrong type
        node.get_logger().fatal(f"invalid configuration: parameter '{PREFIX + name}': {error}")
        raise ParameterStartupError() from None


def _refuse(node: Node, name: str, value: Any, why: str) -> None:
    node.get_logger().fatal(f"invalid configuration: parameter '{PREFIX}{name}' = {value!r}: {why}")
    raise ParameterStartupError()


def declare_servo_parameters(node: Node) -> ServoSettings:
    """Declare and check the `moveit_servo.*` parameters; one FATAL line and
    ParameterStartupError (exit code 2) for a bad value."""
    defaults = ServoSettings()
    values: dict[str, Any] = {}
    for name, field, description in _DOUBLES:
        default = float(getattr(defaults, field))
        value = _declare(node, name, default, ParameterType.PARAMETER_DOUBLE, description)
        if isinstance(value, bool) or not isinstance(value, int | float):
            _refuse(node, name, value, "must be a number")
        if not (math.isfinite(value) and value > 0.0):
            _refuse(node, name, value, "must be a finite number > 0")
        values[field] = float(value)
    kind = _declare(
        node,
        "command_in_type",
        defaults.command_in_type,
        ParameterType.PARAMETER_STRING,
        "speed_units (m/s, rad/s) | unitless (-1..1 times moveit_servo.scale.*)",
    )
    if kind not in COMMAND_IN_TYPES:
        _refuse(node, "command_in_type", kind, "must be speed_units or unitless")
    return ServoSettings(command_in_type=kind, **values)
