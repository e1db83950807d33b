"""How near a pose is to the solver's SINGULAR band, so that a jog can stop before it and leave it.

The solver calls a pose SINGULAR (`planar/arm.py` step 5, `spatial/arm.py` step 6) when the
sine of the elbow (joint 2 of the planar chain: a planar arm's, or a spatial arm's vertical
chain, the 2R part of a 3R one) is below `singularity_margin` (full stretch or full fold), or,
for a spatial arm, when the tool point is within `singularity_margin * reach` of the yaw axis.
`singular_ratio` is that test as a number: the smallest of |sin(elbow)| / margin and the
distance from the yaw axis / (margin * reach), below 1 inside the band. A jog never lets it
fall below 1 from above, nor lower once inside (it may only climb out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from ..planar.arm import PlanarArm
from ..spatial.arm import SpatialArm

STRETCH, FOLD, AXIS = "stretch", "fold", "axis"
"""Which singularity is nearest: the elbow straight, the elbow folded, the yaw axis."""


class SingularRatio(NamedTuple):
    """The distance to the SINGULAR band in units of the band (< 1: inside; inf: the arm has
    no margin), which singularity it is (STRETCH, FOLD or AXIS) and its words."""

    ratio: float
    kind: str
    words: str


def singular_ratio(
    arm: PlanarArm | SpatialArm, joints: Sequence[float], tool_xy: Sequence[float]
) -> SingularRatio:
    """The ratio of `joints` (rad), the tool point being at `tool_xy` (m, base frame).

    >>> arm = PlanarArm((1.0, 0.8), singularity_margin=0.02)
    >>> singular_ratio(arm, (0.0, 0.01), (1.8, 0.0)).ratio < 1.0  # elbow 0.57 deg: SINGULAR
    True
    >>> round(singular_ratio(arm, (0.0, math.pi / 2), (1.0, 0.8)).ratio, 6)
    50.0
    """
    margin = arm.singularity_margin
    if isinstance(arm, SpatialArm):
        elbow = arm.planar_joints(arm.split(joints)[1])[1]
        name = arm.joint_names[2]
    else:
        elbow, name = joints[1], arm.joint_names[1]
    ratio = abs(math.sin(elbow)) / margin if margin > 0.0 else math.inf
    kind = STRETCH if math.cos(elbow) >= 0.0 else FOLD
    words = (
        f"the arm near full stretch ({name} nearly straight)"
        if kind == STRETCH
        else f"the arm near full fold ({name} folded back)"
    )
    if isinstance(arm, SpatialArm) and margin > 0.0:
        axis = math.hypot(tool_xy[0], tool_xy[1]) / (margin * arm.reach)
        if axis < ratio:
            name = arm.joint_names[0]
            return SingularRatio(axis, AXIS, f"the tool near the yaw axis ({name} turns fast)")
    return SingularRatio(ratio, kind, words)
