"""Joint <-> servo mapping, joint command validation and the slew step (pure Python, no ROS)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.config import ArmConfig
from arm_kinematics.hardware import InvalidCommandError, JointServo, ServoMap, slew_toward
from arm_kinematics.hardware.mapping import LIMIT_TOLERANCE_RAD

DEG = math.radians(1.0)


@pytest.fixture(scope="module")
def servo_map() -> ServoMap:
    return ServoMap.from_config(ArmConfig.from_file())


def test_servo_angle_is_offset_plus_signed_joint_angle(servo_map: ServoMap) -> None:
    shoulder, elbow = servo_map.joints
    # shoulder: offset 90, sign +1; elbow: offset 90, sign -1 (mirrored)
    assert shoulder.servo_deg(30 * DEG) == pytest.approx(120.0)
    assert elbow.servo_deg(30 * DEG) == pytest.approx(60.0)
    assert shoulder.servo_deg(-90 * DEG) == pytest.approx(0.0)
    assert elbow.servo_deg(-90 * DEG) == pytest.approx(180.0)
    for joint in servo_map.joints:
        for angle in (-1.2, 0.0, 0.7):
            assert joint.joint_rad(joint.servo_deg(angle)) == pytest.approx(angle)


def test_command_is_matched_by_name_not_order(servo_map: ServoMap) -> None:
    assert servo_map.command(["elbow", "shoulder"], [0.2, -0.1]) == (-0.1, 0.2)
    assert servo_map.command(["shoulder", "elbow"], [-0.1, 0.2]) == (-0.1, 0.2)


@pytest.mark.parametrize(
    ("names", "positions", "expected"),
    [
        (["shoulder", "elbow", "wrist"], [0.0, 0.0, 0.0], "unknown joint 'wrist' = 0.0"),
        (["shoulder"], [0.1], "joint 'elbow' is missing"),
        ([], [], "joint 'shoulder' is missing"),
        (["shoulder", "shoulder"], [0.1, 0.2], "joint 'shoulder' is given twice (= 0.2)"),
        (["shoulder", "elbow"], [0.1], "2 joint names but 1 positions"),
        (["shoulder", "elbow"], [0.1, math.nan], "joint 'elbow' = nan is not a finite number"),
        (["shoulder", "elbow"], [math.inf, 0.0], "joint 'shoulder' = inf is not a finite"),
        (["shoulder", "elbow"], [0.0, math.radians(100)], "joint 'elbow' = 1.74533 rad (100 deg)"),
        (["shoulder", "elbow"], [-1.6, 0.0], "joint 'shoulder' = -1.6 rad (-91.67 deg) is outside"),
    ],
)
def test_bad_command_names_the_joint_and_value(
    servo_map: ServoMap, names: list[str], positions: list[float], expected: str
) -> None:
    with pytest.raises(InvalidCommandError) as caught:
        servo_map.command(names, positions)
    assert expected in str(caught.value)


def test_limit_tolerance_is_float_noise_only(servo_map: ServoMap) -> None:
    upper = servo_map.joints[0].max_position
    # An IK result a hair past the limit is the limit; a measurable excess is refused.
    assert servo_map.command(["shoulder", "elbow"], [upper + 1e-12, 0.0])[0] == upper
    with pytest.raises(InvalidCommandError, match="outside its limits"):
        servo_map.command(["shoulder", "elbow"], [upper + 10 * LIMIT_TOLERANCE_RAD, 0.0])


def test_servo_travel_is_checked_even_inside_joint_limits() -> None:
    # config.py refuses such a file; the mapping still never sends a servo past its end stop.
    joint = ArmConfig.from_file().joints[0]
    narrow = JointServo.from_joint(joint)
    narrow = replace(narrow, servo=replace(narrow.servo, min_deg=30.0))
    with pytest.raises(InvalidCommandError, match=r"servo angle 0 deg on channel 0, outside"):
        ServoMap([narrow, ArmConfig.from_file().joints[1]]).command(
            ["shoulder", "elbow"], [-math.pi / 2, 0.0]
        )


def test_slew_moves_by_at_most_the_step_and_lands_on_target() -> None:
    assert slew_toward(0.0, 1.0, 0.3) == pytest.approx(0.3)
    assert slew_toward(0.0, -1.0, 0.3) == pytest.approx(-0.3)
    assert slew_toward(0.9, 1.0, 0.3) == 1.0
    assert slew_toward(0.5, 0.5, 0.0) == 0.5


# No deadline: up to 6,000 steps of 1 mrad an example, and tests do not time things (a loaded
# machine once took 343 ms for one, past hypothesis's default 200 ms).
@settings(deadline=None)
@given(
    start=st.floats(-3.0, 3.0),
    target=st.floats(-3.0, 3.0),
    step=st.floats(1e-3, 1.0),
)
def test_repeated_slew_steps_reach_the_target_exactly_at_the_speed_limit(
    start: float, target: float, step: float
) -> None:
    position, moves = start, []
    while position != target:
        following = slew_toward(position, target, step)
        assert abs(target - following) < abs(target - position)  # closer, never past it
        moves.append(abs(following - position))
        position = following
    # Full-speed steps until the last, shorter one: as fast as the limit allows, never faster.
    assert all(move == pytest.approx(step, rel=1e-9) for move in moves[:-1])
    assert not moves or moves[-1] <= step * (1 + 1e-12)
