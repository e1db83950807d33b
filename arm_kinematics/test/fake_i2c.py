"""A fake I2C bus with one PCA9685 on it, for running the REAL ServoKit/PCA9685 code in tests.

It has the busio.I2C methods Adafruit's drivers call (`try_lock`, `unlock`, `writeto`,
`readfrom_into`, `writeto_then_readfrom`, `deinit`), models the PCA9685's registers closely
enough to catch driver misuse (auto-increment only when MODE1.AI is set, PRE_SCALE writable
only while MODE1.SLEEP is set, power-on defaults), records every register write with a
timestamp, decodes the LEDn_ON/OFF counts and PRE_SCALE into duty cycles, frequency and pulse
widths, and can be told to fail (OSError, as Linux's i2c-dev raises) and to heal.
"""

from __future__ import annotations

import errno
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

MODE1 = 0x00
MODE2 = 0x01
LED0_ON_L = 0x06
ALL_LED_OFF_H = 0xFD
PRE_SCALE = 0xFE
MODE1_SLEEP = 0x10
MODE1_AI = 0x20
MODE1_RESTART = 0x80
FULL = 0x1000  # bit 12 of an ON or OFF count: full ON / full OFF
REFERENCE_CLOCK_HZ = 25_000_000
CHANNELS = 16


def calibrated_pulse_us(servo: Any, joint_rad: float) -> float:
    """Pulse width (us) a ServoConfig's calibration gives for a joint angle (radians), worked out
    independently of the node and ServoKit: linear from min to max pulse over the servo range."""
    servo_deg = servo.offset_deg + servo.sign * math.degrees(joint_rad)
    span = servo.max_pulse_us - servo.min_pulse_us
    return servo.min_pulse_us + servo_deg / servo.actuation_range_deg * span


