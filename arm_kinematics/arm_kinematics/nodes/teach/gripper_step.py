"""A sequence's gripper step: a goal of the hardware node's `gripper_controller/gripper_cmd`
(control_msgs/GripperCommand), from the trajectory node.

The step's goal is sent, accepted, then waited for; a stop of the sequence (a cancel, a newer
motion, the stop service) cancels it, and the gripper brakes where it is (the hardware node's
cancel). A goal that reaches its position succeeds; a close that stalls has gripped something
and succeeds too ("holding"); any other end (rejected, stalled while opening, replaced by
another client's goal, a fault) fails the step, in the hardware node's words where it has
them. The waits are bounded: the acceptance by ACCEPT_TIMEOUT_S, the result by the gripper's
slowest motion from end to end plus its reach timeout and the joint_states watchdog.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from action_msgs.msg import GoalStatus
from control_msgs.action import GripperCommand
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.trajectory.goals import POLL_S, GoalRun
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics.teach.program import GripperStep

ACTION_NAME = "gripper_controller/gripper_cmd"
ACCEPT_TIMEOUT_S = 5.0
"""Seconds for the hardware node to accept or reject a gripper goal (it answers at once)."""
CANCEL_WAIT_S = 5.0
"""Seconds for a canceled gripper goal's result (the gripper brakes within a fraction)."""


@dataclass(frozen=True)
class GripperEnd:
    """How a gripper step ended: `done` (reached, or a close holding what it grips) and in
    words, with the position (the gripper's unit) where it ended."""

    done: bool
    message: str


class GripperSteps:
    """Gripper goals of the sequences of `node`. The action client exists only for an arm
    whose config has a gripper (a program with a gripper step is refused on any other), so
    that an arm without one has no gripper client on the graph."""

    def __init__(self, node: Node, config: ArmConfig, group: CallbackGroup) -> None:
        gripper = config.gripper
        self._client = (
            None
            if gripper is None
            else ActionClient(node, GripperCommand, ACTION_NAME, callback_group=group)
        )
        self.name = node.resolve_topic_name(ACTION_NAME)
        self._unit = "" if gripper is None else gripper.unit_words
        self._result_s = config.trajectory.joint_state_timeout_s + ACCEPT_TIMEOUT_S
        if gripper is not None:
            joint = gripper.joint
            travel = abs(gripper.open_angle - gripper.closed_angle)
            speed = joint.max_velocity
            self._result_s += travel / speed + speed / joint.max_acceleration
            self._result_s += gripper.reach_timeout_s

    def ready(self, timeout_s: float, wake: threading.Event) -> bool:
        """Whether the gripper's action server is there within `timeout_s` (False at once
        when `wake` is set, or when the arm has no gripper)."""
        if self._client is None:
            return False
        deadline = time.monotonic() + timeout_s
        while not self._client.server_is_ready():
            if wake.is_set() or time.monotonic() >= deadline:
                return False
            wake.wait(POLL_S)
        return True

    def run(self, run: GoalRun, step: GripperStep) -> GripperEnd:
        """Send the step's goal and wait for its end; a stop of `run` cancels it."""
        assert self._client is not None, "a gripper step on an arm without a gripper"
        goal = GripperCommand.Goal()
        goal.command.position = step.position
        handle = _wait(self._client.send_goal_async(goal), ACCEPT_TIMEOUT_S)
        if handle is None:
            return GripperEnd(False, f"{self.name} did not answer within {ACCEPT_TIMEOUT_S:g} s")
        if not handle.accepted:
            return GripperEnd(
                False, f"{self.name} rejected the goal (the hardware node's log says why)"
            )
        result_future = handle.get_result_async()
        answer = _wait(result_future, self._result_s, run.wake)
        if answer is None and run.wake.is_set():
            handle.cancel_goal_async()
            answer = _wait(result_future, CANCEL_WAIT_S)
        if answer is None:
            return GripperEnd(False, f"no result from {self.name} within {self._result_s:.1f} s")
        return self._end(step, answer.status, answer.result)

    def _end(self, step: GripperStep, status: int, result: Any) -> GripperEnd:
        at = f"{result.position:.4g} {self._unit}"
        if status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal:
            return GripperEnd(True, f"the gripper reached {at}")
        if result.stalled and step.closing:
            return GripperEnd(True, f"the gripper closed on something at {at}: holding it")
        if status == GoalStatus.STATUS_CANCELED:
            return GripperEnd(False, f"the gripper braked at {at}")
        why = "stalled" if result.stalled else "was replaced or stopped by a fault"
        return GripperEnd(
            False, f"the gripper {why} at {at}, short of {step.position:.4g} {self._unit}"
        )


def _wait(future: Any, seconds: float, wake: threading.Event | None = None) -> Any:
    """The future's result within `seconds`, else None (at once when `wake` is set)."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    deadline = time.monotonic() + seconds
    while not done.wait(POLL_S):
        if (wake is not None and wake.is_set()) or time.monotonic() >= deadline:
            return None
    return future.result()
