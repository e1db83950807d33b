"""Joint <-> servo mapping, command validation and the ramp step (pure Python, no ROS).

`servo_deg = offset_deg + sign * degrees(angle)`: `offset_deg` is the servo angle when the angle
it sets is at its mathematical zero, `sign` is -1 for a servo mounted mirrored. The angle a
servo sets is its joint's (`linkage: direct`), or for a `parallelogram` servo its link's angle
in the arm's plane, the sum of the plane joints up to its own: shoulder 30 deg and elbow -50 deg
put a parallelogram elbow servo of offset 90 and sign +1 at 90 + (30 - 50) = 70 deg. So a
servo angle depends on the whole joint vector (`ServoMap.servo_angles`), and back
(`ServoMap.joint_positions`).

The file's validation (config/) already guarantees that each direct joint's limits map inside
its servo's travel and that home maps inside every travel; a command is still checked against
the joint limits and every servo's travel, so nothing outside either can ever reach a servo.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
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
    the mapping and the checks. The mapping's angle is the one the servo sets: the joint's for
    a direct servo, the link's for a parallelogram one (`ServoMap` sums it)."""

    @classmethod
    def from_joint(cls, joint: JointConfig) -> JointServo:
        return cls(**{field.name: getattr(joint, field.name) for field in fields(JointConfig)})

    def servo_deg(self, set_angle_rad: float) -> float:
        """Servo angle (servo degrees) for the angle it sets (radians) that passed the checks."""
        degrees = self.servo.servo_deg(set_angle_rad)
        # Only float noise is removed here: the checks refused everything further out.
        return min(max(degrees, self.servo.min_deg), self.servo.max_deg)

    def joint_rad(self, servo_deg: float) -> float:
        """The angle the servo sets (radians) at a servo angle (servo degrees): the inverse
        mapping (a direct servo's joint angle)."""
        return self.servo.set_angle(servo_deg)

    def check_limits(self, joint_rad: float) -> float:
        """The joint angle (radians) if finite and inside the joint limits (float noise at a
        limit is the limit), else InvalidCommandError naming the joint and value."""
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
        return min(max(joint_rad, self.min_position), self.max_position)

    def check_travel(self, set_angle_rad: float, what: str) -> None:
        """InvalidCommandError unless the servo angle of `set_angle_rad` (the angle this servo
        sets, radians; `what` says which in the message) lies within the servo's travel."""
        degrees = self.servo.servo_deg(set_angle_rad)
        if not (
            self.servo.min_deg - _SERVO_TOLERANCE_DEG
            <= degrees
            <= self.servo.max_deg + _SERVO_TOLERANCE_DEG
        ):
            raise InvalidCommandError(
                f"{what} maps to servo angle {degrees:.4g} deg on channel {self.servo.channel}, "
                f"outside the servo's travel [{self.servo.min_deg:g}, {self.servo.max_deg:g}] deg"
            )

    def check(self, joint_rad: float) -> float:
        """A direct joint's command (radians) if finite and inside the joint limits and the
        servo's travel, else InvalidCommandError naming the joint and value."""
        checked = self.check_limits(joint_rad)
        self.check_travel(joint_rad, self.describe(joint_rad))
        return checked

    def describe(self, joint_rad: float) -> str:
        return f"joint '{self.name}' = {joint_rad:.6g} rad ({math.degrees(joint_rad):.4g} deg)"


