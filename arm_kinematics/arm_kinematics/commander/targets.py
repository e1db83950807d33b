"""A verb's arguments -> the fields of a SolveIK request or a MoveArm goal, checked for shape.

What the commander checks here is only what it alone can: the shape of the arguments (numbers
where numbers go, the angles that this kind of arm takes, a z for a spatial arm, joints by
name or in the arm's order, a known branch or mode). The values themselves (finite, in reach,
in the right frame, a speed in range) are the nodes' to judge: they answer with a status and
words, as they do for every client, so a rule is never written twice.

Angles in radians, positions in metres, as the services and actions take them:

- a planar arm's pose is x, y (z: its plane, `ArmFacts.plane_z`) and an optional `heading`
  (TOOL_ANGLE, about the base frame's z);
- a spatial arm's is x, y, z, an optional `pitch` (TOOL_ANGLE: above the horizontal, -pi/2
  pointing down) and, with a pitch, an optional `roll` (FULL_ORIENTATION: the rotation of the
  outward convention, docs/spatial_arms.md, in the base frame).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import transforms3d.quaternions

from arm_kinematics.commander.errors import CommanderError, InvalidArgumentError
from arm_kinematics.kinematics.spatial.model import outward_rotation

POSITION_ONLY, TOOL_ANGLE, FULL_ORIENTATION = 0, 1, 2
"""The orientation_mode values of SolveIK, SolveIKBatch, MoveArm and PlanCartesianPath."""

ARM_PARAMETERS = ("layout", "joint_names", "plane_z_m")
"""The parameters every node of the arm declares that tell a client the arm's kind."""

