"""The `workspace.*` section of the params file: its keys, their errors, the shipped values."""

from __future__ import annotations

from pathlib import Path

import pytest

from arm_kinematics.config import (
    ArmConfig,
    ConfigError,
    EnvelopeConfig,
    load_parameters_file,
    parameter_spec,
)

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
SPATIAL_FILES = ("arm_desk_kit.yaml", "arm_mearm.yaml", "arm_openmanipulator_x.yaml")
PLANAR_FILES = ("arm.yaml", "arm_3r.yaml")


def kit(**overrides) -> dict:
    """The desk kit's parameters with `overrides` (ROS names; None removes one)."""
    params = load_parameters_file(CONFIG_DIR / "arm_desk_kit.yaml")
    for name, value in overrides.items():
        name = "workspace." + name
        if value is None:
            params.pop(name, None)
        else:
            params[name] = value
    return params


@pytest.mark.parametrize("name", SPATIAL_FILES)
def test_the_shipped_spatial_files_put_a_table_at_their_base_plate(name: str) -> None:
    workspace = ArmConfig.from_file(CONFIG_DIR / name).workspace
    assert workspace.table_z == 0.0
    assert workspace.keep_out_boxes == ()
    assert 0.0 < workspace.link_radius <= 0.02
    assert 0.0 < workspace.base_column_radius <= 0.04


@pytest.mark.parametrize("name", PLANAR_FILES)
def test_the_shipped_planar_files_have_no_table(name: str) -> None:
    workspace = ArmConfig.from_file(CONFIG_DIR / name).workspace
    assert workspace.table_z is None
    assert workspace.base_column_radius == 0.035
    assert "workspace.table_z_m" not in load_parameters_file(CONFIG_DIR / name)


@pytest.mark.parametrize("name", SPATIAL_FILES + PLANAR_FILES)
def test_every_shipped_home_pose_is_inside_its_envelope(name: str) -> None:
    config = ArmConfig.from_file(CONFIG_DIR / name)
    envelope = config.make_envelope()
    assert not envelope.is_empty
    assert envelope.check(config.home) is None


def test_the_fingertips_are_the_open_gripper_wide() -> None:
    kit_envelope = ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml").make_envelope()
    assert kit_envelope.parts.fingertip_half_width == 0.055 / 2
    assert kit_envelope.parts.segment_names[-1] == "the fingertips"
    # The MeArm's claw has no opening in metres (angle_rad): no fingertips beyond the tool point.
    mearm = ArmConfig.from_file(CONFIG_DIR / "arm_mearm.yaml").make_envelope()
    assert mearm.parts.point_names == ("the shoulder", "the elbow", "the tool point")


def test_the_column_stands_to_the_shoulder_or_the_plane() -> None:
    assert ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml").make_envelope().column_top == 0.07
    p = load_parameters_file(CONFIG_DIR / "arm.yaml")
    p["plane_z_m"] = 0.02
    assert ArmConfig.from_parameters(p).make_envelope().column_top == 0.02


def test_a_file_without_the_section_constrains_nothing() -> None:
    params = {k: v for k, v in kit().items() if not k.startswith("workspace.")}
    config = ArmConfig.from_parameters(params)
    assert config.workspace == EnvelopeConfig()
    assert config.make_envelope().is_empty
    assert config.notes == ()


def test_boxes_are_read_six_numbers_at_a_time() -> None:
    flat = [0.15, 0.10, 0, 0.25, 0.20, 0.12, -0.3, -0.3, 0.0, -0.2, -0.2, 0.5]
    config = ArmConfig.from_parameters(kit(keep_out_boxes_m=flat))
    assert config.workspace.keep_out_boxes == (
        (0.15, 0.10, 0.0, 0.25, 0.20, 0.12),
        (-0.3, -0.3, 0.0, -0.2, -0.2, 0.5),
    )
    assert config.make_envelope().keep_out_boxes == config.workspace.keep_out_boxes
    assert ArmConfig.from_parameters(kit(keep_out_boxes_m=None)).workspace.keep_out_boxes == ()


