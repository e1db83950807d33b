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
- serves calibration mode under `calibration/` (`nodes/calibration.py`).
- with the `sim` backend only, serves `simulate_fault` (std_srvs/SetBool): true makes the
  simulated bus fail (the fault state, as a real I2C error would), false heals it.

The node is the adapter: the servos' state and motion are `hardware/driver.py`'s, the command
intake `hardware/intake.py`'s, calibration mode `hardware/calibration_control.py`'s, the fault
state `hardware/faults.py`'s and the remembered pose `hardware/remembered_pose.py`'s; it calls
them under one lock (the callbacks run in parallel) and turns their answers into messages and
log lines. At start-up it commands the remembered pose (else home), and saves the pose when the
arm settles and at shutdown.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray
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
)
from arm_kinematics.hardware.calibration_control import CalibrationControl
from arm_kinematics.hardware.driver import (
    WARN_THROTTLE_S,
    MotionBlockedError,
    ServoDriver,
    degrees_words,
)
from arm_kinematics.hardware.faults import HardwareCounters
from arm_kinematics.hardware.gripper import GripperMotion, GripperReading
from arm_kinematics.hardware.intake import CommandIntake
from arm_kinematics.hardware.remembered_pose import Owner, PoseMemory, SavedPose
from arm_kinematics.nodes.calibration import CalibrationServices
from arm_kinematics.nodes.gripper_action import GripperAction
from arm_kinematics.nodes.hardware_diagnostics import servo_status
from arm_kinematics.nodes.hardware_settings import declare_hardware_node_parameters
from arm_kinematics.nodes.params import declare_arm_parameters
from arm_kinematics.nodes.runner import NodeStartupError, run_node
from arm_kinematics.rclpy_compat.action_client import destroy_actions

DIAGNOSTICS_PERIOD_S = 1.0
POSE_CHECK_PERIOD_S = 0.25
"""How often the node looks whether the arm has settled (and its pose is to be saved), s."""


class HardwareUnavailableError(NodeStartupError):
    """The configured board cannot be opened: logged in one line, the process exits with 1."""

    exit_code = 1


