"""The stamped-target check of every node, written once: the frame into the base frame, finite
numbers, the plane (planar arms), the orientation; in that order.

`ik_node` (solve_ik, solve_ik_batch) and `trajectory_node` (MoveArm targets and waypoints,
clicked points, plan_cartesian_path waypoints) check their targets here and refuse them with
the same words (`nodes/refusals.py`: WrongFrame, Refusal, OffPlane, InvalidOrientation). A
target may be stamped in the arm's base frame (empty frame_id: the base frame) or, with a
mount, in the mount's parent frame (`frames.TargetFrames`); the plane and the orientation are
checked in the base frame.

Two steps, so that a spatial arm can take the first alone: `TargetCheck.stamped` (the frame,
finite numbers, a known orientation mode; any arm) gives a `StampedTarget`, and
`TargetCheck.planar` (the plane, the heading) a planar arm's `PlanarTarget`. Orientation modes
are SolveIK's (the same values in every interface): POSITION_ONLY ignores the orientation,
TOOL_ANGLE is the heading in `tool_angle` (rad about the base's z, whatever the target's
frame), FULL_ORIENTATION the quaternion, turned into the base frame, which must then be a
rotation about the base's z.

No rclpy node here, message types only. Units: metres, radians.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import transforms3d
from geometry_msgs.msg import Pose

from arm_kinematics.config import ArmConfig
from arm_kinematics.frames import TargetFrames
from arm_kinematics.kinematics import outward_angles
from arm_kinematics.nodes.messages import (
    check_unit_quaternion,
    constant_names,
    heading_of_values,
    position_values,
    quaternion_values,
)
from arm_kinematics.nodes.refusals import InvalidOrientation, OffPlane, Refusal, WrongFrame
from arm_kinematics_interfaces.srv import SolveIK

POSITION_ONLY = SolveIK.Request.POSITION_ONLY
TOOL_ANGLE = SolveIK.Request.TOOL_ANGLE
FULL_ORIENTATION = SolveIK.Request.FULL_ORIENTATION
#: orientation_mode value -> constant name (SolveIK's; MoveArm and the others have the same).
ORIENTATION_MODE_NAMES = constant_names(
    SolveIK.Request, ("POSITION_ONLY", "TOOL_ANGLE", "FULL_ORIENTATION")
)
#: How far from +-1 the z of the plane's normal may be for the plane to count as level.
LEVEL_TOLERANCE = 1e-9
#: rad: a spatial target's rotation counts as one the arm gives when it turns the tool this
#: little about its own z (the solver's own tolerance for a roll).
ROTATION_TOLERANCE = 1e-9


class StampedTarget(NamedTuple):
    """A target whose frame and numbers are checked (any arm).

    `position` is in the base frame (m); `given` the position as the request gave it, in
    `given_in` (the base frame for an empty frame_id). The orientation request: `mode` (an
    orientation mode), `tool_angle` (rad, read with TOOL_ANGLE) and `orientation` (x, y, z, w
    as given, in `given_in`; read with FULL_ORIENTATION).
    """

    position: tuple[float, float, float]
    given: tuple[float, float, float]
    given_in: str
    mode: int
    tool_angle: float
    orientation: tuple[float, float, float, float]


class PlanarTarget(NamedTuple):
    """A planar arm's target in the base frame: x, y (m), the heading (rad, None: any), and the
    frame the request stamped it in."""

    x: float
    y: float
    heading: float | None
    given_in: str

    @property
    def point(self) -> tuple[float, ...]:
        """(x, y), or (x, y, heading) when a heading is asked for: a planner's point."""
        return (self.x, self.y) if self.heading is None else (self.x, self.y, self.heading)


class SpatialTarget(NamedTuple):
    """A spatial arm's target in the base frame: x, y, z (m), the orientation asked for (a
    `pitch`, rad, outward (`kinematics.outward_angles`), with TOOL_ANGLE; a `rotation`, 3x3 in
    the base frame, with FULL_ORIENTATION; neither: position only), and the frame the request
    stamped it in."""

    x: float
    y: float
    z: float
    pitch: float | None
    rotation: np.ndarray | None
    given_in: str

    @property
    def point(self) -> tuple[float, ...]:
        """A planner's point: (x, y, z), (x, y, z, pitch), or with a rotation (x, y, z, pitch,
        roll); a Refusal for a rotation no yaw-and-pitch arm gives (its x axis off the target's
        vertical plane), which no straight line can end in."""
        if self.rotation is None:
            return (self.x, self.y, self.z) if self.pitch is None else (*self[:3], self.pitch)
        pitch, roll, twist = outward_angles(self.x, self.y, self.rotation, 0.0)
        if abs(twist) > ROTATION_TOLERANCE:
            raise InvalidOrientation(
                f"the orientation would turn the tool {math.degrees(abs(twist)):.2f} deg about "
                "its own z axis, which no joint does (its x axis must lie in the target's "
                f"vertical plane); the nearest the joints give: pitch {math.degrees(pitch):.2f} "
                f"deg, roll {math.degrees(roll):.2f} deg"
            )
        return (self.x, self.y, self.z, pitch, roll)


