"""`solve_many`: the array solve answers every target as the scalar `solve` does.

For each shipped config (its arm carrying its workspace envelope) and each of its orientation
modes, 10,000 targets that FK of random
joints within the limits generates, and 10,000 random ones (out of reach, in the hole, behind
the yaw limits, on and next to the yaw axis, rolls a roll joint cannot make, NaN, infinity,
non-rotation matrices): the status of each equals the scalar solve's, and so do the joints (to
1e-12 rad), the other elbow, the manipulability; the tool of every OK or SINGULAR answer is on
its target to 1e-9 m (and its pitch or rotation to 1e-9). With one seed per target and as a
chain (each seeded by the previous answer), on the first 1,000 of them (a position-only
chain of a 3-joint plane on 300: those are solved one by one, by the scalar solve itself).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from arm_draws import joints_within_limits, load

from arm_kinematics.config import default_config_path
from arm_kinematics.kinematics import Branch, IkArrays, IkResult, IkStatus, PlanarArm, SpatialArm
from arm_kinematics.kinematics.spatial.rotations import rot_x, rot_y, rot_z

SHIPPED = sorted(default_config_path().parent.glob("arm*.yaml"))
COUNT = 10_000
SEEDED = 1_000
JOINT_TOLERANCE = 1e-12  # rad
POSITION_TOLERANCE = 1e-9  # m


def planar_targets(arm: PlanarArm, rng) -> tuple[np.ndarray, np.ndarray]:
    """(targets (2 * COUNT, 3): x, y, heading; the joints the first COUNT came from)."""
    joints = joints_within_limits(arm, COUNT, rng)
    reached = np.array([arm.forward(q) for q in joints])
    reach = arm.reach
    wild = np.column_stack(
        [rng.uniform(-1.3 * reach, 1.3 * reach, (COUNT, 2)), rng.uniform(-4.0, 4.0, COUNT)]
    )
    wild[::50, 0] = np.nan
    wild[1::50, :2] = 0.0  # at the base
    wild[2::50, 1] = np.inf
    wild[3::50, 2] = np.nan
    wild[4::50, :2] *= 1e-3  # in the hole
    return np.vstack([reached, wild]), joints


def spatial_targets(arm: SpatialArm, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(targets (2 * COUNT, 5): x, y, z, pitch, roll; their rotations (2 * COUNT, 3, 3); the
    joints the first COUNT came from)."""
    joints = joints_within_limits(arm, COUNT, rng)
    tools = [arm.forward(q) for q in joints]
    reached = np.array([(t.x, t.y, t.z, t.pitch, t.roll) for t in tools])
    rotations = np.array([t.rotation for t in tools])
    reach = arm.reach + abs(arm.shoulder_forward)
    wild = np.column_stack(
        [rng.uniform(-1.3 * reach, 1.3 * reach, (COUNT, 3)), rng.uniform(-4.0, 4.0, (COUNT, 2))]
    )
    wild[::40, 0] = np.nan
    wild[1::40, :2] = 0.0  # on the yaw axis
    wild[2::40, :2] = rng.uniform(-1e-7, 1e-7, (len(wild[2::40]), 2))  # next to it
    wild[3::40, 4] = math.pi  # a roll only over the back
    wild[4::40, 3] = np.inf
    wild[5::40, :2] = -reached[5::40, :2]  # behind: the yaw limits decide
    wild[6::40] = reached[6::40] + np.array([0.0, 0.0, 0.0, 0.0, 0.3])  # a roll 17 deg off
    turns = rng.uniform(-3.0, 3.0, (COUNT, 3))
    wild_rotations = np.array([rot_z(a) @ rot_y(b) @ rot_x(c) for a, b, c in turns])
    wild_rotations[::40] = np.nan
    wild_rotations[7::40] = 2.0 * np.eye(3)
    wild_rotations[8::40] = rotations[8::40]  # reachable poses among the wild ones
    wild[8::40] = reached[8::40]
    return np.vstack([reached, wild]), np.vstack([rotations, wild_rotations]), joints


