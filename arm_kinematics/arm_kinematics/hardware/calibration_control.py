"""Calibration mode on the servos, without ROS: entering and leaving it, jogs, release, the
heartbeat, and what the calibration page is shown.

The rules of a jog (the servo's physical range, the slew) are `calibration.py`'s; this part
applies them to a `ServoDriver`: while the mode is on the driver holds a `CalibrationMode`,
every other motion is refused (`ServoDriver.blocked_reason`), and each tick slews the jogged
servos (`step`) instead of the ramps. Entering is refused during a motion: the ramps or the
gripper's profile under way, a gripper goal running, or joint_commands within MOTION_QUIET_S
(a trajectory streams one per command period). Leaving, or the heartbeat timeout, holds every
servo where it is and commands nothing. Times: monotonic seconds, `now_s` the node's clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from arm_kinematics.hardware.calibration import CalibrationMode, JogError, jog_target
from arm_kinematics.hardware.driver import WARN_THROTTLE_S, ServoDriver, degrees_words
from arm_kinematics.hardware.intake import CommandIntake

MOTION_QUIET_S = 1.0
"""Calibration mode may begin only this long after the last accepted joint_commands (s): a
stream of setpoints (the trajectory node sends one per command period) is a motion."""


def servo_degrees_words(angles: list[float]) -> str:
    return "[" + ", ".join(f"{a:.1f}" for a in angles) + "]"


class CalibrationControl:
    """Calibration mode of one driver: `jog_speed_deg_s` (servo deg/s, each servo's the lesser
    of it and its joint's max_velocity) and `heartbeat_timeout_s` (s)."""

    def __init__(
        self,
        driver: ServoDriver,
        intake: CommandIntake,
        jog_speed_deg_s: float,
        heartbeat_timeout_s: float,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._driver = driver
        self._intake = intake
        self._jog_speed_deg_s = jog_speed_deg_s
        self.heartbeat_timeout_s = heartbeat_timeout_s
        self._monotonic = monotonic
        self.note = "calibration mode off"  # what happened last, in words

    @property
    def active(self) -> bool:
        return self._driver.calibration is not None

    def _motion_problem(self, gripper_running: bool) -> str | None:
        """Why calibration may not begin now, else None."""
        problem = self._driver.blocked_reason()
        since_command = self._intake.quiet_for()
        if problem is None and self._driver.moving:
            problem = (
                "the arm is moving (its ramp toward the last joint_commands is under way); "
                "wait until it stands"
            )
        elif problem is None and gripper_running:
            problem = "a gripper goal is running; wait for its end or cancel it"
        elif problem is None and since_command < MOTION_QUIET_S:
            problem = (
                f"joint_commands came {since_command:.2f} s ago (a motion is streaming); "
                f"calibration may begin {MOTION_QUIET_S:g} s after the last one"
            )
        return problem

    def enter(self, gripper_running: bool) -> tuple[bool, str]:
        """Enter calibration mode unless a motion runs, a fault or the shutdown: (entered,
        words); a refusal is logged as a warning."""
        driver = self._driver
        if driver.calibration is not None:
            return True, "calibration mode is already on"
        problem = self._motion_problem(gripper_running)
        if problem is not None:
            words = f"calibration mode refused: {problem}"
            driver.log.warning(words, throttle_duration_sec=WARN_THROTTLE_S)
            return False, words
        angles = driver.board_angles()
        speeds = [
            min(self._jog_speed_deg_s, math.degrees(j.max_velocity))
            for j in driver.servo_map.joints
        ]
        driver.calibration = CalibrationMode.start(angles, speeds, self._monotonic())
        self.note = (
            "calibration mode on: joint_commands and gripper goals are refused, servos are "
            f"jogged in their own degrees; without a heartbeat for {self.heartbeat_timeout_s:g} "
            "s every servo holds and the mode ends"
        )
        driver.log.info(f"{self.note} (servos at {servo_degrees_words(angles)} servo deg)")
        return True, self.note

    def leave(self, reason: str = "calibration/leave") -> tuple[bool, str]:
        """Leave calibration mode: every servo holds where it is, nothing is commanded (a
        released servo stays released until the next command moves the arm)."""
        if self._driver.calibration is None:
            return True, "calibration mode is already off"
        self._end(reason)
        self._driver.log.info(self.note)
        return True, self.note

    def _end(self, reason: str) -> None:
        """The joints as the servos' angles put them (the file's calibration), the ramps
        standing there."""
        driver = self._driver
        mode = driver.calibration
        assert mode is not None
        mode.hold()
        driver.positions = list(
            driver.servo_map.joint_positions(driver.positions, dict(enumerate(mode.angles)))
        )
        driver.targets = list(driver.positions)
        for i, driven in enumerate(mode.driven):
            if not driven:
                driver.written[i] = None  # released: the next write drives it again
        driver.calibration = None
        released = [driver.servo_map.names[i] for i, d in enumerate(mode.driven) if not d]
        self.note = (
            f"calibration mode off ({reason}): the servos hold at "
            f"{servo_degrees_words(mode.angles)} servo deg, joints "
            f"{degrees_words(driver.positions)} deg by the running calibration; nothing was "
            "commanded"
            + (f"; released until the next command: {', '.join(released)}" if released else "")
        )

    def shutdown(self) -> None:
        """The node shuts down: the mode ends without a word to the servos."""
        if self._driver.calibration is not None:
            self._driver.calibration = None
            self.note = "calibration mode off: the hardware node shut down"

    def heartbeat(self) -> tuple[bool, str]:
        """The calibration page is still there: (mode on, words)."""
        mode = self._driver.calibration
        if mode is None:
            return False, self.note
        mode.beat(self._monotonic())
        return True, "calibration mode on"

    def jog(
        self, joint: str, how: str, relative: bool, value: float, now_s: float
    ) -> tuple[float, float]:
        """Send the servo of `joint` toward a jog target (`calibration.jog_target`; `how` is
        its mode); its (servo degrees, pulse width in us). JogError when nothing may move."""
        driver = self._driver
        session = driver.calibration
        if session is None:
            raise JogError("calibration mode is off: call calibration/enter first")
        if driver.fault.active:
            raise JogError(f"hardware fault ({driver.fault.last_error}); nothing moved")
        if joint not in driver.servo_map.names:
            raise JogError(
                f"unknown joint '{joint}' (this arm's servos: {', '.join(driver.servo_map.names)})"
            )
        index = driver.servo_map.names.index(joint)
        session.beat(self._monotonic())  # a jog, even a refused one, is a heartbeat
        servo = driver.servo_map.joints[index].servo
        start = session.targets[index] if session.driven[index] else session.angles[index]
        target = jog_target(servo, start, how, relative, value)
        if not session.driven[index]:  # driven again, from the angle it was released at
            error = driver.write_channel(index, session.angles[index])
            if error is not None:
                driver.enter_fault(error)
                raise JogError(f"hardware fault ({error}); nothing moved")
            session.driven[index] = True
        session.targets[index] = target
        self.step(now_s)  # the first step now, as for a command
        return target, servo.pulse_us(target)

    def release_all(self) -> tuple[bool, str]:
        """Stop the pulses of every servo at once (calibration mode only)."""
        driver = self._driver
        session = driver.calibration
        if session is None:
            return False, "calibration mode is off: release_all works in calibration mode"
        session.hold()
        try:
            for i, channel in enumerate(driver.servo_map.channels):
                driver.backend.release(channel)
                session.driven[i] = False
        except OSError as error:
            driver.counters.write_errors += 1
            driver.enter_fault(error)
            return False, f"could not release every servo: {error}"
        self.note = (
            "every servo released (PWM off): a jog drives one again from the angle it was "
            "released at"
        )
        driver.log.info(self.note)
        return True, self.note

    def snapshot(self) -> tuple[bool, str, list[tuple[float, float, bool]]]:
        """(on, what happened last, per servo: servo degrees, jog target, driven)."""
        session = self._driver.calibration
        if session is not None:
            servos = list(zip(session.angles, session.targets, session.driven, strict=True))
        else:
            servos = [(a, a, True) for a in self._driver.board_angles()]
        return session is not None, self.note, servos

    def step(self, now_s: float) -> None:
        """Every jogged servo one slew step on (node clock `now_s`); the joints as the servos'
        angles put them."""
        driver = self._driver
        session = driver.calibration
        assert session is not None
        elapsed = driver.elapsed(now_s)
        if elapsed is None:
            return
        for i, degrees in session.steps(elapsed):
            error = driver.write_channel(i, degrees)
            if error is not None:
                driver.enter_fault(error)
                break
            session.angles[i] = degrees
        driver.positions = list(
            driver.servo_map.joint_positions(driver.positions, dict(enumerate(session.angles)))
        )

    def check_heartbeat(self) -> None:
        """No heartbeat for the timeout: every servo holds and the mode ends (a warning)."""
        session = self._driver.calibration
        assert session is not None
        silent = session.silent_for(self._monotonic())
        if silent > self.heartbeat_timeout_s:
            self._end(
                f"no heartbeat for {silent:.1f} s, more than calibration.heartbeat_timeout_s "
                f"= {self.heartbeat_timeout_s:g} s: the page closed or its connection dropped"
            )
            self._driver.log.warning(self.note)

    def tick(self, now_s: float) -> None:
        """One tick of the node (node clock `now_s`): the heartbeat's check and the jogs' slew
        in calibration mode, else the ramps; while faulted, the retry when due."""
        driver = self._driver
        if driver.calibration is not None:
            self.check_heartbeat()
        if driver.fault.active:
            driver.try_recover(now_s)
        elif driver.calibration is not None:
            self.step(now_s)
        else:
            driver.step(now_s)
