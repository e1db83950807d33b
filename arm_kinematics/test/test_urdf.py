"""The URDF expanded from urdf/arm.urdf.xacro agrees with the kinematics and the config.

The tip pose is computed the way robot_state_publisher does it, by chaining the URDF joints'
origins and their rotations about their axes, and compared with `PlanarArm.forward` (planar
files) and `SpatialArm.link_frames` (spatial files). The planar files' URDF is byte for byte
what it was before the spatial layout joined the xacro (test/golden/).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import transforms3d
import xacro
import yaml
from urdf_chain import CONFIG_DIR, PLANAR_CONFIGS, SPATIAL_CONFIGS, UrdfChain, random_joints

from arm_kinematics.config import (
    ArmConfig,
    ConfigError,
    default_config_path,
    load_parameters_file,
)
from arm_kinematics.description import robot_description, xacro_path

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
N_SAMPLES = 1000


def _wrap(angle: float) -> float:
    return math.atan2(math.sin(angle), math.cos(angle))


@pytest.fixture(params=PLANAR_CONFIGS, ids=lambda p: p.name)
def config_path(request: pytest.FixtureRequest) -> Path:
    return request.param


def test_xacro_expands_with_the_xacro_api_and_is_a_urdf(config_path: Path) -> None:
    document = xacro.process_file(str(xacro_path()), mappings={"config": str(config_path)})
    robot = ET.fromstring(document.toprettyxml(indent="  "))
    assert robot.tag == "robot"
    links = {link.get("name") for link in robot.iter("link")}
    children = [j.find("child").get("link") for j in robot.iter("joint")]
    parents = {j.find("parent").get("link") for j in robot.iter("joint")}
    # A tree: every link but one root has exactly one parent joint, all named links exist.
    assert len(children) == len(set(children))
    assert (parents | set(children)) <= links
    config = ArmConfig.from_file(config_path)
    assert links - set(children) == {config.base_frame}
    assert config.tip_frame in links
    # Every link is visible in RViz, with a colour defined once at the top.
    materials = {m.get("name") for m in robot.findall("material")}
    for link in robot.iter("link"):
        visuals = link.findall("visual")
        assert visuals, f"link {link.get('name')} has no visual"
        for visual in visuals:
            assert visual.find("material").get("name") in materials


def test_joint_names_axes_and_limits_equal_the_config(config_path: Path) -> None:
    config = ArmConfig.from_file(config_path)
    chain = UrdfChain(robot_description(config_path), config.base_frame, config.tip_frame)
    assert [j.get("name") for j in chain.movable] == list(config.joint_names)
    for joint, joint_config in zip(chain.movable, config.joints, strict=True):
        assert joint.get("type") == "revolute"
        assert [float(v) for v in joint.find("axis").get("xyz").split()] == [0.0, 0.0, 1.0]
        limit = joint.find("limit")
        assert float(limit.get("lower")) == pytest.approx(joint_config.min_position, abs=1e-12)
        assert float(limit.get("upper")) == pytest.approx(joint_config.max_position, abs=1e-12)
        assert float(limit.get("velocity")) == pytest.approx(joint_config.max_velocity, abs=1e-12)
        assert float(limit.get("effort")) > 0
    # The last joint before the tip is the fixed tool frame.
    assert chain.joints[-1].get("type") == "fixed"


def test_tip_pose_from_urdf_equals_forward_kinematics(config_path: Path) -> None:
    config = ArmConfig.from_file(config_path)
    arm = config.make_arm()
    chain = UrdfChain(robot_description(config_path), config.base_frame, config.tip_frame)
    rng = np.random.default_rng(42)
    lower, upper = np.array(config.joint_limits).T
    samples = rng.uniform(lower, upper, size=(N_SAMPLES, len(config.joints)))

    worst_position = worst_heading = worst_off_plane = 0.0
    for joints in samples:
        transform = chain.tip_transform(joints)
        x, y, heading = arm.forward(tuple(joints))
        worst_position = max(worst_position, abs(transform[0, 3] - x), abs(transform[1, 3] - y))
        urdf_heading = math.atan2(transform[1, 0], transform[0, 0])
        worst_heading = max(worst_heading, abs(_wrap(urdf_heading - heading)))
        # The tool stays in the arm's plane, its z axis along the base's.
        worst_off_plane = max(
            worst_off_plane,
            abs(transform[2, 3] - config.plane_z),
            float(np.max(np.abs(transform[:3, 2] - [0.0, 0.0, 1.0]))),
        )
    assert worst_position < 1e-9
    assert worst_heading < 1e-9
    assert worst_off_plane < 1e-9


def test_zero_pose_puts_the_tip_at_the_sum_of_the_link_lengths(config_path: Path) -> None:
    config = ArmConfig.from_file(config_path)
    chain = UrdfChain(robot_description(config_path), config.base_frame, config.tip_frame)
    transform = chain.tip_transform([0.0] * len(config.joints))
    assert transform[:3, 3] == pytest.approx([sum(config.link_lengths), 0.0, 0.0], abs=1e-12)


def test_frames_plane_height_and_relative_path_come_from_the_given_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = yaml.safe_load((CONFIG_DIR / "arm.yaml").read_text())
    params = document["/**"]["ros__parameters"]
    params.update(base_frame="arm_base", tip_frame="pen_tip", plane_z_m=0.05)
    params["link_lengths_m"] = [0.12, 0.07]
    (tmp_path / "pen_arm.yaml").write_text(yaml.safe_dump(document))
    monkeypatch.chdir(tmp_path)

    chain = UrdfChain(robot_description("pen_arm.yaml"), "arm_base", "pen_tip")
    transform = chain.tip_transform([0.0, math.pi / 2])
    assert transform[:3, 3] == pytest.approx([0.12, 0.07, 0.05], abs=1e-12)


@pytest.mark.parametrize("name", ["arm.yaml", "arm_3r.yaml"])
def test_the_planar_urdf_is_byte_for_byte_what_it_was(name: str) -> None:
    # The golden copies were expanded from the xacro before the spatial layout joined it; only
    # xacro's banner line, which names the xacro's path, is left out of the comparison.
    banner = re.compile(
        r"^<!-- \|    This document was autogenerated by xacro from .* \| -->$", re.M
    )
    text = banner.sub("(banner)", robot_description(CONFIG_DIR / name))
    assert text == banner.sub("(banner)", (GOLDEN_DIR / name.replace(".yaml", ".urdf")).read_text())


def test_default_description_uses_the_packaged_config() -> None:
    assert robot_description() == robot_description(default_config_path())


def test_bad_config_raises_config_error_naming_the_parameter(tmp_path: Path) -> None:
    document = yaml.safe_load((CONFIG_DIR / "arm.yaml").read_text())
    document["/**"]["ros__parameters"]["link_lengths_m"] = [0.1]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(document))
    with pytest.raises(ConfigError, match="link_lengths_m"):
        robot_description(bad)
    with pytest.raises(ConfigError, match="cannot be read"):
        robot_description(tmp_path / "missing.yaml")


def test_3r_example_is_complete_and_valid() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / "arm_3r.yaml")
    assert config.joint_names == ("shoulder", "elbow", "wrist")
    assert config.link_lengths == (0.100, 0.080, 0.040)
    assert config.joints[2].servo.channel == 2
    assert config.make_arm().n_joints == 3

    # The same parameters as the documented 2R file, per joint: no field missing, none misspelt
    # (ROS would silently ignore a misspelt one).
    def shape(flat: dict, joint_names: Sequence[str]) -> set[str]:
        keys = set()
        for key in flat:
            for name in joint_names:
                key = key.replace(f"joints.{name}.", "joints.<joint>.")
            keys.add(key)
        return keys

    two = load_parameters_file(CONFIG_DIR / "arm.yaml")
    three = load_parameters_file(CONFIG_DIR / "arm_3r.yaml")
    assert shape(three, three["joint_names"]) == shape(two, two["joint_names"])
    per_joint = [k for k in three if k.startswith("joints.")]
    assert len(per_joint) == 3 * len([k for k in two if k.startswith("joints.shoulder.")])


# --- a mount in a parent frame, and prefixed frames ----------------------------------------------

MOUNTS = {
    "translated_and_yawed": {"xyz_m": [0.4, -0.25, 0.75], "rpy_deg": [0.0, 0.0, 35.0]},
    "wall": {"xyz_m": [1.2, 0.3, 1.1], "rpy_deg": [90.0, 0.0, -90.0]},
    "tilted": {"xyz_m": [-0.3, 0.8, 0.2], "rpy_deg": [20.0, -35.0, 120.0]},
}


def mounted_config(tmp_path: Path, source: Path, mount: dict, prefix: str = "") -> Path:
    """A copy of `source` with a mount in `world` (and a frame prefix)."""
    document = yaml.safe_load(source.read_text())
    params = document["/**"]["ros__parameters"]
    params["mount"] = {"parent_frame": "world", **mount}
    params["frame_prefix"] = prefix
    path = tmp_path / f"mounted_{source.name}"
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.mark.parametrize("mount_name", sorted(MOUNTS))
def test_urdf_chain_from_the_parent_frame_is_the_mount_times_forward_kinematics(
    tmp_path: Path, config_path: Path, mount_name: str
) -> None:
    from arm_kinematics.frames import Mount

    path = mounted_config(tmp_path, config_path, MOUNTS[mount_name])
    config = ArmConfig.from_file(path)
    arm = config.make_arm()
    mount = Mount.from_config(config.mount)
    chain = UrdfChain(robot_description(path), "world", config.tip_frame)
    rng = np.random.default_rng(7)
    lower, upper = np.array(config.joint_limits).T
    worst = 0.0
    for joints in rng.uniform(lower, upper, size=(N_SAMPLES, len(config.joints))):
        x, y, heading = arm.forward(tuple(joints))
        base_tip = transforms3d.affines.compose(
            [x, y, config.plane_z],
            transforms3d.euler.euler2mat(0.0, 0.0, heading, axes="sxyz"),
            np.ones(3),
        )
        expected = mount.matrix @ base_tip
        worst = max(worst, float(np.max(np.abs(chain.tip_transform(joints) - expected))))
    assert worst < 1e-12


def test_frame_prefix_names_the_arms_own_frames_but_not_the_mount_parent(tmp_path: Path) -> None:
    path = mounted_config(tmp_path, CONFIG_DIR / "arm.yaml", MOUNTS["wall"], prefix="left_arm/")
    robot = ET.fromstring(robot_description(path))
    links = {link.get("name") for link in robot.iter("link")}
    assert links == {"world", "left_arm/base_link", "left_arm/link_1", "left_arm/link_2",
                     "left_arm/tool0"}  # fmt: skip
    # Joint names are the arm's joint_states names: they stay as in the file.
    movable = [j.get("name") for j in robot.iter("joint") if j.get("type") == "revolute"]
    assert movable == ["shoulder", "elbow"]
    # The argument overrides the file's prefix; the same parameter checks apply to it.
    right = {
        link.get("name") for link in ET.fromstring(robot_description(path, "right/")).iter("link")
    }
    assert "right/base_link" in right
    # "" is no prefix at all, not "the file's".
    bare = {link.get("name") for link in ET.fromstring(robot_description(path, "")).iter("link")}
    assert bare == {"world", "base_link", "link_1", "link_2", "tool0"}
    with pytest.raises(ConfigError, match="frame_prefix"):
        robot_description(path, "/absolute/")


def test_without_a_mount_the_urdf_root_is_the_base_frame(config_path: Path) -> None:
    robot = ET.fromstring(robot_description(config_path))
    children = {j.find("child").get("link") for j in robot.iter("joint")}
    roots = {link.get("name") for link in robot.iter("link")} - children
    assert roots == {ArmConfig.from_file(config_path).base_frame}


# --- the spatial layout --------------------------------------------------------------------------


@pytest.fixture(params=SPATIAL_CONFIGS, ids=lambda p: p.name)
def spatial_path(request: pytest.FixtureRequest) -> Path:
    return request.param


def test_spatial_urdf_is_a_tree_of_the_design_frames(spatial_path: Path) -> None:
    config = ArmConfig.from_file(spatial_path)
    robot = ET.fromstring(robot_description(spatial_path))
    links = [link.get("name") for link in robot.iter("link")]
    k = len(config.link_lengths)
    expected = [
        config.base_frame,
        "yaw_link",
        *[f"link_{i + 1}" for i in range(k)],
        *(["roll_link"] if config.spatial.wrist_roll else []),
        config.tip_frame,
        "finger_left",
        "finger_right",
    ]
    assert links == expected
    children = [j.find("child").get("link") for j in robot.iter("joint")]
    assert sorted(children) == sorted(expected[1:])  # every link but the base has one parent
    materials = {m.get("name") for m in robot.findall("material")}
    for link in robot.iter("link"):
        assert link.findall("visual"), link.get("name")
        for visual in link.findall("visual"):
            assert visual.find("material").get("name") in materials


def test_spatial_joint_names_axes_and_limits_equal_the_config(spatial_path: Path) -> None:
    config = ArmConfig.from_file(spatial_path)
    chain = UrdfChain(robot_description(spatial_path), config.base_frame, config.tip_frame)
    assert [j.get("name") for j in chain.movable] == list(config.joint_names)
    k = len(config.link_lengths)
    axes = [[0.0, 0.0, 1.0], *[[0.0, -1.0, 0.0]] * k]
    if config.spatial.wrist_roll:
        axes.append([1.0, 0.0, 0.0])
    for joint, joint_config, axis in zip(chain.movable, config.joints, axes, strict=True):
        assert joint.get("type") == "revolute"
        assert [float(v) for v in joint.find("axis").get("xyz").split()] == axis
        limit = joint.find("limit")
        assert float(limit.get("lower")) == pytest.approx(joint_config.min_position, abs=1e-12)
        assert float(limit.get("upper")) == pytest.approx(joint_config.max_position, abs=1e-12)
        assert float(limit.get("velocity")) == pytest.approx(joint_config.max_velocity, abs=1e-12)


def test_the_urdf_chain_equals_the_cores_link_frames(spatial_path: Path) -> None:
    config = ArmConfig.from_file(spatial_path)
    arm = config.make_arm()
    urdf = robot_description(spatial_path)
    roles = arm.frame_roles()
    names = {"base": config.base_frame, "yaw": "yaw_link", "roll": "roll_link"}
    names["tool"] = config.tip_frame
    joints = random_joints(config, N_SAMPLES, seed=19)
    worst = 0.0
    for role_index, role in enumerate(roles):
        if role == "base":
            continue
        chain = UrdfChain(urdf, config.base_frame, names.get(role, role))
        urdf_frames = chain.tip_transforms(joints[:, : len(chain.movable)])
        for row, frame in zip(joints, urdf_frames, strict=True):
            core = arm.link_frames(tuple(row))[role_index]
            worst = max(worst, float(np.max(np.abs(frame - core))))
    assert worst < 1e-12


def test_vectorized_chain_equals_the_joint_by_joint_chain(spatial_path: Path) -> None:
    config = ArmConfig.from_file(spatial_path)
    chain = UrdfChain(robot_description(spatial_path), config.base_frame, config.tip_frame)
    joints = random_joints(config, 50, seed=3)
    for row, frame in zip(joints, chain.tip_transforms(joints), strict=True):
        assert frame == pytest.approx(chain.tip_transform(row), abs=1e-14)


def fingertip_gap(urdf: str, tip_frame: str, angle: float) -> float:
    """Distance (m, along the tool's y) between the drawn fingertips at a gripper joint angle."""
    gaps = []
    for finger in ("finger_left", "finger_right"):
        chain = UrdfChain(urdf, tip_frame, finger)
        box = chain.robot.find(f"link[@name='{finger}']/visual/geometry/box")
        tip = np.array([float(box.get("size").split()[0]), 0.0, 0.0, 1.0])
        gaps.append(float((chain.tip_transform([angle]) @ tip)[1]))
    return gaps[0] - gaps[1]


@pytest.mark.parametrize("name", ["arm_desk_kit.yaml", "arm_openmanipulator_x.yaml"])
def test_the_gripper_fingers_open_to_the_configured_opening(name: str) -> None:
    config = ArmConfig.from_file(CONFIG_DIR / name)
    gripper = config.gripper
    urdf = robot_description(CONFIG_DIR / name)
    (joint,) = UrdfChain(urdf, config.tip_frame, "finger_left").movable
    assert joint.get("name") == gripper.name
    (mirror,) = UrdfChain(urdf, config.tip_frame, "finger_right").movable
    assert mirror.find("mimic").get("joint") == gripper.name
    # Drawn fingertips closed_m apart when closed (at least 4 mm, so the fingers do not overlap)
    # and open_m when open.
    closed = fingertip_gap(urdf, config.tip_frame, gripper.closed_angle)
    assert closed == pytest.approx(max(gripper.closed_m, 0.004), abs=1e-12)
    assert fingertip_gap(urdf, config.tip_frame, gripper.open_angle) == pytest.approx(
        gripper.open_m, abs=1e-12
    )
    half = fingertip_gap(urdf, config.tip_frame, 0.5 * (gripper.open_angle + gripper.closed_angle))
    assert closed < half < gripper.open_m


def test_spatial_frames_carry_the_prefix(tmp_path: Path) -> None:
    path = mounted_config(tmp_path, CONFIG_DIR / "arm_mearm.yaml", MOUNTS["tilted"], "left/")
    config = ArmConfig.from_file(path)
    robot = ET.fromstring(robot_description(path))
    links = {link.get("name") for link in robot.iter("link")}
    assert links == {
        "world", "left/base_link", "left/yaw_link", "left/link_1", "left/link_2", "left/tool0",
        "left/finger_left", "left/finger_right",
    }  # fmt: skip
    # Mounted: the chain from the world is the mount times the core's tool frame.
    from arm_kinematics.frames import Mount

    chain = UrdfChain(robot_description(path), "world", "left/tool0")
    joints = random_joints(config, 100, seed=5)
    expected = [Mount.from_config(config.mount).matrix @ config.make_arm().link_frames(q)[-1]
                for q in joints]  # fmt: skip
    assert np.max(np.abs(chain.tip_transforms(joints) - np.array(expected))) < 1e-12
