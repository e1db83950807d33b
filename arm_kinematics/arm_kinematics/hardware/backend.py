"""The one small interface every servo backend implements.

A backend speaks the servo's language: a PCA9685 channel and an angle in the servo's own degrees
(0..actuation range). Joint names, radians, limits and slew live above it, in the node and in
`hardware.mapping`, so a new board only has to implement these few methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class BackendUnavailableError(RuntimeError):
    """The hardware cannot be opened; the message says what failed, where, and what to check."""


class ServoBackend(ABC):
    """Servos on one board. Methods raise OSError on a bus fault, never anything else for I/O.

    Not thread-safe on its own: the caller serializes calls (the hardware node holds a lock).
    """

    #: Short name, the value of the `hardware.backend` parameter that selects it.
    name: str = ""

    @property
    @abstractmethod
    def hardware_id(self) -> str:
        """Identifies the device on /diagnostics, e.g. 'pca9685@i2c-1:0x40'."""

    @property
    @abstractmethod
    def channels(self) -> tuple[int, ...]:
        """The channels configured with a servo calibration, in the order given."""

    @abstractmethod
    def write(self, channel: int, servo_deg: float) -> None:
        """Command the servo on `channel` to `servo_deg` (its own degrees, 0..actuation range)."""

    @abstractmethod
    def release(self, channel: int) -> None:
        """Stop the pulses on `channel` (PWM off): the servo goes limp."""

    def measured_deg(self, channel: int) -> float | None:
        """The servo's angle as measured (its own degrees), or None: no feedback, the servo is
        taken to be where it was last written. Hobby servos on a PCA9685 report nothing."""
        return None

    def check(self) -> None:
        """Raise OSError if the board is unreachable or lost its configuration (e.g. a reset)."""
        return  # optional: nothing to do for a backend without a bus

    def restore(self) -> None:
        """Re-initialise the board after a fault, before the positions are written again."""
        return  # optional: nothing to do for a backend without a bus

    def close(self) -> None:
        """Free the bus. Leaves the outputs as they are (release first to stop them)."""
        return  # optional: nothing to do for a backend without a bus

    def describe(self) -> str:
        """One line for the start-up log."""
        return self.hardware_id
