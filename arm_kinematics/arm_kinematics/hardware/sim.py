"""The simulated backend: ideal servos that take every written angle at once.

The hardware node ramps every command at the joint's `max_velocity` before it writes, so with
this backend `joint_states` moves at the configured servo speed, exactly as the same node drives
real servos; the rest of the stack cannot tell the difference.
"""

from __future__ import annotations

from collections.abc import Sequence

from arm_kinematics.config import ServoConfig
from arm_kinematics.hardware.backend import ServoBackend


class SimBackend(ServoBackend):
    """Remembers the last angle written per channel (None: released, PWM off)."""

    name = "sim"

    def __init__(self, servos: Sequence[ServoConfig]) -> None:
        self._servos = {servo.channel: servo for servo in servos}
        self.angles: dict[int, float | None] = dict.fromkeys(self._servos)

    @property
    def hardware_id(self) -> str:
        return "sim"

    @property
    def channels(self) -> tuple[int, ...]:
        return tuple(self._servos)

    def write(self, channel: int, servo_deg: float) -> None:
        servo = self._servos[channel]
        # The same range check as adafruit_motor's Servo, so a mapping bug shows in simulation too.
        if not 0.0 <= servo_deg <= servo.actuation_range_deg:
            raise ValueError(f"servo angle {servo_deg} out of range on channel {channel}")
        self.angles[channel] = servo_deg

    def release(self, channel: int) -> None:
        self.angles[channel] = None

    def describe(self) -> str:
        return f"sim ({len(self._servos)} ideal servos, no hardware)"
