"""A chain (`solve_many(..., chain=True)`: each row seeded by the last solution before it) on
arrays (`planar/chain_rows.py`) gives the row-by-row chain's answers.

The reference is the row-by-row loop itself (`solve_chain` without an array solve, as the
chain ran before). On a toy chain whose array solve and row solve are the same formula the
answers are bit-identical, crawling or not (Hypothesis draws the targets, NaNs among them). On
the arms: every shipped config, smooth lines from FK of interpolated joints and random targets
with refused rows mixed in (out of reach, NaN, behind the yaw limits), position-only and with a
pitch or heading; a continuous joint turning twice around (the crawl, finished row by row); a
desk-kit line that leaves the envelope and comes back (a position-only chain of a 3-joint
plane runs row by row from the start: checked against `solve_chain` itself). Statuses are
identical and the joints
agree to 1e-12 rad (numpy's last bit of atan2 is at times not math's: the array solve equals
the scalar one to that, test_solve_many_seeded.py; a spatial chain row by row is the scalar
solve); a planar arm with a heading given, whose loop chooses among the array solve's own
elbows, is bit-identical.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from arm_draws import joints_within_limits, load
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.config import default_config_path
from arm_kinematics.kinematics import PlanarArm, SpatialArm
from arm_kinematics.kinematics.planar import chain_rows, rows
from arm_kinematics.kinematics.planar.elbows_many import Answers

SHIPPED = sorted(default_config_path().parent.glob("arm*.yaml"))
JOINT_TOLERANCE = 1e-12  # rad


def turn(target, seed):
    """A continuous joint's turn to the angle `target` by the least motion from `seed`."""
    turns = 0.0 if seed is None else np.round((seed - target) / (2 * np.pi))
    return target + 2 * np.pi * turns


def toy_chain(targets: np.ndarray, first, arrays: bool) -> chain_rows.Chain:
    def on_arrays(places, seeds):
        joint = turn(targets[places], None if seeds is None else seeds[0])
        ok = np.isfinite(joint)
        status, joint = np.where(ok, 0, 2).astype(np.uint8), np.nan_to_num(joint)
        return Answers(status, [joint], [-joint], ok, np.abs(joint))

    def solve_row(place, seed):
        joint = turn(targets[place : place + 1], None if seed is None else seed[0])[0]
        if not math.isfinite(joint):
            return 2, None, None, 0.0
        return 0, (joint,), (-joint,), abs(joint)

    return chain_rows.solve_chain(len(targets), 1, first, solve_row, on_arrays if arrays else None)


def same_chain(made: chain_rows.Chain, reference: chain_rows.Chain) -> None:
    assert made.status.tolist() == reference.status.tolist()
    solved = made.status <= 1
    assert np.array_equal(made.joints[solved], reference.joints[solved])
    assert np.array_equal(made.other[solved], reference.other[solved])
    assert np.array_equal(made.manipulability[solved], reference.manipulability[solved])
    assert np.array_equal(made.seeded, reference.seeded)
    assert np.array_equal(made.seeds, reference.seeds)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.one_of(st.floats(-0.6, 0.6), st.just(math.nan)), min_size=1, max_size=600),
    first=st.one_of(st.none(), st.floats(-10.0, 10.0)),
)
def test_the_toy_chain_on_arrays_is_the_loop_bit_for_bit(steps, first) -> None:
    """Targets turning by up to 0.6 rad a row (past pi: each 2 pi turn follows from the row
    before), NaNs refused and not changing the seed."""
    angles = np.cumsum(np.nan_to_num(steps))
    targets = np.where(np.isnan(steps), np.nan, np.angle(np.exp(1j * angles)))
    seed = None if first is None else (first,)
    same_chain(toy_chain(targets, seed, True), toy_chain(targets, seed, False))


