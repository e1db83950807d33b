"""A taught sequence in the trajectory node: resolved when it comes, planned whole once it
holds the arm.

- `resolve_sequence` (at the goal's acceptance, nothing planned yet): each move step becomes
  the planner's `Move` exactly as a MoveArm goal would (`goals.plan_options` of its mode and
  speed; a named pose through `NamedPoses.move`, checked against the running config), and the
  first move gets its gentle twin (`ease_in`); a Refusal (INVALID_SEQUENCE) otherwise.
- `plan_sequence` (the sequence holds the arm, before anything moves): every move, in order and
  repeat after repeat, planned by `planning.plan_move` (the MoveArm goals' planner: the same IK
  through the IK node, the same limits, timing and checks) from where the move before it ends,
  the first from the arm's pose now. The first move that cannot be planned ends the sequence
  there (PLAN_FAILED, naming the step and why): nothing has moved. A move from the same start
  as a repeat before it is planned once.

No rclpy here (message types only). Radians, metres, seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, Setpoints, SolvePoints, SpatialArm
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.teach.named import NamedPoses
from arm_kinematics.nodes.teach.settings import TeachSettings
from arm_kinematics.nodes.teach.status import STOPS, SequenceResult
from arm_kinematics.nodes.trajectory.goals import (
    GoalRun,
    Move,
    Outcome,
    plan_options,
)
from arm_kinematics.nodes.trajectory.planning import PlannedMove, plan_move
from arm_kinematics.teach.program import LINEAR, MoveStep, Program, Step
from arm_kinematics_interfaces.action import MoveArm

MODES = {LINEAR: MoveArm.Goal.LINEAR}  # else JOINT
LABEL = "sequence"


@dataclass(frozen=True)
class ResolvedStep:
    """A program step for this arm: a move's `Move` (None for a gripper step or a wait)."""

    step: Step
    move: Move | None = None


@dataclass(frozen=True)
class SequenceMove:
    """An admitted sequence: its program, its steps resolved, and the first move at the
    ease-in speed (`first_move`, the index of that step; -1 when it has no move)."""

    program: Program
    steps: tuple[ResolvedStep, ...]
    first_move: int = -1
    eased: Move | None = None

    @property
    def total(self) -> int:
        """Steps in all, repeats included."""
        return len(self.steps) * self.program.repeat


@dataclass
class SequenceOutcome(Outcome):
    """How a sequence ended: `status` and the other Outcome fields are those of its last
    move's end (MoveArm's), `sequence_status` RunSequence's; where (the step, 1-based, its
    name, the repeat) and the seconds spent planning and running."""

    sequence_status: int = SequenceResult.SUCCEEDED
    step_number: int = 0
    step_name: str = ""
    repeat_number: int = 0
    planning_s: float = 0.0
    run_s: float = 0.0


@dataclass(frozen=True)
class PlannedStep:
    """One step as it will run: where in the program (1-based number and repeat), the joints
    it starts from (rad), and a move's setpoints and planned IK points."""

    number: int
    repeat: int
    step: Step
    start: tuple[float, ...]
    setpoints: Setpoints | None = None
    total_steps: int = 0

    def where(self, sequence: SequenceMove) -> str:
        """'step 3 of 8 (grip it)', with the repeat when there are several."""
        words = f"step {self.number} of {len(sequence.steps)} ({self.step.name})"
        repeats = sequence.program.repeat
        return words + (f", repeat {self.repeat} of {repeats}" if repeats > 1 else "")


def resolve_sequence(
    program: Program, config: ArmConfig, named: NamedPoses, settings: TeachSettings
) -> SequenceMove:
    """The sequence of `program` for this arm; a Refusal naming the step that is not valid
    here (an unknown named pose, or one outside the limits or the envelope)."""
    steps = []
    for number, step in enumerate(program.steps, start=1):
        if not isinstance(step, MoveStep):
            steps.append(ResolvedStep(step))
            continue
        try:
            steps.append(ResolvedStep(step, _move(step, config, named, step.speed)))
        except Refusal as refusal:
            raise Refusal(f"step {number} ({step.name}): {refusal.message}") from None
    first = next((i for i, s in enumerate(steps) if s.move is not None), -1)
    if first < 0:
        return SequenceMove(program, tuple(steps))
    step = program.steps[first]
    assert isinstance(step, MoveStep)
    trajectory = config.trajectory
    if step.mode == LINEAR:
        gentle = min(step.speed or trajectory.default_speed, settings.ease_in_speed)
    else:
        fraction = step.speed or trajectory.default_joint_speed_fraction
        gentle = min(fraction, settings.ease_in_joint_fraction)
    eased = _move(step, config, named, gentle)
    return SequenceMove(program, tuple(steps), first, eased)


def _move(step: MoveStep, config: ArmConfig, named: NamedPoses, speed: float | None) -> Move:
    mode = MODES.get(step.mode, MoveArm.Goal.JOINT)
    options = plan_options(config, mode, speed or 0.0)
    if step.named is not None:
        return named.move(step.named, mode, options)
    assert step.pose is not None
    return Move(mode=mode, target=step.pose, options=options)


def plan_sequence(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    sequence: SequenceMove,
    start: tuple[float, ...],
    solve: SolvePoints,
    run: GoalRun,
) -> list[PlannedStep] | SequenceOutcome:
    """Every step of every repeat planned from `start` (rad), each move from the end of the
    move before; the SequenceOutcome that ends the sequence before anything moves otherwise
    (PLAN_FAILED, or how a stop during planning ended it)."""
    plans: dict[tuple[int, tuple[float, ...]], PlannedMove] = {}
    planned: list[PlannedStep] = []
    joints = start
    for repeat in range(1, sequence.program.repeat + 1):
        for index, resolved in enumerate(sequence.steps):
            step = PlannedStep(index + 1, repeat, resolved.step, joints)
            move = resolved.move
            if move is None:
                planned.append(step)
                continue
            if repeat == 1 and index == sequence.first_move and sequence.eased is not None:
                move, key = sequence.eased, (-1, joints)
            else:
                key = (index, joints)
            plan = plans.get(key)
            if plan is None:
                answer = plan_move(arm, config, move, joints, solve, run)
                if not isinstance(answer, PlannedMove):
                    return _unplanned(answer, step, sequence)
                plan = plans[key] = answer
            planned.append(replace(step, setpoints=plan.setpoints, total_steps=plan.total_steps))
            joints = tuple(float(q) for q in plan.setpoints.joints[-1])
    return planned


def _unplanned(outcome: Outcome, step: PlannedStep, sequence: SequenceMove) -> SequenceOutcome:
    stopped = STOPS.get(outcome.status)
    if stopped is not None:
        status, message = stopped, f"while planning {step.where(sequence)}: {outcome.message}"
    else:
        status = SequenceResult.PLAN_FAILED
        after = f" from the end of step {step.number - 1}" if step.number > 1 else ""
        message = f"{step.where(sequence)} cannot be planned{after}: {outcome.message}"
    return ended(outcome, status, message, step)


def ended(outcome: Outcome, status: int, message: str, step: PlannedStep) -> SequenceOutcome:
    """The SequenceOutcome of a sequence that ended in `step` with RunSequence's `status`."""
    fields = {name: getattr(outcome, name) for name in Outcome.__dataclass_fields__}
    fields["message"] = message
    return SequenceOutcome(
        **fields,
        sequence_status=status,
        step_number=step.number,
        step_name=step.step.name,
        repeat_number=step.repeat,
    )
