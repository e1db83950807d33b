"""hardware_node for the spatial example arms: every servo (the gripper's too), parallelogram
servos, and the gripper action `gripper_controller/gripper_cmd`, through topics and an rclpy
action client as `ros2 action send_goal` (or MoveIt's gripper handle) would.

In-process nodes on `ros_graph()`; the servokit cases run the real ServoKit/PCA9685 code on the
fake I2C bus and read back the pulse widths. Every wait is for a condition.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from action_msgs.msg import GoalStatus
from desk_kit import CONFIG as KIT
from desk_kit import CONFIG_FILE as KIT_PATH
from fake_i2c import FakeI2C
from hardware_probe import GripperProbe, start_node_from_file
from pip_only import require_servo_libraries
from ros_helpers import (
    RosGraph,
    installed_executable,
    ros_graph,
    start_node_process,
    stop_process,
    wait_for,
)

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.hardware import ServoKitBackend
from arm_kinematics.nodes.hardware_node import HardwareNode

pytestmark = pytest.mark.ros

D = math.radians
MEARM_PATH = default_config_path("arm_mearm.yaml")
MEARM = ArmConfig.from_file(MEARM_PATH)


@pytest.fixture
def graph() -> Iterator[RosGraph]:
    with ros_graph() as graph:
        yield graph


# --- every servo, the gripper's too -------------------------------------------------------------


def test_the_desk_kit_drives_six_servos_and_names_them_in_joint_states(graph: RosGraph) -> None:
    require_servo_libraries()
    bus = FakeI2C()
    servos = [j.servo for j in KIT.driven_joints]
    node = start_node_from_file(graph, KIT_PATH, ServoKitBackend(servos, KIT.hardware, bus))
    probe = GripperProbe(graph)
    names = ["base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll", "gripper"]
    assert list(probe.states[-1].name) == names
    home = dict(zip(names, (*KIT.home, D(70)), strict=True))
    assert probe.latest() == pytest.approx(home, abs=1e-12)
    # Home on the board: servo angles 90, 100, 110, 90, 90, 110 (pulse 500 + deg / 180 * 2000).
    for channel, degrees in enumerate((90, 100, 110, 90, 90, 110)):
        assert bus.pulse_us(channel) == pytest.approx(500 + degrees / 180 * 2000, abs=bus.count_us)
    # The gripper alone: the arm's joints keep their targets.
    probe.send_deg(gripper=35.0)
    wait_for(lambda: node.positions[-1] == D(35), what="the gripper at 35 deg")
    assert node.positions[:5] == KIT.home
    assert bus.pulse_us(5) == pytest.approx(500 + 75 / 180 * 2000, abs=bus.count_us)
    # The arm alone: the gripper keeps its angle.
    probe.send_deg(base_yaw=20, shoulder=80, elbow=-70, wrist_pitch=-10, wrist_roll=30)
    target = (D(20), D(80), D(-70), D(-10), D(30), D(35))
    wait_for(lambda: node.positions == pytest.approx(target, abs=1e-12), what="the arm there")
    assert bus.pulse_us(4) == pytest.approx(500 + 120 / 180 * 2000, abs=bus.count_us)
    wait_for(lambda: probe.latest()["wrist_roll"] == pytest.approx(D(30)), what="joint_states")
    assert probe.latest()["gripper"] == pytest.approx(D(35))


def test_a_command_that_sets_part_of_the_arm_is_refused(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH)
    probe = GripperProbe(graph)
    probe.send_deg(shoulder=60.0, gripper=10.0)
    wait_for(lambda: node.counters.commands_rejected == 1, what="the rejection")
    assert node.targets == (*KIT.home, D(70))
    warning = wait_for(lambda: probe.logged("joint_commands rejected"), what="the warning")[0]
    assert "joint 'base_yaw' is missing: a command must set every joint of the arm" in warning
    assert "or the gripper's alone" in warning


# --- parallelogram servos -----------------------------------------------------------------------


def test_parallelogram_elbow_servo_follows_shoulder_plus_elbow(graph: RosGraph) -> None:
    require_servo_libraries()
    bus = FakeI2C()
    servos = [j.servo for j in MEARM.driven_joints]
    node = start_node_from_file(graph, MEARM_PATH, ServoKitBackend(servos, MEARM.hardware, bus))
    probe = GripperProbe(graph)

    def elbow_servo_at(degrees: float) -> bool:  # within one PCA9685 count
        return bus.pulse_us(2) == pytest.approx(500 + degrees / 180 * 2000, abs=bus.count_us)

    assert elbow_servo_at(90.0)  # home: forearm level
    # Shoulder 30, elbow -50: the forearm at -20, the elbow servo at 90 + (30 - 50) = 70 deg.
    probe.send_deg(base=0, shoulder=30, elbow=-50)
    wait_for(lambda: node.positions[:3] == (0.0, D(30), D(-50)), what="the arm there")
    assert elbow_servo_at(70.0)
    # The shoulder alone turns by 40: the elbow joint stays, its servo turns with the forearm.
    probe.send_deg(base=0, shoulder=70, elbow=-50)
    wait_for(lambda: node.positions[1] == D(70), what="the shoulder at 70")
    assert elbow_servo_at(110.0)
    # Past the servo's travel (forearm 70 deg up: servo 160 > 135): refused, nothing moves.
    mark = bus.mark()
    probe.send_deg(base=0, shoulder=90, elbow=-20)
    wait_for(lambda: node.counters.commands_rejected == 1, what="the rejection")
    assert bus.pwm_writes_since(mark) == []
    warning = wait_for(lambda: probe.logged("joint_commands rejected"), what="the warning")[0]
    assert "puts its link at 70 deg (shoulder + elbow)" in warning


def test_the_ramp_keeps_a_parallelogram_servo_within_its_travel(graph: RosGraph) -> None:
    # A slow elbow: slewing each joint at its own speed from (135, -150) to (0, -20) would
    # turn the shoulder down in 1.1 s while the elbow has risen only 45 deg: the forearm at
    # -105 deg, far past the servo's -60. On the straight line it goes from -15 to -20.
    overrides = {"joints.elbow.max_velocity_deg_s": 40.0}
    node = start_node_from_file(graph, MEARM_PATH, **overrides)
    probe = GripperProbe(graph)
    probe.send_deg(base=0, shoulder=135, elbow=-150)
    wait_for(lambda: node.positions[1:3] == (D(135), D(-150)), timeout=60, what="the start")
    before = probe.count()
    probe.send_deg(base=0, shoulder=0, elbow=-20)
    wait_for(lambda: node.positions[1:3] == (D(0), D(-20)), timeout=60, what="the end")
    with probe.lock:
        samples = [dict(zip(m.name, m.position, strict=True)) for m in probe.states[before:]]
    assert len(samples) > 50  # 130 deg at 40 deg/s: over 3 s at 50 Hz
    for sample in samples:
        forearm = math.degrees(sample["shoulder"] + sample["elbow"])
        assert -60.0 - 1e-6 <= forearm <= 45.0 + 1e-6
        # On the line: the shoulder's share of its way equals the elbow's.
        shoulder_done = (135 - math.degrees(sample["shoulder"])) / 135
        elbow_done = (math.degrees(sample["elbow"]) + 150) / 130
        assert shoulder_done == pytest.approx(elbow_done, abs=1e-6)


# --- the gripper action -------------------------------------------------------------------------


def test_gripper_goals_close_and_open_in_joint_states(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH)
    probe = GripperProbe(graph)
    assert probe.latest()["gripper"] == pytest.approx(D(70))  # home: open
    feedback: list[Any] = []
    handle = probe.send_gripper(0.0, feedback=lambda m: feedback.append(m.feedback))
    assert handle.accepted
    answer = probe.result(handle)
    assert answer.status == GoalStatus.STATUS_SUCCEEDED
    assert answer.result.reached_goal
    assert not answer.result.stalled
    assert answer.result.position == pytest.approx(0.0, abs=0.055 / 70)  # within 1 deg
    assert answer.result.effort == 0.0
    wait_for(lambda: probe.latest()["gripper"] == pytest.approx(0.0, abs=1e-12), what="closed")
    assert node.positions[:5] == KIT.home  # the arm did not move
    # 70 deg at 120 deg/s: about 0.6 s, feedback at up to 10 Hz on the way, closing.
    assert feedback
    openings = [f.position for f in feedback]
    assert openings == sorted(openings, reverse=True)
    assert all(0.0 <= f.position <= 0.055 and f.effort == 0.0 for f in feedback)
    assert not any(f.reached_goal or f.stalled for f in feedback)
    # Open halfway: 0.0275 m between the fingers is the joint at 35 deg.
    answer = probe.result(probe.send_gripper(0.0275))
    assert answer.status == GoalStatus.STATUS_SUCCEEDED
    wait_for(lambda: probe.latest()["gripper"] == pytest.approx(D(35), abs=1e-9), what="35 deg")
    assert wait_for(lambda: probe.logged("gripper goal reached"), what="the log line")


def test_a_gripper_goal_outside_its_range_is_rejected(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH)
    probe = GripperProbe(graph)
    for position in (0.08, -0.001, math.nan):
        assert not probe.send_gripper(position).accepted
    assert node.targets[-1] == D(70)
    warnings = wait_for(lambda: probe.logged("gripper goal rejected"), what="the warnings")
    assert "position 0.08 is outside the gripper's range [0, 0.055] m between" in warnings[0]


def test_a_gripper_that_stops_on_an_object_ends_stalled(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH)
    probe = GripperProbe(graph)
    # An object between the fingers: the gripper servo (offset 40) stops at 70 servo deg, the
    # joint at 30 deg, 0.0236 m open.
    node.backend.block(5, 70.0)
    started = node.get_clock().now().nanoseconds * 1e-9
    answer = probe.result(probe.send_gripper(0.0))
    ended = node.get_clock().now().nanoseconds * 1e-9
    assert answer.status == GoalStatus.STATUS_ABORTED
    assert answer.result.stalled
    assert not answer.result.reached_goal
    assert answer.result.position == pytest.approx(0.055 * 30 / 70, abs=1e-9)
    # Not before the ramp (70 deg at 120 deg/s) plus reach_timeout_s (1 s).
    assert ended - started >= 70 / 120 + 1.0
    assert probe.latest()["gripper"] == pytest.approx(D(30), abs=1e-9)
    assert node.targets[-1] == 0.0  # it keeps pressing, as ros2_control's controller does
    warning = wait_for(lambda: probe.logged("gripper goal stalled"), what="the warning")[0]
    assert "the fingers stopped on something" in warning
    # Relieved: open a little, then the object is taken away and the gripper closes.
    assert probe.result(probe.send_gripper(0.03)).status == GoalStatus.STATUS_SUCCEEDED
    node.backend.unblock(5)
    assert probe.result(probe.send_gripper(0.0)).result.reached_goal


def test_cancel_stops_the_gripper_where_it_is(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH, **{"joints.gripper.max_velocity_deg_s": 10.0})
    probe = GripperProbe(graph)
    moving = threading.Event()
    handle = probe.send_gripper(0.0, feedback=lambda _m: moving.set())
    wait_for(moving.is_set, what="feedback")
    wait_for(lambda: probe.latest()["gripper"] < D(69), what="the gripper closing")
    handle.cancel_goal_async()
    answer = probe.result(handle)
    assert answer.status == GoalStatus.STATUS_CANCELED
    assert not answer.result.reached_goal
    held = node.positions[-1]
    assert D(0) < held < D(69)
    assert node.targets[-1] == held  # stopped, not heading on
    assert answer.result.position == pytest.approx(0.055 * held / D(70), abs=1e-9)


def test_a_new_gripper_goal_replaces_the_running_one(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH, **{"joints.gripper.max_velocity_deg_s": 10.0})
    probe = GripperProbe(graph)
    first = probe.send_gripper(0.0)
    wait_for(lambda: probe.latest()["gripper"] < D(69), what="the gripper closing")
    second = probe.send_gripper(0.055)
    replaced = probe.result(first)
    assert replaced.status == GoalStatus.STATUS_ABORTED
    assert not replaced.result.reached_goal
    assert not replaced.result.stalled
    answer = probe.result(second)
    assert answer.status == GoalStatus.STATUS_SUCCEEDED
    assert answer.result.position == pytest.approx(0.055, abs=0.055 / 70)  # within 1 deg
    wait_for(lambda: node.positions[-1] == D(70), what="fully open")
    assert probe.logged("a newer gripper goal replaced it")


def test_a_joint_command_for_the_gripper_ends_its_goal(graph: RosGraph) -> None:
    node = start_node_from_file(graph, KIT_PATH, **{"joints.gripper.max_velocity_deg_s": 10.0})
    probe = GripperProbe(graph)
    handle = probe.send_gripper(0.0)
    wait_for(lambda: probe.latest()["gripper"] < D(69), what="the gripper closing")
    probe.send_deg(gripper=60.0)
    answer = probe.result(handle)
    assert answer.status == GoalStatus.STATUS_ABORTED
    wait_for(lambda: node.positions[-1] == D(60), what="the commanded 60 deg")


def test_moveit_gripper_goals_close_and_open_with_the_joint_angle(graph: RosGraph) -> None:
    # MoveIt's GripperCommand handle sends the gripper joint's angle (rad) from the last point of
    # its trajectory, and max_effort from the controller's config: with angle_rad it is that.
    node = start_node_from_file(graph, KIT_PATH, **{"gripper.position_unit": "angle_rad"})
    probe = GripperProbe(graph)
    for angle_deg in (0.0, 70.0):  # closed, then open
        answer = probe.result(probe.send_gripper(D(angle_deg), max_effort=10.0))
        assert answer.status == GoalStatus.STATUS_SUCCEEDED
        assert answer.result.reached_goal
        assert not answer.result.stalled
        assert answer.result.position == pytest.approx(D(angle_deg), abs=D(1.0))
        wait_for(lambda a=angle_deg: node.positions[-1] == D(a), what=f"{angle_deg} deg")
    assert not probe.send_gripper(D(75.0)).accepted  # beyond open_deg: rejected, not clamped
    assert node.targets[-1] == D(70.0)


def test_max_effort_is_accepted_and_said_not_to_apply(graph: RosGraph) -> None:
    start_node_from_file(graph, MEARM_PATH)  # the claw: goals are its joint angle in radians
    probe = GripperProbe(graph)
    answer = probe.result(probe.send_gripper(D(20), max_effort=5.0))
    assert answer.status == GoalStatus.STATUS_SUCCEEDED
    assert answer.result.position == pytest.approx(D(20), abs=D(1))
    assert answer.result.effort == 0.0
    line = wait_for(lambda: probe.logged("gripper goal: 0.349"), what="the goal's log line")[0]
    assert "max_effort 5 not applied (no effort control)" in line
    assert probe.logged("max_effort is accepted but not applied")  # said at start-up too


# --- the installed executable on each shipped file -----------------------------------------------


@pytest.mark.parametrize(
    "name", ["arm_desk_kit.yaml", "arm_mearm.yaml", "arm_openmanipulator_x.yaml"]
)
def test_hardware_node_runs_each_shipped_spatial_file_on_sim(graph: RosGraph, name: str) -> None:
    path = default_config_path(name)
    config = ArmConfig.from_file(path)
    process = start_node_process(
        installed_executable("hardware_node"), "--ros-args", "--params-file", str(path)
    )
    try:
        probe = GripperProbe(graph)
        assert list(probe.states[-1].name) == [j.name for j in config.driven_joints]
        home = [j.home for j in config.driven_joints]
        assert list(probe.states[-1].position) == pytest.approx(home, abs=1e-12)
        answer = probe.result(probe.send_gripper(config.gripper.closed_position))
        assert answer.status == GoalStatus.STATUS_SUCCEEDED
    finally:
        code, output = stop_process(process)
    assert code == 0, output
    assert "backend sim" in output
    assert "Traceback" not in output


def test_the_spatial_and_gripper_parameters_are_declared_read_only(graph: RosGraph) -> None:
    node = start_node_from_file(graph, MEARM_PATH)
    expected = {
        "layout": "spatial",
        "spatial.shoulder_height_m": 0.055,
        "spatial.wrist_roll": False,
        "spatial.link_angle_offsets_deg": [0.0, 0.0],
        "gripper.joint": "claw",
        "gripper.position_unit": "angle_rad",
        "gripper.open_deg": 60.0,
        "joints.elbow.servo.linkage": "parallelogram",
        "joints.claw.servo.channel": 3,
    }
    for name, value in expected.items():
        assert node.get_parameter(name).value == value, name
        descriptor = node.describe_parameter(name)
        assert descriptor.read_only, name
        assert descriptor.description, name
    # A spatial arm declares no plane (the file has none), a planar one no spatial keys.
    assert not node.has_parameter("plane_z_m") or node.get_parameter("plane_z_m").value is None
    planar = graph.add(HardwareNode(context=graph.context, namespace="planar"))
    assert planar.get_parameter("layout").value == "planar"
    assert not planar.has_parameter("spatial.shoulder_height_m")
    assert planar.get_parameter("gripper.joint").value == ""
