"""Conversions between ROS messages and core values (nodes/messages.py), without a ROS graph."""

from __future__ import annotations

import math

import pytest
from geometry_msgs.msg import Quaternion
from hypothesis import given
from hypothesis import strategies as st
from sensor_msgs.msg import JointState

from arm_kinematics.kinematics import Branch, IkStatus, PlanarArm
from arm_kinematics.nodes.messages import (
    BRANCH_NAMES,
    COMPUTE_FK_STATUS_NAMES,
    SOLVE_IK_STATUS_NAMES,
    JointStateError,
    JointStateProblem,
    frames_to_poses,
    heading_to_quaternion,
    is_empty,
    joint_positions,
    joint_state,
    planar_pose,
    pose_stamped,
    quaternion_to_heading,
    solve_ik_status_name,
)
from arm_kinematics.nodes.refusals import InvalidOrientation, Refusal
from arm_kinematics_interfaces.srv import SolveIK

NAMES = ("shoulder", "elbow")
IK = SolveIK.Response
headings = st.floats(min_value=-math.pi, max_value=math.pi, allow_nan=False)


def _yaw_quaternion(heading: float) -> Quaternion:
    return Quaternion(x=0.0, y=0.0, z=math.sin(heading / 2), w=math.cos(heading / 2))


# --- status and branch tables ------------------------------------------------------------------


def test_core_statuses_and_branches_have_the_srv_values() -> None:
    for status in IkStatus:
        assert getattr(SolveIK.Response, status.name) == status.value
        assert SOLVE_IK_STATUS_NAMES[status.value] == status.name
    for branch in Branch:
        assert getattr(SolveIK.Request, f"BRANCH_{branch.name}") == branch.value
        assert BRANCH_NAMES[branch.value] == branch.name.lower()
    # The ROS-only statuses follow the core's without overlapping them.
    assert {7: "WRONG_FRAME", 8: "OFF_PLANE", 9: "INVALID_ORIENTATION"}.items() <= (
        SOLVE_IK_STATUS_NAMES.items()
    )
    assert COMPUTE_FK_STATUS_NAMES == {
        0: "OK",
        1: "UNKNOWN_JOINT",
        2: "MISSING_JOINT",
        3: "INVALID_INPUT",
    }
    assert solve_ik_status_name(42) == "UNKNOWN(42)"


# --- orientation -------------------------------------------------------------------------------


