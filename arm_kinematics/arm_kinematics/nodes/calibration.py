"""The hardware node's calibration mode on the ROS graph: its parameters, services and state.

Names (relative, so the arm's namespace moves them):

| name | type | what |
| --- | --- | --- |
| `calibration/enter` | std_srvs/Trigger | enter calibration mode; refused while a motion runs |
| `calibration/leave` | std_srvs/Trigger | leave it; the servos hold, nothing is commanded |
| `calibration/jog` | JogServo | one servo toward a target, servo degrees or pulse width |
| `calibration/release_all` | std_srvs/Trigger | stop every servo's pulses at once |
| `calibration/heartbeat` | std_srvs/Trigger | the page is still there (a jog is one too) |
| `calibration/preview` | CalibrationFile | the diff the values would make in the params file |
| `calibration/save` | CalibrationFile | write it (a new file, or the file after a backup) |
| `calibration/state` | CalibrationState | latched; on every change and at 10 Hz while on |

Its parameters (`config_file`, `calibration.heartbeat_timeout_s`, `calibration.jog_speed_deg_s`)
are the hardware node's own (`hardware_settings.py`). The rules live in `hardware/calibration.py`
(jogging), `hardware/calibration_control.py` (the mode on the servos) and `calibration_file.py`
(saving); the node's calibration methods call them under its lock.
"""

from __future__ import annotations

import math
from pathlib import Path

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_srvs.srv import Trigger

from arm_kinematics.calibration_file import (
    NEW_FILE,
    OVERWRITE,
    CalibrationFileError,
    plan_edit,
    restart_command,
    write_edit,
)
from arm_kinematics.hardware.calibration import DEGREES, PULSE_US, JogError
from arm_kinematics_interfaces.msg import CalibrationState, ServoCalibration, ServoState
from arm_kinematics_interfaces.srv import CalibrationFile, JogServo

STATE_PERIOD_S = 0.1
"""calibration/state while the mode is on (and within this of any change)."""
_JOG_MODES = {JogServo.Request.DEGREES: DEGREES, JogServo.Request.PULSE_US: PULSE_US}
_FILE_MODES = {
    CalibrationFile.Request.NEW_FILE: NEW_FILE,
    CalibrationFile.Request.OVERWRITE: OVERWRITE,
}