class ServoMap:
    """Every driven joint in order (the arm's in config order, then the gripper's), the angle
    each servo sets, and the validation of a whole joint command.

    `plane_joints` are the indices of the arm joints that turn in the arm's plane (all of a
    planar arm's, a spatial arm's pitch joints): a parallelogram servo sets the sum of those up
    to its own joint. The default: every arm joint.
    """

    def __init__(
        self,
        joints: Sequence[JointConfig | JointServo],
        *,
        plane_joints: Sequence[int] | None = None,
        gripper: JointConfig | None = None,
    ) -> None:
        driven = [*joints, *([gripper] if gripper is not None else [])]
        self.joints: tuple[JointServo, ...] = tuple(
            j if isinstance(j, JointServo) else JointServo.from_joint(j) for j in driven
        )
        self.names: tuple[str, ...] = tuple(j.name for j in self.joints)
        self.channels: tuple[int, ...] = tuple(j.servo.channel for j in self.joints)
        self.arm_names: tuple[str, ...] = self.names[: len(joints)]
        self.gripper_name: str | None = None if gripper is None else gripper.name
        plane = tuple(range(len(joints))) if plane_joints is None else tuple(plane_joints)
        self._index = {name: i for i, name in enumerate(self.names)}
        # The joints whose angles each servo's set angle sums, its own last.
        self._sums: tuple[tuple[int, ...], ...] = tuple(
            tuple(p for p in plane if p <= i) if j.servo.linkage == "parallelogram" else (i,)
            for i, j in enumerate(self.joints)
        )

    @classmethod
    def from_config(cls, config: ArmConfig) -> ServoMap:
        gripper = None if config.gripper is None else config.gripper.joint
        return cls(config.joints, plane_joints=config.plane_joints, gripper=gripper)

    # --- joint vector <-> servo angles -------------------------------------------------------

    def set_angles(self, positions: Sequence[float]) -> tuple[float, ...]:
        """The angle each servo sets (radians), for joint positions in driven order (radians)."""
        return tuple(math.fsum(positions[j] for j in summed) for summed in self._sums)

    def servo_angles(self, positions: Sequence[float]) -> tuple[float, ...]:
        """Servo angles (servo degrees) for checked joint positions (radians, driven order).

        >>> from arm_kinematics.config import ArmConfig, default_config_path
        >>> servos = ServoMap.from_config(ArmConfig.from_file(default_config_path("arm_mearm.yaml")))
        >>> [round(v, 9) for v in servos.servo_angles([0.0, math.radians(30), math.radians(-50), 0.0])]
        [90.0, 130.0, 70.0, 30.0]
        """  # noqa: E501
        return tuple(
            joint.servo_deg(angle)
            for joint, angle in zip(self.joints, self.set_angles(positions), strict=True)
        )

    def joint_positions(
        self, commanded: Sequence[float], measured: Mapping[int, float]
    ) -> tuple[float, ...]:
        """Where the joints are (radians, driven order): `commanded`, except where a servo
        reports its angle (`measured`: driven index -> servo degrees): that joint follows it,
        and so does every parallelogram joint after it in the plane (its link keeps the
        commanded angle, the joints before it moved).

        >>> from arm_kinematics.config import ArmConfig, default_config_path
        >>> servos = ServoMap.from_config(ArmConfig.from_file(default_config_path("arm_mearm.yaml")))
        >>> q = [0.0, math.radians(30), math.radians(-50), 0.0]
        >>> [round(math.degrees(v), 9) for v in servos.joint_positions(q, {1: 140.0})]  # held at 20
        [0.0, 20.0, -40.0, 0.0]
        """  # noqa: E501
        reported = list(commanded)
        for i, joint in enumerate(self.joints):
            summed = self._sums[i]
            before = summed[:-1]
            if i in measured:
                link = joint.joint_rad(measured[i])
            elif any(reported[j] != commanded[j] for j in before):
                link = math.fsum(commanded[j] for j in summed)
            else:
                continue
            reported[i] = link - math.fsum(reported[j] for j in before)
        return tuple(reported)

    # --- validation --------------------------------------------------------------------------

    def check(self, positions: Sequence[float]) -> tuple[float, ...]:
        """Joint positions (radians, driven order) if every joint is inside its limits and every
        servo's angle inside its travel, else InvalidCommandError naming the joint and value."""
        checked = [
            joint.check_limits(float(q)) for joint, q in zip(self.joints, positions, strict=True)
        ]
        for i, (joint, angle) in enumerate(zip(self.joints, self.set_angles(checked), strict=True)):
            what = joint.describe(checked[i])
            if len(self._sums[i]) > 1:
                link = " + ".join(self.names[j] for j in self._sums[i])
                what += f" puts its link at {math.degrees(angle):.4g} deg ({link}), which"
            joint.check_travel(angle, what)
        return tuple(checked)

    def command(
        self,
        names: Sequence[str],
        positions: Sequence[float],
        current: Sequence[float] | None = None,
    ) -> tuple[float, ...]:
        """Validate a command of joint names and positions (radians), matched by name; the
        positions of every driven joint (driven order).

        A command sets every joint of the arm, with or without the gripper's, or the gripper's
        alone; a joint it leaves out keeps its `current` position (radians, driven order:
        where the joints are heading). Without `current` every driven joint must be given.
        Raises InvalidCommandError for a names/positions length mismatch, a duplicate, unknown
        or missing joint, a NaN/inf, or a value outside the joint limits or a servo's travel:
        the whole command is refused, nothing clamped.
        """
        if len(names) != len(positions):
            raise InvalidCommandError(
                f"{len(names)} joint names but {len(positions)} positions "
                f"(names: {', '.join(names) or 'none'})"
            )
        given: dict[int, float] = {}
        for name, value in zip(names, positions, strict=True):
            index = self._index.get(name)
            if index is None:
                raise InvalidCommandError(
                    f"unknown joint '{name}' = {value} (this arm's joints: {', '.join(self.names)})"
                )
            if index in given:
                raise InvalidCommandError(f"joint '{name}' is given twice (= {value})")
            given[index] = float(value)
        gripper_only = self.gripper_name is not None and list(given) == [len(self.names) - 1]
        required = range(len(self.names) if current is None else len(self.arm_names))
        missing = [self.names[i] for i in required if i not in given]
        if missing and not (gripper_only and current is not None):
            rule = f"every joint ({', '.join(self.names)})"
            if current is not None and self.gripper_name is not None:
                rule = (
                    f"every joint of the arm ({', '.join(self.arm_names)}), with or without "
                    f"the gripper's ({self.gripper_name}), or the gripper's alone"
                )
            raise InvalidCommandError(
                f"joint '{missing[0]}' is missing: a command must set {rule}, it sets "
                f"{', '.join(names) or 'none'}"
            )
        for i, value in given.items():
            self.joints[i].check_limits(value)  # the named joint's own limits first
        full = [
            given.get(i, current[i] if current is not None else 0.0) for i in range(len(self.names))
        ]
        return self.check(full)


