"""Taught sequences against the desk kit's real nodes (IK, hardware on sim, trajectory) in one
process: the shipped pick-and-place runs to its end with its gripper steps in joint_states; a
sequence whose third step cannot be planned is refused with that step before anything moves;
a cancel, the stop service and a newer goal end a sequence smoothly, the result naming the
step; programs saved on the node run by name.

Every stream of joint_commands is measured against the kit's joint velocity and acceleration
limits (finite differences one command period apart, the rest before and after); where the
tool is comes from the kinematics core's forward kinematics of those joints.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from ros_helpers import ros_graph, wait_for
from teach_stack import EXAMPLE, TeachStack, limits_broken

from arm_kinematics_interfaces.action import MoveArm, RunSequence

pytestmark = pytest.mark.ros

Sequence = RunSequence.Result
#: Three moves in front of the kit at a slow joint speed (seconds each), a wait, a gripper step.
SLOW = """
name: slow
steps:
  - {name: out, move: joint, pose: {x_m: 0.14, y_m: 0.06, z_m: 0.08, pitch_deg: -75}}
  - {name: across, move: joint, speed_fraction: 0.15,
     pose: {x_m: 0.07, y_m: -0.14, z_m: 0.08, pitch_deg: -75}}
  - {name: back, move: joint, speed_fraction: 0.15, to: home}
"""


NO_MEMORY = {"hardware.remember_pose": False}  # each stack begins at home
#: The gripper at 20 deg/s instead of 120: its 70 deg take 3.5 s, so a stop sent once it is
#: under way lands well before it has closed, however slow the machine's answer.
SLOW_GRIPPER = {**NO_MEMORY, "joints.gripper.max_velocity_deg_s": 20.0}


@pytest.fixture
def stack(tmp_path) -> Iterator[TeachStack]:
    with ros_graph() as graph:
        yield TeachStack(graph, tmp_path, **NO_MEMORY)


@pytest.fixture
def slow_gripper_stack(tmp_path) -> Iterator[TeachStack]:
    with ros_graph() as graph:
        yield TeachStack(graph, tmp_path, **SLOW_GRIPPER)


def steps_seen(feedback) -> list[tuple[int, int]]:
    """(repeat, step) of each step as the feedback first names it, in order."""
    seen: list[tuple[int, int]] = []
    for message in feedback:
        at = (message.repeat, message.step)
        if not seen or seen[-1] != at:
            seen.append(at)
    return seen


def test_the_shipped_example_runs_to_its_end_with_the_gripper_in_joint_states(stack):
    states = stack.state_count()
    ended = stack.run_sequence(EXAMPLE.read_text(), name="example")
    result = ended.result
    assert result.status == Sequence.SUCCEEDED, result.message
    assert ended.status == GoalStatus.STATUS_SUCCEEDED
    assert (result.step, result.total_steps, result.repeat, result.total_repeats) == (10, 10, 2, 2)
    assert result.step_name == "back home"
    assert 0.0 < result.planning_time < result.run_time
    assert result.message.startswith(
        "sequence 'desk_kit_pick_and_place' ran its 20 steps; the tool at (0.1880, 0.0000, 0.1750)"
    )
    assert steps_seen(ended.feedback) == [(r, s) for r in (1, 2) for s in range(1, 11)]
    assert ended.feedback[-1].step_name == "back home"

    commands = stack.commands_since(0)
    assert limits_broken(stack.config.home, commands, stack.config) == ""
    arm = stack.config.make_arm()
    tips = np.array([arm.tool_vector(list(q)) for q in commands])
    assert tips[:, 2].min() == pytest.approx(0.04, abs=1e-6)  # down to the part, twice
    near_part = np.linalg.norm(tips[:, :3] - (0.14, 0.06, 0.04), axis=1) < 1e-6
    assert np.count_nonzero(np.diff(near_part.astype(int)) == 1) == 2
    assert np.allclose(stack.wait_at_rest(), stack.config.home, atol=1e-6)

    gripper = stack.track("gripper", states)
    closed, opened = (
        abs(gripper) < math.radians(1),
        abs(gripper - math.radians(70)) < math.radians(1),
    )
    assert opened[0]
    assert np.count_nonzero(np.diff(closed.astype(int)) == 1) == 2  # closed on the part twice
    assert opened[-1]


def test_a_sequence_whose_third_step_cannot_be_planned_is_refused_and_nothing_moves(stack):
    program = """
steps:
  - {move: joint, pose: {x_m: 0.14, y_m: 0.06, z_m: 0.08, pitch_deg: -75}}
  - {gripper: close}
  - {name: out of reach, move: linear, pose: {x_m: 0.32, y_m: 0.06, z_m: 0.08, pitch_deg: -75}}
  - {move: joint, to: home}
