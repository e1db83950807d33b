"""The workspace envelope as a rule of the IK: an arm carrying it (`with_envelope`, as every node's
`ArmConfig.make_arm()`) answers the candidate inside it, or OUTSIDE_WORKSPACE naming the
constraint and the part, and its array solve answers every target as its scalar solve does."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, Envelope, IkStatus, PlanarArm, SpatialArm

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
PI = math.pi


def planar_with_box(box) -> PlanarArm:
    """The default 2R arm (links 0.1 and 0.08 m, both joints +-90 deg), parts 5 mm, one box."""
    arm = PlanarArm((0.1, 0.08), [(-PI / 2, PI / 2)] * 2)
    return arm.with_envelope(Envelope(arm, link_radius=0.005, keep_out_boxes=[box]))


def around(point, half: float = 0.01) -> tuple[float, ...]:
    """A box of 2 * `half` m about a point (x, y, z)."""
    return (*(v - half for v in point), *(v + half for v in point))


def test_the_rule_takes_the_other_elbow_when_the_chosen_one_is_in_a_box() -> None:
    # (0.15, 0.02): elbow up puts the elbow at (0.0804, 0.0595), elbow down at (0.0932, -0.0363).
    arm = planar_with_box(around((0.0804, 0.0595, 0.0)))
    bare = arm.bare
    assert bare.solve(0.15, 0.02).joints[1] < 0.0  # the bare rule: elbow up (largest margin)
    chosen = arm.solve(0.15, 0.02)
    assert chosen.status == IkStatus.OK
    assert chosen.joints == pytest.approx(bare.solve(0.15, 0.02, branch=Branch.ELBOW_DOWN).joints)
    assert chosen.alternative is None  # elbow up is no longer offered
    assert "the other elbow is outside the workspace envelope: the elbow would be" in (
        chosen.message
    )
    assert "inside keep-out box 1" in chosen.message
    # From a pose at elbow up, least motion would keep it: the envelope decides all the same.
    seeded = arm.solve(0.15, 0.02, current=bare.solve(0.15, 0.02).joints)
    assert seeded.joints == pytest.approx(chosen.joints)
    # Asked for elbow up, it is refused, naming the constraint and the part.
    refused = arm.solve(0.15, 0.02, branch=Branch.ELBOW_UP)
    assert refused.status == IkStatus.OUTSIDE_WORKSPACE
    assert refused.message.startswith("OUTSIDE_WORKSPACE: the elbow would be 15 mm inside keep-out")
    # Elbow down asked for is inside: answered, without the other elbow beside it.
    down = arm.solve(0.15, 0.02, branch=Branch.ELBOW_DOWN)
    assert down.status == IkStatus.OK
    assert down.alternative is None


def test_both_elbows_in_boxes_is_outside_naming_the_chosen_one() -> None:
    bare = PlanarArm((0.1, 0.08), [(-PI / 2, PI / 2)] * 2)
    boxes = [around((0.0804, 0.0595, 0.0)), around((0.0932, -0.0363, 0.0))]
    arm = bare.with_envelope(Envelope(bare, link_radius=0.005, keep_out_boxes=boxes))
    refused = arm.solve(0.15, 0.02)
    assert refused.status == IkStatus.OUTSIDE_WORKSPACE
    assert refused.joints is None
    assert "the elbow would be 15 mm inside keep-out box 1" in refused.message
    assert arm.solve(0.0, 0.15).status == IkStatus.OK  # elsewhere, as before


def test_a_spatial_arm_reaches_over_the_back_when_the_front_is_in_boxes() -> None:
    # A 2-link chain with its shoulder 0.03 m ahead of the yaw axis and the yaw free: the
    # target (0.12, 0, 0.05) from the front has its elbows at x 0.095 (z 0.126 and -0.026),
    # reached over the back (yaw 180 deg) at x 0.057 (z 0.099 and 0.001).
    limits = [(-PI, PI)] * 3
    bare = SpatialArm((0.1, 0.08), limits, shoulder_height=0.05, shoulder_forward=0.03)
    assert bare.solve(0.12, 0.0, 0.05).joints[0] == 0.0  # the front
    boxes = [around((0.095, 0.0, 0.126)), around((0.095, 0.0, -0.026))]
    arm = bare.with_envelope(Envelope(bare, link_radius=0.005, keep_out_boxes=boxes))
    chosen = arm.solve(0.12, 0.0, 0.05)
    assert chosen.status == IkStatus.OK
    assert chosen.joints[0] == pytest.approx(PI)
    assert "reaching over the back" in chosen.message
    assert arm.envelope.check(chosen.joints) is None
    assert arm.forward(chosen.joints).position == pytest.approx((0.12, 0.0, 0.05), abs=1e-9)
    # One front elbow inside: the front, the other elbow.
    one = bare.with_envelope(Envelope(bare, link_radius=0.005, keep_out_boxes=boxes[:1]))
    front = one.solve(0.12, 0.0, 0.05)
    assert front.joints[0] == 0.0
    assert front.joints[2] > 0.0
    assert "the other elbow is outside the workspace envelope" in front.message


def test_the_desk_kit_refuses_a_tool_point_below_its_table_naming_the_part() -> None:
    config = ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml")
    arm = config.make_arm()
    assert arm.envelope is not None
    assert arm.bare.envelope is None
    refused = arm.solve(0.15, 0.0, -0.03, pitch=math.radians(-90))
    assert refused.status == IkStatus.OUTSIDE_WORKSPACE
    assert refused.message.startswith(
        "OUTSIDE_WORKSPACE: from the front (yaw 0.00 deg): the tool point would be 50 mm below "
        "the table (workspace.table_z_m = 0 m, counting workspace.link_radius_m = 0.02 m"
    )
    assert arm.bare.solve(0.15, 0.0, -0.03, pitch=math.radians(-90)).status == IkStatus.OK


def random_targets(arm, count: int, rng) -> np.ndarray:
    """Targets about the arm: half the tool points of random joints within the limits."""
    lows = np.array([max(lo, -PI) for lo, _ in arm.joint_limits])
    highs = np.array([min(hi, PI) for _, hi in arm.joint_limits])
    joints = rng.uniform(lows, highs, (count // 2, arm.n_joints))
    points = arm.chain_points_many(joints)[:, -1, :]
    reach = arm.reach + abs(getattr(arm, "shoulder_forward", 0.0))
    wild = rng.uniform(-reach, reach, (count - len(points), 3))
    targets = np.vstack([points, wild])
    return targets if isinstance(arm, SpatialArm) else targets[:, :2]


def scalar(arm, targets, branch, seeds, chain):
    results, seed = [], (None if seeds is None or not chain else tuple(seeds))
    for index, target in enumerate(targets.tolist()):
        if not chain and seeds is not None:
            seed = tuple(seeds[index])
        results.append(arm.solve(*target, branch=branch, current=seed))
        if chain and results[-1].ok:
            seed = results[-1].joints
    return results


def same(arm, answers, results) -> None:
    assert answers.status.tolist() == [int(r.status) for r in results]
    for index, result in enumerate(results):
        if result.ok:
            assert answers.joints[index] == pytest.approx(result.joints, abs=1e-12)
            assert answers.has_alternative[index] == (result.alternative is not None)
            assert arm.envelope.check(answers.joints[index]) is None
            if result.alternative is not None:
                assert answers.alternative[index] == pytest.approx(result.alternative, abs=1e-12)
    for index in np.flatnonzero(answers.status == IkStatus.OUTSIDE_WORKSPACE)[:20].tolist():
        assert answers.message(index) == results[index].message


def desk_kit_with_a_box() -> SpatialArm:
    config = ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml")
    workspace = dataclasses.replace(
        config.workspace, keep_out_boxes=((0.12, -0.08, 0.0, 0.2, 0.0, 0.12),)
    )
    return dataclasses.replace(config, workspace=workspace).make_arm()


@pytest.mark.parametrize("kind", ["planar", "spatial"])
def test_solve_many_keeps_inside_as_solve_does(kind: str) -> None:
    """Unseeded, one seed per row, and as a chain (a changed row changes the seeds after it)."""
    rng = np.random.default_rng(23)
    if kind == "planar":
        arm = planar_with_box((0.05, 0.02, -0.1, 0.12, 0.09, 0.1))
    else:
        arm = desk_kit_with_a_box()
    targets = random_targets(arm, 600, rng)
    for branch in (Branch.CLOSEST, Branch.ELBOW_UP, Branch.MAX_LIMIT_MARGIN):
        answers = arm.solve_many(targets, branch)
        same(arm, answers, scalar(arm, targets, branch, None, False))
    outside = arm.solve_many(targets).status == IkStatus.OUTSIDE_WORKSPACE
    assert 20 < outside.sum() < 500, outside.sum()  # the rule has work to do
    bare = arm.bare.solve_many(targets)
    assert (bare.ok[outside]).all()  # ... the bare model solved those
    home = arm.solve_many(targets).joints[np.flatnonzero(arm.solve_many(targets).ok)[0]]
    seeds = np.array([home] * len(targets))
    same(arm, arm.solve_many(targets, current=seeds), scalar(arm, targets, 0, seeds, False))
    part = targets[:200]
    chained = arm.solve_many(part, current=tuple(home), chain=True)
    same(arm, chained, scalar(arm, part, Branch.CLOSEST, tuple(home), True))


def test_a_chain_that_leaves_and_comes_back_is_solved_row_by_row_from_where_it_leaves() -> None:
    """A line under the desk kit's table and back: each row seeded by the previous answer
    inside, as the scalar chain does (the rows after the first outside are solved again)."""
    arm = ArmConfig.from_file(CONFIG_DIR / "arm_desk_kit.yaml").make_arm()
    z = np.concatenate([np.linspace(0.08, -0.05, 60), np.linspace(-0.05, 0.08, 60)])
    targets = np.column_stack([np.full(120, 0.16), np.full(120, 0.02), z])
    home = arm.solve(*targets[0]).joints
    chained = arm.solve_many(targets, current=home, chain=True)
    same(arm, chained, scalar(arm, targets, Branch.CLOSEST, home, True))
    statuses = chained.status.tolist()
    assert statuses[0] == IkStatus.OK
    assert statuses[-1] == IkStatus.OK
    assert IkStatus.OUTSIDE_WORKSPACE in statuses
