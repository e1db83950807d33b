"""Every `ros2 ...` command of README.md and docs/ works as written (issue 26).

The commands are read from the documents themselves: code blocks (a `\\` continues a line) and
inline code, whatever starts with `ros2 ` and says more than a tool's name. ros2cli is not
installable here, so each is checked as what it does:

- `ros2 service call`, `ros2 action send_goal`, `ros2 topic pub`, `ros2 topic echo`: run
  through rclpy against the arm the document is about (the default arm; the desk kit for
  spatial_arms.md), the YAML parsed as ros2cli parses it (yaml.safe_load, then the fields:
  the bridge's `from_json`), in the document's order, each answered (a service), finished (a
  goal) or seen to take effect (a topic) before the next; it must succeed unless the document
  says what else it gives (`EXPECTED`);
- `ros2 launch arm_kinematics arm.launch.py`: every argument declared, its value one the
  launch file takes (a shipped config, a backend), and the launches of one code block each
  with its own namespace and page port;
- `ros2 run`: an installed console script with parameters the stack knows, or for
  robot_state_publisher and rviz2 the files and frames the line names;
- another package's launch (rosbridge_server): the page takes its `?bridge=` URL.

A command no rule recognises fails `test_every_documented_ros2_command_is_checked`.
"""

from __future__ import annotations

import re
import shlex
import shutil
import time
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
import yaml
from launch_file import LAUNCH_ARGUMENTS, console_scripts
from ros_helpers import (
    DEFAULT_TIMEOUT_S,
    PACKAGE_DIR,
    RosGraph,
    file_parameters,
    ros_graph,
    wait_for,
    wait_for_future,
)
from sensor_msgs.msg import JointState

from arm_kinematics.bridge.convert import from_json
from arm_kinematics.config import BACKENDS, ArmConfig, unknown_parameters
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient

REPOSITORY = PACKAGE_DIR.parent
DOCUMENTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
SHARE = "$(ros2 pkg prefix --share arm_kinematics)"
CONFIG_DIR = PACKAGE_DIR / "config"
#: The arm each document's commands talk to.
ARMS = {"spatial_arms.md": "arm_desk_kit.yaml", "jogging.md": "arm_desk_kit.yaml"}
DEFAULT_ARM = "arm.yaml"
#: What a command gives where it is not success: (document, a piece of the command) -> the
#: answer's `status` (SolveIK's TOO_FAR is 2), as the document says.
EXPECTED = {
    ("ik_node.md", "x: 0.3, y: 0.0}"): 2,  # "out of reach"
    ("ik_node.md", "x: [0.12, 0.13, 0.3]"): 2,  # the batch's last target is out of reach
}
#: A value written for the reader to fill in, not a value to check.
PLACEHOLDER = re.compile(r"\.\.\.|<.*>")
NAMESPACE = "/docs_arm"


@dataclass(frozen=True)
class Command:
    document: str
    block: int  # the code block it is in (-1: inline code)
    text: str

    @property
    def words(self) -> list[str]:
        text = re.sub(r"<[^>]*>", "<placeholder>", self.text.replace(SHARE, "SHARE"))
        return shlex.split(text, comments=True)

    def __str__(self) -> str:
        return f"{self.document}: {self.text}"


def _commands_of(path: Path) -> list[Command]:
    text = path.read_text()
    found: list[Command] = []
    blocks = re.split(r"^```.*$", text, flags=re.M)
    for index, block in enumerate(blocks):
        if index % 2 == 0:  # prose: inline code, and indented code lines
            for span in re.findall(r"`(ros2 [^`]+)`", block):
                found.append(Command(path.name, -1, " ".join(span.split())))
            for line in re.findall(r"^    (?:\$ )?(ros2 .*)$", block, flags=re.M):
                found.append(Command(path.name, -1, line.strip()))
            continue
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("ros2 "):
                found.append(Command(path.name, index, line))
    # A tool's name in prose (`ros2 param set`, `ros2 launch`) is not a command.
    return [c for c in found if len(c.text.split()) >= 4]


def documented_commands() -> list[Command]:
    return [command for path in DOCUMENTS for command in _commands_of(path)]


def _kind(command: Command) -> str | None:
    words = command.text.split()
    if words[1:3] in (["service", "call"], ["action", "send_goal"], ["topic", "pub"]):
        return "run"
    if words[1:3] == ["topic", "echo"]:
        return "run"
    if words[1:4] == ["launch", "arm_kinematics", "arm.launch.py"]:
        return "launch"
    if words[1] == "launch":
        return "other_launch"
    if words[1] == "run":
        return "ros2_run"
    return None


def test_every_documented_ros2_command_is_checked() -> None:
    commands = documented_commands()
    unchecked = [str(c) for c in commands if _kind(c) is None]
    assert unchecked == []
    kinds = {_kind(c) for c in commands}
    assert kinds == {"run", "launch", "other_launch", "ros2_run"}, kinds
    # The reader finds the commands the documents are known to hold.
    documents = {c.document for c in commands if _kind(c) == "run"}
    assert {"README.md", "calibration.md", "ik_node.md", "trajectory_node.md"} <= documents
    assert {"moveit.md", "spatial_arms.md", "hardware.md", "install.md"} <= documents


