"""The arm's configuration file and its validation (pure Python, no ROS)."""

from __future__ import annotations

import math

import pytest

from arm_kinematics.config import ArmConfig, ConfigError, load_parameters_file


@pytest.fixture
def params() -> dict:
    return load_parameters_file()


def test_default_arm_is_the_desk_arm(params: dict) -> None:
    config = ArmConfig.from_parameters(params)
    assert config.link_lengths == (0.100, 0.080)
    assert config.joint_names == ("shoulder", "elbow")
    assert [j.servo.channel for j in config.joints] == [0, 1]
    assert config.hardware.backend == "sim"
    # degrees in the file, radians inside
    assert config.joint_limits[0] == pytest.approx((-math.pi / 2, math.pi / 2))


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("link_lengths_m", [0.1, -0.08], "> 0"),
        ("link_lengths_m", [0.1], "2 lengths"),
        ("joints.elbow.min_deg", 100.0, "<= joints.elbow.max_deg"),
        ("joints.elbow.max_deg", 120.0, "outside the servo's travel"),
        ("joints.elbow.servo.sign", 2, "+1 or -1"),
        ("joints.elbow.servo.channel", 0, "used by another joint"),
        ("joints.shoulder.servo.channel", 16, "0..15"),
        ("hardware.backend", "simulated", "one of sim, servokit"),
        ("hardware.channels", 12, "8 or 16"),
        ("hardware.publish_rate_hz", 5000.0, "<= 1000 Hz"),
        ("default_branch", "up", "one of closest"),
        ("ik.max_batch_targets", 0, "must be > 0"),
        ("ik.max_batch_targets", 1.5, "whole number"),
        ("plane_tolerance_m", float("nan"), "finite"),
        ("joints.shoulder.home_deg", 95.0, "within"),
        ("trajectory.command_rate_hz", 0.0, "> 0"),
        ("mount.xyz_m", [0.0, 0.0], "3 finite numbers"),
        ("mount.rpy_deg", [0.0, float("inf"), 0.0], "3 finite numbers"),
        ("mount.parent_frame", "base_link", "one of the arm's frames"),
        ("mount.parent_frame", "my world", "letters, digits"),
        ("frame_prefix", "/left_arm/", "must not start with '/'"),
    ],
)
def test_invalid_value_names_parameter_and_value(
    params: dict, name: str, value, reason: str
) -> None:
    params[name] = value
    with pytest.raises(ConfigError) as caught:
        ArmConfig.from_parameters(params)
    message = str(caught.value)
    assert caught.value.name == name
    assert f"'{name}' = {value!r}" in message
    assert reason in message


def test_missing_parameter_is_named(params: dict) -> None:
    del params["joints.shoulder.servo.max_pulse_us"]
    with pytest.raises(
        ConfigError, match=r"'joints.shoulder.servo.max_pulse_us' = None: is missing"
    ):
        ArmConfig.from_parameters(params)


def test_servo_mapping_mirrors_with_sign(params: dict) -> None:
    config = ArmConfig.from_parameters(params)
    shoulder, elbow = (j.servo for j in config.joints)
    assert shoulder.servo_deg(math.radians(30)) == pytest.approx(120.0)
    assert elbow.servo_deg(math.radians(30)) == pytest.approx(60.0)


def test_mount_is_optional_and_in_radians(params: dict) -> None:
    assert ArmConfig.from_parameters(params).mount is None  # parent_frame "" in the file
    for key in ("mount.parent_frame", "mount.xyz_m", "mount.rpy_deg", "frame_prefix"):
        del params[key]  # a file written before the mount existed
    config = ArmConfig.from_parameters(params)
    assert (config.mount, config.frame_prefix) == (None, "")
    params.update({"mount.parent_frame": "world", "mount.xyz_m": [1, 2, 3]})
    params.update({"mount.rpy_deg": [90.0, 0.0, -45.0], "frame_prefix": "left_arm/"})
    config = ArmConfig.from_parameters(params)
    assert config.mount.parent_frame == "world"
    assert config.mount.xyz == (1.0, 2.0, 3.0)
    assert config.mount.rpy == pytest.approx((math.pi / 2, 0.0, -math.pi / 4))
    assert config.frame(config.base_frame) == "left_arm/base_link"


def test_the_batch_limit_is_read_and_defaults_for_older_files(params: dict) -> None:
    assert ArmConfig.from_parameters(params).max_batch_targets == 100_000
    assert ArmConfig.from_parameters({**params, "ik.max_batch_targets": 50}).max_batch_targets == 50
    older = {name: value for name, value in params.items() if name != "ik.max_batch_targets"}
    assert ArmConfig.from_parameters(older).max_batch_targets == 100_000


def test_without_a_ros_environment_the_configs_come_from_the_source_tree(monkeypatch) -> None:
    # The core and its config files work without ROS: with ament_index_python not importable
    # the shipped files are found in the source tree (this raised UnboundLocalError before).
    import sys

    from arm_kinematics.config import default_config_path

    monkeypatch.setitem(sys.modules, "ament_index_python.packages", None)
    monkeypatch.setitem(sys.modules, "ament_index_python", None)
    path = default_config_path("arm_3r.yaml")
    assert path.is_file()
    assert path.parts[-3:] == ("arm_kinematics", "config", "arm_3r.yaml")
    assert ArmConfig.from_file(path).make_arm().n_joints == 3


def test_acceleration_limits_are_read_in_radians_and_default_for_older_files(params: dict):
    config = ArmConfig.from_parameters(params)
    assert config.max_accelerations == pytest.approx((math.radians(480.0),) * 2)
    assert config.trajectory.max_tool_acceleration == 0.3
    assert config.notes == ()
    older = {k: v for k, v in params.items() if "max_acceleration" not in k}
    config = ArmConfig.from_parameters(older)
    # Full speed (120 deg/s) in 0.25 s, and each default said once in the notes.
    assert config.max_accelerations == pytest.approx((math.radians(480.0),) * 2)
    assert config.trajectory.max_tool_acceleration == 0.3
    assert len(config.notes) == 3
    assert "joints.elbow.max_acceleration_deg_s2 not given: 480 deg/s^2" in config.notes[1]
    for name in ("joints.elbow.max_acceleration_deg_s2", "trajectory.max_acceleration_m_s2"):
        with pytest.raises(ConfigError, match=name.replace(".", r"\.") + ".*must be > 0"):
            ArmConfig.from_parameters({**params, name: 0.0})
