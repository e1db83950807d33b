"""What a planner is asked for: the limits every planned motion keeps, and a path's options.

Pure Python. Units: seconds, radians, metres. One typed object a planner reads, so that a
speed is never a bare number whose unit depends on the mode: a LINEAR move's tool speed is
`MotionLimits.tool_speed` (m/s); a JOINT move's share of the joint velocity limits is applied
with `MotionLimits.scaled` before planning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .ik_answers import SolvePoints


def positive(value: float, name: str) -> float:
    """`value` as a float, finite and > 0; ValueError naming it (as `name`) else.

    >>> positive(0.02, "period")
    0.02
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} {value!r} must be a number") from None
    if not (math.isfinite(number) and number > 0.0):
        raise ValueError(f"{name} {value!r} must be finite and > 0")
    return number


def _per_joint(values: Sequence[float], name: str) -> tuple[float, ...]:
    return tuple(positive(v, f"{name} {i}") for i, v in enumerate(values))


@dataclass(frozen=True)
class MotionLimits:
    """The limits a motion's setpoints keep, measured as finite differences at the command
    `period` (s): each joint's velocity (rad/s) and acceleration (rad/s^2), in the arm's joint
    order; on a Cartesian path also the tool point's speed (m/s, None: no bound of its own) and
    acceleration (m/s^2, None: none). No jerk limit: a hobby servo gets one position per period
    and moves to it with its own controller (docs/trajectory_node.md says why).

    >>> limits = MotionLimits(0.02, (1.0, 2.0), (4.0, 8.0), tool_speed=0.05)
    >>> limits.scaled(0.5).joint_velocities, limits.scaled(0.5).joint_accelerations
    ((0.5, 1.0), (4.0, 8.0))
    """

    period: float
    joint_velocities: tuple[float, ...]
    joint_accelerations: tuple[float, ...]
    tool_speed: float | None = None
    tool_acceleration: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "period", positive(self.period, "period"))
        velocities = _per_joint(self.joint_velocities, "joint velocity limit")
        accelerations = _per_joint(self.joint_accelerations, "joint acceleration limit")
        if len(velocities) != len(accelerations):
            raise ValueError(
                f"{len(velocities)} joint velocity limits for {len(accelerations)} joint "
                "acceleration limits"
            )
        object.__setattr__(self, "joint_velocities", velocities)
        object.__setattr__(self, "joint_accelerations", accelerations)
        for name in ("tool_speed", "tool_acceleration"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, positive(value, name.replace("_", " ")))

    @property
    def n_joints(self) -> int:
        return len(self.joint_velocities)

    @property
    def bounds_tool(self) -> bool:
        """True when the tool point has limits of its own (a Cartesian move)."""
        return self.tool_speed is not None or self.tool_acceleration is not None

    def scaled(self, fraction: float) -> MotionLimits:
        """These limits with every joint velocity limit times `fraction` in (0, 1] (a JOINT
        move's speed); the accelerations stay."""
        if not (math.isfinite(fraction) and 0.0 < fraction <= 1.0):
            raise ValueError(f"speed fraction must be in (0, 1], got {fraction!r}")
        return replace(self, joint_velocities=tuple(v * fraction for v in self.joint_velocities))


@dataclass(frozen=True)
class PlanOptions:
    """How a tool path is planned: points at most `max_step` m apart, IK through `solve`
    (None: the core's `chain_solver` in this process), a joint change above `max_joint_step`
    rad between two points a branch flip (None: not checked), and with `limits` the timing and
    the setpoints (None: points and IK only).

    >>> PlanOptions(0.001).max_step
    0.001
    """

    max_step: float
    limits: MotionLimits | None = None
    max_joint_step: float | None = None
    solve: SolvePoints | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_step", positive(self.max_step, "max_step"))
        if self.max_joint_step is not None:
            object.__setattr__(
                self, "max_joint_step", positive(self.max_joint_step, "max_joint_step")
            )
