"""A gripper goal from its start to its end, without ROS: the checks of its position, when it is
reached and when it has stalled.

Positions are in the gripper's configured unit (`GripperConfig.position_unit`: metres between
the fingers, or the joint angle in radians); joint angles in radians; times in seconds of the
node's clock.

A goal is reached when the gripper joint (as `joint_states` reports it) is within the tolerance
of the goal's joint angle. It has stalled when it is not, `reach_timeout_s` after its motion
has ended (the hardware node moves the joint on a `JointProfile`, from rest to rest within its
`max_velocity` and `max_acceleration`; when the node's ticks come late on a loaded machine the
profile runs later, so the end is the one the node reports, not a deadline fixed at the start):
the fingers stopped on something. Hobby servos report no position, so only a backend that
measures one (the sim's obstacle) can stall; on a PCA9685 every goal is reached when its
motion ends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from arm_kinematics.config import GripperConfig
from arm_kinematics.hardware.mapping import InvalidCommandError

POSITION_TOLERANCE = 1e-9
"""Relative slack on the gripper's limits (of their span): float noise at a limit is the limit."""


class GoalState(Enum):
    MOVING = "moving"
    REACHED = "reached"
    STALLED = "stalled"


def check_goal_position(gripper: GripperConfig, position: float) -> float:
    """The goal's position (the configured unit) if finite and between closed and open (float
    noise at either end is that end), else InvalidCommandError saying why it is refused.

    >>> from arm_kinematics.config import ArmConfig, default_config_path
    >>> kit = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml")).gripper
    >>> check_goal_position(kit, 0.03)
    0.03
    >>> check_goal_position(kit, 0.08)
    Traceback (most recent call last):
    ...
    arm_kinematics.hardware.mapping.InvalidCommandError: position 0.08 is outside the \
gripper's range [0, 0.055] m between the fingers (closed 0, open 0.055)
    """
    low, high = gripper.position_limits
    slack = POSITION_TOLERANCE * (high - low)
    if not math.isfinite(position):
        raise InvalidCommandError(f"position {position} is not a finite number")
    if not low - slack <= position <= high + slack:
        raise InvalidCommandError(
            f"position {position:g} is outside the gripper's range [{low:g}, {high:g}] "
            f"{gripper.unit_words} (closed {gripper.closed_position:g}, open "
            f"{gripper.open_position:g})"
        )
    return min(max(position, low), high)


@dataclass(frozen=True)
class GripperReading:
    """The gripper now, for a running goal: the node's clock (s), the joint as joint_states
    reports it (rad), whether its motion is still under way, and why no goal can go on (a
    fault, the shutdown, calibration mode) or None."""

    now_s: float
    joint_rad: float
    moving: bool
    problem: str | None


@dataclass(frozen=True)
class GripperMotion:
    """One accepted goal: where the gripper joint goes (rad), and how long after its motion has
    ended (s) it may still be short of there before it has stalled."""

    position: float  # the goal, the configured unit
    target: float  # rad: the gripper joint's angle for it
    reach_timeout_s: float  # s after the motion's end: not within the tolerance by then = stalled
    tolerance: float  # rad

    @classmethod
    def start(cls, gripper: GripperConfig, position: float, tolerance: float) -> GripperMotion:
        """The goal `position` (checked already) of `gripper`, reached within `tolerance` (rad).

        >>> from arm_kinematics.config import ArmConfig, default_config_path
        >>> kit = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml")).gripper
        >>> motion = GripperMotion.start(kit, 0.0, math.radians(1))
        >>> motion.state(now_s=12.0, joint_rad=0.3, ended_at_s=11.5)  # 0.5 s of reach_timeout_s 1
        <GoalState.MOVING: 'moving'>
        >>> motion.state(now_s=12.6, joint_rad=0.3, ended_at_s=11.5)
        <GoalState.STALLED: 'stalled'>
        """
        target = gripper.joint_angle(position)
        return cls(position, target, gripper.reach_timeout_s, tolerance)

    def state(self, now_s: float, joint_rad: float, ended_at_s: float | None) -> GoalState:
        """REACHED when the joint (rad) is within the tolerance, else STALLED more than
        reach_timeout_s after the motion ended at `ended_at_s` (None: still under way), else
        MOVING. Times in seconds of one clock."""
        if abs(joint_rad - self.target) <= self.tolerance:
            return GoalState.REACHED
        if ended_at_s is not None and now_s - ended_at_s > self.reach_timeout_s:
            return GoalState.STALLED
        return GoalState.MOVING