def check_rows(arm, answers: IkArrays, results: list[IkResult], tolerance=JOINT_TOLERANCE) -> None:
    """Every row of `answers` is the scalar `results`' answer (joints to `tolerance`, rad: one
    value, or one per row)."""
    statuses = np.array([int(r.status) for r in results])
    differ = np.flatnonzero(statuses != answers.status)
    assert differ.size == 0, [(int(i), results[i].message) for i in differ[:5]]
    solved = [i for i, r in enumerate(results) if r.ok]
    scalar = np.array([results[i].joints for i in solved]).reshape(len(solved), arm.n_joints)
    off = np.abs(answers.joints[solved] - scalar).max(axis=1, initial=0.0)
    limit = np.broadcast_to(tolerance, (len(results),))[solved]
    assert (off <= limit).all(), off.max()
    has_other = np.array([r.alternative is not None for r in results])
    assert (answers.has_alternative == has_other).all()
    others = [i for i in solved if has_other[i]]
    scalar_others = np.array([results[i].alternative for i in others]).reshape(-1, arm.n_joints)
    off = np.abs(answers.alternative[others] - scalar_others).max(axis=1, initial=0.0)
    assert (off <= np.broadcast_to(tolerance, (len(results),))[others]).all(), off.max()
    manipulability = np.array([r.manipulability for r in results])
    assert np.abs(answers.manipulability - manipulability).max() <= 1e-12
    assert np.isfinite(answers.joints).all()


def gimbal_tolerance(rows: np.ndarray, rotations: np.ndarray | None) -> np.ndarray | float:
    """The joints' tolerance per row: 1e-12 rad; for a rotation whose roll is within 1 degree
    of +-90 deg, 1e-9 (its pitch and roll, Ry(-pitch) Rx(roll), are in gimbal lock there: the
    pitch comes from two entries both as small as cos(roll), so numpy's and math's last bits
    of atan2, cos and sin, which differ at times, move it by up to 1/cos(roll) of that)."""
    if rotations is None:
        return JOINT_TOLERANCE
    locked = np.abs(np.abs(np.asarray(rows[:, 4])) - math.pi / 2) < math.radians(1.0)
    return np.where(locked, 1e-9, JOINT_TOLERANCE)


def tool_points(arm, joints: np.ndarray) -> np.ndarray:
    return arm.chain_points_many(joints)[:, -1, :]


def scalar_solve(arm, rows, rotations, columns, branch, seeds, chain):
    """The scalar answer of every row (seeded as `solve_many` seeds it)."""
    results: list[IkResult] = []
    seed = None if seeds is None or not chain else tuple(seeds)
    for index, row in enumerate(rows.tolist()):
        if not chain and seeds is not None:
            seed = tuple(seeds[index])
        if isinstance(arm, PlanarArm):
            heading = row[2] if columns == 3 else None
            result = arm.solve(row[0], row[1], heading, branch, seed)
        elif rotations is not None:
            result = arm.solve_rotation(*row[:3], rotations[index], branch, seed)
        else:
            pitch = row[3] if columns > 3 else None
            roll = row[4] if columns > 4 else None
            result = arm.solve(*row[:3], pitch, roll, branch, seed)
        results.append(result)
        if chain and result.joints is not None:
            seed = result.joints
    return results


def modes_of(arm) -> list[tuple[str, int]]:
    if isinstance(arm, PlanarArm):
        return [("position", 2), ("heading", 3)]
    return [("position", 3), ("pitch", 4), ("pitch and roll", 5), ("rotation", 3)]


CASES = [(path, mode) for path in SHIPPED for mode in modes_of(load(path))]


@pytest.fixture(scope="module")
def targets() -> dict:
    rng = np.random.default_rng(25)
    made = {}
    for path in SHIPPED:
        arm = load(path)
        made[path] = (
            planar_targets(arm, rng) if isinstance(arm, PlanarArm) else spatial_targets(arm, rng)
        )
    return made


def solve_many(arm, rows, rotations, columns, branch, seeds=None, chain=False) -> IkArrays:
    if rotations is not None:
        return arm.solve_rotation_many(rows[:, :3], rotations, branch, seeds, chain=chain)
    return arm.solve_many(rows[:, :columns], branch, seeds, chain=chain)