IDENTITY = (0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class ArmFacts:
    """What a client needs to know of the arm: its layout ("planar" or "spatial"), its
    kinematic joints in order (the gripper's not among them) and, for a planar arm, the
    height of its plane in the base frame (m)."""

    layout: str
    joint_names: tuple[str, ...]
    plane_z: float = 0.0

    @classmethod
    def from_config(cls, config: Any) -> ArmFacts:
        """From an `ArmConfig` (a params file read by the client)."""
        return cls(config.layout, tuple(config.joint_names), config.plane_z)

    @classmethod
    def from_parameters(cls, values: Mapping[str, Any], node: str) -> ArmFacts:
        """From the ARM_PARAMETERS of the running `node` (None where not set)."""
        layout, names = values.get("layout"), values.get("joint_names")
        if layout not in ("planar", "spatial") or not names:
            raise CommanderError(
                f"{node} does not say which arm it serves (layout {layout!r}, joint_names "
                f"{names!r}): is it an arm_kinematics node?"
            )
        plane_z = values.get("plane_z_m")
        return cls(str(layout), tuple(str(n) for n in names), float(plane_z or 0.0))


@dataclass(frozen=True)
class PoseFields:
    """One pose as the requests carry it: the position (m), the orientation_mode, the
    tool_angle (rad, with TOOL_ANGLE) and the quaternion (x, y, z, w; read with
    FULL_ORIENTATION)."""

    position: tuple[float, float, float]
    orientation_mode: int = POSITION_ONLY
    tool_angle: float = 0.0
    orientation: tuple[float, float, float, float] = IDENTITY


def number(name: str, value: Any) -> float:
    """`value` as a float, or InvalidArgumentError naming the argument."""
    if isinstance(value, bool):
        raise InvalidArgumentError(f"{name} must be a number, not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name} must be a number, not {value!r}") from None


def pose_fields(
    facts: ArmFacts,
    x: Any,
    y: Any,
    z: Any = None,
    *,
    heading: Any = None,
    pitch: Any = None,
    roll: Any = None,
    frame: str = "",
    what: str = "the target",
) -> PoseFields:
    """The request fields of a tool pose for this arm (see the module's docstring).

    >>> planar = ArmFacts("planar", ("shoulder", "elbow"), plane_z=0.02)
    >>> fields = pose_fields(planar, 0.1, 0.05, heading=0.5)
    >>> fields.position, fields.orientation_mode == TOOL_ANGLE, fields.tool_angle
    ((0.1, 0.05, 0.02), True, 0.5)
    """
    x, y = number(f"{what}'s x", x), number(f"{what}'s y", y)
    if facts.layout == "planar":
        if pitch is not None or roll is not None:
            raise InvalidArgumentError(
                f"{what}: pitch and roll are a spatial arm's; this planar arm takes a heading "
                "(rad about the base frame's z)"
            )
        z = facts.plane_z if z is None else number(f"{what}'s z", z)
        if heading is None:
            return PoseFields((x, y, z))
        return PoseFields((x, y, z), TOOL_ANGLE, number(f"{what}'s heading", heading))
    if heading is not None:
        raise InvalidArgumentError(
            f"{what}: a heading is a planar arm's; this spatial arm takes a pitch (rad above "
            "the horizontal) and, with it, a roll"
        )
    if z is None:
        raise InvalidArgumentError(f"{what}: a spatial arm needs z (m, in the base frame)")
    position = (x, y, number(f"{what}'s z", z))
    if pitch is None:
        if roll is not None:
            raise InvalidArgumentError(f"{what}: a roll needs a pitch too")
        return PoseFields(position)
    pitch = number(f"{what}'s pitch", pitch)
    if roll is None:
        return PoseFields(position, TOOL_ANGLE, pitch)
    if frame:
        raise InvalidArgumentError(
            f"{what}: pitch and roll are angles of the base frame; give the target in the "
            f"base frame (frame ''), not {frame!r}"
        )
    roll = number(f"{what}'s roll", roll)
    w, qx, qy, qz = transforms3d.quaternions.mat2quat(outward_rotation(x, y, pitch, roll, 0.0))
    quaternion = (float(qx), float(qy), float(qz), float(w))
    return PoseFields(position, FULL_ORIENTATION, 0.0, quaternion)


def waypoint_fields(facts: ArmFacts, values: Sequence[Any], index: int, frame: str) -> PoseFields:
    """A waypoint given as a tuple, like the target's arguments: planar (x, y[, heading]),
    spatial (x, y, z[, pitch[, roll]])."""
    what = f"waypoint {index}"
    shape = "(x, y[, heading])" if facts.layout == "planar" else "(x, y, z[, pitch[, roll]])"
    most = 3 if facts.layout == "planar" else 5
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise InvalidArgumentError(f"{what} must be a tuple {shape}, not {values!r}")
    if not 2 <= len(values) <= most:
        raise InvalidArgumentError(f"{what} has {len(values)} values; give {shape}")
    if facts.layout == "planar":
        return pose_fields(facts, *values[:2], heading=_at(values, 2), frame=frame, what=what)
    return pose_fields(
        facts, *values[:3], pitch=_at(values, 3), roll=_at(values, 4), frame=frame, what=what
    )


def _at(values: Sequence[Any], index: int) -> Any:
    return values[index] if len(values) > index else None


def fill_target(request: Any, fields: PoseFields, frame: str) -> Any:
    """Set a SolveIK request's or MoveArm goal's `target` (stamped in `frame`; '' is the base
    frame), `orientation_mode` and `tool_angle`; returns the request."""
    target = request.target
    target.header.frame_id = frame
    _fill_pose(target.pose, fields)
    request.orientation_mode = fields.orientation_mode
    request.tool_angle = fields.tool_angle
    return request


def fill_waypoints(goal: Any, target: PoseFields, waypoints: Sequence[PoseFields]) -> None:
    """Set a MoveArm goal's `waypoints` (and `waypoint_tool_angles` with TOOL_ANGLE): every
    waypoint must be given with the target's angles, the goal's orientation_mode being one."""
    mode_words = {
        POSITION_ONLY: "no angle",
        TOOL_ANGLE: "a tool angle (heading or pitch)",
        FULL_ORIENTATION: "a pitch and a roll",
    }
    poses = []
    for index, fields in enumerate(waypoints):
        if fields.orientation_mode != target.orientation_mode:
            raise InvalidArgumentError(
                f"waypoint {index} has {mode_words[fields.orientation_mode]}, the target "
                f"{mode_words[target.orientation_mode]}: give every pose the same angles"
            )
        pose = type(goal.target.pose)()
        poses.append(_fill_pose(pose, fields))
    goal.waypoints = poses
    if target.orientation_mode == TOOL_ANGLE:
        goal.waypoint_tool_angles = [fields.tool_angle for fields in waypoints]


def _fill_pose(pose: Any, fields: PoseFields) -> Any:
    position, orientation = pose.position, pose.orientation
    position.x, position.y, position.z = fields.position
    orientation.x, orientation.y, orientation.z, orientation.w = fields.orientation
    return pose


def joint_values(
    joints: Mapping[str, Any] | Sequence[Any], names: Sequence[str] | None, what: str
) -> tuple[list[str], list[float]]:
    """Names and radians of joints given by name ({name: rad}, in any order, passed on as
    given for the node to check) or as values in the arm's joint order (`names`)."""
    if isinstance(joints, Mapping):
        pairs = list(joints.items())
    elif isinstance(joints, str | bytes) or not isinstance(joints, Sequence):
        raise InvalidArgumentError(
            f"{what} must be {{name: rad}} or a sequence of rad in joint order, not {joints!r}"
        )
    else:
        assert names is not None  # the caller knows the arm for values in joint order
        if len(joints) != len(names):
            raise InvalidArgumentError(
                f"{what}: {len(joints)} values for {len(names)} joints ({', '.join(names)})"
            )
        pairs = list(zip(names, joints, strict=True))
    return [str(name) for name, _ in pairs], [number(f"{what} {n}", q) for n, q in pairs]