# --- ros2 launch and ros2 run: the values ---------------------------------------------------------


def _launch_arguments(command: Command) -> dict[str, str]:
    arguments = {}
    for word in command.words[4:]:
        name, separator, value = word.partition(":=")
        assert separator, f"{command}: {word!r} is not name:=value"
        arguments[name] = value
    return arguments


def _shipped(path: str, command: Command) -> Path:
    assert path.startswith("SHARE/config/"), f"{command}: {path} is not a shipped config"
    found = CONFIG_DIR / path.removeprefix("SHARE/config/")
    assert found.is_file(), f"{command}: {found} is not shipped"
    return found


@pytest.mark.parametrize(
    "document", sorted({c.document for c in documented_commands() if _kind(c) == "launch"})
)
def test_the_documented_launches_take_their_arguments_and_two_arms_get_two_ports(
    document: str,
) -> None:
    launches = [c for c in documented_commands() if c.document == document]
    by_block: dict[int, list[dict[str, str]]] = {}
    for command in (c for c in launches if _kind(c) == "launch"):
        arguments = _launch_arguments(command)
        assert set(arguments) <= LAUNCH_ARGUMENTS, command
        assert arguments.get("hardware", "sim") in BACKENDS, command
        for flag in ("rviz", "web"):
            assert arguments.get(flag, "false") in ("true", "false"), command
        config = arguments.get("config", "...")
        if not PLACEHOLDER.fullmatch(config):
            ArmConfig.from_file(_shipped(config, command))
        assert 0 <= int(arguments.get("web_port", "8080")) <= 65535, command
        if command.block >= 0:
            by_block.setdefault(command.block, []).append(arguments)
    for block in by_block.values():
        # Launched side by side: each arm its namespace, and each page its port.
        namespaces = [a.get("namespace", "") for a in block]
        ports = [a.get("web_port", "8080") for a in block if a.get("web", "true") == "true"]
        assert len(set(namespaces)) == len(namespaces), namespaces
        assert len(set(ports)) == len(ports), (document, ports)


def _ros_arguments(words: list[str]) -> tuple[list[str], dict[str, str]]:
    ros = words[words.index("--ros-args") + 1 :] if "--ros-args" in words else []
    overrides = dict(ros[i + 1].split(":=", 1) for i, w in enumerate(ros[:-1]) if w == "-p")
    return ros, overrides


def test_the_documented_ros2_run_lines_name_installed_scripts_and_known_parameters() -> None:
    scripts = console_scripts()
    runs = [c for c in documented_commands() if _kind(c) == "ros2_run"]
    assert {c.words[2] for c in runs} == {"arm_kinematics", "rviz2", "robot_state_publisher"}
    for command in runs:
        words = command.words
        package, executable = words[2], words[3]
        ros, overrides = _ros_arguments(words)
        if package == "arm_kinematics":
            assert executable in scripts, command
            assert unknown_parameters(overrides, ["shoulder", "elbow"]) == [], command
            assert overrides.get("hardware.backend", "sim") in BACKENDS, command
            if "--params-file" in ros:
                ArmConfig.from_file(_shipped(ros[ros.index("--params-file") + 1], command))
        elif package == "rviz2":
            rviz = words[words.index("-d") + 1]
            assert (PACKAGE_DIR / rviz.removeprefix("SHARE/")).is_file(), command
            namespace = ros[ros.index("-r") + 1].removeprefix("__ns:=/")
            assert words[words.index("-f") + 1] == f"{namespace}/base_link", command
        else:
            # robot_state_publisher takes the file that arm_description writes just before it
            # (test_description_cli.py runs that pair).
            assert (package, executable) == ("robot_state_publisher", "robot_state_publisher")
            text = (REPOSITORY / "docs" / command.document).read_text()
            written = re.search(r"arm_description .*-o (\S+)", text)
            assert written, command
            assert ros[ros.index("--params-file") + 1] == written.group(1), command


def test_another_package_s_launch_reaches_the_page_through_its_bridge_parameter() -> None:
    (command,) = [c for c in documented_commands() if _kind(c) == "other_launch"]
    assert command.words[2:4] == ["rosbridge_server", "rosbridge_websocket_launch.xml"]
    text = (REPOSITORY / "docs" / command.document).read_text()
    assert "?bridge=ws://localhost:9090" in text  # rosbridge_server's default port
    assert 'query.get("bridge")' in (PACKAGE_DIR / "web" / "app.js").read_text()


# --- the commands that talk to the arm, run ------------------------------------------------------


