"""The hardware node's plain parts alone, without ROS: the command intake, the driver's ramp and
its fault recovery, calibration mode, on the sim backend with clocks the test sets."""

from __future__ import annotations

import math

import pytest
from plain_parts import Log

from arm_kinematics.config import ArmConfig
from arm_kinematics.hardware import InvalidCommandError, ServoMap, SimBackend
from arm_kinematics.hardware.calibration import DEGREES
from arm_kinematics.hardware.calibration_control import MOTION_QUIET_S, CalibrationControl
from arm_kinematics.hardware.driver import MotionBlockedError, ServoDriver
from arm_kinematics.hardware.faults import RETRY_INITIAL_S
from arm_kinematics.hardware.intake import CommandIntake

D = math.radians
CONFIG = ArmConfig.from_file()  # shoulder, elbow: 120 deg/s; home 0, 45 deg
PERIOD_S = 0.02
HOME = CONFIG.home


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.s = 100.0

    def __call__(self) -> float:
        return self.s


class Parts:
    def __init__(self) -> None:
        self.clock = Clock()
        self.log = Log()
        servo_map = ServoMap.from_config(CONFIG)
        self.backend = SimBackend([j.servo for j in CONFIG.joints])
        self.driver = ServoDriver(servo_map, self.backend, PERIOD_S, self.log, self.clock)
        self.intake = CommandIntake(self.driver, self.clock)
        self.calibration = CalibrationControl(self.driver, self.intake, 30.0, 5.0, self.clock)
        self.now = 0.0
        self.driver.start(list(HOME), self.now)

    def tick(self) -> None:
        self.now += PERIOD_S
        self.clock.s += PERIOD_S
        self.calibration.tick(self.now)

    def servo_deg(self) -> list[float | None]:
        return [self.backend.angles[c] for c in (0, 1)]


def test_a_stream_within_the_limits_passes_through_without_lag() -> None:
    parts = Parts()
    # A trajectory's setpoints, one per period at 100 deg/s (under the 120 deg/s limit),
    # accelerating from rest: each is on the board at once, where it was sent.
    for i in range(1, 40):
        t = i * PERIOD_S  # 200 deg/s^2 up to 100 deg/s at 0.5 s, then on at 100 deg/s
        shoulder = D(100.0 * t**2 if t <= 0.5 else 25.0 + 100.0 * (t - 0.5))
        parts.now += PERIOD_S
        parts.intake.take(["shoulder", "elbow"], [shoulder, HOME[1]], parts.now)
        assert parts.driver.positions == [shoulder, HOME[1]]  # no lag, no staircase
    assert parts.driver.counters.commands_accepted == 39


def test_a_jump_ramps_at_the_slowest_joints_pace_one_step_per_tick() -> None:
    parts = Parts()
    parts.intake.take(["shoulder", "elbow"], [D(60.0), D(45.0)], parts.now)
    parts.tick()
    assert parts.driver.positions[0] == pytest.approx(D(120.0) * PERIOD_S)
    while parts.driver.moving:
        parts.tick()
    assert parts.driver.positions == [D(60.0), D(45.0)]
    assert parts.now == pytest.approx(0.5, abs=PERIOD_S)


def test_invalid_commands_are_rejected_and_valid_ones_refused_while_faulted() -> None:
    parts = Parts()
    with pytest.raises(InvalidCommandError, match="joint 'elbow' is missing"):
        parts.intake.take(["shoulder"], [0.1], parts.now)
    assert parts.driver.counters.commands_rejected == 1
    parts.backend.fail()
    parts.driver.check_board()
    assert parts.driver.fault.active
    with pytest.raises(MotionBlockedError, match=r"hardware fault .* the servos hold"):
        parts.intake.take(["shoulder", "elbow"], [0.1, 0.1], parts.now)
    assert parts.driver.counters.commands_refused == 1
    assert parts.driver.targets == list(HOME)


def test_a_fault_stops_the_ramp_and_recovery_restores_the_board() -> None:
    parts = Parts()
    parts.intake.take(["shoulder", "elbow"], [D(60.0), D(45.0)], parts.now)
    parts.tick()
    parts.tick()
    parts.backend.fail()
    parts.tick()  # the write fails twice: the fault
    held = list(parts.driver.positions)
    assert parts.driver.fault.active
    assert parts.driver.targets == held  # stopped where the board was last written
    assert parts.driver.positions[0] == pytest.approx(2 * D(120.0) * PERIOD_S)
    parts.backend.heal()
    parts.backend.angles[0] = None  # the board lost its outputs meanwhile
    while parts.driver.fault.active:
        parts.tick()
    assert parts.clock.s >= 100.0 + 3 * PERIOD_S + RETRY_INITIAL_S - 1e-9  # after the back-off
    assert parts.servo_deg()[0] == pytest.approx(90.0 + math.degrees(held[0]))
    assert parts.driver.counters.recoveries == 1
    assert "hardware recovered" in parts.log.lines[-1]


def test_calibration_begins_only_when_nothing_moves_and_jogs_the_servo() -> None:
    parts = Parts()
    parts.intake.take(["shoulder", "elbow"], [D(10.0), D(45.0)], parts.now)
    entered, words = parts.calibration.enter(gripper_running=False)
    assert not entered
    assert "the arm is moving" in words
    while parts.driver.moving:
        parts.tick()
    entered, words = parts.calibration.enter(gripper_running=False)
    assert not entered
    assert "joint_commands came" in words  # within MOTION_QUIET_S
    parts.clock.s += MOTION_QUIET_S
    assert not parts.calibration.enter(gripper_running=True)[0]
    assert parts.calibration.enter(gripper_running=False)[0]
    with pytest.raises(MotionBlockedError, match="calibration mode is on"):
        parts.intake.take(["shoulder", "elbow"], [0.0, 0.0], parts.now)
    target, pulse = parts.calibration.jog("shoulder", DEGREES, True, 3.0, parts.now)
    assert (target, pulse) == (pytest.approx(103.0), pytest.approx(500 + 103 / 180 * 2000))
    for _ in range(10):
        parts.tick()
    assert parts.servo_deg()[0] == pytest.approx(103.0)  # 3 deg at 30 deg/s: 0.1 s
    assert parts.driver.positions[0] == pytest.approx(D(13.0))


def test_a_silent_page_ends_calibration_with_the_servos_holding() -> None:
    parts = Parts()
    parts.clock.s += MOTION_QUIET_S
    assert parts.calibration.enter(gripper_running=False)[0]
    parts.calibration.jog("elbow", DEGREES, False, 10.0, parts.now)  # far: 35 deg at 30 deg/s
    parts.tick()
    parts.clock.s += 5.1  # no heartbeat for longer than the timeout
    parts.tick()
    assert not parts.calibration.active
    assert "no heartbeat for 5.1 s" in parts.log.lines[-1]
    standing = parts.servo_deg()
    for _ in range(5):
        parts.tick()
    assert parts.servo_deg() == standing  # held: the jog did not go on
    assert parts.driver.targets == parts.driver.positions
