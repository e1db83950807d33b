"""The arm's URDF: urdf/arm.urdf.xacro expanded with the `xacro` package for one params file.

Pure Python (xacro, PyYAML; no rclpy). The xacro reads link lengths, joint names, limits and
frames from the same params file as the nodes, so one file describes the whole arm; the
robot's name too (`robot_name`, "arm" for a file without one: config/schema.py).
"""

from __future__ import annotations

import threading
from pathlib import Path

import xacro

from arm_kinematics.config import (
    ArmConfig,
    ConfigError,
    default_config_path,
    load_parameters_file,
    package_file,
)

XACRO_NAME = "arm.urdf.xacro"

# xacro keeps its substitution arguments and file stack in module globals.
_xacro_lock = threading.Lock()


def xacro_path() -> Path:
    """Path of the arm's xacro: the installed share/ copy, else the source tree's."""
    return package_file("urdf", XACRO_NAME)


def robot_description(
    config_path: str | Path | None = None, frame_prefix: str | None = None
) -> str:
    """The URDF (XML text) of the arm in a params file (by default the package's arm.yaml).

    `frame_prefix` (e.g. "left_arm/") prefixes the arm's own links (base, links, tip), never the
    mount's parent frame; None takes the file's `frame_prefix`.

    The file is validated with `ArmConfig.from_file` first, so a bad file raises `ConfigError`
    naming the parameter rather than an obscure xacro error.
    """
    path = Path(config_path).expanduser() if config_path is not None else default_config_path()
    # xacro resolves relative paths against the xacro file's folder, not the working directory.
    path = path.resolve()
    config = ArmConfig.from_file(path)
    prefix = config.frame_prefix if frame_prefix is None else frame_prefix
    if prefix != config.frame_prefix:
        ArmConfig.from_parameters({**load_parameters_file(path), "frame_prefix": prefix})
    with _xacro_lock:
        try:
            document = xacro.process_file(
                str(xacro_path()), mappings={"config": str(path), "frame_prefix": prefix}
            )
        except Exception as error:  # xacro raises XacroException, OSError, KeyError...
            raise ConfigError(
                "config", str(path), f"cannot be expanded into a URDF: {error}"
            ) from error
    return document.toprettyxml(indent="  ")
