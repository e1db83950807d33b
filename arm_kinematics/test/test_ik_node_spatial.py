"""ik_node serving a spatial arm (config/arm_desk_kit.yaml: yaw, shoulder, elbow, wrist pitch,
wrist roll), through rclpy clients: 3D targets in every orientation mode, the tool pose out,
the batch, FK frame by frame against the URDF's joint chain, the statuses 3D adds, and random
malformed requests that never stop the node from answering."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import numpy as np
import pytest
import transforms3d
from ik_clients import Clients
from rclpy.parameter import Parameter
from ros_helpers import PACKAGE_DIR, ros_graph
from urdf_chain import UrdfChain

from arm_kinematics.config import ArmConfig, load_parameters_file
from arm_kinematics.description import robot_description
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK, SolveIKBatch

pytestmark = pytest.mark.ros

IK = SolveIK.Response
CONFIG = PACKAGE_DIR / "config" / "arm_desk_kit.yaml"
ARM_CONFIG = ArmConfig.from_file(CONFIG)
ARM = ARM_CONFIG.make_arm()
NAMES = ARM_CONFIG.joint_names
NAMESPACE = "desk_kit"


@pytest.fixture(scope="module")
def kit() -> Iterator[Clients]:
    overrides = [Parameter(k, value=v) for k, v in load_parameters_file(CONFIG).items()]
    with ros_graph() as graph:
        graph.add(IkNode(context=graph.context, namespace=NAMESPACE, parameter_overrides=overrides))
        yield Clients(graph, NAMESPACE)


def request(x, y, z, mode=SolveIK.Request.POSITION_ONLY, tool_angle=0.0, quaternion=None):
    message = SolveIK.Request()
    message.target.header.frame_id = "base_link"
    position = message.target.pose.position
    position.x, position.y, position.z = float(x), float(y), float(z)
    message.orientation_mode = mode
    message.tool_angle = float(tool_angle)
    o = message.target.pose.orientation
    o.x, o.y, o.z, o.w = quaternion or (0.0, 0.0, 0.0, 1.0)
    return message


def random_tool(rng: random.Random):
    """The tool pose of random joints within the limits and inside the kit's workspace
    envelope (above its table, out of its base column: docs/workspace.md)."""
    while True:
        joints = [rng.uniform(lo, hi) for lo, hi in ARM.joint_limits]
        if ARM.within_limits(joints) and ARM.envelope.check(joints) is None:
            return ARM.forward(joints)


def rotation_of(pose) -> np.ndarray:
    o = pose.orientation
    return transforms3d.quaternions.quat2mat((o.w, o.x, o.y, o.z))


def test_a_3d_target_is_solved_in_every_orientation_mode_and_the_tool_pose_says_where(
    kit: Clients,
) -> None:
    rng = random.Random("spatial ik_node")
    for _ in range(10):
        tool = random_tool(rng)
        w, x, y, z = transforms3d.quaternions.mat2quat(tool.rotation)
        answers = {
            "position": kit.solve(request(tool.x, tool.y, tool.z)),
            "pitch": kit.solve(request(*tool.position, SolveIK.Request.TOOL_ANGLE, tool.pitch)),
            "full": kit.solve(
                request(*tool.position, SolveIK.Request.FULL_ORIENTATION, quaternion=(x, y, z, w))
            ),
        }
        for mode, answer in answers.items():
            assert answer.status in (IK.OK, IK.SINGULAR), (mode, answer.message)
            assert list(answer.solution.name) == list(NAMES)
            solved = ARM.forward(answer.solution.position)
            assert math.dist(solved.position, tool.position) < 1e-9, mode
            p = answer.tool.pose.position
            assert math.dist((p.x, p.y, p.z), tool.position) < 1e-9, mode
            if mode == "pitch":
                assert abs(math.remainder(solved.pitch - tool.pitch, math.tau)) < 1e-9
            if mode == "full":
                assert np.abs(rotation_of(answer.tool.pose) - tool.rotation).max() < 1e-9


def test_straight_down_to_pick(kit: Clients) -> None:
    answer = kit.solve(request(0.12, 0.05, 0.02, SolveIK.Request.TOOL_ANGLE, -math.pi / 2))
    assert answer.status == IK.OK, answer.message
    x_axis = rotation_of(answer.tool.pose)[:, 0]
    assert x_axis == pytest.approx((0.0, 0.0, -1.0), abs=1e-9)


def test_the_statuses_3d_adds_reach_the_client_with_their_words(kit: Clients) -> None:
    far = kit.solve(request(0.5, 0.0, 0.1))
    assert far.status == IK.TOO_FAR
    assert "from the shoulder, beyond the arm's reach" in far.message
    # The yaw is +-90 deg: behind and to the right is over the back, where the wrist cannot
    # bend far enough to put the tool 0.206 m out at the shoulder's height.
    behind = kit.solve(request(-0.05, -0.2, 0.07))
    assert behind.status == IK.JOINT_LIMIT
    assert behind.message.startswith("JOINT_LIMIT: over the back (yaw 75.96 deg)")
    assert "from the front the yaw would be -104.04 deg, outside its limits" in behind.message
    twisted = transforms3d.euler.euler2quat(0.0, 0.0, 0.8)  # (w, x, y, z): a yaw of the tool
    refused = kit.solve(
        request(0.15, 0.0, 0.05, SolveIK.Request.FULL_ORIENTATION,
                quaternion=(*twisted[1:], twisted[0]))
    )  # fmt: skip
    assert refused.status == IK.ORIENTATION_UNREACHABLE
    assert "about its own z axis" in refused.message
    assert refused.solution.name == []


def test_a_batch_of_3d_targets_with_pitch(kit: Clients) -> None:
    rng = random.Random("batch")
    tools = [random_tool(rng) for _ in range(20)]
    batch = SolveIKBatch.Request()
    batch.header.frame_id = "base_link"
    batch.x = [t.x for t in tools]
    batch.y = [t.y for t in tools]
    batch.z = [t.z for t in tools]
    batch.orientation_mode = SolveIKBatch.Request.TOOL_ANGLE
    batch.tool_angle = [t.pitch for t in tools]
    answer = kit.batch(batch)
    assert answer.status == IK.OK, answer.message
    rows = np.asarray(answer.positions).reshape(len(tools), len(NAMES))
    for tool, row in zip(tools, rows, strict=True):
        assert math.dist(ARM.forward(row).position, tool.position) < 1e-9
    short = SolveIKBatch.Request(x=[0.1], y=[0.0])  # no z for a spatial arm
    refused = kit.batch(short)
    assert refused.status == IK.INVALID_INPUT
    assert "needs x, y and z for every target" in refused.message


def test_compute_fk_frames_are_the_urdf_frames(kit: Clients) -> None:
    urdf = robot_description(CONFIG)
    rng = random.Random("fk")
    joints = [rng.uniform(lo, hi) for lo, hi in ARM.joint_limits]
    answer = kit.fk(NAMES, joints)
    assert answer.status == ComputeFK.Response.OK, answer.message
    assert list(answer.frame_names) == [
        "base_link", "yaw_link", "link_1", "link_2", "link_3", "roll_link", "tool0"
    ]  # fmt: skip
    for name, pose in zip(answer.frame_names, answer.frames, strict=True):
        chain = UrdfChain(urdf, "base_link", name)
        expected = chain.tip_transform(joints[: len(chain.movable)])
        p = pose.pose.position
        assert (p.x, p.y, p.z) == pytest.approx(tuple(expected[:3, 3]), abs=1e-12), name
        assert rotation_of(pose.pose) == pytest.approx(expected[:3, :3], abs=1e-12), name


def test_random_malformed_requests_never_stop_the_node_answering(kit: Clients) -> None:
    rng = random.Random("junk")
    junk = [math.nan, math.inf, -math.inf, 1e300, -1e-300, 0.0, 3.0]
    for _ in range(60):
        message = request(*(rng.choice(junk) for _ in range(3)))
        message.orientation_mode = rng.choice([0, 1, 2, 3, 255])
        message.tool_angle = rng.choice(junk)
        o = message.target.pose.orientation
        o.x, o.y, o.z, o.w = (rng.choice(junk) for _ in range(4))
        message.branch = rng.choice([0, 1, 2, 3, 9])
        message.target.header.frame_id = rng.choice(["", "base_link", "map"])
        if rng.random() < 0.3:
            message.seed.name = [rng.choice(NAMES)]
            message.seed.position = [rng.choice(junk)]
        answer = kit.solve(message)
        assert answer.status != IK.OK or math.isfinite(answer.solution.position[0])
        assert answer.message
    assert kit.solve(request(0.15, 0.0, 0.1)).status in (IK.OK, IK.SINGULAR)  # still serving


def test_a_direction_beyond_the_yaw_limits_both_ways_is_yaw_limit() -> None:
    config = PACKAGE_DIR / "config" / "arm_mearm.yaml"  # yaw +-80 deg
    overrides = [Parameter(k, value=v) for k, v in load_parameters_file(config).items()]
    with ros_graph() as graph:
        graph.add(IkNode(context=graph.context, namespace="mearm", parameter_overrides=overrides))
        answer = Clients(graph, "mearm").solve(request(0.0, 0.1, 0.05))  # straight to the left
    assert answer.status == IK.YAW_LIMIT
    assert "needs base = 90.00 deg, or -90.00 deg over the back; both outside" in (answer.message)
