"""The servos' state and motion without ROS: `ServoDriver`, what the hardware node drives.

It holds, per driven joint (the arm's in config order, the gripper's last), the position last
written (radians; what joint_states reports), the target each motion heads for and the servo
angle the board holds, and moves them one step per call of `step`:

- the arm's joints on a straight line in joint space at the pace of the slowest (every joint
  within its `max_velocity`, every parallelogram servo within its travel all the way:
  `mapping.ramp_toward`), the ramp of raw `joint_commands`. A command that is already within
  the velocity limits (a trajectory's setpoint every command period) is reached at the first
  step, so a timed stream passes through unchanged, without lag;
- the gripper's joint, for a goal (`start_gripper`) or a cancel (`stop_gripper`), on a
  `JointProfile` (ruckig): from its current velocity to rest, within its `max_velocity` and
  `max_acceleration`; a `joint_commands` message that sets it ramps it as the arm's joints.

A step is at most MAX_STEP_PERIODS periods long: a stalled executor makes the arm slower, never
a jump. A bus error (OSError) enters the fault state (`faults.FaultState`): every motion stops
where the board was last written, and `try_recover` restores the board on the tick.

Not thread-safe: the hardware node calls it with its lock held. Times: `now_s` is the node's
clock (s), the fault's times are `monotonic()` (s).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from arm_kinematics.hardware.backend import ServoBackend
from arm_kinematics.hardware.calibration import CalibrationMode
from arm_kinematics.hardware.faults import FaultState, HardwareCounters
from arm_kinematics.hardware.joint_profile import JointPoint, JointProfile
from arm_kinematics.hardware.mapping import ServoMap, ramp_toward, slew_toward

MAX_STEP_PERIODS = 2.0
"""A step covers at most this many periods' worth of motion, however late it comes."""
WARN_THROTTLE_S = 1.0


class MotionBlockedError(RuntimeError):
    """No motion may start or go on now (the shutdown, a hardware fault, calibration mode); the
    message says why."""


class Log(Protocol):
    """The logger the driver reports to (rclpy's node logger is one)."""

    def info(self, message: str, **kwargs: Any) -> Any: ...
    def warning(self, message: str, **kwargs: Any) -> Any: ...
    def error(self, message: str, **kwargs: Any) -> Any: ...


def degrees_words(radians: Sequence[float]) -> str:
    """Joint angles in degrees for a log line: `[12.0, -3.5]`."""
    return "[" + ", ".join(f"{math.degrees(r):.1f}" for r in radians) + "]"


