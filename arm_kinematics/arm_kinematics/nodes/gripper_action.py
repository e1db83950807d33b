"""The gripper action of the hardware node: `gripper_controller/gripper_cmd`
(control_msgs/action/GripperCommand), the name and type ros2_control's GripperActionController
serves, so MoveIt's gripper controller handle and `ros2 action send_goal` talk to it as to that.

- Goal `command.position`: the gripper's configured unit (`gripper.position_unit`: metres
  between the fingers, or the gripper joint's angle in radians). A position outside [closed,
  open] (the file's `gripper.closed_*` / `gripper.open_*`) is REJECTED, not clamped, with a
  warning that names the range; so is any goal during a hardware fault or the shutdown.
  (ros2_control's controller passes any position on to its hardware; MoveIt's named gripper
  states lie within the URDF limits and pass here.)
- `command.max_effort` is accepted and not applied: hobby servos have no effort control and no
  force measurement. Every result and feedback says `effort` 0.0.
- The goal SUCCEEDS (`reached_goal`) once `joint_states` has the gripper's joint within
  `trajectory.goal_tolerance_deg` of the goal; it is ABORTED as `stalled` when not there
  `gripper.reach_timeout_s` after its motion should have ended (the fingers stopped on
  something; the servo keeps its command, pressing on, as ros2_control's does: send the
  reported position to relieve it). Hobby servos report no position, so on a PCA9685 a goal
  is always reached when its motion ends; the sim backend's obstacle makes a stall.
- The gripper's joint moves from rest to rest within its `max_velocity_deg_s` and
  `max_acceleration_deg_s2` (`hardware/joint_profile.py`); a goal that replaces a running one
  starts from the joint's velocity at that moment.
- A cancel brakes the gripper to rest within its acceleration limit and then ends CANCELED
  with the position where it stopped. A new goal replaces the running one,
  which ends ABORTED with `reached_goal` false (rclpy can only mark a goal CANCELED that a
  client asked to cancel; ros2_control reports a replaced goal canceled). So does a
  `joint_commands` message that sets the gripper's joint. A fault or the shutdown aborts.
- Feedback at most every FEEDBACK_PERIOD_S: the position now, effort 0, not stalled, not yet
  reached.
"""

from __future__ import annotations

import math
import threading
from typing import Any, Protocol

from control_msgs.action import GripperCommand
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from arm_kinematics.config import GripperConfig
from arm_kinematics.hardware.driver import MotionBlockedError
from arm_kinematics.hardware.gripper import (
    GoalState,
    GripperMotion,
    GripperReading,
    check_goal_position,
)
from arm_kinematics.hardware.mapping import InvalidCommandError

ACTION_NAME = "gripper_controller/gripper_cmd"
FEEDBACK_PERIOD_S = 0.1
"""Feedback at most at 10 Hz (ros2_control's action_monitor_rate is 20 Hz by default)."""


class GripperDriver(Protocol):
    """What the action needs of the hardware node (it owns the servos)."""

    def start_gripper(self, position: float) -> GripperMotion: ...  # or MotionBlockedError
    def stop_gripper(self) -> None: ...
    def gripper_now(self) -> GripperReading: ...
    def wait_for_change(self, timeout_s: float) -> None: ...


