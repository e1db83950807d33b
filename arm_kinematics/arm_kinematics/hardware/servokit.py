"""The `servokit` backend: hobby servos on a PCA9685 board through Adafruit's ServoKit.

Each servo gets its calibration from the config: `actuation_range` (servo degrees spanned by
the pulse range) and `set_pulse_width_range(min_pulse_us, max_pulse_us)`. ServoKit then turns
an angle into a 12-bit PCA9685 on/off count at the configured PWM frequency.

The I2C bus is opened by number with adafruit-extended-bus (`/dev/i2c-<hardware.i2c_bus>`);
tests hand in any object with the busio.I2C methods instead (see test/fake_i2c.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from arm_kinematics.config import HardwareConfig, ServoConfig
from arm_kinematics.hardware.backend import BackendUnavailableError, ServoBackend

# adafruit_register packs every register access of every device into ONE module-level buffer,
# so two boards (or two nodes in one process) must never touch the bus at the same time.
_ADAFRUIT_REGISTER_LOCK = threading.Lock()

_MODE1_SLEEP = 0x10  # MODE1 bit 4: oscillator off, no PWM (the power-on state)


class ServoKitBackend(ServoBackend):
    """Servos on a PCA9685 through adafruit_servokit.ServoKit on a given I2C bus object."""

    name = "servokit"

    def __init__(
        self,
        servos: Sequence[ServoConfig],
        hardware: HardwareConfig,
        i2c: Any,
        *,
        owns_bus: bool = False,
    ) -> None:
        """Initialise the board on the bus object `i2c` (busio.I2C-like) and calibrate servos.

        Raises BackendUnavailableError when no PCA9685 answers at `hardware.i2c_address`.
        """
        self._hardware = hardware
        self._calibration = {servo.channel: servo for servo in servos}
        self._i2c = i2c
        self._owns_bus = owns_bus
        try:
            # Imported here: Blinka's board detection runs at import; the sim never needs it.
            from adafruit_servokit import ServoKit

            with _ADAFRUIT_REGISTER_LOCK:
                self._kit = ServoKit(
                    channels=hardware.channels,
                    i2c=i2c,
                    address=hardware.i2c_address,
                    frequency=hardware.pwm_frequency_hz,
                )
                self._servos = {}
                for channel, calibration in self._calibration.items():
                    servo = self._kit.servo[channel]
                    servo.actuation_range = calibration.actuation_range_deg
                    servo.set_pulse_width_range(calibration.min_pulse_us, calibration.max_pulse_us)
                    self._servos[channel] = servo
        except (ImportError, ValueError, OSError, RuntimeError) as error:
            # ValueError is adafruit_bus_device's "No I2C device at address: 0x40".
            raise BackendUnavailableError(self._failure_for(hardware, error)) from error

    @classmethod
    def open(cls, servos: Sequence[ServoConfig], hardware: HardwareConfig) -> ServoKitBackend:
        """Open /dev/i2c-<hardware.i2c_bus> and the board on it (BackendUnavailableError if not)."""
        try:
            from adafruit_extended_bus import ExtendedI2C

            i2c = ExtendedI2C(hardware.i2c_bus)
        except (ImportError, ValueError, OSError, RuntimeError, NotImplementedError) as error:
            # ValueError: "No device found for /dev/i2c-1" (no such bus / I2C not enabled).
            raise BackendUnavailableError(cls._failure_for(hardware, error)) from error
        try:
            return cls(servos, hardware, i2c, owns_bus=True)
        except BackendUnavailableError:
            i2c.deinit()
            raise

    @staticmethod
    def _failure_for(hardware: HardwareConfig, error: BaseException) -> str:
        bus, address = hardware.i2c_bus, hardware.i2c_address
        return (
            f"cannot open the PCA9685 servo board at address 0x{address:02x} on /dev/i2c-{bus} "
            f"(hardware.i2c_bus={bus}, hardware.i2c_address={address}): "
            f"{type(error).__name__}: {error}. Check that I2C is enabled and the board is wired "
            f"and powered ('i2cdetect -y {bus}' should list {address:02x}), "
            f"or run with hardware.backend:=sim"
        )

    @property
    def hardware_id(self) -> str:
        return f"pca9685@i2c-{self._hardware.i2c_bus}:0x{self._hardware.i2c_address:02x}"

    @property
    def channels(self) -> tuple[int, ...]:
        return tuple(self._calibration)

    def write(self, channel: int, servo_deg: float) -> None:
        with _ADAFRUIT_REGISTER_LOCK:
            self._servos[channel].angle = servo_deg

    def release(self, channel: int) -> None:
        with _ADAFRUIT_REGISTER_LOCK:
            self._servos[channel].angle = None  # duty 0: LEDn full OFF, no pulses

    def check(self) -> None:
        with _ADAFRUIT_REGISTER_LOCK:
            mode1 = self._kit._pca.mode1_reg
        if mode1 & _MODE1_SLEEP:
            # A brown-out or power cycle resets the chip to SLEEP: outputs off, prescale lost.
            raise OSError(f"PCA9685 asleep (MODE1=0x{mode1:02x}): the board was reset")

    def restore(self) -> None:
        with _ADAFRUIT_REGISTER_LOCK:
            pca = self._kit._pca
            pca.reset()
            pca.frequency = self._hardware.pwm_frequency_hz  # wakes the chip, auto-increment on

    def close(self) -> None:
        if self._owns_bus:
            self._i2c.deinit()

    def describe(self) -> str:
        hw = self._hardware
        return (
            f"servokit (PCA9685 at 0x{hw.i2c_address:02x} on /dev/i2c-{hw.i2c_bus}, "
            f"{hw.channels} channels, {hw.pwm_frequency_hz:g} Hz PWM)"
        )
