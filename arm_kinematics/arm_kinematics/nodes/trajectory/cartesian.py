"""The plan_cartesian_path service without its node: request -> plan -> response.

Plans the polyline start -> waypoints with the MoveArm LINEAR rules (`planning.plan_path`: the
same planner, IK through the same `solve` callable, the same timing) and moves nothing. No rclpy
node here, message types only. Units: metres, radians, seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from geometry_msgs.msg import Point
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import (
    LIMIT_TOLERANCE,
    PathPlan,
    PlanOptions,
    PlanStatus,
    SolvePoints,
)
from arm_kinematics.nodes.messages import JointStateError, constant_names, is_empty, joint_positions
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.targets import waypoint_tool_angles
from arm_kinematics.nodes.trajectory.ik_batch import IkInterruptedError, IkUnavailableError
from arm_kinematics.nodes.trajectory.planning import plan_path
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK

Response = PlanCartesianPath.Response

#: PlanCartesianPath status value -> constant name.
STATUS_NAMES = constant_names(
    Response,
    (
        "SUCCEEDED",
        "INVALID_REQUEST",
        "IK_FAILED",
        "JOINT_JUMP",
        "IK_UNAVAILABLE",
        "NO_JOINT_STATE",
    ),
)


@dataclass(frozen=True)
class PathRequest:
    """A validated request: waypoints in the base frame (the planner's tool poses), the start
    joints (None: the latest joint_states), and how to plan (`options`: max_step in m, the jump
    threshold in rad, the limits with the tool speed in m/s)."""

    waypoints: tuple[tuple[float, ...], ...]
    start: tuple[float, ...] | None
    options: PlanOptions


def validate_request(
    request: PlanCartesianPath.Request,
    config: ArmConfig,
    max_waypoints: int,
    poses: ToolPoses | None = None,
) -> PathRequest:
    """The request in the base frame with the defaults filled in; a Refusal says why it is
    INVALID_REQUEST (the waypoints checked as the IK node checks its targets). `poses`: the
    node's (None: the config's arm)."""
    poses = poses or ToolPoses(config.make_arm(), config)
    count = len(request.waypoints)
    if count == 0:
        raise Refusal("no waypoints: give at least one pose to plan to")
    if count > max_waypoints:
        raise Refusal(f"{count} waypoints: the most is max_waypoints = {max_waypoints}")
    for name, value in (
        ("max_step", request.max_step),
        ("jump_threshold", request.jump_threshold),
        ("speed", request.speed),
    ):
        if not math.isfinite(value):
            raise Refusal(f"{name} = {value} is not finite")
        if value < 0:
            raise Refusal(f"{name} = {value:g} is negative (0 means the default)")
    mode = request.orientation_mode
    angles = waypoint_tool_angles(mode, count, request.waypoint_tool_angles)
    frame = request.header.frame_id
    poses.check.frame(frame, "waypoints")
    waypoints = tuple(
        poses.goal(frame, pose, mode, angle, f"waypoint {index}")
        for index, (pose, angle) in enumerate(zip(request.waypoints, angles, strict=True))
    )
    trajectory = config.trajectory
    options = PlanOptions(
        max_step=request.max_step or trajectory.default_max_step,
        limits=config.motion_limits(tool_speed=request.speed or trajectory.default_speed),
        max_joint_step=request.jump_threshold or trajectory.max_joint_step,
    )
    return PathRequest(waypoints, start_state(request.start_state, config), options)


def start_state(state: JointState, config: ArmConfig) -> tuple[float, ...] | None:
    """The joints (rad) of a request's `start_state`, every joint by name within its limits;
    None when it is empty (the latest joint_states then). A Refusal says what is wrong."""
    if is_empty(state):
        return None
    try:
        start = joint_positions(state, config.joint_names)
    except JointStateError as error:
        raise Refusal(f"start_state: {error}") from None
    for name, q, (lo, hi) in zip(config.joint_names, start, config.joint_limits, strict=True):
        if not lo - LIMIT_TOLERANCE <= q <= hi + LIMIT_TOLERANCE:
            raise Refusal(
                f"start_state: joint {name} = {math.degrees(q):.2f} deg is outside its limits "
                f"[{math.degrees(lo):.2f}, {math.degrees(hi):.2f}] deg"
            )
    return start


def duration_nanoseconds(times: np.ndarray) -> list[int]:
    """Seconds from the start as whole nanoseconds, each step rounded UP, so that no step of
    the message is shorter than the plan's (a joint never looks faster than its limit).

    >>> duration_nanoseconds(np.array([0.1, 0.3000000001]))
    [100000000, 300000001]
    """
    steps = np.diff(np.concatenate(([0.0], times)))
    ticks, total = [], 0
    for step in steps.tolist():
        total += math.ceil(round(step * 1e9, 3))
        ticks.append(total)
    return ticks


def timed_trajectory(
    names: tuple[str, ...], start: tuple[float, ...], plan: PathPlan
) -> JointTrajectory:
    """The feasible part of `plan` as a JointTrajectory: the start at rest at time 0 (where the
    arm is, as MoveIt returns it), then every feasible point at its planned time with the
    joints' velocities and accelerations there (so that a controller interpolating them, as
    the joint_trajectory input does, follows the plan's timing); no points when the feasible
    part could not be timed within the limits."""
    trajectory = JointTrajectory(joint_names=list(names))
    if plan.times is None or plan.velocities is None or plan.accelerations is None:
        return trajectory
    rest = [0.0] * len(names)
    points = [JointTrajectoryPoint(positions=list(start), velocities=rest, accelerations=rest)]
    rows = zip(
        plan.joints.tolist(),
        plan.velocities.tolist(),
        plan.accelerations.tolist(),
        duration_nanoseconds(plan.times),
        strict=True,
    )
    for positions, velocities, accelerations, ticks in rows:
        point = JointTrajectoryPoint(
            positions=positions, velocities=velocities, accelerations=accelerations
        )
        point.time_from_start.sec, point.time_from_start.nanosec = divmod(ticks, 1_000_000_000)
        points.append(point)
    trajectory.points = points if len(plan.joints) else []
    return trajectory


def plan_response(
    poses: ToolPoses,
    config: ArmConfig,
    request: PathRequest,
    start: tuple[float, ...],
    solve: SolvePoints,
) -> Response:
    """Plan `request` from the joints `start` (rad) and describe the result (nothing moves).
    A Refusal when the path is too big to plan."""
    response = _response()
    try:
        options = replace(request.options, solve=solve)
        plan, _ = plan_path(poses.arm, config, start, request.waypoints, options)
    except IkUnavailableError as error:
        return _response(Response.IK_UNAVAILABLE, str(error))
    except IkInterruptedError:  # only the node's shutdown interrupts a plan request
        return _response(Response.IK_UNAVAILABLE, "the trajectory node is shutting down")
    response.trajectory = timed_trajectory(config.joint_names, start, plan)
    response.fraction = plan.feasible_fraction
    response.ik_status = int(plan.ik_status)
    if plan.ok:
        response.status = Response.SUCCEEDED
        response.message = (
            f"{plan.message}; {plan.total_steps} points, {plan.duration:.2f} s; nothing moved"
        )
        return response
    assert plan.failed_step is not None
    assert plan.failed_waypoint is not None
    jump = plan.status == PlanStatus.JOINT_JUMP
    response.status = Response.JOINT_JUMP if jump else Response.IK_FAILED
    response.failed_index = plan.failed_step
    response.failed_waypoint = plan.failed_waypoint
    if plan.failed_point is not None:
        x, y, z = poses.point(plan.failed_point)
        response.failed_point = Point(x=x, y=y, z=z)
    response.message = (
        f"{plan.message}; {plan.feasible_fraction:.1%} of the path is feasible; nothing moved"
    )
    return response


def refusal(refused: Refusal | str) -> Response:
    """The INVALID_REQUEST answer to a refused request (nothing planned)."""
    return _response(Response.INVALID_REQUEST, f"{refused}: nothing planned")


def _response(status: int = Response.SUCCEEDED, message: str = "") -> Response:
    return Response(
        status=status,
        message=message,
        failed_index=-1,
        failed_waypoint=-1,
        ik_status=SolveIK.Response.OK,
    )


def plan_cartesian_path(
    poses: ToolPoses,
    config: ArmConfig,
    request: PlanCartesianPath.Request,
    max_waypoints: int,
    latest_joints: Callable[[], tuple[float, ...] | None],
    solve: SolvePoints,
) -> Response:
    """The whole service but its refusals: validate `request`, take its start (its
    start_state, else `latest_joints()`: the latest joint_states, None when none came in
    time), plan, answer. A Refusal (INVALID_REQUEST, `refusal`) when the request is refused."""
    checked = validate_request(request, config, max_waypoints, poses)
    start = checked.start if checked.start is not None else latest_joints()
    if start is None:
        timeout = config.trajectory.joint_state_timeout_s
        return _response(
            Response.NO_JOINT_STATE,
            f"no start_state and no joint_states within {timeout:g} s: nothing planned",
        )
    return plan_response(poses, config, checked, start, solve)
