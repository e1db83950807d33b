"""`arm_description` and the robot_state_publisher line of docs/launch_and_bringup.md, parsed
by rcl.

The two lines are read from docs/launch_and_bringup.md itself: the `arm_description` line is
run, and the `--ros-args` of the robot_state_publisher line are handed to rclpy, whose parameter
overrides are rcl's own parser (the one that refused the old `-p robot_description:=...`).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
import rclpy
from ros_helpers import DEFAULT_CONFIG, PACKAGE_DIR, ros_graph

from arm_kinematics.cli.description import parameters_file, run
from arm_kinematics.description import robot_description
from arm_kinematics.nodes.bringup import RobotDescriptionPublisher

GUIDE = PACKAGE_DIR.parent / "docs" / "launch_and_bringup.md"


def guide_line(pattern: str) -> list[str]:
    """The words of the one line of the guide matching `pattern` (comments dropped)."""
    lines = [line for line in GUIDE.read_text().splitlines() if re.match(pattern, line)]
    assert len(lines) == 1, lines
    return shlex.split(lines[0].split(" #", 1)[0])


def arm_description(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run(["arm_description", *args])
    return code, out.getvalue()


def parameter_as_rcl_reads_it(ros_args: list[str], node_name: str, namespace: str) -> str:
    """robot_description as a node named `node_name` in `namespace` gets it from `ros_args`."""
    context = rclpy.Context()
    rclpy.init(args=["robot_state_publisher", *ros_args], context=context)
    try:
        node = rclpy.create_node(
            node_name,
            namespace=namespace,
            context=context,
            automatically_declare_parameters_from_overrides=True,
        )
        try:
            return node.get_parameter("robot_description").value
        finally:
            node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)


def test_the_urdf_has_what_broke_the_old_dash_p_line() -> None:
    urdf = robot_description(DEFAULT_CONFIG, "left_arm/")
    assert "<!--" in urdf
    assert ": " in urdf
    # What `-p robot_description:=...` met (rclpy raises rcl's error as a RuntimeError).
    with pytest.raises(RuntimeError, match="Couldn't parse parameter override rule"):
        parameter_as_rcl_reads_it(
            ["--ros-args", "-p", f"robot_description:={urdf}"], "robot_state_publisher", "/"
        )


def test_the_guide_lines_give_robot_state_publisher_the_latched_urdf(tmp_path: Path) -> None:
    writer = guide_line(r"arm_description --from-topic")
    assert writer[:1] == ["arm_description"]
    output = tmp_path / writer[writer.index("-o") + 1]
    writer[writer.index("-o") + 1] = str(output)
    reader = guide_line(r"ros2 run robot_state_publisher robot_state_publisher")
    ros_args = reader[reader.index("--ros-args") :]
    ros_args[ros_args.index("--params-file") + 1] = str(output)
    namespace = ros_args[ros_args.index("-r") + 1].split(":=")[1]

    latched = robot_description(DEFAULT_CONFIG, "left_arm/")
    with ros_graph() as graph:
        graph.add(RobotDescriptionPublisher(latched, context=graph.context, namespace=namespace))
        code, out = arm_description(*writer[1:], "--timeout", "30")
    assert code == 0, out
    # The namespace remap comes from the line; rcl matches `/**` to any node name.
    assert parameter_as_rcl_reads_it(ros_args, "robot_state_publisher", "/") == latched


def test_from_the_config_it_is_what_bringup_latches(tmp_path: Path) -> None:
    output = tmp_path / "description.yaml"
    code, out = arm_description("--namespace", "right_arm", "-o", str(output))
    assert code == 0, out
    expected = robot_description(DEFAULT_CONFIG, "right_arm/")
    args = ["--ros-args", "--params-file", str(output)]
    assert parameter_as_rcl_reads_it(args, "robot_state_publisher", "/right_arm") == expected
    assert "right_arm/base_link" in expected


def test_plain_urdf_and_clear_errors(tmp_path: Path) -> None:
    code, out = arm_description("--urdf", "--frame-prefix", "")
    assert code == 0
    assert out == robot_description(DEFAULT_CONFIG, "")
    code, out = arm_description("--config", str(tmp_path / "missing.yaml"))
    assert code == 1
    assert "missing.yaml" in out
    code, out = arm_description("--from-topic", "--namespace", "nobody_here", "--timeout", "0.5")
    assert code == 2
    assert "nothing on nobody_here robot_description within 0.5 s" in out


def test_the_file_keeps_any_text_exactly(tmp_path: Path) -> None:
    text = 'a: b # c\n  - "d"\n\\e: {f}\n'
    path = tmp_path / "tricky.yaml"
    path.write_text(parameters_file(text))
    args = ["--ros-args", "--params-file", str(path)]
    assert parameter_as_rcl_reads_it(args, "any_node", "/") == text
