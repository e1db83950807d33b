"""A goal's plan, or the outcome that ends it before anything moves.

LINEAR moves go through the core's one line planner (`plan_line`, one straight segment after
another through the goal's waypoints: `plan_polyline`), JOINT moves solve their goal and
interpolate the joints (`joint_setpoints`); both solve IK only through the `solve` callable they
are given (for the node, `IkBatchClient.solver`: the IK node's solve_ik_batch). The
plan_cartesian_path service plans with `plan_path`, exactly as a LINEAR goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import (
    PlanarArm,
    PlanStatus,
    PolylinePlan,
    Setpoints,
    SolvePoints,
    SpatialArm,
    joint_setpoints,
    plan_polyline,
    polyline_paths,
    polyline_step_counts,
)
from arm_kinematics.kinematics.planning.line_plan import pose_text
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.trajectory.goals import GoalRun, Move, Outcome, Result
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
        return _plan_joint(arm, config, move, start, solve)
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


def path_points(
    arm: PlanarArm | SpatialArm,
    start: tuple[float, ...],
    waypoints: Sequence[tuple[float, ...]],
    max_step: float,
    speed: float,
    period: float,
) -> np.ndarray:
    """Every planned point of the path start -> waypoints (no IK: for the abort markers), as
    `plan_path` places them for `max_step` (m), `speed` (m/s) and the command `period` (s)."""
    pose = start_pose(arm, start, waypoints[0])
    counts = polyline_step_counts(arm, pose, waypoints, max_step, speed, period)
    paths = polyline_paths(pose, waypoints, arm.position_dims)
    return np.concatenate([path.points(c) for path, c in zip(paths, counts, strict=True)])


def plan_path(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    start: tuple[float, ...],
    waypoints: Sequence[tuple[float, ...]],
    *,
    max_step: float,
    speed: float,
    max_joint_step: float,
    solve: SolvePoints,
) -> PolylinePlan:
    """Plan the tool path from the joints `start` (rad) through `waypoints` (the planner's
    tool poses in the base frame, m and rad) with the MoveArm LINEAR rules: points at most
    `max_step` m apart, `speed` m/s slowed by the joint velocity limits, a joint step above
    `max_joint_step` rad a jump, setpoints at the command rate. A Refusal, before any IK, when
    it would need more than MAX_PLAN_POINTS points, MAX_SETPOINTS setpoints, or more IK
    solutions in one segment than one solve_ik_batch request may hold.
    """
    period = 1.0 / config.trajectory.command_rate_hz
    pose = start_pose(arm, start, waypoints[0])
    step_counts = polyline_step_counts(arm, pose, waypoints, max_step, speed, period)
    count = sum(step_counts)
    if count > MAX_PLAN_POINTS:
        raise Refusal(
            f"the path needs {count} points (at most max_step {max_step:g} m apart, and one "
            f"at each setpoint at {speed:g} m/s); the most is {MAX_PLAN_POINTS}: use a larger "
            "max_step, a higher speed or fewer waypoints"
        )
    paths = polyline_paths(pose, waypoints, arm.position_dims)
    length = sum(path.length for path in paths)
    expected_setpoints = length / (speed * period)
    # Each segment's points (its full-speed setpoints among them) go to the IK node in one
    # request, which refuses more than ik.max_batch_targets targets: say so before any IK.
    limit = config.max_batch_targets
    for index, steps in enumerate(step_counts):
        if steps > limit:
            raise Refusal(
                f"segment {index} needs {steps} IK solutions (its points, a setpoint on each "
                f"or every few) in one solve_ik_batch request; ik.max_batch_targets allows "
                f"{limit}: use a larger max_step, a higher speed or more waypoints"
            )
    if expected_setpoints > MAX_SETPOINTS:
        raise Refusal(
            f"at {speed:g} m/s the move would take {expected_setpoints * period:.0f} s "
            f"({expected_setpoints:.0f} setpoints, the most is {MAX_SETPOINTS}): use a higher "
            "speed"
        )
    return plan_polyline(
        arm,
        pose,
        waypoints,
        max_step,
        start,
        solve=solve,
        speed=speed,
        joint_velocity_limits=config.max_velocities,
        max_joint_step=max_joint_step,
        period=period,
    )


def _plan_linear(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    move: Move,
    start: tuple[float, ...],
    solve: SolvePoints,
) -> PlannedMove | Outcome:
    waypoints = [*move.waypoints, move.target]
    plan = plan_path(
        arm,
        config,
        start,
        waypoints,
        max_step=move.max_step,
        speed=move.speed,
        max_joint_step=config.trajectory.max_joint_step,
        solve=solve,
    )
    if plan.setpoints is not None:
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
        path_points=path_points(
            arm,
            start,
            waypoints,
            move.max_step,
            move.speed,
            1.0 / config.trajectory.command_rate_hz,
        ),
    )


def _plan_joint(
    arm: PlanarArm | SpatialArm,
    config: ArmConfig,
    move: Move,
    start: tuple[float, ...],
    solve: SolvePoints,
) -> PlannedMove | Outcome:
    goal = np.array([move.target])
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
    setpoints = joint_setpoints(
        arm,
        start,
        tuple(answers.joints[0].tolist()),
        velocity_limits=config.max_velocities,
        speed_fraction=move.speed,
        period=1.0 / config.trajectory.command_rate_hz,
    )
    return PlannedMove(setpoints, 1)
