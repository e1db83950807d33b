"""The desk kit (config/arm_desk_kit.yaml: base yaw, shoulder, elbow, wrist pitch, wrist roll,
gripper) as the tests see it: its config, and where its tool is, from the URDF's joint chain
parsed independently of the code under test (`urdf_chain.UrdfChain`).

Used by the desk kit's trajectory, commander and hardware tests (test_trajectory_spatial.py,
test_commander.py, test_hardware_node_spatial.py, test_gripper_smooth.py) and the envelope's
(test_envelope_nodes.py, test_web_page_envelope.py: `with_keep_out_box`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from ros_helpers import PACKAGE_DIR
from urdf_chain import UrdfChain

from arm_kinematics.config import ArmConfig
from arm_kinematics.description import robot_description

CONFIG_FILE = PACKAGE_DIR / "config" / "arm_desk_kit.yaml"
CONFIG = ArmConfig.from_file(CONFIG_FILE)
NAMES = list(CONFIG.joint_names)  # the arm's joints, without the gripper
CHAIN = UrdfChain(robot_description(CONFIG_FILE), CONFIG.base_frame, CONFIG.tip_frame)


def tip_of(joints) -> np.ndarray:
    """The tool point (x, y, z, m, base frame) of the URDF's chain at the arm joints."""
    return CHAIN.tip_transform(list(joints))[:3, 3]


def tool_pitch(joints) -> float:
    """The tool axis's angle above the horizontal (rad), from the URDF chain."""
    axis = CHAIN.tip_transform(list(joints))[:3, 0]
    return math.atan2(axis[2], math.hypot(axis[0], axis[1]))


def arm_joints(state_positions, names) -> list[float]:
    """The arm joints (rad) in NAMES order, from positions named by `names` (a JointState's)."""
    by_name = dict(zip(names, state_positions, strict=True))
    return [by_name[name] for name in NAMES]


def with_keep_out_box(directory: Path, box: tuple[float, ...]) -> Path:
    """A copy of the desk kit's params file in `directory` with one keep-out box (min x, y, z,
    max x, y, z, m) in its workspace section."""
    numbers = ", ".join(f"{v:.3f}" for v in box)
    text = CONFIG_FILE.read_text().replace(
        "    workspace:\n", f"    workspace:\n      keep_out_boxes_m: [{numbers}]\n", 1
    )
    path = directory / "desk_kit_with_a_box.yaml"
    path.write_text(text)
    return path
