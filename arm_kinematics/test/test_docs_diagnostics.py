"""docs/hardware.md's way to read /diagnostics without ros2cli (the PyPI route) works as written.

The `python -c "..."` line is read from docs/hardware.md itself; it runs as a process beside a
hardware_node of this test's graph and must print the node's status and exit by itself.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from ros_helpers import DEFAULT_TIMEOUT_S, PACKAGE_DIR, PYTHON, ros_graph

from arm_kinematics.nodes.hardware_node import HardwareNode

pytestmark = pytest.mark.ros

GUIDE = PACKAGE_DIR.parent / "docs" / "hardware.md"


def guide_diagnostics_one_liner() -> str:
    """The code of the guide's `python -c "..."` line that reads /diagnostics."""
    found = re.findall(r'`python -c "([^"`]*/diagnostics[^"`]*)"`', GUIDE.read_text())
    assert len(found) == 1, found
    return found[0]


def test_the_docs_way_prints_diagnostics_without_ros2cli() -> None:
    code = guide_diagnostics_one_liner()
    with ros_graph() as graph:
        graph.add(HardwareNode(context=graph.context))
        done = subprocess.run(
            [PYTHON, "-c", code],
            capture_output=True,
            text=True,
            timeout=2 * DEFAULT_TIMEOUT_S,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "DiagnosticStatus(" in done.stdout
    assert "name='/hardware_node: servos'" in done.stdout
    assert "key='fault', value='false'" in done.stdout
