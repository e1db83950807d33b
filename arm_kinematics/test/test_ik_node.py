"""The IK node's services, called through rclpy clients as `ros2 service call` would.

The node runs in this process on the shared 4-thread WorkerBoundExecutor of `ros_graph()`,
with link lengths (1.0, 0.8) m (the issue's reference arm) and the packaged joint limits
(+-90 deg). Expected numbers come from the geometry (law of cosines, FK), not from the node.
"""

from __future__ import annotations

import dataclasses
import math
import random
import threading
from typing import Any

import pytest
import transforms3d
import yaml
from ik_clients import LENGTHS, Clients, make_ik_node, target
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_helpers import PACKAGE_DIR, RosGraph, ros_graph, wait_for, wait_for_future
from sensor_msgs.msg import JointState
from urdf_chain import UrdfChain
from visualization_msgs.msg import MarkerArray

from arm_kinematics.config import ArmConfig, load_parameters_file
from arm_kinematics.description import robot_description
from arm_kinematics.kinematics import PlanarArm
from arm_kinematics.nodes.ik.requests import PlanarLayout
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK, SolveIKBatch

pytestmark = pytest.mark.ros

IK = SolveIK.Response
FK = ComputeFK.Response
LIMIT = math.radians(90.0)
NAMES = ("shoulder", "elbow")
DEG = math.radians
# Reference answer of the issue: L = (1.0, 0.8), joints (30 deg, 45 deg).
REFERENCE_TARGET = (1.0731, 1.2727)
# The exact tip of (30, 45) deg: x = cos 30 + 0.8 cos 75, y = sin 30 + 0.8 sin 75.
EXACT_TIP = (
    math.cos(DEG(30)) + 0.8 * math.cos(DEG(75)),
    math.sin(DEG(30)) + 0.8 * math.sin(DEG(75)),
)


def tip_of(joints) -> tuple[float, float]:
    """FK by the law of the sum of angles (independent of the node)."""
    q1, q2 = joints
    return (
        LENGTHS[0] * math.cos(q1) + LENGTHS[1] * math.cos(q1 + q2),
        LENGTHS[0] * math.sin(q1) + LENGTHS[1] * math.sin(q1 + q2),
    )


@pytest.fixture(scope="module")
def arm(graph: RosGraph) -> Clients:
    make_ik_node(graph)
    return Clients(graph)


# --- reference answers ---------------------------------------------------------------------------


def test_reference_target_gives_both_elbows_and_fk_reproduces_it(arm: Clients) -> None:
    response = arm.solve(target(*REFERENCE_TARGET))
    assert response.status == IK.OK, response.message
    assert list(response.solution.name) == list(NAMES)
    assert list(response.alternative.name) == list(NAMES)
    solution = tuple(response.solution.position)
    alternative = tuple(response.alternative.position)
    # Without seed or joint_states the branch farthest from the limits wins: elbow down.
    assert solution == pytest.approx((DEG(30), DEG(45)), abs=DEG(0.01))
    # The other elbow: joint 2 mirrored, joint 1 turned by twice the triangle's angle at the base.
    q2 = solution[1]
    beta = math.atan2(0.8 * math.sin(q2), 1.0 + 0.8 * math.cos(q2))
    assert alternative == pytest.approx((solution[0] + 2 * beta, -q2), abs=1e-9)
    assert alternative == pytest.approx((DEG(69.73), DEG(-45)), abs=DEG(0.01))
    for joints in (solution, alternative):
        assert tip_of(joints) == pytest.approx(REFERENCE_TARGET, abs=1e-9)
        fk = arm.fk(NAMES, joints)
        assert fk.status == FK.OK, fk.message
        tip = fk.tip.pose.position
        assert (tip.x, tip.y, tip.z) == pytest.approx((*REFERENCE_TARGET, 0.0), abs=1e-9)
    # 2R manipulability L1 L2 |sin q2|.
    assert response.manipulability == pytest.approx(0.8 * math.sin(solution[1]), rel=1e-9)
    assert "elbow down" in response.message


def test_explicit_branches_swap_solution_and_alternative(arm: Clients) -> None:
    up = arm.solve(target(*EXACT_TIP, branch=SolveIK.Request.BRANCH_ELBOW_UP))
    down = arm.solve(target(*EXACT_TIP, branch=SolveIK.Request.BRANCH_ELBOW_DOWN))
    assert up.status == down.status == IK.OK
    assert tuple(down.solution.position) == pytest.approx((DEG(30), DEG(45)), abs=1e-12)
    assert up.solution.position[1] < 0 < down.solution.position[1]
    assert tuple(up.alternative.position) == pytest.approx(tuple(down.solution.position))
    assert tuple(down.alternative.position) == pytest.approx(tuple(up.solution.position))


