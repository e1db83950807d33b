"""The trajectory node's `<controller_name>/follow_joint_trajectory` action
(control_msgs/action/FollowJointTrajectory), named and behaving as ros2_controllers'
joint_trajectory_controller serves it, so MoveIt's FollowJointTrajectory controller handle and
`ros2 action send_goal` talk to it as to that controller. The rules are in
`nodes/trajectory/follow_joint_trajectory.py`; this module is the rclpy side: the read-only
parameters, the action server, feedback and results.

- Every goal is accepted (only the shutdown rejects) and checked at once, as a MoveArm goal: a
  refused one ends ABORTED with its error_code (INVALID_JOINTS, OLD_HEADER_TIMESTAMP,
  INVALID_GOAL) and a reason a person can act on, and disturbs nobody. (The controller rejects
  such goals, but a ROS 2 rejection carries no result, so its client never learns why.)
- A valid goal is admitted by the node's one rule (`goals.Admission`): it preempts the running
  motion (MoveArm goal, clicked point, joint trajectory or FollowJointTrajectory goal) and is
  preempted by a newer one.
- Goal status and result agree: SUCCEEDED only with SUCCESSFUL, CANCELED for a client's cancel,
  ABORTED for everything else.

Parameters (read-only, this node only; tolerances in degrees here, radians in goals):
`controller_name` (`arm_controller`), `allow_partial_joints_goal` (false),
`constraints.goal_time_s` (1.0; 0: no time limit), `constraints.<joint>.trajectory_deg` (0: the
path is not checked) and `constraints.<joint>.goal_deg` (`trajectory.goal_tolerance_deg`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from control_msgs.action import FollowJointTrajectory
from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from rclpy.validate_node_name import validate_node_name

from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.params import ParameterStartupError
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.trajectory.follow_joint_trajectory import (
    DEFAULT_CONTROLLER_NAME,
    LABEL,
    FeedbackValues,
    FollowResult,
    FollowSettings,
    Tolerances,
    TrajectoryFollower,
    error_name,
    feedback_message,
    goal_end,
)
from arm_kinematics.nodes.trajectory.goals import Admission, GoalRun, Outcome, Result

#: Default of `constraints.goal_time_s`: the controller's is 0 (no limit), with its goal
#: tolerances 0 (not checked); here the goal tolerance is checked, so a missed one ends.
DEFAULT_GOAL_TIME_S = 1.0


def _fail(node: Node, name: str, value: Any, why: str) -> None:
    node.get_logger().fatal(f"invalid configuration: parameter '{name}' = {value!r}: {why}")
    raise ParameterStartupError()


def _declare(node: Node, name: str, default: Any, kind: int, description: str) -> Any:
    descriptor = ParameterDescriptor(
        type=kind,
        description=description,
        read_only=True,
        # A whole number in a params file for a double must not be refused.
        dynamic_typing=kind == ParameterType.PARAMETER_DOUBLE,
    )
    try:
        return node.declare_parameter(name, default, descriptor).value
    except Exception as error:  # rclpy's complaint about a value of the wrong type
        node.get_logger().fatal(f"invalid configuration: parameter '{name}': {error}")
        raise ParameterStartupError() from None


def _declare_bound(node: Node, name: str, default: float, description: str) -> float:
    """A double parameter >= 0 (finite)."""
    value = _declare(node, name, float(default), ParameterType.PARAMETER_DOUBLE, description)
    if isinstance(value, bool) or not isinstance(value, int | float):
        _fail(node, name, value, "must be a number")
    if not math.isfinite(value) or value < 0.0:
        _fail(node, name, value, "must be a finite number >= 0 (0: not checked)")
    return float(value)


def declare_follow_parameters(node: Node, config: ArmConfig) -> FollowSettings:
    """Declare and validate this action's read-only parameters (module docstring); one FATAL
    line and ParameterStartupError (exit code 2) for a bad value."""
    string, boolean = ParameterType.PARAMETER_STRING, ParameterType.PARAMETER_BOOL
    controller = _declare(
        node,
        "controller_name",
        DEFAULT_CONTROLLER_NAME,
        string,
        "the controller name of the FollowJointTrajectory action "
        "<namespace>/<controller_name>/follow_joint_trajectory (a node name, as a "
        "ros2_control controller's)",
    )
    try:
        validate_node_name(controller)
    except Exception as error:  # rclpy's InvalidNodeNameException, its first line the reason
        _fail(node, "controller_name", controller, str(error).splitlines()[0])
    partial = _declare(
        node,
        "allow_partial_joints_goal",
        False,
        boolean,
        "accept FollowJointTrajectory goals for a subset of the arm's joints (the others hold)",
    )
    goal_time = _declare_bound(
        node,
        "constraints.goal_time_s",
        DEFAULT_GOAL_TIME_S,
        "s after a FollowJointTrajectory goal's last point by which every joint must be within "
        "its goal tolerance, unless the goal gives goal_time_tolerance; 0: no limit",
    )
    path, goal = [], []
    default_goal_deg = math.degrees(config.trajectory.goal_tolerance)
    for joint in config.joint_names:
        path_deg = _declare_bound(
            node,
            f"constraints.{joint}.trajectory_deg",
            0.0,
            f"degrees {joint} may be off its FollowJointTrajectory path while it runs, unless "
            "the goal gives a path_tolerance; 0: not checked",
        )
        goal_deg = _declare_bound(
            node,
            f"constraints.{joint}.goal_deg",
            default_goal_deg,
            f"degrees {joint} may be off a FollowJointTrajectory goal's last point at the end, "
            "unless the goal gives a goal_tolerance; 0: not checked",
        )
        path.append(math.radians(path_deg))
        goal.append(math.radians(goal_deg))
    return FollowSettings(
        controller_name=controller,
        allow_partial=bool(partial),
        defaults=Tolerances(tuple(path), tuple(goal), goal_time),
    )


class FollowJointTrajectoryAction:
    """The action server on the trajectory node `node`; see the module docstring.

    `follower` checks and runs the goals; `admission` is the node's one rule of who moves;
    `outcome_of(run)` runs an admitted goal to its Outcome (the node's goal run: the motion
    taken, the start pose, `follower.run`); `wait_current()` the latest joint_states (None
    when none come in time).
    """

    def __init__(
        self,
        node: Node,
        follower: TrajectoryFollower,
        admission: Admission,
        outcome_of: Callable[[GoalRun], Outcome],
        wait_current: Callable[[], tuple[float, ...] | None],
        group: CallbackGroup,
    ) -> None:
        self._node = node
        self._follower = follower
        self._admission = admission
        self._outcome_of = outcome_of
        self._wait_current = wait_current
        self._handles: dict[bytes, ServerGoalHandle] = {}
        settings = follower.settings
        self._server = ActionServer(
            node,
            FollowJointTrajectory,
            settings.action_name,
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            handle_accepted_callback=self._on_accepted,
            cancel_callback=self._on_cancel,
            callback_group=group,
        )
        self.name = node.resolve_topic_name(settings.action_name)
        defaults = settings.defaults
        checked = [
            f"{joint} {math.degrees(path):g}/{math.degrees(goal):g}"
            for joint, path, goal in zip(
                follower.config.joint_names, defaults.path, defaults.goal, strict=True
            )
        ]
        node.get_logger().info(
            f"FollowJointTrajectory on '{self.name}': "
            f"{'partial goals allowed' if settings.allow_partial else 'every joint in a goal'}; "
            f"default tolerances path/goal (deg, 0: not checked) {', '.join(checked)}; "
            f"goal time {defaults.goal_time:g} s"
        )

    def publish_feedback(self, run: GoalRun, values: FeedbackValues) -> None:
        """One feedback of the goal `run` (called by the stream at every setpoint)."""
        handle = self._handles.get(run.key)
        if handle is None:
            return
        message = feedback_message(self._follower.config.joint_names, values)
        message.header.stamp = self._node.get_clock().now().to_msg()
        handle.publish_feedback(message)

    # --- callbacks ----------------------------------------------------------------------------

    def _on_goal(self, _goal: FollowJointTrajectory.Goal) -> GoalResponse:
        return self._admission.goal_response(self._node.get_logger(), LABEL)

    def _on_accepted(self, handle: ServerGoalHandle) -> None:
        key = bytes(handle.goal_id.uuid)
        self._handles[key] = handle
        try:
            move = self._follower.validate(handle.request, self._wait_current())
        except Refusal as refusal:  # ends at once with its error_code, disturbs nobody
            self._admission.refuse(key, refusal, LABEL)
        else:
            self._admission.admit(key, move, LABEL)
        handle.execute()

    def _on_cancel(self, handle: ServerGoalHandle) -> CancelResponse:
        return self._admission.cancel_response(handle)

    def _execute(self, handle: ServerGoalHandle) -> FollowJointTrajectory.Result:
        run = self._admission.admitted_run(handle)
        key = run.key
        try:
            outcome = self._outcome_of(run)
        finally:
            self._handles.pop(key, None)
        end = goal_end(outcome, run.refusal, handle.is_cancel_requested)
        if end.status == "succeeded":
            handle.succeed()
        elif end.status == "canceled":
            handle.canceled()
        else:
            handle.abort()
        line = f"{LABEL} {error_name(end.error_code)} ({end.status}): {end.error_string}"
        if outcome.status in (Result.SUCCEEDED, Result.CANCELED, Result.PREEMPTED):
            self._node.get_logger().info(line)
        else:
            self._node.get_logger().warning(line)
        return FollowResult(error_code=end.error_code, error_string=end.error_string)
