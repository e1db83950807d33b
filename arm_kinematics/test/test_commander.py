"""The Python API (`arm_kinematics.commander.ArmCommander`) against the desk kit's real nodes.

The IK, hardware (sim) and trajectory nodes of config/arm_desk_kit.yaml run in this process
in the namespace `kit`. The example script of docs/python_api.md runs as a process of its own,
as a user runs it; the other tests drive a commander in this process, on its own rclpy
context (a second DDS participant, as a script's would be). Where the tool ends is computed
from the URDF's joint chain (`desk_kit.tip_of`), not by the code under test.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import rclpy
from desk_kit import CONFIG, CONFIG_FILE, NAMES, arm_joints, tip_of, tool_pitch
from rclpy.context import Context
from ros_helpers import PACKAGE_DIR, file_parameters, ros_graph, wait_for
from std_srvs.srv import SetBool
from trajectory_harness import TEST_OVERRIDES, Harness

from arm_kinematics.commander import (
    ArmCommander,
    GripperResult,
    InvalidArgumentError,
    MoveFeedback,
    MoveResult,
    NoGripperError,
    ServerUnavailableError,
    TaskRefusedError,
    TaskRunningError,
    TaskTimeoutError,
)
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode

pytestmark = pytest.mark.ros

NAMESPACE = "kit"
GUIDE = PACKAGE_DIR.parent / "docs" / "python_api.md"
DISCOVERY_S = 30.0  # DDS discovery between two participants on a loaded machine
OPEN, CLOSED = math.radians(70.0), 0.0  # the kit's gripper joint (gripper.open_deg, closed_deg)


@pytest.fixture(scope="module")
def kit() -> Iterator[Harness]:
    parameters = file_parameters(CONFIG_FILE, **dict(TEST_OVERRIDES))
    with ros_graph() as graph:
        common = {"context": graph.context, "parameter_overrides": parameters}
        graph.add(IkNode(**common, namespace=NAMESPACE))
        hardware = graph.add(HardwareNode(**common, namespace=NAMESPACE))
        graph.add(TrajectoryNode(**common, namespace=NAMESPACE))
        yield Harness(graph, hardware, namespace=NAMESPACE)


@pytest.fixture(scope="module")
def arm(kit: Harness) -> Iterator[ArmCommander]:
    with ArmCommander(NAMESPACE, timeout_s=DISCOVERY_S) as commander:
        commander.wait_until_ready()
        yield commander


def latest_state(kit: Harness) -> dict[str, float]:
    """{name: rad} of the latest joint_states (waiting for the first)."""
    kit.latest_joints()
    with kit.lock:
        state = kit.states[-1]
    return dict(zip(state.name, state.position, strict=True))


def settled_state(kit: Harness) -> dict[str, float]:
    """joint_states once 5 in a row are equal: the arm at rest."""

    def still() -> dict[str, float] | None:
        with kit.lock:
            last = [tuple(state.position) for state in kit.states[-5:]]
            names = list(kit.states[-1].name) if kit.states else []
        if len(last) == 5 and all(positions == last[0] for positions in last):
            return dict(zip(names, last[0], strict=True))
        return None

    return wait_for(still, what="the arm at rest")


def steps_done(commander: ArmCommander) -> int:
    """The setpoint step of the task's latest feedback (0 before the first)."""
    feedback = commander.get_feedback()
    return 0 if feedback is None else feedback.step


def guide_script() -> str:
    """The first python block of docs/python_api.md: the example script."""
    match = re.search(r"```python\n(.*?)```", GUIDE.read_text(), re.DOTALL)
    assert match, f"no python block in {GUIDE}"
    return match.group(1)


def test_the_guides_script_moves_the_arm_and_opens_the_gripper(kit, arm, tmp_path: Path):
    arm.close_gripper()
    closed = arm.wait_for_task(timeout_s=30)
    assert isinstance(closed, GripperResult)
    assert closed.succeeded, closed
    wait_for(lambda: abs(latest_state(kit)["gripper"] - CLOSED) < 1e-9, what="gripper closed")
    script = tmp_path / "desk_kit.py"
    script.write_text(guide_script())

    run = subprocess.run(
        [sys.executable, str(script), NAMESPACE],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ),
        check=False,
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert "solve: OK: " in run.stdout
    assert "move: SUCCEEDED: " in run.stdout
    # Reached within the goal tolerance (1 deg of the joint: 0.4 mm here).
    assert re.search(r"^gripper: SUCCEEDED at 0\.05\d\d m between the fingers$", run.stdout, re.M)
    state = settled_state(kit)
    joints = arm_joints([state[name] for name in state], list(state))
    assert tip_of(joints) == pytest.approx((0.15, 0.05, 0.10), abs=1e-6)
    assert tool_pitch(joints) == pytest.approx(math.radians(-30), abs=1e-6)
    assert state["gripper"] == pytest.approx(OPEN, abs=1e-9)


