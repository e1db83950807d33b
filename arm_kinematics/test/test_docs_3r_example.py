"""The 3R command-line example of docs/trajectory_node.md works on the shipped
`config/arm_3r.yaml`.

The example is read from docs/trajectory_node.md itself (the `move_arm ... --heading` line), so
the text and the test cannot drift apart. The 3R nodes run in this process, with every
parameter of the file.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import shlex
from collections.abc import Iterator

import pytest
from ros_helpers import PACKAGE_DIR, file_parameters, ros_graph, wait_for
from trajectory_harness import Harness

from arm_kinematics.cli.move_arm import run
from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode

GUIDE = PACKAGE_DIR.parent / "docs" / "trajectory_node.md"
CONFIG_3R = PACKAGE_DIR / "config" / "arm_3r.yaml"


def guide_heading_example() -> list[str]:
    """The arguments of the guide's `move_arm X Y --heading DEG` line (3R arms)."""
    lines = [
        line
        for line in GUIDE.read_text().splitlines()
        if re.match(r"\s*move_arm .*--heading", line)
    ]
    assert len(lines) == 1, lines
    command = lines[0].split("#", 1)[0]
    return shlex.split(command)[1:]


@pytest.fixture(scope="module")
def arm_3r() -> Iterator[Harness]:
    params = file_parameters(CONFIG_3R)
    with ros_graph() as graph:
        graph.add(IkNode(context=graph.context, parameter_overrides=params))
        hardware = graph.add(HardwareNode(context=graph.context, parameter_overrides=params))
        graph.add(TrajectoryNode(context=graph.context, parameter_overrides=params))
        yield Harness(graph, hardware)


def test_the_docs_3r_heading_example_succeeds_on_arm_3r_yaml(arm_3r: Harness) -> None:
    args = guide_heading_example()
    x, y = float(args[0]), float(args[1])
    heading_deg = float(args[args.index("--heading") + 1])
    arm_3r.latest_joints()  # the hardware node is up and publishing
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run(["move_arm", *args, "--timeout", "30", "--quiet"])
    assert code == 0, out.getvalue()
    assert "status: SUCCEEDED (0)" in out.getvalue()
    # The arm ends at the point with the heading the guide promises. SUCCEEDED means the
    # joint_states came within trajectory.goal_tolerance_deg of the last setpoint; the servos
    # then settle on it.
    arm = ArmConfig.from_file(CONFIG_3R).make_arm()

    def settled() -> tuple[float, float, float] | None:
        pose = arm.forward(arm_3r.latest_joints())
        near = math.hypot(pose[0] - x, pose[1] - y) < 1e-4
        return pose if near and abs(math.degrees(pose[2]) - heading_deg) < 0.05 else None

    wait_for(settled, what=f"the tip at ({x}, {y}) m with heading {heading_deg} deg")
