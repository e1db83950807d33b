"""The spatial layout, parallelogram servos and the gripper in the configuration (no ROS)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arm_kinematics.config import ArmConfig, ConfigError, load_parameters_file
from arm_kinematics.kinematics import PlanarArm, SpatialArm

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
KIT, MEARM, OMX = "arm_desk_kit.yaml", "arm_mearm.yaml", "arm_openmanipulator_x.yaml"
SPATIAL_FILES = (KIT, MEARM, OMX)
D = math.radians


def params(name: str) -> dict:
    return load_parameters_file(CONFIG_DIR / name)


@pytest.mark.parametrize("name", SPATIAL_FILES)
def test_every_shipped_spatial_file_is_valid_and_makes_a_spatial_arm(name: str) -> None:
    config = ArmConfig.from_file(CONFIG_DIR / name)
    arm = config.make_arm()
    assert config.layout == "spatial"
    assert isinstance(arm, SpatialArm)
    assert arm.joint_names == config.joint_names
    assert arm.joint_limits == config.joint_limits
    assert config.gripper is not None
    assert config.gripper.name not in config.joint_names
    assert [j.name for j in config.driven_joints] == [*config.joint_names, config.gripper.name]
    channels = [j.servo.channel for j in config.driven_joints]
    assert channels == list(range(len(channels)))  # one channel each, from 0
    assert config.notes == ()  # the spatial files carry no planar-only keys
    assert arm.within_limits(config.home)


def test_the_desk_kit_is_six_servos_with_a_roll() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / KIT)
    assert [j.name for j in config.driven_joints] == [
        "base_yaw", "shoulder", "elbow", "wrist_pitch", "wrist_roll", "gripper"
    ]  # fmt: skip
    assert config.spatial.wrist_roll
    assert config.make_arm().has_roll
    # Home: upper arm up, forearm and gripper horizontal forward.
    tool = config.make_arm().forward(config.home)
    assert (tool.x, tool.y, tool.z) == pytest.approx((0.098 + 0.090, 0.0, 0.070 + 0.105))


def test_openmanipulator_x_is_at_its_published_zero_pose() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / OMX)
    tool = config.make_arm().forward((0.0, 0.0, 0.0, 0.0))
    # ROBOTIS's URDF: joint1 0.017 up, joint2 0.0595 above it, the elbow at (0.024, 0.128) from
    # the shoulder, then 0.124 and 0.126 m forward.
    assert (tool.x, tool.y, tool.z) == pytest.approx((0.024 + 0.124 + 0.126, 0.0, 0.0765 + 0.128))
    assert tool.pitch == pytest.approx(0.0, abs=1e-12)
    assert config.spatial.link_angle_offsets[0] == pytest.approx(math.atan2(0.128, 0.024))


def test_mearm_elbow_is_a_parallelogram_whose_travel_bounds_the_forearm() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / MEARM)
    assert [j.servo.linkage for j in config.joints] == ["direct", "direct", "parallelogram"]
    assert config.plane_joints == (1, 2)
    # Elbow servo: offset 90, sign +1, travel 30..135: the forearm at -60..45 deg.
    (shoulder_limits, forearm_limits) = config.link_angle_limits
    assert shoulder_limits is None
    assert forearm_limits == pytest.approx((D(-60), D(45)))
    arm = config.make_arm()
    assert arm.within_limits((0.0, D(90), D(-90)))  # forearm level
    assert not arm.within_limits((0.0, D(90), D(-20)))  # forearm 70 deg up: past the servo
    assert arm.within_limits((0.0, D(90), D(-45)))


def test_a_planar_arm_may_have_a_parallelogram_too() -> None:
    p = load_parameters_file()
    p["joints.elbow.servo.linkage"] = "parallelogram"  # servo = 90 - (shoulder + elbow)
    config = ArmConfig.from_parameters(p)
    assert config.link_angle_limits == (None, pytest.approx((-math.pi / 2, math.pi / 2)))
    arm = config.make_arm()
    assert isinstance(arm, PlanarArm)
    assert not arm.within_limits((D(60), D(45)))  # link 2 at 105 deg: past the servo


def test_planar_files_are_unchanged_planar_arms() -> None:
    for name in ("arm.yaml", "arm_3r.yaml"):
        config = ArmConfig.from_file(CONFIG_DIR / name)
        assert config.layout == "planar"
        assert (config.spatial, config.gripper, config.notes) == (None, None, ())
        assert config.driven_joints == config.joints
        assert all(j.servo.linkage == "direct" for j in config.joints)
        assert type(config.make_arm()) is PlanarArm


def test_planar_only_keys_in_a_spatial_file_are_noted_as_unused() -> None:
    p = params(KIT)
    p.update({"plane_z_m": 0.1, "plane_tolerance_m": 0.001})
    config = ArmConfig.from_parameters(p)
    assert config.notes == (
        "layout spatial: plane_z_m and plane_tolerance_m not used (a spatial arm has no plane)",
    )


def test_gripper_positions_map_linearly_onto_the_joint() -> None:
    gripper = ArmConfig.from_file(CONFIG_DIR / KIT).gripper
    assert gripper.position_unit == "opening_m"
    assert gripper.position_limits == (0.0, 0.055)
    assert gripper.open_position == pytest.approx(0.055)
    # 0.055 m at 70 deg, 0 at 0 deg: 0.0275 m at 35 deg.
    assert gripper.position(D(35)) == pytest.approx(0.0275)
    assert gripper.joint_angle(0.011) == pytest.approx(D(14))
    omx = ArmConfig.from_file(CONFIG_DIR / OMX).gripper
    assert omx.position(D(45)) == pytest.approx(0.0475)  # halfway from 20 to 75 mm
    assert omx.position_limits == (0.02, 0.075)
    claw = ArmConfig.from_file(CONFIG_DIR / MEARM).gripper
    assert claw.position_unit == "angle_rad"
    assert claw.position(0.3) == 0.3
    assert claw.position_limits == pytest.approx((0.0, D(60)))


SPATIAL_ERRORS = [
    (KIT, "layout", "cylindrical", "must be one of planar, spatial"),
    (KIT, "link_lengths_m", [0.1, 0.1, 0.1, 0.1], "2 or 3 pitch links"),
    (KIT, "spatial.wrist_roll", False, "set spatial.wrist_roll: true"),
    (MEARM, "spatial.wrist_roll", True, "none left for the roll"),
    (KIT, "joint_names", ["a", "b", "c"], "its yaw, 3 pitch joints"),
    (KIT, "spatial.link_angle_offsets_deg", [0.0, 0.0], "must give 3 numbers"),
    (KIT, "spatial.shoulder_height_m", None, "is missing"),
    (KIT, "spatial.shoulder_forward_m", float("nan"), "finite"),
    (KIT, "spatial.wrist_roll", "yes", "true or false"),
    # parallelograms only on a pitch joint after the first
    (KIT, "joints.base_yaw.servo.linkage", "parallelogram", "base_yaw is the yaw"),
    (KIT, "joints.shoulder.servo.linkage", "parallelogram", "the first pitch joint"),
    (KIT, "joints.wrist_roll.servo.linkage", "parallelogram", "the roll"),
    (KIT, "joints.elbow.servo.linkage", "cam", "one of direct, parallelogram"),
    # the gripper
    (KIT, "gripper.joint", "elbow", "is in joint_names too"),
    (KIT, "gripper.position_unit", "percent", "one of opening_m, angle_rad"),
    (KIT, "gripper.open_deg", 80.0, "within joints.gripper [0, 70]"),
    (KIT, "gripper.open_deg", 0.0, "must differ from gripper.closed_deg"),
    (KIT, "gripper.open_m", 0.0, "must be > gripper.closed_m"),
    (KIT, "gripper.closed_m", -0.01, "must be >= 0"),
    (KIT, "gripper.reach_timeout_s", 0.0, "must be > 0"),
    (KIT, "joints.gripper.servo.channel", 3, "used by another joint too (wrist_pitch)"),
    (KIT, "joints.gripper.servo.linkage", "parallelogram", "the gripper's must be direct"),
    (KIT, "joints.gripper.home_deg", 75.0, "within"),
    (MEARM, "gripper.closed_deg", -5.0, "within joints.claw [0, 60]"),
]


@pytest.mark.parametrize(("file", "name", "value", "reason"), SPATIAL_ERRORS)
def test_invalid_spatial_value_names_parameter_and_value(
    file: str, name: str, value, reason: str
) -> None:
    p = params(file)
    if value is None:
        del p[name]
    else:
        p[name] = value
    with pytest.raises(ConfigError) as caught:
        ArmConfig.from_parameters(p)
    assert caught.value.name == name
    assert f"'{name}' = {value!r}" in str(caught.value)
    assert reason in str(caught.value)


def test_a_gripper_joint_without_its_section_is_named() -> None:
    p = params(KIT)
    p["gripper.joint"] = "claw"
    with pytest.raises(ConfigError, match=r"'joints.claw.min_deg' = None: is missing"):
        ArmConfig.from_parameters(p)


def test_parallelogram_home_outside_the_servo_travel_is_refused() -> None:
    p = params(MEARM)
    # Shoulder 90 + elbow -20 at home: the forearm 70 deg up, servo 160 deg, past 135.
    p["joints.elbow.home_deg"] = -20.0
    with pytest.raises(ConfigError) as caught:
        ArmConfig.from_parameters(p)
    assert caught.value.name == "joints.elbow.home_deg"
    assert "puts the link at 70 deg (shoulder + elbow, every joint at home)" in str(caught.value)
    assert "servo angle 160 deg, outside the servo's travel [30, 135]" in str(caught.value)


def test_parallelogram_travel_that_misses_the_joint_limits_is_refused() -> None:
    p = params(MEARM)
    # The joint limits let the forearm (shoulder + elbow) reach [0 - 150, 135 - 20] = [-150, 115]
    # deg. A servo offset of 300 (sign +1) gives the travel 30..135 the forearm at [-270, -165].
    p["joints.elbow.servo.offset_deg"] = 300.0
    with pytest.raises(ConfigError) as caught:
        ArmConfig.from_parameters(p)
    assert caught.value.name == "joints.elbow.servo.offset_deg"
    assert str(caught.value) == (
        "parameter 'joints.elbow.servo.offset_deg' = 300.0: the servo's travel [30, 135] lets "
        "the link (shoulder + elbow) reach [-270, -165] deg, the joint limits [-150, 115] deg: "
        "they do not overlap"
    )