def test_solve_and_fk_answer_with_status_names_and_joints_by_name(arm):
    answer = arm.solve(0.16, -0.04, 0.12, pitch=math.radians(-45))
    assert (answer.status, answer.status_code, answer.solved) == ("OK", 0, True), answer
    assert list(answer.joints) == NAMES
    assert tip_of(list(answer.joints.values())) == pytest.approx((0.16, -0.04, 0.12), abs=1e-9)
    assert answer.tool.position == pytest.approx((0.16, -0.04, 0.12), abs=1e-9)
    fk = arm.fk(list(answer.joints.values()))  # values in the arm's joint order
    assert (fk.status, fk.within_limits) == ("OK", True)
    assert fk.tip.position == pytest.approx((0.16, -0.04, 0.12), abs=1e-9)
    assert list(fk.frames) == ["base_link", "yaw_link", "link_1", "link_2", "link_3", "roll_link",
                               "tool0"]  # fmt: skip

    far = arm.solve(0.5, 0.0, 0.1)  # an answer, not an error
    assert (far.status, far.solved, far.joints) == ("TOO_FAR", False, None)
    assert "reach" in far.message

    now = arm.current_joints()
    assert list(now) == NAMES
    assert arm.current_pose().position == pytest.approx(tuple(tip_of(list(now.values()))), abs=1e-9)


def test_a_move_reports_feedback_and_ends_where_it_was_sent(kit, arm):
    feedback: list[MoveFeedback] = []
    arm.move_to_pose(
        0.14, 0.0, 0.14, waypoints=[(0.16, 0.03, 0.14)], speed=0.1, on_feedback=feedback.append
    )
    result = arm.wait_for_task(timeout_s=60)
    assert isinstance(result, MoveResult)
    assert (result.status, result.goal_status, result.succeeded) == ("SUCCEEDED", "SUCCEEDED", True)
    assert arm.is_task_complete()
    assert arm.get_result() is result
    assert arm.wait_for_task() is result  # the last result again
    assert feedback
    assert feedback[-1].step == feedback[-1].total_steps == result.total_setpoints
    assert arm.get_feedback() == feedback[-1]
    assert tip_of(list(result.final_joints.values())) == pytest.approx((0.14, 0.0, 0.14), abs=1e-6)
    state = settled_state(kit)
    assert tip_of(arm_joints([state[n] for n in state], list(state))) == pytest.approx(
        (0.14, 0.0, 0.14), abs=1e-6
    )

    arm.move_to_pose(0.5, 0.0, 0.1, mode="joint")  # accepted, then refused by the planner
    result = arm.wait_for_task(timeout_s=60)
    assert (result.status, result.ik_status, result.succeeded) == ("IK_FAILED", "TOO_FAR", False)


def test_cancel_mid_move_gives_canceled_and_the_arm_stays_there(kit, arm):
    arm.move_to_pose(0.14, 0.0, 0.14, mode="joint", speed=1.0)
    assert arm.wait_for_task(timeout_s=60).succeeded
    arm.move_to_pose(0.12, 0.08, 0.06, speed=0.01)  # about 11 s
    wait_for(lambda: steps_done(arm) >= 10, what="10 setpoints of the move")
    assert not arm.is_task_complete()
    with pytest.raises(TaskTimeoutError, match=r"did not end within 0\.2 s; it is still running"):
        arm.wait_for_task(timeout_s=0.2)
    with pytest.raises(TaskRunningError, match="the move_to_pose task is still running"):
        arm.open_gripper()

    result = arm.cancel_task()

    assert (result.status, result.goal_status) == ("CANCELED", "CANCELED"), result
    assert 10 <= result.sent_setpoints < result.total_setpoints
    state = settled_state(kit)
    assert [state[name] for name in NAMES] == pytest.approx(
        list(result.final_joints.values()), abs=1e-9
    )
    assert arm.is_task_complete()


