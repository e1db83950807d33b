"""The envelope's cheap bound of one pose (`bound.py`): it never clears a pose the exact check
refuses, and it clears most of the poses that are far from every constraint."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Envelope, IkStatus
from arm_kinematics.kinematics.envelope.geometry import segment_box_distance

CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
SHIPPED = sorted(path.name for path in CONFIG_DIR.glob("arm*.yaml"))
POSES = 20_000
EDGE_POSES = 60
PAST = (0.0, 1e-9, 1e-6)
"""m: how far past a constraint the edge poses are put (touching, rounding, a real breach)."""


def with_boxes(config: ArmConfig) -> ArmConfig:
    """`config` with two keep-out boxes in its reach and fingers 3 cm long."""
    workspace = dataclasses.replace(
        config.workspace,
        keep_out_boxes=((0.05, 0.05, 0.0, 0.15, 0.15, 0.1), (-0.2, -0.1, 0.1, -0.1, 0.0, 0.3)),
        tool_length=0.03,
    )
    return dataclasses.replace(config, workspace=workspace)


def random_poses(config: ArmConfig, count: int, seed: int) -> np.ndarray:
    limits = np.clip(np.array(config.joint_limits), -np.pi, np.pi)
    return np.random.default_rng(seed).uniform(limits[:, 0], limits[:, 1], (count, len(limits)))


def envelope_like(envelope: Envelope, **changes) -> Envelope:
    """An envelope on the same arm and parts with only the constraints in `changes`."""
    parts = envelope.parts
    return Envelope(
        parts.chain,
        link_radius=envelope.link_radius,
        plane_z=parts.plane_z,
        tool_length=parts.tool_length,
        fingertip_half_width=parts.fingertip_half_width,
        **changes,
    )


@pytest.mark.parametrize("boxes", [False, True], ids=["shipped", "with boxes"])
@pytest.mark.parametrize("name", SHIPPED)
def test_the_bound_clears_only_poses_inside_and_most_far_ones(name: str, boxes: bool) -> None:
    config = ArmConfig.from_file(CONFIG_DIR / name)
    envelope = (with_boxes(config) if boxes else config).make_envelope()
    joints = random_poses(config, POSES, seed=5)
    inside = envelope.check_many(joints).ok
    cleared = np.array([envelope.clears(q) for q in joints.tolist()])
    assert not (cleared & ~inside).any()
    # Far: every part more than 5 mm from every constraint, by the exact check of an envelope
    # grown by 5 mm; the bound (bounding boxes for the keep-out boxes) clears most of those.
    grown = envelope_like(
        envelope,
        table_z=None if envelope.table_z is None else envelope.table_z + 0.005,
        keep_out_boxes=[(*np.subtract(b[:3], 0.005), *np.add(b[3:], 0.005)) for b in
                        envelope.keep_out_boxes],
        column_radius=envelope.column_radius + 0.005,
        column_top=envelope.column_top + 0.005,
    )  # fmt: skip
    far = grown.check_many(joints).ok
    assert far.sum() > POSES / 10
    share = cleared[far].mean()
    # Measured: 85-99.6 % with the boxes (their corners), every one without them.
    assert share > (0.8 if boxes else 0.99), share
    if not boxes:  # the table and the column only: every far pose is cleared
        assert cleared[far].all()


def nearest_column_distance(envelope: Envelope, q: list[float]) -> float:
    """The least distance (m) of the column's segments' centre lines to the column's axis."""
    points = np.array(envelope.parts.points(q))
    ends = envelope.parts.segments[envelope.parts.column_segments]
    lo, hi = np.array([0.0, 0.0, -np.inf]), np.array([0.0, 0.0, envelope.column_top])
    distance, _ = segment_box_distance(points[ends[:, 0]], points[ends[:, 1]], lo, hi)
    return float(distance.min())


def edge_envelopes(envelope: Envelope, q: list[float], past: float) -> list[Envelope]:
    """Envelopes of one constraint each that pose `q` breaks by `past` m (up to rounding): a
    table just above its lowest part, a box just beyond its point farthest along x, a column
    just wide enough to reach its nearest part."""
    r = envelope.link_radius
    points = np.array(envelope.parts.points(q))
    made = [envelope_like(envelope, table_z=float(points[:, 2].min()) - r + past)]
    x, y, z = points[np.argmax(points[:, 0])]
    face = x + r - past
    made.append(
        envelope_like(
            envelope, keep_out_boxes=[(face, y - 0.05, z - 0.05, face + 0.1, y + 0.05, z + 0.05)]
        )
    )
    radius = nearest_column_distance(envelope, q) - r + past
    if radius > 0.0:
        made.append(envelope_like(envelope, column_radius=radius))
    return made


@pytest.mark.parametrize("name", SHIPPED)
def test_poses_on_the_edge_of_each_constraint_go_to_the_exact_check(name: str) -> None:
    config = with_boxes(ArmConfig.from_file(CONFIG_DIR / name))
    envelope = config.make_envelope()
    kinds = 0
    for q in random_poses(config, EDGE_POSES, seed=9).tolist():
        for past in PAST:
            for edge in edge_envelopes(envelope, q, past):
                inside = bool(edge.check_many([q]).ok[0])
                assert inside == (past < 1e-7) or past == 1e-9  # the construction is right
                assert not edge.clears(q)  # within the slack of every edge
                assert edge.inside(q) == inside
                assert (edge.check(q) is None) == inside
                kinds += 1
    assert kinds > EDGE_POSES * len(PAST) * 2


@pytest.mark.parametrize("name", SHIPPED)
def test_one_pose_points_are_the_array_points(name: str) -> None:
    config = with_boxes(ArmConfig.from_file(CONFIG_DIR / name))
    parts = config.make_envelope().parts
    joints = random_poses(config, 200, seed=3)
    many = parts.points_many(joints)
    one = np.array([parts.points(q) for q in joints.tolist()])
    assert one.shape == many.shape
    assert np.abs(one - many).max() < 1e-15


@pytest.mark.parametrize("name", SHIPPED)
def test_the_ik_answers_as_it_does_with_the_exact_check_alone(name: str) -> None:
    config = with_boxes(ArmConfig.from_file(CONFIG_DIR / name))
    arm, exact = config.make_arm(), config.make_arm()
    exact.envelope.bound.clears = lambda points: False  # every pose to the exact check
    joints = random_poses(config, 600, seed=13).tolist()
    outside = 0
    for q, current in zip(joints, [None, *joints[:-1]], strict=True):
        tool = arm.forward(q)
        if config.spatial is None:
            requests = [tool[:2], tool] if arm.n_joints == 3 else [tool[:2]]
        else:
            requests = [(tool.x, tool.y, tool.z), (tool.x, tool.y, tool.z, tool.pitch)]
        for request in requests:
            answer = arm.solve(*request, current=current)
            assert answer == exact.solve(*request, current=current)
            outside += answer.status == IkStatus.OUTSIDE_WORKSPACE
    assert outside > 0  # the envelope's rule was at work
