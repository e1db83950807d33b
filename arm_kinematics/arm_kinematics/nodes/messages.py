"""Conversions between ROS messages and the plain values of the kinematics core.

The core works on floats and tuples (metres, radians, joint order of the configuration); the
nodes speak geometry_msgs and sensor_msgs. Everything that translates between the two lives
here so the nodes stay thin and the core never sees a ROS type.

Conventions: a planar pose is (x, y, heading) in the arm's base frame, the heading being a
rotation about z (radians, counter-clockwise seen from +z); the arm's plane sits at height z.
Quaternions are handled with transforms3d, whose order is (w, x, y, z).
"""

from __future__ import annotations

import array
import math
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any

import transforms3d.euler
import transforms3d.quaternions
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, PoseStamped, Quaternion
from sensor_msgs.msg import JointState

from arm_kinematics.kinematics import BRANCH_NAMES as BRANCH_RULE_NAMES
from arm_kinematics.nodes.refusals import InvalidOrientation, Refusal
from arm_kinematics_interfaces.srv import ComputeFK, SolveIK

#: Largest deviation of a quaternion's norm from 1, and of its roll and pitch from 0 (radians),
#: for it to count as a heading (a pure rotation about z).
ORIENTATION_TOLERANCE = 1e-6
_HEADING_HINT = "x=0, y=0, z=sin(h/2), w=cos(h/2) (or orientation_mode TOOL_ANGLE, tool_angle h)"


def constant_names(cls: type, names: Sequence[str]) -> dict[int, str]:
    """{value: name} of a message class's constants, e.g. for status names in logs."""
    return {getattr(cls, name): name for name in names}


#: SolveIK (and SolveIKBatch) status value -> constant name.
SOLVE_IK_STATUS_NAMES = constant_names(
    SolveIK.Response,
    (
        "OK",
        "SINGULAR",
        "TOO_FAR",
        "TOO_CLOSE",
        "JOINT_LIMIT",
        "ORIENTATION_UNREACHABLE",
        "INVALID_INPUT",
        "WRONG_FRAME",
        "OFF_PLANE",
        "INVALID_ORIENTATION",
        "YAW_LIMIT",
        "OUTSIDE_WORKSPACE",
    ),
)
#: ComputeFK status value -> constant name.
COMPUTE_FK_STATUS_NAMES = constant_names(
    ComputeFK.Response, ("OK", "UNKNOWN_JOINT", "MISSING_JOINT", "INVALID_INPUT")
)
#: SolveIK BRANCH_* value -> lower-case branch name as in the `default_branch` parameter (the
#: names are the core's `BRANCH_NAMES`).
BRANCH_NAMES = {
    getattr(SolveIK.Request, f"BRANCH_{name.upper()}"): name for name in BRANCH_RULE_NAMES
}


def solve_ik_status_name(status: int) -> str:
    """Name of a SolveIK status value ("UNKNOWN(42)" for a value the .srv does not define)."""
    return SOLVE_IK_STATUS_NAMES.get(status, f"UNKNOWN({status})")


# --- orientation -------------------------------------------------------------------------------


def heading_to_quaternion(heading: float) -> Quaternion:
    """Quaternion message of a rotation by `heading` radians about z."""
    return _fill_quaternion(Quaternion(), heading)


def _fill_quaternion(quaternion: Quaternion, heading: float) -> Quaternion:
    w, x, y, z = transforms3d.euler.euler2quat(0.0, 0.0, heading, "sxyz")
    quaternion.x, quaternion.y, quaternion.z, quaternion.w = float(x), float(y), float(z), float(w)
    return quaternion


def quaternion_values(orientation: Quaternion) -> tuple[float, float, float, float]:
    """(x, y, z, w) of a quaternion message, as ROS orders them."""
    return (orientation.x, orientation.y, orientation.z, orientation.w)


def quaternion_to_heading(
    orientation: Quaternion, tolerance: float = ORIENTATION_TOLERANCE
) -> float:
    """Heading (radians, in (-pi, pi]) of a quaternion that must be a pure rotation about z.

    Raises Refusal when the quaternion is not finite, InvalidOrientation, with a message saying
    what to send instead, when its norm is not 1 within `tolerance` or its roll or pitch
    exceed `tolerance` radians.
    """
    return heading_of_values(quaternion_values(orientation), tolerance)


