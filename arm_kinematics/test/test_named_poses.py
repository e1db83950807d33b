"""Named poses against the desk kit's real nodes (IK, hardware on sim, trajectory) in one
process: saved through `named_poses/save`, kept in a file that a restarted stack reads, gone to
by name with MoveArm's `named_pose`, listed and deleted; and refused, in words and with nothing
moved, where they cannot be used.

Where the tool is comes from the kinematics core's forward kinematics of joint_states (the
planner's own tool poses are not used to judge it).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from ros_helpers import ros_graph, wait_for
from teach_stack import TeachStack

from arm_kinematics_interfaces.action import MoveArm

pytestmark = pytest.mark.ros

Result = MoveArm.Result
#: A pose of the kit away from home: the tool low in front of it, pointing 75 degrees down.
SPOT = (0.14, 0.06, 0.06, math.radians(-75))
NO_MEMORY = {"hardware.remember_pose": False}  # a restarted stack begins at home


@pytest.fixture
def graph() -> Iterator:
    with ros_graph() as graph:
        yield graph


def move_to(stack: TeachStack, pose) -> MoveArm.Result:
    """A JOINT MoveArm goal to a typed pose of the kit (x, y, z m, pitch rad)."""
    goal = MoveArm.Goal(mode=MoveArm.Goal.JOINT, orientation_mode=MoveArm.Goal.TOOL_ANGLE)
    goal.target.pose.position.x, goal.target.pose.position.y, goal.target.pose.position.z = pose[:3]
    goal.target.pose.orientation.w = 1.0
    goal.tool_angle = pose[3]
    future = stack.move_action.send_goal_async(goal)
    wait_for(future.done, what="the goal's acceptance")
    return stack.wait_end(future.result()).result


def tool_of(stack: TeachStack, joints) -> np.ndarray:
    return np.array(stack.config.make_arm().tool_vector(list(joints)))


def test_a_saved_pose_survives_a_restart_and_is_gone_to_by_name(graph, tmp_path):
    first = TeachStack(graph, tmp_path, beside_params=True, **NO_MEMORY)
    assert move_to(first, SPOT).status == Result.SUCCEEDED
    spot = first.wait_at_rest()
    answer = first.call("save_pose", name="spot")
    assert answer.success, answer.message
    assert answer.message.startswith("saved the named pose 'spot': the tool at (0.1400, 0.0600")
    beside = tmp_path / "arm_desk_kit.kit.poses.yaml"  # beside the params, the namespace's own
    assert answer.file == str(beside) == str(first.poses_file)
    assert list(answer.pose.joints.name) == first.names
    assert np.allclose(answer.pose.joints.position, spot, atol=1e-9)
    assert answer.pose.tool.pose.position.z == pytest.approx(SPOT[2], abs=1e-6)
    text = first.poses_file.read_text()
    assert "spot:\n    joints_deg: {base_yaw: 23.1986" in text
    first.close()
    # A person annotates the file while the arm is off.
    edited = "# the kit's spots, taught by hand\n" + text.replace("spot:", "spot:  # the part", 1)
    beside.write_text(edited)

    second = TeachStack(graph, tmp_path, beside_params=True, **NO_MEMORY)  # the same file
    home = second.wait_at_rest()
    assert np.allclose(home, second.config.home, atol=1e-6)
    listed = second.call("list_poses")
    assert listed.success
    assert [pose.name for pose in listed.poses] == ["home", "spot"]
    assert list(listed.problems) == ["", ""]

    before = second.command_count()
    result = second.move_named("spot", MoveArm.Goal.LINEAR).result
    assert result.status == Result.SUCCEEDED, result.message
    arrived = second.wait_at_rest()
    assert np.abs(arrived - spot).max() < second.config.trajectory.goal_tolerance
    assert tool_of(second, arrived)[:3] == pytest.approx(SPOT[:3], abs=1e-4)
    line = second.commands_since(before)  # a straight line of the tool from home
    tips = np.array([tool_of(second, q)[:3] for q in line])
    start, end = tool_of(second, home)[:3], np.array(SPOT[:3])
    direction = (end - start) / np.linalg.norm(end - start)
    off_line = np.linalg.norm(np.cross(tips - start, direction), axis=1)
    assert off_line.max() < 1e-4

    result = second.move_named("home").result  # JOINT: the joints to home's, no IK
    assert result.status == Result.SUCCEEDED, result.message
    assert np.allclose(second.wait_at_rest(), second.config.home, atol=1e-6)

    # A save and a delete rewrite the file through the round trip: the person's lines stay.
    assert second.call("save_pose", name="rest").success
    assert beside.read_text().startswith(edited)
    assert second.call("delete_pose", name="rest").success
    assert beside.read_text() == edited
    assert [pose.name for pose in second.call("list_poses").poses] == ["home", "spot"]


def test_an_unknown_or_unusable_pose_is_refused_in_words_and_nothing_moves(graph, tmp_path):
    stack = TeachStack(graph, tmp_path, **NO_MEMORY)
    answer = stack.call("save_pose", name="here")
    assert answer.success, answer.message
    # A person edits the file: the elbow beyond its limit (10 deg).
    text = stack.poses_file.read_text().replace("elbow: -90.0", "elbow: 40.0")
    stack.poses_file.write_text(text)
    listed = stack.call("list_poses")
    assert listed.problems[1] == (
        "named pose 'here': joint elbow at 40.00 deg is outside its limits [-150, 10] deg"
    )
    before, at = stack.command_count(), stack.arm_joints()
    for name, words in (
        ("here", "joint elbow at 40.00 deg is outside its limits"),
        ("nowhere", "no named pose 'nowhere' (named poses: home, here;"),
        ("two words", "no named pose 'two words'"),
    ):
        result = stack.move_named(name).result
        assert result.status == Result.INVALID_GOAL
        assert words in result.message
    assert stack.command_count() == before
    assert np.array_equal(stack.arm_joints(), at)


def test_save_is_refused_while_the_arm_moves_then_a_pose_is_deleted(graph, tmp_path):
    stack = TeachStack(graph, tmp_path, **NO_MEMORY)
    goal = MoveArm.Goal(mode=MoveArm.Goal.JOINT, orientation_mode=MoveArm.Goal.TOOL_ANGLE)
    goal.target.pose.position.x, goal.target.pose.position.y = SPOT[:2]
    goal.target.pose.position.z, goal.tool_angle = SPOT[2], SPOT[3]
    goal.speed = 0.1  # slow: seconds of motion
    future = stack.move_action.send_goal_async(goal)
    wait_for(future.done, what="acceptance")
    handle = future.result()
    count = stack.command_count()
    wait_for(lambda: stack.command_count() > count + 5, what="the arm moving")
    answer = stack.call("save_pose", name="moving")
    assert not answer.success
    assert answer.message == "a goal moves the arm: save the pose once it has ended"
    assert stack.wait_end(handle).result.status == Result.SUCCEEDED
    assert not stack.poses_file.exists()

    stack.wait_at_rest()
    assert stack.call("save_pose", name="spot").success
    again = stack.call("save_pose", name="spot")  # the same pose again: nothing changes
    assert again.success
    assert again.message.startswith("already saved: the named pose 'spot'")
    refused = stack.call("save_pose", name="home")
    assert not refused.success
    assert "'home' is the params file's joints.*.home_deg" in refused.message
    deleted = stack.call("delete_pose", name="spot")
    assert deleted.success
    assert deleted.message == f"deleted the named pose 'spot' ({stack.poses_file})"
    assert [pose.name for pose in stack.call("list_poses").poses] == ["home"]
    gone = stack.call("delete_pose", name="spot")
    assert gone.success
    assert "nothing to delete" in gone.message
