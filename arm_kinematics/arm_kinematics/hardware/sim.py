"""The simulated backend: ideal servos that take every written angle at once.

The hardware node ramps every command at the joint's `max_velocity` before it writes, so with
this backend `joint_states` moves at the configured servo speed, exactly as the same node drives
real servos; the rest of the stack cannot tell the difference.

For tests, an obstacle can be put in a servo's way (`block`): the servo then stops there, as a
gripper's fingers stop on an object, and reports where it stopped (`measured_deg`), the one
feedback this backend gives. Real hobby servos report nothing. And the simulated bus can be
made to fail (`fail`, until `heal`), as an I2C bus does: every write, check and restore raises
OSError, so the hardware node's fault handling (and the page's fault banner) can be seen
without a board.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence

from arm_kinematics.config import ServoConfig
from arm_kinematics.hardware.backend import ServoBackend


class SimBackend(ServoBackend):
    """Remembers the last angle written per channel (None: released, PWM off)."""

    name = "sim"

    def __init__(self, servos: Sequence[ServoConfig]) -> None:
        self._servos = {servo.channel: servo for servo in servos}
        self.angles: dict[int, float | None] = dict.fromkeys(self._servos)
        # channel -> (obstacle angle, +1 or -1: the side of it the servo is on)
        self._obstacles: dict[int, tuple[float, float]] = {}
        self._failure: str | None = None  # the simulated bus fault's message, while it lasts

    @property
    def hardware_id(self) -> str:
        return "sim"

    @property
    def channels(self) -> tuple[int, ...]:
        return tuple(self._servos)

    def fail(self, message: str = "simulated bus fault") -> None:
        """From now on every write, check and restore raises OSError(EREMOTEIO, message)."""
        self._failure = message

    def heal(self) -> None:
        """The simulated bus works again (the servos kept their angles)."""
        self._failure = None

    def _check_bus(self) -> None:
        if self._failure is not None:
            raise OSError(errno.EREMOTEIO, self._failure)

    def check(self) -> None:
        self._check_bus()

    def restore(self) -> None:
        self._check_bus()

    def write(self, channel: int, servo_deg: float) -> None:
        self._check_bus()
        servo = self._servos[channel]
        # The same range check as adafruit_motor's Servo, so a mapping bug shows in simulation too.
        if not 0.0 <= servo_deg <= servo.actuation_range_deg:
            raise ValueError(f"servo angle {servo_deg} out of range on channel {channel}")
        self.angles[channel] = servo_deg

    def release(self, channel: int) -> None:
        self._check_bus()
        self.angles[channel] = None

    def block(self, channel: int, servo_deg: float) -> None:
        """Put an obstacle at `servo_deg` (servo degrees) in the way of the servo on `channel`:
        from the side it is on now, it follows every written angle up to the obstacle and stays
        there for any angle beyond (a stall), until `unblock`."""
        here = self.angles.get(channel)
        side = 1.0 if here is None or here >= servo_deg else -1.0
        self._obstacles[channel] = (servo_deg, side)

    def unblock(self, channel: int) -> None:
        """Take the obstacle away: the servo goes to the angle last written."""
        self._obstacles.pop(channel, None)

    def measured_deg(self, channel: int) -> float | None:
        """Where a blocked servo is (servo degrees); None for one in free motion (it is where
        it was written, as an ideal servo)."""
        obstacle = self._obstacles.get(channel)
        written = self.angles.get(channel)
        if obstacle is None or written is None:
            return None
        at, side = obstacle
        return written if (written - at) * side >= 0.0 else at

    def describe(self) -> str:
        return f"sim ({len(self._servos)} ideal servos, no hardware)"
