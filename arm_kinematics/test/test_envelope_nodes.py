"""The workspace envelope through the real nodes (IkNode, HardwareNode on sim, TrajectoryNode in
one graph), as a client meets it: solve_ik and solve_ik_batch answer OUTSIDE_WORKSPACE naming
the constraint and the part; a LINEAR move and plan_cartesian_path down through the table, a
JOINT move, a joint_trajectory and a FollowJointTrajectory goal sweeping through a keep-out box
are refused whole, each in its interface's words: no joint_commands go out and joint_states
stay where they were.

The desk kit (`arm_desk_kit.yaml`: its table at z = 0 and its base column), with a keep-out
box from a temporary params file where the tool passes when the yaw alone turns from home
(tool at (0.188, 0, 0.175)) to 90 degrees: clear of both ends, in the way at 23 to 77 % of the
turn. (The kit's links and limits keep every such JOINT line within 0.6 mm of its table, so
the JOINT sweep below a table is checked on an arm that can make it: `sweep_arm_parameters`, the
joint_sweep arm of test_envelope.py as a params file's values.)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

import numpy as np
import pytest
from control_msgs.action import FollowJointTrajectory
from desk_kit import with_keep_out_box
from ik_clients import Clients, target
from rcl_interfaces.msg import Log
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_helpers import RosGraph, ros_graph, wait_for
from trajectory_harness import Goal, Harness, Result, joint_trajectory, poses
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.config import ArmConfig, default_config_path, load_parameters_file
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK, SolveIKBatch

pytestmark = pytest.mark.ros

BOX = (0.11, 0.11, 0.15, 0.16, 0.16, 0.20)  # min x, y, z, max x, y, z (m)
BOX_WORDS = "inside keep-out box 1 (x 0.11..0.16, y 0.11..0.16, z 0.15..0.2 m"
TABLE_WORDS = "below the table (workspace.table_z_m = 0 m"
PARTS = ("the tool point", "the fingertips", "the wrist", "the forearm", "the elbow")
OUTSIDE = SolveIK.Response.OUTSIDE_WORKSPACE


def sweep_arm_parameters() -> dict:
    """A spatial arm whose JOINT line dips its elbow below the table while both ends are above
    it (test_envelope.py's joint_sweep): links 0.1 and 0.1 m, the shoulder 0.15 m up, the
    table at 0.055 m, parts 5 mm; home with the upper arm 120 deg below the horizontal and the
    forearm straight up (the elbow 0.0634 m high, behind the yaw axis). The package's arm.yaml
    values for the rest, the joints' servos widened to the wide joint limits."""
    values = load_parameters_file(default_config_path())
    for name in [name for name in values if name.startswith("joints.shoulder.")]:
        values[name.replace("shoulder", "base_yaw", 1)] = values[name]
    values["joints.base_yaw.servo.channel"] = 2
    for joint, (low, high, home) in {
        "shoulder": (-170, 170, -120),
        "elbow": (-250, 250, 210),
    }.items():
        p = f"joints.{joint}."
        values |= {
            p + "min_deg": float(low),
            p + "max_deg": float(high),
            p + "home_deg": float(home),
        }
        values |= {p + "servo.actuation_range_deg": 540.0, p + "servo.max_deg": 540.0}
        values[p + "servo.offset_deg"] = 270.0
    values |= {
        "layout": "spatial",
        "joint_names": ["base_yaw", "shoulder", "elbow"],
        "link_lengths_m": [0.1, 0.1],
        "spatial.shoulder_height_m": 0.15,
        "workspace.table_z_m": 0.055,
        "workspace.link_radius_m": 0.005,
        "hardware.publish_rate_hz": 25.0,
    }
    return values


class Kit(Harness):
    """The MoveArm harness of one arm's IkNode, HardwareNode (sim) and TrajectoryNode in
    `namespace` from the parameter `values`; its IK clients, plan_cartesian_path,
    FollowJointTrajectory, and the trajectory node's log lines from /rosout."""

    def __init__(self, graph: RosGraph, values: dict, namespace: str) -> None:
        self.config = ArmConfig.from_parameters(values)
        self.namespace = namespace
        params = [Parameter(name, value=value) for name, value in values.items()]
        common = {"context": graph.context, "parameter_overrides": params, "namespace": namespace}
        graph.add(IkNode(**common))
        hardware = graph.add(HardwareNode(**common))
        graph.add(TrajectoryNode(**common))
        super().__init__(graph, hardware, namespace=namespace)
        self.ik = Clients(graph, namespace)
        self.plan_client = self.node.create_client(PlanCartesianPath, "plan_cartesian_path")
        self.follow = ActionClient(
            self.node, FollowJointTrajectory, "arm_controller/follow_joint_trajectory"
        )
        self.trajectories = self.node.create_publisher(JointTrajectory, "joint_trajectory", 10)
        self.logs: list[str] = []
        self.node.create_subscription(Log, "/rosout", self._on_log, 1000)
        client = self.plan_client
        wait_for(lambda: client.wait_for_service(timeout_sec=0.5), what=client.srv_name)
        wait_for(lambda: self.follow.wait_for_server(timeout_sec=0.1), what="the follow action")
        wait_for(lambda: self.trajectories.get_subscription_count() > 0, what="joint_trajectory")
        self.home = tuple(self.config.home)
        wait_for(lambda: self.states, what="joint_states")
        wait_for(lambda: self.arm_positions() == pytest.approx(self.home, abs=1e-9), what="home")

    def _on_log(self, msg: Log) -> None:
        if msg.name == f"{self.namespace}.trajectory_node":
            with self.lock:
                self.logs.append(msg.msg)

    def wait_log(self, text: str) -> str:
        def found() -> str | None:
            with self.lock:
                return next((line for line in self.logs if text in line), None)

        return wait_for(found, what=f"a trajectory_node log line with {text!r}")

    def arm_positions(self) -> list[float]:
        """The arm joints of the latest joint_states (without the gripper), in joint order."""
        with self.lock:
            state = self.states[-1]
        by_name = dict(zip(state.name, state.position, strict=True))
        return [by_name[name] for name in self.config.joint_names]

    def refused_joint_move(self, x: float, y: float, z: float) -> Result:
        """A JOINT move to the position (x, y, z) (m, base frame), refused as leaving the
        envelope on its way, with nothing moved; its result."""
        before = self.command_count()
        message = Goal(mode=Goal.JOINT, speed=1.0)
        message.target.header.frame_id = "base_link"
        position = message.target.pose.position
        position.x, position.y, position.z = x, y, z
        message.target.pose.orientation.w = 1.0
        outcome = self.run(message)
        result = outcome.result
        assert result.status == Result.IK_FAILED, result.message
        assert result.ik_status == OUTSIDE
        assert "the joints' straight line to" in result.message
        assert outcome.commands == []
        self.assert_nothing_moved(before)
        return result

    def assert_nothing_moved(self, count: int) -> None:
        """No joint_commands since `count` (`assert_no_command_after`) and joint_states still
        at home, where every test of this module starts and none moves the arm."""
        self.assert_no_command_after(count)
        assert self.arm_positions() == pytest.approx(list(self.home), abs=1e-9)


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Iterator[Kit]:
    path = with_keep_out_box(tmp_path_factory.mktemp("envelope"), BOX)
    values = {**load_parameters_file(path), "hardware.publish_rate_hz": 25.0}
    with ros_graph() as graph:
        yield Kit(graph, values, "kit")


@pytest.fixture(scope="module")
def sweep_arm() -> Iterator[Kit]:
    with ros_graph() as graph:
        yield Kit(graph, sweep_arm_parameters(), "sweep")


def names_a_part(message: str) -> bool:
    return any(f": {part}" in message for part in PARTS)


def test_solve_ik_refuses_a_target_below_the_table_and_one_in_a_box(kit: Kit) -> None:
    below = kit.ik.solve(target(0.15, 0.0, z=-0.03))
    assert below.status == OUTSIDE
    assert "the tool point would be 50 mm " + TABLE_WORDS in below.message
    boxed = kit.ik.solve(target(0.135, 0.135, z=0.175))
    assert boxed.status == OUTSIDE
    assert BOX_WORDS in boxed.message
    assert names_a_part(boxed.message), boxed.message
    assert list(boxed.solution.position) == []
    fine = kit.ik.solve(target(0.15, -0.05, z=0.1))
    assert fine.status == SolveIK.Response.OK


def test_solve_ik_batch_answers_outside_workspace_per_target(kit: Kit) -> None:
    request = SolveIKBatch.Request()
    request.header.frame_id = "base_link"
    request.x, request.y, request.z = [0.15, 0.15, 0.135], [-0.05, 0.0, 0.135], [0.1, -0.03, 0.175]
    answer = kit.ik.batch(request)
    assert list(answer.statuses) == [SolveIK.Response.OK, OUTSIDE, OUTSIDE]
    assert TABLE_WORDS in answer.message
    rows = np.array(answer.positions).reshape(3, -1)
    assert np.isnan(rows[1:]).all()
    assert np.isfinite(rows[0]).all()


def test_a_line_down_through_the_table_is_refused_before_anything_moves(kit: Kit) -> None:
    before = kit.command_count()
    message = Goal(mode=Goal.LINEAR, speed=0.05)
    message.target.header.frame_id = "base_link"
    message.target.pose.position.x, message.target.pose.position.z = 0.188, -0.02
    message.target.pose.orientation.w = 1.0
    outcome = kit.run(message)
    result = outcome.result
    assert result.status == Result.IK_FAILED, result.message
    assert result.ik_status == OUTSIDE
    assert TABLE_WORDS in result.message
    assert result.message.endswith("nothing moved")
    assert 0.5 < result.feasible_fraction < 1.0  # the line leaves the envelope near z = 0.02
    assert result.failed_point.z == pytest.approx(0.02, abs=0.002)
    assert outcome.commands == []
    kit.assert_nothing_moved(before)


def test_plan_cartesian_path_down_through_the_table_says_where(kit: Kit) -> None:
    request = PlanCartesianPath.Request()
    request.header.frame_id = "base_link"
    request.waypoints = poses([(0.188, 0.0, -0.02)])
    answer = kit.graph.call(kit.plan_client, request)
    assert answer.status == PlanCartesianPath.Response.IK_FAILED
    assert answer.ik_status == OUTSIDE
    assert TABLE_WORDS in answer.message
    assert answer.failed_index > 0
    assert answer.failed_point.z == pytest.approx(0.02, abs=0.002)


def test_a_joint_move_sweeping_through_a_box_is_refused_with_the_place(kit: Kit) -> None:
    result = kit.refused_joint_move(0.0, 0.188, 0.175)  # both ends clear of the box
    assert "23% of the way from the start" in result.message
    assert BOX_WORDS in result.message
    assert result.feasible_fraction == pytest.approx(0.23, abs=0.01)


def test_a_joint_move_sweeping_the_elbow_below_the_table_is_refused(sweep_arm: Kit) -> None:
    # From home (the tool at (-0.05, 0, 0.1634)) to the mirror image in front: the IK's closest
    # answer swings the upper arm from 120 to 60 deg below the horizontal, the forearm kept
    # straight up, so both ends hold the elbow 0.0634 m high and halfway it is at 0.05 m: its
    # 5 mm capsule 10 mm into the table at 0.055 m.
    z = 0.15 - 0.1 * math.sin(math.radians(60)) + 0.1
    end = sweep_arm.ik.solve(target(0.05, 0.0, z=z))
    assert end.status == SolveIK.Response.OK, end.message  # the end alone is inside
    assert list(end.solution.position) == pytest.approx([0.0, math.radians(-60), math.radians(150)])
    result = sweep_arm.refused_joint_move(0.05, 0.0, z)
    assert "the elbow would be" in result.message
    assert "below the table (workspace.table_z_m = 0.055 m" in result.message
    # The elbow's capsule reaches the table where sin(q1) = -0.9: 6.9% of the way.
    first = (math.degrees(math.asin(0.9)) - 60) / 60
    assert first <= result.feasible_fraction < first + 0.02


def yaw_turned(kit: Kit) -> tuple[float, ...]:
    """The arm's joints at home with the yaw at 90 degrees (rad)."""
    return (math.radians(90.0), *kit.home[1:])


def test_a_joint_trajectory_through_a_box_is_one_warning_and_nothing_moves(kit: Kit) -> None:
    before = kit.command_count()
    points = [(2.0, yaw_turned(kit))]
    kit.trajectories.publish(joint_trajectory(kit.config.joint_names, points, at_rest=True))
    line = kit.wait_log("joint trajectory refused: on the way to point 0")
    assert "(the approach from where the arm is)" in line
    assert BOX_WORDS in line
    assert line.endswith("nothing moved")
    kit.assert_nothing_moved(before)


def test_a_follow_joint_trajectory_goal_through_a_box_is_invalid_goal(kit: Kit) -> None:
    before = kit.command_count()
    trajectory = JointTrajectory(joint_names=list(kit.config.joint_names))
    point = JointTrajectoryPoint(positions=list(yaw_turned(kit)))
    point.time_from_start.sec = 2
    trajectory.points = [point]
    future = kit.follow.send_goal_async(FollowJointTrajectory.Goal(trajectory=trajectory))
    wait_for(future.done, what="the goal response")
    handle = future.result()
    result = wait_for_result(handle)
    assert result.error_code == FollowJointTrajectory.Result.INVALID_GOAL
    assert "on the way to point 0" in result.error_string
    assert BOX_WORDS in result.error_string
    kit.assert_nothing_moved(before)


def wait_for_result(handle):
    if not handle.accepted:  # refused at once: no result to wait for
        raise AssertionError("the goal was rejected, not answered with its error code")
    future = handle.get_result_async()
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    assert done.wait(60.0), "no result"
    return future.result().result


def test_ik_markers_carry_the_table_the_box_and_the_cells_the_envelope_removes(kit: Kit) -> None:
    latched = QoSProfile(depth=2, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    markers: dict[str, Marker] = {}
    lock = threading.Lock()

    def on_markers(msg: MarkerArray) -> None:
        with lock:
            markers.update({m.ns: m for m in msg.markers})

    kit.node.create_subscription(MarkerArray, "ik_markers", on_markers, latched)
    wanted = {"envelope_table", "keep_out_boxes", "envelope_removed", "reachable_region"}
    wait_for(lambda: wanted <= set(markers), what="the envelope and the region on ik_markers")
    with lock:
        table, boxes = markers["envelope_table"], markers["keep_out_boxes"]
        removed = markers["envelope_removed"]
    assert {p.z for p in table.points} == {0.0}
    corners = {(p.x, p.y, p.z) for p in boxes.points}
    assert len(boxes.points) == 24
    assert corners == {(x, y, z) for x in BOX[0::3] for y in BOX[1::3] for z in BOX[2::3]}
    # The vertical plane's cells below the table are removed (the plane drawn in x-z).
    assert min(p.z for p in removed.points) < 0.0 < max(p.z for p in removed.points)
