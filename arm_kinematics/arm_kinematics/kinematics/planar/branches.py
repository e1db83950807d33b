"""Which elbow to return: the branch rules of `Branch`, on candidates already within limits.

Joints in radians. The two rules that rank two feasible elbows:
- least motion: the joint-space distance from `current`, the short way round for continuous
  joints (`joint_distance`);
- largest limit margin: the elbow whose smallest distance to a joint limit is largest
  (`PlanarChain.limit_margin`), elbow up on a tie (margins within MARGIN_TIE; always so
  without limits, where every margin is inf).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..types import Branch
from .limits import CONTINUOUS, joint_motion

Joints = tuple[float, ...]

MARGIN_TIE = 1e-12
"""rad: limit margins this close are a tie (the first wins). A heading chosen at a limit puts
a joint on it in every candidate, and rounding alone would otherwise pick one."""


Choice = tuple[Joints, "Joints | None", str]
"""(the chosen joints, the other feasible elbow or None, the reason as message text)."""

ONLY_WITHIN_LIMITS = " (the only branch within limits)"
"""The reason of a single elbow within the limits, as message text."""
REQUESTED_ELBOWS = (Branch.ELBOW_UP, Branch.ELBOW_DOWN)
"""The rules that name one elbow. A tuple, not a set: `in` compares IntEnum members as ints,
where a set would hash them through Enum.__hash__, a Python-level method."""


def branch_elbows(branch: Branch) -> tuple[int, ...]:
    """The elbows (0 up, 1 down) a branch rule may take.

    >>> branch_elbows(Branch.ELBOW_DOWN), branch_elbows(Branch.CLOSEST)
    ((1,), (0, 1))
    """
    if branch is Branch.ELBOW_UP:
        return (0,)
    return (1,) if branch is Branch.ELBOW_DOWN else (0, 1)


def joint_distance(
    joints: Sequence[float], current: Sequence[float], kinds: Sequence[str]
) -> float:
    """How far (rad) the joints move from `current` to `joints`: the square root of the sum of
    squared joint motions, continuous joints the short way round (kinds as
    `PlanarChain.joint_kinds`, motions as `joint_motion`).

    >>> round(joint_distance((3.0, 0.5), (-3.0, 0.0), ("continuous", "narrow")), 4)
    0.5746
    >>> joint_distance((0.3, 0.4), (0.0, 0.0), ("narrow", "narrow"))
    0.5
    """
    if CONTINUOUS in kinds:
        return math.hypot(*joint_motion(current, joints, kinds))
    return math.dist(joints, current)


def choose_branch(
    branch: Branch,
    up: Joints | None,
    up_margin: float,
    down: Joints | None,
    down_margin: float,
    coincident: bool,
    current: Joints | None,
    kinds: Sequence[str],
    only_reason: str = ONLY_WITHIN_LIMITS,
) -> Choice | None:
    """Apply the branch rule to the feasible elbows `up` / `down` (None: not feasible), whose
    limit margins (rad, `PlanarChain.limit_margin`) are `up_margin` / `down_margin`; None when
    the rule leaves nothing (JOINT_LIMIT).

    `coincident`: at full stretch or fold both elbows are one configuration (pass it once, as
    `up`), which either elbow name accepts. `only_reason` explains a single feasible elbow.
    Ties of the margin rule go to elbow up.

    >>> kinds = ("narrow", "narrow")
    >>> choose_branch(Branch.MAX_LIMIT_MARGIN, (1.2, -0.8), 0.3, (0.5, 0.8), 1.0, False, None,
    ...               kinds)
    ((0.5, 0.8), (1.2, -0.8), ' (largest joint-limit margin)')
    >>> choose_branch(Branch.ELBOW_UP, None, -1.0, (0.5, 0.8), 1.0, False, None, kinds) is None
    True
    """
    if branch in REQUESTED_ELBOWS:
        chosen, other = (up, down) if branch is Branch.ELBOW_UP else (down, up)
        if chosen is None and coincident:
            chosen, other = other, None
        return None if chosen is None else (chosen, other, "")
    if up is None or down is None:
        chosen = up if up is not None else down
        if chosen is None:
            return None
        return chosen, None, "" if coincident else only_reason
    if current is not None and branch is Branch.CLOSEST:
        if joint_distance(down, current, kinds) < joint_distance(up, current, kinds):
            return down, up, " (least motion from current)"
        return up, down, " (least motion from current)"
    if down_margin > up_margin + MARGIN_TIE:
        return down, up, " (largest joint-limit margin)"
    return up, down, " (largest joint-limit margin)"
