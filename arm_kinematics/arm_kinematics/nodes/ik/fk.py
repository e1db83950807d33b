"""`compute_fk` without its node: joints by name -> the tool pose and every URDF frame.

No rclpy node here, message types only. Units: metres, radians (degrees in the message).
"""

from __future__ import annotations

import math

from builtin_interfaces.msg import Time

from arm_kinematics.kinematics import SpatialArm
from arm_kinematics.nodes.ik.requests import IkSetup
from arm_kinematics.nodes.messages import JointStateError, JointStateProblem, joint_positions
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics_interfaces.srv import ComputeFK

_FK = ComputeFK.Response
_STATUS_OF_PROBLEM = {
    JointStateProblem.LENGTH_MISMATCH: _FK.INVALID_INPUT,
    JointStateProblem.UNKNOWN_JOINT: _FK.UNKNOWN_JOINT,
    JointStateProblem.DUPLICATE_JOINT: _FK.UNKNOWN_JOINT,
    JointStateProblem.MISSING_JOINT: _FK.MISSING_JOINT,
    JointStateProblem.NON_FINITE: _FK.INVALID_INPUT,
}


def fk_status(refusal: Refusal) -> int:
    """ComputeFK's status for a refused request: the joint problem's, else INVALID_INPUT."""
    if isinstance(refusal, JointStateError):
        return _STATUS_OF_PROBLEM[refusal.problem]
    return _FK.INVALID_INPUT


def frame_names(setup: IkSetup) -> list[str]:
    """Names of the poses in ComputeFK.frames, base first: the URDF's frames as TF names them
    (with the frame prefix): a planar arm's base, link_1 .. link_n, tip; a spatial arm's base,
    yaw_link, link_1 .. link_k, roll_link (with a roll), tip."""
    config, arm = setup.config, setup.arm
    if isinstance(arm, SpatialArm):
        roles = arm.frame_roles()
        named = {"base": setup.base_frame, "tool": setup.tip_frame}
        return [
            named.get(role, config.frame(f"{role}_link" if role in ("yaw", "roll") else role))
            for role in roles
        ]
    links = [config.frame(f"link_{index}") for index in range(1, len(setup.joint_names) + 1)]
    return [setup.base_frame, *links, setup.tip_frame]


def compute_fk(
    setup: IkSetup, request: ComputeFK.Request, response: ComputeFK.Response, stamp: Time
) -> None:
    """Answer `request` in `response` (a JointStateError, a Refusal, for joints that cannot be
    read). FK is computed outside the joint limits too, and the message says which."""
    joints = joint_positions(request.joints, setup.joint_names)
    arm, base, layout = setup.arm, setup.base_frame, setup.layout
    names = frame_names(setup)
    response.frames = layout.fill_frames(joints, base, stamp)
    response.frame_names = names
    layout.fill_tool(response.tip, joints, base, stamp)
    response.within_limits = bool(arm.within_limits(joints))
    response.manipulability = float(arm.manipulability(joints))
    response.status = _FK.OK
    response.message = (
        f"tip '{setup.tip_frame}' at {layout.tool_words(joints)} in '{base}'; frames: "
        f"{', '.join(names)} (every pose expressed in '{base}')"
    )
    if not response.within_limits:
        outside = [
            f"{name} {math.degrees(q):.2f} deg outside [{math.degrees(lo):.1f}, "
            f"{math.degrees(hi):.1f}]"
            for name, q, (lo, hi) in zip(
                setup.joint_names, joints, setup.config.joint_limits, strict=True
            )
            if not lo <= q <= hi
        ]
        response.message += (
            "; joint limits broken: " + ", ".join(outside)
            if outside
            else ("; a link angle outside its servo's travel")
        )
