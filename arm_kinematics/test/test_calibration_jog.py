"""Jogging servos in calibration mode, on the REAL ServoKit/PCA9685 code over the fake I2C bus:
the pulse widths in the PCA9685's registers follow the jog commands to one count, never beyond
the servo's physical range, never faster than the jog slew limit.

Driven through the calibration services with rclpy clients, as the page does through the
bridge. Every wait is for a condition (a register write, a state message).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import pytest
from calibration_helpers import CalibrationClient, write_planar_gripper
from fake_i2c import FakeI2C
from pip_only import require_servo_libraries
from ros_helpers import RosGraph, file_parameters, ros_graph, wait_for

from arm_kinematics.config import ArmConfig
from arm_kinematics.hardware import ServoKitBackend
from arm_kinematics.nodes.hardware_node import HardwareNode

pytestmark = pytest.mark.ros

JOG_SPEED = 40.0  # servo deg/s, below every joint's max velocity here
# Node clock and bus timestamps are read a little apart: a write may look this much early.
CLOCK_SLACK_S = 0.03


@pytest.fixture
def rig(tmp_path) -> Iterator[tuple[RosGraph, HardwareNode, FakeI2C, CalibrationClient]]:
    require_servo_libraries()
    path = write_planar_gripper(tmp_path)
    config = ArmConfig.from_file(path)
    bus = FakeI2C()
    backend = ServoKitBackend([j.servo for j in config.driven_joints], config.hardware, bus)
    parameters = file_parameters(
        path, **{"config_file": str(path), "calibration.jog_speed_deg_s": JOG_SPEED}
    )
    with ros_graph() as graph:
        node = graph.add(
            HardwareNode(
                backend,
                context=graph.context,
                parameter_overrides=parameters,
            )
        )
        client = CalibrationClient(graph)
        client.wait_active(False)
        yield graph, node, bus, client


def pulse_of(servo, degrees: float) -> float:
    """The pulse (us) a servo angle gets, written out here: linear over the pulse range."""
    return servo.min_pulse_us + degrees / servo.actuation_range_deg * (
        servo.max_pulse_us - servo.min_pulse_us
    )


def counts_off(bus: FakeI2C, channel: int, pulse_us: float) -> int:
    """How many 12-bit counts the channel's register is from the count nearest `pulse_us`."""
    on, off = bus.led_counts(channel)
    return abs(((off - on) % 4096) - round(pulse_us / bus.count_us))


def wait_pulse(client: CalibrationClient, bus: FakeI2C, joint: str, pulse_us: float) -> None:
    """Until the jog of `joint` has ended (calibration/state: the servo at its target, of
    `pulse_us`); then its register holds that pulse to one count."""

    def settled() -> bool:
        state = client.latest()
        servo = state and next(s for s in state.servos if s.joint == joint)
        return bool(
            servo
            and servo.servo_deg == servo.target_deg
            and servo.pulse_us == pytest.approx(pulse_us, abs=1e-6)
        )

    wait_for(settled, what=f"{joint} settled at {pulse_us:.1f} us")
    channel = next(s.channel for s in client.latest().servos if s.joint == joint)
    assert counts_off(bus, channel, pulse_us) <= 1


def channel_pulses(bus: FakeI2C, mark: int, channel: int) -> list[tuple[float, float]]:
    """(time s, pulse us) of every write to `channel` after `mark`, decoded from its bytes."""
    out = []
    base = 0x06 + 4 * channel
    for write in bus.writes_since(mark):
        if channel not in write.channels:
            continue
        registers = dict(zip(write.registers, write.data, strict=True))
        on = registers[base] | (registers[base + 1] & 0x1F) << 8
        off = registers[base + 2] | (registers[base + 3] & 0x1F) << 8
        out.append((write.time_s, ((off - on) % 4096) * bus.count_us))
    return out


