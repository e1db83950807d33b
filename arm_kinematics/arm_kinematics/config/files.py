"""The params file: where the package's files are, and a ROS 2 parameters file read into the
flat `{"dotted.name": value}` mapping that the nodes also build from their declared parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .model import ConfigError

# The package folder of the source tree (config/, urdf/ ...), used when not installed.
_SOURCE_PACKAGE_DIR = Path(__file__).resolve().parent.parent.parent


def package_file(folder: str, name: str) -> Path:
    """A data file shipped with the package (`folder/name`): the installed share/ copy, else
    the source tree's."""
    source = _SOURCE_PACKAGE_DIR / folder / name
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:  # no ROS environment (the core and its configs work without one)
        return source
    try:
        installed = Path(get_package_share_directory("arm_kinematics")) / folder / name
    except (PackageNotFoundError, ValueError):  # not installed, or no ament index set up
        return source
    return installed if installed.is_file() else source


def default_config_path(name: str = "arm.yaml") -> Path:
    """Path of a config file shipped with the package: the installed share/ copy, else source."""
    return package_file("config", name)


def flatten_parameters(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested YAML mapping -> {"dotted.name": value} as ROS names parameters."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten_parameters(value, name + "."))
        else:
            flat[name] = value
    return flat


def load_parameters_file(path: str | Path | None = None) -> dict[str, Any]:
    """Read a ROS 2 parameters file and return the flat parameters of its `/**` section."""
    path = Path(path) if path is not None else default_config_path()
    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError("params_file", str(path), f"cannot be read: {error}") from error
    try:
        tree = document["/**"]["ros__parameters"]
    except (TypeError, KeyError) as error:
        raise ConfigError(
            "params_file", str(path), "has no '/**: ros__parameters:' section"
        ) from error
    return flatten_parameters(tree)
