"""MoveArm and plan_cartesian_path for a spatial arm (config/arm_desk_kit.yaml: base yaw,
shoulder, elbow, wrist pitch, wrist roll, gripper) against the real IkNode, HardwareNode (sim)
and TrajectoryNode in one process, through rclpy clients.

The tool point of every streamed setpoint is computed from the URDF's joint chain (parsed
independently of the code under test, `urdf_chain.UrdfChain`), so a straight line in 3D is
checked against the description RViz draws, not against the planner's own forward kinematics.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
from collections.abc import Iterator

import numpy as np
import pytest
import transforms3d
from arm_2r import passes_every_corner
from desk_kit import CHAIN, CONFIG, CONFIG_FILE, NAMES, arm_joints, tip_of, tool_pitch
from geometry_msgs.msg import PointStamped, Pose
from rclpy.parameter import Parameter
from ros_helpers import ros_graph, wait_for, wait_for_future
from trajectory_harness import TEST_OVERRIDES, Harness
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from arm_kinematics.cli.move_arm import run as move_arm_run
from arm_kinematics.config import load_parameters_file
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK

pytestmark = pytest.mark.ros

Goal = MoveArm.Goal
Result = MoveArm.Result
NAMESPACE = "kit"


def distance_to_segment(points: np.ndarray, a, b) -> np.ndarray:
    a_, b_ = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    direction = b_ - a_
    t = np.clip((points - a_) @ direction / (direction @ direction), 0.0, 1.0)
    return np.linalg.norm(points - (a_ + t[:, None] * direction), axis=1)


def goal(x: float, y: float, z: float, **fields) -> MoveArm.Goal:
    message = Goal(**{"mode": Goal.LINEAR, **fields})
    message.target.header.frame_id = CONFIG.base_frame
    position = message.target.pose.position
    position.x, position.y, position.z = x, y, z
    message.target.pose.orientation.w = 1.0
    return message


@pytest.fixture(scope="module")
def kit() -> Iterator[Harness]:
    file_params = load_parameters_file(CONFIG_FILE)
    params = [Parameter(k, value=v) for k, v in (*file_params.items(), *TEST_OVERRIDES)]
    common = {"context": None, "parameter_overrides": params, "namespace": NAMESPACE}
    with ros_graph() as graph:
        common["context"] = graph.context
        graph.add(IkNode(**common))
        hardware = graph.add(HardwareNode(**common))
        graph.add(TrajectoryNode(**common))
        harness = Harness(graph, hardware, namespace=NAMESPACE)
        yield harness


def latest_arm_joints(kit: Harness) -> list[float] | None:
    """The arm joints (no gripper) of the latest joint_states, in NAMES order."""
    with kit.lock:
        state = kit.states[-1] if kit.states else None
    return None if state is None else arm_joints(state.position, list(state.name))


def move_to(kit: Harness, x: float, y: float, z: float) -> list[float]:
    """A fast JOINT move to (x, y, z); the arm joints once joint_states report them."""
    outcome = kit.run(goal(x, y, z, mode=Goal.JOINT, speed=1.0))
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    final = outcome.result.final_joints
    target = np.array(arm_joints(final.position, list(final.name)))

    def there():
        joints = latest_arm_joints(kit)
        return joints if joints and np.abs(np.subtract(joints, target)).max() <= 1e-9 else None

    return wait_for(there, what=f"the arm at {np.round(target, 6).tolist()}")


def test_joint_states_name_every_servo_of_the_kit_the_gripper_too(kit):
    kit.latest_joints()
    with kit.lock:
        state = kit.states[-1]
    assert list(state.name) == [*NAMES, "gripper"]
    assert len(state.position) == len(NAMES) + 1


def test_a_3d_straight_line_streams_tool_points_on_the_line_and_ends_within_a_millimetre(kit):
    start = move_to(kit, 0.16, -0.06, 0.12)
    target = (0.12, 0.10, 0.06)
    outcome = kit.run(goal(*target, speed=0.05, max_step=0.002))
    result = outcome.result
    assert result.status == Result.SUCCEEDED, result.message
    names = list(outcome.commands[0].name)
    tips = np.array([tip_of(arm_joints(c.position, names)) for c in outcome.commands])
    start_tip = tip_of(start)
    assert distance_to_segment(tips, start_tip, target).max() < 0.001
    assert np.linalg.norm(tips[-1] - target) < 0.001
    # Every step at most max_step (2 mm) along the line, and the steps cover it all.
    steps = np.linalg.norm(np.diff(np.vstack((start_tip, tips)), axis=0), axis=1)
    assert steps.max() <= 0.002 + 1e-6
    assert result.total_steps == len(outcome.commands)
    assert result.feasible_fraction == 1.0
    # The yaw turned to face the target: the base servo moved, the arm's plane with it.
    final = arm_joints(result.final_joints.position, list(result.final_joints.name))
    assert final[0] == pytest.approx(math.atan2(target[1], target[0]), abs=1e-6)
    # The feedback's tool point is 3D, in the base frame.
    last = outcome.feedback[-1]
    assert last.tip.z == pytest.approx(tips[-1][2], abs=0.002)


def test_a_move_with_a_pitch_ends_with_the_tool_at_that_pitch(kit):
    move_to(kit, 0.15, 0.0, 0.10)
    pitch = math.radians(-45.0)
    message = goal(0.17, 0.03, 0.05, speed=0.05, orientation_mode=Goal.TOOL_ANGLE)
    message.tool_angle = pitch
    outcome = kit.run(message)
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    final = outcome.result.final_joints
    joints = arm_joints(final.position, list(final.name))
    assert np.linalg.norm(tip_of(joints) - (0.17, 0.03, 0.05)) < 0.001
    assert tool_pitch(joints) == pytest.approx(pitch, abs=math.radians(0.1))


def test_a_line_through_an_unreachable_stretch_aborts_before_anything_moves(kit):
    start = move_to(kit, 0.02, -0.15, 0.07)
    before = kit.command_count()
    # Both ends are reachable, but the straight line between them passes 2 cm from the
    # shoulder axis, inside the hole the folded arm cannot reach: the whole line is planned
    # before the first setpoint goes out.
    outcome = kit.run(goal(0.02, 0.15, 0.07, speed=0.05, max_step=0.002))
    result = outcome.result
    assert result.status == Result.IK_FAILED, result.message
    assert outcome.commands == []
    assert (result.sent_setpoints, result.total_setpoints) == (0, 0)
    # The first failing point is where the line enters the hole: feasible up to there only,
    # with the point 3D in the base frame.
    assert 0.0 < result.feasible_fraction < 0.5
    assert result.failed_point.x == pytest.approx(0.02, abs=1e-9)
    assert result.failed_point.z == pytest.approx(0.07, abs=1e-9)
    assert -0.15 < result.failed_point.y < 0.0
    assert result.failed_point.y == pytest.approx(
        -0.15 + 0.30 * result.feasible_fraction, abs=0.003
    )
    kit.assert_no_command_after(before)
    assert np.allclose(latest_arm_joints(kit), start, atol=1e-9)


def test_a_target_beyond_the_reach_is_refused_with_the_distance_in_words(kit):
    outcome = kit.run(goal(0.40, 0.0, 0.10, speed=0.05))
    assert outcome.result.status == Result.IK_FAILED
    assert outcome.commands == []
    assert outcome.result.ik_status == SolveIK.Response.TOO_FAR
    assert "beyond the arm's reach of 0.293 m" in outcome.result.message
    assert outcome.result.message.endswith("nothing moved")


def test_a_3d_clicked_point_moves_the_tool_there(kit):
    move_to(kit, 0.15, 0.0, 0.12)
    click = PointStamped()
    click.header.frame_id = CONFIG.base_frame
    click.point.x, click.point.y, click.point.z = 0.13, -0.08, 0.08

    wait_for(
        lambda: kit.clicked.get_subscription_count() > 0, what="clicked_point subscription matched"
    )
    kit.clicked.publish(click)

    def there():
        joints = latest_arm_joints(kit)
        return joints and np.linalg.norm(tip_of(joints) - (0.13, -0.08, 0.08)) < 1e-6

    wait_for(there, timeout=60.0, what="the tool at the clicked point")

    def last_setpoint_there():  # the last setpoints creep up on the goal: wait for the goal
        with kit.lock:
            last = kit.commands[-1] if kit.commands else None
        names = list(last.name) if last else []
        at = last and tip_of(arm_joints(last.position, names))
        return last and np.linalg.norm(at - (0.13, -0.08, 0.08)) < 1e-9

    wait_for(last_setpoint_there, what="the goal's setpoint")
    # The move ended there: no setpoint after the last one.
    kit.assert_no_command_after(kit.command_count())


def test_plan_cartesian_path_in_3d_answers_a_trajectory_on_the_polyline(kit):
    client = kit.node.create_client(PlanCartesianPath, "plan_cartesian_path")
    wait_for(lambda: client.wait_for_service(timeout_sec=0.1), what="plan_cartesian_path")
    start = move_to(kit, 0.15, 0.0, 0.10)
    corners = [(0.15, 0.05, 0.10), (0.12, 0.05, 0.05)]
    request = PlanCartesianPath.Request()
    request.header.frame_id = CONFIG.base_frame
    for x, y, z in corners:
        pose = Pose()
        pose.position.x, pose.position.y, pose.position.z = x, y, z
        pose.orientation.w = 1.0
        request.waypoints.append(pose)
    request.max_step = 0.002
    response = wait_for_future(client.call_async(request), what="plan_cartesian_path answer")
    assert response.fraction == 1.0, response.message
    names = list(response.trajectory.joint_names)
    assert names == NAMES
    tips = np.array([tip_of(p.positions) for p in response.trajectory.points])
    path = [tip_of(start), *corners]
    distances = np.min(
        [distance_to_segment(tips, a, b) for a, b in itertools.pairwise(path)], axis=0
    )
    assert distances.max() < 0.001
    assert np.linalg.norm(tips[-1] - corners[-1]) < 0.001
    # Nothing moved: planning only.
    assert np.allclose(latest_arm_joints(kit), start, atol=1e-9)


def test_an_orientation_the_kit_can_reach_is_followed_by_the_roll_too(kit):
    move_to(kit, 0.15, 0.0, 0.10)
    roll = math.radians(30.0)
    pitch = math.radians(-20.0)
    yaw = math.atan2(0.04, 0.16)
    # Outward convention: R = Rz(yaw) Ry(-pitch) Rx(roll).
    rotation = (
        transforms3d.euler.euler2mat(yaw, 0.0, 0.0, "szyx")
        @ transforms3d.euler.euler2mat(0.0, -pitch, 0.0, "szyx")
        @ transforms3d.euler.euler2mat(0.0, 0.0, roll, "szyx")
    )
    w, x, y, z = transforms3d.quaternions.mat2quat(rotation)
    message = goal(0.16, 0.04, 0.08, speed=0.05, orientation_mode=Goal.FULL_ORIENTATION)
    o = message.target.pose.orientation
    o.x, o.y, o.z, o.w = x, y, z, w
    outcome = kit.run(message)
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    final = outcome.result.final_joints
    joints = arm_joints(final.position, list(final.name))
    reached = CHAIN.tip_transform(joints)
    assert np.linalg.norm(reached[:3, 3] - (0.16, 0.04, 0.08)) < 0.001
    angle = transforms3d.axangles.mat2axangle(reached[:3, :3].T @ rotation)[1]
    assert abs(angle) < math.radians(0.1)


def test_the_move_arm_client_takes_a_3d_target_with_a_pitch_in_degrees(kit):
    move_to(kit, 0.15, 0.0, 0.12)
    out = io.StringIO()
    argv = [
        "move_arm", "0.16", "-0.05", "--z", "0.06", "--pitch", "-30", "--namespace", NAMESPACE,
        "--config", str(CONFIG_FILE), "--timeout", "30", "--quiet",
    ]  # fmt: skip
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = move_arm_run(argv)
    assert code == 0, out.getvalue()
    assert "status: SUCCEEDED" in out.getvalue()
    joints = wait_for(
        lambda: (
            (j := latest_arm_joints(kit))
            and np.linalg.norm(tip_of(j) - (0.16, -0.05, 0.06)) < 1e-6
            and j
        ),
        what="the tool at the client's target",
    )
    assert tool_pitch(joints) == pytest.approx(math.radians(-30), abs=1e-6)


def test_waypoints_in_3d_pass_every_corner_on_straight_segments(kit):
    start = move_to(kit, 0.15, 0.0, 0.10)
    # Low corners 0.15 m out: nearer the base at 4 cm up, the forearm would graze the kit's base
    # column (its workspace envelope), which the planner refuses.
    corners = [(0.15, 0.06, 0.10), (0.15, 0.06, 0.04), (0.15, -0.04, 0.04)]
    message = goal(*corners[-1], speed=0.08, max_step=0.002)
    for x, y, z in corners[:-1]:
        pose = Pose()
        pose.position.x, pose.position.y, pose.position.z = x, y, z
        pose.orientation.w = 1.0
        message.waypoints.append(pose)
    outcome = kit.run(message)
    assert outcome.result.status == Result.SUCCEEDED, outcome.result.message
    names = list(outcome.commands[0].name)
    tips = np.array([tip_of(arm_joints(c.position, names)) for c in outcome.commands])
    path = [tip_of(start), *corners]
    on_path = np.min([distance_to_segment(tips, a, b) for a, b in itertools.pairwise(path)], axis=0)
    assert on_path.max() < 1e-6
    assert tips[-1] == pytest.approx(corners[-1], abs=1e-6)
    assert passes_every_corner(tips, path)  # the desk kit's 0.3 m/s^2 at 50 Hz


def test_a_joint_trajectory_of_the_five_arm_joints_is_followed(kit):
    start = move_to(kit, 0.15, 0.0, 0.10)
    goal_joints = [0.3, start[1] - 0.2, start[2] + 0.3, start[3] - 0.1, 0.5]
    trajectory = JointTrajectory(joint_names=NAMES)
    point = JointTrajectoryPoint(positions=goal_joints)
    point.time_from_start.sec = 3
    trajectory.points = [point]
    publisher = kit.node.create_publisher(JointTrajectory, "joint_trajectory", 10)
    wait_for(lambda: publisher.get_subscription_count() > 0, what="joint_trajectory matched")
    publisher.publish(trajectory)

    def there():
        joints = latest_arm_joints(kit)
        return joints and np.abs(np.subtract(joints, goal_joints)).max() < 1e-9

    wait_for(there, timeout=60.0, what="the arm at the trajectory's last point")
    # The gripper, not in the trajectory, did not move.
    with kit.lock:
        state = kit.states[-1]
    assert dict(zip(state.name, state.position, strict=True))["gripper"] == pytest.approx(
        math.radians(70.0)
    )
