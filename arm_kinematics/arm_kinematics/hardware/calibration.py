"""Calibration mode without ROS: jogging servos in their own degrees, the heartbeat, the slew.

In calibration mode the hardware node drives each servo directly, in servo degrees, while the
calibration that maps joints to servos (offset, sign, travel, pulse range) is being found. So a
jog is bounded by the servo's physical range, 0..`actuation_range_deg` (which is
`min_pulse_us`..`max_pulse_us`: the pulses the board may ever send it), never by the joint
limits or the servo travel of the file, and it is slewed: every servo moves toward its jog
target at its jog speed (the lesser of `calibration.jog_speed_deg_s` and its joint's
`max_velocity_deg_s`; servo degrees and joint degrees turn alike, the sign aside).

The mode ends when a client leaves it, or when no heartbeat came for the timeout (the page
closed, its connection dropped): every servo then holds where it is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arm_kinematics.config import ServoConfig
from arm_kinematics.hardware.mapping import slew_toward

DEGREES = "degrees"
PULSE_US = "pulse_us"
JOG_MODES = (DEGREES, PULSE_US)


class JogError(ValueError):
    """A jog that must not move anything; the message says why."""


def jog_target(
    servo: ServoConfig, from_deg: float, mode: str, relative: bool, value: float
) -> float:
    """The servo angle (servo degrees) a jog asks for: `value` in servo degrees or in
    microseconds of pulse width (`mode`), a step from `from_deg` or the target itself
    (`relative`). JogError beyond the servo's physical range or for a non-finite value.

    >>> servo = ServoConfig(0, 90.0, 1, 10.0, 170.0, 180.0, 500, 2500)
    >>> jog_target(servo, 90.0, DEGREES, True, -2.5), jog_target(servo, 90.0, PULSE_US, False, 600)
    (87.5, 9.0)
    >>> jog_target(servo, 179.0, DEGREES, True, 2.0)
    Traceback (most recent call last):
    ...
    arm_kinematics.hardware.calibration.JogError: channel 0: servo angle 181 deg (2511 us) is \
beyond the servo's range 0..180 deg (500..2500 us); nothing moved
    """
    if mode not in JOG_MODES:
        raise JogError(f"unknown jog mode {mode!r} (one of {', '.join(JOG_MODES)})")
    if not math.isfinite(value):
        raise JogError(f"jog value {value} is not a finite number; nothing moved")
    if mode == DEGREES:
        target = from_deg + value if relative else value
    else:
        pulse = servo.pulse_us(from_deg) + value if relative else value
        target = servo.servo_deg_at(pulse)
    # Float noise of a pulse converted to degrees at either end is that end.
    slack = 1e-9 * servo.actuation_range_deg
    if not -slack <= target <= servo.actuation_range_deg + slack:
        raise JogError(
            f"channel {servo.channel}: servo angle {target:.4g} deg "
            f"({servo.pulse_us(target):.0f} us) is beyond the servo's range "
            f"0..{servo.actuation_range_deg:g} deg ({servo.min_pulse_us}..{servo.max_pulse_us} "
            "us); nothing moved"
        )
    return min(max(target, 0.0), servo.actuation_range_deg)


@dataclass
class CalibrationMode:
    """One calibration session: per servo (driven order) the angle last written, the jog's
    target, whether it is driven (False: released, PWM off) and its jog speed (servo deg/s).
    Times are monotonic seconds."""

    angles: list[float]
    targets: list[float]
    driven: list[bool]
    speeds: tuple[float, ...]
    heartbeat_s: float

    @classmethod
    def start(
        cls, angles: Sequence[float], speeds: Sequence[float], now_s: float
    ) -> CalibrationMode:
        """Every servo driven and standing where it was last written (`angles`, servo deg)."""
        return cls(list(angles), list(angles), [True] * len(angles), tuple(speeds), now_s)

    def beat(self, now_s: float) -> None:
        """A heartbeat (a jog is one too)."""
        self.heartbeat_s = now_s

    def silent_for(self, now_s: float) -> float:
        """Seconds since the last heartbeat."""
        return now_s - self.heartbeat_s

    def hold(self) -> None:
        """Stop every jog: each servo's target is where it is."""
        self.targets = list(self.angles)

    @property
    def moving(self) -> bool:
        return any(
            d and a != t for a, t, d in zip(self.angles, self.targets, self.driven, strict=True)
        )

    def steps(self, elapsed_s: float) -> list[tuple[int, float]]:
        """The next angle of every driven servo that is not at its target, each at most its
        speed * `elapsed_s` further: (index, servo degrees) to write.

        >>> mode = CalibrationMode.start([90.0, 10.0], [30.0, 60.0], 0.0)
        >>> mode.targets = [100.0, 10.5]
        >>> mode.steps(0.1)
        [(0, 93.0), (1, 10.5)]
        """
        return [
            (i, slew_toward(angle, target, speed * elapsed_s))
            for i, (angle, target, speed, driven) in enumerate(
                zip(self.angles, self.targets, self.speeds, self.driven, strict=True)
            )
            if driven and angle != target
        ]
