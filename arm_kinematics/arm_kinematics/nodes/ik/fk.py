"""`compute_fk` without its node: joints by name -> the tool pose and every URDF frame.

No rclpy node here, message types only. Units: metres, radians (degrees in the message).
"""

from __future__ import annotations

import math

from builtin_interfaces.msg import Time

from arm_kinematics.nodes.ik.requests import IkSetup
from arm_kinematics.nodes.messages import (
    JointStateError,
    JointStateProblem,
    fill_pose_stamped,
    frames_to_poses,
    joint_positions,
)
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
    """Names of the poses in ComputeFK.frames (`PlanarChain.link_frames`), base first: the
    URDF's links as TF names them (base, link_1 .. link_n, tip, with the frame prefix)."""
    config = setup.config
    links = [config.frame(f"link_{index}") for index in range(1, len(setup.joint_names) + 1)]
    return [setup.base_frame, *links, setup.tip_frame]


def compute_fk(
    setup: IkSetup, request: ComputeFK.Request, response: ComputeFK.Response, stamp: Time
) -> None:
    """Answer `request` in `response` (a JointStateError, a Refusal, for joints that cannot be
    read). FK is computed outside the joint limits too, and the message says which."""
    joints = joint_positions(request.joints, setup.joint_names)
    arm, base, z = setup.arm, setup.base_frame, setup.config.plane_z
    frames = arm.link_frames(joints)
    names = frame_names(setup)
    # As TF has them: the base frame itself at z = 0, the links and the tip on the plane.
    response.frames = frames_to_poses(frames[:1], frame_id=base, stamp=stamp)
    response.frames += frames_to_poses(frames[1:], frame_id=base, z=z, stamp=stamp)
    response.frame_names = names
    tip_x, tip_y, tip_heading = frames[-1]
    fill_pose_stamped(response.tip, tip_x, tip_y, tip_heading, frame_id=base, z=z, stamp=stamp)
    response.within_limits = bool(arm.within_limits(joints))
    response.manipulability = float(arm.manipulability(joints))
    response.status = _FK.OK
    response.message = (
        f"tip '{setup.tip_frame}' at ({tip_x:.4f}, {tip_y:.4f}) m, heading "
        f"{math.degrees(tip_heading):.2f} deg in '{base}'; frames: {', '.join(names)} (every "
        f"pose expressed in '{base}')"
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
        response.message += "; joint limits broken: " + ", ".join(outside)