def test_seed_chooses_the_closest_elbow(arm: Clients) -> None:
    near_up = arm.solve(target(*EXACT_TIP, seed={"elbow": DEG(-40), "shoulder": DEG(60)}))
    assert near_up.status == IK.OK
    assert near_up.solution.position[1] == pytest.approx(DEG(-45), abs=1e-12)
    assert "least motion from current" in near_up.message
    near_down = arm.solve(target(*EXACT_TIP, seed={"shoulder": DEG(20), "elbow": DEG(50)}))
    assert tuple(near_down.solution.position) == pytest.approx((DEG(30), DEG(45)), abs=1e-12)


def test_heading_is_met_when_the_arm_has_it(arm: Clients) -> None:
    response = arm.solve(target(*EXACT_TIP, heading=DEG(75)))
    assert response.status == IK.OK, response.message
    assert tuple(response.solution.position) == pytest.approx((DEG(30), DEG(45)), abs=1e-9)
    assert len(response.alternative.name) == 0  # the other elbow has another heading


def test_a_tool_angle_is_the_heading_and_the_answer_carries_the_tool_pose(arm: Clients) -> None:
    full = arm.solve(target(*EXACT_TIP, heading=DEG(75)))
    request = target(*EXACT_TIP)
    request.orientation_mode = SolveIK.Request.TOOL_ANGLE
    request.tool_angle = DEG(75)
    o = request.target.pose.orientation
    o.x, o.y, o.z, o.w = 0.0, 0.0, 0.0, 0.0  # ignored with TOOL_ANGLE
    angle = arm.solve(request)
    assert angle.status == full.status == IK.OK, angle.message
    assert tuple(angle.solution.position) == tuple(full.solution.position)
    # `tool` is the FK of the solution in the base frame: the target, turned by the heading.
    tool = angle.tool
    assert tool.header.frame_id == "base_link"
    p, q = tool.pose.position, tool.pose.orientation
    assert (p.x, p.y, p.z) == pytest.approx((*EXACT_TIP, 0.0), abs=1e-9)
    assert (q.x, q.y, q.z, q.w) == pytest.approx(
        (0.0, 0.0, math.sin(DEG(37.5)), math.cos(DEG(37.5))), abs=1e-9
    )
    request.tool_angle = DEG(10)
    refused = arm.solve(request)
    assert refused.status == IK.ORIENTATION_UNREACHABLE
    assert refused.tool.header.frame_id == ""  # an empty pose when refused
    request.tool_angle = math.nan
    assert "tool_angle = nan" in arm.solve(request).message
    request.orientation_mode = 3
    unknown = arm.solve(request)
    assert unknown.status == IK.INVALID_INPUT
    assert "unknown orientation_mode 3" in unknown.message


def test_orientation_is_ignored_when_position_only(arm: Clients) -> None:
    request = target(*EXACT_TIP)
    o = request.target.pose.orientation
    o.x, o.y, o.z, o.w = 0.0, 0.0, 0.0, 0.0  # not a rotation at all
    assert request.orientation_mode == SolveIK.Request.POSITION_ONLY
    assert arm.solve(request).status == IK.OK
    request.target.header.frame_id = ""  # empty frame_id means the base frame
    assert arm.solve(request).status == IK.OK


