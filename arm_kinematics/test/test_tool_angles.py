"""The tool angle a 3-joint chain takes without one requested (planar/tool_angles.py, in closed
form), against a dense brute-force scan of the tool angle (here only): on every shipped chain of
three joints in a plane (arm_3r.yaml; the vertical plane of the desk kit and the
OpenManipulator-X, from the front and over the back), no target that FK of joints within the
limits reaches is refused, and the angle taken is at least as good by the rule as the scan's
best: without a seed the feasible one nearest the one pointing away from the base, with a
seed the least joint motion from it (the seed random within the limits, or near the answer as
in a chain).
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import Branch, PlanarArm
from arm_kinematics.kinematics.planar.limits import CONTINUOUS, WIDE

TARGETS = 100
SCAN = 3600  # tool angles over a full turn, 0.1 degree apart
SLACK = 1e-9  # rad: rounding


def chains() -> list[tuple[str, PlanarArm]]:
    planar = ArmConfig.from_file(default_config_path("arm_3r.yaml")).make_arm()
    found = [("arm_3r", planar)]
    for name in ("arm_desk_kit.yaml", "arm_openmanipulator_x.yaml"):
        arm = ArmConfig.from_file(default_config_path(name)).make_arm()
        found += [(f"{name[:-5]} front", arm.vertical), (f"{name[:-5]} back", arm.vertical_back)]
    return found


CHAINS = chains()


def reachable(chain: PlanarArm, count: int, rng) -> np.ndarray:
    """Joints within the limits (link angles too), `count` rows."""
    lows = np.array([max(lo, -math.pi) for lo, _ in chain.joint_limits])
    highs = np.array([min(hi, math.pi) for _, hi in chain.joint_limits])
    rows: list[list[float]] = []
    while len(rows) < count:
        draws = rng.uniform(lows, highs, (count, 3)).tolist()
        rows += [q for q in draws if chain.within_limits(q)][: count - len(rows)]
    return np.array(rows)


def scan(chain: PlanarArm, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every point (x, y) at SCAN tool angles on each elbow: (angles (SCAN,), joints (points,
    2 * SCAN, 3), feasible (points, 2 * SCAN))."""
    angles = np.linspace(-math.pi, math.pi, SCAN, endpoint=False)
    rows = np.column_stack(
        [np.repeat(points, SCAN, axis=0), np.tile(angles, len(points))]
    )  # (points * SCAN, 3)
    parts = [chain.solve_many(rows, branch) for branch in (Branch.ELBOW_UP, Branch.ELBOW_DOWN)]
    joints = np.concatenate([p.joints.reshape(len(points), SCAN, 3) for p in parts], axis=1)
    ok = np.concatenate([p.ok.reshape(len(points), SCAN) for p in parts], axis=1)
    return np.tile(angles, 2), joints, ok


def motion(chain: PlanarArm, joints: np.ndarray, current: np.ndarray) -> np.ndarray:
    """The joint motion (rad) from `current` to `joints` (last axis: joints), the short way
    round for a continuous joint."""
    delta = joints - current
    for index, kind in enumerate(chain.joint_kinds):
        if kind == CONTINUOUS:
            delta[..., index] = np.remainder(delta[..., index] + math.pi, math.tau) - math.pi
    return np.sqrt((delta * delta).sum(axis=-1))


@pytest.mark.parametrize(("name", "chain"), CHAINS, ids=[name for name, _ in CHAINS])
def test_the_closed_form_tool_angle_is_never_worse_than_a_scan(name, chain) -> None:
    assert WIDE not in chain.joint_kinds  # the scan's joints are then the solve's (no 2 pi choice)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    joints = reachable(chain, TARGETS, rng)
    points = np.array([chain.forward(q)[:2] for q in joints])
    angles, scanned, feasible = scan(chain, points)
    assert feasible.any(axis=1).all()  # the scan finds each reachable target too

    # Without a seed: the feasible angle nearest the one pointing away from the base.
    answers = chain.solve_many(points)
    assert answers.ok.all(), [answers.message(i) for i in np.flatnonzero(~answers.ok)[:3]]
    away = np.arctan2(points[:, 1], points[:, 0])
    taken = answers.joints.sum(axis=1)
    ours = np.abs(np.remainder(taken - away + math.pi, math.tau) - math.pi)
    gaps = np.abs(np.remainder(angles[None, :] - away[:, None] + math.pi, math.tau) - math.pi)
    best = np.where(feasible, gaps, np.inf).min(axis=1)
    assert (ours <= best + SLACK).all(), np.max(ours - best)

    # With a seed: the least motion, from a seed anywhere and from one near the answer.
    for seeds in (reachable(chain, TARGETS, rng), joints + rng.normal(0.0, 0.02, joints.shape)):
        answers = chain.solve_many(points, current=seeds)
        assert answers.ok.all(), [answers.message(i) for i in np.flatnonzero(~answers.ok)[:3]]
        ours = motion(chain, answers.joints, seeds)
        costs = np.where(feasible, motion(chain, scanned, seeds[:, None, :]), np.inf)
        assert (ours <= costs.min(axis=1) + SLACK).all(), np.max(ours - costs.min(axis=1))