def test_registers_follow_jogs_to_one_count_within_the_range_and_the_slew(rig) -> None:
    _graph, node, bus, client = rig
    gripper = node.servo_map.joints[2]
    servo = gripper.servo
    assert (servo.min_deg, servo.max_deg) == (40.0, 110.0)  # the file's travel, being found
    assert client.call("enter").success
    client.wait_active(True)
    assert counts_off(bus, servo.channel, pulse_of(servo, 100.0)) <= 1  # home 60 deg
    # Small steps in servo degrees: each lands in the register to one count.
    angle = 100.0
    for step in (0.5, 0.5, 1.0, -2.5, 5.0):
        angle += step
        answer = client.jog("gripper", step)
        assert answer.success, answer.message
        assert answer.target_deg == pytest.approx(angle)
        assert answer.target_pulse_us == pytest.approx(pulse_of(servo, angle))
        wait_pulse(client, bus, "gripper", pulse_of(servo, angle))
    # Past the file's travel (110), up to the servo's physical end (180): a long slewed jog.
    mark = bus.mark()
    began = bus.writes[-1].time_s
    answer = client.jog("gripper", 170.0, relative=False)
    assert answer.success, answer.message
    wait_pulse(client, bus, "gripper", pulse_of(servo, 170.0))
    pulses = channel_pulses(bus, mark, servo.channel)
    assert len(pulses) > 20  # a ramp, not a jump
    count_deg = bus.count_us / (servo.max_pulse_us - servo.min_pulse_us) * 180.0
    deg_per_us = servo.actuation_range_deg / (servo.max_pulse_us - servo.min_pulse_us)
    for (_, p0), (_, p1) in itertools.pairwise(pulses):
        assert p1 >= p0 - bus.count_us  # one way
    for i, (t0, p0) in enumerate(pulses):  # never faster than the slew limit, over any window
        for t1, p1 in pulses[i + 1 :: 5]:
            moved = abs(p1 - p0) * deg_per_us
            assert moved <= JOG_SPEED * (t1 - t0 + CLOCK_SLACK_S) + 2 * count_deg
    # The ramp took at least its distance at the slew limit.
    assert pulses[-1][0] - began >= (170.0 - angle) / JOG_SPEED - CLOCK_SLACK_S
    assert max(p for _, p in pulses) <= pulse_of(servo, 170.0) + 1.5 * bus.count_us
    # By pulse width: steps of 10 us, then a width in the middle.
    for width in (pulse_of(servo, 170.0) + 10, pulse_of(servo, 170.0) + 20):
        answer = client.jog("gripper", 10.0, pulse=True)
        assert answer.success, answer.message
        assert answer.target_pulse_us == pytest.approx(width)
        wait_pulse(client, bus, "gripper", width)
    assert client.jog("gripper", 2400.0, relative=False, pulse=True).success
    wait_pulse(client, bus, "gripper", 2400.0)
    # Beyond the servo's range: refused, the register unchanged.
    mark = bus.mark()
    for refused in (
        client.jog("gripper", 181.0, relative=False),
        client.jog("gripper", 200.0, pulse=True),  # 2600 us
        client.jog("gripper", 400.0, relative=False, pulse=True),
        client.jog("gripper", math.nan),
    ):
        assert not refused.success
        assert "nothing moved" in refused.message
    assert (
        "beyond the servo's range 0..180 deg (500..2500 us)"
        in client.jog("gripper", 181.0, relative=False).message
    )
    assert counts_off(bus, servo.channel, 2400.0) <= 1
    assert channel_pulses(bus, mark, servo.channel) == []
    # The state says where the servo is, its pulse and that it is driven.
    state = wait_for(
        lambda: (s := client.servo("gripper")).servo_deg == pytest.approx(171.0) and s,
        what="calibration/state at 171 deg",
    )
    assert state.pulse_us == pytest.approx(2400.0)
    assert state.driven
    assert state.channel == servo.channel
    # Other servos never moved.
    for other in node.servo_map.joints[:2]:
        home = other.servo_deg(other.home)
        assert counts_off(bus, other.servo.channel, pulse_of(other.servo, home)) <= 1


def test_release_all_stops_every_pulse_and_a_jog_drives_one_again(rig) -> None:
    _graph, node, bus, client = rig
    assert not client.call("release_all").success  # only in calibration mode
    assert client.call("enter").success
    answer = client.call("release_all")
    assert answer.success, answer.message
    for channel in node.servo_map.channels:
        assert bus.duty(channel) == 0.0  # full OFF: no pulses
    state = wait_for(
        lambda: (s := client.latest()) and not any(x.driven for x in s.servos) and s,
        what="every servo released in calibration/state",
    )
    assert state.active
    shoulder = node.servo_map.joints[0].servo
    assert client.jog("shoulder", 1.0).success  # from 90 deg, where it was released
    wait_pulse(client, bus, "shoulder", pulse_of(shoulder, 91.0))
    assert bus.duty(node.servo_map.channels[1]) == 0.0  # the others stay released
    # Leaving commands nothing: the released servos stay released, the shoulder holds.
    mark = bus.mark()
    assert client.call("leave").success
    client.wait_active(False)
    assert bus.pwm_writes_since(mark) == []
    assert counts_off(bus, shoulder.channel, pulse_of(shoulder, 91.0)) <= 1
