"""The trajectory node's tests on a live graph: the default arm's nodes in one graph
(`make_nodes`), a MoveArm client with listeners on what the nodes publish (`Harness`), and the
messages the tests send (`goal`, `poses`, `joint_trajectory`, a jog's `twist`).

Used by test_trajectory_node*.py, test_trajectory_faults.py, test_trajectory_spatial.py,
test_trajectory_cli.py, test_calibration_mode.py, test_docs_3r_example.py, test_commander.py,
test_jog_node.py and test_servo_parts.py.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from arm_2r import CONFIG, tip_of
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import PointStamped, Pose, TwistStamped
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_helpers import RosGraph, wait_for
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import MarkerArray

from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

Result = MoveArm.Result
Goal = MoveArm.Goal


def goal(x: float, y: float, **fields) -> MoveArm.Goal:
    """A MoveArm goal to (x, y) m in the base frame, LINEAR unless `fields` give a `mode`."""
    message = Goal(**{"mode": Goal.LINEAR, **fields})
    message.target.header.frame_id = CONFIG.base_frame
    message.target.pose.position.x = x
    message.target.pose.position.y = y
    message.target.pose.orientation.w = 1.0
    return message


def poses(points) -> list[Pose]:
    """Poses at (x, y) or (x, y, z) points (m), orientation the identity."""
    result = []
    for point in points:
        pose = Pose()
        pose.position.x, pose.position.y = point[0], point[1]
        pose.position.z = point[2] if len(point) > 2 else 0.0
        pose.orientation.w = 1.0
        result.append(pose)
    return result


def joint_trajectory(names, points, at_rest=False) -> JointTrajectory:
    """A JointTrajectory of (time s, positions rad) points, as a planner sends it; `at_rest`:
    every point with velocities 0 (a cubic from rest to rest between two points)."""
    msg = JointTrajectory(joint_names=list(names))
    for seconds, positions in points:
        sec, nanosec = divmod(round(seconds * 1e9), 1_000_000_000)
        msg.points.append(
            JointTrajectoryPoint(
                positions=list(positions),
                velocities=[0.0] * len(positions) if at_rest else [],
                time_from_start=Duration(sec=sec, nanosec=nanosec),
            )
        )
    return msg


def twist(linear=(0.0, 0.0, 0.0), angular=(0.0, 0.0, 0.0), frame="base_link") -> TwistStamped:
    """A jog's TwistStamped (MoveIt Servo's delta_twist_cmds): linear m/s, angular rad/s, in
    `frame`."""
    message = TwistStamped()
    message.header.frame_id = frame
    message.twist.linear.x, message.twist.linear.y, message.twist.linear.z = linear
    message.twist.angular.x, message.twist.angular.y, message.twist.angular.z = angular
    return message


@dataclass
class Outcome:
    result: MoveArm.Result
    status: int  # action_msgs GoalStatus
    feedback: list = field(default_factory=list)
    commands: list = field(default_factory=list)  # joint_commands received during the goal
    elapsed: float = 0.0


class Harness:
    """An action client plus listeners on joint_commands, joint_states and the markers."""

    def __init__(self, graph: RosGraph, hardware: HardwareNode | None, namespace: str = "") -> None:
        self.graph = graph
        self.hardware = hardware
        self.node = graph.node("trajectory_test_client", namespace=namespace)
        self.lock = threading.Lock()
        self.commands: list[JointState] = []
        self.states: list[JointState] = []
        self.markers: list[MarkerArray] = []
        self.node.create_subscription(JointState, "joint_commands", self._on_command, 1000)
        self.node.create_subscription(JointState, "joint_states", self._on_state, 100)
        self.node.create_subscription(
            MarkerArray,
            "trajectory_markers",
            self._on_markers,
            QoSProfile(depth=5, durability=DurabilityPolicy.TRANSIENT_LOCAL),
        )
        self.client = ActionClient(self.node, MoveArm, "move_arm")
        self.clicked = self.node.create_publisher(PointStamped, "clicked_point", 10)
        wait_for(lambda: self.client.wait_for_server(timeout_sec=0.1), what="move_arm server")
        wait_for(
            lambda: self.node.count_publishers("joint_commands") > 0,
            what="joint_commands publisher matched",
        )

    def _on_command(self, msg: JointState) -> None:
        with self.lock:
            self.commands.append(msg)

    def _on_state(self, msg: JointState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_markers(self, msg: MarkerArray) -> None:
        with self.lock:
            self.markers.append(msg)

    def command_count(self) -> int:
        with self.lock:
            return len(self.commands)

    def send(self, message: MoveArm.Goal, feedback=None):
        """Send a goal and return its client goal handle once accepted."""
        future = self.client.send_goal_async(message, feedback_callback=feedback)
        wait_for(future.done, what="goal response")
        handle = future.result()
        assert handle.accepted
        return handle

    def run(self, message: MoveArm.Goal, timeout: float = 60.0) -> Outcome:
        """Send a goal, wait for its result; the commands and feedback it produced."""
        feedback: list = []
        before = self.command_count()
        started = time.monotonic()
        handle = self.send(message, feedback=lambda m: feedback.append(m.feedback))
        response = self.wait_result(handle, timeout)
        elapsed = time.monotonic() - started
        commands = self.commands_through(response.result, before)
        return Outcome(response.result, response.status, feedback, commands, elapsed)

    def commands_through(self, result: MoveArm.Result, before: int) -> list[JointState]:
        """The joint_commands after the first `before`, through the last setpoint the goal's
        `result` names (its final_joints, when it sent any). The result can overtake the last
        setpoints on their way to this listener: DDS keeps no order between an action's result
        and a topic."""
        if result.sent_setpoints > 0:
            final = tuple(result.final_joints.position)

            def last_setpoint_seen() -> bool:
                with self.lock:
                    return (
                        len(self.commands) > before and tuple(self.commands[-1].position) == final
                    )

            wait_for(last_setpoint_seen, what="the goal's last setpoint on joint_commands")
        with self.lock:
            return self.commands[before:]

    @staticmethod
    def wait_result(handle, timeout: float = 60.0):
        future = handle.get_result_async()
        wait_for(future.done, timeout, "goal result")
        return future.result()

    def latest_joints(self) -> tuple[float, ...]:
        """The positions of the latest joint_states (waiting for the first one)."""

        def latest():
            with self.lock:
                return tuple(self.states[-1].position) if self.states else None

        return wait_for(latest, what="joint_states")

    def wait_until_at(self, joints, tolerance: float) -> tuple[float, ...]:
        """Wait until joint_states are within `tolerance` (rad) of `joints`, and check that
        the arm then stays there for 3 more joint_states; the positions."""
        target = np.asarray(joints, dtype=float)

        def there(index: int | None = None):
            with self.lock:
                if not self.states:
                    return None
                state = self.states[-1 if index is None else index]
            positions = np.asarray(state.position)
            return tuple(positions) if np.abs(positions - target).max() <= tolerance else None

        reached = wait_for(there, what=f"the arm at {np.round(target, 6).tolist()}")
        with self.lock:
            seen = len(self.states)
        wait_for(lambda: len(self.states) >= seen + 3, what="3 more joint_states")
        for index in range(seen, seen + 3):
            assert there(index), "the arm moved on"
        return reached

    def wait_until_tip(self, x: float, y: float, tolerance: float) -> tuple[float, ...]:
        """Wait until the tool of joint_states is within `tolerance` (m) of (x, y), and the
        last joint_commands setpoint is the one on (x, y) (a motion's last setpoints creep up
        on its goal from rest: one may be within `tolerance` before the last); joints."""

        def sent():
            with self.lock:
                last = self.commands[-1] if self.commands else None
            return last is not None and math.dist(tip_of(last.position), (x, y)) <= 1e-9

        def there():
            joints = self.latest_joints()
            return joints if math.dist(tip_of(joints), (x, y)) <= tolerance and sent() else None

        return wait_for(there, what=f"the tool at ({x}, {y})")

    def move_to(self, x: float, y: float) -> tuple[float, ...]:
        """Bring the tool to (x, y) with a fast JOINT move; the joints once it is there."""
        outcome = self.run(goal(x, y, mode=Goal.JOINT, speed=1.0))
        assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
        return self.wait_until_at(outcome.result.final_joints.position, 1e-9)

    def assert_no_command_after(self, count: int) -> None:
        """No joint_commands since `count`, checked after the hardware published 5 more
        joint_states (the graph has been running for a while after the result)."""
        with self.lock:
            seen = len(self.states)
        wait_for(lambda: len(self.states) >= seen + 5, what="5 more joint_states")
        with self.lock:
            extra = self.commands[count:]
        assert extra == [], f"{len(extra)} joint_commands were sent"

    def latest_markers(self) -> MarkerArray:
        with self.lock:
            return self.markers[-1]


#: joint_states at 25 Hz instead of 50: every node of these tests shares one process and one
#: rclpy executor, which on 2 cores slips into a busy loop under ~300 callbacks a second
#: (rclpy 7.1, see the report); the setpoints still stream at the configured 50 Hz.
TEST_OVERRIDES = (("hardware.publish_rate_hz", 25.0),)


def make_nodes(graph: RosGraph, *, ik=True, hardware=True, overrides=(), namespace="") -> dict:
    """The nodes of one arm; a `namespace` keeps a second arm in the same process (and DDS
    domain) apart from the first."""
    params = [Parameter(name, value=value) for name, value in (*TEST_OVERRIDES, *overrides)]
    common = {"context": graph.context, "parameter_overrides": params, "namespace": namespace}
    nodes = {}
    if ik:
        nodes["ik"] = graph.add(IkNode(**common))
    if hardware:
        nodes["hardware"] = graph.add(HardwareNode(**common))
    nodes["trajectory"] = graph.add(TrajectoryNode(**common))
    return nodes
