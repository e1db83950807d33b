"""`chain_points_many`: the positions of every link frame for many poses at once, from the same
formula as the scalar `link_frames` and `forward` (every shipped config)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import PlanarArm, SpatialArm

SHIPPED = sorted(default_config_path().parent.glob("arm*.yaml"))
"""Every shipped arm config."""


def link_frame_positions(arm: PlanarArm | SpatialArm, joints) -> np.ndarray:
    """(P, 3) positions of `link_frames` (a planar arm's on its plane at z = 0)."""
    frames = arm.link_frames(joints)
    if isinstance(arm, SpatialArm):
        return np.array([frame[:3, 3] for frame in frames])
    return np.array([(x, y, 0.0) for x, y, _ in frames])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_chain_points_many_equals_link_frames_row_by_row(path) -> None:
    arm = ArmConfig.from_file(path).make_arm()
    joints = np.random.default_rng(7).uniform(-math.pi, math.pi, (300, arm.n_joints))
    points = arm.chain_points_many(joints)
    assert points.shape == (300, len(arm.link_frames(joints[0])), 3)
    expected = np.array([link_frame_positions(arm, row) for row in joints])
    assert np.abs(points - expected).max() < 1e-15
    # The tool point is forward's.
    tool = arm.forward(joints[0])
    position = tool.position if isinstance(arm, SpatialArm) else (tool[0], tool[1], 0.0)
    assert points[0, -1] == pytest.approx(position, abs=1e-15)


def test_chain_points_many_of_a_bent_spatial_arm_and_nan_rows() -> None:
    arm = SpatialArm((0.1, 0.08), shoulder_height=0.05, shoulder_forward=0.01,
                     link_angle_offsets=(0.5, 0.0))  # fmt: skip
    joints = np.array([[0.3, -0.5, 0.2], [math.nan, 0.0, 0.0]])
    points = arm.chain_points_many(joints)
    # The shoulder: 0.01 m ahead of the yaw axis, 0.05 m up; link 1 bent up by 0.5 rad.
    assert points[0, 2] == pytest.approx((0.01 * math.cos(0.3), 0.01 * math.sin(0.3), 0.05))
    elbow_ahead = 0.01 + 0.1 * math.cos(0.0)
    assert points[0, 3] == pytest.approx(
        (elbow_ahead * math.cos(0.3), elbow_ahead * math.sin(0.3), 0.05 + 0.1 * math.sin(0.0))
    )
    # A NaN yaw leaves every point's direction undefined, not its height.
    assert np.isnan(points[1, :, :2]).all()
    assert not np.isnan(points[1, 2:, 2]).any()