@dataclass(frozen=True)
class RegisterWrite:
    """One I2C write transaction to the PCA9685: its first register and the bytes written."""

    time_s: float  # time.perf_counter() when the write reached the bus
    register: int
    data: bytes
    registers: tuple[int, ...]  # every register the bytes landed in

    @property
    def channels(self) -> tuple[int, ...]:
        """LED channels whose ON/OFF registers this write touched."""
        touched = {(r - LED0_ON_L) // 4 for r in self.registers if LED0_ON_L <= r < LED0_ON_L + 64}
        return tuple(sorted(touched))


class FakeI2C:
    """busio.I2C stand-in holding one PCA9685 at `address`."""

    def __init__(self, address: int = 0x40) -> None:
        self.address = address
        self.writes: list[RegisterWrite] = []
        self.registers = bytearray(256)
        self._bus_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._written = threading.Condition(self._state_lock)  # notified on every write
        self._pointer = 0
        self._error: tuple[int, str] | None = None
        self.power_cycle()

    # --- test controls ----------------------------------------------------------------------

    def power_cycle(self) -> None:
        """Registers to their power-on values: asleep, every output full OFF, 200 Hz prescale."""
        with self._state_lock:
            self.registers[:] = bytes(256)
            self.registers[MODE1] = 0x11  # SLEEP | ALLCALL
            self.registers[MODE2] = 0x04  # OUTDRV
            for channel in range(CHANNELS):
                self.registers[LED0_ON_L + 4 * channel + 3] = 0x10  # LEDn_OFF_H: full OFF
            self.registers[ALL_LED_OFF_H] = 0x10
            self.registers[PRE_SCALE] = 0x1E

    def fail(self, code: int = errno.EREMOTEIO, message: str = "Remote I/O error") -> None:
        """Every transaction from now on raises OSError(code, message) until `heal`."""
        with self._state_lock:
            self._error = (code, message)

    def heal(self, *, power_cycle: bool = False) -> None:
        """The bus works again; with `power_cycle` the board also lost its registers."""
        if power_cycle:
            self.power_cycle()
        with self._state_lock:
            self._error = None

    def mark(self) -> int:
        """Position in the write log, for `writes_since`."""
        with self._state_lock:
            return len(self.writes)

    def writes_since(self, mark: int) -> list[RegisterWrite]:
        with self._state_lock:
            return list(self.writes[mark:])

    def wait_for_pwm_write(self, mark: int, timeout: float) -> RegisterWrite | None:
        """Block (without polling) until a write after `mark` touches a channel; it, or None."""
        deadline = time.monotonic() + timeout
        with self._written:
            while True:
                for write in self.writes[mark:]:
                    if write.channels:
                        return write
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._written.wait(remaining):
                    return None

    def pwm_writes_since(self, mark: int) -> list[RegisterWrite]:
        """Writes after `mark` that touched any channel's ON/OFF registers."""
        return [w for w in self.writes_since(mark) if w.channels]

    # --- decoding ---------------------------------------------------------------------------

    def led_counts(self, channel: int) -> tuple[int, int]:
        """(ON, OFF) 13-bit counts of a channel (bit 12 = full ON / full OFF)."""
        base = LED0_ON_L + 4 * channel
        with self._state_lock:
            r = self.registers
            on = r[base] | (r[base + 1] & 0x1F) << 8
            off = r[base + 2] | (r[base + 3] & 0x1F) << 8
        return on, off

    @property
    def prescale(self) -> int:
        with self._state_lock:
            return self.registers[PRE_SCALE]

    @property
    def frequency_hz(self) -> float:
        """The PWM frequency the chip runs at (datasheet: osc / (4096 * (prescale + 1)))."""
        return REFERENCE_CLOCK_HZ / (4096 * (self.prescale + 1))

    @property
    def count_us(self) -> float:
        """Duration of one of the 4096 counts of a PWM period, microseconds."""
        return 1e6 / (self.frequency_hz * 4096)

    @property
    def asleep(self) -> bool:
        with self._state_lock:
            return bool(self.registers[MODE1] & MODE1_SLEEP)

    def duty(self, channel: int) -> float:
        """Fraction of the period the output is high, 0 when off or asleep."""
        on, off = self.led_counts(channel)
        if self.asleep or off & FULL:
            return 0.0  # full OFF wins over full ON
        if on & FULL:
            return 1.0
        return ((off - on) % 4096) / 4096

    def pulse_us(self, channel: int) -> float:
        """Width of the channel's pulse in microseconds (0.0 when the output is off)."""
        return self.duty(channel) * 1e6 / self.frequency_hz

    # --- the busio.I2C methods --------------------------------------------------------------

    def try_lock(self) -> bool:
        return self._bus_lock.acquire(blocking=False)

    def unlock(self) -> None:
        if self._bus_lock.locked():
            self._bus_lock.release()

    def deinit(self) -> None:
        pass

    def _check(self, address: int) -> None:
        if self._error is not None:
            raise OSError(*self._error)
        if address != self.address:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")  # no ACK at that address

    def writeto(
        self, address: int, buffer: bytes, *, start: int = 0, end: int | None = None
    ) -> None:
        data = bytes(buffer[start:end])  # copy: adafruit_register reuses one global buffer
        with self._state_lock:
            self._check(address)
            if not data:
                return  # address probe
            self._pointer = data[0]
            landed = self._store(data[1:])
            if len(data) > 1:
                self.writes.append(RegisterWrite(time.perf_counter(), data[0], data[1:], landed))
                self._written.notify_all()

    def readfrom_into(
        self, address: int, buffer: bytearray, *, start: int = 0, end: int | None = None
    ) -> None:
        end = len(buffer) if end is None else end
        with self._state_lock:
            self._check(address)
            for i in range(start, end):
                buffer[i] = self.registers[self._pointer]
                self._advance()

    def writeto_then_readfrom(
        self,
        address: int,
        buffer_out: bytes,
        buffer_in: bytearray,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        out = bytes(buffer_out[out_start:out_end])
        with self._state_lock:
            self._check(address)
            if out:
                self._pointer = out[0]
                self._store(out[1:])
        self.readfrom_into(address, buffer_in, start=in_start, end=in_end)

    # --- the chip ---------------------------------------------------------------------------

    def _advance(self) -> None:
        if self.registers[MODE1] & MODE1_AI:
            self._pointer = (self._pointer + 1) % 256

    def _store(self, data: bytes) -> tuple[int, ...]:
        landed = []
        for value in data:
            register = self._pointer
            if register == PRE_SCALE and not self.registers[MODE1] & MODE1_SLEEP:
                pass  # datasheet: PRE_SCALE is write-protected while the oscillator runs
            elif register == MODE1 and value & MODE1_RESTART:
                self.registers[MODE1] = value & ~MODE1_RESTART  # writing 1 to RESTART clears it
            else:
                self.registers[register] = value
            landed.append(register)
            self._advance()
        return tuple(landed)