"""
    before, at = stack.command_count(), stack.arm_joints()
    states = stack.state_count()
    ended = stack.run_sequence(program)
    result = ended.result
    assert result.status == Sequence.PLAN_FAILED
    assert ended.status == GoalStatus.STATUS_ABORTED
    assert (result.step, result.step_name) == (3, "out of reach")
    assert result.move_status == MoveArm.Result.IK_FAILED
    assert result.ik_status != 0
    assert result.message.startswith(
        "step 3 of 4 (out of reach) cannot be planned from the end of step 2: step "
    )
    assert result.message.endswith("nothing moved")
    assert result.failed_point.x > 0.14
    count = stack.state_count()
    wait_for(lambda: stack.state_count() > count + 10, what="10 more joint_states")
    assert stack.command_count() == before
    rows = stack.states_as_rows(states)  # every joint_states since it was sent: unchanged
    assert len(rows) > 10
    assert np.array_equal(rows, np.tile(at, (len(rows), 1)))
    assert np.ptp(stack.track("gripper", states)) == 0.0  # the gripper step did not run either


def test_a_cancel_mid_sequence_stops_smoothly_and_names_the_step(stack):
    feedback: list = []
    handle = stack.send_sequence(SLOW, feedback=feedback)
    wait_for(lambda: any(f.step == 2 and f.step_fraction > 0.3 for f in feedback),
             what="step 2 under way")  # fmt: skip
    cancel = handle.cancel_goal_async()
    wait_for(cancel.done, what="the cancel's answer")
    answer = stack.wait_end(handle)
    result = answer.result
    assert answer.status == GoalStatus.STATUS_CANCELED
    assert result.status == Sequence.CANCELED
    assert (result.step, result.step_name) == (2, "across")
    assert result.message.startswith("step 2 of 3 (across): canceled by the client; decelerated")
    assert limits_broken(stack.config.home, stack.commands_since(0), stack.config) == ""
    rest = stack.wait_at_rest()
    assert np.allclose(rest, result.final_joints.position, atol=1e-6)
    assert not np.allclose(rest, stack.config.home, atol=0.05)  # it stopped on the way
    tip = stack.config.make_arm().tool_vector(list(rest))[:3]  # where: the result says it
    final = result.final_tip
    assert (final.x, final.y, final.z) == pytest.approx(tip, abs=1e-4)
    assert f"({tip[0]:.4f}, {tip[1]:.4f}, {tip[2]:.4f})" in result.message


def test_stop_ends_a_sequence_in_its_gripper_step_and_the_gripper_brakes(slow_gripper_stack):
    stack = slow_gripper_stack
    program = "steps: [{gripper: close}, {move: joint, to: home}]"
    states = stack.state_count()
    feedback: list = []
    handle = stack.send_sequence(program, feedback=feedback)

    def closing() -> bool:
        track = stack.track("gripper", states)
        return len(track) > 0 and track[-1] < math.radians(60)

    wait_for(closing, what="the gripper closing")
    stopped = stack.call("stop")
    assert stopped.message == "stopped: sequence"
    answer = stack.wait_end(handle)
    result = answer.result
    assert answer.status == GoalStatus.STATUS_ABORTED
    assert result.status == Sequence.PREEMPTED
    assert (result.step, result.step_name) == (1, "close the gripper")
    assert "stopped by the stop service (/kit/stop); the gripper braked at" in result.message
    count = stack.state_count()
    wait_for(lambda: stack.state_count() > count + 10, what="10 more joint_states")
    track = stack.track("gripper", count)
    assert np.ptp(track) == 0.0  # at rest, short of closed
    assert math.radians(5) < track[-1] < math.radians(60)


def test_a_newer_goal_preempts_a_sequence_in_its_wait_and_runs(stack):
    program = "steps: [{name: pause, wait_s: 30}, {move: joint, to: home}]"
    feedback: list = []
    handle = stack.send_sequence(program, feedback=feedback)
    wait_for(lambda: feedback and feedback[-1].step_name == "pause", what="the wait")
    goal = MoveArm.Goal(named_pose="home", mode=MoveArm.Goal.JOINT)
    future = stack.move_action.send_goal_async(goal)
    wait_for(future.done, what="the goal's acceptance")
    result = stack.wait_end(handle, timeout=20).result
    assert result.status == Sequence.PREEMPTED
    assert result.message.startswith("step 1 of 2 (pause): preempted by a newer goal")
    assert stack.wait_end(future.result()).result.status == MoveArm.Result.SUCCEEDED


def test_programs_are_saved_checked_listed_and_run_by_name(stack):
    refused = stack.call("save_sequence", name="bad", program="steps: [{move: joint, to: x}]")
    assert not refused.success
    assert refused.message == (
        f"step 1 (joint to x): no named pose 'x' (named poses: home; {stack.poses_file})"
    )
    saved = stack.call("save_sequence", name="out_and_back", program=SLOW)
    assert saved.success, saved.message
    listed = stack.call("list_sequences")
    assert list(listed.names) == ["out_and_back"]
    assert listed.programs[0] == SLOW
    before = stack.command_count()
    invalid = stack.run_sequence(name="nothing_saved")
    assert invalid.result.status == Sequence.INVALID_SEQUENCE
    assert invalid.result.message.startswith("no saved sequence 'nothing_saved'")
    bad = stack.run_sequence("steps:\n  - {wait_s: 1}\n  - {move: joint, pose: {x_m: 1}}\n")
    assert bad.result.status == Sequence.INVALID_SEQUENCE
    assert bad.result.message.startswith("step 2 (line 3): pose: a spatial arm's pose has x_m")
    assert stack.command_count() == before
    ran = stack.run_sequence(name="out_and_back")
    assert ran.result.status == Sequence.SUCCEEDED, ran.result.message
    assert stack.call("delete_sequence", name="out_and_back").success
    assert list(stack.call("list_sequences").names) == []
