"""The gripper's motion without ROS: `ServoDriver` on the sim backend, ticked by hand at the node's
period, and the written angles read back as the board got them. Every goal, a goal replacing
a running one, a cancel's brake and ticks that come late: velocity and acceleration by finite
differences at the tick times within the joint's limits, starting and ending at rest.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plain_parts import SLACK, Log, differences

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.hardware import ServoMap, SimBackend
from arm_kinematics.hardware.driver import MAX_STEP_PERIODS, MotionBlockedError, ServoDriver
from arm_kinematics.hardware.joint_profile import JointPoint, JointProfile

D = math.radians
KIT = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml"))
GRIPPER = KIT.gripper.joint  # 120 deg/s, 480 deg/s^2, home 70 deg (open)
PERIOD_S = 0.02


class Board:
    """The driver on a sim backend and what the gripper's servo got at each tick."""

    def __init__(self, config: ArmConfig = KIT, rest_s: float = 0.1) -> None:
        servo_map = ServoMap.from_config(config)
        self.backend = SimBackend([j.servo for j in config.driven_joints])
        self.driver = ServoDriver(servo_map, self.backend, PERIOD_S, Log(), monotonic=lambda: 0.0)
        self.driver.start([j.home for j in servo_map.joints], 0.0)
        self.joint = servo_map.joints[-1]
        self.now = 0.0
        self.samples: list[tuple[float, float]] = [(0.0, self.angle())]
        self.run(rest_s)  # standing, before anything moves

    def angle(self) -> float:
        """The gripper joint's angle (rad) of the servo angle on the board."""
        return self.joint.joint_rad(self.backend.angles[self.joint.servo.channel])

    def tick(self, period_s: float = PERIOD_S) -> None:
        self.now += period_s
        self.driver.step(self.now)
        self.samples.append((self.now, self.angle()))

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / PERIOD_S)):
            self.tick()

    def until_rest(self, limit_s: float = 10.0) -> None:
        while self.driver.gripper_moving:
            assert self.now < limit_s, "the gripper never came to rest"
            self.tick()
        self.run(0.1)


def assert_within_limits(samples, max_velocity: float, max_acceleration: float) -> None:
    velocities, accelerations = differences(samples)
    assert max(abs(v) for v in velocities) <= max_velocity * (1 + SLACK)
    assert max(abs(a) for a in accelerations) <= max_acceleration * (1 + SLACK)


def assert_at_rest_at_both_ends(samples) -> None:
    (_, first), (_, second) = samples[:2]
    (_, before_last), (_, last) = samples[-2:]
    assert first == second
    assert before_last == last


def test_a_goal_starts_and_ends_at_rest_within_the_limits() -> None:
    board = Board()
    duration = board.driver.start_gripper(0.0, board.now)
    # 70 deg: 0.25 s up to 120 deg/s (15 deg), 40 deg at it (1/3 s), 0.25 s down.
    assert duration == pytest.approx(0.25 + 40 / 120 + 0.25)
    board.until_rest()
    assert board.angle() == pytest.approx(0.0, abs=1e-12)
    assert board.driver.positions[-1] == 0.0  # exactly the target
    assert board.driver.targets[-1] == 0.0
    assert_within_limits(board.samples, GRIPPER.max_velocity, GRIPPER.max_acceleration)
    assert_at_rest_at_both_ends(board.samples)
    velocities, _ = differences(board.samples)
    # It does reach full speed, and gets there no faster than the acceleration allows.
    assert min(velocities) == pytest.approx(-GRIPPER.max_velocity)
    moving = [i for i, v in enumerate(velocities) if v != 0.0]
    assert abs(velocities[moving[0]]) <= GRIPPER.max_acceleration * PERIOD_S
    assert abs(velocities[moving[-1]]) <= GRIPPER.max_acceleration * PERIOD_S


def test_a_goal_that_replaces_a_running_one_starts_from_its_velocity() -> None:
    board = Board()
    board.driver.start_gripper(0.0, board.now)
    board.run(0.4)  # closing at full speed
    board.driver.start_gripper(D(70.0), board.now)  # open again: brake, turn, open
    board.until_rest()
    assert board.driver.positions[-1] == D(70.0)
    assert_within_limits(board.samples, GRIPPER.max_velocity, GRIPPER.max_acceleration)
    assert_at_rest_at_both_ends(board.samples)


