"""The IK node with a mount and a frame prefix: targets in the base frame or the mount's parent.

Each arm (links 1.0 and 0.8 m, joints +-90 deg) runs in this process in its own namespace with
`frame_prefix: <namespace>/` and a mount in `world`, and is called through rclpy clients as
`ros2 service call` would. The world targets are made here with the URDF's own origin rule
(R = Rz(yaw) Ry(pitch) Rx(roll), then the translation), written out below, not with
arm_kinematics.frames, so that the node's transform is checked against an independent one.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from ik_clients import LENGTHS, Clients, make_ik_node, target
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_helpers import RosGraph, wait_for
from urdf_chain import urdf_origin
from visualization_msgs.msg import MarkerArray

from arm_kinematics.kinematics import PlanarArm
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

pytestmark = pytest.mark.ros

IK = SolveIK.Response
LIMIT = math.radians(90.0)
NAMES = ("shoulder", "elbow")
# name -> (xyz m, rpy deg): a level arm moved and turned, a wall arm (its plane is world's
# x = 1.2 plane, its z along world -x), and an arm tilted about every axis.
MOUNTS = {
    "yawed": ((0.5, -0.2, 0.75), (0.0, 0.0, 30.0)),
    "wall": ((1.2, 0.3, 1.1), (90.0, 0.0, -90.0)),
    "tilted": ((0.1, 0.2, 0.3), (20.0, -35.0, 110.0)),
}
SAMPLES = 60
ARM = PlanarArm(LENGTHS, joint_limits=((-LIMIT, LIMIT), (-LIMIT, LIMIT)))
# A point the arm reaches within its limits (the tip at joints 0.3 and 0.8 rad).
POINT = ARM.forward((0.3, 0.8))[:2]


def to_world(mount: np.ndarray, point) -> np.ndarray:
    return (mount @ np.array([*point, 1.0]))[:3]


def quaternion_xyzw(matrix: np.ndarray) -> tuple[float, float, float, float]:
    """A rotation matrix as a quaternion (x, y, z, w), Shepperd's method (w is large here)."""
    w = math.sqrt(max(0.0, 1.0 + np.trace(matrix))) / 2.0
    if w > 0.1:
        return (
            (matrix[2, 1] - matrix[1, 2]) / (4 * w),
            (matrix[0, 2] - matrix[2, 0]) / (4 * w),
            (matrix[1, 0] - matrix[0, 1]) / (4 * w),
            w,
        )
    # w small: use the largest diagonal element (only x is needed by the mounts above).
    x = math.sqrt(max(0.0, 1.0 + matrix[0, 0] - matrix[1, 1] - matrix[2, 2])) / 2.0
    return (
        x,
        (matrix[0, 1] + matrix[1, 0]) / (4 * x),
        (matrix[0, 2] + matrix[2, 0]) / (4 * x),
        (matrix[2, 1] - matrix[1, 2]) / (4 * x),
    )


def rz(angle: float) -> np.ndarray:
    return np.array(
        [[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0], [0, 0, 1]]
    )


def mount_overrides(name: str, prefix: str | None = None) -> list[Parameter]:
    xyz, rpy = MOUNTS[name]
    return [
        Parameter("mount.parent_frame", value="world"),
        Parameter("mount.xyz_m", value=list(xyz)),
        Parameter("mount.rpy_deg", value=list(rpy)),
        Parameter("frame_prefix", value=f"{name}/" if prefix is None else prefix),
    ]


def random_joints(rng: random.Random) -> tuple[float, float]:
    """Joints within the limits, away from the singular stretch (|elbow| >= 10 deg)."""
    elbow = rng.uniform(math.radians(10), LIMIT) * rng.choice((-1, 1))
    return (rng.uniform(-LIMIT, LIMIT), elbow)


def world_samples(name: str, seed: str, count: int):
    """`count` random (joints, base-frame tip pose, world tip point) of the arm mounted `name`."""
    mount = urdf_origin(*MOUNTS[name])
    rng = random.Random(f"{seed}-{name}")
    for _ in range(count):
        joints = random_joints(rng)
        pose = ARM.forward(joints)
        yield joints, pose, to_world(mount, (pose[0], pose[1], 0.0))


@pytest.fixture(scope="module")
def arms(graph: RosGraph) -> dict[str, Clients]:
    for name in MOUNTS:
        make_ik_node(graph, LENGTHS, name, *mount_overrides(name))
    return {name: Clients(graph, name) for name in MOUNTS}


