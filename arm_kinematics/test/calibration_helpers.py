"""Shared by the calibration tests: a planar arm with a gripper as a commented params file (the
IK and trajectory nodes serve planar arms), and clients of the calibration services."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import Log
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_helpers import DEFAULT_CONFIG, RosGraph, wait_for
from std_srvs.srv import Trigger

from arm_kinematics_interfaces.msg import CalibrationState
from arm_kinematics_interfaces.srv import CalibrationFile, JogServo

LATCHED = QoSProfile(
    depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)
ROSOUT_QOS = QoSProfile(
    depth=1000, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)

_GRIPPER = """\
    gripper:
      joint: gripper             # its joints.gripper section below; "" = no gripper
      position_unit: opening_m   # goals in metres between the fingers
      open_deg: 60.0             # gripper joint angle fully open
      closed_deg: 0.0            # ... fingers touching
      open_m: 0.04               # opening at open_deg (linear in between)
      closed_m: 0.0              # ... at closed_deg
      reach_timeout_s: 1.0       # not reached this long after its ramp: stalled

"""
_GRIPPER_JOINT = """\
      gripper:
        # A claw on a micro servo; its horn's end stops keep it within servo 40..110 degrees.
        min_deg: 0.0
        max_deg: 60.0
        max_velocity_deg_s: 120.0
        home_deg: 60.0             # open: nothing is squeezed at start-up
        servo:
          channel: 2
          offset_deg: 40.0         # servo angle with the fingers touching
          sign: 1
          min_deg: 40.0
          max_deg: 110.0
          actuation_range_deg: 180.0
          min_pulse_us: 500
          max_pulse_us: 2500
"""


def planar_gripper_text() -> str:
    """config/arm.yaml (its comments and layout) with a gripper on channel 2."""
    text = DEFAULT_CONFIG.read_text()
    joints = "    joints:\n"
    hardware = "\n    hardware:\n"
    assert text.count(joints) == 1
    assert text.count(hardware) == 1
    text = text.replace(joints, _GRIPPER + joints)
    return text.replace(hardware, "\n" + _GRIPPER_JOINT + hardware)


def write_planar_gripper(folder: Path, name: str = "arm_gripper.yaml") -> Path:
    path = folder / name
    path.write_text(planar_gripper_text())
    return path


class CalibrationClient:
    """The calibration services and state, as the page or a script uses them."""

    def __init__(self, graph: RosGraph, namespace: str = "") -> None:
        self.graph = graph
        self.node = graph.node("calibration_client", namespace=namespace)
        self.lock = threading.Lock()
        self.states: list[CalibrationState] = []
        self.logs: list[Log] = []
        self.node.create_subscription(
            CalibrationState, "calibration/state", self._on_state, LATCHED
        )
        self.node.create_subscription(Log, "/rosout", self._on_log, ROSOUT_QOS)
        self.clients = {
            name: self.node.create_client(kind, f"calibration/{name}")
            for name, kind in (
                ("enter", Trigger),
                ("leave", Trigger),
                ("release_all", Trigger),
                ("heartbeat", Trigger),
                ("jog", JogServo),
                ("preview", CalibrationFile),
                ("save", CalibrationFile),
            )
        }

    def _on_state(self, msg: CalibrationState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_log(self, msg: Log) -> None:
        with self.lock:
            self.logs.append(msg)

    def call(self, name: str, **fields: Any) -> Any:
        client = self.clients[name]
        return self.graph.call(client, client.srv_type.Request(**fields))

    def jog(self, joint: str, value: float, *, relative: bool = True, pulse: bool = False):
        mode = JogServo.Request.PULSE_US if pulse else JogServo.Request.DEGREES
        return self.call("jog", joint=joint, mode=mode, relative=relative, value=float(value))

    def latest(self) -> CalibrationState | None:
        with self.lock:
            return self.states[-1] if self.states else None

    def wait_active(self, active: bool) -> CalibrationState:
        def matching() -> CalibrationState | None:
            state = self.latest()
            return state if state is not None and state.active == active else None

        return wait_for(matching, what=f"calibration/state active={active}")

    def servo(self, joint: str) -> Any:
        state = self.latest()
        assert state is not None
        return next(s for s in state.servos if s.joint == joint)

    def log_mark(self) -> int:
        with self.lock:
            return len(self.logs)

    def wait_log(self, text: str, since: int = 0, node: str | None = None) -> Log:
        def found() -> Log | None:
            with self.lock:
                for log in self.logs[since:]:
                    if text in log.msg and (node is None or log.name.endswith(node)):
                        return log
            return None

        return wait_for(found, what=f"a log line with {text!r}")