@pytest.mark.parametrize(
    ("overrides", "name", "words"),
    [
        (
            {"keep_out_boxes_m": [0.1, 0.1, 0.0, 0.2, 0.2, 0.1, 0.5]},
            "workspace.keep_out_boxes_m",
            "must give six numbers per box (min x, y, z, max x, y, z): 7 numbers are 1 box(es) "
            "and 1 more",
        ),
        (
            {"keep_out_boxes_m": [0.1, 0.1, 0.0, 0.2, 0.2, 0.1, 0.3, 0.0, 0.0, 0.2, 0.1, 0.1]},
            "workspace.keep_out_boxes_m",
            "box 2 has min x 0.3 > max x 0.2 (each box: min x, y, z, then max x, y, z)",
        ),
        (
            {"keep_out_boxes_m": [0.1, 0.1, 0.0, 0.2, 0.2, float("inf")]},
            "workspace.keep_out_boxes_m",
            "must hold finite numbers (inf is not)",
        ),
        (
            {"keep_out_boxes_m": [0.1, 0.1, 0.0, 0.2, 0.2, "top"]},
            "workspace.keep_out_boxes_m",
            "must hold numbers ('top' is not one)",
        ),
        ({"keep_out_boxes_m": 0.5}, "workspace.keep_out_boxes_m", "must be a list of numbers"),
        ({"link_radius_m": -0.01}, "workspace.link_radius_m", "must be >= 0"),
        ({"base_column_radius_m": -0.04}, "workspace.base_column_radius_m", "must be >= 0"),
        ({"tool_length_m": -0.02}, "workspace.tool_length_m", "must be >= 0"),
        (
            {"table_z_m": float("-inf")},
            "workspace.table_z_m",
            "must be finite: for no table, leave workspace.table_z_m out of the file",
        ),
        ({"table_z_m": "none"}, "workspace.table_z_m", "must be a number (m)"),
        (
            {"link_radius_m": None},
            "workspace.link_radius_m",
            "is missing: the workspace envelope takes the arm's parts as capsules",
        ),
    ],
)
def test_bad_workspace_values_are_refused_naming_the_parameter(
    overrides: dict, name: str, words: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        ArmConfig.from_parameters(kit(**overrides))
    assert refused.value.name == name
    assert words in refused.value.reason


def test_no_radius_is_needed_where_nothing_is_constrained() -> None:
    params = kit(table_z_m=None, base_column_radius_m=None, link_radius_m=None)
    assert ArmConfig.from_parameters(params).workspace == EnvelopeConfig()


def test_a_home_pose_outside_the_envelope_is_refused_at_start_up() -> None:
    # Home: the upper arm up from the shoulder (0.07 m), the forearm level at 0.175 m.
    with pytest.raises(ConfigError) as refused:
        ArmConfig.from_parameters(kit(table_z_m=0.1))
    assert refused.value.name == "workspace.table_z_m"
    assert refused.value.reason == (
        "at the home pose (joints.*.home_deg) the shoulder would be 50 mm below the table "
        "(workspace.table_z_m = 0.1 m, counting workspace.link_radius_m = 0.02 m around the arm)"
    )
    with pytest.raises(ConfigError) as refused:
        ArmConfig.from_parameters(kit(keep_out_boxes_m=[0.1, -0.1, 0.1, 0.3, 0.1, 0.3]))
    assert refused.value.name == "workspace.keep_out_boxes_m"
    # The tool point (0.188, 0, 0.175) is 75 mm under the box's top, the nearest face.
    assert "the tool point would be 95 mm inside keep-out box 1" in refused.value.reason
    assert refused.value.value == [0.1, -0.1, 0.1, 0.3, 0.1, 0.3]


def test_the_workspace_parameters_are_each_arms_own() -> None:
    specs = {s.name: s for s in parameter_spec(["a", "b"]) if s.name.startswith("workspace.")}
    assert set(specs) == {
        "workspace.table_z_m",
        "workspace.keep_out_boxes_m",
        "workspace.link_radius_m",
        "workspace.base_column_radius_m",
        "workspace.tool_length_m",
    }
    # Never the package's arm.yaml value as a default: another arm's box is not this one's.
    assert not any(spec.packaged_default for spec in specs.values())
    assert specs["workspace.keep_out_boxes_m"].is_array
    assert all(" m" in spec.description or "m:" in spec.description for spec in specs.values())
    spatial = {s.name for s in parameter_spec(["y", "p1", "p2"], layout="spatial")}
    assert set(specs) <= spatial