@pytest.mark.parametrize("name", list(MOUNTS))
def test_a_world_target_solves_like_the_same_point_in_the_base_frame(
    arms: dict[str, Clients], name: str
) -> None:
    clients = arms[name]
    mount = urdf_origin(*MOUNTS[name])
    base_frame = f"{name}/base_link"
    worst = 0.0
    for _, (x, y, _), world in world_samples(name, "world", SAMPLES):
        in_world = clients.solve(target(*world[:2], z=world[2], frame="world", branch=3))
        in_base = clients.solve(target(x, y, frame=base_frame, branch=3))
        assert in_world.status == IK.OK, in_world.message
        assert in_base.status == IK.OK, in_base.message
        assert in_world.solution.position == pytest.approx(in_base.solution.position, abs=1e-9)
        assert in_world.alternative.position == pytest.approx(
            in_base.alternative.position, abs=1e-9
        )
        assert f"target given in 'world', solved in '{base_frame}'" in in_world.message
        assert "given in" not in in_base.message  # a base-frame target: the plain message
        # FK of the answer by the node, in the prefixed base frame, taken back to the world.
        fk = clients.fk(NAMES, in_world.solution.position)
        assert fk.tip.header.frame_id == base_frame
        tip = fk.tip.pose.position
        back = to_world(mount, (tip.x, tip.y, tip.z))
        worst = max(worst, float(np.linalg.norm(back - world)))
    print(f"{name}: worst world round-trip error {worst:.3g} m over {SAMPLES} targets")
    assert worst < 1e-9


@pytest.mark.parametrize("name", list(MOUNTS))
def test_a_world_orientation_is_a_heading_about_the_base_z(
    arms: dict[str, Clients], name: str
) -> None:
    clients = arms[name]
    mount = urdf_origin(*MOUNTS[name])
    for joints, (_, _, heading), world in world_samples(name, "heading", 10):
        # The tool's orientation seen from the world: the mount's rotation, then the heading.
        orientation = quaternion_xyzw(mount[:3, :3] @ rz(heading))
        answer = clients.solve(
            target(*world[:2], z=world[2], frame="world", quaternion=orientation)
        )
        assert answer.status == IK.OK, answer.message
        assert answer.solution.position == pytest.approx(joints, abs=1e-7)
    # The world's own axes are no heading of a tilted arm: refused, said in the base frame.
    answer = clients.solve(_world_request(mount, (*POINT, 0.0), quaternion=(0.0, 0.0, 0.0, 1.0)))
    if name == "yawed":
        # Level: the identity is a heading of -30 deg about the base z, which a 2R arm cannot
        # give at this point (only one heading per elbow).
        assert answer.status == IK.ORIENTATION_UNREACHABLE, answer.message
    else:
        assert answer.status == IK.INVALID_ORIENTATION, answer.message
        assert f"in '{name}/base_link' (turned from 'world')" in answer.message
    # A quaternion that is not of unit length is refused before the mount could hide it.
    answer = clients.solve(_world_request(mount, (*POINT, 0.0), quaternion=(0.0, 0.0, 0.0, 2.0)))
    assert answer.status == IK.INVALID_ORIENTATION
    assert "norm 2" in answer.message


def _world_request(mount: np.ndarray, base_point, **kwargs) -> SolveIK.Request:
    world = to_world(mount, base_point)
    return target(*world[:2], z=world[2], frame="world", **kwargs)


def test_a_world_point_off_the_tilted_plane_is_off_plane_with_the_plane_in_world_words(
    arms: dict[str, Clients],
) -> None:
    mount = urdf_origin(*MOUNTS["wall"])
    off = to_world(mount, (*POINT, 0.01))  # 1 cm in front of the wall arm's plane
    answer = arms["wall"].solve(target(*off[:2], z=off[2], frame="world"))
    assert answer.status == IK.OFF_PLANE
    assert f"({off[0]:.6g}, {off[1]:.6g}, {off[2]:.6g}) m in 'world'" in answer.message
    assert "0.01 m off the arm's plane (z = 0.01 m in 'wall/base_link')" in answer.message
    # Where the plane is, in the world: through the mount point, normal along world -x.
    assert "in 'world' is the plane through (1.2, 0.3, 1.1) m with normal (-1, 0, 0)" in (
        answer.message
    )
    assert len(answer.solution.position) == 0
    # Within the tolerance (1 mm) of the plane it solves.
    near = to_world(mount, (*POINT, 0.0009))
    assert arms["wall"].solve(target(*near[:2], z=near[2], frame="world")).status == IK.OK


