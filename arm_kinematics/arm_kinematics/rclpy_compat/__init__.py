"""Workarounds for defects of rclpy 7.1 (ROS 2 Jazzy), each to be deleted once rclpy has the fix.

- `executor.WorkerBoundExecutor`: rclpy's MultiThreadedExecutor hands a callback to its thread
  pool again and again while the workers are busy (ros2/rclpy#1452, fixed by ros2/rclpy#1547);
- `action_client.ActionClient`: rclpy's ActionClient can drop the answer to a request sent
  while another thread spins (ros2/rclpy#1123, fixed by ros2/rclpy#1308), and
  `action_client.destroy_actions`: rclpy's destroy_node skips a node's action objects.

And one for its middleware: `service_call.call_idempotent` sends a request again when Fast DDS
dropped its response (ros2/rmw_fastrtps#842, not fixed in any release yet).

Each rclpy module checks the running rclpy version when imported (`warn_if_fixed`) and warns
when that version no longer needs it, so the workaround is not kept past its time. Nothing outside
rclpy is imported here; the nodes, the command-line clients, tests and benchmarks import these.
"""

from __future__ import annotations

import importlib.metadata
import re
import warnings
from collections.abc import Mapping

__all__ = ["rclpy_version", "warn_if_fixed"]


def _parse(text: str) -> tuple[int, ...] | None:
    match = re.match(r"\s*(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(part) for part in match.groups()) if match else None


def _package_xml_version() -> str | None:
    try:
        from ament_index_python.packages import get_package_share_directory

        with open(f"{get_package_share_directory('rclpy')}/package.xml", encoding="utf-8") as f:
            found = re.search(r"<version>([^<]+)</version>", f.read())
    except Exception:  # no ament index, no rclpy share folder, unreadable file
        return None
    return found.group(1) if found else None


def rclpy_version() -> tuple[int, ...] | None:
    """The running rclpy's version (major, minor, patch), or None when it cannot be found.

    First rclpy's own package.xml (through the ament index): it is the version of the code. The
    number of a PyPI wheel can differ (the `ros-rclpy` 7.1.6 wheel holds rclpy 7.1.5), so the
    distributions' metadata (`rclpy`, then `ros-rclpy`) only come next.
    """
    text = _package_xml_version()
    if text is None:
        for distribution in ("rclpy", "ros-rclpy"):
            try:
                text = importlib.metadata.version(distribution)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    return None if text is None else _parse(text)


def warn_if_fixed(
    workaround: str,
    fix: str,
    fixed_in: Mapping[int, tuple[int, ...] | None],
    version: tuple[int, ...] | None = None,
) -> str | None:
    """Warn (RuntimeWarning) when rclpy `version` (default: the running one) no longer needs
    `workaround`; the warning's text, or None when it is still needed or unknown.

    `fixed_in` maps an rclpy major version to the first release of that line with `fix` (None:
    no release of the line has it yet). A major version not in the table is one the workaround
    was not checked against: it warns too, asking to check.

    >>> warn_if_fixed("X", "ros2/rclpy#1", {7: (7, 1, 6)}, version=(7, 1, 5)) is None
    True
    """
    version = rclpy_version() if version is None else version
    if version is None:
        return None
    shown = ".".join(map(str, version))
    if version[0] not in fixed_in:
        checked = ", ".join(f"{major}.x" for major in sorted(fixed_in))
        text = (
            f"{workaround} was written for rclpy {checked}; rclpy {shown} was not checked: if "
            f"it has {fix}, use rclpy's own and delete the workaround"
        )
    else:
        first = fixed_in[version[0]]
        if first is None or version < first:
            return None
        text = (
            f"{workaround} is no longer needed: rclpy {shown} has {fix} (since "
            f"{'.'.join(map(str, first))}); use rclpy's own and delete the workaround"
        )
    warnings.warn(text, RuntimeWarning, stacklevel=2)
    return text
