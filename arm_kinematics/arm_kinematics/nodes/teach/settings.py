"""The trajectory node's parameters of named poses and sequences (read-only, this node's own).

| parameter | default | what |
| --- | --- | --- |
| `config_file` | `''` | the params file the node was started with (bringup and arm.launch.py set it): the files below are kept beside it |
| `named_poses.file` | `''` | the named poses' YAML file; `''`: `<params dir>/<params stem>.poses.yaml` (`<stem>.<namespace>.poses.yaml` in a namespace), or without a params file `$XDG_STATE_HOME/arm_kinematics/<namespace>/<robot_name>.poses.yaml` |
| `sequences.directory` | `''` | where `sequences/save` keeps programs; `''`: `<params dir>/<params stem>[.<namespace>].sequences/`, or `$XDG_STATE_HOME/arm_kinematics/<namespace>/<robot_name>.sequences/` |
| `sequences.ease_in_speed_m_s` | 0.02 | a sequence's first move, LINEAR: at most this tool speed, m/s |
| `sequences.ease_in_joint_fraction` | 0.25 | a sequence's first move, JOINT: at most this fraction of the joint velocity limits |

A namespace of its own keeps two arms started from one params file apart: `bringup --config
kit.yaml --namespace left_arm` keeps `kit.left_arm.poses.yaml`.
"""  # noqa: E501

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.node import Node

from arm_kinematics.nodes.params import ParameterStartupError

POSES_SUFFIX = ".poses.yaml"
SEQUENCES_SUFFIX = ".sequences"


@dataclass(frozen=True)
class TeachSettings:
    """Where named poses and saved sequences are kept, and how gently a sequence starts."""

    poses_file: Path
    sequences_directory: Path
    ease_in_speed: float = 0.02  # m/s
    ease_in_joint_fraction: float = 0.25


def default_path(
    suffix: str,
    config_file: str,
    namespace: str,
    robot_name: str,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """Where a file of the arm is kept by default: beside its params file, else in the
    state directory (XDG_STATE_HOME), one per namespace.

    >>> default_path(".poses.yaml", "/arm/kit.yaml", "/", "kit_arm")
    PosixPath('/arm/kit.poses.yaml')
    >>> default_path(".poses.yaml", "/arm/kit.yaml", "/left_arm", "kit_arm")
    PosixPath('/arm/kit.left_arm.poses.yaml')
    >>> default_path(".sequences", "", "/left_arm", "kit_arm", {"XDG_STATE_HOME": "/s"})
    PosixPath('/s/arm_kinematics/left_arm/kit_arm.sequences')
    """
    parts = [p for p in namespace.split("/") if p]
    if config_file:
        path = Path(config_file).expanduser()
        stem = path.name.removesuffix(path.suffix)
        return path.with_name(".".join([stem, *parts]) + suffix)
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")) / ".local" / "state")
    return Path(state, "arm_kinematics", *parts, robot_name + suffix).expanduser()


_STRINGS = (
    (
        "config_file",
        "the params file this node was started with; named poses and sequences are kept "
        "beside it. bringup and arm.launch.py set it",
    ),
    (
        "named_poses.file",
        "the named poses' YAML file; '' = <params dir>/<params stem>[.<namespace>].poses.yaml",
    ),
    (
        "sequences.directory",
        "where sequences/save keeps programs; '' = <params dir>/<params stem>[.<namespace>]"
        ".sequences/",
    ),
)
_FRACTIONS = (
    ("sequences.ease_in_speed_m_s", 0.02, "a sequence's first LINEAR move: at most this, m/s"),
    (
        "sequences.ease_in_joint_fraction",
        0.25,
        "a sequence's first JOINT move: at most this fraction (0, 1] of the joint limits",
    ),
)


def _declare(node: Node, name: str, default: Any, description: str) -> Any:
    kind = ParameterType.PARAMETER_STRING if isinstance(default, str) else (
        ParameterType.PARAMETER_DOUBLE
    )  # fmt: skip
    descriptor = ParameterDescriptor(
        type=kind,
        description=description,
        read_only=True,
        dynamic_typing=kind == ParameterType.PARAMETER_DOUBLE,  # a whole number for a double
    )
    try:
        value = node.declare_parameter(name, default, descriptor).value
    except Exception as error:  # rclpy's complaint about a value of the wrong type
        node.get_logger().fatal(f"invalid configuration: parameter '{name}': {error}")
        raise ParameterStartupError() from None
    ok = isinstance(value, str) if isinstance(default, str) else (
        not isinstance(value, bool) and isinstance(value, int | float) and
        math.isfinite(value) and 0.0 < value <= 1.0
    )  # fmt: skip
    if not ok:
        what = "a path" if isinstance(default, str) else "a number in (0, 1]"
        node.get_logger().fatal(f"invalid configuration: parameter '{name}' = {value!r}: {what}")
        raise ParameterStartupError()
    return value


def declare_teach_parameters(node: Node, robot_name: str) -> TeachSettings:
    """Declare and check the parameters above; one FATAL line and ParameterStartupError (exit
    code 2) for a bad value."""
    config_file, poses, sequences = (_declare(node, n, "", d) for n, d in _STRINGS)
    speed, fraction = (_declare(node, n, v, d) for n, v, d in _FRACTIONS)
    namespace = node.get_namespace()
    return TeachSettings(
        Path(poses).expanduser()
        if poses
        else default_path(POSES_SUFFIX, config_file, namespace, robot_name),
        Path(sequences).expanduser()
        if sequences
        else default_path(SEQUENCES_SUFFIX, config_file, namespace, robot_name),
        float(speed),
        float(fraction),
    )