@dataclass(frozen=True)
class SpatialPoints:
    """A batch of spatial targets in the base frame: rows (x, y, z[, pitch[, roll]]) (m, rad,
    outward angles) and the frame the request stamped them in."""

    rows: list[tuple[float, ...]]
    given_in: str


@dataclass(frozen=True)
class PlanarPoints:
    """A batch of planar targets in the base frame: x, y (m), headings (rad; None: any) and the
    frame the request stamped them in."""

    x: Sequence[float]
    y: Sequence[float]
    headings: Sequence[float] | None
    given_in: str


def check_orientation_mode(mode: int) -> None:
    """Refusal unless `mode` is one of the orientation modes."""
    if mode not in ORIENTATION_MODE_NAMES:
        choices = ", ".join(f"{value} ({name})" for value, name in ORIENTATION_MODE_NAMES.items())
        raise Refusal(f"unknown orientation_mode {mode}; use one of {choices}")


def waypoint_tool_angles(mode: int, count: int, tool_angles: Sequence[float]) -> list[float]:
    """The tool angle (rad) of each of `count` waypoints (MoveArm's and PlanCartesianPath's
    `waypoint_tool_angles`): `tool_angles` with TOOL_ANGLE, one per waypoint (else a Refusal),
    zeros otherwise (not read)."""
    check_orientation_mode(mode)
    if mode != TOOL_ANGLE:
        return [0.0] * count
    if len(tool_angles) != count:
        raise Refusal(
            f"orientation_mode TOOL_ANGLE: waypoint_tool_angles needs {count} values (one per "
            f"waypoint), it has {len(tool_angles)}"
        )
    return [float(angle) for angle in tool_angles]