def test_a_toy_chain_that_never_crawls_takes_no_row_alone_and_one_that_turns_crawls() -> None:
    """Within half a turn the guess is right: two passes a window (doubling from WINDOW rows);
    turning round and round each pass finalizes one row: the loop finishes."""
    calm = np.linspace(-1.5, 1.5, 5000)
    made = toy_chain(calm, (0.0,), True)
    same_chain(made, toy_chain(calm, (0.0,), False))
    assert made.row_by_row == 0
    assert made.passes <= 2 * math.ceil(math.log2(5000 / chain_rows.WINDOW + 1))
    spinning = np.angle(np.exp(0.5j * np.arange(5000)))
    made = toy_chain(spinning, (0.0,), True)
    same_chain(made, toy_chain(spinning, (0.0,), False))
    assert made.row_by_row > 4000


@pytest.fixture
def row_by_row(monkeypatch):
    """`solve_many`'s chains solved by the row-by-row loop only (the reference)."""

    def loop_only(count, n, first, solve_row, on_arrays):
        return chain_rows.solve_chain(count, n, first, solve_row, None)

    def solve(arm, targets):
        with monkeypatch.context() as patch:
            patch.setattr(rows, "solve_chain", loop_only)
            return arm.solve_many(targets, chain=True)

    return solve


def compare(arrays, loop, exact: bool) -> None:
    assert arrays.status.tolist() == loop.status.tolist()
    gap = np.abs(arrays.joints - loop.joints).max()
    assert gap == 0.0 if exact else gap <= JOINT_TOLERANCE
    assert np.abs(arrays.manipulability - loop.manipulability).max() <= 1e-12


