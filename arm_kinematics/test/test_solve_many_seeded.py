"""`solve_many` with a seed per row, on arrays: every row's answer is the scalar solve's.

With one seed per row the array solve takes each row's choice on arrays: the elbow and 2 pi
shift with the least motion from the seed, a spatial arm's side (the yaw nearer the seed's
first, the other where it moves less), the roll held from the seed, and a 3-joint plane's tool
angle without one requested by the least-motion search on arrays (Newton's method from the
seed's own heading, else every piece of reachable headings, nearest first). For every shipped
config and orientation mode, targets from FK of random joints and wild ones (out of reach, on
and next to the yaw axis, behind the yaw limits, a roll only over the back), seeds near the
targets' joints and anywhere within the limits, every branch rule: the status of each row
equals the scalar solve's, and so do the joints and the other elbow (to 1e-12 rad; a rotation
in gimbal lock to 1e-9, as test_solve_many says why) and the manipulability. A chain (each row
seeded by the previous answer) runs in order and equals `solve_chain` on a long line.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from arm_draws import joints_within_limits, load

from arm_kinematics.config import default_config_path
from arm_kinematics.kinematics import Branch, IkResult, IkStatus, PlanarArm, SpatialArm
from arm_kinematics.kinematics.planar.least_motion import least_motion_heading
from arm_kinematics.kinematics.planar.least_motion_many import least_motion_headings
from arm_kinematics.kinematics.spatial.rotations import rot_x, rot_y, rot_z

SHIPPED = sorted(default_config_path().parent.glob("arm*.yaml"))
COUNT = 250  # FK targets; as many wild ones
JOINT_TOLERANCE = 1e-12  # rad


def targets_and_seeds(arm, rng):
    """(targets (2 COUNT, k), rotations or None, {name: seeds (2 COUNT, n)})."""
    joints = joints_within_limits(arm, COUNT, rng)
    lows = np.array([max(lo, -math.pi) for lo, _ in arm.joint_limits])
    highs = np.array([min(hi, math.pi) for _, hi in arm.joint_limits])
    both = np.vstack([joints, joints])
    seeds = {
        "near": both + rng.normal(0.0, 0.03, both.shape),
        "anywhere": rng.uniform(lows, highs, both.shape),
    }
    if isinstance(arm, PlanarArm):
        reached = np.array([arm.forward(q) for q in joints])
        wild = np.column_stack(
            [rng.uniform(-1.2 * arm.reach, 1.2 * arm.reach, (COUNT, 2)), rng.uniform(-4, 4, COUNT)]
        )
        return np.vstack([reached, wild]), None, seeds
    tools = [arm.forward(q) for q in joints]
    reached = np.array([(t.x, t.y, t.z, t.pitch, t.roll) for t in tools])
    reach = arm.reach + abs(arm.shoulder_forward)
    wild = np.column_stack(
        [rng.uniform(-1.3 * reach, 1.3 * reach, (COUNT, 3)), rng.uniform(-4.0, 4.0, (COUNT, 2))]
    )
    wild[1::20, :2] = 0.0  # on the yaw axis
    wild[2::20, :2] = rng.uniform(-1e-7, 1e-7, (len(wild[2::20]), 2))  # next to it
    wild[3::20, 4] = math.pi  # a roll only over the back
    wild[5::20, :2] = -reached[5::20, :2]  # behind: the yaw limits decide
    turns = rng.uniform(-3.0, 3.0, (COUNT, 3))
    rotations = np.array(
        [t.rotation for t in tools] + [rot_z(a) @ rot_y(b) @ rot_x(c) for a, b, c in turns]
    )
    return np.vstack([reached, wild]), rotations, seeds


def modes_of(arm) -> list[tuple[str, int]]:
    if isinstance(arm, PlanarArm):
        return [("position", 2), ("heading", 3)]
    return [("position", 3), ("pitch", 4), ("pitch and roll", 5), ("rotation", 3)]


CASES = [(path, mode) for path in SHIPPED for mode in modes_of(load(path))]


def scalar(arm, rows, rotations, columns, branch, seeds) -> list[IkResult]:
    results = []
    for index, row in enumerate(rows.tolist()):
        seed = tuple(seeds[index])
        if isinstance(arm, PlanarArm):
            results.append(
                arm.solve(row[0], row[1], row[2] if columns == 3 else None, branch, seed)
            )
        elif rotations is not None:
            results.append(arm.solve_rotation(*row[:3], rotations[index], branch, seed))
        else:
            pitch = row[3] if columns > 3 else None
            roll = row[4] if columns > 4 else None
            results.append(arm.solve(*row[:3], pitch, roll, branch, seed))
    return results


def check(arm, answers, results, tolerance) -> None:
    statuses = np.array([int(r.status) for r in results])
    differ = np.flatnonzero(statuses != answers.status)
    assert differ.size == 0, [(int(i), results[i].message) for i in differ[:3]]
    for index, result in enumerate(results):
        if not result.ok:
            continue
        limit = tolerance[index] if np.ndim(tolerance) else tolerance
        assert np.abs(answers.joints[index] - result.joints).max() <= limit, (index, result)
        assert answers.has_alternative[index] == (result.alternative is not None)
        if result.alternative is not None:
            off = np.abs(answers.alternative[index] - result.alternative).max()
            assert off <= limit, (index, result)
        assert abs(answers.manipulability[index] - result.manipulability) <= 1e-12


@pytest.mark.parametrize(("path", "mode"), CASES, ids=[f"{p.stem}-{m[0]}" for p, m in CASES])
def test_a_seed_per_row_answers_each_target_as_solve_does(path, mode) -> None:
    arm = load(path)
    name, columns = mode
    rows, rotations, seeds = targets_and_seeds(arm, np.random.default_rng(26))
    rotations = rotations if name == "rotation" else None
    tolerance = JOINT_TOLERANCE
    if rotations is not None:  # gimbal lock: see test_solve_many.gimbal_tolerance
        locked = np.abs(np.abs(rows[:, 4]) - math.pi / 2) < math.radians(1.0)
        tolerance = np.where(locked, 1e-9, JOINT_TOLERANCE)
    for kind, seed_rows in seeds.items():
        for branch in Branch:
            if rotations is not None:
                answers = arm.solve_rotation_many(rows[:, :3], rotations, branch, seed_rows)
            else:
                answers = arm.solve_many(rows[:, :columns], branch, seed_rows)
            expected = scalar(arm, rows, rotations, columns, branch, seed_rows)
            check(arm, answers, expected, tolerance)
            assert np.isfinite(answers.joints).all(), kind


def test_the_least_motion_on_arrays_is_the_scalar_search_near_full_stretch_and_fold() -> None:
    """Tool angles where a joint turns fast (near the ring's edges, where the scalar search
    and the array one round apart): both find the same heading and elbow."""
    rng = np.random.default_rng(7)
    for path in SHIPPED:
        arm = load(path)
        chain = arm if isinstance(arm, PlanarArm) else arm.vertical
        if chain.n_joints != 3:
            continue
        joints = joints_within_limits(chain, 400, rng)
        joints[:, 1] = np.clip(joints[:, 1] * 0.02, *chain.joint_limits[1])  # nearly stretched
        targets = np.array([chain.forward(q)[:2] for q in joints])
        seeds = joints + rng.normal(0.0, 0.3, joints.shape)
        found, heading, elbow = least_motion_headings(
            chain, targets[:, 0], targets[:, 1], (0, 1), list(seeds.T)
        )
        for index, ((x, y), seed) in enumerate(zip(targets.tolist(), seeds.tolist(), strict=True)):
            expected = least_motion_heading(chain, x, y, (0, 1), tuple(seed))
            assert bool(found[index]) == (expected is not None)
            if expected is not None:
                assert abs(math.remainder(heading[index] - expected[0], math.tau)) <= 1e-13
                assert elbow[index] == expected[1]


def test_a_chain_along_a_long_line_is_solve_chain_row_by_row() -> None:
    """The batch service's and the planner's case: position-only targets on the desk kit,
    each seeded by the previous answer, through the limit the line runs along; the bare model
    solves every row, the arm keeping to its envelope refuses the rows where the forearm would
    touch the base column (and answers every row as its solve_chain does)."""
    arm: SpatialArm = load(default_config_path("arm_desk_kit.yaml"))
    start, end = np.array([0.17, -0.06, 0.08]), np.array([0.09, 0.12, 0.16])
    line = start + np.linspace(0.0, 1.0, 1500)[:, None] * (end - start)
    bare, kept = (model.solve_many(line, chain=True) for model in (arm.bare, arm))
    check(arm.bare, bare, arm.bare.solve_chain(line.tolist()), JOINT_TOLERANCE)
    check(arm, kept, arm.solve_chain(line.tolist()), JOINT_TOLERANCE)
    assert bare.ok.all()
    steps = np.abs(np.diff(bare.joints, axis=0)).max()
    assert steps < 0.1  # 0.14 mm per target: no joint flips on the way
    refused = np.flatnonzero(~kept.ok)
    assert 0 < refused.size < len(line)
    assert (kept.status[refused] == IkStatus.OUTSIDE_WORKSPACE).all()
    assert "base column" in kept.message(int(refused[0]))
