"""No leap at power-on: hardware_node remembers the last commanded pose across restarts and
commands it first (hardware/remembered_pose.py), through its topics and its file.

The servokit cases run the REAL ServoKit/PCA9685 code on the fake I2C bus (test/fake_i2c.py): a
fresh FakeI2C is a board that was powered off, and its first pulse widths are read from its
registers. conftest gives every test its own XDG_STATE_HOME (the default file's directory).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from arm_2r import HOME
from fake_i2c import FakeI2C
from hardware_probe import Probe, assert_pulses, servokit_on, start_node
from ros_helpers import RosGraph, ros_graph, wait_for

from arm_kinematics.hardware.remembered_pose import PoseFileError, read_pose, write_pose

pytestmark = pytest.mark.ros

D = math.radians
CHANNELS = (0, 1)


@pytest.fixture
def graph() -> Iterator[RosGraph]:
    with ros_graph() as graph:
        yield graph


def default_file(namespace: str = "", hardware_id: str = "sim") -> Path:
    parts = [p for p in namespace.split("/") if p]
    name = hardware_id.replace("@", "_").replace(":", "_") + ".json"
    return Path(os.environ["XDG_STATE_HOME"], "arm_kinematics", *parts, "hardware_node", name)


def saved_servo_deg(path: Path) -> list[float] | None:
    """The servo angles the pose file holds, None while there is none (or a damaged one)."""
    try:
        return [servo.servo_deg for servo in read_pose(path).servos]
    except (FileNotFoundError, PoseFileError):
        return None


class Console:
    """The lines the in-process nodes log to the console (stderr, captured by pytest's capfd):
    a start-up line is logged before a /rosout subscriber can have matched the new node, and
    /rosout's transient-local history does not reach every late joiner here."""

    def __init__(self, capfd) -> None:
        self._capfd = capfd
        self._text = ""

    def lines(self, text: str) -> list[str]:
        out, err = self._capfd.readouterr()
        self._text += out + err
        return [line for line in self._text.splitlines() if text in line]


def move_and_settle(graph: RosGraph, node, path: Path, **joints_deg: float) -> None:
    """Command a pose and wait until the node has saved it (the arm settled)."""
    probe = Probe(graph, namespace=node.get_namespace())
    probe.wait_connected()
    probe.send_deg(**joints_deg)
    target = tuple(D(v) for v in joints_deg.values())
    wait_for(lambda: node.positions == pytest.approx(target, abs=1e-12), what="the pose")
    angles = [pytest.approx(a) for a in node.servo_map.servo_angles(target)]
    wait_for(lambda: saved_servo_deg(path) == angles, what=f"the pose saved in {path}")


def test_after_a_restart_the_first_pulses_are_the_last_commanded_pose(
    graph: RosGraph, capfd
) -> None:
    console = Console(capfd)
    path = default_file(hardware_id="pca9685@i2c-1:0x40")
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    move_and_settle(graph, node, path, shoulder=30.0, elbow=-60.0)
    last = {channel: bus.led_counts(channel) for channel in CHANNELS}
    graph.remove(node)  # Ctrl-C: the servos are released (PWM off)
    assert all(bus.duty(channel) == 0.0 for channel in CHANNELS)

    board = FakeI2C()  # the board was powered off: power-on registers, outputs off
    node = start_node(graph, servokit_on(board))
    # One write per servo, and it is the pose they were left at: no leap.
    assert sorted(c for w in board.pwm_writes_since(0) for c in w.channels) == list(CHANNELS)
    assert {channel: board.led_counts(channel) for channel in CHANNELS} == last
    probe = Probe(graph)
    states = probe.joint_states.wait_for_more(10, "joint_states after the restart")
    assert tuple(states[-1].position) == pytest.approx((D(30.0), D(-60.0)), abs=1e-12)
    # It stays there: home is a move someone asks for.
    assert sorted(c for w in board.pwm_writes_since(0) for c in w.channels) == list(CHANNELS)
    line = wait_for(lambda: console.lines("start pose: the remembered pose"), what="the log")[0]
    assert line.startswith("[INFO]")
    assert str(path) in line
    assert "Home [0.0, 45.0] deg is a move like any other" in line
    probe.send_deg(shoulder=0.0, elbow=45.0)
    wait_for(lambda: node.positions == HOME, what="home, as a command")
    assert_pulses(board, HOME)


def test_two_arms_in_two_namespaces_remember_their_own_poses(graph: RosGraph) -> None:
    poses = {"left_arm": (20.0, 10.0), "right_arm": (-35.0, 70.0)}
    for namespace, (shoulder, elbow) in poses.items():
        node = graph.add(start_node_in(graph, namespace))
        move_and_settle(graph, node, default_file(namespace), shoulder=shoulder, elbow=elbow)
        graph.remove(node)
    for namespace, pose in poses.items():
        node = start_node_in(graph, namespace)
        assert node.positions == pytest.approx(tuple(D(q) for q in pose), abs=1e-12)


def start_node_in(graph: RosGraph, namespace: str):
    from arm_kinematics.nodes.hardware_node import HardwareNode

    return graph.add(HardwareNode(context=graph.context, namespace=namespace))


def test_a_corrupt_file_is_said_and_replaced_and_the_arm_goes_home(graph: RosGraph, capfd) -> None:
    console = Console(capfd)
    path = default_file(hardware_id="pca9685@i2c-1:0x40")
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "arm_kinematics remembered pose", "vers')  # cut by a power loss
    bus = FakeI2C()
    start_node(graph, servokit_on(bus))
    assert_pulses(bus, HOME)  # as without a remembered pose
    warning = wait_for(lambda: console.lines("is not used"), what="the warning")[0]
    assert warning.startswith("[WARN]")
    assert f"the remembered pose in {path} is not used: it cannot be read" in warning
    assert "the servos go to home [0.0, 45.0] deg" in warning
    # Standing at home, the arm has settled: home is the remembered pose now.
    home = [pytest.approx(a) for a in (90.0, 45.0)]
    wait_for(lambda: saved_servo_deg(path) == home, what="the file replaced")


def test_a_pose_outside_the_limits_now_is_not_commanded(graph: RosGraph, tmp_path, capfd) -> None:
    console = Console(capfd)
    path = tmp_path / "pose.json"
    overrides = {"hardware.pose_file": str(path)}
    node = start_node(graph, overrides=overrides)
    move_and_settle(graph, node, path, shoulder=80.0, elbow=0.0)
    graph.remove(node)
    narrower = {**overrides, "joints.shoulder.max_deg": 60.0}
    node = start_node(graph, overrides=narrower)
    assert node.positions == HOME
    warning = wait_for(lambda: console.lines("is not used"), what="the warning")[0]
    assert "is outside this arm's limits by its calibration: joint 'shoulder' = 1.39626" in warning


def test_a_calibration_saved_meanwhile_moves_no_servo(graph: RosGraph, capfd) -> None:
    console = Console(capfd)
    path = default_file(hardware_id="pca9685@i2c-1:0x40")
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    move_and_settle(graph, node, path, shoulder=20.0, elbow=45.0)  # the shoulder servo at 110
    last = bus.led_counts(0)
    graph.remove(node)
    # The shoulder's horn was put back mirrored, 10 degrees on: offset 100, sign -1.
    new_calibration = {
        "joints.shoulder.servo.offset_deg": 100.0,
        "joints.shoulder.servo.sign": -1,
        "joints.shoulder.min_deg": -80.0,
        "joints.shoulder.max_deg": 80.0,
    }
    board = FakeI2C()
    node = start_node(graph, servokit_on(board), new_calibration)
    assert board.led_counts(0) == last  # the servo got the angle it stood at
    assert node.positions == pytest.approx((D(-10.0), D(45.0)), abs=1e-12)  # by the new values
    line = wait_for(lambda: console.lines("the calibration changed since"), what="the log")[0]
    assert "shoulder was 20.00 deg, the same servo angle 110.00 is -10.00 deg now" in line


def test_with_remember_pose_off_nothing_is_read_or_written(graph: RosGraph, capfd) -> None:
    console = Console(capfd)
    path = default_file()
    write_pose_from_another_run(path)
    node = start_node(graph, overrides={"hardware.remember_pose": False})
    assert node.positions == HOME
    assert wait_for(lambda: console.lines("hardware.remember_pose is false"), what="the log")
    probe = Probe(graph)
    probe.wait_connected()
    probe.send_deg(shoulder=10.0, elbow=10.0)
    wait_for(lambda: node.positions == (D(10.0), D(10.0)), what="the command")
    before = path.read_text()
    graph.remove(node)
    assert path.read_text() == before  # untouched


def write_pose_from_another_run(path: Path) -> None:
    from arm_kinematics.config import ArmConfig
    from arm_kinematics.hardware import ServoMap
    from arm_kinematics.hardware.remembered_pose import Owner, SavedPose

    servo_map = ServoMap.from_config(ArmConfig.from_file())
    q = [D(5.0), D(5.0)]
    owner = Owner("/hardware_node", "sim")
    write_pose(path, SavedPose.of(servo_map, owner, servo_map.servo_angles(q), q))
    assert json.loads(path.read_text())["hardware_id"] == "sim"
