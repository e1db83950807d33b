"""A URDF's joint chain parsed independently of the code under test (ElementTree and written-out
transforms), the shipped config files, and joints drawn within a config's limits: shared by the
URDF, IK node, trajectory and page tests."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence

import numpy as np
import transforms3d
from ros_helpers import PACKAGE_DIR

from arm_kinematics.config import ArmConfig

CONFIG_DIR = PACKAGE_DIR / "config"
PLANAR_CONFIGS = [CONFIG_DIR / "arm.yaml", CONFIG_DIR / "arm_3r.yaml"]
SPATIAL_CONFIGS = [
    CONFIG_DIR / name
    for name in ("arm_desk_kit.yaml", "arm_mearm.yaml", "arm_openmanipulator_x.yaml")
]


def origin_transform(xyz, rpy) -> np.ndarray:
    """The 4x4 transform parent <- child of a URDF <origin xyz rpy> (m, rad): roll about the
    fixed x, then pitch about y, then yaw about z, i.e. Rz(yaw) Ry(pitch) Rx(roll)."""
    roll, pitch, yaw = rpy
    rx = np.array(
        [[1, 0, 0], [0, math.cos(roll), -math.sin(roll)], [0, math.sin(roll), math.cos(roll)]]
    )
    ry = np.array(
        [[math.cos(pitch), 0, math.sin(pitch)], [0, 1, 0], [-math.sin(pitch), 0, math.cos(pitch)]]
    )
    rz = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    )
    transform = np.eye(4)
    transform[:3, :3] = rz @ ry @ rx
    transform[:3, 3] = xyz
    return transform


def urdf_origin(xyz, rpy_deg) -> np.ndarray:
    """`origin_transform` with roll, pitch and yaw in degrees."""
    return origin_transform(xyz, [math.radians(v) for v in rpy_deg])


class UrdfChain:
    """The serial chain from the root link to one link of a URDF, parsed with ElementTree."""

    def __init__(self, urdf: str, root: str, tip: str) -> None:
        self.robot = ET.fromstring(urdf)
        joints_by_child = {j.find("child").get("link"): j for j in self.robot.iter("joint")}
        chain = []
        link = tip
        while link != root:
            joint = joints_by_child.get(link)
            assert joint is not None, f"no joint leads to link {link!r}"
            chain.append(joint)
            link = joint.find("parent").get("link")
        self.joints = chain[::-1]
        self.movable = [j for j in self.joints if j.get("type") != "fixed"]

    @staticmethod
    def _origin(joint: ET.Element) -> np.ndarray:
        origin = joint.find("origin")
        xyz = [float(v) for v in origin.get("xyz", "0 0 0").split()]
        rpy = [float(v) for v in origin.get("rpy", "0 0 0").split()]
        return origin_transform(xyz, rpy)

    def tip_transform(self, positions: Sequence[float]) -> np.ndarray:
        """4x4 pose of the tip link in the root link for the movable joints' positions."""
        assert len(positions) == len(self.movable)
        transform = np.eye(4)
        values = iter(positions)
        for joint in self.joints:
            transform = transform @ self._origin(joint)
            if joint.get("type") == "revolute":
                axis = [float(v) for v in joint.find("axis").get("xyz").split()]
                rotation = transforms3d.axangles.axangle2mat(axis, next(values))
                transform = transform @ transforms3d.affines.compose(
                    np.zeros(3), rotation, np.ones(3)
                )
        return transform

    def tip_transforms(self, positions: np.ndarray) -> np.ndarray:
        """`tip_transform` of many rows of positions at once: (N, m) -> (N, 4, 4). Each
        revolute joint turns by Rodrigues' formula R = I + sin(q) K + (1 - cos(q)) K^2 about
        its unit axis (K its cross-product matrix), the same chain as `tip_transform`."""
        positions = np.asarray(positions, dtype=float)
        assert positions.shape[1] == len(self.movable)
        transforms = np.broadcast_to(np.eye(4), (len(positions), 4, 4)).copy()
        column = 0
        for joint in self.joints:
            transforms = transforms @ self._origin(joint)
            if joint.get("type") != "revolute":
                continue
            axis = np.array([float(v) for v in joint.find("axis").get("xyz").split()])
            x, y, z = axis / np.linalg.norm(axis)
            k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
            q = positions[:, column, None, None]
            column += 1
            turns = np.broadcast_to(np.eye(4), transforms.shape).copy()
            turns[:, :3, :3] = np.eye(3) + np.sin(q) * k + (1.0 - np.cos(q)) * (k @ k)
            transforms = transforms @ turns
        return transforms


def random_joints(config: ArmConfig, count: int, seed: int) -> np.ndarray:
    """Joint vectors within the joint limits (and the link angle limits of parallelogram
    servos), uniform over the joint box."""
    arm = config.make_arm()
    lower, upper = np.array(config.joint_limits).T
    rng = np.random.default_rng(seed)
    rows: list[np.ndarray] = []
    while len(rows) < count:
        for joints in rng.uniform(lower, upper, size=(count, len(config.joints))):
            if arm.within_limits(joints):
                rows.append(joints)
    return np.array(rows[:count])