def test_a_target_in_another_frame_is_wrong_frame(arms: dict[str, Clients]) -> None:
    for frame in ("camera", "base_link", "yawed/world", "wall/base_link"):
        answer = arms["yawed"].solve(target(*POINT, frame=frame))
        assert answer.status == IK.WRONG_FRAME, frame
        assert answer.message == (
            f"target frame '{frame}' is neither the base frame 'yawed/base_link' nor the "
            "mount's parent frame 'world': transform the target into one of them (or leave "
            "frame_id empty for 'yawed/base_link')"
        )
    # Empty means the base frame.
    assert arms["yawed"].solve(target(*POINT, frame="")).status == IK.OK


def _batch(frame: str, points, z: float, headings=None) -> SolveIKBatch.Request:
    request = SolveIKBatch.Request()
    request.header.frame_id = frame
    request.x = [float(p[0]) for p in points]
    request.y = [float(p[1]) for p in points]
    request.z = [float(z)] * len(points)
    if headings is not None:
        request.orientation_mode = SolveIKBatch.Request.FULL_ORIENTATION
        request.tool_angle = [float(h) for h in headings]
    return request


def test_a_batch_in_world_solves_like_the_same_points_in_the_base_frame(
    arms: dict[str, Clients],
) -> None:
    rng = random.Random("batch")
    # The level arm: any base points share one world height.
    yawed = urdf_origin(*MOUNTS["yawed"])
    poses = [ARM.forward(random_joints(rng)) for _ in range(200)]
    base_points = [(x, y) for x, y, _ in poses]
    world = [to_world(yawed, (x, y, 0.0)) for x, y in base_points]
    in_world = arms["yawed"].batch(_batch("world", world, 0.75))
    in_base = arms["yawed"].batch(_batch("yawed/base_link", base_points, 0.0))
    assert in_world.status == IK.OK, in_world.message
    assert in_world.message.endswith("(targets given in 'world', solved in 'yawed/base_link')")
    assert list(in_world.statuses) == list(in_base.statuses)
    assert np.allclose(in_world.positions, in_base.positions, atol=1e-9, rtol=0)
    # Headings about world z are headings about the base z less the mount's yaw (30 deg).
    headings = [h for _, _, h in poses]
    world_headings = [h + math.radians(30.0) for h in headings]
    in_world = arms["yawed"].batch(_batch("world", world, 0.75, world_headings))
    in_base = arms["yawed"].batch(_batch("yawed/base_link", base_points, 0.0, headings))
    assert in_world.status == IK.OK, in_world.message
    assert np.allclose(in_world.positions, in_base.positions, atol=1e-7, rtol=0)

    # The wall arm: points of one world height lie on the line y_base = const (world z = 1.1 + y).
    wall = urdf_origin(*MOUNTS["wall"])
    base_points = [(x, 0.4) for x in np.linspace(1.25, 1.7, 50)]
    world = [to_world(wall, (x, y, 0.0)) for x, y in base_points]
    assert {round(p[2], 12) for p in world} == {1.5}
    in_world = arms["wall"].batch(_batch("world", world, 1.5))
    in_base = arms["wall"].batch(_batch("wall/base_link", base_points, 0.0))
    assert in_world.status == IK.OK, in_world.message
    assert np.allclose(in_world.positions, in_base.positions, atol=1e-9, rtol=0)
    # A heading about world z means nothing to an arm on a wall.
    refused = arms["wall"].batch(_batch("world", world, 1.5, [0.0] * len(world)))
    assert refused.status == IK.INVALID_ORIENTATION
    assert "its plane is tilted in that frame" in refused.message
    # One world height above the level arm's plane: the whole batch is off the plane.
    yawed_world = [to_world(yawed, (x, y, 0.0)) for x, y in base_points]
    refused = arms["yawed"].batch(_batch("world", yawed_world, 0.76))
    assert refused.status == IK.OFF_PLANE
    assert refused.message.startswith("target 0 (")
    assert "0.01 m off the arm's plane" in refused.message
    assert len(refused.statuses) == 0
    refused = arms["yawed"].batch(_batch("camera", yawed_world, 0.75))
    assert refused.status == IK.WRONG_FRAME


