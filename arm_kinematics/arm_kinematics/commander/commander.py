"""`ArmCommander`: the arm's services and actions as task verbs, for scripts (docs/python_api.md).

In the spirit of nav2_simple_commander's BasicNavigator: a task verb (`move_to_pose`,
`move_to_named_pose`, `open_gripper`, `close_gripper`, `set_gripper`, `run_sequence`) sends its
goal and returns as soon as the server accepted it; `is_task_complete`, `get_feedback`,
`get_result`, `wait_for_task` and `cancel_task` follow it. One task at a time: a task verb
while the task still runs raises TaskRunningError (wait for it or cancel it first). Queries
(`solve`, `fk`, `current_joints`, `current_pose`, `gripper_unit`; `save_pose`, `list_poses`,
`delete_pose`) answer at once and may be asked while a task runs. The verbs of named poses and
sequences are `teach.TeachVerbs`; the plumbing behind every verb is `session.Session`.

Radians and metres, joints by name; every wait is bounded by `timeout_s` (the commander's,
unless a verb is given its own) and ends in a `CommanderError` that says what was missing.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from control_msgs.action import GripperCommand
from rclpy.context import Context

from arm_kinematics.commander.answers import (
    FkAnswer,
    GripperFeedback,
    GripperResult,
    IkAnswer,
    MoveFeedback,
    MoveResult,
    Pose,
    SequenceFeedback,
    SequenceResult,
)
from arm_kinematics.commander.errors import (
    CommanderError,
    InvalidArgumentError,
    ServerUnavailableError,
    TaskTimeoutError,
)
from arm_kinematics.commander.gripper import GripperUnit
from arm_kinematics.commander.session import (
    GRIPPER_ACTION,
    HARDWARE_NODE,
    HINT,
    IK_NODE,
    TRAJECTORY_NODE,
    Session,
)
from arm_kinematics.commander.targets import (
    ArmFacts,
    fill_target,
    fill_waypoints,
    joint_values,
    number,
    pose_fields,
    waypoint_fields,
)
from arm_kinematics.commander.teach import TeachVerbs
from arm_kinematics.config import ArmConfig, ConfigError
from arm_kinematics.kinematics.types import BRANCH_NAMES
from arm_kinematics.names import absolute_namespace
from arm_kinematics.nodes.messages import joint_state
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK

MODES = {"linear": MoveArm.Goal.LINEAR, "joint": MoveArm.Goal.JOINT}
Feedback = MoveFeedback | GripperFeedback | SequenceFeedback
Result = MoveResult | GripperResult | SequenceResult
_numbers = itertools.count()


class ArmCommander(TeachVerbs):
    """The arm in `namespace` ('' or '/': the root) as task verbs.

    Args:
        namespace: the arm's namespace, as given to bringup (`left_arm` or `/left_arm`).
        config: an `ArmConfig` or a params file path saying the arm's layout, joint names and
            plane; None: read from the running nodes' parameters when first needed.
        timeout_s: the default bound of every wait for a server, an answer or an acceptance.
        node_name: the commander's node name (default `arm_commander_<pid>_<n>`).
        context: an initialised rclpy Context to use (left as it is on `close`); None: the
            commander's own, without rclpy's signal handlers, shut down on `close`.
        args: command-line arguments for the own context's `rclpy.init` (`--ros-args ...`).

    Use it as a context manager, or call `close()`: closing cancels a task that still runs.
    """

    def __init__(
        self,
        namespace: str = "",
        *,
        config: ArmConfig | str | Path | None = None,
        timeout_s: float = 10.0,
        node_name: str | None = None,
        context: Context | None = None,
        args: Sequence[str] | None = None,
    ) -> None:
        try:
            self.namespace = absolute_namespace(namespace)
        except ValueError as error:
            raise InvalidArgumentError(str(error)) from None
        self.timeout_s = number("timeout_s", timeout_s)
        if isinstance(config, str | Path):
            try:
                config = ArmConfig.from_file(config)
            except ConfigError as error:
                raise InvalidArgumentError(f"config: {error}") from None
        facts = None if config is None else ArmFacts.from_config(config)
        name = node_name or f"arm_commander_{os.getpid()}_{next(_numbers)}"
        self._s = Session(self.namespace, self.timeout_s, facts, name, context, args)

    # --- life ---------------------------------------------------------------------------------

    def __enter__(self) -> ArmCommander:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Cancel a task that still runs (waiting up to `timeout_s` for it to end), then
        leave the ROS graph. Safe to call twice."""
        if self._s.ros.node is None:
            return
        try:
            task = self._s.task
            if task is not None and not task.done:
                task.cancel()
                task.wait_done(self.timeout_s)
        finally:
            self._s.ros.close()

    # --- readiness and state ------------------------------------------------------------------

    def wait_until_ready(self, timeout_s: float | None = None) -> None:
        """Block until the stack answers: the IK node's services, the move_arm action, a
        joint_states message, the arm's and the gripper's parameters and, with a gripper, its
        action. ServerUnavailableError names what did not come (nav2: waitUntilNav2Active)."""
        budget = self._s.budget(timeout_s)
        waits: list[tuple[Callable[[], bool], str]] = [
            (self._s.solve_ik.service_is_ready, self._s.service_words(self._s.solve_ik, IK_NODE)),
            (
                self._s.compute_fk.service_is_ready,
                self._s.service_words(self._s.compute_fk, IK_NODE),
            ),
            (self._s.move_arm.server_is_ready, self._s.action_words("move_arm", TRAJECTORY_NODE)),
        ]
        missing = [words for ready, words in waits if not self._s.ros.wait_until(ready, budget)]
        if self._s.joint_states.wait(budget) is None:
            missing.append(f"no joint_states message (is {HARDWARE_NODE} running, {HINT})")
        if not missing:
            self._s.arm_facts(IK_NODE, budget)
            gripper = self._s.read_gripper(budget, missing_ok=True)
            ready = self._s.gripper_cmd.server_is_ready
            if gripper is not None and not self._s.ros.wait_until(ready, budget):
                missing.append(self._s.action_words(GRIPPER_ACTION, HARDWARE_NODE))
        if missing:
            raise ServerUnavailableError(
                f"the arm in {self.namespace} was not ready within {budget.seconds:g} s: "
                + "; ".join(missing)
            )

    def current_joints(self, timeout_s: float | None = None) -> dict[str, float]:
        """The arm's joints {name: rad} in its order (the gripper's not among them), from the
        latest joint_states."""
        budget = self._s.budget(timeout_s)
        message = self._s.joint_states.wait(budget)
        if message is None:
            raise ServerUnavailableError(
                f"no joint_states message in {self.namespace} within {budget.seconds:g} s "
                f"(is {HARDWARE_NODE} running, {HINT})"
            )
        names = self._s.arm_facts(HARDWARE_NODE, budget).joint_names
        positions = dict(zip(message.name, message.position, strict=False))
        missing = [name for name in names if name not in positions]
        if missing:
            raise CommanderError(f"joint_states lacks the arm's joints {', '.join(missing)}")
        return {name: float(positions[name]) for name in names}

    def current_pose(self, timeout_s: float | None = None) -> Pose:
        """The tool's pose now: the FK (compute_fk) of `current_joints`, in the base frame."""
        answer = self.fk(self.current_joints(timeout_s), timeout_s)
        if answer.tip is None:
            raise CommanderError(f"compute_fk of the current joints: {answer.message}")
        return answer.tip

    # --- queries ------------------------------------------------------------------------------

    def solve(
        self,
        x: float,
        y: float,
        z: float | None = None,
        *,
        heading: float | None = None,
        pitch: float | None = None,
        roll: float | None = None,
        branch: str = "closest",
        seed: Mapping[str, float] | Sequence[float] | None = None,
        frame: str = "",
        timeout_s: float | None = None,
    ) -> IkAnswer:
        """Inverse kinematics (solve_ik) of a tool pose: planar x, y[, heading]; spatial x, y,
        z[, pitch[, roll]]; `branch` one of BRANCH_NAMES; `seed` the joints that `closest`
        moves least from (default: the node's latest joint_states). Moves nothing."""
        if branch not in BRANCH_NAMES:
            raise InvalidArgumentError(f"branch {branch!r} is not one of {', '.join(BRANCH_NAMES)}")
        budget = self._s.budget(timeout_s)
        self._s.wait_service(self._s.solve_ik, IK_NODE, budget)  # its node, then what it says
        facts = self._s.arm_facts(IK_NODE, budget)
        fields = pose_fields(facts, x, y, z, heading=heading, pitch=pitch, roll=roll, frame=frame)
        request = fill_target(SolveIK.Request(branch=BRANCH_NAMES.index(branch)), fields, frame)
        if seed is not None:
            request.seed = joint_state(*joint_values(seed, facts.joint_names, "seed"))
        return IkAnswer.of(self._s.call(self._s.solve_ik, request, IK_NODE, budget))

    def fk(
        self, joints: Mapping[str, float] | Sequence[float], timeout_s: float | None = None
    ) -> FkAnswer:
        """Forward kinematics (compute_fk) of joints {name: rad} or rad in the arm's order."""
        budget = self._s.budget(timeout_s)
        self._s.wait_service(self._s.compute_fk, IK_NODE, budget)
        by_name = isinstance(joints, Mapping)
        names = None if by_name else self._s.arm_facts(IK_NODE, budget).joint_names
        request = ComputeFK.Request(joints=joint_state(*joint_values(joints, names, "joints")))
        return FkAnswer.of(self._s.call(self._s.compute_fk, request, IK_NODE, budget))

    def gripper_unit(self, timeout_s: float | None = None) -> GripperUnit:
        """The gripper's joint, unit and ends, from its hardware_node's parameters;
        NoGripperError for an arm without one."""
        return self._s.read_gripper(self._s.budget(timeout_s))

    # --- tasks --------------------------------------------------------------------------------

    def move_to_pose(
        self,
        x: float,
        y: float,
        z: float | None = None,
        *,
        heading: float | None = None,
        pitch: float | None = None,
        roll: float | None = None,
        mode: str = "linear",
        speed: float = 0.0,
        max_step: float = 0.0,
        waypoints: Sequence[Sequence[float]] = (),
        frame: str = "",
        on_feedback: Callable[[MoveFeedback], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """Start a MoveArm goal to a tool pose (planar x, y[, heading]; spatial x, y,
        z[, pitch[, roll]]): `mode` "linear" (a straight line; through `waypoints`, tuples
        like the target) or "joint"; `speed` m/s (linear) or a fraction of the joint limits
        (joint), 0 the configured default; `max_step` m, 0 the default. Returns once the goal
        is accepted (nav2: goToPose, goThroughPoses)."""
        if mode not in MODES:
            raise InvalidArgumentError(f"mode {mode!r} is not one of {', '.join(MODES)}")
        self._s.check_no_task()
        budget = self._s.budget(timeout_s)
        self._s.wait_action(self._s.move_arm, "move_arm", TRAJECTORY_NODE, budget)
        facts = self._s.arm_facts(TRAJECTORY_NODE, budget)
        target = pose_fields(facts, x, y, z, heading=heading, pitch=pitch, roll=roll, frame=frame)
        goal = MoveArm.Goal(
            mode=MODES[mode], speed=number("speed", speed), max_step=number("max_step", max_step)
        )
        fill_target(goal, target, frame)
        fill_waypoints(
            goal, target, [waypoint_fields(facts, w, i, frame) for i, w in enumerate(waypoints)]
        )
        task = self._s.new_task(
            "move_to_pose", self._s.move_arm, MoveFeedback.of, MoveResult.of, on_feedback
        )
        self._s.start(task, goal, "move_arm", TRAJECTORY_NODE, "", budget)

    def open_gripper(
        self,
        *,
        on_feedback: Callable[[GripperFeedback], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """Start a gripper goal to fully open (the hardware node's gripper.open_*)."""
        unit = self._s.read_gripper(self._s.budget(timeout_s))
        self.set_gripper(unit.open, on_feedback=on_feedback, timeout_s=timeout_s)

    def close_gripper(
        self,
        *,
        on_feedback: Callable[[GripperFeedback], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """Start a gripper goal to closed (gripper.closed_*): the fingers stop on what they
        hold, and the result then says stalled."""
        unit = self._s.read_gripper(self._s.budget(timeout_s))
        self.set_gripper(unit.closed, on_feedback=on_feedback, timeout_s=timeout_s)

    def set_gripper(
        self,
        position: float,
        *,
        max_effort: float = 0.0,
        on_feedback: Callable[[GripperFeedback], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """Start a GripperCommand goal to `position`, in the unit of the hardware node's
        gripper.position_unit: m between the fingers (opening_m) or the joint's rad
        (angle_rad); outside [closed, open] it raises InvalidArgumentError and sends nothing.
        `max_effort` is passed on (hobby servos do not apply it)."""
        self._s.check_no_task()
        budget = self._s.budget(timeout_s)
        goal = GripperCommand.Goal()
        goal.command.position = self._s.read_gripper(budget).check(position)
        goal.command.max_effort = number("max_effort", max_effort)
        task = self._s.new_task(
            "set_gripper", self._s.gripper_cmd, GripperFeedback.of, GripperResult.of, on_feedback
        )
        hint = f" (the {HARDWARE_NODE}'s log says why: a hardware fault or its shutdown)"
        self._s.start(task, goal, GRIPPER_ACTION, HARDWARE_NODE, hint, budget)

    def is_task_complete(self) -> bool:
        """True when no task runs (none was started, or it ended) (nav2: isTaskComplete)."""
        return self._s.task is None or self._s.task.done

    def get_feedback(self) -> Feedback | None:
        """The task's latest feedback; None before the first (nav2: getFeedback)."""
        return None if self._s.task is None else self._s.task.feedback

    def get_result(self) -> Result | None:
        """The last task's result; None while it runs or when none was started (nav2:
        getResult)."""
        return None if self._s.task is None else self._s.task.result

    def wait_for_task(self, timeout_s: float | None = None) -> Result | None:
        """Block until the task ends and return its result (the last one's again once it
        has ended; None when no task was started). `timeout_s` None waits however long the
        task takes; otherwise TaskTimeoutError after it, the task still running."""
        seconds = None if timeout_s is None else number("timeout_s", timeout_s)
        task = self._s.task
        if task is None:
            return None
        if not task.wait_done(seconds):
            self._s.ros.check()
            raise TaskTimeoutError(
                f"the {task.name} task did not end within {seconds:g} s; it is still "
                "running (cancel_task() stops it)"
            )
        return task.result

    def cancel_task(self, timeout_s: float | None = None) -> Result | None:
        """Cancel the running task and wait up to `timeout_s` for its result, which it
        returns: CANCELED, or how it ended if it ended first. None when no task was started
        (nav2: cancelTask)."""
        task = self._s.task
        if task is None:
            return None
        if not task.done:
            task.cancel()
        seconds = self._s.timeout(timeout_s)
        if not task.wait_done(seconds):
            self._s.ros.check()
            raise TaskTimeoutError(
                f"the {task.name} task did not end within {seconds:g} s of the cancel request"
            )
        return task.result
