"""Declaring, reading and validating the arm's parameters on a node (the ROS side of config/).

Every node of the arm declares the same parameters (one file for the whole arm), with the
package's config/arm.yaml as defaults, so `ros2 run arm_kinematics ik_node` works without a
params file and a launch file's params file overrides any of them.

Run-time changes of these parameters are refused (they are declared read-only): geometry,
limits and calibration are read once at start-up and a change needs a restart, because a
half-applied geometry change could move the arm somewhere nobody planned.
"""

from __future__ import annotations

from typing import Any

from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter

from arm_kinematics.config import (
    ArmConfig,
    ConfigError,
    ParameterSpec,
    load_parameters_file,
    parameter_spec,
)
from arm_kinematics.nodes.runner import NodeStartupError

_SCALAR_TYPES = {
    str: ParameterType.PARAMETER_STRING,
    float: ParameterType.PARAMETER_DOUBLE,
    int: ParameterType.PARAMETER_INTEGER,
    bool: ParameterType.PARAMETER_BOOL,
}
_ARRAY_TYPES = {
    str: ParameterType.PARAMETER_STRING_ARRAY,
    float: ParameterType.PARAMETER_DOUBLE_ARRAY,
    int: ParameterType.PARAMETER_INTEGER_ARRAY,
}


class ParameterStartupError(NodeStartupError):
    """Raised after one clear log line when the parameters are invalid; exits with code 2."""

    exit_code = 2


def _default(value: Any, typ: type, is_array: bool) -> Any:
    # ROS keeps a double a double: an int default for a float parameter would fix its type.
    if is_array:
        return [typ(v) for v in value]
    return typ(value) if not isinstance(value, bool) else value


def _declare(node: Node, spec: ParameterSpec, defaults: dict[str, Any]) -> Any:
    """Declare one parameter (read-only, described) and return its value (None: not given)."""
    descriptor = ParameterDescriptor(
        type=(_ARRAY_TYPES if spec.is_array else _SCALAR_TYPES)[spec.type],
        description=spec.description,
        read_only=True,
        # Whole numbers in a YAML file for a float parameter must not be refused.
        dynamic_typing=spec.type is float,
    )
    default = defaults.get(spec.name) if spec.packaged_default else None
    if default is None:
        default = spec.default
    if default is None:
        # No packaged default (e.g. a 3R arm's wrist, absent from arm.yaml): declare by type so
        # the params file's value is taken and a missing one is reported by ArmConfig. rclpy
        # refuses a None default for a static type, and a type when typing is dynamic.
        typed = None if descriptor.dynamic_typing else Parameter.Type(descriptor.type)
        value = node.declare_parameter(spec.name, typed, descriptor).value
    else:
        value = node.declare_parameter(
            spec.name, _default(default, spec.type, spec.is_array), descriptor
        ).value
    if value is None:
        return None
    return list(value) if spec.is_array else value


def declare_arm_parameters(node: Node) -> ArmConfig:
    """Declare every arm parameter on `node`, validate them and return the ArmConfig.

    `joint_names`, `layout` and `gripper.joint` first: they say which others exist (the
    per-joint ones, `spatial.*`, `gripper.*`). An invalid value logs one error line naming the
    parameter and value and raises ParameterStartupError (no traceback, exit code 2). The
    configuration's notes (parameters given but not used) are logged at INFO.
    """
    defaults = load_parameters_file()
    names_descriptor = ParameterDescriptor(
        type=ParameterType.PARAMETER_STRING_ARRAY,
        description="joint names, base to tip",
        read_only=True,
    )
    try:
        joint_names = node.declare_parameter(
            "joint_names", defaults["joint_names"], names_descriptor
        ).value
        if not isinstance(joint_names, list | tuple):
            joint_names = []
        values: dict[str, Any] = {"joint_names": list(joint_names)}
        first = {spec.name: spec for spec in parameter_spec([])}
        for name in ("layout", "gripper.joint"):
            value = _declare(node, first[name], defaults)
            if value is not None:
                values[name] = value
        layout = values.get("layout", "planar")
        gripper_joint = values.get("gripper.joint", "")
        specs = parameter_spec(
            list(joint_names),
            layout=layout if isinstance(layout, str) else "planar",
            gripper_joint=gripper_joint if isinstance(gripper_joint, str) else "",
        )
        for spec in specs:
            if spec.name in values:
                continue
            value = _declare(node, spec, defaults)
            if value is not None:  # left out, ArmConfig reports the parameter as missing
                values[spec.name] = value
        config = ArmConfig.from_parameters(values)
    except (ConfigError, ParameterException, TypeError, ValueError) as error:
        # ParameterException etc.: rclpy's own complaint about a file value of the wrong type.
        node.get_logger().fatal(f"invalid configuration: {error}")
        raise ParameterStartupError() from None
    for note in config.notes:
        node.get_logger().info(note)
    return config