def test_a_world_batch_without_z_lies_on_the_plane_and_tool_angles_are_the_arms_own(
    arms: dict[str, Clients],
) -> None:
    rng = random.Random("batch without z")
    yawed = urdf_origin(*MOUNTS["yawed"])
    poses = [ARM.forward(random_joints(rng)) for _ in range(50)]
    world = [to_world(yawed, (x, y, 0.0)) for x, y, _ in poses]
    with_z = arms["yawed"].batch(_batch("world", world, 0.75))
    without_z = _batch("world", world, 0.75)
    without_z.z = []  # the level plane's height in world: 0.75 m
    answer = arms["yawed"].batch(without_z)
    assert answer.status == with_z.status == IK.OK, answer.message
    assert np.allclose(answer.positions, with_z.positions, atol=1e-12, rtol=0)
    # TOOL_ANGLE: headings about the base's z whatever the frame (no mount yaw taken off).
    angles = _batch("world", world, 0.75, [h for _, _, h in poses])
    angles.orientation_mode = SolveIKBatch.Request.TOOL_ANGLE
    in_base = _batch("yawed/base_link", [p[:2] for p in poses], 0.0, [h for _, _, h in poses])
    answer, expected = arms["yawed"].batch(angles), arms["yawed"].batch(in_base)
    assert answer.status == expected.status == IK.OK, answer.message
    assert np.allclose(answer.positions, expected.positions, atol=1e-9, rtol=0)
    # The wall arm's plane has no one height in world: z must be given.
    wall = _batch("world", [to_world(urdf_origin(*MOUNTS["wall"]), (1.5, 0.4, 0.0))], 1.5)
    wall.z = []
    refused = arms["wall"].batch(wall)
    assert refused.status == IK.INVALID_INPUT
    assert "no one height in 'world'" in refused.message


# --- frame prefix without a mount, and the batch limit --------------------------------------


def test_a_prefixed_arm_names_its_own_frames_everywhere(graph: RosGraph) -> None:
    make_ik_node(graph, LENGTHS, "left_arm", Parameter("frame_prefix", value="left_arm/"))
    clients = Clients(graph, "left_arm")
    assert clients.solve(target(*POINT, frame="")).status == IK.OK
    # The last request: the markers draw it.
    assert clients.solve(target(*POINT, frame="left_arm/base_link")).status == IK.OK
    fk = clients.fk(NAMES, (0.3, 0.4))
    assert {pose.header.frame_id for pose in fk.frames} == {"left_arm/base_link"}
    assert fk.tip.header.frame_id == "left_arm/base_link"
    assert "tip 'left_arm/tool0'" in fk.message
    assert list(fk.frame_names) == [
        f"left_arm/{n}" for n in ("base_link", "link_1", "link_2", "tool0")
    ]
    assert (
        "frames: left_arm/base_link, left_arm/link_1, left_arm/link_2, left_arm/tool0" in fk.message
    )

    # The latched markers (ring and region, then the last request's) are in the prefixed base.
    frames: set[str] = set()
    latched = QoSProfile(  # depth 10: two latched publishers, keep both of their samples
        depth=10,
        reliability=ReliabilityPolicy.RELIABLE,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )
    namespaces: set[str] = set()

    def on_markers(message: MarkerArray) -> None:
        for marker in message.markers:
            frames.add(marker.header.frame_id)
            namespaces.add(marker.ns)

    clients.node.create_subscription(MarkerArray, "/left_arm/ik_markers", on_markers, latched)
    wait_for(lambda: {"reachable_region", "solution"} <= namespaces, what="ik_markers")
    assert frames == {"left_arm/base_link"}

    # The unprefixed name is another frame. (Asked last: its target marker is drawn in the
    # frame it was given in, and a late subscriber may see the one before the latest sample.)
    refused = clients.solve(target(*POINT, frame="base_link"))
    assert refused.status == IK.WRONG_FRAME
    assert refused.message == (
        "target frame 'base_link' is not the arm's base frame 'left_arm/base_link': transform "
        "the target into 'left_arm/base_link' (or leave frame_id empty)"
    )


def test_a_batch_beyond_the_limit_is_refused_whole_and_one_at_it_is_solved(
    graph: RosGraph,
) -> None:
    make_ik_node(graph, LENGTHS, "small", Parameter("ik.max_batch_targets", value=50))
    clients = Clients(graph, "small")
    points = [tuple(POINT)] * 51
    refused = clients.batch(_batch("base_link", points, 0.0))
    assert refused.status == IK.INVALID_INPUT
    assert refused.message.startswith(
        "the request holds 51 targets, more than the limit of 50 per request "
        "(parameter ik.max_batch_targets): nothing was solved"
    )
    assert len(refused.statuses) == 0
    assert len(refused.positions) == 0
    solved = clients.batch(_batch("base_link", points[:50], 0.0))
    assert solved.status == IK.OK, solved.message
    assert list(solved.statuses) == [IK.OK] * 50
    # The default limit, 100,000: one more is refused without solving anything.
    default = make_ik_node(graph, LENGTHS, "default_limit")
    assert default.config.max_batch_targets == 100_000
    described = default.describe_parameter("ik.max_batch_targets")
    assert described.read_only
    assert "solve_ik_batch" in described.description
    big = Clients(graph, "default_limit").batch(_batch("", [tuple(POINT)] * 100_001, 0.0))
    assert big.status == IK.INVALID_INPUT
    assert "more than the limit of 100000" in big.message
    assert len(big.statuses) == 0
