"""The closed form's elbows and the choice among them, on arrays: the steps of
`PlanarArm.solve` after its input checks, each a mask over the rows instead of an `if`, with
the same formulas (`closed_form.py`, the limit rules of `limits.py` on arrays):

- the closed form of both elbows (`elbows_many`): TOO_FAR / TOO_CLOSE, ORIENTATION_UNREACHABLE;
- the limits and the branch rule (`choose_many`), without a seed or with one per row (the
  least motion between a row's elbows, `nearer`): JOINT_LIMIT, SINGULAR, OK.

`Elbows` and `Answers` are what `many.py` and `free_heading_many.py` pass around. Radians and
metres, the arm's plane, joint order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from ..angles import wrap_angles
from ..array_api import norm
from ..types import Branch, IkStatus
from .branches import MARGIN_TIE, joint_distance
from .closed_form import (
    HEADING_MATCH_TOLERANCE,
    NEAR_COINCIDENT,
    last_joint,
    three_link_manipulability,
    two_link_ik_many,
    wrist_point,
)
from .limits import CONTINUOUS, LIMIT_TOLERANCE

if TYPE_CHECKING:
    from .arm import PlanarArm

Columns = list[np.ndarray]
"""One array (M,) per joint (rad)."""


@dataclass
class Elbows:
    """Both elbows of every row (step 2), before limits: `solved` rows have them (`up` and
    `down`, one column per joint; `has_up` / `has_down` False for an elbow a 2R arm's heading
    rules out), the others a `failure` status. `sin_elbow` |sin joint 2|; `coincident` where
    the two are one configuration (full stretch or fold)."""

    solved: np.ndarray
    failure: np.ndarray
    up: Columns
    down: Columns
    has_up: np.ndarray
    has_down: np.ndarray
    sin_elbow: np.ndarray
    coincident: np.ndarray


@dataclass
class Answers:
    """The answer of every row: status (uint8), joints and the other elbow (one column per
    joint), whether there is one, the manipulability (m^2)."""

    status: np.ndarray
    joints: Columns
    other: Columns
    has_other: np.ndarray
    manipulability: np.ndarray


def ring_failure(r: np.ndarray, ring: tuple[float, float]) -> np.ndarray:
    """TOO_FAR beyond the ring's outer edge, else TOO_CLOSE (rows off the ring), uint8."""
    return np.where(r > ring[1], IkStatus.TOO_FAR, IkStatus.TOO_CLOSE).astype(np.uint8)


def elbows_many(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, heading: np.ndarray | None, branch: Branch
) -> Elbows:
    """Step 2 for every row: both elbows by the closed form, or why there are none."""
    l1, l2 = arm.link_lengths[:2]
    tolerance = arm.edge_tolerance
    if arm.n_joints == 3:
        assert heading is not None
        wrist_x, wrist_y = wrist_point(x, y, heading, arm.link_lengths[2], np)
        solved, (up_1, up_2, down_1, down_2), sin_elbow = two_link_ik_many(
            l1, l2, wrist_x, wrist_y, tolerance
        )
        r = np.sqrt(x * x + y * y)
        inner, outer = arm.ring
        off_ring = (r < inner - tolerance) | (r > outer + tolerance)
        failure = np.where(
            off_ring, ring_failure(r, arm.ring), IkStatus.ORIENTATION_UNREACHABLE
        ).astype(np.uint8)
        up = [up_1, up_2, last_joint(heading, up_1, up_2, wrap_angles)]
        down = [down_1, down_2, last_joint(heading, down_1, down_2, wrap_angles)]
        every = np.ones_like(solved)
        return Elbows(solved, failure, up, down, every, every, sin_elbow, sin_elbow == 0.0)
    solved, (up_1, up_2, down_1, down_2), sin_elbow = two_link_ik_many(l1, l2, x, y, tolerance)
    failure = ring_failure(np.sqrt(x * x + y * y), arm.ring_12)
    elbows = Elbows(
        solved, failure, [up_1, up_2], [down_1, down_2], np.ones_like(solved),
        np.ones_like(solved), sin_elbow, sin_elbow == 0.0,
    )  # fmt: skip
    if heading is not None:
        _match_heading(arm, x, y, heading, branch, elbows)
    return elbows


