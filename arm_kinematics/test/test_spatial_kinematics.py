"""The spatial solve (a base yaw, 2-3 pitch joints, a wrist roll) against an FK written here.

The oracle chains one homogeneous transform per joint, as a URDF does (yaw about z, a fixed
shoulder offset, pitch joints about -y with each link's bent straight line, the roll about x),
independently of `SpatialChain.forward`. For arms shaped like the shipped examples: random
joints within the limits -> the oracle's tool pose -> IK with position only, with pitch, with
pitch and roll and with the whole rotation: every answer is OK or SINGULAR, within the limits,
and the oracle puts it on the target to 1e-9 m (and 1e-9 rad where asked). The per-config test
over the shipped files (with their URDF) is in test_spatial_configs.py.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arm_kinematics.kinematics import (
    Branch,
    IkStatus,
    MotionLimits,
    PlanOptions,
    SpatialArm,
    plan_line,
)

D = math.radians


def kit() -> SpatialArm:
    """A 6-servo desk kit's arm (the gripper is not kinematic)."""
    limits = [(D(-90), D(90)), (D(-10), D(170)), (D(-150), D(10)), (D(-100), D(100))]
    return SpatialArm(
        (0.105, 0.098, 0.09),
        [*limits, (D(-90), D(90))],
        shoulder_height=0.07,
        has_roll=True,
        joint_names=("base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll"),
    )


def omx() -> SpatialArm:
    """OpenManipulator-X's published dimensions: a 0.024 m step over 0.128 m in the upper arm."""
    return SpatialArm(
        (math.hypot(0.024, 0.128), 0.124, 0.126),
        [(D(-160), D(160)), (D(-100), D(90)), (D(-90), D(85)), (D(-115), D(100))],
        shoulder_height=0.077,
        shoulder_forward=0.012,
        link_angle_offsets=(math.atan2(0.128, 0.024), 0.0, 0.0),
    )


def mearm() -> SpatialArm:
    """A MeArm-style arm: yaw, shoulder and a parallelogram elbow (forearm angle 60..45 deg)."""
    return SpatialArm(
        (0.08, 0.08),
        [(D(-90), D(90)), (D(0), D(135)), (D(-150), D(0))],
        shoulder_height=0.05,
        link_angle_limits=[None, (D(-60), D(45))],
    )


ARMS = {"kit": kit, "omx": omx, "mearm": mearm}


