"""hardware_node through its topics, as the trajectory node, RViz and `ros2 topic` see it.

In-process nodes on `ros_graph()`; the servokit cases run the REAL ServoKit/PCA9685 code on the
fake I2C bus (test/fake_i2c.py) and read back the pulse widths the servos would receive. Every
wait is for a condition; timing claims are checked against the stamps of `joint_states`.
"""

from __future__ import annotations

import itertools
import math
import statistics
import subprocess
from collections.abc import Iterator

import pytest
from arm_2r import CONFIG, HOME, NAMES
from diagnostic_msgs.msg import DiagnosticStatus
from fake_i2c import FakeI2C
from hardware_probe import Probe, assert_pulses, servokit_on, start_node
from pip_only import require_servo_libraries
from rcl_interfaces.msg import Log
from ros_helpers import (
    RosGraph,
    installed_executable,
    ros_graph,
    start_node_process,
    stop_process,
    wait_for,
)
from sensor_msgs.msg import JointState

from arm_kinematics.nodes.hardware_node import HardwareNode

pytestmark = pytest.mark.ros

SPEED = CONFIG.joints[0].max_velocity  # rad/s, the shoulder's slew limit


@pytest.fixture
def graph() -> Iterator[RosGraph]:
    with ros_graph() as graph:
        yield graph


def stamp_s(msg: JointState) -> float:
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


# --- start-up and joint_states ------------------------------------------------------------------


