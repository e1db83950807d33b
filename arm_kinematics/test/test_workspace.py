"""The reachable region (kinematics/workspace.py) against brute force and the core's own solve,
and its markers (nodes/ik/markers.region_markers)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from visualization_msgs.msg import Marker

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import IkStatus, PlanarArm, workspace
from arm_kinematics.kinematics.workspace import near_singular_tips, reachable_region
from arm_kinematics.nodes.ik.markers import region_markers, workspace_markers


def load_arm(name: str) -> PlanarArm:
    return ArmConfig.from_file(default_config_path(name)).make_arm()


@pytest.fixture(scope="module", params=["arm.yaml", "arm_3r.yaml"])
def arm_and_region(request):
    arm = load_arm(request.param)
    return arm, reachable_region(arm)


def joint_box_samples(arm: PlanarArm, count: int, seed: int = 7) -> np.ndarray:
    """Uniform random joints inside the limits, plus every corner of the joint box."""
    rng = np.random.default_rng(seed)
    lows = np.array([lo for lo, _ in arm.joint_limits])
    highs = np.array([hi for _, hi in arm.joint_limits])
    corners = np.array(np.meshgrid(*zip(lows, highs, strict=True))).reshape(arm.n_joints, -1).T
    return np.vstack([rng.uniform(lows, highs, (count, arm.n_joints)), corners])


def in_or_next_to(region: workspace.ReachableRegion, mask: np.ndarray, x: float, y: float) -> bool:
    row, column = region.cell_of(x, y)
    rows, columns = mask.shape
    return any(
        0 <= r < rows and 0 <= c < columns and mask[r, c]
        for r in (row - 1, row, row + 1)
        for c in (column - 1, column, column + 1)
    )


HEADINGS = 72
"""Headings over a full turn that the brute force below tries."""


def solves_for_some_heading(arm: PlanarArm, x: float, y: float) -> bool:
    if arm.solve(x, y).ok:
        return True
    headings = np.linspace(-math.pi, math.pi, HEADINGS, endpoint=False)
    return arm.n_joints > 2 and any(arm.solve(x, y, float(h)).ok for h in headings)


def test_every_fk_sample_of_the_joint_box_lies_in_the_region(arm_and_region) -> None:
    arm, region = arm_and_region
    outside = [
        (round(x, 4), round(y, 4))
        for q in joint_box_samples(arm, 20_000)
        for x, y, _ in [arm.forward(q)]
        if not in_or_next_to(region, region.reachable, x, y)
    ]
    assert outside == []


def test_every_region_cell_centre_solves(arm_and_region) -> None:
    arm, region = arm_and_region
    cells = np.argwhere(region.reachable)
    assert len(cells) > 1000
    if arm.n_joints > 2:  # the 3R scalar solve searches headings: a sample of the cells
        cells = cells[np.random.default_rng(3).choice(len(cells), 1500, replace=False)]
    unsolved = [
        region.cell_centre(int(r), int(c))
        for r, c in cells
        if not solves_for_some_heading(arm, *region.cell_centre(int(r), int(c)))
    ]
    assert unsolved == []


def test_cells_outside_the_region_are_refused_by_the_core(arm_and_region) -> None:
    arm, region = arm_and_region
    rng = np.random.default_rng(5)
    cells = np.argwhere(~region.reachable)
    picked = cells[rng.choice(len(cells), 300, replace=False)]
    solved = [
        region.cell_centre(int(r), int(c))
        for r, c in picked
        if arm.n_joints == 2 and arm.solve(*region.cell_centre(int(r), int(c))).ok
    ]
    assert solved == []


def test_the_default_arms_elbow_limits_cut_the_ring_to_a_band() -> None:
    arm = load_arm("arm.yaml")
    region = reachable_region(arm)
    radii = [
        math.hypot(*region.cell_centre(int(r), int(c))) for r, c in np.argwhere(region.reachable)
    ]
    # The elbow's +-90 deg limit: r >= sqrt(L1^2 + L2^2) = 0.1281 m; the ring's hole is 0.02 m.
    assert min(radii) == pytest.approx(math.hypot(0.1, 0.08), abs=region.cell_size)
    assert max(radii) == pytest.approx(0.18, abs=region.cell_size)
    assert arm.ring[0] == pytest.approx(0.02)
    assert not region.contains(0.05, 0.0)
    assert arm.solve(0.05, 0.0).status == IkStatus.JOINT_LIMIT
    assert region.contains(0.15, 0.0)
    assert region.contains(0.0, 0.15)


def test_near_singular_cells_hold_targets_the_core_solves_singular(arm_and_region) -> None:
    arm, region = arm_and_region
    tips = np.asarray(near_singular_tips(arm, region.cell_size))
    status = np.array([arm.solve(float(x), float(y)).status for x, y, _ in tips])
    kept = tips[status == IkStatus.SINGULAR]
    if arm.n_joints == 2:  # every near-singular configuration's tip solves SINGULAR
        assert len(kept) == len(tips)
    else:  # 3R without a heading: the heading away from the base, the rim at full reach
        assert len(kept) > 100
        assert np.hypot(kept[:, 0], kept[:, 1]).min() > arm.reach - 1e-4
    sample = kept[:: max(1, len(kept) // 400)]
    assert {arm.solve(float(x), float(y)).status for x, y, _ in sample} == {IkStatus.SINGULAR}
    assert all(region.near_singular[region.cell_of(x, y)] for x, y, _ in kept)
    # ... and nothing else is marked: each marked cell holds a kept tip.
    marked = {region.cell_of(x, y) for x, y, _ in kept}
    assert {tuple(cell) for cell in np.argwhere(region.near_singular).tolist()} == marked


def test_the_2r_near_singular_zone_is_the_full_stretch_arc() -> None:
    arm = load_arm("arm.yaml")
    region = reachable_region(arm)
    # Every configuration within the limits whose |sin elbow| < margin is at full stretch.
    for q1 in np.linspace(-math.pi / 2, math.pi / 2, 50):
        for q2 in np.linspace(-0.019, 0.019, 5):
            x, y, _ = arm.forward((q1, q2))
            assert in_or_next_to(region, region.near_singular, x, y)
    radii = [
        math.hypot(*region.cell_centre(int(r), int(c)))
        for r, c in np.argwhere(region.near_singular)
    ]
    assert min(radii) > 0.18 - 2 * region.cell_size


def test_rectangles_cover_exactly_the_reachable_cells(arm_and_region) -> None:
    _, region = arm_and_region
    drawn = np.zeros_like(region.reachable)
    for x_min, y_min, x_max, y_max in region.rectangles():
        row, first = region.cell_of(x_min + 1e-9, y_min + 1e-9)
        _, last = region.cell_of(x_max - 1e-9, y_max - 1e-9)
        assert not drawn[row, first : last + 1].any()  # runs never overlap
        drawn[row, first : last + 1] = True
    assert (drawn == region.reachable).all()


def test_a_bad_cell_size_is_refused() -> None:
    arm = load_arm("arm.yaml")
    for bad in (0.0, -0.01, math.nan, math.inf):
        with pytest.raises(ValueError, match="cell_size"):
            reachable_region(arm, bad)
    with pytest.raises(ValueError, match="10\\^6"):
        reachable_region(arm, 1e-5)


def test_limits_that_keep_the_elbow_bent_give_no_near_singular_zone() -> None:
    arm = PlanarArm((0.1, 0.08), [(-1.0, 1.0), (0.5, 2.0)])
    region = reachable_region(arm, 0.003)
    assert not region.near_singular.any()
    assert region.reachable.any()


# --- markers ------------------------------------------------------------------------------------


def point_dict(p) -> dict[str, float]:
    return {"x": p.x, "y": p.y, "z": p.z}


def test_region_markers_are_two_triangles_per_rectangle(arm_and_region) -> None:
    _, region = arm_and_region
    reachable, near, removed = region_markers(region, frame_id="base_link", z=0.0)
    assert (reachable.ns, near.ns) == ("reachable_region", "near_singular")
    assert (removed.ns, removed.action) == ("envelope_removed", Marker.DELETE)  # no envelope
    for marker, mask in ((reachable, region.reachable), (near, region.near_singular)):
        assert marker.type == Marker.TRIANGLE_LIST
        assert marker.action == Marker.ADD
        assert marker.header.frame_id == "base_link"
        rectangles = region.rectangles(mask)
        assert len(marker.points) == 6 * len(rectangles)
        first = rectangles[0]
        corners = [(p.x, p.y) for p in marker.points[:6]]
        assert corners[0] == pytest.approx((first.x_min, first.y_min), abs=1e-6)
        assert corners[2] == pytest.approx((first.x_max, first.y_max), abs=1e-6)
    assert near.color.a > reachable.color.a  # drawn over the region, visibly


def test_the_whole_latched_marker_array_stays_small_in_json(arm_and_region) -> None:
    arm, region = arm_and_region
    array = workspace_markers(*arm.ring, frame_id="base_link", z=0.0)
    array.markers += region_markers(region, frame_id="base_link", z=0.0)
    namespaces = {m.ns for m in array.markers}
    assert namespaces == {"workspace", "reachable_region", "near_singular", "envelope_removed"}
    # What a rosbridge sends: every point as {"x":..,"y":..,"z":..}.
    points = [point_dict(p) for m in array.markers for p in m.points]
    assert len(json.dumps(points)) < 300_000


def test_an_empty_region_deletes_its_marker() -> None:
    arm = PlanarArm((0.1, 0.08), [(-1.0, 1.0), (0.5, 2.0)])
    _, near, _ = region_markers(reachable_region(arm, 0.003), frame_id="base_link", z=0.0)
    assert near.action == Marker.DELETE
    assert not near.points


@pytest.mark.parametrize(
    "path", sorted(default_config_path().parent.glob("arm*.yaml")), ids=lambda p: p.stem
)
def test_the_region_is_the_scalar_solve_cell_by_cell_on_a_coarse_grid(path) -> None:
    arm = ArmConfig.from_file(path).make_arm()
    spatial = not isinstance(arm, PlanarArm)
    plane = arm.vertical if spatial else arm
    region = (workspace.vertical_region if spatial else reachable_region)(arm, arm.reach / 25)
    rows, columns = region.reachable.shape
    shoulder = (arm.shoulder_forward, arm.shoulder_height) if spatial else (0.0, 0.0)
    # The joints reach the reachable cells and those the envelope removes (test_envelope.py
    # checks which the envelope removes).
    joints_reach = region.reachable | region.removed
    differ = []
    for row in range(rows):
        for column in range(columns):
            x, y = region.cell_centre(row, column)
            result = plane.solve(x - shoulder[0], y - shoulder[1])
            if result.ok != bool(joints_reach[row, column]):
                differ.append((row, column, result.status.name))
            if plane.n_joints == 2 and result.status == IkStatus.SINGULAR:
                assert region.near_singular[row, column] != region.removed[row, column]
    assert differ == []
    assert region.reachable.sum() > 100
