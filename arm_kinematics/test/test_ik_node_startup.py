"""The IK node answers from its first moment: a MoveArm goal sent as soon as the move_arm server
is up after start-up (well within a second of it, while the IK node computes its reachable
region) is planned and run to its end, never IK_UNAVAILABLE (the desk kit, whose region once
took 10 s of solves in a child process; now one array solve in a timer of the IK node).
"""

from __future__ import annotations

import pytest
from ros_helpers import PACKAGE_DIR, file_parameters, ros_graph, wait_for
from sensor_msgs.msg import JointState

from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

pytestmark = pytest.mark.ros

CONFIG_FILE = PACKAGE_DIR / "config" / "arm_desk_kit.yaml"


def test_a_goal_right_after_start_up_is_planned_and_run() -> None:
    params = file_parameters(CONFIG_FILE, **{"hardware.publish_rate_hz": 25.0})
    with ros_graph() as graph:
        common = {"context": graph.context, "parameter_overrides": params}
        graph.add(IkNode(**common))
        graph.add(HardwareNode(**common))
        graph.add(TrajectoryNode(**common))
        client_node = graph.node("startup_client")
        states: list[JointState] = []
        client_node.create_subscription(JointState, "joint_states", states.append, 10)
        client = ActionClient(client_node, MoveArm, "move_arm")
        wait_for(lambda: client.wait_for_server(timeout_sec=0.05), what="move_arm server")
        wait_for(lambda: states, what="joint_states")

        message = MoveArm.Goal(mode=MoveArm.Goal.LINEAR, speed=0.1)
        message.target.header.frame_id = "base_link"
        position = message.target.pose.position
        position.x, position.y, position.z = 0.15, 0.05, 0.10
        message.target.pose.orientation.w = 1.0
        future = client.send_goal_async(message)
        wait_for(future.done, what="goal response")
        handle = future.result()
        assert handle.accepted
        result_future = handle.get_result_async()
        wait_for(result_future.done, 60.0, "goal result")
        result = result_future.result().result

    assert result.status == MoveArm.Result.SUCCEEDED, result.message
    assert result.sent_setpoints == result.total_setpoints > 0
