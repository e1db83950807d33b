"""The `gripper` command-line client against hardware_nodes running in this process.

The client's `run(argv)` (what the console script calls) runs in this process on its own rclpy
context; Ctrl-C is tested on the installed console script in a process of its own.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Iterator

import pytest
from ros_helpers import (
    RosGraph,
    file_parameters,
    installed_executable,
    interrupt_after,
    ros_graph,
    wait_for,
)

from arm_kinematics.cli.gripper import build_parser, run
from arm_kinematics.config import default_config_path
from arm_kinematics.nodes.hardware_node import HardwareNode

pytestmark = pytest.mark.ros
D = math.radians


def hardware(graph: RosGraph, config: str, namespace: str, **overrides) -> HardwareNode:
    parameters = file_parameters(default_config_path(config), **overrides)
    node = HardwareNode(context=graph.context, namespace=namespace, parameter_overrides=parameters)
    return graph.add(node)


@pytest.fixture(scope="module")
def arms() -> Iterator[dict[str, HardwareNode]]:
    with ros_graph() as graph:
        yield {
            "kit": hardware(graph, "arm_desk_kit.yaml", "kit"),
            "slow": hardware(
                graph, "arm_desk_kit.yaml", "slow", **{"joints.gripper.max_velocity_deg_s": 5.0}
            ),
            "mearm": hardware(graph, "arm_mearm.yaml", "mearm"),
            "planar": hardware(graph, "arm.yaml", "planar"),
        }


def gripper(*args: str) -> tuple[int, str]:
    """Run the client as the console script would; exit code and output (stdout and stderr).
    It gets 30 s to find the node (DDS discovery on a loaded machine) unless told otherwise."""
    if "--timeout" not in args:
        args = (*args, "--timeout", "30")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run(["gripper", *args])
    return code, out.getvalue()


def test_close_and_open_print_feedback_and_the_result(arms) -> None:
    code, out = gripper("close", "--namespace", "kit", "--feedback-period", "0")
    assert code == 0, out
    assert "goal: 0.0000 m between the fingers (gripper)" in out
    assert "status: SUCCEEDED" in out
    assert "reached_goal: true, stalled: false" in out
    assert "effort: 0 (hobby servos measure no force)" in out
    assert [line for line in out.splitlines() if line.startswith("at ")], out
    wait_for(lambda: arms["kit"].positions[-1] == 0.0, what="the kit's gripper closed")
    code, out = gripper("open", "-n", "kit", "--quiet")
    assert code == 0, out
    assert not [line for line in out.splitlines() if line.startswith("at ")]
    wait_for(lambda: arms["kit"].positions[-1] == D(70), what="open")


def test_a_number_is_in_the_configured_unit(arms) -> None:
    code, out = gripper("0.0275", "-n", "kit", "--quiet")  # metres: the joint at 35 deg
    assert code == 0, out
    wait_for(lambda: arms["kit"].positions[-1] == pytest.approx(D(35)), what="35 deg")
    code, out = gripper("20", "-n", "mearm", "--quiet")  # the claw: degrees on the command line
    assert code == 0, out
    assert "goal: 20.00 deg (0.349066 rad) (claw)" in out
    wait_for(lambda: arms["mearm"].positions[-1] == pytest.approx(D(20)), what="20 deg")


@pytest.mark.parametrize(
    ("namespace", "position", "message"),
    [
        ("kit", "0.08", "position 0.0800 m is outside the gripper's range [0, 0.055] m between"),
        ("mearm", "75", "position 75.00 deg is outside the gripper's range [0, 60] deg"),
        ("kit", "wide", "position 'wide' must be open, close or a number"),
        ("kit", "nan", "position 'nan' must be a finite number"),
        ("planar", "open", "this arm has no gripper"),
    ],
)
def test_refusals_send_nothing_and_exit_1(arms, namespace, position, message) -> None:
    before = arms["kit"].positions
    code, out = gripper(position, "-n", namespace)
    assert code == 1, out
    assert message in out
    assert arms["kit"].positions == before


def test_a_stall_exits_1_and_says_so(arms) -> None:
    node = arms["kit"]
    assert gripper("open", "-n", "kit", "-q")[0] == 0
    node.backend.block(5, 70.0)  # the joint stops at 30 deg
    try:
        code, out = gripper("close", "-n", "kit", "-q")
    finally:
        node.backend.unblock(5)
    assert code == 1, out
    assert "status: ABORTED" in out
    assert "reached_goal: false, stalled: true" in out
    assert f"position: {0.055 * 30 / 70:.4f} m between the fingers" in out


def test_without_a_hardware_node_it_exits_2_after_the_timeout(arms) -> None:
    code, out = gripper("open", "--namespace", "nobody_here", "--timeout", "1")
    assert code == 2, out
    assert "no /nobody_here/hardware_node answered within 1 s" in out


def test_help_and_a_bad_command_line() -> None:
    assert "DEGREES ON THIS COMMAND LINE" in " ".join(build_parser().format_help().split())
    with pytest.raises(SystemExit) as caught:
        run(["gripper"])
    assert caught.value.code == 1


def test_ctrl_c_cancels_the_goal_and_the_gripper_stops(arms) -> None:
    node = arms["slow"]
    code, out = interrupt_after(
        installed_executable("gripper"), "close", "--namespace", "slow", "--feedback-period",
        "0", "--timeout", "30",
        prefix="at ", count=3,
    )  # fmt: skip
    assert code == 130, out
    assert "status: CANCELED" in out
    held = node.positions[-1]
    assert D(0) < held < D(70)
    assert node.targets[-1] == held
