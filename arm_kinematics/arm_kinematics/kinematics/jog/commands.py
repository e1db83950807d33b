"""What a jog is told: a tool velocity (a twist) or joint velocities, as plain numbers.

A `TwistCommand` is MoveIt Servo's TwistStamped without ROS: the tool point's linear velocity
(m/s) and the tool's angular velocity (rad/s), each a 3-vector in the arm's base frame or in the
tool frame (`in_tool_frame`). A `JointJogCommand` is its JointJog: a velocity (rad/s) per arm
joint, in joint order, 0 for a joint the command leaves out. Whatever sent them (a message,
a page, a script), they arrive here in SI units; units, frames and names are the node's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _norm(vector: Sequence[float]) -> float:
    return math.sqrt(math.fsum(v * v for v in vector))


@dataclass(frozen=True)
class TwistCommand:
    """The tool's velocity: `linear` (m/s, of the tool point) and `angular` (rad/s), in the
    base frame, or in the tool frame when `in_tool_frame` (its axes at the current pose)."""

    linear: tuple[float, float, float]
    angular: tuple[float, float, float]
    in_tool_frame: bool = False

    @property
    def is_zero(self) -> bool:
        """Every component 0: it asks for rest.

        >>> TwistCommand((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)).is_zero
        True
        """
        return not any(self.linear) and not any(self.angular)

    def capped(self, max_linear: float, max_angular: float) -> TwistCommand:
        """This command with its linear speed at most `max_linear` (m/s) and its angular
        speed at most `max_angular` (rad/s), each scaled as a vector (its direction kept), as
        MoveIt Servo's `scale.linear` and `scale.rotational` cap a command in speed units.

        >>> TwistCommand((0.6, 0.8, 0.0), (0.0, 0.0, 0.1)).capped(0.5, 1.0).linear
        (0.3, 0.4, 0.0)
        """
        return TwistCommand(
            _scaled(self.linear, max_linear), _scaled(self.angular, max_angular), self.in_tool_frame
        )


@dataclass(frozen=True)
class JointJogCommand:
    """Joint velocities (rad/s), one per arm joint in joint order; 0 for a joint not jogged."""

    velocities: tuple[float, ...]

    @property
    def is_zero(self) -> bool:
        """Every velocity 0: it asks for rest.

        >>> JointJogCommand((0.0, 0.5)).is_zero
        False
        """
        return not any(self.velocities)

    def capped(self, max_velocities: Sequence[float]) -> JointJogCommand:
        """Each joint's velocity at most its limit `max_velocities` (rad/s), its sign kept.

        >>> JointJogCommand((3.0, -0.5)).capped((2.0, 2.0)).velocities
        (2.0, -0.5)
        """
        return JointJogCommand(
            tuple(
                math.copysign(min(abs(v), limit), v)
                for v, limit in zip(self.velocities, max_velocities, strict=True)
            )
        )


JogCommand = TwistCommand | JointJogCommand


def _scaled(vector: Sequence[float], cap: float) -> tuple[float, float, float]:
    size = _norm(vector)
    factor = cap / size if size > cap else 1.0
    x, y, z = (float(v) * factor for v in vector)
    return (x, y, z)