def check_unit_quaternion(xyzw: Sequence[float], tolerance: float = ORIENTATION_TOLERANCE) -> None:
    """Refusal unless the quaternion (x, y, z, w) is finite, InvalidOrientation unless it is
    of norm 1 (within `tolerance`)."""
    x, y, z, w = xyzw
    if not all(math.isfinite(v) for v in (x, y, z, w)):
        raise Refusal(f"orientation ({x}, {y}, {z}, {w}) is not finite")
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if abs(norm - 1.0) > tolerance:
        raise InvalidOrientation(
            f"orientation quaternion has norm {norm:.9g}, not 1 within {tolerance:g}; "
            f"for a heading h send {_HEADING_HINT}"
        )


def heading_of_values(xyzw: Sequence[float], tolerance: float = ORIENTATION_TOLERANCE) -> float:
    """`quaternion_to_heading` of a quaternion given as (x, y, z, w)."""
    check_unit_quaternion(xyzw, tolerance)
    x, y, z, w = xyzw
    roll, pitch, yaw = transforms3d.euler.quat2euler((w, x, y, z), "sxyz")
    if abs(roll) > tolerance or abs(pitch) > tolerance:
        raise InvalidOrientation(
            f"orientation is not a rotation about z (roll {math.degrees(roll):.6g} deg, "
            f"pitch {math.degrees(pitch):.6g} deg); the arm only sets a heading: "
            f"send {_HEADING_HINT}"
        )
    return float(yaw)


# --- poses -------------------------------------------------------------------------------------


def position_values(pose: Pose) -> tuple[float, float, float]:
    """(x, y, z) of a pose message, metres."""
    p = pose.position
    return (p.x, p.y, p.z)


def planar_pose(x: float, y: float, heading: float, z: float = 0.0) -> Pose:
    """Pose message at (x, y, z) turned by `heading` radians about z."""
    return _fill_planar_pose(Pose(), x, y, heading, z)


def _fill_planar_pose(pose: Pose, x: float, y: float, heading: float, z: float) -> Pose:
    # In place, as fill_joint_state: a message built with keyword fields first builds its
    # default sub-messages, so Pose(position=Point(...), ...) builds four sub-messages for two.
    position = pose.position
    position.x, position.y, position.z = float(x), float(y), float(z)
    _fill_quaternion(pose.orientation, heading)
    return pose


def pose_stamped(
    x: float,
    y: float,
    heading: float,
    *,
    frame_id: str,
    z: float = 0.0,
    stamp: Time | None = None,
) -> PoseStamped:
    """PoseStamped of a planar pose expressed in `frame_id`."""
    return fill_pose_stamped(PoseStamped(), x, y, heading, frame_id=frame_id, z=z, stamp=stamp)


def fill_pose_stamped(
    msg: PoseStamped,
    x: float,
    y: float,
    heading: float,
    *,
    frame_id: str,
    z: float = 0.0,
    stamp: Time | None = None,
) -> PoseStamped:
    """Set `msg` to a planar pose expressed in `frame_id`, in place (as fill_joint_state)."""
    _fill_planar_pose(msg.pose, x, y, heading, z)
    msg.header.frame_id = frame_id
    if stamp is not None:
        msg.header.stamp = stamp
    return msg


def fill_transform_pose(
    msg: PoseStamped, matrix: Any, *, frame_id: str, stamp: Time | None = None
) -> PoseStamped:
    """Set `msg` to the pose of a 4x4 homogeneous transform (m; its rotation through
    transforms3d) expressed in `frame_id`, in place.

    >>> import numpy as np
    >>> pose = fill_transform_pose(PoseStamped(), np.eye(4), frame_id="base_link").pose
    >>> (pose.position.z, pose.orientation.w)
    (0.0, 1.0)
    """
    position = msg.pose.position
    position.x, position.y, position.z = (float(v) for v in matrix[:3, 3])
    w, x, y, z = transforms3d.quaternions.mat2quat(matrix[:3, :3])
    orientation = msg.pose.orientation
    orientation.x, orientation.y, orientation.z, orientation.w = (
        float(x),
        float(y),
        float(z),
        float(w),
    )
    msg.header.frame_id = frame_id
    if stamp is not None:
        msg.header.stamp = stamp
    return msg