def slew_toward(position: float, target: float, max_step: float) -> float:
    """Move `position` toward `target` by at most `max_step` (same units); lands exactly on it."""
    delta = target - position
    if abs(delta) <= max_step:
        return target
    return position + math.copysign(max_step, delta)


_RAMP_ROUNDING = 1e-9
"""Relative slack of the ramp's last step: a remainder this much over one step is float noise
of the earlier steps (a joint 1e-9 of a step faster once), not a step of its own."""


def ramp_toward(
    position: Sequence[float], target: Sequence[float], max_steps: Sequence[float]
) -> tuple[float, ...]:
    """One step of a straight line in joint space from `position` toward `target`: every joint
    moves the same fraction of its way, the largest that keeps each within its `max_steps`
    (same units), so the slowest joint sets the pace and all arrive together (exactly on the
    target). On a straight line every point between two commands that a parallelogram servo's
    travel allows is allowed too (the link angle is linear along it); joints slewing each at
    its own speed could pass outside that travel on the way.

    >>> ramp_toward((0.0, 0.0), (1.0, -0.5), (0.25, 1.0))
    (0.25, -0.125)
    >>> ramp_toward((0.75, -0.375), (1.0, -0.5), (0.25, 1.0))
    (1.0, -0.5)
    """
    fraction = 1.0
    for p, t, step in zip(position, target, max_steps, strict=True):
        if t != p:
            fraction = min(fraction, step / abs(t - p))
    if fraction >= 1.0 - _RAMP_ROUNDING:  # what is left is the float noise of earlier steps
        return tuple(target)
    return tuple(p + fraction * (t - p) for p, t in zip(position, target, strict=True))