# --- every status --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "status", "words"),
    [
        (target(1.8, 0.0), IK.SINGULAR, "slow down"),
        (target(0.0, 1.79999), IK.SINGULAR, "singularity margin"),
        (target(2.0, 0.0), IK.TOO_FAR, "beyond the arm's reach of 1.8 m"),
        (target(0.1, 0.0), IK.TOO_CLOSE, "hole of radius 0.2 m"),
        # r = 1: the elbow needs acos((1 - 1.64) / 1.6) = 113.6 deg, beyond its 90 deg.
        (target(1.0, 0.0), IK.JOINT_LIMIT, "elbow = 113.58 deg"),
        (target(*EXACT_TIP, heading=0.0), IK.ORIENTATION_UNREACHABLE, "75.00 deg (elbow down)"),
        (target(math.nan, 0.5), IK.INVALID_INPUT, "must be finite"),
        (target(0.5, math.inf), IK.INVALID_INPUT, "must be finite"),
        (target(1.0, 0.5, branch=4), IK.INVALID_INPUT, "unknown branch value 4"),
        (target(1.0, 0.5, frame="world"), IK.WRONG_FRAME, "'world' is not the arm's base"),
        (target(1.0, 0.5, z=0.01), IK.OFF_PLANE, "0.01 m off the arm's plane"),
        (target(1.0, 0.5, z=-0.0011), IK.OFF_PLANE, "0.0011 m off"),
        (
            target(1.0, 0.5, quaternion=(math.sin(0.1), 0.0, 0.0, math.cos(0.1))),
            IK.INVALID_ORIENTATION,
            "not a rotation about z",
        ),
        (target(1.0, 0.5, quaternion=(0.0, 0.0, 0.0, 0.0)), IK.INVALID_ORIENTATION, "norm 0"),
        (
            target(1.0, 0.5, quaternion=(0.0, 0.0, math.nan, 1.0)),
            IK.INVALID_INPUT,
            "orientation",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_every_status_comes_back_with_a_message(
    arm: Clients, request_: SolveIK.Request, status: int, words: str
) -> None:
    response = arm.solve(request_)
    assert response.status == status, response.message
    assert words in response.message
    if status in (IK.OK, IK.SINGULAR):
        assert tip_of(response.solution.position) == pytest.approx(
            (request_.target.pose.position.x, request_.target.pose.position.y), abs=1e-5
        )
    else:
        assert len(response.solution.position) == 0
        assert len(response.alternative.position) == 0
        assert response.manipulability == 0.0


def test_plane_tolerance_is_inclusive(arm: Clients) -> None:
    assert arm.solve(target(*EXACT_TIP, z=0.000999)).status == IK.OK


@pytest.mark.parametrize(
    ("seed", "words"),
    [
        ({"shoulder": 0.1, "wrist": 0.2}, "unknown joint 'wrist'"),
        ({"shoulder": 0.1}, "joint 'elbow' is missing"),
        ({"shoulder": 0.1, "elbow": math.nan}, "joint 'elbow' position nan is not finite"),
    ],
)
def test_bad_seeds_are_refused_naming_the_joint(
    arm: Clients, seed: dict[str, float], words: str
) -> None:
    response = arm.solve(target(*EXACT_TIP, seed=seed))
    assert response.status == IK.INVALID_INPUT
    assert response.message.startswith("seed: ")
    assert words in response.message


def test_seed_with_a_duplicate_name_or_a_length_mismatch_is_refused(arm: Clients) -> None:
    request = target(*EXACT_TIP)
    request.seed.name = ["shoulder", "shoulder"]
    request.seed.position = [0.1, 0.2]
    response = arm.solve(request)
    assert response.status == IK.INVALID_INPUT
    assert "joint 'shoulder' is given twice" in response.message
    request.seed.name = ["shoulder", "elbow"]
    request.seed.position = [0.1]
    response = arm.solve(request)
    assert response.status == IK.INVALID_INPUT
    assert "2 names but 1 positions" in response.message


@pytest.mark.parametrize(
    ("request_", "status"),
    [
        # frame before numbers, numbers before plane, plane before orientation, orientation
        # before branch, branch before seed.
        (target(math.nan, 0.0, frame="world"), IK.WRONG_FRAME),
        (target(math.nan, 0.0, z=1.0), IK.INVALID_INPUT),
        (target(1.0, 0.5, z=1.0, quaternion=(0.0, 0.0, 0.0, 2.0)), IK.OFF_PLANE),
        (target(1.0, 0.5, quaternion=(0.0, 0.0, 0.0, 2.0), branch=9), IK.INVALID_ORIENTATION),
        (target(1.0, 0.5, branch=9, seed={"wrist": 0.0}), IK.INVALID_INPUT),
    ],
)
def test_checks_run_in_the_documented_order(
    arm: Clients, request_: SolveIK.Request, status: int
) -> None:
    response = arm.solve(request_)
    assert response.status == status, response.message
    if request_.branch == 9 and status == IK.INVALID_INPUT:
        assert "branch" in response.message


# --- compute_fk ----------------------------------------------------------------------------------


def test_compute_fk_gives_every_frame(arm: Clients) -> None:
    response = arm.fk(("elbow", "shoulder"), (DEG(45), DEG(30)))
    assert response.status == FK.OK
    assert response.within_limits
    # TF's frames: the base, link_1 on the shoulder axis, link_2 on the elbow axis, the tip.
    assert list(response.frame_names) == ["base_link", "link_1", "link_2", "tool0"]
    assert all(f.header.frame_id == "base_link" for f in response.frames)
    points = [(f.pose.position.x, f.pose.position.y) for f in response.frames]
    yaws = [2 * math.atan2(f.pose.orientation.z, f.pose.orientation.w) for f in response.frames]
    assert points[0] == points[1] == (0.0, 0.0)
    assert points[2] == pytest.approx((math.cos(DEG(30)), math.sin(DEG(30))), abs=1e-12)
    assert points[3] == pytest.approx(EXACT_TIP, abs=1e-12)
    assert yaws == pytest.approx([0.0, DEG(30), DEG(75), DEG(75)], abs=1e-12)
    assert response.tip.header.frame_id == "base_link"
    tip = response.tip.pose
    assert (tip.position.x, tip.position.y) == pytest.approx(EXACT_TIP, abs=1e-12)
    assert (tip.orientation.z, tip.orientation.w) == pytest.approx(
        (math.sin(DEG(37.5)), math.cos(DEG(37.5))), abs=1e-12
    )
    assert response.manipulability == pytest.approx(0.8 * math.sin(DEG(45)), rel=1e-12)
    assert "frames: base_link, link_1, link_2, tool0" in response.message


@pytest.mark.parametrize("config_name", ["arm.yaml", "arm_3r.yaml"])
def test_compute_fk_frames_are_the_urdf_links_as_tf_chains_them(config_name: str) -> None:
    config = PACKAGE_DIR / "config" / config_name
    overrides = [Parameter(k, value=v) for k, v in load_parameters_file(config).items()]
    urdf = robot_description(config)
    rng = random.Random(config_name)
    with ros_graph() as graph:
        graph.add(IkNode(context=graph.context, namespace="fk_urdf", parameter_overrides=overrides))
        clients = Clients(graph, "fk_urdf")
        names = ArmConfig.from_file(config).joint_names
        for _ in range(5):
            joints = [rng.uniform(-1.5, 1.5) for _ in names]
            response = clients.fk(names, joints)
            assert response.status == FK.OK, response.message
            for name, pose in zip(response.frame_names, response.frames, strict=True):
                chain = UrdfChain(urdf, "base_link", name)
                expected = chain.tip_transform(joints[: len(chain.movable)])
                p, o = pose.pose.position, pose.pose.orientation
                assert (p.x, p.y, p.z) == pytest.approx(tuple(expected[:3, 3]), abs=1e-12), name
                rotation = transforms3d.quaternions.quat2mat((o.w, o.x, o.y, o.z))
                assert rotation == pytest.approx(expected[:3, :3], abs=1e-12), name


def test_compute_fk_outside_limits_still_answers(arm: Clients) -> None:
    response = arm.fk(NAMES, (0.0, DEG(120)))
    assert response.status == FK.OK
    assert not response.within_limits
    assert "elbow 120.00 deg outside [-90.0, 90.0]" in response.message
    tip = response.tip.pose.position
    assert (tip.x, tip.y) == pytest.approx(tip_of((0.0, DEG(120))), abs=1e-12)


@pytest.mark.parametrize(
    ("names", "positions", "status", "words"),
    [
        (["shoulder", "wrist"], [0.0, 0.0], FK.UNKNOWN_JOINT, "'wrist'"),
        (["shoulder", "shoulder"], [0.0, 0.0], FK.UNKNOWN_JOINT, "'shoulder' is given twice"),
        (["elbow"], [0.0], FK.MISSING_JOINT, "'shoulder' is missing"),
        ([], [], FK.MISSING_JOINT, "'shoulder' is missing"),
        (["shoulder", "elbow"], [0.0], FK.INVALID_INPUT, "2 names but 1 positions"),
        (["shoulder", "elbow"], [math.inf, 0.0], FK.INVALID_INPUT, "not finite"),
    ],
)
def test_compute_fk_refuses_bad_joint_states(
    arm: Clients, names: list[str], positions: list[float], status: int, words: str
) -> None:
    response = arm.fk(names, positions)
    assert response.status == status
    assert words in response.message
    assert len(response.frames) == 0


# --- solve_ik_batch ------------------------------------------------------------------------------


def batch_request(xs, ys, **fields: Any) -> SolveIKBatch.Request:
    request = SolveIKBatch.Request()
    request.header.frame_id = "base_link"
    request.x = [float(v) for v in xs]
    request.y = [float(v) for v in ys]
    for name, value in fields.items():
        setattr(request, name, value)
    return request


def test_batch_of_1000_targets_answers_per_target(arm: Clients) -> None:
    # An arc of radius 1.5 m from -60 to 60 deg, with targets 300..399 pushed out to 2 m.
    count = 1000
    angles = [DEG(-60 + 120 * k / (count - 1)) for k in range(count)]
    radii = [2.0 if 300 <= k < 400 else 1.5 for k in range(count)]
    xs = [r * math.cos(a) for r, a in zip(radii, angles, strict=True)]
    ys = [r * math.sin(a) for r, a in zip(radii, angles, strict=True)]
    response = arm.batch(batch_request(xs, ys))
    assert len(response.statuses) == count
    assert list(response.joint_names) == list(NAMES)
    assert len(response.positions) == 2 * count
    assert len(response.manipulability) == count
    expected = [IK.TOO_FAR if 300 <= k < 400 else IK.OK for k in range(count)]
    assert list(response.statuses) == expected
    assert response.status == IK.TOO_FAR
    assert response.first_failure == 300
    assert "900 of 1000 targets solved; first failure at index 300 (TOO_FAR)" in (response.message)
    elbow_signs = set()
    for k in range(count):
        row = response.positions[2 * k : 2 * k + 2]
        if expected[k] == IK.OK:
            assert tip_of(row) == pytest.approx((xs[k], ys[k]), abs=1e-9)
            assert response.manipulability[k] == pytest.approx(0.8 * abs(math.sin(row[1])))
            elbow_signs.add(row[1] > 0)
        else:
            assert all(math.isnan(v) for v in row)
            assert response.manipulability[k] == 0.0
    assert len(elbow_signs) == 1  # each target seeded by the previous: no branch flip


def test_batch_stop_on_failure_marks_the_rest_not_attempted(arm: Clients) -> None:
    xs, ys = [1.5, 1.5, 5.0, 1.5, 1.5], [0.0, 0.1, 0.0, 0.2, 0.3]
    response = arm.batch(batch_request(xs, ys, stop_on_failure=True))
    assert list(response.statuses) == [IK.OK, IK.OK, IK.TOO_FAR, IK.INVALID_INPUT, IK.INVALID_INPUT]
    assert response.first_failure == 2
    assert response.status == IK.TOO_FAR
    assert "2 later targets were not attempted" in response.message
    assert all(math.isnan(v) for v in response.positions[4:])
    assert tip_of(response.positions[2:4]) == pytest.approx((1.5, 0.1), abs=1e-9)
    without_stop = arm.batch(batch_request(xs, ys))
    assert list(without_stop.statuses) == [IK.OK, IK.OK, IK.TOO_FAR, IK.OK, IK.OK]


def test_batch_headings_and_seed(arm: Clients) -> None:
    request = batch_request(
        [EXACT_TIP[0]] * 2,
        [EXACT_TIP[1]] * 2,
        orientation_mode=SolveIKBatch.Request.FULL_ORIENTATION,
        tool_angle=[DEG(75), DEG(10)],
        seed=JointState(name=list(NAMES), position=[0.0, 0.0]),
    )
    response = arm.batch(request)
    assert list(response.statuses) == [IK.OK, IK.ORIENTATION_UNREACHABLE]
    assert tuple(response.positions[:2]) == pytest.approx((DEG(30), DEG(45)), abs=1e-9)
    # The seed decides the first target's elbow: from near elbow-up, elbow up.
    seeded = arm.batch(
        batch_request(
            [EXACT_TIP[0]], [EXACT_TIP[1]], seed=JointState(name=list(NAMES), position=[1.2, -0.7])
        )
    )
    assert seeded.positions[1] == pytest.approx(DEG(-45), abs=1e-9)


@pytest.mark.parametrize(
    ("fields", "status", "words"),
    [
        ({"y": [0.0]}, IK.INVALID_INPUT, "x has 2 values but y has 1"),
        (
            {"orientation_mode": SolveIKBatch.Request.TOOL_ANGLE, "tool_angle": [0.0]},
            IK.INVALID_INPUT,
            "TOOL_ANGLE: tool_angle needs 2 values",
        ),
        ({"orientation_mode": 3}, IK.INVALID_INPUT, "unknown orientation_mode 3"),
        ({"z": [0.0]}, IK.INVALID_INPUT, "z has 1 values: give one per target (2) or none"),
        ({"z": [0.0, math.nan]}, IK.INVALID_INPUT, "z[1] = nan"),
        ({"z": [0.0, 0.5]}, IK.OFF_PLANE, "0.5 m off the arm's plane"),
        ({"branch": 200}, IK.INVALID_INPUT, "unknown branch value 200"),
        ({"seed": JointState(name=["knee"], position=[0.0])}, IK.INVALID_INPUT, "'knee'"),
    ],
)
def test_batch_request_level_refusals(
    arm: Clients, fields: dict[str, Any], status: int, words: str
) -> None:
    response = arm.batch(batch_request([1.5, 1.5], [0.0, 0.1], **fields))
    assert response.status == status
    assert words in response.message
    assert len(response.statuses) == 0
    assert response.first_failure == -1


def test_batch_wrong_frame_and_non_finite_targets(arm: Clients) -> None:
    request = batch_request([1.5], [0.0])
    request.header.frame_id = "map"
    wrong = arm.batch(request)
    assert wrong.status == IK.WRONG_FRAME
    assert "'map' is not the arm's base frame 'base_link'" in wrong.message
    mixed = arm.batch(batch_request([1.5, math.nan, 1.5], [0.0, 0.0, 0.1]))
    assert list(mixed.statuses) == [IK.OK, IK.INVALID_INPUT, IK.OK]
    empty = arm.batch(batch_request([], []))
    assert empty.status == IK.OK
    assert len(empty.statuses) == 0


# --- parameters, namespaces, joint_states --------------------------------------------------------


def test_geometry_changes_at_run_time_are_refused(graph: RosGraph, arm: Clients) -> None:
    client = arm.node.create_client(SetParameters, "/ik_node/set_parameters")
    request = SetParameters.Request()
    request.parameters = [
        ParameterMsg(
            name="link_lengths_m",
            value=ParameterValue(
                type=ParameterType.PARAMETER_DOUBLE_ARRAY, double_array_value=[0.5, 0.5]
            ),
        )
    ]
    result = graph.call(client, request).results[0]
    assert not result.successful
    assert "read-only" in result.reason
    # Still the old geometry: reach 1.8 m.
    assert arm.solve(target(1.7, 0.0)).status == IK.OK


def test_two_arms_in_two_namespaces(graph: RosGraph, arm: Clients) -> None:
    make_ik_node(graph, lengths=(0.1, 0.08), namespace="left")
    make_ik_node(graph, lengths=(1.2, 1.0), namespace="right")
    left, right = Clients(graph, "left"), Clients(graph, "right")
    assert left.solve(target(*REFERENCE_TARGET)).status == IK.TOO_FAR
    assert right.solve(target(*REFERENCE_TARGET)).status == IK.OK
    assert left.solve(target(0.15, 0.0)).status == IK.OK
    assert arm.solve(target(0.15, 0.0)).status == IK.TOO_CLOSE  # the root arm is untouched


def test_an_unexpected_error_is_answered_and_the_node_keeps_serving(graph: RosGraph) -> None:
    node = make_ik_node(graph, LENGTHS, "faulty")
    clients = Clients(graph, "faulty")
    healthy = node.ik
    # The node computes its reachable region once it spins, with its arm: swap the arm only
    # after that (a broken arm there would raise in the timer and stop the shared executor).
    regions: list[MarkerArray] = []
    graph.node("faulty_region_listener").create_subscription(
        MarkerArray,
        "/faulty/ik_markers",
        lambda msg: (
            regions.append(msg) if any(m.ns == "reachable_region" for m in msg.markers) else None
        ),
        QoSProfile(depth=5, durability=DurabilityPolicy.TRANSIENT_LOCAL),
    )
    wait_for(lambda: regions, what="the reachable region on /faulty/ik_markers")

    class BrokenArm:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError(f"broken {name}")

    broken = BrokenArm()
    node.ik = dataclasses.replace(healthy, arm=broken, layout=PlanarLayout(broken, healthy.targets))
    try:
        solve = clients.solve(target(*REFERENCE_TARGET))
        request = SolveIKBatch.Request()
        request.x, request.y = [REFERENCE_TARGET[0]], [REFERENCE_TARGET[1]]
        batch = clients.batch(request)
        fk = clients.fk(NAMES, (DEG(30), DEG(45)))
    finally:
        node.ik = healthy
    for response, status in (
        (solve, IK.INVALID_INPUT),
        (batch, IK.INVALID_INPUT),
        (fk, FK.INVALID_INPUT),
    ):
        assert response.status == status
        assert response.message.startswith("the request could not be processed: RuntimeError")
        assert "broken" in response.message
    assert len(solve.solution.position) == 0
    assert list(batch.joint_names) == list(NAMES)
    assert batch.first_failure == -1
    assert len(fk.frames) == 0
    assert clients.solve(target(*REFERENCE_TARGET)).status == IK.OK


def test_branch_0_uses_the_default_branch_parameter(graph: RosGraph) -> None:
    make_ik_node(graph, LENGTHS, "upper", Parameter("default_branch", value="elbow_up"))
    clients = Clients(graph, "upper")
    # CLOSEST from this seed would be elbow down; the node's default is elbow up.
    response = clients.solve(target(*EXACT_TIP, seed={"shoulder": DEG(30), "elbow": DEG(45)}))
    assert response.solution.position[1] == pytest.approx(DEG(-45))
    assert "(branch elbow_up: the node's default_branch)" in response.message
    explicit = clients.solve(target(*EXACT_TIP, branch=SolveIK.Request.BRANCH_ELBOW_DOWN))
    assert explicit.solution.position[1] == pytest.approx(DEG(45))
    assert "default_branch" not in explicit.message


def test_latest_joint_states_seed_closest_without_a_seed(graph: RosGraph) -> None:
    make_ik_node(graph, namespace="tracked")
    clients = Clients(graph, "tracked")
    # Before any joint_states: the branch farthest from the limits (elbow down here).
    assert clients.solve(target(*EXACT_TIP)).solution.position[1] > 0
    publisher = clients.node.create_publisher(JointState, "/tracked/joint_states", 10)
    wait_for(lambda: publisher.get_subscription_count() > 0, what="joint_states subscription")
    near_up = JointState(name=["gripper", *NAMES], position=[0.0, DEG(65), DEG(-40)])

    def closest_is_elbow_up() -> bool:
        publisher.publish(near_up)
        return clients.solve(target(*EXACT_TIP)).solution.position[1] < 0

    wait_for(closest_is_elbow_up, what="joint_states to reach the node")
    # A joint_states message that cannot be read is ignored (logged), the last good one kept.
    node = next(n for n in graph._nodes if n.get_namespace() == "/tracked")
    kept = node._latest_joints
    for bad in (
        JointState(name=list(NAMES), position=[0.0, math.nan]),
        JointState(name=["shoulder", "shoulder", "elbow"], position=[0.0, 0.0, 0.0]),
        JointState(name=["shoulder"], position=[0.0]),
        JointState(name=list(NAMES), position=[0.0]),
    ):
        node._on_joint_states(bad)
        assert node._latest_joints == kept
    # A seed still wins over joint_states.
    seeded = clients.solve(target(*EXACT_TIP, seed={"shoulder": 0.5, "elbow": 0.8}))
    assert seeded.solution.position[1] > 0


# --- robustness and load -------------------------------------------------------------------------


def _malformed_request(rng: random.Random) -> SolveIK.Request:
    numbers = [math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0, -0.0, 1e-320]

    def number() -> float:
        return rng.choice(numbers) if rng.random() < 0.5 else rng.uniform(-3.0, 3.0)

    request = SolveIK.Request()
    request.target.header.frame_id = rng.choice(["", "base_link", "world", "tool0", "base_link "])
    p = request.target.pose.position
    p.x, p.y = number(), number()
    p.z = rng.choice([0.0, 0.0, number()])
    o = request.target.pose.orientation
    o.x, o.y, o.z, o.w = (number() if rng.random() < 0.3 else 0.0 for _ in range(4))
    request.orientation_mode = rng.choice([0, 0, 1, 2, 2, rng.randrange(3, 256)])
    request.tool_angle = number()
    request.branch = rng.choice([0, 1, 2, 3, rng.randrange(4, 256)])
    if rng.random() < 0.5:
        names = [rng.choice(["shoulder", "elbow", "wrist", "", "shoulder"]) for _ in range(3)]
        request.seed.name = names[: rng.randrange(0, 4)]
        request.seed.position = [number() for _ in range(rng.randrange(0, 4))]
    return request


def test_node_keeps_answering_after_1000_malformed_requests(arm: Clients) -> None:
    rng = random.Random(20240603)
    seen: set[int] = set()
    for _ in range(1000):
        response = arm.solve(_malformed_request(rng))
        assert 0 <= response.status <= IK.INVALID_ORIENTATION
        assert response.message
        if response.status in (IK.OK, IK.SINGULAR):
            assert len(response.solution.position) == 2
            assert all(math.isfinite(q) for q in response.solution.position)
        seen.add(response.status)
    # The fuzz reached the request checks as well as the core.
    assert {IK.INVALID_INPUT, IK.WRONG_FRAME, IK.OFF_PLANE, IK.INVALID_ORIENTATION} <= seen
    assert arm.solve(target(*REFERENCE_TARGET)).status == IK.OK


def test_four_clients_500_calls_each_all_answered_correctly(graph: RosGraph, arm: Clients) -> None:
    core = PlanarArm(LENGTHS, joint_limits=[(-LIMIT, LIMIT)] * 2)
    failures: list[str] = []
    answered = [0] * 4

    def client_thread(index: int) -> None:
        rng = random.Random(index)
        node = graph.node(f"load_client_{index}")
        client = node.create_client(SolveIK, "/solve_ik")
        wait_for(lambda: client.wait_for_service(timeout_sec=0.5), what="solve_ik")
        for call in range(500):
            x, y = rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)
            expected = core.solve(x, y)  # no seed, no joint_states: the same rule
            response = wait_for_future(client.call_async(target(x, y)), what="load answer")
            answered[index] += 1
            if response.status != expected.status or (
                expected.ok and tuple(response.solution.position) != expected.joints
            ):
                failures.append(f"client {index} call {call}: {response.status} != {expected}")
            elif expected.ok and tip_of(response.solution.position) != pytest.approx(
                (x, y), abs=1e-6
            ):
                failures.append(f"client {index} call {call}: wrong joints")

    threads = [threading.Thread(target=client_thread, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120.0)
    assert not any(thread.is_alive() for thread in threads)
    assert answered == [500] * 4
    assert failures == []


# --- the `ros2 service call` lines of README.md and docs/ik_node.md ------------------------------

# The request YAML of the docs' examples, for the packaged arm (L = 0.100, 0.080 m), with the
# status each must give. ros2cli is not installable here, so `set_fields` below does what
# `ros2 service call` does with them (yaml.safe_load, then rosidl_runtime_py's
# set_message_fields: nested mappings fill nested messages).
README_CALLS = [
    (
        SolveIK,
        "{target: {header: {frame_id: base_link}, pose: {position: {x: 0.1073, y: 0.1273}}}}",
        IK.OK,
    ),
    (SolveIK, "{target: {pose: {position: {x: 0.1073, y: 0.1273}}}, branch: 1}", IK.OK),
    (
        SolveIK,
        "{target: {pose: {position: {x: 0.1073, y: 0.1273}}}, "
        "seed: {name: [shoulder, elbow], position: [1.2, -0.7]}}",
        IK.OK,
    ),
    (SolveIK, "{target: {pose: {position: {x: 0.3, y: 0.0}}}}", IK.TOO_FAR),
    (
        SolveIK,
        "{target: {header: {frame_id: map}, pose: {position: {x: 0.1, y: 0.05}}}}",
        IK.WRONG_FRAME,
    ),
    (
        SolveIKBatch,
        "{header: {frame_id: base_link}, x: [0.12, 0.13, 0.3], y: [0.05, 0.05, 0.0]}",
        IK.TOO_FAR,
    ),
    (ComputeFK, "{joints: {name: [shoulder, elbow], position: [0.5236, 0.7854]}}", FK.OK),
]


def set_fields(message: Any, values: dict[str, Any]) -> None:
    for name, value in values.items():
        if isinstance(value, dict):
            set_fields(getattr(message, name), value)
        elif isinstance(getattr(message, name), float):
            setattr(message, name, float(value))
        else:
            setattr(message, name, value)


def test_readme_service_calls(graph: RosGraph) -> None:
    graph.add(IkNode(context=graph.context, namespace="readme"))  # the packaged arm.yaml
    node = graph.node("readme_caller")
    names = {SolveIK: "solve_ik", SolveIKBatch: "solve_ik_batch", ComputeFK: "compute_fk"}
    answers = []
    for srv_type, text, status in README_CALLS:
        client = node.create_client(srv_type, f"/readme/{names[srv_type]}")
        request = srv_type.Request()
        set_fields(request, yaml.safe_load(text))
        response = graph.call(client, request)
        assert response.status == status, (text, response.message)
        answers.append(response)
    assert tuple(answers[0].solution.position) == pytest.approx((DEG(30), DEG(45)), abs=DEG(0.05))
    assert answers[1].solution.position[1] == pytest.approx(DEG(-45), abs=DEG(0.05))
    assert answers[2].solution.position[1] == pytest.approx(DEG(-45), abs=DEG(0.05))
    assert list(answers[5].statuses) == [IK.OK, IK.OK, IK.TOO_FAR]
    tip = answers[6].tip.pose.position
    assert (tip.x, tip.y) == pytest.approx((0.1073, 0.1273), abs=1e-4)
