"""hardware_node: drives the arm's servos from `joint_commands` and publishes `joint_states`.

It drives every servo of the arm (up to the PCA9685's 16 channels): the kinematic joints and
the gripper's, if the arm has one.

Topics (relative names, so a namespace moves them):
- subscribes `joint_commands` (sensor_msgs/JointState): joint names + positions, radians. A
  command sets every joint of the arm (what the trajectory node sends), with or without the
  gripper's, or the gripper's joint alone; a joint it leaves out keeps its target. The whole
  command is refused (nothing moves, a warning names the joint and value) for an unknown,
  duplicate or missing joint, a names/positions length mismatch, a NaN/inf, or a value outside
  the joint limits or a servo's travel (a parallelogram servo's with the joints before it).
  Velocity and effort fields are ignored. A command that sets the gripper's joint ends a
  running gripper goal (ABORTED): the newer command wins.
- publishes `joint_states` (sensor_msgs/JointState) at `hardware.publish_rate_hz`: every
  driven joint's URDF name and the positions last written to the servos (hobby servos have no
  feedback; a backend that measures a servo, as the sim's obstacle, reports where it is).
- publishes `/diagnostics` (diagnostic_msgs/DiagnosticArray) at 1 Hz and at once on a fault
  or recovery: backend, fault state, counters, last error.
- serves the action `gripper_controller/gripper_cmd` (control_msgs/GripperCommand) when the arm
  has a gripper (`nodes/gripper_action.py`).
- serves calibration mode under `calibration/` (`nodes/calibration.py`: enter, leave, jog,
  release_all, heartbeat, preview, save, and the latched `calibration/state`): while it is on,
  joint_commands and gripper goals are refused and each servo is jogged in its own degrees
  (`hardware/calibration.py`).
- with the `sim` backend only, serves `simulate_fault` (std_srvs/SetBool): true makes the
  simulated bus fail (the fault state below, as a real I2C error would), false heals it.

Every accepted command becomes a ramp, one step per tick (the first step at once, when the
command arrives): the arm's joints move on a straight line in joint space at the pace of the
slowest (every joint within its `max_velocity`, and every parallelogram servo within its
travel all the way), the gripper's joint on its own at its `max_velocity`.
An I2C error (OSError) puts the node in a fault state: the arm stops where it was last written,
commands are refused, retries run on the tick with exponential back-off, and a successful retry
re-initialises the board, rewrites the last positions and accepts commands again.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from dataclasses import dataclass, fields
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_srvs.srv import SetBool

from arm_kinematics.hardware import (
    BackendUnavailableError,
    InvalidCommandError,
    JointServo,
    ServoBackend,
    ServoMap,
    SimBackend,
    make_backend,
    ramp_toward,
    slew_toward,
)
from arm_kinematics.hardware.calibration import CalibrationMode, JogError, jog_target
from arm_kinematics.hardware.gripper import GripperMotion
from arm_kinematics.nodes.calibration import CalibrationServices, declare_calibration_parameters
from arm_kinematics.nodes.gripper_action import GripperAction
from arm_kinematics.nodes.params import declare_arm_parameters
from arm_kinematics.nodes.runner import NodeStartupError, run_node
from arm_kinematics.rclpy_compat.action_client import destroy_actions

DIAGNOSTICS_PERIOD_S = 1.0
RETRY_INITIAL_S = 0.1
RETRY_MAX_S = 2.0
# A tick delayed by a loaded machine moves the servos by at most this many periods' worth, so a
# stalled executor makes the arm slower, never a jump.
MAX_STEP_PERIODS = 2.0
WARN_THROTTLE_S = 1.0
MOTION_QUIET_S = 1.0
"""Calibration mode may begin only this long after the last accepted joint_commands (s): a
stream of setpoints (the trajectory node sends one per command period) is a motion."""


class HardwareUnavailableError(NodeStartupError):
    """The configured board cannot be opened: logged in one line, the process exits with 1."""

    exit_code = 1


@dataclass
class HardwareCounters:
    """What /diagnostics reports; every field counts since start-up."""

    commands_accepted: int = 0
    commands_rejected: int = 0  # invalid commands
    commands_refused: int = 0  # valid commands refused because of a hardware fault
    write_errors: int = 0  # failed bus transactions (writes, re-initialisations, checks)
    retries: int = 0
    recoveries: int = 0


class HardwareNode(Node):
    """The arm's servos behind `joint_commands` / `joint_states`, on a `ServoBackend`."""

    def __init__(self, backend: ServoBackend | None = None, **kwargs: Any) -> None:
        """`backend=None` opens the backend named by `hardware.backend`; kwargs go to Node."""
        # What it was given is read from rclpy's declaration of it (nodes/params.py).
        super().__init__(
            "hardware_node", automatically_declare_parameters_from_overrides=True, **kwargs
        )
        self.config = declare_arm_parameters(self)
        self.calibration_settings = declare_calibration_parameters(self)
        self.servo_map = ServoMap.from_config(self.config)
        if backend is None:
            try:
                backend = make_backend(self.config)
            except BackendUnavailableError as error:
                self.get_logger().fatal(str(error))
                super().destroy_node()
                raise HardwareUnavailableError() from None
        missing = sorted(set(self.servo_map.channels) - set(backend.channels))
        if missing:
            raise ValueError(f"backend {backend.hardware_id} has no servo on channels {missing}")
        self.backend = backend
        hardware = self.config.hardware
        self._period_s = 1.0 / hardware.publish_rate_hz
        self._names = list(self.servo_map.names)  # every driven joint, the gripper's last
        self._arm_count = len(self.servo_map.arm_names)

        # State shared by the command callback, the timers and the gripper goals (a
        # MultiThreadedExecutor runs them in parallel). The lock also serializes every call into
        # the backend; `_changed` wakes a gripper goal at every tick.
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        home = [joint.home for joint in self.servo_map.joints]
        self._position = list(home)  # radians, last written (what joint_states reports)
        self._target = list(home)  # radians, where each ramp is heading
        self._written: list[float | None] = [None] * len(home)  # servo degrees on the board
        self._last_step_s = self._clock_s()  # node clock: ramps match the joint_states stamps
        self._fault_since_s: float | None = None
        self._retry_at_s = 0.0
        self._retry_delay_s = RETRY_INITIAL_S
        self._last_error = ""
        self._state_changed = False
        self._closed = False
        self.counters = HardwareCounters()
        self._calibration: CalibrationMode | None = None
        self._calibration_note = "calibration mode off"  # what happened last, in words
        self._last_command_s = -math.inf  # monotonic: the last accepted joint_commands
        self._index = {name: i for i, name in enumerate(self._names)}

        self._joint_states_pub = self.create_publisher(JointState, "joint_states", 10)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)

        with self._lock:
            # No feedback: where the servos are now is unknown, so home is written as is.
            self._write(home)

        # Ticks never overlap each other, commands are handled in arrival order, and the two
        # groups run in parallel (the lock keeps the shared state consistent).
        timer_group = MutuallyExclusiveCallbackGroup()
        self.create_timer(self._period_s, self._tick, timer_group)
        self.create_timer(DIAGNOSTICS_PERIOD_S, self._diagnostics_tick, timer_group)
        self.create_subscription(
            JointState,
            "joint_commands",
            self._on_command,
            10,
            callback_group=MutuallyExclusiveCallbackGroup(),
        )
        self.gripper_action: GripperAction | None = None
        if self.config.gripper is not None:
            self.gripper_action = GripperAction(
                self, self.config.gripper, self.config.trajectory.goal_tolerance
            )
        self.calibration = CalibrationServices(self)
        if isinstance(backend, SimBackend):
            self.create_service(
                SetBool,
                "simulate_fault",
                self._on_simulate_fault,
                callback_group=MutuallyExclusiveCallbackGroup(),
            )
        with self._lock:
            self._publish_diagnostics()
        joints = ", ".join(_servo_words(j) for j in self.servo_map.joints)
        self.get_logger().info(
            f"backend {backend.describe()}; joints {joints}; home "
            f"{_degrees(home)} deg; joint_states at {hardware.publish_rate_hz:g} Hz; "
            f"on shutdown: {hardware.on_shutdown}"
        )

    # --- public -------------------------------------------------------------------------------

    @property
    def positions(self) -> tuple[float, ...]:
        """Joint positions last written to the servos, radians, config order."""
        with self._lock:
            return tuple(self._position)

    @property
    def targets(self) -> tuple[float, ...]:
        """Where each joint's ramp is heading, radians, config order."""
        with self._lock:
            return tuple(self._target)

    @property
    def reported_positions(self) -> tuple[float, ...]:
        """What `joint_states` reports, radians, driven order: `positions`, or where a servo
        that measures its angle is."""
        with self._lock:
            return self._reported()

    @property
    def faulted(self) -> bool:
        with self._lock:
            return self._fault_since_s is not None

    # --- the gripper's joint, for GripperAction --------------------------------------------------

    def start_gripper(self, position: float) -> GripperMotion | str:
        """Send the gripper's joint toward a checked goal `position` (the configured unit): the
        motion, or why nothing moves (a fault, the shutdown)."""
        gripper = self.config.gripper
        assert gripper is not None
        index = len(self._names) - 1
        with self._lock:
            problem = self._motion_problem()
            if problem is not None:
                return problem
            now = self._clock_s()
            motion = GripperMotion.start(
                gripper, position, self._position[index], now, self.config.trajectory.goal_tolerance
            )
            self._target[index] = motion.target
            self._step(now)
            self._publish_diagnostics_if_changed()
            return motion

    def hold_gripper(self) -> None:
        """Stop the gripper's joint where it is now (its last written angle)."""
        with self._lock:
            self._target[-1] = self._position[-1]

    def gripper_now(self) -> tuple[float, float, str | None]:
        """(node clock in s, the gripper joint as joint_states reports it in rad, why no goal
        can go on: a fault or the shutdown, else None)."""
        with self._lock:
            return self._clock_s(), self._reported()[-1], self._motion_problem()

    def _motion_problem(self) -> str | None:
        """Why no motion may start or go on now (called with the lock held), else None."""
        if self._closed:
            return "the hardware node is shutting down"
        if self._fault_since_s is not None:
            return f"hardware fault ({self._last_error})"
        if self._calibration is not None:
            return "calibration mode is on (calibration/leave ends it)"
        return None

    def wait_for_change(self, timeout_s: float) -> None:
        """Block until the next tick (or the shutdown), at most `timeout_s`."""
        with self._changed:
            if not self._closed:
                self._changed.wait(timeout_s)

    # --- calibration mode, for CalibrationServices -----------------------------------------

    @property
    def calibrating(self) -> bool:
        with self._lock:
            return self._calibration is not None

    def enter_calibration(self) -> tuple[bool, str]:
        """Enter calibration mode unless a motion runs (the ramps move, a gripper goal runs,
        joint_commands came within MOTION_QUIET_S), a fault or the shutdown: (entered, words)."""
        # Asked before the node's lock: a gripper goal takes its own lock, then the node's.
        gripper_running = self.gripper_action is not None and self.gripper_action.running
        with self._lock:
            if self._calibration is not None:
                return True, "calibration mode is already on"
            problem = self._motion_problem()
            since_command = time.monotonic() - self._last_command_s
            if problem is None and self._position != self._target:
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
            if problem is not None:
                words = f"calibration mode refused: {problem}"
                self.get_logger().warning(words, throttle_duration_sec=WARN_THROTTLE_S)
                return False, words
            angles = [
                a if a is not None else s
                for a, s in zip(
                    self._written, self.servo_map.servo_angles(self._position), strict=True
                )
            ]
            speeds = [
                min(self.calibration_settings.jog_speed_deg_s, math.degrees(j.max_velocity))
                for j in self.servo_map.joints
            ]
            self._calibration = CalibrationMode.start(angles, speeds, time.monotonic())
            timeout = self.calibration_settings.heartbeat_timeout_s
            self._calibration_note = (
                "calibration mode on: joint_commands and gripper goals are refused, servos are "
                f"jogged in their own degrees; without a heartbeat for {timeout:g} s every "
                "servo holds and the mode ends"
            )
            self.get_logger().info(
                f"{self._calibration_note} (servos at {_servo_degrees(angles)} servo deg)"
            )
            return True, self._calibration_note

    def leave_calibration(self, reason: str = "calibration/leave") -> tuple[bool, str]:
        """Leave calibration mode: every servo holds where it is, nothing is commanded (a
        released servo stays released until the next command moves the arm)."""
        with self._lock:
            if self._calibration is None:
                return True, "calibration mode is already off"
            self._end_calibration(reason)
            self.get_logger().info(self._calibration_note)
            return True, self._calibration_note

    def _end_calibration(self, reason: str) -> None:
        """(Called with the lock held.) The joints as the servos' angles put them (the file's
        calibration), the ramps standing there."""
        mode = self._calibration
        assert mode is not None
        mode.hold()
        self._position = list(
            self.servo_map.joint_positions(self._position, dict(enumerate(mode.angles)))
        )
        self._target = list(self._position)
        for i, driven in enumerate(mode.driven):
            if not driven:
                self._written[i] = None  # released: the next write drives it again
        self._last_step_s = self._clock_s()
        self._calibration = None
        released = [self._names[i] for i, d in enumerate(mode.driven) if not d]
        self._calibration_note = (
            f"calibration mode off ({reason}): the servos hold at "
            f"{_servo_degrees(mode.angles)} servo deg, joints {_degrees(self._position)} deg "
            "by the running calibration; nothing was commanded"
            + (f"; released until the next command: {', '.join(released)}" if released else "")
        )

    def heartbeat(self) -> tuple[bool, str]:
        """The calibration page is still there: (mode on, words)."""
        with self._lock:
            if self._calibration is None:
                return False, self._calibration_note
            self._calibration.beat(time.monotonic())
            return True, "calibration mode on"

    def jog(self, joint: str, mode: str, relative: bool, value: float) -> tuple[float, float]:
        """Send the servo of `joint` toward a jog target (hardware.calibration.jog_target);
        its (servo degrees, pulse width in us). JogError when nothing may move."""
        with self._lock:
            session = self._calibration
            if session is None:
                raise JogError("calibration mode is off: call calibration/enter first")
            if self._fault_since_s is not None:
                raise JogError(f"hardware fault ({self._last_error}); nothing moved")
            index = self._index.get(joint)
            if index is None:
                raise JogError(
                    f"unknown joint '{joint}' (this arm's servos: {', '.join(self._names)})"
                )
            session.beat(time.monotonic())  # a jog, even a refused one, is a heartbeat
            servo = self.servo_map.joints[index].servo
            start = session.targets[index] if session.driven[index] else session.angles[index]
            target = jog_target(servo, start, mode, relative, value)
            if not session.driven[index]:  # driven again, from the angle it was released at
                error = self._write_channel(index, session.angles[index])
                if error is not None:
                    self._enter_fault(error)
                    raise JogError(f"hardware fault ({error}); nothing moved")
                session.driven[index] = True
            session.targets[index] = target
            self._calibration_step(self._clock_s())  # the first step now, as for a command
            return target, servo.pulse_us(target)

    def release_all(self) -> tuple[bool, str]:
        """Stop the pulses of every servo at once (calibration mode only)."""
        with self._lock:
            session = self._calibration
            if session is None:
                return False, "calibration mode is off: release_all works in calibration mode"
            session.hold()
            try:
                for i, channel in enumerate(self.servo_map.channels):
                    self.backend.release(channel)
                    session.driven[i] = False
            except OSError as error:
                self.counters.write_errors += 1
                self._enter_fault(error)
                return False, f"could not release every servo: {error}"
            self._calibration_note = (
                "every servo released (PWM off): a jog drives one again from the angle it "
                "was released at"
            )
            self.get_logger().info(self._calibration_note)
            return True, self._calibration_note

    def calibration_snapshot(self) -> tuple[bool, str, list[tuple[float, float, bool]]]:
        """(on, what happened last, per servo: servo degrees, jog target, driven)."""
        with self._lock:
            session = self._calibration
            if session is not None:
                servos = list(zip(session.angles, session.targets, session.driven, strict=True))
            else:
                angles = [
                    a if a is not None else s
                    for a, s in zip(
                        self._written, self.servo_map.servo_angles(self._position), strict=True
                    )
                ]
                servos = [(a, a, True) for a in angles]
            return session is not None, self._calibration_note, servos

    def _calibration_step(self, now_s: float) -> None:
        """(Called with the lock held.) Every jogged servo one slew step on; the joints as
        the servos' angles put them."""
        session = self._calibration
        assert session is not None
        elapsed = self._elapsed(now_s)
        if elapsed is None:
            return
        for i, degrees in session.steps(elapsed):
            error = self._write_channel(i, degrees)
            if error is not None:
                self._enter_fault(error)
                break
            session.angles[i] = degrees
        self._position = list(
            self.servo_map.joint_positions(self._position, dict(enumerate(session.angles)))
        )

    def _check_heartbeat(self) -> None:
        """(Called with the lock held.) No heartbeat for the timeout: hold and leave."""
        session = self._calibration
        assert session is not None
        silent = session.silent_for(time.monotonic())
        timeout = self.calibration_settings.heartbeat_timeout_s
        if silent > timeout:
            self._end_calibration(
                f"no heartbeat for {silent:.1f} s, more than calibration.heartbeat_timeout_s "
                f"= {timeout:g} s: the page closed or its connection dropped"
            )
            self.get_logger().warning(self._calibration_note)

    # --- the simulated fault (sim backend only) ----------------------------------------------

    def _on_simulate_fault(
        self, request: SetBool.Request, response: SetBool.Response
    ) -> SetBool.Response:
        backend = self.backend
        assert isinstance(backend, SimBackend)
        with self._lock:
            if request.data:
                backend.fail("simulated bus fault (simulate_fault)")
                if self._fault_since_s is None:
                    try:
                        backend.check()
                    except OSError as error:
                        self._enter_fault(error)
                self._publish_diagnostics()
                response.message = "the simulated bus fails until simulate_fault false"
            else:
                backend.heal()
                self._retry_at_s = time.monotonic()  # the next tick recovers
                response.message = "the simulated bus works again: the next tick recovers"
        self.get_logger().warning(response.message)
        response.success = True
        return response

    def close(self) -> None:
        """Stop driving: release the servos (PWM off) or leave them holding, per config."""
        if self._closed:
            return
        with self._lock:
            # Callbacks check this flag; the timers are not canceled here because the runner
            # closes while the executor may still hold ready timer tasks (rclpy then reports
            # "timer is canceled"). destroy_node removes them.
            self._closed = True
            self._changed.notify_all()  # a running gripper goal ends now (ABORTED)
            if self._calibration is not None:
                self._calibration = None
                self._calibration_note = "calibration mode off: the hardware node shut down"
            if self.config.hardware.on_shutdown == "release":
                try:
                    for channel in self.servo_map.channels:
                        self.backend.release(channel)
                    self.get_logger().info("servos released (PWM off)")
                except OSError as error:
                    self.get_logger().error(f"could not release the servos: {error}")
            else:
                self.get_logger().info(
                    f"servos hold their last position {_degrees(self._position)} deg"
                )
            self.backend.close()

    def destroy_node(self) -> None:
        self.close()
        destroy_actions(self)
        super().destroy_node()

    # --- callbacks ----------------------------------------------------------------------------

    def _on_command(self, msg: JointState) -> None:
        with self._lock:
            current = tuple(self._target)  # a joint the command leaves out keeps its target
        try:
            targets = self.servo_map.command(list(msg.name), list(msg.position), current)
        except InvalidCommandError as error:
            with self._lock:
                self.counters.commands_rejected += 1
            self.get_logger().warning(
                f"joint_commands rejected, no servo moved: {error}",
                throttle_duration_sec=WARN_THROTTLE_S,
            )
            return
        with self._lock:
            if self._closed:
                return
            if self._fault_since_s is not None:
                self.counters.commands_refused += 1
                self.get_logger().warning(
                    f"joint_commands refused: hardware fault ({self._last_error}); the servos "
                    f"hold {_degrees(self._position)} deg until the bus recovers",
                    throttle_duration_sec=WARN_THROTTLE_S,
                )
                return
            if self._calibration is not None:
                self.counters.commands_refused += 1
                self.get_logger().warning(
                    "joint_commands refused: calibration mode is on (calibration/leave ends "
                    "it); no servo moved",
                    throttle_duration_sec=WARN_THROTTLE_S,
                )
                return
            self._last_command_s = time.monotonic()
            sets_gripper = self.servo_map.gripper_name in msg.name
            if sets_gripper:
                self._target = list(targets)
            else:  # what a running gripper goal set meanwhile stays
                self._target[: self._arm_count] = targets[: self._arm_count]
            self.counters.commands_accepted += 1
            # The first ramp step now rather than at the next tick: a command reaches the board
            # within a millisecond, and the step is still limited by the time since the last one.
            self._step(self._clock_s())
            self._publish_diagnostics_if_changed()
        if sets_gripper and self.gripper_action is not None:
            self.gripper_action.preempt("a joint_commands message set the gripper's joint")

    def _tick(self) -> None:
        with self._lock:
            if self._closed:
                return
            # Read under the lock, so steps happen in clock order; one reading is both the step
            # time and the stamp, so every joint_states sample honours the speed limit exactly.
            stamp = self.get_clock().now()
            if self._calibration is not None:
                self._check_heartbeat()
            if self._fault_since_s is None and self._calibration is not None:
                self._calibration_step(stamp.nanoseconds * 1e-9)
            elif self._fault_since_s is None:
                self._step(stamp.nanoseconds * 1e-9)
            elif time.monotonic() >= self._retry_at_s:
                self._try_recover()
            msg = JointState()
            msg.header.stamp = stamp.to_msg()
            msg.name = self._names
            msg.position = list(self._reported())
            # Published under the lock: close() (and the destroy_node after it) then never
            # races a publish in flight.
            self._joint_states_pub.publish(msg)
            self._publish_diagnostics_if_changed()
            self._changed.notify_all()

    def _diagnostics_tick(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._fault_since_s is None:
                try:
                    self.backend.check()  # notices a lost bus or a reset board while idle
                except OSError as error:
                    self.counters.write_errors += 1
                    self._enter_fault(error)
            self._publish_diagnostics()

    # --- motion and faults (called with the lock held) ----------------------------------------

    def _clock_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _step(self, now_s: float) -> None:
        """Move the joints toward their targets by at most max_velocity * time since the last
        step (node clock, seconds): the arm's on one straight line, the gripper's on its own."""
        elapsed = self._elapsed(now_s)
        if elapsed is None or self._position == self._target:
            return
        steps = [joint.max_velocity * elapsed for joint in self.servo_map.joints]
        n = self._arm_count
        positions = list(ramp_toward(self._position[:n], self._target[:n], steps[:n]))
        for i in range(n, len(self._names)):
            positions.append(slew_toward(self._position[i], self._target[i], steps[i]))
        self._write(positions)

    def _elapsed(self, now_s: float) -> float | None:
        """Seconds since the last step (node clock), at most MAX_STEP_PERIODS periods; None
        when no time has passed (no motion allowed)."""
        if now_s <= self._last_step_s:
            if now_s < self._last_step_s:
                self._last_step_s = now_s  # the clock was set back: restart the count from here
            return None
        elapsed = min(now_s - self._last_step_s, MAX_STEP_PERIODS * self._period_s)
        self._last_step_s = now_s
        return elapsed

    def _write(self, positions: list[float]) -> bool:
        """Write the servos of joint positions (radians, driven order) whose angle changed; on
        a bus error retry once, then enter the fault state with the positions of what the board
        holds. True when every servo took its angle."""
        angles = self.servo_map.servo_angles(positions)
        previous = list(self._written)
        for i, degrees in enumerate(angles):
            if degrees == self._written[i]:
                continue
            error = self._write_channel(i, degrees)
            if error is not None:
                # The servos not written yet keep their angles: the joints are where the
                # board's angles put them (a parallelogram joint's with the others).
                kept = {j: previous[j] for j in range(i, len(angles)) if previous[j] is not None}
                self._position = list(self.servo_map.joint_positions(positions, kept))
                self._enter_fault(error)
                return False
        self._position = list(positions)
        return True

    def _write_channel(self, i: int, degrees: float) -> OSError | None:
        """Write servo `i` (driven order) to `degrees` (servo degrees), retrying once; the
        second error, else None (and `_written[i]` is the angle)."""
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
            self.get_logger().warning(
                f"I2C write to channel {channel} failed once ({error}); the retry succeeded",
                throttle_duration_sec=WARN_THROTTLE_S,
            )
        self._written[i] = degrees
        return None

    def _reported(self) -> tuple[float, ...]:
        """The positions joint_states reports (called with the lock held)."""
        measured = {}
        for i, channel in enumerate(self.servo_map.channels):
            degrees = self.backend.measured_deg(channel)
            if degrees is not None:
                measured[i] = degrees
        if not measured:
            return tuple(self._position)
        return self.servo_map.joint_positions(self._position, measured)

    def _enter_fault(self, error: OSError) -> None:
        now = time.monotonic()
        self._last_error = str(error)
        # Stop every ramp: after the fault the arm stays where it was last written.
        self._target = list(self._position)
        if self._calibration is not None:
            self._calibration.hold()
        self._written = [None] * len(self._written)  # the board's state is unknown now
        if self._fault_since_s is None:
            self._fault_since_s = now
            self._retry_delay_s = RETRY_INITIAL_S
            self._state_changed = True
            self.get_logger().error(
                f"hardware fault on {self.backend.hardware_id}: {error}. Commands are refused "
                f"and the bus is retried with back-off; joint_states keeps the last written "
                f"positions {_degrees(self._position)} deg"
            )
        self._retry_at_s = now + self._retry_delay_s

    def _try_recover(self) -> None:
        self.counters.retries += 1
        try:
            self.backend.restore()
            if self._calibration is not None:  # jogged angles, maybe past the travel
                mode = self._calibration
                angles = [a if d else None for a, d in zip(mode.angles, mode.driven, strict=True)]
            else:
                angles = self.servo_map.servo_angles(self._position)
            for i, (joint, degrees) in enumerate(zip(self.servo_map.joints, angles, strict=True)):
                if degrees is None:
                    continue  # released in calibration mode: stays released
                self.backend.write(joint.servo.channel, degrees)
                self._written[i] = degrees
        except OSError as error:
            now = time.monotonic()
            self.counters.write_errors += 1
            self._last_error = str(error)
            self._retry_delay_s = min(2.0 * self._retry_delay_s, RETRY_MAX_S)
            self._retry_at_s = now + self._retry_delay_s
            self.get_logger().warning(
                f"hardware still faulted ({error}); next retry in {self._retry_delay_s:.1f} s",
                throttle_duration_sec=5.0,
            )
            return
        assert self._fault_since_s is not None
        duration = time.monotonic() - self._fault_since_s
        self._fault_since_s = None
        self._last_step_s = self._clock_s()
        self.counters.recoveries += 1
        self._state_changed = True
        self.get_logger().info(
            f"hardware recovered after {duration:.1f} s: servos restored at "
            f"{_degrees(self._position)} deg; commands accepted again"
        )

    # --- diagnostics (called with the lock held) ----------------------------------------------

    def _publish_diagnostics_if_changed(self) -> None:
        if self._state_changed:
            self._publish_diagnostics()

    def _publish_diagnostics(self) -> None:
        self._state_changed = False
        array = DiagnosticArray()
        array.header.stamp = self.get_clock().now().to_msg()
        array.status = [self._diagnostic_status(time.monotonic())]
        self._diagnostics_pub.publish(array)

    def _diagnostic_status(self, now: float) -> DiagnosticStatus:
        faulted = self._fault_since_s is not None
        status = DiagnosticStatus()
        status.name = f"{self.get_fully_qualified_name()}: servos"
        status.hardware_id = self.backend.hardware_id
        if faulted:
            status.level = DiagnosticStatus.ERROR
            status.message = (
                f"hardware fault for {now - self._fault_since_s:.1f} s: {self._last_error}; "
                "commands refused, retrying"
            )
        else:
            status.level = DiagnosticStatus.OK
            status.message = f"{len(self._names)} servos driven by {self.backend.name}"
        values = {
            "backend": self.backend.name,
            "fault": str(faulted).lower(),
            **{f.name: str(getattr(self.counters, f.name)) for f in fields(self.counters)},
            "last_error": self._last_error,
        }
        for name, position in zip(self._names, self._reported(), strict=True):
            values[f"{name}_position_deg"] = f"{math.degrees(position):.2f}"
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        return status


def _degrees(radians: list[float] | tuple[float, ...]) -> str:
    return "[" + ", ".join(f"{math.degrees(r):.1f}" for r in radians) + "]"


def _servo_degrees(angles: list[float]) -> str:
    return "[" + ", ".join(f"{a:.1f}" for a in angles) + "]"


def _servo_words(joint: JointServo) -> str:
    notes = [
        *(["mirrored"] if joint.servo.sign < 0 else []),
        *(["parallelogram"] if joint.servo.linkage == "parallelogram" else []),
    ]
    return f"{joint.name}->ch{joint.servo.channel}" + (f" ({', '.join(notes)})" if notes else "")


def main() -> None:
    sys.exit(run_node(HardwareNode))