class ServoDriver:
    """Every driven servo on one backend: positions, targets, the board's angles, the ramps,
    writes with one retry, the fault state and its recovery. See the module docstring."""

    def __init__(
        self,
        servo_map: ServoMap,
        backend: ServoBackend,
        period_s: float,
        log: Log,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.servo_map = servo_map
        self.backend = backend
        self.period_s = period_s
        self.log = log
        self.monotonic = monotonic
        count = len(servo_map.names)
        self.arm_count = len(servo_map.arm_names)
        self.gripper_index = count - 1 if servo_map.gripper_name is not None else None
        home = [joint.home for joint in servo_map.joints]
        self.positions: list[float] = list(home)  # radians, last written (joint_states)
        self.targets: list[float] = list(home)  # radians, where each motion heads
        self.written: list[float | None] = [None] * count  # servo degrees on the board
        self.last_step_s = -math.inf
        self.counters = HardwareCounters()
        self.fault = FaultState()
        self.calibration: CalibrationMode | None = None  # calibration_control.py drives it
        self.closed = False
        self.state_changed = False  # a fault began or ended: /diagnostics at once
        self._gripper: JointProfile | None = None

    # --- start-up, rules ------------------------------------------------------------------

    def start(self, positions: Sequence[float], now_s: float) -> None:
        """Write `positions` (radians, driven order, checked) as they are: where the servos
        stand is unknown (no feedback), so there is nothing to ramp from."""
        self.targets = list(positions)
        self.last_step_s = now_s
        self.write(list(positions))

    def blocked_reason(self) -> str | None:
        """Why no motion may start or go on now, else None."""
        if self.closed:
            return "the hardware node is shutting down"
        if self.fault.active:
            return f"hardware fault ({self.fault.last_error})"
        if self.calibration is not None:
            return "calibration mode is on (calibration/leave ends it)"
        return None

    def check_motion(self) -> None:
        """MotionBlockedError unless a motion may start now."""
        reason = self.blocked_reason()
        if reason is not None:
            raise MotionBlockedError(reason)

    @property
    def moving(self) -> bool:
        """Whether a ramp or the gripper's profile is under way."""
        return self.positions != self.targets or self._gripper is not None

    def set_targets(self, targets: Sequence[float], sets_gripper: bool, now_s: float) -> None:
        """A checked command (radians, driven order): its first step now (a command reaches
        the board within a millisecond; the step is still limited by the time since the last
        one). Without `sets_gripper` the gripper keeps what its goal set meanwhile."""
        if sets_gripper:
            self.targets = list(targets)
            self._gripper = None  # the newer command wins: a raw ramp from where it is
        else:
            self.targets[: self.arm_count] = targets[: self.arm_count]
        self.step(now_s)

    # --- the gripper's profile ---------------------------------------------------------------

    def start_gripper(self, target: float, now_s: float) -> float:
        """Send the gripper's joint to `target` (radians, checked) from where and how fast it
        moves now, to rest within its limits; the motion's duration (s). MotionBlockedError
        when no motion may start."""
        self.check_motion()
        assert self.gripper_index is not None
        joint = self.servo_map.joints[self.gripper_index]
        profile = JointProfile.to_target(
            self._gripper_now(now_s),
            target,
            joint.max_velocity,
            joint.max_acceleration,
            start_s=now_s,
        )
        self._gripper = profile
        self.targets[self.gripper_index] = target
        self.step(now_s)
        return profile.duration_s

    def stop_gripper(self, now_s: float) -> None:
        """Brake the gripper's joint to rest within its acceleration limit (a cancel); a joint
        ramping from a raw command, or one that would brake past its limits, stops at once."""
        i = self.gripper_index
        assert i is not None
        if self._gripper is None:
            self.targets[i] = self.positions[i]
            return
        joint = self.servo_map.joints[i]
        brake = JointProfile.stop(
            self._gripper_now(now_s), joint.max_velocity, joint.max_acceleration, start_s=now_s
        )
        if not joint.min_position <= brake.end_position <= joint.max_position:
            self._gripper = None
            self.targets[i] = self.positions[i]
            return
        self._gripper = brake
        self.targets[i] = brake.end_position
        self.step(now_s)

    @property
    def gripper_moving(self) -> bool:
        i = self.gripper_index
        return i is not None and (self._gripper is not None or self.positions[i] != self.targets[i])

    def _gripper_now(self, now_s: float) -> JointPoint:
        """The gripper joint's position and velocity at `now_s`: on its profile, else where it
        was written, ramping at its max_velocity toward its target or standing."""
        if self._gripper is not None:
            return self._gripper.at(now_s)
        i = self.gripper_index
        assert i is not None
        delta = self.targets[i] - self.positions[i]
        speed = 0.0 if delta == 0.0 else math.copysign(self.servo_map.joints[i].max_velocity, delta)
        return JointPoint(self.positions[i], speed)

    # --- steps and writes ------------------------------------------------------------------

    def step(self, now_s: float) -> None:
        """Move every joint toward its target by what the time since the last step allows
        (node clock, s): the arm's on one straight line, the gripper's on its profile or ramp."""
        elapsed = self.elapsed(now_s)
        if elapsed is None or not self.moving:
            return
        steps = [joint.max_velocity * elapsed for joint in self.servo_map.joints]
        n = self.arm_count
        positions = list(ramp_toward(self.positions[:n], self.targets[:n], steps[:n]))
        if self.gripper_index is not None:
            positions.append(self._gripper_step(now_s, steps[-1]))
        self.write(positions)

    def _gripper_step(self, now_s: float, max_step: float) -> float:
        i = self.gripper_index
        assert i is not None
        if self._gripper is None:
            return slew_toward(self.positions[i], self.targets[i], max_step)
        position = self._gripper.at(now_s).position
        if self._gripper.finished(now_s):
            self._gripper = None
        return position

    def elapsed(self, now_s: float) -> float | None:
        """Seconds since the last step (node clock), at most MAX_STEP_PERIODS periods (the
        gripper's profile starts later by what is cut); None when no time has passed."""
        if now_s <= self.last_step_s:
            if now_s < self.last_step_s:
                self.last_step_s = now_s  # the clock was set back: restart the count from here
            return None
        real = now_s - self.last_step_s
        elapsed = min(real, MAX_STEP_PERIODS * self.period_s)
        if real > elapsed and self._gripper is not None:
            self._gripper = self._gripper.delayed(real - elapsed)
        self.last_step_s = now_s
        return elapsed

    def write(self, positions: list[float]) -> bool:
        """Write the servos of joint positions (radians, driven order) whose angle changed; on
        a bus error retry once, then enter the fault state with the positions of what the board
        holds. True when every servo took its angle."""
        angles = self.servo_map.servo_angles(positions)
        previous = list(self.written)
        for i, degrees in enumerate(angles):
            if degrees == self.written[i]:
                continue
            error = self.write_channel(i, degrees)
            if error is not None:
                # The servos not written yet keep their angles: the joints are where the
                # board's angles put them (a parallelogram joint's with the others).
                kept = {j: previous[j] for j in range(i, len(angles)) if previous[j] is not None}
                self.positions = list(self.servo_map.joint_positions(positions, kept))
                self.enter_fault(error)
                return False
        self.positions = list(positions)
        return True

    def write_channel(self, i: int, degrees: float) -> OSError | None:
        """Write servo `i` (driven order) to `degrees` (servo degrees), retrying once; the
        second error, else None (and `written[i]` is the angle)."""
        channel = self.servo_map.joints[i].servo.channel
        try:
            self.backend.write(channel, degrees)
        except OSError as error:
            # One immediate retry: a single glitch on a noisy bus must not stop the arm.
            self.counters.write_errors += 1
            self.counters.retries += 1
            try:
                self.backend.write(channel, degrees)
            except OSError as second_error:
                self.counters.write_errors += 1
                return second_error
            self.log.warning(
                f"I2C write to channel {channel} failed once ({error}); the retry succeeded",
                throttle_duration_sec=WARN_THROTTLE_S,
            )
        self.written[i] = degrees
        return None

    def reported(self) -> tuple[float, ...]:
        """The positions joint_states reports: those written, or where a servo that measures
        its angle is (and the parallelogram joints after it)."""
        measured = {}
        for i, channel in enumerate(self.servo_map.channels):
            degrees = self.backend.measured_deg(channel)
            if degrees is not None:
                measured[i] = degrees
        if not measured:
            return tuple(self.positions)
        return self.servo_map.joint_positions(self.positions, measured)

    def board_angles(self) -> list[float]:
        """The servo angle (servo degrees) each servo was last sent: the board's where known
        (a jogged or released servo's too), else that of its joint's position."""
        computed = self.servo_map.servo_angles(self.positions)
        return [w if w is not None else c for w, c in zip(self.written, computed, strict=True)]

    # --- faults ----------------------------------------------------------------------------

    def check_board(self) -> None:
        """Ask the board whether it is still there and configured (notices a lost bus or a
        reset board while idle); a fault if not."""
        if self.fault.active:
            return
        try:
            self.backend.check()
        except OSError as error:
            self.counters.write_errors += 1
            self.enter_fault(error)

    def enter_fault(self, error: OSError) -> None:
        """A bus error: every motion stops where the board was last written; retries follow."""
        began = self.fault.enter(error, self.monotonic())
        self.targets = list(self.positions)
        self._gripper = None
        if self.calibration is not None:
            self.calibration.hold()
        self.written = [None] * len(self.written)  # the board's state is unknown now
        if began:
            self.state_changed = True
            self.log.error(
                f"hardware fault on {self.backend.hardware_id}: {error}. Commands are refused "
                f"and the bus is retried with back-off; joint_states keeps the last written "
                f"positions {degrees_words(self.positions)} deg"
            )

    def try_recover(self, now_s: float) -> None:
        """When a retry is due: re-initialise the board and write the last angles again (a
        servo released in calibration mode stays released); the fault ends on success."""
        if not self.fault.due(self.monotonic()):
            return
        self.counters.retries += 1
        try:
            self.backend.restore()
            if self.calibration is not None:  # jogged angles, maybe past the travel
                mode = self.calibration
                angles = [a if d else None for a, d in zip(mode.angles, mode.driven, strict=True)]
            else:
                angles = list(self.servo_map.servo_angles(self.positions))
            for i, (joint, degrees) in enumerate(zip(self.servo_map.joints, angles, strict=True)):
                if degrees is not None:
                    self.backend.write(joint.servo.channel, degrees)
                    self.written[i] = degrees
        except OSError as error:
            self.counters.write_errors += 1
            delay = self.fault.retry_failed(error, self.monotonic())
            self.log.warning(
                f"hardware still faulted ({error}); next retry in {delay:.1f} s",
                throttle_duration_sec=5.0,
            )
            return
        duration = self.fault.clear(self.monotonic())
        self.last_step_s = now_s
        self.counters.recoveries += 1
        self.state_changed = True
        self.log.info(
            f"hardware recovered after {duration:.1f} s: servos restored at "
            f"{degrees_words(self.positions)} deg; commands accepted again"
        )

    # --- shutdown --------------------------------------------------------------------------

    def close(self, on_shutdown: str) -> None:
        """Stop driving: release the servos (PWM off, `on_shutdown` "release") or leave them
        holding their last pulse ("hold"); free the bus."""
        self.closed = True
        self._gripper = None
        if on_shutdown == "release":
            try:
                for channel in self.servo_map.channels:
                    self.backend.release(channel)
                self.log.info("servos released (PWM off)")
            except OSError as error:
                self.log.error(f"could not release the servos: {error}")
        else:
            self.log.info(f"servos hold their last position {degrees_words(self.positions)} deg")
        self.backend.close()
