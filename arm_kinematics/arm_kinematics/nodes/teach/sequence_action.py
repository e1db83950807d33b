"""The trajectory node's `run_sequence` action (arm_kinematics_interfaces/RunSequence): a taught
sequence from its goal to its result, admitted by the node's one rule of who moves.

- Every goal is accepted (only the shutdown rejects) and read at once: its program (the goal's
  text, or a saved sequence by name) checked, its named poses looked up and checked, its moves
  made (`resolve_sequence`). A goal that is not a sequence for this arm ends at once with
  INVALID_SEQUENCE and the first problem, naming its step; it disturbs nobody.
- A valid one is admitted as a motion (`Admission.admit`, label "sequence"): it preempts the
  running motion, and a newer goal, a jog or the `stop` service ends it (PREEMPTED); a cancel
  stops it smoothly (CANCELED); calibration mode and the shutdown end it too.
- Feedback at each step's start and, during a move, with the stream's (at most every 0.1 s):
  the step (1-based), its name and kind, the repeat, the step's share done and the sequence's.
- The result's status is RunSequence's; `move_status`, `ik_status` and `failed_point` say why a
  move failed, `final_joints` where the arm is. Goal status: SUCCEEDED, CANCELED for a client's
  cancel, ABORTED otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from geometry_msgs.msg import Point
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.messages import joint_state
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.teach.named import NamedPoses
from arm_kinematics.nodes.teach.sequence import (
    LABEL,
    PlannedStep,
    SequenceMove,
    SequenceOutcome,
    resolve_sequence,
)
from arm_kinematics.nodes.teach.settings import TeachSettings
from arm_kinematics.nodes.teach.status import STOPS, SequenceResult, status_name
from arm_kinematics.nodes.trajectory.goals import Admission, GoalRun, Outcome, Result
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics.teach.names import TeachError
from arm_kinematics.teach.program import read_program
from arm_kinematics.teach.store import SequenceStore
from arm_kinematics_interfaces.action import RunSequence

ACTION_NAME = "run_sequence"
#: How a run that ended before its sequence began (MoveArm's status) ends it; else STEP_FAILED.
BEFORE = {
    Result.INVALID_GOAL: SequenceResult.INVALID_SEQUENCE,
    Result.NO_JOINT_STATE: SequenceResult.PLAN_FAILED,
    Result.IK_UNAVAILABLE: SequenceResult.PLAN_FAILED,
    **STOPS,
}


class SequenceAction:
    """The action server on the trajectory node `node`; see the module docstring.

    `outcome_of(run)` runs an admitted run to its Outcome (the node's goal run: the motion
    taken, the start pose, then the sequence's runner).
    """

    def __init__(
        self,
        node: Node,
        config: ArmConfig,
        poses: ToolPoses,
        named: NamedPoses,
        store: SequenceStore,
        settings: TeachSettings,
        admission: Admission,
        outcome_of: Callable[[GoalRun], Outcome],
        group: CallbackGroup,
    ) -> None:
        self._node = node
        self._config = config
        self._poses = poses
        self._named = named
        self._store = store
        self._settings = settings
        self._admission = admission
        self._outcome_of = outcome_of
        self._handles: dict[bytes, ServerGoalHandle] = {}
        self._at: dict[bytes, PlannedStep] = {}  # the step each running sequence is in
        self._server = ActionServer(
            node,
            RunSequence,
            ACTION_NAME,
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            handle_accepted_callback=self._on_accepted,
            cancel_callback=self._on_cancel,
            callback_group=group,
        )
        self.name = node.resolve_topic_name(ACTION_NAME)

    # --- feedback ---------------------------------------------------------------------------

    def step_begins(self, run: GoalRun, step: PlannedStep) -> None:
        """A step of `run` begins: feedback at its start."""
        self._at[run.key] = step
        self.feedback(run, 0, 1, step.start)

    def feedback(self, run: GoalRun, done: int, count: int, joints: tuple[float, ...]) -> None:
        """One feedback of the sequence `run`: `done` of `count` of its step, the commanded
        `joints` (rad)."""
        handle, step = self._handles.get(run.key), self._at.get(run.key)
        sequence = run.move
        if handle is None or step is None or not isinstance(sequence, SequenceMove):
            return
        count_steps = len(sequence.steps)
        fraction = done / count if count else 1.0
        index = (step.repeat - 1) * count_steps + step.number - 1
        message = RunSequence.Feedback(
            step=step.number,
            total_steps=count_steps,
            step_name=step.step.name,
            step_kind=step.step.kind,
            repeat=step.repeat,
            total_repeats=sequence.program.repeat,
            step_fraction=fraction,
            fraction=(index + fraction) / sequence.total,
        )
        x, y, z = self._poses.tip(joints)
        message.tip = Point(x=x, y=y, z=z)
        message.joints = joint_state(self._config.joint_names, joints)
        handle.publish_feedback(message)

    # --- callbacks --------------------------------------------------------------------------

    def _on_goal(self, _goal: RunSequence.Goal) -> GoalResponse:
        return self._admission.goal_response(self._node.get_logger(), LABEL)

    def _on_accepted(self, handle: ServerGoalHandle) -> None:
        key = bytes(handle.goal_id.uuid)
        self._handles[key] = handle
        try:
            sequence = self._read(handle.request)
        except Refusal as refusal:  # ends at once INVALID_SEQUENCE, disturbs nobody
            self._admission.refuse(key, refusal, LABEL)
        else:
            self._admission.admit(key, sequence, LABEL)
        handle.execute()

    def _read(self, goal: RunSequence.Goal) -> SequenceMove:
        """The goal's sequence, resolved for this arm; a Refusal says why it is none."""
        try:
            if goal.program.strip():
                text, name = goal.program, goal.name or LABEL
            elif goal.name:
                text, name = self._store.read(goal.name), goal.name
            else:
                raise TeachError("give a program (its text) or the name of a saved sequence")
            program = read_program(text, self._config, name)
        except TeachError as error:
            raise Refusal(str(error)) from None
        return resolve_sequence(program, self._config, self._named, self._settings)

    def _on_cancel(self, handle: ServerGoalHandle) -> CancelResponse:
        return self._admission.cancel_response(handle)

    def _execute(self, handle: ServerGoalHandle) -> RunSequence.Result:
        run = self._admission.admitted_run(handle)
        key = run.key
        try:
            outcome = self._outcome_of(run)
        finally:
            self._handles.pop(key, None)
            self._at.pop(key, None)
        result = self._result(run, outcome)
        if result.status == SequenceResult.SUCCEEDED:
            handle.succeed()
        elif result.status == SequenceResult.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        line = f"{LABEL} {status_name(result.status)}: {result.message}"
        if result.status in (SequenceResult.SUCCEEDED, SequenceResult.CANCELED):
            self._node.get_logger().info(line)
        else:
            self._node.get_logger().warning(line)
        return result

    def _result(self, run: GoalRun, outcome: Outcome) -> RunSequence.Result:
        result = RunSequence.Result(message=outcome.message, ik_status=outcome.ik_status)
        sequence = run.move
        if isinstance(sequence, SequenceMove):
            result.total_steps = len(sequence.steps)
            result.total_repeats = sequence.program.repeat
        if isinstance(outcome, SequenceOutcome):
            result.status = outcome.sequence_status
            result.step, result.step_name = outcome.step_number, outcome.step_name
            result.repeat = outcome.repeat_number
            result.planning_time, result.run_time = outcome.planning_s, outcome.run_s
        else:  # ended before the sequence began: refused, no start pose, stopped, a bug
            result.status = BEFORE.get(outcome.status, SequenceResult.STEP_FAILED)
        if result.status != SequenceResult.INVALID_SEQUENCE:
            result.move_status = outcome.status
        if outcome.failed_point is not None:
            x, y, z = self._poses.point(outcome.failed_point)
            result.failed_point = Point(x=x, y=y, z=z)
        if outcome.final is not None:
            stamp = self._node.get_clock().now().to_msg()
            result.final_joints = joint_state(self._config.joint_names, outcome.final, stamp=stamp)
            x, y, z = self._poses.tip(outcome.final)
            result.final_tip = Point(x=x, y=y, z=z)
        return result
