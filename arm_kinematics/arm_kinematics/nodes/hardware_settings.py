"""The hardware node's own parameters (read-only; not the arm's: a params file of the arm need
not carry them): one table, declared and validated at start-up.

| parameter | default | what |
| --- | --- | --- |
| `config_file` | `''` | the params file it was started with (calibration/save writes beside it or over it); `''` = unknown, saving refused. bringup and arm.launch.py set it |
| `calibration.heartbeat_timeout_s` | 5.0 | calibration mode ends this long after the last heartbeat, s (0.05..3600) |
| `calibration.jog_speed_deg_s` | 30.0 | calibration mode's jog slew limit, servo deg/s (0.05..3600) |
| `hardware.remember_pose` | true | remember the last commanded pose across restarts and command it first at start-up (`hardware/remembered_pose.py`) |
| `hardware.pose_file` | `''` | the remembered pose's file; `''` = `$XDG_STATE_HOME/arm_kinematics/<namespace>/hardware_node/<hardware id>.json` |
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor, ParameterType
from rclpy.node import Node

from arm_kinematics.hardware.remembered_pose import Owner, default_pose_path
from arm_kinematics.nodes.params import ParameterStartupError

_SECONDS_RANGE = (0.05, 3600.0)


@dataclass(frozen=True)
class HardwareNodeSettings:
    config_file: str  # "" = unknown
    heartbeat_timeout_s: float
    jog_speed_deg_s: float
    remember_pose: bool
    pose_file: str  # "" = the default path of the node and its hardware

    def pose_path(self, owner: Owner) -> Path | None:
        """The remembered pose's file of a node on its hardware; None when the pose is not
        remembered."""
        if not self.remember_pose:
            return None
        if self.pose_file:
            return Path(self.pose_file).expanduser()
        return default_pose_path(owner)


_SPECS: tuple[tuple[str, Any, str], ...] = (
    (
        "config_file",
        "",
        "the params file this node was started with (calibration/save writes beside it or "
        "over it); '' = unknown, saving refused. bringup and arm.launch.py set it",
    ),
    (
        "calibration.heartbeat_timeout_s",
        5.0,
        "calibration mode: without a heartbeat this long every servo holds and the mode ends, s",
    ),
    (
        "calibration.jog_speed_deg_s",
        30.0,
        "calibration mode: jog slew limit, servo degrees per second (each servo's is the "
        "lesser of this and its joint's max_velocity_deg_s)",
    ),
    (
        "hardware.remember_pose",
        True,
        "remember the last commanded pose across restarts (hardware.pose_file) and command it "
        "first at start-up instead of home; false: home at start-up",
    ),
    (
        "hardware.pose_file",
        "",
        "the remembered pose's file; '' = $XDG_STATE_HOME (~/.local/state)/arm_kinematics/"
        "<namespace>/hardware_node/<hardware id>.json",
    ),
)


def _declare(node: Node, name: str, default: Any, description: str) -> Any:
    kind = {
        bool: ParameterType.PARAMETER_BOOL,
        float: ParameterType.PARAMETER_DOUBLE,
        str: ParameterType.PARAMETER_STRING,
    }[type(default)]
    low, high = _SECONDS_RANGE
    ranges = [FloatingPointRange(from_value=low, to_value=high, step=0.0)]
    descriptor = ParameterDescriptor(
        type=kind,
        description=description,
        read_only=True,
        floating_point_range=ranges if kind == ParameterType.PARAMETER_DOUBLE else [],
        dynamic_typing=kind == ParameterType.PARAMETER_DOUBLE,  # 5 in a file is 5.0
    )
    value = node.declare_parameter(name, default, descriptor).value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"parameter '{name}' = {value!r}: must be a number")
        if not low <= value <= high:
            raise ValueError(f"parameter '{name}' = {value!r}: must be in [{low:g}, {high:g}]")
        return float(value)
    if not isinstance(value, type(default)):
        what = "true or false" if isinstance(default, bool) else "a path"
        raise ValueError(f"parameter '{name}' = {value!r}: must be {what}")
    return value


def declare_hardware_node_parameters(node: Node) -> HardwareNodeSettings:
    """Declare the hardware node's own read-only parameters and validate them; one FATAL line
    and ParameterStartupError (exit code 2) for a bad value."""
    try:
        values = [_declare(node, *spec) for spec in _SPECS]
    except Exception as error:  # rclpy's complaint about a value of the wrong type or range
        node.get_logger().fatal(f"invalid configuration: {error}")
        raise ParameterStartupError() from None
    return HardwareNodeSettings(*values)