def _match_heading(
    arm: PlanarArm, x: np.ndarray, y: np.ndarray, heading: np.ndarray, branch: Branch, elbows
) -> None:
    """Step 2 of a 2R arm with a heading (`PlanarArm._heading_elbows` on arrays): the elbow
    that has the heading, or ORIENTATION_UNREACHABLE; in place."""
    l1, l2 = arm.link_lengths
    elbow_x, elbow_y = wrist_point(x, y, heading, l2, np)
    r = np.sqrt(x * x + y * y)
    inner, outer = arm.ring_12
    outside = np.maximum(0.0, np.maximum(r - outer, inner - r))
    met = np.abs(norm(elbow_x, elbow_y) - l1) <= HEADING_MATCH_TOLERANCE + outside
    shoulder = np.atan2(elbow_y, elbow_x)
    matched = [shoulder, wrap_angles(heading - shoulder)]
    near = elbows.sin_elbow < NEAR_COINCIDENT
    is_up = matched[1] < 0.0
    wrong = ~near & (
        (is_up & (branch is Branch.ELBOW_DOWN)) | (~is_up & (branch is Branch.ELBOW_UP))
    )
    unreachable = elbows.solved & (~met | wrong)
    elbows.failure = np.where(unreachable, IkStatus.ORIENTATION_UNREACHABLE, elbows.failure)
    elbows.failure = elbows.failure.astype(np.uint8)
    elbows.solved = elbows.solved & ~unreachable
    elbows.up, elbows.down = matched, matched
    elbows.has_up = near | is_up
    elbows.has_down = near | ~is_up
    elbows.coincident = np.where(near, True, elbows.sin_elbow == 0.0)


def choose_many(
    arm: PlanarArm, elbows: Elbows, branch: Branch, seeds: Columns | None = None
) -> Answers:
    """Steps 4-6 (`PlanarArm._choose` on arrays): the elbows within the limits (2 pi shifts
    nearest the row's seed, or 0 without seeds), the branch rule (`choose_branch`: the
    requested elbow, else the feasible one, else CLOSEST's least motion from the seed, or the
    larger limit margin, elbow up on a tie), JOINT_LIMIT where it leaves none, SINGULAR below
    the singularity margin, else OK. `seeds`: one column per joint (rad), or None."""
    take_up, take_down, has_other, up_fit, down_fit = branch_rule(arm, elbows, branch, seeds)
    joints = [np.where(take_down, d, u) for u, d in zip(up_fit, down_fit, strict=True)]
    other = [np.where(take_down, u, d) for u, d in zip(up_fit, down_fit, strict=True)]
    sin_elbow = elbows.sin_elbow
    status = np.where(sin_elbow < arm.singularity_margin, IkStatus.SINGULAR, IkStatus.OK)
    status = np.where(take_up | take_down, status, IkStatus.JOINT_LIMIT)
    status = np.where(elbows.solved, status, elbows.failure).astype(np.uint8)
    solved = status <= IkStatus.SINGULAR
    manipulability = _manipulability(arm, joints, sin_elbow) * solved
    return Answers(status, joints, other, has_other & solved, manipulability)


def branch_rule(
    arm: PlanarArm, elbows: Elbows, branch: Branch, seeds: Columns | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Columns, Columns]:
    """Steps 4-5: (where elbow up is taken, where elbow down is, where the other one is
    feasible too, both elbows moved into the limits), with a seed per row or none."""
    reference = seeds if seeds is not None else [0.0] * arm.n_joints
    up_fit, up_ok, up_margin = _within_limits(
        arm, elbows.up, elbows.has_up & elbows.solved, reference
    )
    down_fit, down_ok, down_margin = _within_limits(
        arm, elbows.down, elbows.has_down & elbows.solved, reference
    )
    coincident = elbows.coincident
    down_ok = down_ok & ~(coincident & up_ok)  # one configuration: not offered twice
    if branch is Branch.ELBOW_UP:
        take_up = up_ok
        take_down = ~up_ok & coincident & down_ok
        has_other = up_ok & down_ok
    elif branch is Branch.ELBOW_DOWN:
        take_down = down_ok
        take_up = ~down_ok & coincident & up_ok
        has_other = down_ok & up_ok
    else:  # CLOSEST: the least motion from the seed; without one, and MAX_LIMIT_MARGIN: the
        both = up_ok & down_ok  # larger margin, up on a tie
        if seeds is not None and branch is Branch.CLOSEST:
            down_rule = nearer(arm.joint_kinds, down_fit, up_fit, seeds, both)
        else:
            down_rule = down_margin > up_margin + MARGIN_TIE
        take_down = (down_ok & ~up_ok) | (both & down_rule)
        take_up = up_ok & ~take_down
        has_other = both
    return take_up, take_down, has_other, up_fit, down_fit


