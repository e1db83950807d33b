"""Joint <-> servo mapping, joint command validation and the slew step (pure Python, no ROS)."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.hardware import (
    InvalidCommandError,
    JointServo,
    ServoMap,
    ramp_toward,
    slew_toward,
)
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
    # config/ refuses such a file; the mapping still never sends a servo past its end stop.
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


# --- parallelogram servos, the gripper's joint, the ramp ---------------------------------------

MEARM = ArmConfig.from_file(default_config_path("arm_mearm.yaml"))
KIT = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml"))


@pytest.fixture(scope="module")
def mearm() -> ServoMap:
    return ServoMap.from_config(MEARM)


def test_parallelogram_servo_sets_the_link_angle_hand_worked(mearm: ServoMap) -> None:
    # arm_mearm.yaml: base offset 90 (+1), shoulder offset 160 (-1), elbow parallelogram offset
    # 90 (+1), claw offset 30 (+1). Shoulder 30 deg, elbow -50 deg: the forearm at -20 deg.
    q = [0.0, 30 * DEG, -50 * DEG, 10 * DEG]
    assert mearm.servo_angles(q) == pytest.approx((90.0, 160.0 - 30.0, 90.0 + (30 - 50), 40.0))
    # The same elbow joint angle with the shoulder at 80: the forearm at +30, servo 120.
    assert mearm.servo_angles([0.0, 80 * DEG, -50 * DEG, 0.0])[2] == pytest.approx(120.0)
    # The elbow servo stays put while shoulder and elbow turn by opposite amounts (the rod keeps
    # the forearm's angle).
    assert mearm.servo_angles([0.0, 100 * DEG, -100 * DEG, 0.0])[2] == pytest.approx(90.0)
    assert mearm.set_angles(q)[2] == pytest.approx(-20 * DEG)


def test_joint_positions_invert_the_servo_angles(mearm: ServoMap) -> None:
    q = (0.2, 70 * DEG, -95 * DEG, 25 * DEG)
    servo = mearm.servo_angles(q)
    measured = dict(enumerate(servo))  # every servo reports: the joints come back
    assert mearm.joint_positions(q, measured) == pytest.approx(q, abs=1e-12)
    assert mearm.joint_positions(q, {}) == q  # no feedback: exactly the commanded joints
    # Only the shoulder reports, held back at 60 deg (servo 100): the forearm keeps its
    # commanded angle (-25 deg), so the elbow is at -25 - 60 = -85 deg.
    held = mearm.joint_positions(q, {1: 100.0})
    assert [math.degrees(v) for v in held] == pytest.approx([math.degrees(0.2), 60, -85, 25])
    # The claw reports alone: nothing else changes.
    assert mearm.joint_positions(q, {3: 40.0})[:3] == q[:3]
    assert mearm.joint_positions(q, {3: 40.0})[3] == pytest.approx(10 * DEG)


def test_parallelogram_travel_is_checked_on_the_link_angle(mearm: ServoMap) -> None:
    names = ["base", "shoulder", "elbow"]
    # Forearm at 90 - 20 = 70 deg: servo 160, past 135, though both joints are within limits.
    with pytest.raises(InvalidCommandError) as caught:
        mearm.command(names, [0.0, 90 * DEG, -20 * DEG], current=(*MEARM.home, 0.0))
    assert str(caught.value) == (
        "joint 'elbow' = -0.349066 rad (-20 deg) puts its link at 70 deg (shoulder + elbow), "
        "which maps to servo angle 160 deg on channel 2, outside the servo's travel [30, 135] deg"
    )
    # Within the travel: accepted, the claw keeps its current angle.
    accepted = mearm.command(names, [0.0, 90 * DEG, -60 * DEG], current=(0.0, 0.0, 0.0, 0.5))
    assert accepted == pytest.approx((0.0, 90 * DEG, -60 * DEG, 0.5))


def test_a_command_sets_the_arm_the_gripper_or_both(mearm: ServoMap) -> None:
    current = (0.1, 90 * DEG, -90 * DEG, 60 * DEG)
    arm = mearm.command(["elbow", "base", "shoulder"], [-80 * DEG, 0.3, 80 * DEG], current)
    assert arm == pytest.approx((0.3, 80 * DEG, -80 * DEG, 60 * DEG))
    claw = mearm.command(["claw"], [20 * DEG], current)
    assert claw == pytest.approx((*current[:3], 20 * DEG))
    both = mearm.command(["base", "shoulder", "elbow", "claw"], [0.0, 1.0, -1.0, 0.0], current)
    assert both == pytest.approx((0.0, 1.0, -1.0, 0.0))
    with pytest.raises(InvalidCommandError) as caught:
        mearm.command(["shoulder", "claw"], [1.0, 0.0], current)
    assert str(caught.value) == (
        "joint 'base' is missing: a command must set every joint of the arm (base, shoulder, "
        "elbow), with or without the gripper's (claw), or the gripper's alone, it sets "
        "shoulder, claw"
    )
    with pytest.raises(InvalidCommandError, match=r"joint 'claw' = 1.22173 rad \(70 deg\) is out"):
        mearm.command(["claw"], [70 * DEG], current)
    # Without a current pose every driven joint must be given.
    with pytest.raises(InvalidCommandError, match="joint 'claw' is missing"):
        mearm.command(["base", "shoulder", "elbow"], [0.0, 1.0, -1.0])


def test_the_gripper_servo_is_driven_on_its_own_channel() -> None:
    servos = ServoMap.from_config(KIT)
    assert servos.names[-1] == "gripper"
    assert servos.channels == (0, 1, 2, 3, 4, 5)
    # offset 40, sign +1: fully open (70 deg) is servo 110.
    assert servos.servo_angles((*KIT.home, 70 * DEG))[-1] == pytest.approx(110.0)


def test_ramp_is_a_straight_line_at_the_slowest_joints_pace() -> None:
    position, target, steps = (0.0, 0.0, 0.5), (1.0, -0.25, 0.5), (0.1, 0.1, 0.1)
    path = [position]
    while path[-1] != target:
        path.append(ramp_toward(path[-1], target, steps))
    assert len(path) == 11  # the first joint needs 10 steps of 0.1; the others wait for it
    for point in path:
        # On the line: the second joint is always -1/4 of the first, the third never moves.
        assert point[1] == pytest.approx(-0.25 * point[0])
        assert point[2] == 0.5
    for a, b in itertools.pairwise(path):
        assert all(abs(q1 - q0) <= s * (1 + 2e-9) for q0, q1, s in zip(a, b, steps, strict=True))
    assert path[-1] == target  # exactly


@settings(deadline=None)
@given(
    start=st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3),
    target=st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3),
    steps=st.lists(st.floats(1e-3, 1.0), min_size=3, max_size=3),
)
def test_ramp_steps_stay_on_the_line_within_every_speed(start, target, steps) -> None:
    position = tuple(start)
    for _ in range(10_000):
        following = ramp_toward(position, target, steps)
        for p, f, s in zip(position, following, steps, strict=True):
            assert abs(f - p) <= s * (1 + 2e-9)
        if following == tuple(target):
            return
        position = following
    pytest.fail("the ramp never arrived")
