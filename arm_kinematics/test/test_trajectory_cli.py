"""The `move_arm` command-line client and the `trajectory_node` executable.

The nodes the client talks to run in this process (one graph for the module). The client's
`run(argv)` (what the console script calls) runs in this process too, on its own rclpy
context; Ctrl-C is tested on the installed console script in a process of its own, as a user
would start it. (Each new process must discover the graph over DDS, which on this loaded
machine sometimes takes several seconds: the tests keep such processes few.)
"""

from __future__ import annotations

import contextlib
import io
import subprocess

import pytest
from arm_2r import tip_of
from ros_helpers import (
    installed_executable,
    interrupt_after,
    start_node_process,
    stop_process,
    wait_for,
)
from trajectory_harness import Harness

from arm_kinematics.cli.move_arm import build_parser, run


@pytest.fixture(scope="module")
def arm(default_arm: Harness) -> Harness:
    return default_arm


def move_arm(*args: str) -> tuple[int, str]:
    """Run the client as the console script would (`run(argv)`); exit code and output.

    It gets 30 s to find the server (DDS discovery on a loaded machine) unless told otherwise.
    """
    if "--timeout" not in args:
        args = (*args, "--timeout", "30")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run(["move_arm", *args])
    return code, out.getvalue()


def final_joints(output: str) -> tuple[float, float]:
    """The radians printed on the 'final joints:' line."""
    line = next(line for line in output.splitlines() if line.startswith("final joints:"))
    values = [part.split("=")[1].split(" rad")[0] for part in line.split(": ", 1)[1].split(", ")]
    return tuple(float(v) for v in values)


def test_ctrl_c_cancels_the_goal_and_prints_the_canceled_result(arm):
    arm.move_to(0.16, 0.0)
    code, out = interrupt_after(
        installed_executable("move_arm"), "0.10", "0.10", "--speed", "0.01",
        "--feedback-period", "0", "--timeout", "30",
        prefix="step ", count=5,
    )  # fmt: skip
    assert code == 130, out
    assert "status: CANCELED (4)" in out
    assert "canceled by the client" in out
    # The arm stays at the last commanded point, which the client printed.
    arm.wait_until_at(final_joints(out), 1e-6)  # printed with 6 decimals


def test_move_arm_moves_prints_feedback_and_the_result(arm):
    arm.latest_joints()
    code, out = move_arm("0.13", "0.07", "--speed", "0.1", "--feedback-period", "0")
    assert code == 0, out
    assert "status: SUCCEEDED (0)" in out
    feedback = [line for line in out.splitlines() if line.startswith("step ")]
    assert feedback, out
    assert "(100%) tip x=0.1300 y=0.0700 m" in feedback[-1]
    assert tip_of(final_joints(out)) == pytest.approx((0.13, 0.07), abs=1e-6)
    arm.wait_until_tip(0.13, 0.07, 1e-6)


def test_move_arm_reports_an_infeasible_goal_with_its_failing_step(arm):
    code, out = move_arm("0.3", "0.0", "--quiet")
    assert code == 1, out
    assert "status: IK_FAILED (2)" in out
    assert "failed step: " in out
    assert "(IK status TOO_FAR)" in out
    assert not any(line.startswith("step ") for line in out.splitlines())


def test_move_arm_joint_mode_and_bad_input(arm):
    code, out = move_arm("0.15", "0.02", "--joint", "--speed", "1.0", "--quiet")
    assert code == 0, out
    assert tip_of(final_joints(out)) == pytest.approx((0.15, 0.02), abs=1e-6)  # 6 decimals
    code, out = move_arm("0.15", "0.02", "--joint", "--speed", "2.0", "--quiet")
    assert code == 1
    assert "status: INVALID_GOAL (1)" in out
    assert "fraction (0, 1]" in out


def test_move_arm_without_a_server_exits_2_after_the_timeout(arm):
    code, out = move_arm("0.1", "0.1", "--namespace", "nobody_here", "--timeout", "1")
    assert code == 2
    assert "no /nobody_here/move_arm action server within 1 s" in out


def test_the_command_line_takes_negative_coordinates_and_degrees():
    args = build_parser().parse_args(["-0.05", "0.1", "--heading", "-30", "--joint"])
    assert (args.x, args.y, args.heading, args.joint) == (-0.05, 0.1, -30.0, True)


def test_trajectory_node_process_starts_serves_and_stops_cleanly_on_ctrl_c(arm):
    # In its own namespace, so that the nodes of this module's graph do not answer for it.
    proc = start_node_process(
        installed_executable("trajectory_node"), "--ros-args", "-r", "__ns:=/process_test"
    )
    try:

        def serving() -> bool:
            names = dict(arm.node.get_service_names_and_types())
            return "/process_test/move_arm/_action/send_goal" in names or proc.poll() is not None

        wait_for(serving, what="the move_arm action server of the process")
        assert proc.poll() is None
    finally:
        code, out = stop_process(proc)
    assert code == 0, out
    assert "trajectory_node ready: action '/process_test/move_arm'" in out
    assert "Traceback" not in out


def test_trajectory_node_refuses_a_bad_parameter_in_one_line():
    proc = start_node_process(
        installed_executable("trajectory_node"),
        "--ros-args",
        "-p",
        "trajectory.command_rate_hz:=0.0",
    )
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        stop_process(proc)
        raise
    assert proc.returncode == 2, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    assert "trajectory.command_rate_hz" in lines[0]
    assert "0.0" in lines[0]