def test_starts_at_home_with_joint_states_robot_state_publisher_can_use(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    # Home is on the board before anything else happens (elbow home 45 deg, mirrored: 1000 us).
    assert_pulses(bus, HOME)
    assert bus.pulse_us(1) == pytest.approx(1000.0, abs=bus.count_us)
    probe = Probe(graph)
    messages = probe.joint_states.wait_for_more(10, "joint_states")
    now = node.get_clock().now().nanoseconds * 1e-9
    for msg in messages:
        assert list(msg.name) == NAMES  # the URDF joint names
        assert len(msg.position) == len(msg.name)
        assert len(msg.velocity) in (0, len(msg.name))
        assert len(msg.effort) in (0, len(msg.name))
        assert tuple(msg.position) == pytest.approx(HOME, abs=1e-12)
    stamps = [stamp_s(msg) for msg in messages]
    assert stamps == sorted(stamps)
    assert 0.0 <= now - stamps[-1] < 1.0  # current, in the node clock
    assert node.counters.commands_accepted == 0


def test_publish_rate_parameter_sets_the_joint_states_rate(graph: RosGraph) -> None:
    start_node(graph, overrides={"hardware.publish_rate_hz": 10.0})
    probe = Probe(graph)
    messages = probe.joint_states.wait_for_more(8, "joint_states")
    periods = [stamp_s(b) - stamp_s(a) for a, b in itertools.pairwise(messages)]
    assert statistics.median(periods) == pytest.approx(0.1, rel=0.3)


# --- commands -----------------------------------------------------------------------------------


def test_command_ends_as_calibrated_pulses_on_the_board(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    probe = Probe(graph)
    probe.wait_connected()
    # Names in the other order than the config: matched by name.
    probe.send_deg(elbow=-60.0, shoulder=30.0)
    target = (math.radians(30.0), math.radians(-60.0))
    wait_for(lambda: node.positions == target, what="the servos at the command")
    assert_pulses(bus, target)
    # Mirrored elbow: a negative joint angle is a servo angle above the middle (150 deg).
    assert bus.pulse_us(1) == pytest.approx(500 + 150 / 180 * 2000, abs=bus.count_us)
    last = probe.joint_states.wait_for_more(1, "joint_states")[-1]
    assert tuple(last.position) == pytest.approx(target, abs=1e-12)
    assert node.counters.commands_accepted == 1


BAD_COMMANDS = [
    (["shoulder", "elbow"], [0.0, math.nan], "joint 'elbow' = nan"),
    (["shoulder", "elbow"], [math.inf, 0.0], "joint 'shoulder' = inf"),
    (["shoulder", "elbow"], [0.0, math.radians(100.0)], "joint 'elbow' = 1.74533 rad (100 deg)"),
    (["shoulder", "elbow"], [math.radians(-95.0), 0.0], "joint 'shoulder' = -1.65806 rad"),
    (["shoulder", "elbow", "wrist"], [0.1, 0.1, 0.1], "unknown joint 'wrist'"),
    (["shoulder"], [0.1], "joint 'elbow' is missing"),
    (["shoulder", "shoulder", "elbow"], [0.1, 0.2, 0.1], "joint 'shoulder' is given twice"),
    (["shoulder", "elbow"], [0.1], "2 joint names but 1 positions"),
]


def test_rejected_command_moves_nothing_and_says_why(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    probe = Probe(graph)
    probe.wait_connected()
    for count, (names, positions, reason) in enumerate(BAD_COMMANDS, start=1):
        mark = bus.mark()
        probe.send(names, positions)
        wait_for(lambda c=count: node.counters.commands_rejected == c, what=f"rejection: {reason}")
        probe.joint_states.wait_for_more(3, "joint_states after the rejection")
        assert bus.pwm_writes_since(mark) == [], reason  # no channel written at all
        assert node.targets == pytest.approx(HOME, abs=0.0)
        assert node.positions == pytest.approx(HOME, abs=0.0)
    assert node.counters.commands_accepted == 0
    assert_pulses(bus, HOME)
    # The first warning (later ones are throttled) names the joint and the value.
    warning = wait_for(
        lambda: [
            log
            for log in probe.rosout.messages
            if log.name == "hardware_node" and "rejected" in log.msg
        ],
        what="the rejection warning on /rosout",
    )[0]
    assert warning.level == Log.WARN
    assert "joint 'elbow' = nan" in warning.msg
    assert "no servo moved" in warning.msg
    # Still at work: a good command after all that is carried out.
    probe.send_deg(shoulder=10.0, elbow=20.0)
    wait_for(lambda: node.counters.commands_accepted == 1, what="the good command accepted")


def test_sim_ramps_a_jump_at_the_servo_speed_and_stops_on_the_command(graph: RosGraph) -> None:
    node = start_node(graph)  # the default file's backend: sim
    assert node.backend.name == "sim"
    probe = Probe(graph)
    probe.wait_connected()
    target = math.radians(90.0)  # a 90-degree jump of the shoulder (home 0)
    probe.send(["shoulder", "elbow"], [target, HOME[1]])
    wait_for(lambda: node.positions[0] == target, what="the shoulder at 90 degrees")
    samples = [
        (stamp_s(m), m.position[0], m.position[1])
        for m in probe.joint_states.wait_for_more(5, "joint_states at rest")
    ]
    # Position against stamp, never wall-clock sleeps.
    last_at_start = max(i for i, s in enumerate(samples) if s[1] == 0.0)
    first_at_target = min(i for i, s in enumerate(samples) if s[1] == target)
    ramp_s = samples[first_at_target][0] - samples[last_at_start][0]
    assert ramp_s >= target / SPEED - 1e-5  # 90 deg at 120 deg/s: at least 0.75 s
    speeds = []
    for (t0, p0, _), (t1, p1, _) in itertools.pairwise(samples):
        assert p1 >= p0  # straight toward the command, no overshoot
        # Never faster than the servo speed (1e-5 s: float rounding of the stamps).
        assert p1 - p0 <= SPEED * (t1 - t0 + 1e-5)
        if 0.0 < p1 < target and p0 > 0.0:
            speeds.append((p1 - p0) / (t1 - t0))
    # ... and at the servo speed (not slower) while it moves.
    assert statistics.median(speeds) == pytest.approx(SPEED, rel=0.05)
    # Stops on it: every later sample exactly at the target, the elbow never moved.
    assert all(s[1] == target for s in samples[first_at_target:])
    assert all(s[2] == HOME[1] for s in samples)


# --- faults -------------------------------------------------------------------------------------


def test_bus_fault_is_reported_refuses_commands_and_recovers(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    probe = Probe(graph)
    probe.wait_connected()
    probe.wait_status(DiagnosticStatus.OK, fault="false", backend="servokit")

    bus.fail()
    probe.send_deg(shoulder=40.0, elbow=45.0)
    wait_for(lambda: node.faulted, what="the fault state")
    status = probe.wait_status(DiagnosticStatus.ERROR, fault="true")
    values = {kv.key: kv.value for kv in status.values}
    assert status.hardware_id == "pca9685@i2c-1:0x40"
    assert "Remote I/O error" in values["last_error"]
    assert "Remote I/O error" in status.message
    assert int(values["write_errors"]) >= 2  # the write and its immediate retry
    held = node.positions
    assert held[0] < math.radians(40.0)  # stopped where the last write succeeded

    probe.send_deg(shoulder=-20.0, elbow=45.0)
    wait_for(lambda: node.counters.commands_refused == 1, what="the refused command")
    # Alive and reporting the last known positions while faulted.
    for msg in probe.joint_states.wait_for_more(10, "joint_states while faulted")[-10:]:
        assert tuple(msg.position) == held
    assert node.targets == held

    bus.heal(power_cycle=True)  # the board browned out meanwhile: asleep, outputs off
    wait_for(lambda: not node.faulted, what="recovery")
    probe.wait_status(DiagnosticStatus.OK, fault="false", recoveries="1")
    assert node.counters.retries >= 2
    assert bus.prescale == 121
    assert not bus.asleep
    assert_pulses(bus, held)  # the last known positions are back on the board

    probe.send_deg(shoulder=-20.0, elbow=45.0)
    target = (math.radians(-20.0), HOME[1])
    wait_for(lambda: node.positions == target, what="the command after recovery")
    assert_pulses(bus, target)


def test_board_reset_while_idle_is_noticed_and_repaired(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    probe = Probe(graph)
    probe.wait_connected()
    bus.power_cycle()  # no write failed: only the periodic check can see it
    assert bus.pulse_us(0) == 0.0
    status = probe.wait_status(DiagnosticStatus.ERROR, fault="true")
    assert "board was reset" in status.message
    probe.wait_status(DiagnosticStatus.OK, fault="false", recoveries="1")
    assert_pulses(bus, HOME)
    assert node.positions == HOME


# --- shutdown, namespaces, start-up errors ------------------------------------------------------


def test_close_releases_the_servos(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus))
    probe = Probe(graph)
    probe.wait_connected()
    assert bus.pulse_us(0) > 0.0
    assert bus.pulse_us(1) > 0.0
    mark = bus.mark()
    node.close()
    assert sorted(c for w in bus.pwm_writes_since(mark) for c in w.channels) == [0, 1]
    assert all(bus.duty(channel) == 0.0 for channel in range(16))


def test_close_holds_the_servos_when_configured(graph: RosGraph) -> None:
    bus = FakeI2C()
    node = start_node(graph, servokit_on(bus), {"hardware.on_shutdown": "hold"})
    Probe(graph).wait_connected()
    mark = bus.mark()
    graph.remove(node)  # destroy_node closes too
    assert bus.writes_since(mark) == []
    assert_pulses(bus, HOME)


def test_namespace_moves_the_topics_but_not_diagnostics(graph: RosGraph) -> None:
    node = graph.add(HardwareNode(context=graph.context, namespace="arm1"))
    probe = Probe(graph, namespace="arm1")
    probe.wait_connected()
    assert probe.joint_states.messages  # /arm1/joint_states
    status = probe.wait_status(DiagnosticStatus.OK)
    assert status.name == "/arm1/hardware_node: servos"
    probe.send_deg(shoulder=5.0, elbow=5.0)
    wait_for(lambda: node.counters.commands_accepted == 1, what="/arm1/joint_commands")


def test_ctrl_c_releases_the_servos_and_exits_cleanly(graph: RosGraph) -> None:
    process = start_node_process(installed_executable("hardware_node"))
    try:
        Probe(graph).joint_states.wait_for_more(1, "joint_states from the process")
    finally:
        code, output = stop_process(process)  # SIGINT to its process group, like Ctrl-C
    assert code == 0, output
    assert "servos released (PWM off)" in output
    assert "Traceback" not in output
    assert "never retrieved" not in output  # no callback outlived the executor


def run_to_exit(*ros_args: str) -> tuple[int, str]:
    """Run the hardware_node executable with `--ros-args ros_args` until it exits by itself;
    its exit code and its output (stdout and stderr)."""
    result = subprocess.run(
        [installed_executable("hardware_node"), "--ros-args", *ros_args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result.returncode, (result.stdout + result.stderr).strip()


def test_servokit_without_a_board_exits_with_one_clear_line() -> None:
    require_servo_libraries()
    code, output = run_to_exit("-p", "hardware.backend:=servokit", "-p", "hardware.i2c_bus:=97")
    assert code == 1, output
    lines = output.splitlines()
    assert len(lines) == 1, output
    assert "FATAL" in lines[0]
    assert "/dev/i2c-97" in lines[0]
    assert "hardware.i2c_bus=97" in lines[0]
    assert "hardware.backend:=sim" in lines[0]  # the hint; it never falls back by itself


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("joints.elbow.servo.channel:=0", "'joints.elbow.servo.channel' = 0"),
        ("joints.elbow.servo.sign:=2", "'joints.elbow.servo.sign' = 2"),
        ("joints.elbow.max_deg:=120.0", "'joints.elbow.max_deg' = 120.0"),
    ],
)
def test_bad_calibration_stops_the_node_naming_joint_and_field(override: str, named: str) -> None:
    code, output = run_to_exit("-p", override)
    assert code == 2, output
    assert named in output
    assert "Traceback" not in output
