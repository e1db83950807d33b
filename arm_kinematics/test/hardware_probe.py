"""The hardware node's tests through its topics, as the trajectory node, RViz and `ros2 topic`
see it: `start_node` (a HardwareNode of the default arm on a graph, on a backend the test gives)
and its `Probe` (a command publisher and recorders of joint_states, /diagnostics and /rosout);
`servokit_on` (the real ServoKit on the fake I2C bus) and `assert_pulses` (what the bus got);
for the spatial arms, `start_node_from_file` (the parameters of a params file) and
`GripperProbe` (with a GripperCommand action client).

Used by test_hardware_node.py, test_hardware_restart.py, test_hardware_node_spatial.py and
test_gripper_smooth.py.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest
from arm_2r import CONFIG
from control_msgs.action import GripperCommand
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from fake_i2c import FakeI2C, calibrated_pulse_us
from pip_only import require_servo_libraries
from rcl_interfaces.msg import Log
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_helpers import RosGraph, file_parameters, wait_for
from sensor_msgs.msg import JointState

from arm_kinematics.hardware import ServoKitBackend
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.rclpy_compat.action_client import ActionClient

ROSOUT_QOS = QoSProfile(
    depth=1000, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)


class Recorder:
    """Every message of one topic, in arrival order (thread-safe)."""

    def __init__(self, node: Node, msg_type: Any, topic: str, qos: Any = 50) -> None:
        self._lock = threading.Lock()
        self._messages: list[Any] = []
        node.create_subscription(msg_type, topic, self._on_message, qos)

    def _on_message(self, msg: Any) -> None:
        with self._lock:
            self._messages.append(msg)

    @property
    def messages(self) -> list[Any]:
        with self._lock:
            return list(self._messages)

    def wait_for_more(self, count: int, what: str) -> list[Any]:
        """Wait until `count` more messages than now arrived; all messages."""
        start = len(self.messages)
        wait_for(lambda: len(self.messages) >= start + count, what=f"{count} more {what}")
        return self.messages


class Probe:
    """What a user or the trajectory node has: a command publisher and topic recorders."""

    def __init__(self, graph: RosGraph, namespace: str = "") -> None:
        self.node = graph.node("hardware_probe", namespace=namespace)
        self.commands = self.node.create_publisher(JointState, "joint_commands", 10)
        self.joint_states = Recorder(self.node, JointState, "joint_states")
        self.diagnostics = Recorder(self.node, DiagnosticArray, "/diagnostics")
        self.rosout = Recorder(self.node, Log, "/rosout", ROSOUT_QOS)

    def wait_connected(self) -> None:
        wait_for(lambda: self.commands.get_subscription_count() > 0, what="joint_commands match")
        self.joint_states.wait_for_more(1, "joint_states")

    def send(self, names: list[str], positions: list[float]) -> None:
        msg = JointState()
        msg.name = names
        msg.position = [float(p) for p in positions]
        self.commands.publish(msg)

    def send_deg(self, **joints_deg: float) -> None:
        self.send(list(joints_deg), [math.radians(v) for v in joints_deg.values()])

    def last_status(self) -> DiagnosticStatus | None:
        for array in reversed(self.diagnostics.messages):
            for status in array.status:
                if "hardware_node" in status.name:
                    return status
        return None

    def wait_status(self, level: bytes, **values: str) -> DiagnosticStatus:
        def matching() -> DiagnosticStatus | None:
            status = self.last_status()
            if status is None or status.level != level:
                return None
            found = {kv.key: kv.value for kv in status.values}
            if any(found.get(k) != v for k, v in values.items()):
                return None
            return status

        return wait_for(matching, what=f"/diagnostics level {level!r} with {values}")


def start_node(
    graph: RosGraph, backend: Any = None, overrides: dict[str, Any] | None = None
) -> HardwareNode:
    """A HardwareNode spinning on `graph`, on `backend` (None: the parameters' backend)."""
    parameters = [Parameter(name, value=value) for name, value in (overrides or {}).items()]
    return graph.add(HardwareNode(backend, context=graph.context, parameter_overrides=parameters))


def servokit_on(bus: FakeI2C) -> ServoKitBackend:
    require_servo_libraries()
    return ServoKitBackend([j.servo for j in CONFIG.joints], CONFIG.hardware, bus)


def assert_pulses(bus: FakeI2C, positions: tuple[float, ...] | list[float]) -> None:
    for index, joint in enumerate(CONFIG.joints):
        assert bus.pulse_us(joint.servo.channel) == pytest.approx(
            calibrated_pulse_us(joint.servo, positions[index]), abs=bus.count_us
        ), joint.name


def start_node_from_file(
    graph: RosGraph, path, backend: Any = None, **overrides: Any
) -> HardwareNode:
    """A HardwareNode spinning on `graph` with the parameters of the params file `path`."""
    parameters = file_parameters(path, **overrides)
    return graph.add(HardwareNode(backend, context=graph.context, parameter_overrides=parameters))


class GripperProbe:
    """For the spatial arms: joint_commands out, joint_states and /rosout in, a GripperCommand
    client."""

    def __init__(self, graph: RosGraph) -> None:
        self.node = graph.node("spatial_probe")
        self.lock = threading.Lock()
        self.states: list[JointState] = []
        self.logs: list[Log] = []
        self.commands = self.node.create_publisher(JointState, "joint_commands", 10)
        self.node.create_subscription(JointState, "joint_states", self._on_state, 100)
        self.node.create_subscription(Log, "/rosout", self._on_log, ROSOUT_QOS)
        self.gripper = ActionClient(self.node, GripperCommand, "gripper_controller/gripper_cmd")
        wait_for(lambda: self.commands.get_subscription_count() > 0, what="joint_commands match")
        wait_for(lambda: self.states, what="joint_states")

    def _on_state(self, msg: JointState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_log(self, msg: Log) -> None:
        with self.lock:
            self.logs.append(msg)

    def latest(self) -> dict[str, float]:
        with self.lock:
            msg = self.states[-1]
        return dict(zip(msg.name, msg.position, strict=True))

    def count(self) -> int:
        with self.lock:
            return len(self.states)

    def send_deg(self, **joints_deg: float) -> None:
        msg = JointState()
        msg.name = list(joints_deg)
        msg.position = [math.radians(v) for v in joints_deg.values()]
        self.commands.publish(msg)

    def logged(self, text: str) -> list[str]:
        with self.lock:
            return [log.msg for log in self.logs if text in log.msg]

    # --- the gripper action --------------------------------------------------------------

    def send_gripper(self, position: float, max_effort: float = 0.0, feedback=None):
        """Send a goal; its client goal handle once answered (accepted or not)."""
        wait_for(lambda: self.gripper.wait_for_server(timeout_sec=0.1), what="gripper server")
        goal = GripperCommand.Goal()
        goal.command.position = float(position)
        goal.command.max_effort = float(max_effort)
        future = self.gripper.send_goal_async(goal, feedback_callback=feedback)
        wait_for(future.done, what="gripper goal response")
        return future.result()

    @staticmethod
    def result(handle, timeout: float = 30.0):
        future = handle.get_result_async()
        wait_for(future.done, timeout, "gripper goal result")
        return future.result()