class CalibrationServices:
    """The services and the state topic of calibration mode, on the hardware node.

    `node` is that node (`hardware_node.HardwareNode`, which builds this in its constructor, so
    it is typed as the rclpy Node it is): besides rclpy's, the services call its `config`,
    `servo_map`, `settings` and its calibration methods (`enter_calibration`,
    `leave_calibration`, `heartbeat`, `jog`, `release_all`, `calibration_snapshot`), where the
    rules and the node's lock are.
    """

    def __init__(self, node: Node) -> None:
        self._node = node
        self._settings = node.settings
        self._published_active: bool | None = None
        self._published_note = ""
        group = MutuallyExclusiveCallbackGroup()  # one request at a time, beside the ticks
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self._state = node.create_publisher(CalibrationState, "calibration/state", latched)
        services = (
            ("enter", Trigger, self._on_enter),
            ("leave", Trigger, self._on_leave),
            ("release_all", Trigger, self._on_release_all),
            ("heartbeat", Trigger, self._on_heartbeat),
            ("jog", JogServo, self._on_jog),
            ("preview", CalibrationFile, self._on_preview),
            ("save", CalibrationFile, self._on_save),
        )
        for name, kind, callback in services:
            node.create_service(kind, f"calibration/{name}", callback, callback_group=group)
        node.create_timer(STATE_PERIOD_S, self._on_timer, MutuallyExclusiveCallbackGroup())
        self._calibration = self._static_calibration()
        self.publish()

    # --- services -----------------------------------------------------------------------------

    def _on_enter(self, _request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        response.success, response.message = self._node.enter_calibration()
        self.publish()
        return response

    def _on_leave(self, _request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        response.success, response.message = self._node.leave_calibration()
        self.publish()
        return response

    def _on_release_all(
        self, _request: Trigger.Request, response: Trigger.Response
    ) -> Trigger.Response:
        response.success, response.message = self._node.release_all()
        self.publish()
        return response

    def _on_heartbeat(
        self, _request: Trigger.Request, response: Trigger.Response
    ) -> Trigger.Response:
        response.success, response.message = self._node.heartbeat()
        return response

    def _on_jog(self, request: JogServo.Request, response: JogServo.Response) -> JogServo.Response:
        mode = _JOG_MODES.get(request.mode)
        try:
            if mode is None:
                raise JogError(f"unknown mode {request.mode} (0 DEGREES, 1 PULSE_US)")
            target, pulse = self._node.jog(request.joint, mode, request.relative, request.value)
        except JogError as error:
            response.success = False
            response.message = f"jog refused: {error}"
            self._node.get_logger().warning(response.message, throttle_duration_sec=1.0)
            return response
        response.success = True
        response.target_deg, response.target_pulse_us = target, pulse
        response.message = f"{request.joint} toward {target:.2f} servo deg ({pulse:.0f} us)"
        return response

    def _on_preview(
        self, request: CalibrationFile.Request, response: CalibrationFile.Response
    ) -> CalibrationFile.Response:
        edit = self._edit(request, response)
        if edit is not None:
            response.success = True
            response.message = (
                f"{len(edit.changed)} values change; calibration/save writes {edit.target}"
                + (f" after a copy to {edit.backup}" if edit.backup else "")
                if edit.changed
                else "no value changes: the file would stay as it is"
            )
        return response

    def _on_save(
        self, request: CalibrationFile.Request, response: CalibrationFile.Response
    ) -> CalibrationFile.Response:
        edit = self._edit(request, response)
        if edit is None:
            return response
        try:
            write_edit(edit, request.expected_sha256)
        except CalibrationFileError as error:
            response.success = False
            response.message = f"not saved: {error}"
            self._node.get_logger().warning(response.message)
            return response
        response.success = True
        backup = f" (the old file is in {edit.backup})" if edit.backup else ""
        response.message = (
            f"saved {len(edit.changed)} calibrated values to {edit.target}{backup}. Parameters "
            "are read-only while the arm runs: stop it (Ctrl-C) and start it with the new "
            f"file: {response.restart_command}"
        )
        self._node.get_logger().info(response.message)
        return response

    def _edit(self, request: CalibrationFile.Request, response: CalibrationFile.Response):
        """The planned edit of a preview or save request, with the response's fields; None
        (and the response says why) when there is none."""
        response.success = False
        config_file = self._settings.config_file
        if not config_file:
            response.message = (
                "the hardware node does not know its params file (parameter config_file is "
                "empty; bringup and arm.launch.py set it): nothing can be saved"
            )
            return None
        mode = _FILE_MODES.get(request.mode)
        if mode is None:
            response.message = f"unknown mode {request.mode} (0 NEW_FILE, 1 OVERWRITE)"
            return None
        if len(request.names) != len(request.values):
            response.message = (
                f"{len(request.names)} names but {len(request.values)} values: one value per name"
            )
            return None
        if len(set(request.names)) != len(request.names):
            response.message = "a name is given twice"
            return None
        try:
            edit = plan_edit(
                Path(config_file), dict(zip(request.names, request.values, strict=True)), mode
            )
        except CalibrationFileError as error:
            response.message = str(error)
            return None
        response.path = str(edit.target)
        response.backup_path = str(edit.backup) if edit.backup else ""
        response.diff = edit.diff
        response.sha256 = edit.sha256
        node = self._node
        hardware = node.config.hardware.backend
        response.restart_command = restart_command(edit.target, node.get_namespace(), hardware)
        return edit

    # --- the state --------------------------------------------------------------------------

    def _on_timer(self) -> None:
        active, note, _ = self._node.calibration_snapshot()
        if active or active != self._published_active or note != self._published_note:
            self.publish()

    def publish(self) -> None:
        """calibration/state now."""
        node = self._node
        active, note, servos = node.calibration_snapshot()
        msg = CalibrationState(active=active, message=note)
        msg.header.stamp = node.get_clock().now().to_msg()
        msg.heartbeat_timeout_s = self._settings.heartbeat_timeout_s
        msg.jog_speed_deg_s = self._settings.jog_speed_deg_s
        msg.config_file = self._settings.config_file
        gripper = node.config.gripper
        if gripper is not None:
            msg.gripper_joint = gripper.name
            msg.gripper_open_deg = math.degrees(gripper.open_angle)
            msg.gripper_closed_deg = math.degrees(gripper.closed_angle)
        for joint, (angle, target, driven) in zip(node.servo_map.joints, servos, strict=True):
            msg.servos.append(
                ServoState(
                    joint=joint.name,
                    channel=joint.servo.channel,
                    servo_deg=float(angle),
                    pulse_us=float(joint.servo.pulse_us(angle)),
                    target_deg=float(target),
                    driven=driven,
                )
            )
        msg.calibration = self._calibration
        self._published_active, self._published_note = active, note
        self._state.publish(msg)

    def _static_calibration(self) -> list[ServoCalibration]:
        """Each servo's calibration as the node runs it, in the file's units."""
        out = []
        for joint in self._node.servo_map.joints:
            servo = joint.servo
            out.append(
                ServoCalibration(
                    joint=joint.name,
                    channel=servo.channel,
                    linkage=servo.linkage,
                    offset_deg=float(servo.offset_deg),
                    sign=int(servo.sign),
                    min_deg=float(servo.min_deg),
                    max_deg=float(servo.max_deg),
                    actuation_range_deg=float(servo.actuation_range_deg),
                    min_pulse_us=int(servo.min_pulse_us),
                    max_pulse_us=int(servo.max_pulse_us),
                    joint_min_deg=math.degrees(joint.min_position),
                    joint_max_deg=math.degrees(joint.max_position),
                    home_deg=math.degrees(joint.home),
                    max_velocity_deg_s=math.degrees(joint.max_velocity),
                    max_acceleration_deg_s2=math.degrees(joint.max_acceleration),
                )
            )
        return out
