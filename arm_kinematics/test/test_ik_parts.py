"""The plain parts of ik_node (nodes/ik/), without a ROS graph: requests in, answers out.

The packaged arm (links 0.100 and 0.080 m, +-90 deg). Expected joints come from the law of
cosines written out here, not from the core.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from sensor_msgs.msg import JointState

from arm_kinematics.config import ArmConfig, MountConfig
from arm_kinematics.kinematics import SpatialArm
from arm_kinematics.nodes.ik.batch import check_size, solve_ik_batch
from arm_kinematics.nodes.ik.fk import compute_fk, fk_status, frame_names
from arm_kinematics.nodes.ik.markers import MarkerRequest
from arm_kinematics.nodes.ik.requests import (
    IkSetup,
    PlanarLayout,
    SpatialLayout,
    branch_of,
    current_joints,
    layout_for,
)
from arm_kinematics.nodes.ik.solve import solve_ik
from arm_kinematics.nodes.messages import JointStateError
from arm_kinematics.nodes.refusals import OffPlane, Refusal, WrongFrame
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK, SolveIKBatch

IK = SolveIK.Response
FK = ComputeFK.Response
CONFIG = ArmConfig.from_file()
SETUP = IkSetup.from_config(CONFIG)
L1, L2 = CONFIG.link_lengths
Q = (math.radians(30.0), math.radians(45.0))
TIP = (L1 * math.cos(Q[0]) + L2 * math.cos(sum(Q)), L1 * math.sin(Q[0]) + L2 * math.sin(sum(Q)))


def request(x: float, y: float, frame: str = "", z: float = 0.0, **fields) -> SolveIK.Request:
    message = SolveIK.Request(**fields)
    message.target.header.frame_id = frame
    p = message.target.pose.position
    p.x, p.y, p.z = x, y, z
    return message


def answer(message: SolveIK.Request, setup: IkSetup = SETUP, latest=None):
    response = SolveIK.Response()
    result = solve_ik(setup, message, response, latest, None)
    return response, result


def test_solve_ik_answers_the_joints_the_other_elbow_and_the_tool_pose():
    response, result = answer(request(*TIP, branch=SolveIK.Request.BRANCH_ELBOW_DOWN))
    assert response.status == IK.OK, response.message
    assert tuple(response.solution.position) == pytest.approx(Q, abs=1e-12)
    assert list(response.solution.name) == ["shoulder", "elbow"]
    assert response.alternative.position[1] == pytest.approx(-Q[1], abs=1e-12)
    assert response.manipulability == pytest.approx(L1 * L2 * math.sin(Q[1]), rel=1e-12)
    assert response.message.endswith("; joints shoulder 30.000, elbow 45.000 deg")
    tool = response.tool
    assert tool.header.frame_id == "base_link"
    assert (tool.pose.position.x, tool.pose.position.y) == pytest.approx(TIP, abs=1e-12)
    assert 2 * math.atan2(tool.pose.orientation.z, tool.pose.orientation.w) == pytest.approx(
        sum(Q), abs=1e-12
    )
    assert result.joints == tuple(response.solution.position)


def test_branch_0_is_the_default_branch_and_said_so_and_a_seed_is_read_by_name():
    elbow_up = dataclasses.replace(CONFIG, default_branch="elbow_up")
    response, _ = answer(request(*TIP), IkSetup.from_config(elbow_up))
    assert response.solution.position[1] < 0
    assert response.message.endswith("(branch elbow_up: the node's default_branch)")
    # CLOSEST from a seed near the other elbow, given in another order than the config's.
    seed = JointState(name=["elbow", "shoulder"], position=[-0.7, 1.2])
    response, _ = answer(request(*TIP, seed=seed))
    assert response.solution.position[1] == pytest.approx(-Q[1], abs=1e-12)
    # Without a seed, the latest joint_states decide.
    response, _ = answer(request(*TIP), latest=(1.2, -0.7))
    assert response.solution.position[1] == pytest.approx(-Q[1], abs=1e-12)


def test_a_refused_request_raises_the_refusal_that_names_its_status():
    with pytest.raises(WrongFrame):
        answer(request(*TIP, frame="map"))
    with pytest.raises(OffPlane):
        answer(request(*TIP, z=0.01))
    with pytest.raises(Refusal, match="unknown branch value 7"):
        branch_of(7, SETUP.default_branch)
    with pytest.raises(Refusal, match=r"^seed: unknown joint 'wrist'"):
        current_joints(JointState(name=["wrist"], position=[0.0]), SETUP.joint_names, None)
    # An unreachable target is an answer, not a refusal.
    response, result = answer(request(0.3, 0.0))
    assert response.status == IK.TOO_FAR
    assert not result.ok
    assert response.tool.header.frame_id == ""


def test_a_target_in_the_parent_frame_is_answered_with_where_it_was_solved():
    mounted = dataclasses.replace(
        CONFIG, mount=MountConfig("world", (1.0, 0.0, 0.5), (0.0, 0.0, 0.0))
    )
    response, _ = answer(request(1.0 + TIP[0], TIP[1], "world", 0.5), IkSetup.from_config(mounted))
    assert response.status == IK.OK, response.message
    assert response.message.endswith(
        f"; target given in 'world', solved in 'base_link' at ({TIP[0]:.4f}, {TIP[1]:.4f}) m"
    )


def test_a_batch_answers_per_target_and_a_big_one_is_refused_before_anything_is_read():
    message = SolveIKBatch.Request(x=[TIP[0], 0.3], y=[TIP[1], 0.0])
    response = SolveIKBatch.Response()
    solve_ik_batch(SETUP, message, response, None)
    assert list(response.statuses) == [IK.OK, IK.TOO_FAR]
    assert response.first_failure == 1
    assert response.status == IK.TOO_FAR
    assert response.message.startswith("1 of 2 targets solved; first failure at index 1")
    assert all(math.isnan(v) for v in response.positions[2:])
    small = dataclasses.replace(CONFIG, max_batch_targets=1)
    with pytest.raises(Refusal, match="holds 2 targets, more than the limit of 1"):
        solve_ik_batch(IkSetup.from_config(small), message, SolveIKBatch.Response(), None)
    with pytest.raises(Refusal, match="holds 3 targets"):
        check_size(SolveIKBatch.Request(x=[0.1], roll=[0.0, 0.0, 0.0]), 2)


def test_compute_fk_gives_the_frames_as_tf_names_them_and_its_own_statuses():
    message = ComputeFK.Request(joints=JointState(name=["shoulder", "elbow"], position=Q))
    response = ComputeFK.Response()
    compute_fk(SETUP, message, response, None)
    assert response.status == FK.OK
    assert frame_names(SETUP) == ["base_link", "link_1", "link_2", "tool0"]
    assert list(response.frame_names) == frame_names(SETUP)
    tip = response.tip.pose.position
    assert (tip.x, tip.y) == pytest.approx(TIP, abs=1e-12)
    missing = ComputeFK.Request(joints=JointState(name=["shoulder"], position=[0.0]))
    with pytest.raises(JointStateError) as refused:
        compute_fk(SETUP, missing, ComputeFK.Response(), None)
    assert fk_status(refused.value) == FK.MISSING_JOINT
    assert fk_status(Refusal("anything else")) == FK.INVALID_INPUT


def test_each_kind_of_arm_gets_its_own_layout():
    spatial = SpatialArm((0.1, 0.08), shoulder_height=0.05)
    assert isinstance(layout_for(spatial, SETUP.targets), SpatialLayout)
    assert isinstance(layout_for(SETUP.arm, SETUP.targets), PlanarLayout)


def test_the_markers_of_a_request_draw_only_what_was_answered():
    message = request(*TIP, branch=SolveIK.Request.BRANCH_ELBOW_DOWN)
    response, result = answer(message)
    drawn = MarkerRequest.of(message, response, result, "base_link")
    assert drawn.target == (*TIP, 0.0)
    assert drawn.target_frame_id == "base_link"  # an empty frame_id: the base frame
    assert (drawn.status_name, drawn.solution) == ("OK", result.joints)
    refused = MarkerRequest.of(request(math.nan, 0.0), IK(status=IK.INVALID_INPUT), None, "b")
    assert (refused.target, refused.status_name, refused.solution) == (None, "INVALID_INPUT", None)
