"""Targets stamped in the mount's parent frame, turned into the base frame (no ROS)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.frames import FrameError, Mount, TargetFrames

ANGLE = st.floats(-math.pi, math.pi)
COORD = st.floats(-2.0, 2.0)
WALL = Mount.from_pose("world", (1.2, 0.3, 1.1), (math.pi / 2, 0.0, -math.pi / 2))


@settings(max_examples=300, deadline=None)
@given(COORD, COORD, COORD, ANGLE, ANGLE, ANGLE, COORD, COORD, COORD)
def test_points_go_to_the_base_and_back(x, y, z, roll, pitch, yaw, px, py, pz) -> None:
    mount = Mount.from_pose("world", (x, y, z), (roll, pitch, yaw))
    there = mount.point_to_parent((px, py, pz))
    assert mount.point_to_base(there) == pytest.approx((px, py, pz), abs=1e-12)
    # The matrix says the same as the two functions.
    assert (mount.matrix @ [px, py, pz, 1.0])[:3] == pytest.approx(there, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(ANGLE, ANGLE, ANGLE, ANGLE)
def test_a_heading_about_the_base_z_survives_the_round_trip(roll, pitch, yaw, heading) -> None:
    mount = Mount.from_pose("world", (0.1, 0.2, 0.3), (roll, pitch, yaw))
    base_q = (0.0, 0.0, math.sin(heading / 2), math.cos(heading / 2))
    # The same orientation seen from the parent: R * Rz(heading).
    from transforms3d.quaternions import mat2quat, quat2mat

    w, x, y, z = mat2quat(mount.rotation @ quat2mat((base_q[3], 0.0, 0.0, base_q[2])))
    back = mount.quaternion_to_base((x, y, z, w))
    # A quaternion and its negative are one rotation.
    sign = 1.0 if np.dot(back, base_q) >= 0 else -1.0
    assert tuple(sign * v for v in back) == pytest.approx(base_q, abs=1e-9)


def test_targets_in_the_base_frame_pass_unchanged_and_others_are_refused() -> None:
    frames = TargetFrames("left_arm/base_link", WALL)
    assert frames.accepted == ("left_arm/base_link", "world")
    for frame_id in ("", "left_arm/base_link"):
        target = frames.to_base(frame_id, (0.1, 0.05, 0.0))
        assert target.position == (0.1, 0.05, 0.0)
        assert target.given_in == "left_arm/base_link"
    on_wall = frames.to_base("world", WALL.point_to_parent((0.1, 0.05, 0.0)))
    assert on_wall.position == pytest.approx((0.1, 0.05, 0.0), abs=1e-12)
    assert on_wall.given_in == "world"
    with pytest.raises(FrameError, match="'base_link' is neither the base frame"):
        frames.to_base("base_link", (0.1, 0.0, 0.0))  # the unprefixed name is another frame
    with pytest.raises(FrameError, match="not the base frame 'base_link'"):
        TargetFrames("base_link").to_base("world", (0.1, 0.0, 0.0))


def test_the_plane_is_described_in_the_parent_frame() -> None:
    words = TargetFrames("base_link", WALL).plane_words(0.0)
    # The wall mount turns the base's z into the parent's -x... (roll 90, yaw -90).
    point, normal = WALL.plane_in_parent(0.0)
    assert point == pytest.approx((1.2, 0.3, 1.1))
    assert normal == pytest.approx((-1.0, 0.0, 0.0), abs=1e-12)
    assert "in 'world' is the plane through (1.2, 0.3, 1.1) m with normal (-1, " in words
    assert TargetFrames("base_link").plane_words(0.02) == "z = 0.02 m in 'base_link'"