def _rot(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return {
        "x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
        "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
        "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
    }[axis]


def _link(rotation: np.ndarray | None = None, offset=(0.0, 0.0, 0.0)) -> np.ndarray:
    matrix = np.eye(4)
    if rotation is not None:
        matrix[:3, :3] = rotation
    matrix[:3, 3] = offset
    return matrix


def oracle(arm: SpatialArm, joints) -> np.ndarray:
    """4x4 tool pose: the joint transforms chained as the URDF chains them."""
    k = arm.n_pitch
    pose = _link(_rot("z", joints[0]))
    pose = pose @ _link(offset=(arm.shoulder_forward, 0.0, arm.shoulder_height))
    for q, length, delta in zip(
        joints[1 : 1 + k], arm.link_lengths, arm.link_angle_offsets, strict=True
    ):
        pose = pose @ _link(_rot("y", -q))  # axis 0 -1 0: a positive angle raises the link
        pose = pose @ _link(offset=(length * math.cos(delta), 0.0, length * math.sin(delta)))
    if arm.has_roll:
        pose = pose @ _link(_rot("x", joints[-1]))
    return pose


def outward_pitch(pose: np.ndarray) -> float:
    """The tool x axis's angle above the horizontal, toward the outside (away from z)."""
    x_axis, position = pose[:3, 0], pose[:3, 3]
    outward = np.array([position[0], position[1], 0.0]) / math.hypot(*position[:2])
    return math.atan2(x_axis[2], float(np.dot(x_axis, outward)))


def random_joints(arm: SpatialArm, rng: random.Random) -> tuple[float, ...]:
    while True:
        joints = tuple(rng.uniform(lo, hi) for lo, hi in arm.joint_limits)
        if arm.within_limits(joints):
            return joints


@pytest.mark.parametrize("name", sorted(ARMS))
def test_fk_equals_the_urdf_style_chain(name: str) -> None:
    arm, rng = ARMS[name](), random.Random(name)
    for _ in range(500):
        joints = random_joints(arm, rng)
        tool, pose = arm.forward(joints), oracle(arm, joints)
        assert tool.position == pytest.approx(tuple(pose[:3, 3]), abs=1e-12)
        assert np.abs(tool.rotation - pose[:3, :3]).max() < 1e-12
        assert tool.pitch == pytest.approx(outward_pitch(pose), abs=1e-9)


@pytest.mark.parametrize("name", sorted(ARMS))
def test_random_poses_within_limits_are_solved_exactly_in_every_mode(name: str) -> None:
    arm, rng = ARMS[name](), random.Random(f"ik {name}")
    for _ in range(2000):
        pose = oracle(arm, random_joints(arm, rng))
        x, y, z = pose[:3, 3]
        pitch = outward_pitch(pose)
        # The roll in the outward convention: the tool's y axis turned from the horizontal
        # normal of the target's vertical plane, about the tool's x axis.
        psi = math.atan2(y, x)
        unrolled_y = np.array([-math.sin(psi), math.cos(psi), 0.0])
        roll = math.atan2(float(np.dot(np.cross(unrolled_y, pose[:3, 1]), pose[:3, 0])),
                          float(np.dot(unrolled_y, pose[:3, 1])))  # fmt: skip
        results = {
            "position": arm.solve(x, y, z),
            "pitch": arm.solve(x, y, z, pitch),
            "pitch and roll": arm.solve(x, y, z, pitch, roll),
            "rotation": arm.solve_rotation(x, y, z, pose[:3, :3]),
        }
        for mode, result in results.items():
            assert result.status in (IkStatus.OK, IkStatus.SINGULAR), (mode, result.message)
            assert arm.within_limits(result.joints), (mode, result.joints)
            answer = oracle(arm, result.joints)
            assert math.dist(answer[:3, 3], (x, y, z)) < 1e-9, mode
            if mode != "position":
                assert abs(math.remainder(outward_pitch(answer) - pitch, math.tau)) < 1e-9
            if mode in ("pitch and roll", "rotation"):
                assert np.abs(answer[:3, :3] - pose[:3, :3]).max() < 1e-9, mode


def test_the_statuses_a_spatial_target_adds_and_their_words() -> None:
    arm = kit()
    far = arm.solve(0.5, 0.0, 0.1)
    assert far.status == IkStatus.TOO_FAR
    assert "0.500899 m from the shoulder, beyond the arm's reach of 0.293 m" in far.message
    hole = arm.solve(0.0, 0.01, 0.07)  # beside the shoulder: no pose of the chain gets there
    assert hole.status == IkStatus.JOINT_LIMIT
    behind = SpatialArm((0.1, 0.08), [(D(-60), D(60)), None, None]).solve(-0.05, 0.1, 0.0)
    assert behind.status == IkStatus.YAW_LIMIT
    assert "needs joint 1 = 116.57 deg, or -63.43 deg over the back" in behind.message
    on_axis = arm.solve(0.0, 0.0, 0.2, current=(0.3, 1.0, -1.0, 0.0, 0.0))
    assert on_axis.status == IkStatus.SINGULAR
    assert on_axis.joints[0] == 0.3  # the yaw stays
    assert "on the yaw axis, where its direction is undefined: the yaw is kept at 17.19" in (
        on_axis.message
    )
    no_roll = omx().solve(0.2, 0.0, 0.1, -0.5, 0.7)
    assert no_roll.status == IkStatus.ORIENTATION_UNREACHABLE
    assert "no wrist roll: its tool rolls 0.00 deg from the front and 180.00 deg" in (
        no_roll.message
    )
    twisted = arm.solve_rotation(0.15, 0.05, 0.05, _rot("z", 0.7) @ _rot("y", 0.5))
    assert twisted.status == IkStatus.ORIENTATION_UNREACHABLE
    assert "turn 19.23 deg about its own z axis" in twisted.message
    assert "nearest orientation the joints give: pitch -26.92 deg, roll -10.20 deg" in (
        twisted.message
    )


def test_over_the_back_where_the_front_is_beyond_the_yaw_limits() -> None:
    arm = kit()  # yaw +-90 deg: a target behind is reached with the chain bent backwards
    result = arm.solve(-0.15, 0.0, 0.2)
    assert result.ok
    assert result.message.startswith("OK: reaching over the back (yaw 0.00 deg)")
    assert "from the front the yaw would be 180.00 deg, outside its limits" in result.message
    assert math.dist(arm.forward(result.joints).position, (-0.15, 0.0, 0.2)) < 1e-9


def test_elbow_names_are_physical_on_both_sides() -> None:
    arm = SpatialArm((0.1, 0.08), shoulder_height=0.05)
    for x in (0.12, -0.12):  # the front, and over the back (the yaw is continuous here)
        for branch, above in ((Branch.ELBOW_UP, True), (Branch.ELBOW_DOWN, False)):
            result = arm.solve(x, 0.0, 0.08, branch=branch)
            frames = arm.link_frames(result.joints)
            shoulder, elbow, tip = (f[:3, 3] for f in frames[2:5])
            # Above the shoulder->tip line means a positive cross product in the chain's plane.
            forward = np.array([math.cos(result.joints[0]), math.sin(result.joints[0]), 0.0])
            line, to_elbow = tip - shoulder, elbow - shoulder
            side = float(np.dot(line, forward) * to_elbow[2] - line[2] * np.dot(to_elbow, forward))
            assert (side * np.sign(np.dot(line, forward)) > 0) == above, (x, branch)


def test_least_motion_picks_the_side_and_the_pitch_chain_is_continuous() -> None:
    arm = SpatialArm((0.1, 0.08, 0.04), shoulder_height=0.05)  # yaw unlimited: both sides
    front = arm.solve(0.1, 0.0, 0.05, current=(0.0, 0.5, -0.5, 0.0))
    back = arm.solve(0.1, 0.0, 0.05, current=(math.pi, 2.5, 0.5, 0.0))
    assert abs(front.joints[0]) < 1e-12
    assert abs(abs(back.joints[0]) - math.pi) < 1e-12


def test_bad_input_is_invalid_never_an_exception() -> None:
    arm = kit()
    for args, kwargs in [
        ((math.nan, 0.0, 0.0), {}),
        ((0.1, 0.0, 0.0), {"roll": 0.1}),
        ((0.1, 0.0, 0.0), {"current": (0.0,)}),
        ((0.1, 0.0, 0.0), {"branch": 9}),
        (("x", 0.0, 0.0), {}),
    ]:
        assert arm.solve(*args, **kwargs).status == IkStatus.INVALID_INPUT
    assert arm.solve_rotation(0.1, 0.0, 0.0, np.ones((3, 3))).status == IkStatus.INVALID_INPUT


def test_a_straight_3d_line_with_its_pitch_turning_is_planned_on_the_line() -> None:
    arm = kit()
    start_joints = (0.2, D(60), D(-100), D(-30), 0.0)
    start = arm.tool_vector(start_joints)  # (x, y, z, pitch, roll)
    goal = (0.05, 0.15, 0.05, D(-90))  # pitch only: the roll is left as it is
    speeds = [D(120)] * arm.n_joints
    limits = MotionLimits(0.02, speeds, [D(480)] * arm.n_joints, 0.05, 0.3)
    plan = plan_line(arm, start[:4], goal, start_joints, PlanOptions(0.001, limits, D(10)))
    assert plan.ok, plan.message
    assert plan.points.shape[1] == 4
    line_start, line_goal = np.array(start[:3]), np.array(goal[:3])
    direction = (line_goal - line_start) / np.linalg.norm(line_goal - line_start)
    tips = plan.setpoints.tips
    assert tips.shape[1] == 5
    for tip in tips:  # every setpoint's tool point is on the line, to the solver's precision
        offset = tip[:3] - line_start
        assert np.linalg.norm(offset - np.dot(offset, direction) * direction) < 1e-9
    assert np.allclose(tips[-1][:4], goal, atol=1e-9)
    # Within the velocity and acceleration limits, from rest to rest.
    stream = np.vstack((start_joints, start_joints, plan.setpoints.joints,
                        plan.setpoints.joints[-1:], plan.setpoints.joints[-1:]))  # fmt: skip
    assert (np.abs(np.diff(stream, axis=0)) <= np.array(speeds) * 0.02 + 1e-12).all()
    assert (np.abs(np.diff(stream, n=2, axis=0)) <= D(480) * 0.02**2 + 1e-12).all()


def test_a_3d_line_through_an_unreachable_stretch_fails_before_anything_is_planned() -> None:
    arm = kit()
    start_joints = (0.0, D(60), D(-100), D(-30), 0.0)
    start = arm.tool_vector(start_joints)[:3]
    limits = MotionLimits(0.02, [D(120)] * arm.n_joints, [D(480)] * arm.n_joints, 0.05, 0.3)
    plan = plan_line(arm, start, (0.0, 0.0, 0.6), start_joints, PlanOptions(0.001, limits))
    assert not plan.ok
    assert plan.status in (IkStatus.TOO_FAR, IkStatus.JOINT_LIMIT)
    assert plan.setpoints is None  # nothing to stream
    assert plan.failed_step is not None
    assert 0 < plan.feasible_fraction < 1
