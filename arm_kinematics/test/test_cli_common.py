"""cli/common.py: what ik_client and move_arm share (parser, target, namespace, pipes)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    EXIT_BROKEN_PIPE,
    ClientParser,
    add_target_arguments,
    parse_client_args,
    target_arguments,
)
from arm_kinematics.commander.targets import ArmFacts, fill_target, pose_fields
from arm_kinematics.names import absolute_namespace
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import SolveIK


def target_parser() -> ClientParser:
    parser = ClientParser(prog="client")
    add_target_arguments(parser, heading_help="heading, DEGREES")
    return parser


def fill_from_command_line(request, argv, plane_z: float, layout: str = "planar"):
    """What a client sends for a command line: its target arguments, through the commander."""
    arguments = target_arguments(parse_client_args(target_parser(), argv), layout)
    frame = arguments.pop("frame")
    facts = ArmFacts(layout, ("shoulder", "elbow"), plane_z)
    return fill_target(request, pose_fields(facts, **arguments, frame=frame), frame)


def test_a_wrong_command_line_exits_1_not_argparses_2(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        target_parser().parse_args(["0.1", "north"])
    assert exit_info.value.code == EXIT_BAD_COMMAND_LINE == 1
    assert "invalid float value: 'north'" in capsys.readouterr().err


def test_ros_args_go_to_rclpy_not_to_the_parser() -> None:
    argv = ["client", "0.1", "--ros-args", "-p", "x:=1", "--", "0.2", "--heading", "30"]
    args = parse_client_args(target_parser(), argv)
    assert (args.x, args.y, args.heading) == (0.1, 0.2, 30.0)


@pytest.mark.parametrize("message", [SolveIK.Request, MoveArm.Goal])
def test_fill_target_converts_degrees_to_a_tool_angle_and_defaults_z_to_the_plane(message) -> None:
    request = message()
    fill_from_command_line(request, ["c", "0.1", "-0.2"], plane_z=0.03)
    target = request.target
    position = target.pose.position
    assert (position.x, position.y, position.z) == (0.1, -0.2, 0.03)
    assert target.pose.orientation.w == 1.0
    assert target.header.frame_id == ""
    assert request.orientation_mode == message.POSITION_ONLY

    argv = ["c", "0.1", "0.2", "--z", "0.5", "--heading", "-120", "--frame", "base_link"]
    fill_from_command_line(request, argv, plane_z=0.03)
    assert target.pose.position.z == 0.5
    assert target.header.frame_id == "base_link"
    assert request.orientation_mode == message.TOOL_ANGLE
    assert request.tool_angle == pytest.approx(math.radians(-120))
    orientation = target.pose.orientation  # read only with FULL_ORIENTATION: left the identity
    assert (orientation.x, orientation.y, orientation.z, orientation.w) == (0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("given", "expected"), [("", "/"), ("/", "/"), ("arm1", "/arm1"), ("/arm1/", "/arm1")]
)
def test_the_clients_namespace_is_the_one_absolute_namespace(given: str, expected: str) -> None:
    # One rule for bringup and both clients (names.absolute_namespace); the clients' node in
    # that namespace resolves 'move_arm' to '/arm1/move_arm' or, without one, '/move_arm'.
    assert absolute_namespace(given) == expected


@pytest.mark.parametrize("client", ["ik_client", "move_arm"])
def test_a_client_refuses_an_invalid_namespace_before_it_starts_ros(client, capsys) -> None:
    from arm_kinematics.cli import ik_client, move_arm

    run = {"ik_client": ik_client.run, "move_arm": move_arm.run}[client]
    command = ["solve", "0.1", "0.0"] if client == "ik_client" else ["0.1", "0.0"]
    assert run([client, "--namespace", "left arm", *command]) == EXIT_BAD_COMMAND_LINE
    assert f"{client}: invalid namespace 'left arm'" in capsys.readouterr().err


def test_a_closed_pipe_ends_the_client_quietly() -> None:
    # What `ik_client ... | head -1` does: the reader leaves while the client still prints.
    script = (
        "from arm_kinematics.cli.common import client_main\n"
        "def run(argv):\n"
        "    for _ in range(100_000):\n"
        "        print('a line of output')\n"
        "    return 0\n"
        "client_main(run, ['client'])\n"
    )
    client = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert client.stdout is not None
    assert client.stdout.readline() == b"a line of output\n"
    client.stdout.close()
    _, stderr = client.communicate(timeout=60)
    assert client.returncode == EXIT_BROKEN_PIPE
    assert stderr == b""


def test_pitch_is_a_spatial_arms_name_for_the_tool_angle_and_excludes_heading(
    capsys: pytest.CaptureFixture,
) -> None:
    request = MoveArm.Goal()
    argv = ["c", "0.15", "0.05", "--z", "0.1", "--pitch", "-45"]
    fill_from_command_line(request, argv, plane_z=0.0, layout="spatial")
    assert request.target.pose.position.z == 0.1
    assert request.orientation_mode == MoveArm.Goal.TOOL_ANGLE
    assert request.tool_angle == pytest.approx(math.radians(-45))
    with pytest.raises(SystemExit) as exit_info:
        target_parser().parse_args(["0.1", "0.2", "--pitch", "10", "--heading", "20"])
    assert exit_info.value.code == EXIT_BAD_COMMAND_LINE
    assert "not allowed with argument" in capsys.readouterr().err
