"""The running gripper's unit and ends, read from its hardware_node's `gripper.*` parameters.

A GripperCommand goal's `command.position` is in the unit the hardware node is configured
with (`gripper.position_unit`): metres between the fingers (`opening_m`) or the gripper
joint's angle in radians (`angle_rad`). The hardware node rejects a goal outside
[closed, open] without saying why to the client, so the commander checks the range before it
sends and says it in words (degrees for an angle, as the nodes' messages do).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arm_kinematics.commander.errors import (
    CommanderError,
    InvalidArgumentError,
    NoGripperError,
)
from arm_kinematics.commander.targets import number


@dataclass(frozen=True)
class GripperUnit:
    """The gripper's joint, its goals' unit ("opening_m" | "angle_rad") and its ends in that
    unit (m or rad)."""

    joint: str
    unit: str
    open: float
    closed: float

    @classmethod
    def from_parameters(cls, values: Mapping[str, Any], node: str) -> GripperUnit:
        """From the `gripper.*` values of the running `node` (None where not set); raises
        NoGripperError for an arm without a gripper."""
        joint = values.get("gripper.joint")
        if not joint:
            raise NoGripperError(f"this arm has no gripper (its {node}'s gripper.joint is empty)")
        unit = values.get("gripper.position_unit")
        if unit == "opening_m":
            ends = (values.get("gripper.open_m"), values.get("gripper.closed_m"))
        elif unit == "angle_rad":
            ends = tuple(
                None if v is None else math.radians(v)
                for v in (values.get("gripper.open_deg"), values.get("gripper.closed_deg"))
            )
        else:
            raise CommanderError(f"the {node}'s gripper.position_unit {unit!r} is unknown")
        if any(v is None for v in ends):
            raise CommanderError(f"the {node} does not say where its gripper opens and closes")
        return cls(str(joint), str(unit), float(ends[0]), float(ends[1]))

    def check(self, position: Any) -> float:
        """`position` (m or rad) as a goal: InvalidArgumentError outside [closed, open]."""
        position = number("the gripper position", position)
        if not math.isfinite(position):
            raise InvalidArgumentError(f"gripper position {position} is not a finite number")
        low, high = sorted((self.open, self.closed))
        slack = 1e-9 * (high - low)
        if not low - slack <= position <= high + slack:
            raise InvalidArgumentError(
                f"position {self.words(position)} is outside the gripper's range "
                f"{self.range_words()}; nothing was sent"
            )
        return min(max(position, low), high)

    def words(self, position: float) -> str:
        """A position (m or rad) in short words: metres, or degrees."""
        return (
            f"{position:.4f} m" if self.unit == "opening_m" else f"{math.degrees(position):.2f} deg"
        )

    def shown(self, position: float) -> str:
        """A position (m or rad) in full words: metres between the fingers, or degrees and
        radians."""
        if self.unit == "opening_m":
            return f"{position:.4f} m between the fingers"
        return f"{math.degrees(position):.2f} deg ({position:.6f} rad)"

    def range_words(self) -> str:
        """[closed, open] in words, lowest first."""
        low, high = sorted((self.open, self.closed))
        if self.unit == "opening_m":
            return f"[{low:g}, {high:g}] m between the fingers"
        return f"[{math.degrees(low):g}, {math.degrees(high):g}] deg"
