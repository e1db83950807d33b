"""nodes/targets.py, the one stamped-target check of both nodes, and nodes/refusals.py, without
a ROS graph: the order of the checks, their words, and the classes that name the fault.

World points are made with the URDF's origin rule written out in test_ik_node_frames
(`urdf_origin`), not with arm_kinematics.frames.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from geometry_msgs.msg import Pose
from urdf_chain import urdf_origin

from arm_kinematics.config import ArmConfig, MountConfig
from arm_kinematics.nodes.refusals import InvalidOrientation, OffPlane, Refusal, WrongFrame
from arm_kinematics.nodes.targets import (
    FULL_ORIENTATION,
    POSITION_ONLY,
    TOOL_ANGLE,
    PlanarTarget,
    TargetCheck,
    waypoint_tool_angles,
)
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK, SolveIKBatch

IK = SolveIK.Response
CONFIG = ArmConfig.from_file()
CHECK = TargetCheck.from_config(CONFIG)
MOUNT_XYZ, MOUNT_RPY_DEG = (0.5, -0.2, 0.3), (0.0, 0.0, 90.0)
MOUNTED = TargetCheck.from_config(
    dataclasses.replace(
        CONFIG,
        mount=MountConfig("world", MOUNT_XYZ, tuple(math.radians(v) for v in MOUNT_RPY_DEG)),
    )
)
WALL_XYZ, WALL_RPY_DEG = (1.2, 0.3, 1.1), (90.0, 0.0, -90.0)
WALL = TargetCheck.from_config(
    dataclasses.replace(
        CONFIG,
        mount=MountConfig("world", WALL_XYZ, tuple(math.radians(v) for v in WALL_RPY_DEG)),
    )
)


def world(x: float, y: float, z: float = 0.0, mount=(MOUNT_XYZ, MOUNT_RPY_DEG)):
    return tuple((urdf_origin(*mount) @ [x, y, z, 1.0])[:3].tolist())


def yaw_quaternion(heading: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(heading / 2), math.cos(heading / 2))


def test_the_orientation_modes_are_the_same_in_every_interface():
    for message in (SolveIK.Request, SolveIKBatch.Request, MoveArm.Goal, PlanCartesianPath.Request):
        assert (message.POSITION_ONLY, message.TOOL_ANGLE, message.FULL_ORIENTATION) == (0, 1, 2)
    assert (POSITION_ONLY, TOOL_ANGLE, FULL_ORIENTATION) == (0, 1, 2)


def test_each_refusal_class_names_its_solve_ik_status():
    assert Refusal("x").status == IK.INVALID_INPUT
    assert WrongFrame("x").status == IK.WRONG_FRAME
    assert OffPlane("x").status == IK.OFF_PLANE
    assert InvalidOrientation("x").status == IK.INVALID_ORIENTATION
    assert issubclass(OffPlane, Refusal)  # every check's refusal is caught as one


def test_a_planar_target_in_either_frame_with_each_orientation_mode():
    heading = math.radians(40.0)
    assert CHECK.planar(CHECK.stamped("", (0.12, 0.05, 0.0), POSITION_ONLY)) == PlanarTarget(
        0.12, 0.05, None, "base_link"
    )
    # TOOL_ANGLE: the heading as given; the orientation is not even read.
    angle = CHECK.stamped("base_link", (0.12, 0.05, 0.0), TOOL_ANGLE, heading, (0, 0, 0, 0))
    assert CHECK.planar(angle).point == (0.12, 0.05, heading)
    full = CHECK.stamped("", (0.12, 0.05, 0.0), FULL_ORIENTATION, 0.0, yaw_quaternion(heading))
    assert CHECK.planar(full).heading == pytest.approx(heading, abs=1e-12)
    # In the mount's parent frame: the point turned into the base frame; a world heading loses
    # the mount's yaw, a tool angle is the arm's own.
    given = world(0.12, 0.05)
    full = MOUNTED.stamped("world", given, FULL_ORIENTATION, 0.0, yaw_quaternion(heading))
    target = MOUNTED.planar(full)
    assert (target.x, target.y) == pytest.approx((0.12, 0.05), abs=1e-12)
    assert target.heading == pytest.approx(heading - math.radians(90.0), abs=1e-9)
    assert target.given_in == "world"
    assert MOUNTED.planar(MOUNTED.stamped("world", given, TOOL_ANGLE, heading)).heading == heading


@pytest.mark.parametrize(
    ("args", "refusal", "words"),
    [
        (("camera", (math.nan, 0.0, 1.0), 9), WrongFrame, "target frame 'camera' is not"),
        (("", (math.nan, 0.0, 1.0), 9), Refusal, "target position (nan, 0.0, 1.0) must be finite"),
        (("", (0.1, 0.0, 1.0), 9), Refusal, "unknown orientation_mode 9; use one of 0 (POSITION"),
        (("", (0.1, 0.0, 1.0), TOOL_ANGLE, math.inf), Refusal, "tool_angle = inf must be"),
        (
            ("", (0.1, 0.0, 1.0), FULL_ORIENTATION, 0.0, (0.0, 0.0, math.nan, 1.0)),
            Refusal,
            "must be finite with FULL_ORIENTATION",
        ),
        (("", (0.1, 0.0, 1.0), FULL_ORIENTATION, 0.0, (0, 0, 0, 2)), OffPlane, "lies 1 m off"),
        (("", (0.1, 0.0, 0.0), FULL_ORIENTATION, 0.0, (0, 0, 0, 2)), InvalidOrientation, "norm 2"),
        (
            ("", (0.1, 0.0, 0.0), FULL_ORIENTATION, 0.0, (math.sin(0.1), 0, 0, math.cos(0.1))),
            InvalidOrientation,
            "target orientation is not a rotation about z",
        ),
    ],
    ids=["frame", "numbers", "mode", "tool_angle", "quaternion", "plane", "norm", "rotation"],
)
def test_the_checks_run_in_order_frame_numbers_plane_orientation(args, refusal, words):
    with pytest.raises(Refusal) as refused:
        CHECK.planar(CHECK.stamped(*args))
    assert type(refused.value) is refusal
    assert words in refused.value.message


def test_the_one_wording_of_off_plane_says_where_the_plane_is_in_the_given_frame():
    with pytest.raises(OffPlane) as refused:
        CHECK.planar_pose("", pose(0.12, 0.05, 0.01), POSITION_ONLY, what="waypoint 3")
    assert refused.value.message == (
        "waypoint 3 (0.12, 0.05, 0.01) m in 'base_link' lies 0.01 m off the arm's plane; the "
        "plane is z = 0 m in 'base_link' (tolerance 0.001 m)"
    )
    off = world(0.12, 0.05, 0.01, (WALL_XYZ, WALL_RPY_DEG))
    with pytest.raises(OffPlane) as refused:
        WALL.planar(WALL.stamped("world", off, POSITION_ONLY))
    words = ", ".join(f"{v:.6g}" for v in off)
    assert refused.value.message == (
        f"target ({words}) m in 'world' lies 0.01 m off the arm's plane (z = 0.01 m in "
        "'base_link'); the plane is z = 0 m in 'base_link', which in 'world' is the plane "
        "through (1.2, 0.3, 1.1) m with normal (-1, 0, 0) (tolerance 0.001 m)"
    )


def test_a_world_orientation_is_checked_for_its_norm_before_the_mount_turns_it():
    given = world(0.12, 0.05, 0.0, (WALL_XYZ, WALL_RPY_DEG))
    with pytest.raises(InvalidOrientation, match="norm 2"):
        WALL.planar(WALL.stamped("world", given, FULL_ORIENTATION, 0.0, (0.0, 0.0, 0.0, 2.0)))
    # The world's identity is no rotation about the wall arm's z: said in the base frame.
    with pytest.raises(InvalidOrientation) as refused:
        WALL.planar(WALL.stamped("world", given, FULL_ORIENTATION, 0.0, (0.0, 0.0, 0.0, 1.0)))
    assert refused.value.message.startswith(
        "target in 'base_link' (turned from 'world'): orientation is not a rotation about z"
    )


def pose(x: float, y: float, z: float = 0.0) -> Pose:
    result = Pose()
    result.position.x, result.position.y, result.position.z = x, y, z
    return result


def test_waypoint_tool_angles_are_read_with_tool_angle_only_one_per_waypoint():
    assert waypoint_tool_angles(TOOL_ANGLE, 2, [0.1, 0.2]) == [0.1, 0.2]
    assert waypoint_tool_angles(FULL_ORIENTATION, 2, []) == [0.0, 0.0]
    with pytest.raises(Refusal, match=r"waypoint_tool_angles needs 2 values .* it has 3"):
        waypoint_tool_angles(TOOL_ANGLE, 2, [0.1, 0.2, 0.3])
    with pytest.raises(Refusal, match="unknown orientation_mode 5"):
        waypoint_tool_angles(5, 0, [])


def test_a_batch_on_the_plane_in_either_frame():
    xs, ys = [0.12, 0.13], [0.05, 0.04]
    points = CHECK.planar_points("", xs, ys, [], POSITION_ONLY, [])
    assert (points.x, points.y, points.headings, points.given_in) == (xs, ys, None, "base_link")
    given = np.array([world(x, y) for x, y in zip(xs, ys, strict=True)])
    for zs in (given[:, 2].tolist(), []):  # no z: the level plane's height in 'world'
        points = MOUNTED.planar_points(
            "world", given[:, 0], given[:, 1], zs, FULL_ORIENTATION, [0.5, 0.6]
        )
        assert np.allclose(points.x, xs, atol=1e-12)
        assert np.allclose(points.y, ys, atol=1e-12)
        assert np.allclose(points.headings, [0.5 - math.pi / 2, 0.6 - math.pi / 2], atol=1e-12)
    tool = MOUNTED.planar_points("world", given[:, 0], given[:, 1], [], TOOL_ANGLE, [0.5, 0.6])
    assert list(tool.headings) == [0.5, 0.6]  # the arm's own angles, not turned


_ON_THE_WALL = [world(x, 0.4, 0.0, (WALL_XYZ, WALL_RPY_DEG)) for x in (0.12, 0.13)]
WALL_POINTS = {axis: [p[i] for p in _ON_THE_WALL] for i, axis in enumerate("xyz")}


@pytest.mark.parametrize(
    ("check", "frame", "fields", "refusal", "words"),
    [
        (CHECK, "map", {}, WrongFrame, "target frame 'map' is not the arm's base frame"),
        (CHECK, "", {"y": [0.0]}, Refusal, "x has 2 values but y has 1"),
        (CHECK, "", {"z": [0.0]}, Refusal, "z has 1 values: give one per target (2) or none"),
        (CHECK, "", {"z": [0.0, math.inf]}, Refusal, "z[1] = inf must be a finite number"),
        (CHECK, "", {"mode": 4}, Refusal, "unknown orientation_mode 4"),
        (CHECK, "", {"mode": TOOL_ANGLE}, Refusal, "TOOL_ANGLE: tool_angle needs 2 values"),
        (CHECK, "", {"z": [0.0, 0.02]}, OffPlane, "target 1 (0.13, 0, 0.02) m in 'base_link'"),
        (WALL, "world", {}, Refusal, "no one height in 'world'"),
        (
            WALL,
            "world",
            {**WALL_POINTS, "mode": FULL_ORIENTATION, "tool_angle": [0.0, 0.0]},
            InvalidOrientation,
            "its plane is tilted in that frame",
        ),
    ],
)
def test_a_batch_is_refused_whole_naming_the_first_fault(check, frame, fields, refusal, words):
    values = {"x": [0.12, 0.13], "y": [0.0, 0.0], "z": [], "mode": 0, "tool_angle": [], **fields}
    with pytest.raises(Refusal) as refused:
        check.planar_points(
            frame,
            values["x"],
            values["y"],
            values["z"],
            values["mode"],
            values["tool_angle"],
        )
    assert type(refused.value) is refusal
    assert words in refused.value.message
