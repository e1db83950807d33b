"""The backends. servokit: the REAL adafruit ServoKit/PCA9685 code on a fake I2C bus.

The fake bus decodes what the driver wrote into the PCA9685 (PRE_SCALE, LEDn_ON/OFF counts), so
these tests check the pulse widths the servos would really receive.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from fake_i2c import FakeI2C, calibrated_pulse_us
from pip_only import require_servo_libraries

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.hardware import (
    BackendUnavailableError,
    ServoKitBackend,
    ServoMap,
    SimBackend,
    make_backend,
)

REFERENCE_CLOCK_HZ = 25_000_000


@pytest.fixture(scope="module")
def config() -> ArmConfig:
    return ArmConfig.from_file()


def servokit(config: ArmConfig, bus: FakeI2C, **hardware_changes: object) -> ServoKitBackend:
    require_servo_libraries()
    hardware = replace(config.hardware, **hardware_changes)
    return ServoKitBackend([j.servo for j in config.joints], hardware, bus)


@pytest.mark.parametrize("frequency_hz", [50.0, 60.0])
def test_board_runs_at_the_configured_pwm_frequency(config: ArmConfig, frequency_hz: float) -> None:
    bus = FakeI2C()
    servokit(config, bus, pwm_frequency_hz=frequency_hz)
    # PCA9685 datasheet: prescale = round(osc / (4096 * f)) - 1
    assert bus.prescale == round(REFERENCE_CLOCK_HZ / (4096 * frequency_hz)) - 1
    assert bus.frequency_hz == pytest.approx(frequency_hz, rel=0.01)
    assert not bus.asleep


@pytest.mark.parametrize("frequency_hz", [50.0, 60.0])
@pytest.mark.parametrize("joint_deg", [-90.0, -45.0, -12.5, 0.0, 30.0, 90.0])
def test_pulse_width_on_each_channel_is_what_the_calibration_says(
    config: ArmConfig, frequency_hz: float, joint_deg: float
) -> None:
    bus = FakeI2C()
    backend = servokit(config, bus, pwm_frequency_hz=frequency_hz)
    servo_map = ServoMap.from_config(config)
    for index, joint in enumerate(servo_map.joints):
        backend.write(joint.servo.channel, joint.servo_deg(math.radians(joint_deg)))
        on, off = bus.led_counts(joint.servo.channel)
        assert on == 0
        assert off < 4096  # a 12-bit count, not the full-ON/OFF bit
        # One 12-bit count (4.9 us at 50 Hz) is the board's resolution.
        expected = calibrated_pulse_us(config.joints[index].servo, math.radians(joint_deg))
        assert bus.pulse_us(joint.servo.channel) == pytest.approx(expected, abs=bus.count_us)


def test_mirrored_servo_moves_the_other_way(config: ArmConfig) -> None:
    bus = FakeI2C()
    backend = servokit(config, bus)
    shoulder, elbow = ServoMap.from_config(config).joints
    assert elbow.servo.sign == -1
    pulses: dict[str, list[float]] = {"shoulder": [], "elbow": []}
    for joint_deg in (-30.0, 0.0, 30.0):
        for joint in (shoulder, elbow):
            backend.write(joint.servo.channel, joint.servo_deg(math.radians(joint_deg)))
            pulses[joint.name].append(bus.pulse_us(joint.servo.channel))
    assert pulses["shoulder"] == sorted(pulses["shoulder"])  # +joint: longer pulse
    assert pulses["elbow"] == sorted(pulses["elbow"], reverse=True)  # +joint: shorter pulse
    # Same offset, opposite sign: symmetric about the 1500 us middle.
    for up, down in zip(pulses["shoulder"], pulses["elbow"], strict=True):
        assert up + down == pytest.approx(3000.0, abs=2 * bus.count_us)


def test_each_servo_gets_its_own_pulse_range(config: ArmConfig) -> None:
    joints = list(config.joints)
    joints[1] = replace(
        joints[1],
        servo=replace(
            joints[1].servo, min_pulse_us=1000, max_pulse_us=2000, actuation_range_deg=90
        ),
    )
    require_servo_libraries()
    bus = FakeI2C()
    backend = ServoKitBackend([j.servo for j in joints], config.hardware, bus)
    backend.write(0, 90.0)
    backend.write(1, 90.0)  # the end of a 90-degree servo's range
    assert bus.pulse_us(0) == pytest.approx(1500.0, abs=bus.count_us)
    assert bus.pulse_us(1) == pytest.approx(2000.0, abs=bus.count_us)


def test_release_turns_the_pwm_off(config: ArmConfig) -> None:
    bus = FakeI2C()
    backend = servokit(config, bus)
    backend.write(0, 90.0)
    backend.write(1, 45.0)
    backend.release(0)
    backend.release(1)
    assert bus.led_counts(0)[1] & 0x1000  # LEDn full OFF bit
    assert all(bus.duty(channel) == 0.0 for channel in range(16))


def test_absent_board_is_a_clear_error(config: ArmConfig) -> None:
    with pytest.raises(BackendUnavailableError) as caught:
        servokit(config, FakeI2C(address=0x41))
    message = str(caught.value)
    assert "0x40" in message
    assert "hardware.i2c_address=64" in message
    assert "No I2C device at address" in message


def test_missing_bus_is_a_clear_error_never_the_sim(config: ArmConfig) -> None:
    require_servo_libraries()
    hardware = replace(config.hardware, backend="servokit", i2c_bus=97)
    with pytest.raises(BackendUnavailableError, match=r"/dev/i2c-97 \(hardware.i2c_bus=97"):
        make_backend(replace(config, hardware=hardware))
    assert isinstance(make_backend(config), SimBackend)  # the default file's backend


def test_bus_error_reaches_the_caller_and_the_board_can_be_restored(config: ArmConfig) -> None:
    bus = FakeI2C()
    backend = servokit(config, bus)
    backend.write(0, 120.0)
    bus.fail()
    with pytest.raises(OSError, match="Remote I/O error"):
        backend.write(0, 100.0)
    with pytest.raises(OSError, match="Remote I/O error"):
        backend.check()
    # The board lost power meanwhile: asleep, outputs off, prescale back to its default.
    bus.heal(power_cycle=True)
    with pytest.raises(OSError, match="board was reset"):
        backend.check()
    backend.restore()
    backend.check()
    assert bus.prescale == 121
    backend.write(0, 100.0)
    assert bus.pulse_us(0) == pytest.approx(500 + 100 / 180 * 2000, abs=bus.count_us)


def test_eight_channel_board_refuses_channel_eight(config: ArmConfig) -> None:
    joints = list(config.joints)
    joints[1] = replace(joints[1], servo=replace(joints[1].servo, channel=8))
    hardware = replace(config.hardware, channels=8)
    require_servo_libraries()
    with pytest.raises(BackendUnavailableError, match="servo must be 0-7"):
        ServoKitBackend([j.servo for j in joints], hardware, FakeI2C())


def test_sim_backend_keeps_the_last_angle_and_refuses_what_a_servo_would(config: ArmConfig) -> None:
    sim = SimBackend([j.servo for j in config.joints])
    assert sim.channels == (0, 1)
    sim.write(0, 120.0)
    sim.write(1, 0.0)
    assert sim.angles == {0: 120.0, 1: 0.0}
    with pytest.raises(ValueError, match="out of range on channel 1"):
        sim.write(1, 180.5)  # same check as adafruit_motor's Servo.angle
    assert sim.angles[1] == 0.0
    sim.release(0)
    assert sim.angles == {0: None, 1: 0.0}


def test_sim_obstacle_stops_the_servo_and_reports_where_it_stopped(config: ArmConfig) -> None:
    servo = config.joints[0].servo
    backend = SimBackend([servo])
    backend.write(servo.channel, 110.0)
    assert backend.measured_deg(servo.channel) is None  # ideal servo: no feedback to give
    backend.block(servo.channel, 80.0)  # an object at 80 deg, the servo above it
    assert backend.measured_deg(servo.channel) == 110.0
    backend.write(servo.channel, 60.0)  # closing onto the object: stops on it
    assert backend.measured_deg(servo.channel) == 80.0
    backend.write(servo.channel, 95.0)  # opening again: free
    assert backend.measured_deg(servo.channel) == 95.0
    backend.unblock(servo.channel)
    backend.write(servo.channel, 60.0)
    assert backend.measured_deg(servo.channel) is None
    assert backend.angles[servo.channel] == 60.0


def test_every_driven_servo_gets_a_backend_channel() -> None:
    kit = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml"))
    assert make_backend(kit).channels == (0, 1, 2, 3, 4, 5)  # the gripper's included
