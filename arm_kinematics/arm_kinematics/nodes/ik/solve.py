"""`solve_ik` without its node: one SolveIK request -> its answer.

Checks in their documented order: the target (frame, finite numbers, plane, orientation:
`targets.TargetCheck` and the arm's layout), the branch, the seed; then the core's solve. A
refused request raises a Refusal, which the node answers. No rclpy node here, message types
only. Units: metres, radians.
"""

from __future__ import annotations

import math

from builtin_interfaces.msg import Time

from arm_kinematics.kinematics import IkResult
from arm_kinematics.nodes.ik.requests import IkSetup, branch_of, current_joints
from arm_kinematics.nodes.messages import fill_joint_state, position_values, quaternion_values
from arm_kinematics_interfaces.srv import SolveIK


def solve_ik(
    setup: IkSetup,
    request: SolveIK.Request,
    response: SolveIK.Response,
    latest: tuple[float, ...] | None,
    stamp: Time,
) -> IkResult:
    """Answer `request` in `response` and return the core's result; `latest` is the latest
    joint_states (rad, None before any: the pose BRANCH_CLOSEST stays near without a seed)."""
    target = request.target
    stamped = setup.targets.stamped(
        target.header.frame_id,
        position_values(target.pose),
        request.orientation_mode,
        request.tool_angle,
        quaternion_values(target.pose.orientation),
    )
    query = setup.layout.query(stamped)
    branch = branch_of(request.branch, setup.default_branch)
    current = current_joints(request.seed, setup.joint_names, latest)
    result = setup.layout.solve(query, branch, current)
    fill_answer(setup, response, result, stamp)
    if result.ok and branch != request.branch:
        response.message += f" (branch {branch.name.lower()}: the node's default_branch)"
    if stamped.given_in != setup.base_frame:
        x, y, _ = stamped.position
        response.message += (
            f"; target given in '{stamped.given_in}', solved in '{setup.base_frame}' at "
            f"({x:.4f}, {y:.4f}) m"
        )
    return result


def fill_answer(setup: IkSetup, response: SolveIK.Response, result: IkResult, stamp: Time) -> None:
    """The core's `result` as a SolveIK answer: the status, and for a solution its joints, the
    other elbow, the manipulability, the tool pose and the joints in degrees in the message."""
    response.status = int(result.status)
    if not result.ok or result.joints is None:
        response.message = result.message
        return
    names = setup.joint_names
    fill_joint_state(response.solution, names, result.joints, stamp)
    if result.alternative is not None:
        fill_joint_state(response.alternative, names, result.alternative, stamp)
    response.manipulability = float(result.manipulability)
    setup.layout.fill_tool(response.tool, result.joints, setup.base_frame, stamp)
    degrees = ", ".join(
        f"{name} {math.degrees(q):.3f}" for name, q in zip(names, result.joints, strict=True)
    )
    response.message = f"{result.message}; joints {degrees} deg"
