"""Joint <-> servo mapping, command validation and the slew step (pure Python, no ROS).

`servo_deg = offset_deg + sign * degrees(joint)`: `offset_deg` is the servo angle when the joint
is at its mathematical zero, `sign` is -1 for a servo mounted mirrored. The file's validation
(config.py) already guarantees that each joint's limits map inside its servo's travel; a command
is still checked against both, so nothing outside either can ever reach a servo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

from arm_kinematics.config import ArmConfig, JointConfig
from arm_kinematics.kinematics import LIMIT_TOLERANCE as LIMIT_TOLERANCE_RAD

# A command within the core's LIMIT_TOLERANCE_RAD (1e-9 rad, 6e-8 degrees) outside a joint limit
# (float noise of an IK result at the limit) is taken as the limit itself; anything further is
# rejected.
_SERVO_TOLERANCE_DEG = math.degrees(LIMIT_TOLERANCE_RAD)


class InvalidCommandError(ValueError):
    """A joint command that must not move anything; the message names the joint and value."""


@dataclass(frozen=True)
class JointServo(JointConfig):
    """One joint (radians) and the servo that drives it (servo degrees): a JointConfig with
    the mapping and the command check."""

    @classmethod
    def from_joint(cls, joint: JointConfig) -> JointServo:
        return cls(**{field.name: getattr(joint, field.name) for field in fields(JointConfig)})

    def servo_deg(self, joint_rad: float) -> float:
        """Servo angle (servo degrees) for a joint angle (radians) that passed `check`."""
        degrees = self.servo.servo_deg(joint_rad)
        # Only float noise is removed here: `check` refused everything further out.
        return min(max(degrees, self.servo.min_deg), self.servo.max_deg)

    def joint_rad(self, servo_deg: float) -> float:
        """Joint angle (radians) for a servo angle (servo degrees): the inverse mapping."""
        return math.radians((servo_deg - self.servo.offset_deg) * self.servo.sign)

    def check(self, joint_rad: float) -> float:
        """Return the command (radians) if it is finite and inside the joint limits and the
        servo's travel, else raise InvalidCommandError naming the joint and value."""
        if not math.isfinite(joint_rad):
            raise InvalidCommandError(f"joint '{self.name}' = {joint_rad} is not a finite number")
        if not (
            self.min_position - LIMIT_TOLERANCE_RAD
            <= joint_rad
            <= self.max_position + LIMIT_TOLERANCE_RAD
        ):
            raise InvalidCommandError(
                f"joint '{self.name}' = {joint_rad:.6g} rad ({math.degrees(joint_rad):.4g} deg) "
                f"is outside its limits [{math.degrees(self.min_position):g}, "
                f"{math.degrees(self.max_position):g}] deg"
            )
        degrees = self.servo.servo_deg(joint_rad)
        if not (
            self.servo.min_deg - _SERVO_TOLERANCE_DEG
            <= degrees
            <= self.servo.max_deg + _SERVO_TOLERANCE_DEG
        ):
            raise InvalidCommandError(
                f"joint '{self.name}' = {joint_rad:.6g} rad ({math.degrees(joint_rad):.4g} deg) "
                f"maps to servo angle {degrees:.4g} deg on channel {self.servo.channel}, outside "
                f"the servo's travel [{self.servo.min_deg:g}, {self.servo.max_deg:g}] deg"
            )
        return min(max(joint_rad, self.min_position), self.max_position)


class ServoMap:
    """The arm's joints in config order, and the validation of a whole joint command."""

    def __init__(self, joints: Sequence[JointConfig | JointServo]) -> None:
        self.joints = tuple(
            j if isinstance(j, JointServo) else JointServo.from_joint(j) for j in joints
        )
        self.names = tuple(j.name for j in self.joints)
        self.channels = tuple(j.servo.channel for j in self.joints)
        self._index = {name: i for i, name in enumerate(self.names)}

    @classmethod
    def from_config(cls, config: ArmConfig) -> ServoMap:
        return cls(config.joints)

    def command(self, names: Sequence[str], positions: Sequence[float]) -> tuple[float, ...]:
        """Validate a command of joint names and positions (radians), matched by name.

        Returns the positions in config order. Raises InvalidCommandError for a names/positions
        length mismatch, a duplicate, unknown or missing joint, a NaN/inf, or a value outside
        the joint limits or the servo travel: the whole command is refused, nothing clamped.
        """
        if len(names) != len(positions):
            raise InvalidCommandError(
                f"{len(names)} joint names but {len(positions)} positions "
                f"(names: {', '.join(names) or 'none'})"
            )
        ordered: list[float | None] = [None] * len(self.joints)
        for name, value in zip(names, positions, strict=True):
            index = self._index.get(name)
            if index is None:
                raise InvalidCommandError(
                    f"unknown joint '{name}' = {value} (this arm's joints: {', '.join(self.names)})"
                )
            if ordered[index] is not None:
                raise InvalidCommandError(f"joint '{name}' is given twice (= {value})")
            ordered[index] = self.joints[index].check(float(value))
        missing = [self.names[i] for i, value in enumerate(ordered) if value is None]
        if missing:
            raise InvalidCommandError(
                f"joint '{missing[0]}' is missing: a command must set every joint "
                f"({', '.join(self.names)}), it sets {', '.join(names) or 'none'}"
            )
        return tuple(v for v in ordered if v is not None)


def slew_toward(position: float, target: float, max_step: float) -> float:
    """Move `position` toward `target` by at most `max_step` (same units); lands exactly on it."""
    delta = target - position
    if abs(delta) <= max_step:
        return target
    return position + math.copysign(max_step, delta)
