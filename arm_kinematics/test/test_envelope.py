"""The workspace envelope on arms: which constraint, which part, how deep, along paths."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.config import ArmConfig, EnvelopeConfig
from arm_kinematics.kinematics import IkStatus, PlanarArm, SpatialArm
from arm_kinematics.kinematics.envelope import (
    PATH_RESOLUTION_M,
    Constraint,
    Envelope,
    path_samples,
)
from arm_kinematics.kinematics.envelope.geometry import point_box_distance
from arm_kinematics.kinematics.workspace import reachable_region, vertical_region

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
D = math.radians


def desk_kit(**workspace) -> tuple[ArmConfig, Envelope]:
    """The desk kit (links 0.105, 0.098, 0.090 m, shoulder 0.07 m up, a 0.055 m gripper) with
    its shipped envelope (table at 0, parts 0.02 m, column 0.04 m) changed by `workspace`."""
    config = ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml")
    config = dataclasses.replace(
        config, workspace=dataclasses.replace(config.workspace, **workspace)
    )
    return config, config.make_envelope()


def test_a_tool_point_below_the_table_is_named_with_its_depth() -> None:
    config, envelope = desk_kit()
    arm = config.make_model()
    solved = arm.solve(0.15, 0.0, -0.03, pitch=D(-90))
    assert solved.status == IkStatus.OK  # the kinematics alone reach under the desk
    found = envelope.check(solved.joints)
    assert found.constraint == Constraint.TABLE
    # Pointing down, the open fingertips lie level with the tool point: the first part named.
    assert found.part == "the tool point"
    assert found.depth == pytest.approx(0.03 + 0.02)
    assert found.point == pytest.approx((0.15, 0.0, -0.03))
    assert found.message.startswith("OUTSIDE_WORKSPACE: the tool point would be 50 mm below the")
    assert "workspace.table_z_m = 0 m" in found.message
    assert found.ik_result().status == IkStatus.OUTSIDE_WORKSPACE
    assert found.ik_result().message == found.message


def test_the_wrist_below_the_table_with_the_tool_above_it() -> None:
    _, envelope = desk_kit()
    # Forearm 60 deg down puts the wrist 0.07 - 0.098 sin 60 = -0.01487 m low; the hand tilted
    # back up 30 deg lifts the tool point to +0.0301 m, clear by more than the radius.
    found = envelope.check((0.0, 0.0, D(-60), D(90), 0.0))
    assert found.constraint == Constraint.TABLE
    assert found.part == "the wrist (wrist_pitch)"
    assert found.depth == pytest.approx(0.098 * math.sin(D(60)) - 0.07 + 0.02)
    assert "would be 34.9 mm below the table" in found.message


def test_a_forearm_passing_under_a_box_is_named_by_its_link() -> None:
    # Home: the forearm level at z = 0.175 from x = 0 to 0.098; the box's bottom 15 mm above it.
    config, envelope = desk_kit(keep_out_boxes=((0.03, -0.02, 0.19, 0.07, 0.02, 0.25),))
    found = envelope.check(config.home)
    assert (found.constraint, found.box, found.part) == (
        Constraint.KEEP_OUT_BOX,
        0,
        "the forearm (link 2)",
    )
    assert found.depth == pytest.approx(0.02 - 0.015)
    assert 0.03 <= found.point[0] <= 0.07
    assert found.point[2] == pytest.approx(0.175)
    assert "would be 5 mm inside keep-out box 1 (x 0.03..0.07, y -0.02..0.02, z 0.19..0.25" in (
        found.message
    )


def test_a_target_inside_a_box_names_the_tool_point_and_the_right_box() -> None:
    boxes = ((0.3, 0.3, 0.0, 0.4, 0.4, 0.1), (0.13, -0.02, 0.08, 0.17, 0.02, 0.12))
    config, envelope = desk_kit(keep_out_boxes=boxes)
    solved = config.make_model().solve(0.15, 0.0, 0.10)
    assert solved.status == IkStatus.OK
    found = envelope.check(solved.joints)
    assert (found.constraint, found.box, found.part) == (
        Constraint.KEEP_OUT_BOX,
        1,
        "the tool point",
    )
    # The tool point is the box's centre, 20 mm from every face, plus the radius.
    assert found.depth == pytest.approx(0.02 + 0.02)
    assert "inside keep-out box 2" in found.message


def test_the_hand_folded_through_the_base_column() -> None:
    _, envelope = desk_kit()
    # Upper arm up, forearm 60 deg down, hand 150 deg down: the hand crosses the yaw axis at
    # z = 0.0901 - 0.049 tan 30 = 0.062 m, under the column's top (the shoulder, 0.07 m).
    found = envelope.check((0.0, D(90), D(-150), D(-90), 0.0))
    assert found.constraint == Constraint.BASE_COLUMN
    assert found.part == "the wrist link (link 3)"
    assert found.depth == pytest.approx(0.04 + 0.02)  # on the axis itself
    assert found.point[:2] == pytest.approx((0.0, 0.0), abs=1e-9)
    assert "inside the arm's base column (workspace.base_column_radius_m = 0.04 m" in (
        found.message
    )
    # The upper arm stands on the column: straight up from the shoulder is inside.
    assert envelope.check((0.0, D(90), 0.0, 0.0, 0.0)) is None


def test_the_table_comes_first_then_the_boxes_then_the_column() -> None:
    _, envelope = desk_kit(keep_out_boxes=((-1.0, -1.0, -1.0, 1.0, 1.0, 1.0),))
    below = (0.0, 0.0, D(-60), D(90), 0.0)  # the wrist below the table, everything in the box
    assert envelope.check(below).constraint == Constraint.TABLE
    assert envelope.check((0.0, D(90), D(-90), 0.0, 0.0)).constraint == Constraint.KEEP_OUT_BOX


def test_check_many_is_check_row_by_row() -> None:
    config, envelope = desk_kit(keep_out_boxes=((0.1, -0.1, 0.0, 0.2, 0.1, 0.1),))
    rng = np.random.default_rng(3)
    limits = np.array(config.joint_limits)
    joints = rng.uniform(limits[:, 0], limits[:, 1], (300, len(limits)))
    many = envelope.check_many(joints)
    assert 0 < many.ok.sum() < 300
    assert {int(c) for c in many.constraint} == {0, 1, 2, 3}
    for row in range(300):
        assert many.at(row) == envelope.check(joints[row])
    assert many.first() == int(np.flatnonzero(~many.ok)[0])


def brute_force_depth(envelope: Envelope, joints: np.ndarray) -> np.ndarray:
    """The deepest any part goes past any constraint, per row, by sampling every capsule's
    centre line at 401 points: no exact distance, no broad phase."""
    points = envelope.parts.points_many(joints)
    ends = envelope.parts.segments
    t = np.linspace(0.0, 1.0, 401)[None, None, :, None]
    a, b = points[:, ends[:, 0], None], points[:, ends[:, 1], None]
    samples = a + t * (b - a)  # (N, S, 401, 3)
    r = envelope.link_radius
    depths = [np.full(len(joints), -np.inf)]
    if envelope.table_z is not None:
        depths.append((envelope.table_z - samples[..., 2] + r).max(axis=(1, 2)))
    for box in envelope.keep_out_boxes:
        lo, hi = np.array(box[:3]), np.array(box[3:])
        outside = point_box_distance(samples, lo, hi)
        inside = np.min(np.concatenate((samples - lo, hi - samples), axis=-1), axis=-1)
        depths.append((r - np.where(outside > 0, outside, -inside)).max(axis=(1, 2)))
    if envelope.column_radius > 0:
        column = samples[:, envelope.parts.column_segments]
        above = np.maximum(column[..., 2] - envelope.column_top, 0.0)
        axis = np.sqrt(column[..., 0] ** 2 + column[..., 1] ** 2 + above**2)
        depths.append((r + envelope.column_radius - axis).max(axis=(1, 2)))
    return np.max(depths, axis=0)


@pytest.mark.parametrize("name", ["arm_desk_kit.yaml", "arm_openmanipulator_x.yaml", "arm.yaml"])
def test_check_many_agrees_with_sampling_the_capsules(name: str) -> None:
    config = ArmConfig.from_file(CONFIG_DIR / name)
    config = dataclasses.replace(
        config,
        workspace=dataclasses.replace(
            config.workspace,
            keep_out_boxes=((0.05, 0.05, 0.0, 0.15, 0.15, 0.1), (-0.2, -0.1, 0.1, -0.1, 0.0, 0.3)),
        ),
    )
    envelope = config.make_envelope()
    rng = np.random.default_rng(11)
    limits = np.array(config.joint_limits)
    joints = rng.uniform(limits[:, 0], limits[:, 1], (2000, len(limits)))
    ok = envelope.check_many(joints).ok
    depth = brute_force_depth(envelope, joints)
    clear = np.abs(depth) > 1e-3  # sampling at 401 points is within 1 mm of the exact depth
    assert clear.sum() > 1900
    assert (ok[clear] == (depth[clear] <= 0)).all()
    assert 0.2 < ok.mean() < 0.95


def test_a_planar_arm_is_in_its_plane() -> None:
    arm = PlanarArm((1.0, 0.8))
    beside = Envelope(arm, link_radius=0.01, plane_z=0.1, keep_out_boxes=[(0, -2, 0, 2, 2, 0.085)])
    assert beside.check((0.0, 0.0)) is None  # the box stops 15 mm under the plane
    touching = Envelope(
        arm, link_radius=0.01, plane_z=0.1, keep_out_boxes=[(0, -2, 0, 2, 2, 0.095)]
    )
    found = touching.check((0.0, 0.0))
    assert (found.constraint, found.part) == (Constraint.KEEP_OUT_BOX, "the shoulder")
    assert found.depth == pytest.approx(0.005)


def joint_sweep() -> tuple[Envelope, np.ndarray]:
    """A spatial arm (links 0.1 and 0.1 m, shoulder 0.15 m up, no limits) whose upper arm
    swings from 120 deg below the horizontal to 60 deg below, the forearm kept vertical: the
    elbow is at z = 0.15 + 0.1 sin(q1), 0.0634 m at both ends and 0.05 m halfway."""
    arm = SpatialArm((0.1, 0.1), shoulder_height=0.15)
    envelope = Envelope(arm, link_radius=0.005, table_z=0.055)
    path = np.array([[0.0, D(-120), D(210)], [0.0, D(-60), D(150)]])
    return envelope, path


def test_a_joint_sweep_that_dips_the_elbow_below_the_table_is_caught() -> None:
    envelope, path = joint_sweep()
    assert envelope.check_many(path).ok.all()  # both ends are above the table
    found = envelope.check_path(path)
    assert found.index == 0
    # The elbow's capsule reaches the table where sin(q1) = -0.9: q1 = -115.84 deg, 6.9% of
    # the way; the first check after that, within 2 mm of the elbow's travel.
    first = (math.degrees(math.asin(0.9)) - 60) / 60
    assert first < found.fraction < first + PATH_RESOLUTION_M / (0.1 * D(60))
    assert found.violation.part == "the elbow"
    assert found.violation.constraint == Constraint.TABLE
    assert found.message.startswith("OUTSIDE_WORKSPACE: between path points 0 and 1 (")
    assert "the elbow would be" in found.message
    assert found.joints[1] == pytest.approx(D(-120) + found.fraction * D(60))
    assert found.ik_result().status == IkStatus.OUTSIDE_WORKSPACE
    # The same arm swinging its upper arm back up, from 120 to 150 deg below the horizontal
    # (the elbow rises), never reaches it.
    assert envelope.check_path([path[0], [0.0, D(-150), D(240)]]) is None


def test_a_path_starting_outside_fails_at_its_first_point() -> None:
    envelope, path = joint_sweep()
    found = envelope.check_path([[0.0, D(-90), D(180)], *path])
    assert (found.index, found.fraction) == (0, 0.0)
    assert found.message.startswith("OUTSIDE_WORKSPACE: at path point 0: the elbow would be")


joint_fraction = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(*[joint_fraction] * 5), min_size=2, max_size=4))
def test_no_point_of_the_arm_moves_more_than_the_resolution_between_checks(fractions) -> None:
    config, envelope = desk_kit()
    limits = np.array(config.joint_limits)
    path = limits[:, 0] + np.array(fractions) * (limits[:, 1] - limits[:, 0])
    poses, index, fraction = path_samples(path, envelope.parts.motion_radii, PATH_RESOLUTION_M)
    points = envelope.parts.points_many(poses)
    travel = np.linalg.norm(np.diff(points, axis=0), axis=-1).max(axis=1)
    assert travel.max() <= PATH_RESOLUTION_M + 1e-12
    # Every path point is among the poses, in order, with fraction 0.
    at_points = poses[fraction == 0.0]
    assert at_points == pytest.approx(path)
    assert index[fraction == 0.0].tolist() == list(range(len(path)))


def test_an_empty_envelope_checks_nothing() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml")
    config = dataclasses.replace(config, workspace=EnvelopeConfig())
    envelope = config.make_envelope()
    assert envelope.is_empty
    assert envelope.check_many(np.zeros((3, 5))).ok.all()
    assert envelope.check_path(np.zeros((2, 5))) is None


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"link_radius": -0.01}, "link_radius -0.01 must be >= 0"),
        ({"link_radius": 0.01, "table_z": math.nan}, "table_z nan must be finite"),
        ({"link_radius": 0.01, "keep_out_boxes": [(0, 0, 0, 1, 1)]}, "must give 6 numbers"),
        ({"link_radius": 0.01, "keep_out_boxes": [(0, 0, 2, 1, 1, 1)]}, "min z 2.0 > max z 1.0"),
        ({"link_radius": 0.01, "column_radius": math.inf}, "column_radius inf must be finite"),
        ({"link_radius": 0.01, "tool_length": -1.0}, "tool_length -1.0 must be finite and >= 0"),
    ],
)
def test_bad_envelopes_are_refused_naming_the_value(arguments: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Envelope(PlanarArm((1.0, 0.8)), **arguments)


def test_joints_of_the_wrong_shape_are_refused() -> None:
    envelope = Envelope(PlanarArm((1.0, 0.8)), link_radius=0.01, table_z=-1.0)
    with pytest.raises(ValueError, match=r"joints of shape \(2, 3\) must be \(N, 2\)"):
        envelope.check_many(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="joints must be finite"):
        envelope.check_path([[0.0, 0.0], [math.nan, 0.0]])
    with pytest.raises(ValueError, match="must be 2 numbers"):
        envelope.check(None)
    assert len(envelope.check_many(np.zeros((0, 2))).ok) == 0


def region_cells(region, mask, count: int) -> list[tuple[float, float]]:
    """`count` cell centres (m, the region's plane) of `mask`, drawn with a fixed seed."""
    rows, columns = np.nonzero(mask)
    picked = np.random.default_rng(23).choice(len(rows), min(count, len(rows)), replace=False)
    return [region.cell_centre(rows[i], columns[i]) for i in picked]


def test_the_region_marks_what_the_envelope_removes_as_the_ik_answers_it() -> None:
    # The desk kit with a box in front: its vertical plane at yaw 0 (in front of the yaw axis,
    # where the IK's yaw is 0 too); the table, the column and the box remove cells.
    config, _ = desk_kit(keep_out_boxes=((0.12, -0.05, 0.0, 0.2, 0.05, 0.08),))
    arm = config.make_arm()
    region = vertical_region(arm)
    bare = vertical_region(arm.bare)
    assert not bare.removed.any()
    assert (region.reachable | region.removed == bare.reachable).all()
    assert not (region.reachable & region.removed).any()
    assert region.removed[region.cell_of(0.15, -0.01)]  # below the table
    assert region.removed[region.cell_of(0.16, 0.05)]  # in the box
    assert region.reachable[region.cell_of(0.16, 0.15)]
    for mask, removed in ((region.removed, True), (region.reachable, False)):
        for x, z in region_cells(region, mask, 150):
            if x > 0.01:  # behind the yaw axis the IK may turn the yaw instead
                answer = arm.solve(x, 0.0, z)
                assert (answer.status == IkStatus.OUTSIDE_WORKSPACE) == removed, (x, z)


def test_a_planar_region_loses_the_cells_a_box_takes() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / "arm.yaml")
    model = config.make_model()
    arm = model.with_envelope(
        Envelope(model, link_radius=0.01, keep_out_boxes=[(0.1, -0.04, -1.0, 0.2, 0.04, 1.0)])
    )
    region = reachable_region(arm)
    assert region.removed[region.cell_of(0.15, 0.0)]
    assert not region.contains(0.15, 0.0)
    assert region.contains(0.0, 0.15)
    for x, y in region_cells(region, region.removed, 100):
        assert arm.solve(x, y).status == IkStatus.OUTSIDE_WORKSPACE
    for x, y in region_cells(region, region.reachable, 100):
        assert arm.solve(x, y).status <= IkStatus.SINGULAR
