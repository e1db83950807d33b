"""Calibration mode against the real nodes (IkNode, HardwareNode on sim, TrajectoryNode and
web_bridge in one process), through rclpy clients and a plain WebSocket client:

- entering is refused while a motion runs (a ramp, a streaming goal), with the reason;
- while it is on every motion input is refused with a reason that says so: MoveArm (result
  CALIBRATING, goal status ABORTED), FollowJointTrajectory (ABORTED, INVALID_GOAL and the
  reason), joint_trajectory and clicked_point (one WARN line each),
  joint_commands and gripper goals in the hardware node; plan_cartesian_path still plans;
- leaving it commands nothing; motions are accepted again;
- a page that goes silent (its WebSocket dropped) leaves every servo where it is, and the mode
  ends after the heartbeat timeout.

Log lines are read from /rosout. Every wait is for a condition.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from calibration_helpers import CalibrationClient, write_planar_gripper
from control_msgs.action import FollowJointTrajectory, GripperCommand
from geometry_msgs.msg import PointStamped, Pose
from ros_helpers import RosGraph, file_parameters, ros_graph, wait_for
from sensor_msgs.msg import JointState
from trajectory_harness import Harness, goal, joint_trajectory
from trajectory_msgs.msg import JointTrajectory

from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.nodes.web_bridge import WebBridge
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import PlanCartesianPath

pytestmark = pytest.mark.ros

Result = MoveArm.Result
HEARTBEAT_TIMEOUT_S = 1.5
JOG_SPEED = 20.0  # servo deg/s: a long jog is still under way when the page goes


class ArmMoves(Harness):
    """The MoveArm harness on an arm with a gripper: joint_states kept for the arm's joints
    (the harness compares them with the arm's joint vectors)."""

    def _on_state(self, msg: JointState) -> None:
        arm_joints = self.hardware.servo_map.arm_names
        positions = dict(zip(msg.name, msg.position, strict=True))
        trimmed = JointState(header=msg.header, name=list(arm_joints))
        trimmed.position = [positions[name] for name in arm_joints]
        super()._on_state(trimmed)


class Arm:
    """The nodes, a MoveArm harness, the calibration client and the arm's other inputs."""

    def __init__(self, graph: RosGraph, path: Path) -> None:
        overrides = {
            "hardware.publish_rate_hz": 25.0,
            "config_file": str(path),
            "calibration.heartbeat_timeout_s": HEARTBEAT_TIMEOUT_S,
            "calibration.jog_speed_deg_s": JOG_SPEED,
            "port": 0,
        }
        params = file_parameters(path, **overrides)
        common = {"context": graph.context, "parameter_overrides": params}
        self.config = ArmConfig.from_file(path)
        self.graph = graph
        graph.add(IkNode(**common))
        self.hardware = graph.add(HardwareNode(**common))
        self.trajectory = graph.add(TrajectoryNode(**common))
        self.bridge = graph.add(WebBridge(**common))
        self.moves = ArmMoves(graph, self.hardware)
        self.calibration = CalibrationClient(graph)
        node = self.moves.node
        self.commands = node.create_publisher(JointState, "joint_commands", 10)
        self.planner = node.create_publisher(JointTrajectory, "joint_trajectory", 10)
        self.clicked = node.create_publisher(PointStamped, "clicked_point", 10)
        self.plan = node.create_client(PlanCartesianPath, "plan_cartesian_path")
        self.gripper = ActionClient(node, GripperCommand, "gripper_controller/gripper_cmd")
        self.follow = ActionClient(
            node, FollowJointTrajectory, "arm_controller/follow_joint_trajectory"
        )
        for topic in ("joint_commands", "joint_trajectory", "clicked_point"):
            wait_for(lambda t=topic: node.count_subscribers(t) > 0, what=f"{topic} matched")
        self.calibration.wait_active(False)

    def enter(self) -> None:
        mark = self.calibration.log_mark()
        # Refused for a second after the last joint_commands (the test's own moves).
        wait_for(lambda: self.calibration.call("enter").success, what="calibration mode on")
        # The trajectory node has seen it (it reads the latched calibration/state).
        self.calibration.wait_log("calibration mode on", mark, node="trajectory_node")

    def leave(self) -> None:
        mark = self.calibration.log_mark()
        assert self.calibration.call("leave").success
        self.calibration.wait_log("motions are accepted again", mark, node="trajectory_node")

    def servo_angles(self) -> list[float | None]:
        """What the simulated board holds, servo degrees per driven joint."""
        backend = self.hardware.backend
        return [backend.angles[c] for c in self.hardware.servo_map.channels]


@pytest.fixture(scope="module")
def arm(tmp_path_factory) -> Iterator[Arm]:
    path = write_planar_gripper(tmp_path_factory.mktemp("calibration_mode"))
    with ros_graph() as graph:
        yield Arm(graph, path)


def test_entering_is_refused_while_a_motion_runs(arm: Arm) -> None:
    moves, calibration = arm.moves, arm.calibration
    moves.move_to(0.16, 0.0)
    # A goal that streams for a while: entering is refused, saying why.
    handle = moves.send(goal(0.11, 0.09, speed=0.02))
    before = moves.command_count()
    wait_for(lambda: moves.command_count() > before + 5, what="the goal streaming")
    refused = calibration.call("enter")
    assert not refused.success
    assert "calibration mode refused" in refused.message
    assert "moving" in refused.message or "joint_commands came" in refused.message
    assert not calibration.latest().active
    result = moves.wait_result(handle).result
    assert result.status == Result.SUCCEEDED, result.message  # undisturbed
    # A bare ramp (a joint_commands message) is a motion too.
    shoulder, elbow = arm.config.joint_names
    arm.commands.publish(JointState(name=[shoulder, elbow], position=[-1.2, 1.2]))
    wait_for(lambda: arm.hardware.targets[0] == pytest.approx(-1.2), what="the ramp begun")
    refused = calibration.call("enter")
    assert not refused.success
    assert "the arm is moving" in refused.message
    # Once it stands (and a second passed since the last command) it may begin.
    wait_for(lambda: calibration.call("enter").success, what="calibration mode entered")
    calibration.wait_active(True)
    arm.leave()


def test_every_motion_input_is_refused_while_calibrating_and_leaving_moves_nothing(
    arm: Arm,
) -> None:
    moves, calibration = arm.moves, arm.calibration
    moves.move_to(0.15, 0.02)
    arm.enter()
    state = calibration.latest()
    assert state.active
    assert "calibration mode on" in state.message
    angles = arm.servo_angles()
    # MoveArm: accepted, then ABORTED with CALIBRATING and the reason.
    outcome = moves.run(goal(0.12, 0.05))
    assert outcome.result.status == Result.CALIBRATING
    assert outcome.status == GoalStatus.STATUS_ABORTED
    assert "calibration mode" in outcome.result.message
    assert outcome.commands == []
    # joint_trajectory and clicked_point: one WARN line each, nothing sent.
    mark = calibration.log_mark()
    commands = moves.command_count()
    start = np.array(moves.latest_joints())
    arm.planner.publish(joint_trajectory(arm.config.joint_names, [(2.0, start + 0.2)]))
    line = calibration.wait_log("joint trajectory CALIBRATING", mark, node="trajectory_node")
    assert line.level == 30  # WARN
    assert "calibration mode" in line.msg
    point = PointStamped()
    point.header.frame_id = arm.config.base_frame
    point.point.x, point.point.y = 0.12, 0.06
    arm.clicked.publish(point)
    line = calibration.wait_log("clicked point move CALIBRATING", mark, node="trajectory_node")
    assert line.level == 30
    # MoveIt's FollowJointTrajectory: ABORTED, INVALID_GOAL with the reason.
    wait_for(lambda: arm.follow.wait_for_server(timeout_sec=0.1), what="follow server")
    follow = FollowJointTrajectory.Goal()
    follow.trajectory = joint_trajectory(arm.config.joint_names, [(2.0, start + 0.2)])
    accepted = arm.follow.send_goal_async(follow)
    wait_for(accepted.done, what="follow goal response")
    handle = accepted.result()
    assert handle.accepted  # as the controller: accepted, then checked
    ended = handle.get_result_async()
    wait_for(ended.done, what="follow goal result")
    assert ended.result().status == GoalStatus.STATUS_ABORTED
    result = ended.result().result
    assert result.error_code == FollowJointTrajectory.Result.INVALID_GOAL
    assert "calibration mode" in result.error_string
    # joint_commands straight to the hardware node: refused there.
    arm.commands.publish(JointState(name=list(arm.config.joint_names), position=[0.1, 0.2]))
    line = calibration.wait_log("joint_commands refused: calibration mode is on", mark)
    assert line.level == 30
    # A gripper goal: rejected, with a warning that says why.
    wait_for(lambda: arm.gripper.wait_for_server(timeout_sec=0.1), what="gripper server")
    future = arm.gripper.send_goal_async(GripperCommand.Goal())
    wait_for(future.done, what="gripper goal response")
    assert not future.result().accepted
    calibration.wait_log("gripper goal rejected: calibration mode is on", mark)
    # A plan moves nothing: still answered.
    request = PlanCartesianPath.Request()
    request.header.frame_id = arm.config.base_frame
    waypoint = Pose()
    waypoint.position.x, waypoint.position.y = 0.13, 0.04
    request.waypoints = [waypoint]
    answer = arm.graph.call(arm.plan, request)
    assert answer.status == PlanCartesianPath.Response.SUCCEEDED, answer.message
    assert moves.command_count() == commands + 1  # the test's own; the nodes streamed none
    assert arm.servo_angles() == angles  # nothing moved
    # Leaving commands nothing; then a goal moves again.
    arm.leave()
    assert arm.servo_angles() == angles
    outcome = moves.run(goal(0.12, 0.05))
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message


async def _page_that_goes_away(url: str, joint: str) -> None:
    """A client of the bridge that enters calibration mode, starts a long jog, and drops."""
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:

        async def call(name: str, args: dict, message_id: str) -> dict:
            await ws.send_str(
                json.dumps({"op": "call_service", "id": message_id, "service": name, "args": args})
            )
            while True:
                message = json.loads((await ws.receive(timeout=30)).data)
                if message.get("id") == message_id and message["op"] == "service_response":
                    return message

        entered = await call("/calibration/enter", {}, "enter")
        assert entered["values"]["success"], entered
        jogged = await call(
            "/calibration/jog", {"joint": joint, "mode": 0, "relative": False, "value": 10.0}, "j"
        )
        assert jogged["values"]["success"], jogged
    # The socket is closed here, mid-jog: no more heartbeats.


def test_a_dropped_page_holds_every_servo_and_leaves_after_the_timeout(arm: Arm) -> None:
    calibration = arm.calibration
    arm.moves.move_to(0.15, 0.02)
    wait_for(lambda: calibration.call("enter").success, what="calibration entered")
    assert calibration.call("leave").success
    calibration.wait_active(False)
    mark = calibration.log_mark()
    url = arm.bridge.url.replace("http", "ws") + "ws"
    shoulder = arm.config.joint_names[0]
    asyncio.run(_page_that_goes_away(url, shoulder))
    # Mid-jog when the page went: the shoulder's servo stops where it is when the mode ends.
    line = calibration.wait_log("no heartbeat for", mark, node="hardware_node")
    assert line.level == 30
    assert f"calibration.heartbeat_timeout_s = {HEARTBEAT_TIMEOUT_S:g} s" in line.msg
    state = calibration.wait_active(False)
    assert "no heartbeat" in state.message
    held = arm.servo_angles()
    assert 10.0 < held[0] < 90.0  # stopped on the way from 90 to 10 servo degrees
    servo = next(s for s in state.servos if s.joint == shoulder)
    assert servo.target_deg == servo.servo_deg  # holding, no jog left
    states = arm.moves.states
    count = len(states)
    wait_for(lambda: len(arm.moves.states) > count + 10, what="more joint_states")
    assert arm.servo_angles() == held  # and stays there
    # joint_states report where the servo holds, by the running calibration.
    joint = arm.hardware.servo_map.joints[0]
    last = arm.moves.states[-1]
    assert math.degrees(last.position[0]) == pytest.approx(
        (held[0] - joint.servo.offset_deg) * joint.servo.sign, abs=1e-6
    )
