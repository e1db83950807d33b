"""A goal's plan, or the outcome that ends it before anything moves.

LINEAR moves go through the core's one tool-path planner (`plan_polyline`: the goal's
waypoints, then its target, each segment straight), JOINT moves solve their goal (a named
pose's joints are its own) and move the joints along their straight line (`joint_setpoints`,
the line checked against the arm's workspace envelope first: `joint_move_outside`); both solve
IK only through the `solve` callable they are given (for the node, `IkBatchClient.solver`: the
IK node's solve_ik_batch), and both are timed within the same `MotionLimits`
(`ArmConfig.motion_limits`: the config's joint limits and command period, and for a Cartesian
path the tool's speed and acceleration). The plan_cartesian_path service plans with
`plan_path`, exactly as a LINEAR goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import (
    PathPlacement,
    PathPlan,
    PathViolation,
    PlanarArm,
    PlanOptions,
    PlanStatus,
    Setpoints,
    SolvePoints,
    SpatialArm,
    joint_move_outside,
    joint_setpoints,
    place_path,
    plan_placed,
)
from arm_kinematics.kinematics.planning.line_points import pose_text
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.trajectory.goals import GoalRun, Move, Outcome, Result, format_joints
from arm_kinematics.nodes.trajectory.ik_batch import IkInterruptedError, IkUnavailableError
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import SolveIK

#: Refuse goals that would need more IK points or setpoints than this (memory and planning
#: time grow with them; raise max_step or speed instead).
MAX_PLAN_POINTS = 200_000
MAX_SETPOINTS = 500_000


@dataclass(frozen=True)
class PlannedMove:
    """Setpoints ready to stream, and the number of planned IK points (1 in JOINT mode)."""

    setpoints: Setpoints
    total_steps: int


def plan_move(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    move: Move,
    start: tuple[float, ...],
    solve: SolvePoints,
    run: GoalRun,
) -> PlannedMove | Outcome:
    """Plan `move` from the joints `start` (radians); an Outcome when the goal ends here
    (infeasible, IK unavailable, or `run` stopped meanwhile). A Refusal when the path is too
    big to plan (before any IK)."""
    try:
        if move.mode == MoveArm.Goal.LINEAR:
            return _plan_linear(arm, config, move, start, solve)
        return _plan_joint(arm, move, start, solve)
    except IkUnavailableError as error:
        return Outcome(Result.IK_UNAVAILABLE, f"{error}: nothing moved", final=start)
    except IkInterruptedError:
        outcome = run.stopped(start)
        assert outcome is not None  # only a stop interrupts the IK wait
        return outcome


def start_pose(
    arm: PlanarArm | SpatialArm, start: tuple[float, ...], like: Sequence[float]
) -> tuple[float, ...]:
    """The tool pose at the joints `start` (rad) with as many angles as the pose `like` (a
    planar arm's (x, y[, heading]), a spatial arm's (x, y, z[, pitch[, roll]]))."""
    return tuple(arm.tool_vector(start)[: len(like)])


def place(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    start: tuple[float, ...],
    waypoints: Sequence[tuple[float, ...]],
    options: PlanOptions,
) -> PathPlacement:
    """Where the path from the joints `start` (rad) through `waypoints` puts its points
    (`place_path`, no IK); a Refusal when it would need more than MAX_PLAN_POINTS points,
    MAX_SETPOINTS setpoints, or more IK solutions in one segment than one solve_ik_batch
    request may hold."""
    placement = place_path(arm, start_pose(arm, start, waypoints[0]), waypoints, options)
    count, speed = placement.total, options.limits.tool_speed if options.limits else None
    if count > MAX_PLAN_POINTS:
        raise Refusal(
            f"the path needs {count} points (at most max_step {options.max_step:g} m apart, "
            f"and one at each setpoint at {speed:g} m/s); the most is {MAX_PLAN_POINTS}: use "
            "a larger max_step, a higher speed or fewer waypoints"
        )
    # Each segment's points (its setpoints among them) go to the IK node in one request,
    # which refuses more than ik.max_batch_targets targets: say so before any IK.
    limit = config.max_batch_targets
    for index, steps in enumerate(placement.step_counts):
        if steps > limit:
            raise Refusal(
                f"segment {index} needs {steps} IK solutions (its points, a setpoint on each "
                f"or every few) in one solve_ik_batch request; ik.max_batch_targets allows "
                f"{limit}: use a larger max_step, a higher speed or more waypoints"
            )
    if placement.profile is not None and options.limits is not None:
        setpoints = placement.profile.duration / options.limits.period
        if setpoints > MAX_SETPOINTS:
            raise Refusal(
                f"at {speed:g} m/s the move would take {placement.profile.duration:.0f} s "
                f"({setpoints:.0f} setpoints, the most is {MAX_SETPOINTS}): use a higher speed"
            )
    return placement


def plan_path(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    start: tuple[float, ...],
    waypoints: Sequence[tuple[float, ...]],
    options: PlanOptions,
) -> tuple[PathPlan, PathPlacement]:
    """Plan the tool path from the joints `start` (rad) through `waypoints` (the planner's
    tool poses in the base frame, m and rad) with `options` (its `solve` among them): the
    plan, and where its points were placed (`place`, whose Refusal it raises)."""
    placement = place(arm, config, start, waypoints, options)
    return plan_placed(arm, placement, start, options), placement


def _plan_linear(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    move: Move,
    start: tuple[float, ...],
    solve: SolvePoints,
) -> PlannedMove | Outcome:
    waypoints = [*move.waypoints, move.target]
    plan, placement = plan_path(arm, config, start, waypoints, replace(move.options, solve=solve))
    if plan.setpoints is not None:
        if move.joints is not None:
            elsewhere = _elsewhere(arm, config, plan.setpoints.joints[-1], move.joints, start)
            if elsewhere is not None:
                return elsewhere
        return PlannedMove(plan.setpoints, plan.total_steps)
    assert plan.failed_step is not None
    step, total = plan.failed_step, plan.total_steps
    jump = plan.status == PlanStatus.JOINT_JUMP
    return Outcome(
        Result.JOINT_JUMP if jump else Result.IK_FAILED,
        f"{plan.message}; {step}/{total} of the path is feasible; nothing moved",
        final=start,
        ik_status=int(plan.ik_status),  # a jump: the IK status of the jumping step
        failed_step=step,
        total_steps=total,
        feasible_fraction=plan.feasible_fraction,
        failed_point=plan.failed_point,
        path_points=placement.points(),
    )


def _elsewhere(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    end: np.ndarray,
    joints: tuple[float, ...],
    start: tuple[float, ...],
) -> Outcome | None:
    """JOINT_JUMP when a line to a named pose's tool pose ends at other joints than the pose's
    (another elbow or side: the same tool pose, another arm), else None."""
    arrived = arm.unwrap_near(tuple(end.tolist()), joints)
    if (
        max(abs(a - b) for a, b in zip(arrived, joints, strict=True))
        <= config.trajectory.goal_tolerance
    ):
        return None
    return Outcome(
        Result.JOINT_JUMP,
        f"the straight line ends at the named pose's tool pose with the joints at "
        f"{format_joints(arrived)}, not its {format_joints(joints)} (another elbow or side): "
        "go there in JOINT mode; nothing moved",
        final=start,
    )


def _plan_joint(
    arm: PlanarArm | SpatialArm,
    move: Move,
    start: tuple[float, ...],
    solve: SolvePoints,
) -> PlannedMove | Outcome:
    assert move.options.limits is not None  # a JOINT move's: the scaled joint limits
    goal = np.array([move.target])
    if move.joints is not None:  # a named pose: its joints, checked, no IK
        goal_joints = move.joints
    else:
        answers = solve(goal, start)
        status = int(answers.status[0])
        if status not in (SolveIK.Response.OK, SolveIK.Response.SINGULAR):
            return Outcome(
                Result.IK_FAILED,
                f"step 0 of 1 at {pose_text(goal[0], arm.position_dims)} has no IK solution: "
                f"{answers.explain(0)}; "
                "0/1 of the path is feasible; nothing moved",
                final=start,
                ik_status=status,
                failed_step=0,
                total_steps=1,
                feasible_fraction=0.0,
                failed_point=tuple(goal[0].tolist()),
                path_points=goal,
            )
        goal_joints = tuple(answers.joints[0].tolist())
    outside = joint_move_outside(arm, start, goal_joints)
    if outside is not None:  # the goal is inside (its IK, or the named pose's check), the way
        return _line_outside(arm, goal, start, outside)  # there is not
    return PlannedMove(joint_setpoints(arm, start, goal_joints, move.options.limits), 1)


def _line_outside(
    arm: PlanarArm | SpatialArm,
    goal: np.ndarray,
    start: tuple[float, ...],
    outside: PathViolation,
) -> Outcome:
    """The refusal of a JOINT move whose straight joint line to `goal` (one pose row) leaves
    the workspace envelope (`outside`: `joint_move_outside`'s answer)."""
    where = (
        "at the start"
        if outside.fraction == 0.0
        else f"{outside.fraction:.0%} of the way from the start"
    )
    reason = outside.violation.message.removeprefix("OUTSIDE_WORKSPACE: ")
    return Outcome(
        Result.IK_FAILED,
        f"step 0 of 1: the joints' straight line to {pose_text(goal[0], arm.position_dims)} "
        f"fails: OUTSIDE_WORKSPACE: {where}: {reason}; "
        f"{outside.fraction:.0%} of the path is feasible; nothing moved",
        final=start,
        ik_status=SolveIK.Response.OUTSIDE_WORKSPACE,
        failed_step=0,
        total_steps=1,
        feasible_fraction=outside.fraction,
        failed_point=tuple(arm.tool_vector(outside.joints)[: goal.shape[1]]),
        path_points=goal,
    )