@given(headings)
def test_heading_round_trips_through_a_quaternion(heading: float) -> None:
    quaternion = heading_to_quaternion(heading)
    assert quaternion.x == 0.0
    assert quaternion.y == 0.0
    assert math.hypot(quaternion.z, quaternion.w) == pytest.approx(1.0, abs=1e-15)
    back = quaternion_to_heading(quaternion)
    # +-pi are the same heading.
    assert math.remainder(back - heading, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("degrees", [0.0, 30.0, 90.0, -135.0, 179.0])
def test_quaternion_of_a_yaw_gives_that_heading(degrees: float) -> None:
    heading = math.radians(degrees)
    assert quaternion_to_heading(_yaw_quaternion(heading)) == pytest.approx(heading, abs=1e-12)
    # -q is the same rotation.
    q = _yaw_quaternion(heading)
    negated = Quaternion(x=-q.x, y=-q.y, z=-q.z, w=-q.w)
    assert quaternion_to_heading(negated) == pytest.approx(heading, abs=1e-12)


@pytest.mark.parametrize(
    ("quaternion", "words"),
    [
        (Quaternion(x=0.0, y=0.0, z=0.0, w=0.0), "norm 0"),
        (Quaternion(x=0.0, y=0.0, z=0.7071, w=0.7071), "norm 0.99999"),
        (Quaternion(x=0.0, y=0.0, z=0.0, w=1.001), "norm 1.001"),
        (Quaternion(x=math.sin(0.05), y=0.0, z=0.0, w=math.cos(0.05)), "roll 5.72958 deg"),
        (Quaternion(x=0.0, y=math.sin(-0.1), z=0.0, w=math.cos(0.1)), "pitch -11.4592 deg"),
        (Quaternion(x=math.nan, y=0.0, z=0.0, w=1.0), "not finite"),
        (Quaternion(x=0.0, y=0.0, z=math.inf, w=1.0), "not finite"),
    ],
)
def test_orientations_that_are_not_a_heading_are_refused(
    quaternion: Quaternion, words: str
) -> None:
    with pytest.raises(Refusal, match=words) as refused:
        quaternion_to_heading(quaternion)
    # Not finite: invalid input; finite but no heading: an invalid orientation.
    invalid_input = words == "not finite"
    assert isinstance(refused.value, InvalidOrientation) is not invalid_input
    assert refused.value.status == (IK.INVALID_INPUT if invalid_input else IK.INVALID_ORIENTATION)


def test_orientation_tolerance_is_one_micro() -> None:
    # A roll of 0.5e-6 rad passes, 2e-6 rad does not; the norm likewise.
    small = Quaternion(x=math.sin(0.25e-6), y=0.0, z=0.0, w=math.cos(0.25e-6))
    assert quaternion_to_heading(small) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(InvalidOrientation, match="roll"):
        quaternion_to_heading(Quaternion(x=math.sin(1e-6), y=0.0, z=0.0, w=math.cos(1e-6)))
    assert quaternion_to_heading(Quaternion(w=1.0 + 0.9e-6)) == 0.0
    with pytest.raises(InvalidOrientation, match="norm"):
        quaternion_to_heading(Quaternion(w=1.0 + 1.1e-6))


# --- poses -------------------------------------------------------------------------------------


def test_planar_pose_and_pose_stamped() -> None:
    pose = planar_pose(0.1, -0.2, math.radians(90), z=0.03)
    assert (pose.position.x, pose.position.y, pose.position.z) == (0.1, -0.2, 0.03)
    assert (pose.orientation.z, pose.orientation.w) == pytest.approx(
        (math.sqrt(0.5), math.sqrt(0.5))
    )
    stamped = pose_stamped(1.0, 2.0, 0.0, frame_id="base_link")
    assert stamped.header.frame_id == "base_link"
    assert stamped.pose.orientation.w == 1.0


def test_frames_of_the_core_become_poses_in_the_base_frame() -> None:
    arm = PlanarArm((1.0, 0.8))
    joints = (math.radians(30), math.radians(45))
    frames = arm.frames(joints)
    poses = frames_to_poses(frames, frame_id="base_link", z=0.5)
    assert len(poses) == 3
    assert all(p.header.frame_id == "base_link" for p in poses)
    tip = poses[-1].pose
    assert (tip.position.x, tip.position.y, tip.position.z) == pytest.approx(
        (1.0731, 1.2727, 0.5), abs=1e-4
    )
    assert quaternion_to_heading(tip.orientation) == pytest.approx(math.radians(75))
    elbow = poses[1].pose
    assert (elbow.position.x, elbow.position.y) == pytest.approx((math.cos(math.radians(30)), 0.5))


# --- joint states ------------------------------------------------------------------------------


def test_joint_positions_are_read_by_name_in_configuration_order() -> None:
    msg = JointState(name=["elbow", "shoulder"], position=[0.2, -0.1])
    assert joint_positions(msg, NAMES) == (-0.1, 0.2)
    built = joint_state(NAMES, (0.3, 0.4))
    assert list(built.name) == list(NAMES)
    assert list(built.position) == [0.3, 0.4]
    assert joint_positions(built, NAMES) == (0.3, 0.4)


def test_extra_joints_are_ignored_only_when_allowed() -> None:
    msg = JointState(name=["gripper", "shoulder", "elbow"], position=[9.0, 0.1, 0.2])
    assert joint_positions(msg, NAMES, allow_unknown=True) == (0.1, 0.2)
    with pytest.raises(JointStateError, match="unknown joint 'gripper'") as error:
        joint_positions(msg, NAMES)
    assert error.value.problem is JointStateProblem.UNKNOWN_JOINT
    assert error.value.joint == "gripper"


@pytest.mark.parametrize(
    ("names", "positions", "problem", "joint"),
    [
        (["shoulder"], [0.1, 0.2], JointStateProblem.LENGTH_MISMATCH, None),
        (["shoulder", "shoulder"], [0.1, 0.2], JointStateProblem.DUPLICATE_JOINT, "shoulder"),
        (["shoulder", "wrist"], [0.1, 0.2], JointStateProblem.UNKNOWN_JOINT, "wrist"),
        (["shoulder"], [0.1], JointStateProblem.MISSING_JOINT, "elbow"),
        (["shoulder", "elbow"], [0.1, math.nan], JointStateProblem.NON_FINITE, "elbow"),
        (["shoulder", "elbow"], [-math.inf, 0.0], JointStateProblem.NON_FINITE, "shoulder"),
    ],
)
def test_bad_joint_states_name_the_problem_and_the_joint(
    names: list[str], positions: list[float], problem: JointStateProblem, joint: str | None
) -> None:
    with pytest.raises(JointStateError) as error:
        joint_positions(JointState(name=names, position=positions), NAMES)
    assert error.value.problem is problem
    assert error.value.joint == joint
    assert error.value.status == IK.INVALID_INPUT  # a Refusal, whatever the problem
    if joint is not None:
        assert f"'{joint}'" in str(error.value)


def test_is_empty() -> None:
    assert is_empty(JointState())
    assert not is_empty(JointState(name=["shoulder"]))
    assert not is_empty(JointState(position=[0.0]))
