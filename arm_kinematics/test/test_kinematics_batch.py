"""solve_batch: the vectorised IK agrees with the scalar solve, row by row."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, IkStatus, PlanarArm

ARMS = {
    "2r": PlanarArm((1.0, 0.8)),
    "2r_limits": PlanarArm((1.0, 0.8), [(-1.5, 1.5), (-2.5, 2.5)]),
    "2r_shifted_limits": PlanarArm((1.0, 0.8), [(-0.5, 5.5), (0.3, 5.0)]),
    "2r_default": ArmConfig.from_file().make_arm(),
    "3r": PlanarArm((1.0, 0.8, 0.3)),
    "3r_limits": PlanarArm((1.0, 0.8, 0.3), [(-1.5, 1.5), (-2.5, 2.5), (-1.0, 1.0)]),
}


def same_configuration(a, b, tol: float) -> bool:
    """Equal joints, up to 2 pi wraps (singular rows may wrap joint 2 at +-pi)."""
    diff = np.remainder(np.asarray(a) - np.asarray(b) + math.pi, 2 * math.pi) - math.pi
    return bool(np.abs(diff).max() <= tol)


def targets(arm: PlanarArm, count: int, seed: int):
    rng = np.random.default_rng(seed)
    reach = 1.1 * arm.reach
    x = rng.uniform(-reach, reach, count)
    y = rng.uniform(-reach, reach, count)
    # A third of the targets from FK of random joints: reachable with their own heading.
    q = rng.uniform(-math.pi, math.pi, (count, arm.n_joints))
    headings = rng.uniform(-4.0, 4.0, count)
    for i in range(0, count, 3):
        x[i], y[i], headings[i] = arm.forward(q[i])
    current = rng.uniform(-3.0, 3.0, (count, arm.n_joints))
    return x, y, headings, current


@pytest.mark.parametrize("name", list(ARMS))
@pytest.mark.parametrize("branch", list(Branch))
def test_batch_agrees_with_scalar_solve(name, branch) -> None:
    arm = ARMS[name]
    x, y, headings, current = targets(arm, 600, seed=list(ARMS).index(name))
    cases = [(headings, None), (headings, current)]
    if arm.n_joints == 2 or not any(kind for kind in arm._kinds):
        # 3R without a heading: the batch does not search headings (documented), so it
        # agrees only where no search is needed: without limits and without `current`.
        cases.append((None, None))
    if arm.n_joints == 2:
        cases.append((None, current))
    for heading, seed in cases:
        batch = arm.solve_batch(x, y, heading, branch, seed)
        assert batch.status.dtype == np.uint8
        assert batch.joints.shape == (len(x), arm.n_joints)
        for i in range(len(x)):
            scalar = arm.solve(
                x[i],
                y[i],
                None if heading is None else heading[i],
                branch,
                None if seed is None else tuple(seed[i]),
            )
            assert batch.status[i] == scalar.status, (i, scalar.message)
            if scalar.ok:
                tol = 1e-6 if scalar.status is IkStatus.SINGULAR else 1e-9
                assert same_configuration(batch.joints[i], scalar.joints, tol), (i, scalar)
                assert batch.manipulability[i] == pytest.approx(scalar.manipulability, abs=1e-9)
            else:
                assert np.isnan(batch.joints[i]).all()
                assert batch.manipulability[i] == 0.0
        assert batch.ok.tolist() == (batch.status <= 1).tolist()


def test_batch_round_trip_and_shapes() -> None:
    arm = ARMS["2r"]
    rng = np.random.default_rng(3)
    q = rng.uniform(-math.pi, math.pi, (1000, 2))
    tips = np.array([arm.forward(row) for row in q])
    batch = arm.solve_batch(tips[:, 0], tips[:, 1], current=q)
    assert batch.ok.all()
    assert len(batch) == 1000
    back = np.array([arm.forward(row) for row in batch.joints])
    assert np.hypot(*(back[:, :2] - tips[:, :2]).T).max() < 1e-9
    # CLOSEST from the pose itself finds the pose (away from singular poses).
    regular = np.abs(np.sin(q[:, 1])) > 1e-3
    assert same_configuration(batch.joints[regular], q[regular], 1e-7)


def test_batch_invalid_input() -> None:
    arm = ARMS["2r"]
    batch = arm.solve_batch([1.0, math.nan, math.inf, 5.0, 0.0], [0.5, 0.0, 0.0, 0.0, 0.1])
    assert batch.status.tolist() == [
        IkStatus.OK,
        IkStatus.INVALID_INPUT,
        IkStatus.INVALID_INPUT,
        IkStatus.TOO_FAR,
        IkStatus.TOO_CLOSE,
    ]
    assert np.isnan(batch.joints[1:]).all()
    for bad in (
        {"branch": 9},
        {"branch": True},
        {"current": (0.1,)},
        {"current": np.full((2, 2), np.nan)},
    ):
        result = arm.solve_batch([1.0, 1.1], [0.5, 0.4], **bad)
        assert result.status.tolist() == [IkStatus.INVALID_INPUT] * 2
    assert len(arm.solve_batch([1.0, 1.1], [0.5])) == 2
    assert (arm.solve_batch([1.0, 1.1], [0.5]).status == IkStatus.INVALID_INPUT).all()
    assert len(arm.solve_batch(["a"], [0.5])) == 0
    assert (
        PlanarArm((0.5, 0.4, 0.3, 0.2)).solve_batch([0.5], [0.5]).status == IkStatus.INVALID_INPUT
    ).all()


@pytest.mark.parametrize("name", ["2r", "2r_limits", "2r_default", "2r_shifted_limits", "3r"])
@pytest.mark.parametrize("branch", list(Branch))
def test_batch_agrees_on_the_ring_edges(name, branch) -> None:
    arm = ARMS[name]
    inner, outer = arm.ring
    tolerance = arm.edge_tolerance
    radii = [inner, outer, outer + 0.5 * tolerance, outer + 2 * tolerance]
    radii += [r for r in (inner - 0.5 * tolerance, inner - 2 * tolerance) if r > 0]
    angles = np.linspace(-math.pi, math.pi, 25)
    x = np.array([r * math.cos(a) for r in radii for a in angles])
    y = np.array([r * math.sin(a) for r in radii for a in angles])
    batch = arm.solve_batch(x, y, branch=branch)
    for i in range(len(x)):
        scalar = arm.solve(x[i], y[i], branch=branch)
        assert batch.status[i] == scalar.status, (i, scalar.message)
        if scalar.ok:
            assert same_configuration(batch.joints[i], scalar.joints, 1e-6)


@pytest.mark.parametrize("name", ["2r_default", "3r"])
def test_batch_longer_than_one_block(name) -> None:
    from arm_kinematics.kinematics.batch import CHUNK

    arm = ARMS[name]
    count = 2 * CHUNK + 7
    x, y, headings, current = targets(arm, count, seed=9)
    heading = headings if arm.n_joints == 3 else None
    batch = arm.solve_batch(x, y, heading, Branch.CLOSEST, current)
    assert len(batch) == count
    rng = np.random.default_rng(2)
    rows = [0, CHUNK - 1, CHUNK, 2 * CHUNK, count - 1, *rng.integers(0, count, 200).tolist()]
    for i in rows:
        scalar = arm.solve(
            x[i], y[i], None if heading is None else heading[i], Branch.CLOSEST, tuple(current[i])
        )
        assert batch.status[i] == scalar.status
        if scalar.ok:
            assert same_configuration(batch.joints[i], scalar.joints, 1e-9)