def test_bad_arguments_are_named_and_nothing_is_sent(arm):
    before = arm.get_result()
    cases = [
        (lambda: arm.solve(0.1, 0.0), "a spatial arm needs z"),
        (lambda: arm.solve(0.1, 0.0, 0.1, heading=0.3), "a heading is a planar arm's"),
        (lambda: arm.solve(0.1, 0.0, 0.1, roll=0.3), "a roll needs a pitch too"),
        (lambda: arm.solve(0.1, 0.0, 0.1, branch="left"), "branch 'left' is not one of"),
        (lambda: arm.solve("far", 0.0, 0.1), "the target's x must be a number, not 'far'"),
        (lambda: arm.fk([0.1, 0.2]), "joints: 2 values for 5 joints"),
        (lambda: arm.move_to_pose(0.1, 0.0, 0.1, mode="sideways"), "mode 'sideways' is not one"),
        (lambda: arm.move_to_pose(0.1, 0.0, 0.1, waypoints=[(0.1, 0.0)]), "waypoint 0: a spatial"),
        (
            lambda: arm.move_to_pose(0.1, 0.0, 0.1, pitch=-0.5, waypoints=[(0.1, 0.0, 0.1)]),
            "waypoint 0 has no angle, the target a tool angle",
        ),
        (
            lambda: arm.set_gripper(0.08),
            r"position 0.0800 m is outside the gripper's range \[0, 0.055\] m between the "
            "fingers; nothing was sent",
        ),
        (lambda: arm.wait_for_task(timeout_s="soon"), "timeout_s must be a number"),
        (lambda: ArmCommander("left arm"), "invalid namespace 'left arm'"),
        (lambda: ArmCommander(config="no_such_arm.yaml"), "config: .*no_such_arm.yaml"),
    ]
    for call, words in cases:
        with pytest.raises(InvalidArgumentError, match=words):
            call()
    assert arm.get_result() is before
    assert arm.is_task_complete()


def test_a_goal_the_server_rejects_raises_task_refused(kit, arm):
    fault = kit.node.create_client(SetBool, "simulate_fault")
    assert kit.graph.call(fault, SetBool.Request(data=True)).success
    try:
        with pytest.raises(TaskRefusedError, match=r"/kit/gripper_controller/gripper_cmd "
                           r"rejected the goal \(the hardware_node's log says why"):  # fmt: skip
            arm.set_gripper(0.02)
    finally:
        assert kit.graph.call(fault, SetBool.Request(data=False)).success
    assert arm.is_task_complete()

    def accepted() -> bool:  # the node recovers at its next tick after the bus heals
        try:
            arm.set_gripper(0.02)
        except TaskRefusedError:
            return False
        return True

    wait_for(accepted, what="a gripper goal accepted once the fault healed")
    assert arm.wait_for_task(timeout_s=30).succeeded


def test_no_server_within_the_timeout(kit):
    with ArmCommander("nobody_here", timeout_s=1) as nobody:
        for call, words in [
            (lambda: nobody.solve(0.1, 0.0), r"no /nobody_here/solve_ik service within 1 s "
             r"\(is ik_node running, in this namespace and ROS_DOMAIN_ID\?\)"),
            (lambda: nobody.move_to_pose(0.1, 0.0), "no /nobody_here/move_arm action server "
             "within 1 s"),
            (nobody.open_gripper, "no /nobody_here/hardware_node answered within 1 s"),
            (nobody.current_joints, "no joint_states message in /nobody_here within 1 s"),
            (lambda: nobody.wait_until_ready(timeout_s=0.5), "the arm in /nobody_here was not "
             "ready within 0.5 s: no /nobody_here/solve_ik service .*; no joint_states message"),
        ]:  # fmt: skip
            with pytest.raises(ServerUnavailableError, match=words):
                call()
        assert nobody.is_task_complete()
        assert nobody.get_result() is None


def test_an_arm_without_a_gripper_says_so(kit):
    planar = ArmCommander("planar", timeout_s=DISCOVERY_S)
    try:
        with ros_graph() as graph:
            parameters = file_parameters(PACKAGE_DIR / "config" / "arm.yaml")
            graph.add(
                HardwareNode(
                    context=graph.context, namespace="planar", parameter_overrides=parameters
                )
            )
            with pytest.raises(NoGripperError, match="this arm has no gripper"):
                planar.open_gripper()
    finally:
        planar.close()


def test_closing_cancels_the_running_task_and_leaves_a_given_context_initialised(kit, arm):
    arm.move_to_pose(0.14, 0.0, 0.14, mode="joint", speed=1.0)
    assert arm.wait_for_task(timeout_s=60).succeeded
    context = Context()
    rclpy.init(context=context)
    try:
        other = ArmCommander(NAMESPACE, timeout_s=DISCOVERY_S, context=context, config=CONFIG)
        other.move_to_pose(0.12, 0.08, 0.06, speed=0.01)
        wait_for(lambda: steps_done(other) >= 5, what="5 setpoints of the move")
        other.close()
        assert context.ok()
        other.close()  # twice is harmless
    finally:
        rclpy.shutdown(context=context)
    stopped = settled_state(kit)
    joints = arm_joints([stopped[name] for name in stopped], list(stopped))
    assert np.linalg.norm(tip_of(joints) - np.array((0.12, 0.08, 0.06))) > 0.02  # stopped short
