"""A sequence from the arm taken to its outcome: planned whole, then step after step.

`SequenceRunner.run` is what the trajectory node runs for an admitted sequence once it holds
the arm (`Admission.take_motion`) and knows where the arm is: `plan_sequence` first (nothing
moves unless every step plans), the gripper's action server looked for when a step needs it,
the whole planned path drawn, then each step: a move streamed by the node's `SetpointStream`
(the same watchdog, arrival check and smooth stop as a goal's), a gripper goal
(`GripperSteps`), a wait. A stop of the run (a cancel, a newer motion, the stop service, the
shutdown, calibration mode) ends the step it is in the way that step stops (a move decelerates
along its path, the gripper brakes, a wait ends) and the sequence with it; the outcome names
the step and where the arm is. No rclpy here.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, SolvePoints, SpatialArm
from arm_kinematics.nodes.teach.gripper_step import GripperEnd, GripperSteps
from arm_kinematics.nodes.teach.sequence import (
    LABEL,
    PlannedStep,
    SequenceMove,
    SequenceOutcome,
    ended,
    plan_sequence,
)
from arm_kinematics.nodes.teach.status import STOPS, SequenceResult
from arm_kinematics.nodes.trajectory.goals import GoalRun, Outcome, Result
from arm_kinematics.nodes.trajectory.streaming import SetpointStream
from arm_kinematics.teach.program import GripperStep, WaitStep

#: progress(run, step, total): a step begins (for feedback).
Progress = Callable[[GoalRun, PlannedStep], None]


class SequenceRunner:
    """Runs sequences on the trajectory node's stream; see the module docstring.

    `solver(run)` is the IK of a run's moves (the IK node's batch, as for a goal);
    `describe(joints)` says where the tool is; `draw(start, planned)` shows the planned path,
    `draw_failed(start, outcome)` a move that cannot be planned; `log(line)` an INFO line.
    """

    def __init__(
        self,
        arm: PlanarArm | SpatialArm,
        config: ArmConfig,
        stream: SetpointStream,
        solver: Callable[[GoalRun], SolvePoints],
        gripper: GripperSteps,
        progress: Progress,
        describe: Callable[[tuple[float, ...]], str],
        draw: Callable[[tuple[float, ...], list[PlannedStep]], None],
        draw_failed: Callable[[tuple[float, ...], Outcome], None],
        log: Callable[[str], None],
    ) -> None:
        self.arm = arm
        self.config = config
        self.stream = stream
        self._solver = solver
        self._gripper = gripper
        self._progress = progress
        self._describe = describe
        self._draw = draw
        self._draw_failed = draw_failed
        self._log = log

    def run(self, run: GoalRun, sequence: SequenceMove, start: tuple[float, ...]) -> Outcome:
        """Plan `sequence` from the joints `start` (rad), then run it; its SequenceOutcome."""
        began = time.monotonic()
        planned = plan_sequence(self.arm, self.config, sequence, start, self._solver(run), run)
        planning_s = time.monotonic() - began
        if isinstance(planned, SequenceOutcome):
            if planned.sequence_status == SequenceResult.PLAN_FAILED:
                self._draw_failed(start, planned)
            return _with(planned, planning_s)
        if any(isinstance(step.step, GripperStep) for step in planned):
            timeout = self.config.trajectory.joint_state_timeout_s
            if not self._gripper.ready(timeout, run.wake):
                first = next(s for s in planned if isinstance(s.step, GripperStep))
                stopped = run.stopped(start)
                if stopped is not None:
                    return _with(ended(stopped, STOPS[stopped.status], stopped.message, first),
                                 planning_s)  # fmt: skip
                message = (
                    f"{first.where(sequence)} needs the gripper, and no {self._gripper.name} "
                    f"action server answered within {timeout:g} s (is the hardware node "
                    "running?): nothing moved"
                )
                failed = Outcome(Result.SUCCEEDED, "", final=start)
                return _with(ended(failed, SequenceResult.PLAN_FAILED, message, first), planning_s)
        self._draw(start, planned)
        moves = [step for step in planned if step.setpoints is not None]
        seconds = sum(step.setpoints.duration for step in moves)
        self._log(
            f"{LABEL} '{sequence.program.name}': planned {len(planned)} steps "
            f"({len(sequence.steps)} x {sequence.program.repeat}; {len(moves)} moves, "
            f"{seconds:.2f} s of motion) in {planning_s * 1000:.0f} ms; running it"
        )
        outcome = self._steps(run, sequence, planned, start)
        outcome.run_s = time.monotonic() - began - planning_s
        outcome.planning_s = planning_s
        return outcome

    def _steps(
        self,
        run: GoalRun,
        sequence: SequenceMove,
        planned: list[PlannedStep],
        start: tuple[float, ...],
    ) -> SequenceOutcome:
        last = start
        for step in planned:
            where = step.where(sequence)
            stopped = run.stopped(last)
            if stopped is not None:
                return ended(stopped, STOPS[stopped.status], f"before {where}: {stopped.message}",
                             step)  # fmt: skip
            self._progress(run, step)
            outcome = self._step(run, step, last)
            if isinstance(outcome, GripperEnd):  # a gripper step that failed
                failed = Outcome(Result.SUCCEEDED, "", final=last)
                return ended(failed, SequenceResult.STEP_FAILED, f"{where}: {outcome.message}",
                             step)  # fmt: skip
            if outcome.status != Result.SUCCEEDED:
                status = STOPS.get(outcome.status, SequenceResult.STEP_FAILED)
                return ended(outcome, status, f"{where}: {outcome.message}", step)
            if outcome.final is not None:
                last = outcome.final
        return SequenceOutcome(
            Result.SUCCEEDED,
            f"{LABEL} '{sequence.program.name}' ran its {len(planned)} steps; the tool at "
            f"{self._describe(last)}",
            final=last,
            sequence_status=SequenceResult.SUCCEEDED,
            step_number=planned[-1].number,
            step_name=planned[-1].step.name,
            repeat_number=planned[-1].repeat,
        )

    def _step(
        self, run: GoalRun, step: PlannedStep, last: tuple[float, ...]
    ) -> Outcome | GripperEnd:
        """One step's end: a move's Outcome, a SUCCEEDED one for a gripper step or a wait
        done, a stop's, or the GripperEnd of a gripper step that failed."""
        if step.setpoints is not None:
            return self.stream.run(run, step.setpoints, last, step.total_steps)
        if isinstance(step.step, WaitStep):
            run.wake.wait(step.step.seconds)
            return run.stopped(last, "the wait ended") or Outcome(Result.SUCCEEDED, "", final=last)
        assert isinstance(step.step, GripperStep)
        end = self._gripper.run(run, step.step)
        stopped = run.stopped(last, end.message)
        if stopped is not None:
            return stopped
        return Outcome(Result.SUCCEEDED, end.message, final=last) if end.done else end


def _with(outcome: SequenceOutcome, planning_s: float) -> SequenceOutcome:
    outcome.planning_s = planning_s
    return outcome
