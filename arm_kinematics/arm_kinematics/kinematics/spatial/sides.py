"""The ways a spatial arm can face a target (`Side`), and what the planar solve answered on
one of them (`Attempt`): the values `arm.py` tries and `explain.py` puts into words, apart
from both so that neither imports the other. Radians and metres, the base frame.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..types import IkResult


class Side(NamedTuple):
    """One way to face the target: the yaw (rad, within its limits) and whether the chain
    reaches over the back (then `planar_x` is measured in the mirrored plane)."""

    name: str  # "front", "back" or "axis"
    yaw: float
    back: bool
    planar_x: float  # the target ahead of the shoulder in the (possibly mirrored) plane, m

    @property
    def tool_roll(self) -> float:
        """The roll of the tool with the roll joint at 0: 0 from the front, pi over the back."""
        return math.pi if self.back else 0.0


class Attempt(NamedTuple):
    """A side and what the planar solve (and the roll) answered there: joints in joint order."""

    side: Side
    result: IkResult