@pytest.mark.parametrize(("path", "mode"), CASES, ids=[f"{p.stem}-{m[0]}" for p, m in CASES])
def test_solve_many_answers_each_target_as_solve_does(path, mode, targets) -> None:
    arm = load(path)
    name, columns = mode
    rows, *rest = targets[path]
    rotations = rest[0] if name == "rotation" else None
    joints = rest[-1]
    answers = solve_many(arm, rows, rotations, columns, Branch.CLOSEST)
    expected = scalar_solve(arm, rows, rotations, columns, Branch.CLOSEST, None, False)
    check_rows(arm, answers, expected, gimbal_tolerance(rows, rotations))
    # FK targets are reached, but where every candidate breaks the arm's workspace envelope
    # (the shipped spatial arms stand on a table: test_envelope_ik.py checks that rule)...
    reached_or_outside = answers.ok | (answers.status == IkStatus.OUTSIDE_WORKSPACE)
    assert reached_or_outside[:COUNT].all()
    assert answers.ok[:COUNT].mean() > 0.5
    ok = np.flatnonzero(answers.ok)
    reached = tool_points(arm, answers.joints[ok])
    if isinstance(arm, PlanarArm):
        assert np.abs(reached[:, :2] - rows[ok, :2]).max() <= POSITION_TOLERANCE
    else:  # ... to 1e-9 m, and so is every other solution but those solved on the yaw axis
        off = np.abs(reached - rows[ok, :3]).max(axis=1)  # (within edge_tolerance of it)
        on_axis = np.hypot(rows[ok, 0], rows[ok, 1]) <= arm.edge_tolerance
        assert off[~on_axis].max() <= POSITION_TOLERANCE
        assert off[on_axis].max(initial=0.0) <= arm.edge_tolerance
    # The other branch rules, on the first thousand of each kind of target.
    some = np.r_[0:SEEDED, COUNT : COUNT + SEEDED]
    some_rotations = None if rotations is None else rotations[some]
    for branch in (Branch.ELBOW_UP, Branch.MAX_LIMIT_MARGIN):
        answers = solve_many(arm, rows[some], some_rotations, columns, branch)
        expected = scalar_solve(arm, rows[some], some_rotations, columns, branch, None, False)
        check_rows(arm, answers, expected)
    # One seed per target, and a chain (each row seeded by the previous answer).
    count = 300 if arm_free(arm) and name == "position" else SEEDED
    part, part_rotations = rows[:count], None if rotations is None else rotations[:count]
    seeds = np.vstack([joints, joints[::-1]])[:count]
    for chain, current in ((False, seeds), (True, tuple(joints[0]))):
        answers = solve_many(arm, part, part_rotations, columns, Branch.CLOSEST, current, chain)
        expected = scalar_solve(arm, part, part_rotations, columns, Branch.CLOSEST, current, chain)
        check_rows(arm, answers, expected)


def arm_free(arm) -> bool:
    """True when the arm's plane has 3 joints: its position-only targets take a tool angle."""
    chain = arm if isinstance(arm, PlanarArm) else arm.vertical
    return chain.n_joints == 3


def test_the_orientation_of_every_solution_is_the_one_asked_for(targets) -> None:
    for path in SHIPPED:
        arm = load(path)
        if isinstance(arm, PlanarArm):
            continue
        rows, rotations, _ = targets[path]
        pitch = arm.solve_many(rows[:COUNT, :4])
        rotation = arm.solve_rotation_many(rows[:COUNT, :3], rotations[:COUNT])
        checked = 0
        for index in range(0, COUNT, 50):
            for answers in (pitch, rotation):  # else the table or the base column is in the way
                assert answers.ok[index] or answers.status[index] == IkStatus.OUTSIDE_WORKSPACE
            if pitch.ok[index]:
                tool = arm.forward(pitch.joints[index])
                assert abs(math.remainder(tool.pitch - rows[index, 3], math.tau)) <= 1e-9
            if rotation.ok[index]:
                turned = arm.forward(rotation.joints[index]).rotation
                assert np.abs(turned - rotations[index]).max() <= 1e-9
            checked += bool(pitch.ok[index]) + bool(rotation.ok[index])
        assert checked > COUNT // 50


def test_a_wrong_shape_is_refused_and_a_bad_value_is_its_row_s_invalid_input() -> None:
    arm = load(default_config_path("arm.yaml"))
    with pytest.raises(ValueError, match="must be"):
        arm.solve_many(np.zeros((3, 4)))
    answers = arm.solve_many([[0.1, 0.1], [0.15, 0.0]], branch=7)
    assert answers.status.tolist() == [IkStatus.INVALID_INPUT] * 2
    assert answers.message(0).startswith("INVALID_INPUT: unknown branch")
    seeded = arm.solve_many([[0.1, 0.1], [0.15, 0.0]], current=[[0.0, 0.0], [math.nan, 0.0]])
    assert seeded.status.tolist() == [IkStatus.OK, IkStatus.INVALID_INPUT]
    # A refused row holds its seed (the previous solution in a chain), never NaN.
    chain = arm.solve_many([[0.1, 0.1], [5.0, 0.0], [0.15, 0.0]], chain=True)
    assert chain.status.tolist() == [IkStatus.OK, IkStatus.TOO_FAR, IkStatus.OK]
    assert chain.joints[1].tolist() == chain.joints[0].tolist()
    assert chain.result(2) == arm.solve(0.15, 0.0, current=tuple(chain.joints[0]))