class HardwareNode(Node):
    """The arm's servos behind `joint_commands` / `joint_states`, on a `ServoBackend`."""

    def __init__(self, backend: ServoBackend | None = None, **kwargs: Any) -> None:
        """`backend=None` opens the backend named by `hardware.backend`; kwargs go to Node."""
        # What it was given is read from rclpy's declaration of it (nodes/params.py).
        super().__init__(
            "hardware_node", automatically_declare_parameters_from_overrides=True, **kwargs
        )
        # Times of the parts: seconds of the node clock since here (a float of seconds since
        # 1970 keeps only ~0.2 us; the motions are sampled at the stamps to the nanosecond).
        self._clock_origin_ns = self.get_clock().now().nanoseconds
        self.config = declare_arm_parameters(self)
        self.settings = declare_hardware_node_parameters(self)
        self.servo_map = ServoMap.from_config(self.config)
        self.backend = self._open(backend)
        period_s = 1.0 / self.config.hardware.publish_rate_hz
        self._names = list(self.servo_map.names)  # every driven joint, the gripper's last
        # The parts' state is shared by the command callback, the timers, the services and the
        # gripper goals (a multi-threaded executor runs them in parallel): every call into a
        # part holds the lock, which also serializes the backend. `_changed`: a tick happened.
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.driver = ServoDriver(self.servo_map, self.backend, period_s, self.get_logger())
        self.intake = CommandIntake(self.driver)
        self.calibration_control = CalibrationControl(
            self.driver,
            self.intake,
            self.settings.jog_speed_deg_s,
            self.settings.heartbeat_timeout_s,
        )
        owner = Owner(self.get_fully_qualified_name(), self.backend.hardware_id)
        path = self.settings.pose_path(owner)
        self.pose_memory = PoseMemory(path, self.servo_map, owner)
        self._joint_states_pub = self.create_publisher(JointState, "joint_states", 10)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._start_pose()
        self._create_interfaces(period_s)
        with self._lock:
            self._publish_diagnostics()
        joints = ", ".join(_servo_words(j) for j in self.servo_map.joints)
        hardware = self.config.hardware
        self.get_logger().info(
            f"backend {self.backend.describe()}; joints {joints}; home "
            f"{degrees_words([j.home for j in self.servo_map.joints])} deg; joint_states at "
            f"{hardware.publish_rate_hz:g} Hz; on shutdown: {hardware.on_shutdown}"
        )

    def _open(self, backend: ServoBackend | None) -> ServoBackend:
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
        return backend

    def _start_pose(self) -> None:
        """Command the remembered pose, else home, as it is (where the servos stand is unknown)."""
        recall = self.pose_memory.recall()
        log = self.get_logger()
        (log.warning if recall.warning else log.info)(recall.message)
        home = [joint.home for joint in self.servo_map.joints]
        with self._lock:
            self.driver.start(recall.start.positions if recall.start else home, self._clock_s())

    def _create_interfaces(self, period_s: float) -> None:
        # Ticks never overlap each other, commands are handled in arrival order, and the groups
        # run in parallel (the lock keeps the shared state consistent).
        timer_group = MutuallyExclusiveCallbackGroup()
        self.create_timer(period_s, self._tick, timer_group)
        self.create_timer(DIAGNOSTICS_PERIOD_S, self._diagnostics_tick, timer_group)
        # Saving the pose writes a file: apart from the ticks, so a slow disk never delays one.
        self.create_timer(POSE_CHECK_PERIOD_S, self._pose_tick, MutuallyExclusiveCallbackGroup())
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
        if isinstance(self.backend, SimBackend):
            self.create_service(
                SetBool,
                "simulate_fault",
                self._on_simulate_fault,
                callback_group=MutuallyExclusiveCallbackGroup(),
            )

    # --- public -------------------------------------------------------------------------------

    @property
    def positions(self) -> tuple[float, ...]:
        """Joint positions last written to the servos, radians, config order."""
        with self._lock:
            return tuple(self.driver.positions)

    @property
    def targets(self) -> tuple[float, ...]:
        """Where each joint's motion is heading, radians, config order."""
        with self._lock:
            return tuple(self.driver.targets)

    @property
    def reported_positions(self) -> tuple[float, ...]:
        """What `joint_states` reports, radians, driven order: `positions`, or where a servo
        that measures its angle is."""
        with self._lock:
            return self.driver.reported()

    @property
    def faulted(self) -> bool:
        with self._lock:
            return self.driver.fault.active

    @property
    def counters(self) -> HardwareCounters:
        return self.driver.counters

    # --- the gripper's joint, for GripperAction (a GripperDriver) ---------------------------

    def start_gripper(self, position: float) -> GripperMotion:
        """Send the gripper's joint toward a checked goal `position` (the configured unit), to
        rest within its limits; MotionBlockedError (a fault, calibration, the shutdown)."""
        gripper = self.config.gripper
        assert gripper is not None
        with self._lock:
            motion = GripperMotion.start(gripper, position, self.config.trajectory.goal_tolerance)
            self.driver.start_gripper(motion.target, self._clock_s())
            self._publish_diagnostics_if_changed()
            return motion

    def stop_gripper(self) -> None:
        """Brake the gripper's joint to rest within its limits (a cancel)."""
        with self._lock:
            self.driver.stop_gripper(self._clock_s())

    def gripper_now(self) -> GripperReading:
        with self._lock:
            driver = self.driver
            return GripperReading(
                self._clock_s(),
                driver.reported()[-1],
                driver.gripper_moving,
                driver.blocked_reason(),
            )

    def wait_for_change(self, timeout_s: float) -> None:
        """Block until the next tick (or the shutdown), at most `timeout_s`."""
        with self._changed:
            if not self.driver.closed:
                self._changed.wait(timeout_s)

    # --- calibration mode, for CalibrationServices --------------------------------------------

    @property
    def calibrating(self) -> bool:
        with self._lock:
            return self.calibration_control.active

    def enter_calibration(self) -> tuple[bool, str]:
        # Asked before the node's lock: a gripper goal takes its own lock, then the node's.
        gripper_running = self.gripper_action is not None and self.gripper_action.running
        with self._lock:
            return self.calibration_control.enter(gripper_running)

    def leave_calibration(self) -> tuple[bool, str]:
        with self._lock:
            return self.calibration_control.leave()

    def heartbeat(self) -> tuple[bool, str]:
        with self._lock:
            return self.calibration_control.heartbeat()

    def jog(self, joint: str, mode: str, relative: bool, value: float) -> tuple[float, float]:
        with self._lock:
            return self.calibration_control.jog(joint, mode, relative, value, self._clock_s())

    def release_all(self) -> tuple[bool, str]:
        with self._lock:
            return self.calibration_control.release_all()

    def calibration_snapshot(self) -> tuple[bool, str, list[tuple[float, float, bool]]]:
        with self._lock:
            return self.calibration_control.snapshot()

    # --- callbacks ----------------------------------------------------------------------------

    def _on_command(self, msg: JointState) -> None:
        try:
            with self._lock:
                sets_gripper = self.intake.take(msg.name, msg.position, self._clock_s())
                self._publish_diagnostics_if_changed()
        except InvalidCommandError as error:
            self.get_logger().warning(
                f"joint_commands rejected, no servo moved: {error}",
                throttle_duration_sec=WARN_THROTTLE_S,
            )
            return
        except MotionBlockedError as error:
            self.get_logger().warning(
                f"joint_commands refused: {error}", throttle_duration_sec=WARN_THROTTLE_S
            )
            return
        if sets_gripper and self.gripper_action is not None:
            self.gripper_action.preempt("a joint_commands message set the gripper's joint")

    def _tick(self) -> None:
        with self._lock:
            if self.driver.closed:
                return
            # Read under the lock, so steps happen in clock order; one reading is both the step
            # time and the stamp, so every joint_states sample lies on the motion exactly.
            stamp = self.get_clock().now()
            self.calibration_control.tick(self._seconds(stamp.nanoseconds))
            msg = JointState()
            msg.header.stamp = stamp.to_msg()
            msg.name = self._names
            msg.position = list(self.driver.reported())
            # Published under the lock: close() (and the destroy_node after it) then never
            # races a publish in flight.
            self._joint_states_pub.publish(msg)
            self._publish_diagnostics_if_changed()
            self._changed.notify_all()

    def _diagnostics_tick(self) -> None:
        with self._lock:
            if self.driver.closed:
                return
            self.driver.check_board()
            self._publish_diagnostics()

    def _pose_tick(self) -> None:
        with self._lock:
            if self.driver.closed or self.driver.fault.active:
                return
            pose = self.pose_memory.observe(
                self.driver.board_angles(), self.driver.positions, time.monotonic()
            )
        if pose is not None:
            self._save_pose(pose)

    def _save_pose(self, pose: SavedPose) -> None:
        try:
            self.pose_memory.save(pose)
        except OSError as error:
            self.get_logger().warning(
                f"cannot save the remembered pose to {self.pose_memory.path} ({error}); the "
                "next start-up does not know where the servos stand",
                throttle_duration_sec=60.0,
            )

    # --- the simulated fault (sim backend only) ----------------------------------------------

    def _on_simulate_fault(
        self, request: SetBool.Request, response: SetBool.Response
    ) -> SetBool.Response:
        backend = self.backend
        assert isinstance(backend, SimBackend)
        with self._lock:
            if request.data:
                backend.fail("simulated bus fault (simulate_fault)")
                self.driver.check_board()
                self._publish_diagnostics()
                response.message = "the simulated bus fails until simulate_fault false"
            else:
                backend.heal()
                self.driver.fault.retry_now(time.monotonic())  # the next tick recovers
                response.message = "the simulated bus works again: the next tick recovers"
        self.get_logger().warning(response.message)
        response.success = True
        return response

    # --- shutdown -------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop driving: remember the pose, then release the servos (PWM off) or leave them
        holding, per config."""
        if self.driver.closed:
            return
        with self._lock:
            # Callbacks check `closed`; the timers are not canceled here because the runner
            # closes while the executor may still hold ready timer tasks (rclpy then reports
            # "timer is canceled"). destroy_node removes them.
            self.calibration_control.shutdown()
            pose = self.pose_memory.pose_to_save(self.driver.board_angles(), self.driver.positions)
            self.driver.close(self.config.hardware.on_shutdown)
            self._changed.notify_all()  # a running gripper goal ends now (ABORTED)
        if pose is not None:
            self._save_pose(pose)
        if self.pose_memory.path is not None:
            self.get_logger().info(f"pose remembered in {self.pose_memory.path}")

    def destroy_node(self) -> None:
        self.close()
        destroy_actions(self)
        super().destroy_node()

    # --- diagnostics (called with the lock held) ----------------------------------------------

    def _clock_s(self) -> float:
        return self._seconds(self.get_clock().now().nanoseconds)

    def _seconds(self, nanoseconds: int) -> float:
        """Seconds of the node clock since the node began (what the parts count in)."""
        return (nanoseconds - self._clock_origin_ns) * 1e-9

    def _publish_diagnostics_if_changed(self) -> None:
        if self.driver.state_changed:
            self._publish_diagnostics()

    def _publish_diagnostics(self) -> None:
        self.driver.state_changed = False
        array = DiagnosticArray()
        array.header.stamp = self.get_clock().now().to_msg()
        name = f"{self.get_fully_qualified_name()}: servos"
        array.status = [servo_status(name, self.driver, time.monotonic())]
        self._diagnostics_pub.publish(array)


def _servo_words(joint: JointServo) -> str:
    notes = [
        *(["mirrored"] if joint.servo.sign < 0 else []),
        *(["parallelogram"] if joint.servo.linkage == "parallelogram" else []),
    ]
    return f"{joint.name}->ch{joint.servo.channel}" + (f" ({', '.join(notes)})" if notes else "")


def main() -> None:
    sys.exit(run_node(HardwareNode))