def lines_and_wild(arm, rng: np.random.Generator, count: int) -> np.ndarray:
    """Targets (x, y[, z], angle): FK along joints interpolated between random poses, then
    random ones (out of reach, behind the yaw limits, NaN) mixed in."""
    ends = joints_within_limits(arm, 6, rng)
    fractions = np.linspace(0.0, 1.0, count // 3)[:, None]
    joints = np.vstack(
        [a + fractions * (b - a) for a, b in zip(ends[::2], ends[1::2], strict=True)]
    )
    if isinstance(arm, PlanarArm):
        smooth = np.array([arm.forward(q) for q in joints])
        reach = arm.reach
    else:
        tools = [arm.forward(q) for q in joints]
        smooth = np.array([(t.x, t.y, t.z, t.pitch) for t in tools])
        reach = arm.reach + abs(arm.shoulder_forward)
    wild = smooth.copy()
    picked = rng.choice(len(wild), len(wild) // 8, replace=False)
    wild[picked[::3], :2] *= 3.0 * reach / np.maximum(np.abs(wild[picked[::3], :2]).max(), 1e-9)
    wild[picked[1::3], 0] = np.nan
    wild[picked[2::3], :2] *= -1.0  # behind the base: the yaw limits decide
    return np.vstack([smooth, wild])


def scalar_chain(arm, targets: np.ndarray):
    """The public chain of scalar solves (`solve_chain`) as (statuses, joints or None)."""
    if isinstance(arm, PlanarArm):
        headings = targets[:, 2].tolist() if targets.shape[1] == 3 else None
        results = arm.solve_chain(targets[:, 0].tolist(), targets[:, 1].tolist(), headings)
    else:
        results = arm.solve_chain(targets.tolist())
    return [int(r.status) for r in results], [r.joints if r.ok else None for r in results]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_arm_chains_on_arrays_as_row_by_row(path, row_by_row) -> None:
    """Position-only and with the tool angle, the bare model and the arm with its envelope:
    against the row-by-row loop, and position-only against `solve_chain` itself (a 3-joint
    plane's position-only chain runs row by row from the start, many.py says why)."""
    arm = load(path)
    rng = np.random.default_rng(25)
    targets = lines_and_wild(arm, rng, 600)
    width = 2 if isinstance(arm, PlanarArm) else 3
    for model in (arm.bare, arm):
        position_only = targets[:, :width]
        made = model.solve_many(position_only, chain=True)
        compare(made, row_by_row(model, position_only), exact=False)
        statuses, joints = scalar_chain(model, position_only)
        assert made.status.tolist() == statuses
        for index in np.flatnonzero(made.ok).tolist():
            assert np.abs(made.joints[index] - joints[index]).max() <= JOINT_TOLERANCE
        with_angle = model.solve_many(targets, chain=True)
        assert with_angle.ok.sum() > len(targets) // 2
        compare(with_angle, row_by_row(model, targets), exact=isinstance(arm, PlanarArm))


def test_a_joint_turning_twice_around_crawls_and_goes_on_row_by_row(row_by_row, monkeypatch):
    """A 2R arm whose shoulder may turn +-13 rad, the tool circling the base twice: past each
    half turn a row's shoulder keeps the turn of the row before, which the arrays finalize one
    row a pass (a crawl): those rows go row by row."""
    chains: list[chain_rows.Chain] = []

    def kept(*arguments):
        chains.append(chain_rows.solve_chain(*arguments))
        return chains[-1]

    arm = PlanarArm((1.0, 0.8), [(-13.0, 13.0), None])
    angles = np.linspace(0.0, 4.0 * math.pi, 3000)
    targets = 1.2 * np.column_stack([np.cos(angles), np.sin(angles)])
    monkeypatch.setattr(rows, "solve_chain", kept)
    made = arm.solve_many(targets, chain=True)
    monkeypatch.undo()
    compare(made, row_by_row(arm, targets), exact=True)
    assert made.ok.all()
    assert made.joints[-1, 0] - made.joints[0, 0] > 3.0 * math.pi
    assert 0 < chains[0].row_by_row < len(targets)


def test_a_desk_kit_line_leaving_and_reentering_the_envelope(row_by_row) -> None:
    """Position-only and with a pitch, a line through the base column and out again: the
    refused rows (OUTSIDE_WORKSPACE) do not seed the rows after them."""
    arm: SpatialArm = load(default_config_path("arm_desk_kit.yaml"))
    start, end = np.array([0.15, -0.1, 0.06]), np.array([0.15, 0.1, 0.06])
    line = start + np.linspace(0.0, 1.0, 900)[:, None] * (end - start)
    for targets in (line, np.column_stack([line, np.full(900, -0.3)])):
        made = arm.solve_many(targets, chain=True)
        compare(made, row_by_row(arm, targets), exact=False)
    inside = arm.solve_many(line, chain=True).ok
    assert inside[0]
    assert inside[-1]
    assert not inside.all()
    assert np.flatnonzero(np.diff(inside.astype(int))).size == 2  # out and back in


@pytest.mark.parametrize("name", ["arm_desk_kit.yaml", "arm_3r.yaml"])
def test_repeated_targets_are_answered_as_solve_chain_answers_them(name) -> None:
    """Each target of a line repeated four times, refused ones among them (out of reach): a
    row whose target and seed are the row before's takes that row's answer, which is the same
    solve of the same numbers: the joints equal `solve_chain`'s bit for bit."""
    arm = load(default_config_path(name))
    count = 150
    if isinstance(arm, PlanarArm):
        ends = np.array([[0.9 * arm.reach, 0.1], [0.3 * arm.reach, 0.6 * arm.reach]])
    else:
        ends = np.array([[0.15, -0.1, 0.1], [0.15, 0.1, 0.1]])
    line = ends[0] + np.linspace(0.0, 1.0, count)[:, None] * (ends[1] - ends[0])
    line[40:45] *= 5.0  # out of reach
    targets = np.repeat(line, 4, axis=0)
    made = arm.solve_many(targets, chain=True)
    statuses, joints = scalar_chain(arm, targets)
    assert made.status.tolist() == statuses
    assert 0 < (~made.ok).sum() < len(targets) // 10
    for index in np.flatnonzero(made.ok).tolist():
        assert made.joints[index].tolist() == list(joints[index])