class GripperAction:
    """The action server on `node` (a Node that is a GripperDriver); see the module docstring."""

    def __init__(self, node: Node, gripper: GripperConfig, tolerance: float) -> None:
        self._node = node
        self._driver: GripperDriver = node  # type: ignore[assignment]
        self._gripper = gripper
        self._tolerance = tolerance  # rad
        self._lock = threading.Lock()
        self._active: bytes | None = None  # the goal that may move the gripper
        self._replaced: dict[bytes, str] = {}  # goal id -> why it was replaced
        self._server = ActionServer(
            node,
            GripperCommand,
            ACTION_NAME,
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            handle_accepted_callback=self._on_accepted,
            cancel_callback=lambda _handle: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup(),
        )
        low, high = gripper.position_limits
        node.get_logger().info(
            f"gripper '{gripper.name}' on action '{node.resolve_topic_name(ACTION_NAME)}': "
            f"positions in {gripper.unit_words}, [{low:g}, {high:g}] (closed "
            f"{gripper.closed_position:g}, open {gripper.open_position:g}); max_effort is "
            "accepted but not applied (hobby servos have no effort control): results say effort 0"
        )

    @property
    def running(self) -> bool:
        """Whether a goal may move the gripper now."""
        with self._lock:
            return self._active is not None

    def preempt(self, reason: str) -> None:
        """End the running goal (ABORTED): something newer moves the gripper."""
        with self._lock:
            if self._active is not None:
                self._replaced[self._active] = reason
                self._active = None

    # --- callbacks --------------------------------------------------------------------------

    def _on_goal(self, goal: GripperCommand.Goal) -> GoalResponse:
        try:
            check_goal_position(self._gripper, goal.command.position)
        except InvalidCommandError as error:
            self._node.get_logger().warning(f"gripper goal rejected: {error}; nothing moved")
            return GoalResponse.REJECT
        problem = self._driver.gripper_now().problem
        if problem is not None:
            self._node.get_logger().warning(f"gripper goal rejected: {problem}; nothing moved")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _on_accepted(self, handle: ServerGoalHandle) -> None:
        key = bytes(handle.goal_id.uuid)
        with self._lock:
            if self._active is not None:
                self._replaced[self._active] = "a newer gripper goal replaced it"
            self._active = key
        handle.execute()

    def _execute(self, handle: ServerGoalHandle) -> GripperCommand.Result:
        key = bytes(handle.goal_id.uuid)
        command = handle.request.command
        position = check_goal_position(self._gripper, command.position)  # _on_goal passed it
        motion: GripperMotion | None = None
        try:
            with self._lock:
                if self._active == key:
                    motion = self._driver.start_gripper(position)
                why = self._replaced.get(key, "replaced")  # before it began
        except MotionBlockedError as error:
            why = str(error)
        if motion is None:
            return self._end(handle, key, "aborted", why)
        effort = ""
        if command.max_effort != 0.0:
            effort = f", max_effort {command.max_effort:g} not applied (no effort control)"
        self._node.get_logger().info(
            f"gripper goal: {position:g} {self._gripper.unit_words} ({self._gripper.name} "
            f"{math.degrees(motion.target):.1f} deg){effort}"
        )
        return self._follow(handle, key, motion)

    def _follow(
        self, handle: ServerGoalHandle, key: bytes, motion: GripperMotion
    ) -> GripperCommand.Result:
        """Until the goal ends: reached, stalled, replaced, canceled (after the brake) or
        stopped by a fault or the shutdown; feedback meanwhile."""
        last_feedback = -math.inf
        braking = False
        ended_at: float | None = None  # when the hardware's motion was first seen ended
        while True:
            reading = self._driver.gripper_now()
            if reading.moving:
                ended_at = None
            elif ended_at is None:
                ended_at = reading.now_s
            with self._lock:
                replaced = None
                if self._active != key:
                    replaced = self._replaced.pop(key, "replaced")
                if not braking and replaced is None and handle.is_cancel_requested:
                    self._driver.stop_gripper()  # still the active goal: brake to rest
                    braking = True
                    continue
            if braking and (replaced is not None or not reading.moving or reading.problem):
                return self._end(handle, key, "canceled", "canceled")
            if replaced is not None:
                return self._end(handle, key, "aborted", replaced)
            if reading.problem is not None:
                return self._end(handle, key, "aborted", reading.problem)
            state = motion.state(reading.now_s, reading.joint_rad, ended_at)
            if not braking and state is GoalState.REACHED:
                return self._end(handle, key, "succeeded", "reached")
            if not braking and state is GoalState.STALLED:
                return self._end(handle, key, "aborted", "stalled", stalled=True, motion=motion)
            if reading.now_s - last_feedback >= FEEDBACK_PERIOD_S:
                last_feedback = reading.now_s
                handle.publish_feedback(self._values(GripperCommand.Feedback(), reading.joint_rad))
            self._driver.wait_for_change(FEEDBACK_PERIOD_S)

    # --- the end of a goal ------------------------------------------------------------------

    def _values(self, message: Any, joint: float, *, stalled: bool = False) -> Any:
        message.position = float(self._gripper.position(joint))
        message.effort = 0.0  # not measurable on hobby servos
        message.stalled = stalled
        message.reached_goal = False
        return message

    def _end(
        self,
        handle: ServerGoalHandle,
        key: bytes,
        how: str,
        why: str,
        *,
        stalled: bool = False,
        motion: GripperMotion | None = None,
    ) -> GripperCommand.Result:
        with self._lock:
            if self._active == key:
                self._active = None
            self._replaced.pop(key, None)
        joint = self._driver.gripper_now().joint_rad
        result = self._values(GripperCommand.Result(), joint, stalled=stalled)
        result.reached_goal = how == "succeeded"
        at = f"{result.position:g} {self._gripper.unit_words}"
        log = self._node.get_logger()
        if how == "succeeded":
            handle.succeed()
            log.info(f"gripper goal reached: {at}")
        elif how == "canceled":
            handle.canceled()
            log.info(f"gripper goal canceled: stopped at {at}")
        else:
            handle.abort()
            if stalled and motion is not None:
                log.warning(
                    f"gripper goal stalled at {at} (goal {motion.position:g}), "
                    f"{self._gripper.reach_timeout_s:g} s after its ramp should have ended: "
                    "the fingers stopped on something; the servo keeps pressing toward the goal"
                )
            else:
                log.warning(f"gripper goal aborted at {at}: {why}")
        return result
