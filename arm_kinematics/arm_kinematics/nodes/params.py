"""Declaring, reading and validating the arm's parameters on a node (the ROS side of config/).

Every node of the arm declares the same parameters (one file for the whole arm), with the
package's config/arm.yaml as defaults, so `ros2 run arm_kinematics ik_node` works without a
params file and a launch file's params file overrides any of them. Every declared parameter
has a value; one that has no default and was not given (a spatial arm's `plane_z_m`, a
`gripper.open_m` the gripper's unit does not use) is not declared, so `ros2 param dump` and a
`get_parameters` of every listed name answer in full.

What a node was given (params files, `-p`, `parameter_overrides`) it learns from rclpy itself:
the stack's nodes are built with `automatically_declare_parameters_from_overrides=True` (rcl
has then matched the params files' node sections), and `take_given_parameters` reads those
parameters and undeclares them before the node declares its own, read-only and described.
Each key no node of the stack knows is named at start-up (`check_unknown_parameters`, the rule
in config/unknown.py): a warning, or one FATAL line and exit code 2 where a misspelt key would
leave another limit in force.

Run-time changes of these parameters are refused (they are declared read-only): geometry,
limits and calibration are read once at start-up and a change needs a restart, because a
half-applied geometry change could move the arm somewhere nobody planned.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rcl_interfaces.srv import ListParameters
from rclpy.context import Context
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter

from arm_kinematics.config import (
    ArmConfig,
    ConfigError,
    ParameterSpec,
    arm_parameters,
    load_parameters_file,
    parameter_spec,
    unknown_parameters,
)
from arm_kinematics.config.schema import ROS_PARAMETERS
from arm_kinematics.nodes.runner import NodeStartupError

#: What the nodes of one process (bringup's) have said already: each line once per process.
_SAID: weakref.WeakKeyDictionary[Context, set[str]] = weakref.WeakKeyDictionary()

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


def take_given_parameters(node: Node) -> dict[str, Any]:
    """The parameters `node` was given, by name, undeclared again so that the node declares
    each one itself. `node` must be built with `automatically_declare_parameters_from_overrides
    =True` and declare nothing before this; rclpy's own parameters stay as they are."""
    given: dict[str, Any] = {}
    for name in node.list_parameters([], ListParameters.Request.DEPTH_RECURSIVE).names:
        if name in ROS_PARAMETERS or node.describe_parameter(name).read_only:
            continue
        given[name] = node.get_parameter(name).value
        node.undeclare_parameter(name)
    return given


def _say_once(node: Node, text: str) -> bool:
    """Whether `text` is new in this process (bringup's nodes share one context)."""
    said = _SAID.setdefault(node.context, set())
    if text in said:
        return False
    said.add(text)
    return True


def check_unknown_parameters(
    node: Node, given: Mapping[str, Any], joint_names: Sequence[str], gripper_joint: str
) -> None:
    """Name every given key that no node of the stack knows (config/unknown.py): a WARN line
    each, or FATAL lines and ParameterStartupError (exit code 2) if one is refused."""
    found = unknown_parameters(given, joint_names, gripper_joint)
    for unknown in found:
        words = unknown.words(joint_names, gripper_joint)
        if unknown.refused:
            node.get_logger().fatal(words)
        elif _say_once(node, words):
            node.get_logger().warning(words)
    if any(unknown.refused for unknown in found):
        raise ParameterStartupError()


def given_arm_names(given: Mapping[str, Any]) -> tuple[list[str], str]:
    """The joint names and gripper joint a node that does not read the arm's parameters
    (web_bridge) checks keys for: the given ones, else the packaged file's."""
    defaults = load_parameters_file()
    names = given.get("joint_names", defaults["joint_names"])
    gripper = given.get("gripper.joint", defaults.get("gripper.joint", ""))
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list | tuple) else []
    return names, gripper if isinstance(gripper, str) else ""


def _declare(
    node: Node, spec: ParameterSpec, defaults: dict[str, Any], given: Mapping[str, Any]
) -> Any:
    """Declare one parameter (read-only, described) and return its value (None: neither given
    nor defaulted, and then not declared)."""
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
        if spec.name not in given:
            return None  # not declared: ArmConfig reports it if it is needed
        # No packaged default (e.g. a 3R arm's wrist, absent from arm.yaml): declare by type so
        # the given value is taken. rclpy refuses a None default for a static type, and a type
        # when typing is dynamic.
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

    `node` is built with `automatically_declare_parameters_from_overrides=True` and declares
    nothing before this. `joint_names`, `layout` and `gripper.joint` first: they say which
    others exist (the per-joint ones, `spatial.*`, `gripper.*`) and which keys are unknown. An
    unknown key is named (`check_unknown_parameters`); an invalid value or a refused key logs
    one FATAL line naming it and raises ParameterStartupError (no traceback, exit code 2). The
    configuration's notes (parameters given but not used) are logged at INFO.
    """
    given = take_given_parameters(node)
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
            value = _declare(node, first[name], defaults, given)
            if value is not None:
                values[name] = value
        layout = values.get("layout", "planar")
        gripper_joint = values.get("gripper.joint", "")
        gripper_joint = gripper_joint if isinstance(gripper_joint, str) else ""
        names = [n for n in joint_names if isinstance(n, str)]
        check_unknown_parameters(node, given, names, gripper_joint)
        specs = parameter_spec(
            names,
            layout=layout if isinstance(layout, str) else "planar",
            gripper_joint=gripper_joint,
        )
        _note_unused(node, given, specs, names, gripper_joint)
        for spec in specs:
            if spec.name in values:
                continue
            value = _declare(node, spec, defaults, given)
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


def _note_unused(
    node: Node,
    given: Mapping[str, Any],
    specs: list[ParameterSpec],
    joint_names: Sequence[str],
    gripper_joint: str,
) -> None:
    """One INFO line for the arm keys given that this arm does not use (another layout's, a
    gripper's without `gripper.joint`)."""
    used = {spec.name for spec in specs}
    unused = sorted(set(given) & arm_parameters(joint_names, gripper_joint).keys() - used)
    if unused:
        text = f"not used by this arm (layout, gripper.joint): {', '.join(unused)}"
        if _say_once(node, text):
            node.get_logger().info(text)