class TargetCheck:
    """The checks of targets for one arm: its frames, and the plane of a planar arm (plane_z,
    plane_tolerance, m, in the base frame)."""

    def __init__(self, frames: TargetFrames, plane_z: float, plane_tolerance: float) -> None:
        self.frames = frames
        self.plane_z = plane_z
        self.plane_tolerance = plane_tolerance

    @classmethod
    def from_config(cls, config: ArmConfig) -> TargetCheck:
        return cls(TargetFrames.from_config(config), config.plane_z, config.plane_tolerance)

    @property
    def base_frame(self) -> str:
        """The arm's base frame, with its frame prefix."""
        return self.frames.base_frame

    def frame(self, frame_id: str, what: str = "target") -> None:
        """WrongFrame unless `frame_id` is empty, the base frame or the mount's parent frame."""
        if frame_id == "" or frame_id in self.frames.accepted:
            return
        base = self.base_frame
        if self.frames.mount is None:
            raise WrongFrame(
                f"{what} frame '{frame_id}' is not the arm's base frame '{base}': transform "
                f"the {what} into '{base}' (or leave frame_id empty)"
            )
        raise WrongFrame(
            f"{what} frame '{frame_id}' is {self.frames.expected_words()}: transform the "
            f"{what} into one of them (or leave frame_id empty for '{base}')"
        )

    def stamped(
        self,
        frame_id: str,
        position: Sequence[float],
        mode: int,
        tool_angle: float = 0.0,
        orientation: Sequence[float] = (0.0, 0.0, 0.0, 1.0),
        what: str = "target",
    ) -> StampedTarget:
        """A target's frame and numbers checked, its position turned into the base frame.

        `position` (x, y, z, m) and `orientation` (x, y, z, w) as stamped in `frame_id`;
        WrongFrame, then Refusal for a number that is not finite (the orientation only when it
        is read) or an unknown `mode`.
        """
        self.frame(frame_id, what)
        x, y, z = position
        given = (float(x), float(y), float(z))
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            raise Refusal(f"{what} position {given} must be finite numbers (metres)")
        check_orientation_mode(mode)
        if mode == TOOL_ANGLE and not math.isfinite(tool_angle):
            raise Refusal(f"{what} tool_angle = {tool_angle} must be a finite number (rad)")
        qx, qy, qz, qw = orientation
        xyzw = (float(qx), float(qy), float(qz), float(qw))
        if mode == FULL_ORIENTATION and not all(math.isfinite(v) for v in xyzw):
            raise Refusal(
                f"{what} orientation {xyzw} (x, y, z, w) must be finite with FULL_ORIENTATION"
            )
        in_base = self.frames.to_base(frame_id, given)
        return StampedTarget(
            in_base.position, given, in_base.given_in, mode, float(tool_angle), xyzw
        )

    def planar(self, target: StampedTarget, what: str = "target") -> PlanarTarget:
        """A planar arm's target: OffPlane unless it lies on the arm's plane, then its heading
        (InvalidOrientation for a FULL_ORIENTATION that is not a rotation about the base's z)."""
        x, y, z = target.position
        self.plane(z, target.given, target.given_in, what)
        if target.mode == POSITION_ONLY:
            return PlanarTarget(x, y, None, target.given_in)
        if target.mode == TOOL_ANGLE:
            return PlanarTarget(x, y, target.tool_angle, target.given_in)
        return PlanarTarget(x, y, self._heading(target, what), target.given_in)

    def stamped_pose(
        self, frame_id: str, pose: Pose, mode: int, tool_angle: float, what: str
    ) -> StampedTarget:
        """`stamped` of a geometry_msgs/Pose stamped in `frame_id`."""
        return self.stamped(
            frame_id,
            position_values(pose),
            mode,
            tool_angle,
            quaternion_values(pose.orientation),
            what,
        )

    def planar_pose(
        self, frame_id: str, pose: Pose, mode: int, tool_angle: float = 0.0, what: str = "target"
    ) -> PlanarTarget:
        """`stamped`, then `planar`, of a geometry_msgs/Pose stamped in `frame_id`."""
        return self.planar(self.stamped_pose(frame_id, pose, mode, tool_angle, what), what)

    def spatial(self, target: StampedTarget, what: str = "target") -> SpatialTarget:
        """A spatial arm's target (no plane: it reaches up and down): the pitch with
        TOOL_ANGLE (rad, outward, about the base frame's vertical whatever the target's frame),
        the rotation in the base frame with FULL_ORIENTATION (InvalidOrientation for a
        quaternion that is not of unit length)."""
        x, y, z = target.position
        if target.mode == POSITION_ONLY:
            return SpatialTarget(x, y, z, None, None, target.given_in)
        if target.mode == TOOL_ANGLE:
            return SpatialTarget(x, y, z, target.tool_angle, None, target.given_in)
        try:
            check_unit_quaternion(target.orientation)
        except InvalidOrientation as error:
            raise InvalidOrientation(f"{what} {error}") from None
        xyzw = self.frames.to_base(target.given_in, target.given, target.orientation).orientation
        qx, qy, qz, qw = xyzw
        rotation = transforms3d.quaternions.quat2mat((qw, qx, qy, qz))
        return SpatialTarget(x, y, z, None, rotation, target.given_in)

    def spatial_pose(
        self, frame_id: str, pose: Pose, mode: int, tool_angle: float = 0.0, what: str = "target"
    ) -> SpatialTarget:
        """`stamped`, then `spatial`, of a geometry_msgs/Pose stamped in `frame_id`."""
        return self.spatial(self.stamped_pose(frame_id, pose, mode, tool_angle, what), what)

    def spatial_points(
        self,
        frame_id: str,
        xs: Sequence[float],
        ys: Sequence[float],
        zs: Sequence[float],
        mode: int,
        tool_angles: Sequence[float],
        rolls: Sequence[float],
    ) -> SpatialPoints:
        """A batch of spatial targets in the base frame (SolveIKBatch's fields): one y and
        one z per x (Refusal otherwise), a pitch per x with TOOL_ANGLE, a pitch and a roll per
        x with FULL_ORIENTATION (rad, outward, about the base frame's vertical). A non-finite
        number is left to the core (its target's INVALID_INPUT)."""
        self.frame(frame_id)
        count = len(xs)
        for name, values in (("y", ys), ("z", zs)):
            if len(values) != count:
                raise Refusal(
                    f"x has {count} values but {name} has {len(values)}: a spatial arm needs "
                    "x, y and z for every target"
                )
        check_orientation_mode(mode)
        columns = [xs, ys, zs]
        needed = (("tool_angle", tool_angles),) if mode == TOOL_ANGLE else ()
        if mode == FULL_ORIENTATION:
            needed = (("tool_angle", tool_angles), ("roll", rolls))
        for name, values in needed:
            if len(values) != count:
                raise Refusal(
                    f"orientation_mode {ORIENTATION_MODE_NAMES[mode]}: {name} needs {count} "
                    f"values (one per target), it has {len(values)}"
                )
            columns.append(values)
        mount = self.frames.mount
        if mount is not None and frame_id not in ("", self.base_frame):
            in_base = mount.points_to_base(np.column_stack((xs, ys, zs)))
            columns[:3] = [in_base[:, 0], in_base[:, 1], in_base[:, 2]]
        rows = np.column_stack(columns).tolist() if count else []
        return SpatialPoints([tuple(row) for row in rows], frame_id or self.base_frame)

    def plane(self, z: float, given: Sequence[float], given_in: str, what: str = "target") -> None:
        """OffPlane unless `z` (m, in the base frame) is on the arm's plane; `given` is the
        target as the request gave it, in `given_in`."""
        off = abs(z - self.plane_z)
        if off <= self.plane_tolerance:
            return
        where = ", ".join(f"{v:.6g}" for v in given)
        in_base = f" (z = {z:.6g} m in '{self.base_frame}')" if given_in != self.base_frame else ""
        raise OffPlane(
            f"{what} ({where}) m in '{given_in}' lies {off:.6g} m off the arm's plane{in_base}; "
            f"the plane is {self.frames.plane_words(self.plane_z)} "
            f"(tolerance {self.plane_tolerance:g} m)"
        )

    def _heading(self, target: StampedTarget, what: str) -> float:
        xyzw = target.orientation
        base = self.base_frame
        try:
            if target.given_in != base:
                # The mount's rotation would hide a quaternion that is not of unit length.
                check_unit_quaternion(xyzw)
                xyzw = self.frames.to_base(target.given_in, target.given, xyzw).orientation
            return heading_of_values(xyzw)
        except InvalidOrientation as error:
            if target.given_in == base:
                raise InvalidOrientation(f"{what} {error}") from None
            raise InvalidOrientation(
                f"{what} in '{base}' (turned from '{target.given_in}'): {error}"
            ) from None

    def planar_points(
        self,
        frame_id: str,
        xs: Sequence[float],
        ys: Sequence[float],
        zs: Sequence[float],
        mode: int,
        tool_angles: Sequence[float],
    ) -> PlanarPoints:
        """A batch of planar targets in the base frame (SolveIKBatch's fields).

        One y per x, one z per x or none (the arm's plane), one tool angle per x unless
        POSITION_ONLY (Refusal otherwise, or for a z that is not finite); every point on the
        plane (OffPlane naming the first that is not). A non-finite x or y is left to the core
        (its target's INVALID_INPUT). TOOL_ANGLE headings are the arm's own; FULL_ORIENTATION
        headings are about the z of `frame_id`, which in the mount's parent frame needs the
        arm's plane level there.
        """
        self.frame(frame_id)
        count = len(xs)
        if len(ys) != count:
            raise Refusal(f"x has {count} values but y has {len(ys)}")
        if len(zs) not in (0, count):
            raise Refusal(
                f"z has {len(zs)} values: give one per target ({count}) or none (the arm's plane)"
            )
        for index, z in enumerate(zs):
            if not math.isfinite(z):
                raise Refusal(f"z[{index}] = {z} must be a finite number (m)")
        check_orientation_mode(mode)
        if mode != POSITION_ONLY and len(tool_angles) != count:
            raise Refusal(
                f"orientation_mode {ORIENTATION_MODE_NAMES[mode]}: tool_angle needs {count} "
                f"values (one per target), it has {len(tool_angles)}"
            )
        headings = None if mode == POSITION_ONLY else tool_angles
        mount = self.frames.mount
        if mount is None or frame_id in ("", self.base_frame):
            if len(zs):
                given = np.column_stack((xs, ys, zs))
                self._points_on_plane(given, given[:, 2], self.base_frame)
            return PlanarPoints(xs, ys, headings, self.base_frame)
        given = np.column_stack((xs, ys, zs if len(zs) else self._level_heights(frame_id, count)))
        in_base = mount.points_to_base(given)
        self._points_on_plane(given, in_base[:, 2], frame_id)
        if mode == FULL_ORIENTATION:
            try:
                headings = mount.headings_to_base(np.asarray(headings)).tolist()
            except ValueError as error:
                raise InvalidOrientation(str(error)) from None
        return PlanarPoints(in_base[:, 0].tolist(), in_base[:, 1].tolist(), headings, frame_id)

    def _points_on_plane(self, given: np.ndarray, z_in_base: np.ndarray, given_in: str) -> None:
        off = np.abs(z_in_base - self.plane_z) > self.plane_tolerance
        if off.any():
            index = int(np.flatnonzero(off)[0])
            self.plane(float(z_in_base[index]), given[index], given_in, f"target {index}")

    def _level_heights(self, frame_id: str, count: int) -> np.ndarray:
        """The height in the mount's parent frame of `count` points on the arm's plane, which
        must be level there (Refusal otherwise)."""
        assert self.frames.mount is not None
        point, normal = self.frames.mount.plane_in_parent(self.plane_z)
        if abs(abs(normal[2]) - 1.0) > LEVEL_TOLERANCE:
            raise Refusal(
                f"z is empty, but the arm's plane has no one height in '{frame_id}' (it is "
                "tilted there): give z, one per target"
            )
        return np.full(count, point[2])