def frames_to_poses(
    frames: Iterable[Sequence[float]],
    *,
    frame_id: str,
    z: float = 0.0,
    stamp: Time | None = None,
) -> list[PoseStamped]:
    """PoseStamped of every (x, y, heading) frame (as `PlanarArm.frames` gives them).

    Every pose is expressed in `frame_id` (the arm's base frame), as ROS reads a PoseStamped.
    """
    return [
        pose_stamped(x, y, heading, frame_id=frame_id, z=z, stamp=stamp) for x, y, heading in frames
    ]


# --- joint states ------------------------------------------------------------------------------


class JointStateProblem(Enum):
    """What is wrong with a JointState, so that each service can map it to its own status."""

    LENGTH_MISMATCH = "length mismatch"
    UNKNOWN_JOINT = "unknown joint"
    DUPLICATE_JOINT = "duplicate joint"
    MISSING_JOINT = "missing joint"
    NON_FINITE = "non-finite position"


class JointStateError(Refusal):
    """A JointState that cannot be read as the arm's joints (INVALID_INPUT); names the
    offending joint, and `problem` says what is wrong with it."""

    def __init__(self, problem: JointStateProblem, message: str, joint: str | None = None):
        super().__init__(message)
        self.problem = problem
        self.joint = joint


def joint_state(
    names: Sequence[str], positions: Iterable[float], stamp: Time | None = None
) -> JointState:
    """JointState with `names` and `positions` (radians)."""
    return fill_joint_state(JointState(), names, positions, stamp)


def fill_joint_state(
    msg: JointState, names: Sequence[str], positions: Iterable[float], stamp: Time | None = None
) -> JointState:
    """Set `msg`'s names, positions (radians) and stamp in place; returns `msg`.

    Filling the JointState a response already holds saves building a new one (a JointState
    costs about 12 us to construct in rclpy, a noticeable part of a 0.5 ms service round trip).
    """
    msg.name = list(names)
    msg.position = array.array("d", positions)
    if stamp is not None:
        msg.header.stamp = stamp
    return msg


def is_empty(msg: JointState) -> bool:
    """True for a JointState with neither names nor positions (an optional field left out)."""
    return len(msg.name) == 0 and len(msg.position) == 0


def joint_positions(
    msg: JointState, names: Sequence[str], *, allow_unknown: bool = False
) -> tuple[float, ...]:
    """Positions (radians) of the joints `names`, in that order, read from `msg` by name.

    Every joint of `names` must appear exactly once with a finite position. Names that are not
    in `names` are an error unless `allow_unknown` (a robot's joint_states may carry more
    joints than the arm's). Raises JointStateError naming the joint at fault.
    """
    if len(msg.name) != len(msg.position):
        raise JointStateError(
            JointStateProblem.LENGTH_MISMATCH,
            f"joint state has {len(msg.name)} names but {len(msg.position)} positions",
        )
    wanted = set(names)
    by_name: dict[str, float] = {}
    for name, position in zip(msg.name, msg.position, strict=True):
        if name in by_name:
            raise JointStateError(
                JointStateProblem.DUPLICATE_JOINT, f"joint '{name}' is given twice", name
            )
        if name not in wanted:
            if allow_unknown:
                continue
            raise JointStateError(
                JointStateProblem.UNKNOWN_JOINT,
                f"unknown joint '{name}' (the arm's joints are {', '.join(names)})",
                name,
            )
        by_name[name] = position
    for name in names:
        if name not in by_name:
            raise JointStateError(
                JointStateProblem.MISSING_JOINT,
                f"joint '{name}' is missing (give every joint: {', '.join(names)})",
                name,
            )
        if not math.isfinite(by_name[name]):
            raise JointStateError(
                JointStateProblem.NON_FINITE,
                f"joint '{name}' position {by_name[name]} is not finite",
                name,
            )
    return tuple(float(by_name[name]) for name in names)