def test_a_cancel_brakes_to_rest_within_the_limits_short_of_the_goal() -> None:
    board = Board()
    board.driver.start_gripper(0.0, board.now)
    board.run(0.4)
    board.driver.stop_gripper(board.now)
    stop = board.driver.targets[-1]
    board.until_rest()
    assert 0.0 < stop < D(70.0)  # not at the goal: short of it
    assert board.driver.positions[-1] == stop  # at rest exactly where the brake said
    assert not board.driver.gripper_moving
    assert_within_limits(board.samples, GRIPPER.max_velocity, GRIPPER.max_acceleration)
    assert_at_rest_at_both_ends(board.samples)


def test_ticks_that_come_early_or_late_still_land_on_the_motion() -> None:
    rng = random.Random(7)
    board = Board()
    board.driver.start_gripper(0.0, board.now)
    while board.driver.gripper_moving:
        board.tick(PERIOD_S * rng.uniform(0.3, MAX_STEP_PERIODS))
    board.run(0.1)
    assert_within_limits(board.samples, GRIPPER.max_velocity, GRIPPER.max_acceleration)


def test_a_stalled_executor_makes_the_gripper_slower_never_a_jump() -> None:
    board = Board()
    board.driver.start_gripper(0.0, board.now)
    board.run(0.3)
    before = board.angle()
    board.tick(1.0)  # one tick a whole second late
    most = GRIPPER.max_velocity * MAX_STEP_PERIODS * PERIOD_S
    assert abs(board.angle() - before) <= most * (1 + SLACK)
    board.until_rest()
    assert board.driver.positions[-1] == 0.0  # it still gets there, at rest
    samples = board.samples
    stall = next(i for i, (a, b) in enumerate(itertools.pairwise(samples)) if b[0] - a[0] > 0.5)
    assert_within_limits(samples[: stall + 1], GRIPPER.max_velocity, GRIPPER.max_acceleration)
    assert_within_limits(samples[stall + 1 :], GRIPPER.max_velocity, GRIPPER.max_acceleration)


def test_a_raw_command_for_the_gripper_ends_its_profile_and_ramps() -> None:
    board = Board()
    board.driver.start_gripper(0.0, board.now)
    board.run(0.2)
    targets = list(board.driver.targets)
    targets[-1] = D(60.0)
    board.driver.set_targets(targets, sets_gripper=True, now_s=board.now)
    board.until_rest()
    assert board.driver.positions[-1] == D(60.0)
    velocities, _ = differences(board.samples)
    assert max(abs(v) for v in velocities) <= GRIPPER.max_velocity * (1 + SLACK)


def test_no_goal_starts_during_a_fault_or_calibration_or_after_close() -> None:
    board = Board()
    board.backend.fail()
    board.driver.check_board()
    with pytest.raises(MotionBlockedError, match="hardware fault"):
        board.driver.start_gripper(0.0, board.now)
    closed = Board()
    closed.driver.close("hold")
    with pytest.raises(MotionBlockedError, match="shutting down"):
        closed.driver.start_gripper(0.0, closed.now)


@settings(max_examples=60, deadline=None)
@given(
    start=st.floats(-1.0, 1.0),
    target=st.floats(-1.0, 1.0),
    velocity=st.floats(-3.0, 3.0),
    max_velocity=st.floats(0.2, 3.0),
    max_acceleration=st.floats(0.5, 20.0),
)
def test_every_profile_ends_at_rest_on_its_target_within_the_limits(
    start, target, velocity, max_velocity, max_acceleration
) -> None:
    profile = JointProfile.to_target(
        JointPoint(start, velocity), target, max_velocity, max_acceleration, start_s=0.0
    )
    count = math.ceil(profile.duration_s / PERIOD_S) + 3
    samples = [(i * PERIOD_S, profile.at(i * PERIOD_S).position) for i in range(count)]
    assert samples[-1][1] == target
    assert profile.at(profile.duration_s).velocity == 0.0
    # From the first period on (the start may be faster than the limit: it brakes first).
    velocities, accelerations = differences(samples)
    assert max(abs(a) for a in accelerations) <= max_acceleration * (1 + 1e-6)
    if abs(velocity) <= max_velocity:
        assert max(abs(v) for v in velocities) <= max_velocity * (1 + 1e-6)


def test_a_gripper_without_an_acceleration_limit_ramps_at_its_velocity() -> None:
    joint = replace(GRIPPER, max_acceleration=math.inf)
    profile = JointProfile.to_target(
        JointPoint(D(70.0)), 0.0, joint.max_velocity, joint.max_acceleration, start_s=0.0
    )
    assert profile.duration_s == pytest.approx(70 / 120)