def nearer(
    kinds: Sequence[str], a: Columns, b: Columns, seeds: Columns, rows: np.ndarray
) -> np.ndarray:
    """Where joints `a` move less from `seeds` than joints `b` do (`branches.joint_distance`:
    the short way round for continuous joints; rad, one column per joint), decided on `rows`
    (False elsewhere). Distances this close that rounding could order them either way (1e-12
    of them apart) are measured again by `joint_distance` itself, row by row, as the scalar
    solve measures them."""
    distance_a, distance_b = _distance(kinds, a, seeds), _distance(kinds, b, seeds)
    closer = rows & (distance_a < distance_b)
    close = np.flatnonzero(rows & (np.abs(distance_a - distance_b) <= TIE_SCALE * distance_b))
    for row in close.tolist():
        seed = tuple(float(q[row]) for q in seeds)
        row_a, row_b = (tuple(float(q[row]) for q in side) for side in (a, b))
        closer[row] = joint_distance(row_a, seed, kinds) < joint_distance(row_b, seed, kinds)
    return closer


TIE_SCALE = 1e-12
"""Two joint distances closer than this fraction apart are compared by the scalar rule."""


def _distance(kinds: Sequence[str], joints: Columns, seeds: Columns) -> np.ndarray:
    """sqrt of the summed squared motion of each row from its seed (rad)."""
    total = np.zeros(len(joints[0]))
    for q, seed, kind in zip(joints, seeds, kinds, strict=True):
        motion = wrap_angles(q - seed) if kind == CONTINUOUS else q - seed
        total += motion * motion
    return np.sqrt(total)


def _within_limits(
    arm: PlanarArm, joints: Columns, exists: np.ndarray, reference: Sequence[Any]
) -> tuple[Columns, np.ndarray, np.ndarray]:
    """Step 4 on arrays (`PlanarArm._within_limits`): (the elbow moved by k * 2 pi into the
    limits nearest `reference` (one column per joint, or floats), where it is within them,
    its limit margin)."""
    if arm.shifts_can_fit:
        joints, fits = arm.fit_into_limits_many(joints, reference)
        exists = exists & fits
    margin = np.where(exists, arm.limit_margin_many(joints), -np.inf)
    return joints, margin >= -LIMIT_TOLERANCE, margin


def _manipulability(arm: PlanarArm, joints: Columns, sin_elbow: np.ndarray) -> np.ndarray:
    """As `PlanarArm._choose`: L1 L2 |sin joint 2| for 2R, the 3R formula for 3R (m^2)."""
    if arm.n_joints == 2:
        return arm.link_lengths[0] * arm.link_lengths[1] * sin_elbow
    return three_link_manipulability(arm.link_lengths, joints, np)


def merge(answers: Answers, rows: np.ndarray, part: Answers) -> None:
    """Put the answers `part` of `rows` into `answers`, in place."""
    answers.status[rows] = part.status
    for whole, piece in ((answers.joints, part.joints), (answers.other, part.other)):
        for column, values in zip(whole, piece, strict=True):
            column[rows] = values
    answers.has_other[rows] = part.has_other
    answers.manipulability[rows] = part.manipulability


def joined(parts: list[Elbows]) -> Elbows:
    """The elbows of `parts`' rows, one after the other."""
    values = {}
    for field in fields(Elbows):
        first = getattr(parts[0], field.name)
        if isinstance(first, list):  # one column per joint
            columns = zip(*(getattr(part, field.name) for part in parts), strict=True)
            values[field.name] = [np.concatenate(column) for column in columns]
        else:
            values[field.name] = np.concatenate([getattr(part, field.name) for part in parts])
    return Elbows(**values)


def subset(elbows: Elbows, rows: np.ndarray) -> Elbows:
    """The elbows of `rows` only."""
    return Elbows(
        elbows.solved[rows], elbows.failure[rows], [q[rows] for q in elbows.up],
        [q[rows] for q in elbows.down], elbows.has_up[rows], elbows.has_down[rows],
        elbows.sin_elbow[rows], elbows.coincident[rows],
    )  # fmt: skip