class Arm:
    """The hardware (sim), IK and trajectory nodes of one shipped arm in `NAMESPACE`."""

    def __init__(self, graph: RosGraph, config: str, tmp_path: Path) -> None:
        self.graph = graph
        self.config = ArmConfig.from_file(CONFIG_DIR / config)
        copy = tmp_path / config  # calibration/preview needs the file it would write beside
        shutil.copy(CONFIG_DIR / config, copy)
        parameters = file_parameters(copy, config_file=str(copy), **{"hardware.backend": "sim"})
        for node in (HardwareNode, IkNode, TrajectoryNode):
            graph.add(
                node(context=graph.context, namespace=NAMESPACE, parameter_overrides=parameters)
            )
        self.node = graph.node("docs_commands")
        self.joints: list[JointState] = []
        self.node.create_subscription(
            JointState, f"{NAMESPACE}/joint_states", self.joints.append, 50
        )
        wait_for(lambda: self.joints, what="joint_states")

    def name(self, documented: str) -> str:
        return documented if documented == "/diagnostics" else f"{NAMESPACE}{documented}"

    def positions(self, names: list[str]) -> list[float]:
        last = self.joints[-1]
        by_name = dict(zip(last.name, last.position, strict=True))
        return [by_name[name] for name in names]


def _interface(type_name: str) -> Any:
    package, kind, name = type_name.split("/")
    return getattr(import_module(f"{package}.{kind}"), name)


def _status(answer: Any) -> int:
    """0 for success, as each answer says it."""
    if hasattr(answer, "success"):
        return 0 if answer.success else 1
    if hasattr(answer, "error_code"):  # FollowJointTrajectory: 0 SUCCESSFUL
        return answer.error_code
    if hasattr(answer, "reached_goal"):  # GripperCommand
        return 0 if answer.reached_goal else 1
    return answer.status


def _echo(arm: Arm, command: Command) -> None:
    from diagnostic_msgs.msg import DiagnosticArray

    seen: list = []
    topic = command.words[3]
    arm.node.create_subscription(DiagnosticArray, arm.name(topic), seen.append, 10)
    wait_for(lambda: seen, what=f"a message on {topic}")
    assert any("hardware_node" in status.name for status in seen[0].status), command


def _jog(arm: Arm, publisher: Any, message: Any) -> None:
    """`ros2 topic pub -r 50` of a jog command: published every 20 ms until the arm moves."""
    names = list(arm.config.joint_names)
    before = arm.positions(names)
    deadline = time.monotonic() + DEFAULT_TIMEOUT_S
    while arm.positions(names) == before:
        assert time.monotonic() < deadline, f"the arm did not move for {message}"
        publisher.publish(message)
        time.sleep(0.02)  # the rate the command names


def _publish(arm: Arm, command: Command, interface: Any, message: Any, name: str) -> None:
    publisher = arm.node.create_publisher(interface, arm.name(name), 10)
    wait_for(lambda: publisher.get_subscription_count() > 0, what=f"a subscriber of {name}")
    if name.startswith("/servo_node/"):
        _jog(arm, publisher, message)
        return
    publisher.publish(message)
    if hasattr(message, "joint_names"):  # a joint trajectory: the arm ends at its last point
        names, target = list(message.joint_names), list(message.points[-1].positions)
        wait_for(
            lambda: arm.positions(names) == pytest.approx(target, abs=1e-6),
            what=f"{names} at {target}",
        )
        return
    chain = arm.config.make_arm()  # a clicked point: the tool ends there
    wait_for(
        lambda: (
            chain.forward(arm.positions(list(arm.config.joint_names)))[:2]
            == pytest.approx((message.point.x, message.point.y), abs=1e-6)
        ),
        what=f"the tool at {message.point}",
    )


def _run(arm: Arm, command: Command) -> None:
    words = command.words
    if words[1:3] == ["topic", "echo"]:
        _echo(arm, command)
        return
    rate = words.index("-r") if "-r" in words else len(words)
    words = words[:rate] + words[rate + 2 :]  # `-r 50`: _jog publishes at that rate
    name, type_name, *text = [w for w in words[3:] if w not in ("--feedback", "--once")]
    interface = _interface(type_name)
    data = yaml.safe_load(text[0]) if text else {}  # no YAML: the empty request
    if words[1] == "topic":
        _publish(arm, command, interface, from_json(interface, data), name)
        return
    if words[1] == "service":
        client = arm.node.create_client(interface, arm.name(name))
        answer = arm.graph.call(client, from_json(interface.Request, data))
    else:
        client = ActionClient(arm.node, interface, arm.name(name))
        wait_for(lambda: client.wait_for_server(timeout_sec=0.1), what=name)
        handle = wait_for_future(client.send_goal_async(from_json(interface.Goal, data)))
        assert handle.accepted, command
        answer = wait_for_future(handle.get_result_async(), 60.0).result
    pieces = [piece for document, piece in EXPECTED if document == command.document]
    expected = next((EXPECTED[command.document, p] for p in pieces if p in command.text), 0)
    assert _status(answer) == expected, (str(command), answer)


@pytest.mark.parametrize(
    "document", sorted({c.document for c in documented_commands() if _kind(c) == "run"})
)
def test_the_documented_calls_goals_and_messages_work_in_order(
    document: str, tmp_path: Path
) -> None:
    commands = [c for c in documented_commands() if c.document == document and _kind(c) == "run"]
    with ros_graph() as graph:
        arm = Arm(graph, ARMS.get(document, DEFAULT_ARM), tmp_path)
        for command in commands:
            _run(arm, command)
