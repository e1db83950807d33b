"""What every IK request is answered with, its branch and seed, and its call of the core.

A request's target is checked by `targets.TargetCheck` (the frame, finite numbers, ...; the
same check as the trajectory node's) into a `StampedTarget`; the arm's layout turns that into
the query of the core and calls it: `PlanarLayout` (the plane check and the heading, then
`PlanarArm.solve` / `solve_many`) or `SpatialLayout` (x, y, z with a pitch or a rotation, then
`SpatialArm.solve` / `solve_rotation` / `solve_many`), chosen in `layout_for`. Both have the
same methods, so nothing else in the IK node asks which kind of arm it serves.

No rclpy node here, message types only. Units: metres, radians.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import PoseStamped
from sensor_msgs.msg import JointState
from visualization_msgs.msg import MarkerArray

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, IkArrays, IkResult, PlanarArm, SpatialArm
from arm_kinematics.kinematics.workspace import ReachableRegion, reachable_region, vertical_region
from arm_kinematics.nodes.ik.markers import (
    envelope_markers,
    region_markers,
    workspace_markers,
    yaw_range_markers,
)
from arm_kinematics.nodes.messages import (
    BRANCH_NAMES,
    JointStateError,
    fill_pose_stamped,
    fill_transform_pose,
    frames_to_poses,
    is_empty,
    joint_positions,
)
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.targets import (
    PlanarPoints,
    PlanarTarget,
    SpatialPoints,
    SpatialTarget,
    StampedTarget,
    TargetCheck,
)
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch


class PlanarLayout:
    """A planar arm's requests as calls of its core: targets on the arm's plane, with a
    heading (rad about the base's z) or none."""

    def __init__(self, arm: PlanarArm, targets: TargetCheck) -> None:
        self.arm = arm
        self.targets = targets

    def query(self, target: StampedTarget) -> PlanarTarget:
        """The core's arguments for `target`: the plane check (OffPlane) and the heading
        (InvalidOrientation)."""
        return self.targets.planar(target)

    def solve(
        self, query: PlanarTarget, branch: Branch, current: tuple[float, ...] | None
    ) -> IkResult:
        return self.arm.solve(query.x, query.y, query.heading, branch=branch, current=current)

    def batch_query(self, request: SolveIKBatch.Request) -> PlanarPoints:
        """A batch's targets in the base frame (`TargetCheck.planar_points`; `roll` is not
        read: a planar arm has none)."""
        return self.targets.planar_points(
            request.header.frame_id,
            request.x,
            request.y,
            request.z,
            request.orientation_mode,
            request.tool_angle,
        )

    def solve_batch(
        self, points: PlanarPoints, branch: Branch, current: tuple[float, ...] | None
    ) -> IkArrays:
        """The batch as a chain on the core's array solve (`PlanarArm.solve_many`)."""
        columns = [points.x, points.y] + ([] if points.headings is None else [points.headings])
        rows = np.column_stack([np.asarray(c, dtype=float) for c in columns])
        return self.arm.solve_many(rows.reshape(-1, len(columns)), branch, current, chain=True)

    def fill_tool(self, msg, joints: Sequence[float], frame_id: str, stamp) -> None:
        """Set the PoseStamped `msg` to the tool pose (FK) at `joints` (rad), in `frame_id`
        (the base frame), on the arm's plane."""
        x, y, heading = self.arm.forward(joints)
        fill_pose_stamped(
            msg, x, y, heading, frame_id=frame_id, z=self.targets.plane_z, stamp=stamp
        )

    def link_points(self, joints: Sequence[float]) -> list[tuple[float, float, float]]:
        """(x, y, z) of the base, every joint after the first and the tip at `joints` (rad), in
        the base frame (m): what the markers draw the arm through."""
        z = self.targets.plane_z
        return [(x, y, z) for x, y, _ in self.arm.frames(joints)]

    def fill_frames(self, joints: Sequence[float], frame_id: str, stamp) -> list[PoseStamped]:
        """Every URDF frame's pose at `joints` (rad), base first, in `frame_id`: as TF has
        them, the base frame at z = 0, the links and the tip on the plane."""
        frames = self.arm.link_frames(joints)
        poses = frames_to_poses(frames[:1], frame_id=frame_id, stamp=stamp)
        return poses + frames_to_poses(
            frames[1:], frame_id=frame_id, z=self.targets.plane_z, stamp=stamp
        )

    def tool_words(self, joints: Sequence[float]) -> str:
        """Where the tool is at `joints` (rad), in words (m, deg)."""
        x, y, heading = self.arm.forward(joints)
        return f"({x:.4f}, {y:.4f}) m, heading {math.degrees(heading):.2f} deg"

    def reach_words(self) -> str:
        inner, outer = self.arm.ring
        return f"ring {inner:.3f}..{outer:.3f} m (joint limits aside)"

    def region_job(self) -> tuple[Callable[[PlanarArm], ReachableRegion], PlanarArm]:
        """The function that finds the cells the tip reaches within the joint limits, and its
        argument."""
        return reachable_region, self.arm

    def workspace(self, frame_id: str, stamp, region: ReachableRegion | None = None) -> MarkerArray:
        """ik_markers' latched part: the ring and its clickable disc on the plane, and the
        `region` once it is computed."""
        inner, outer = self.arm.ring
        z = self.targets.plane_z
        markers = workspace_markers(inner, outer, frame_id=frame_id, z=z, stamp=stamp)
        markers.markers += the_envelope(self.arm, outer, frame_id, stamp)
        if region is not None:
            markers.markers += region_markers(region, frame_id=frame_id, z=z, stamp=stamp)
        return markers


class SpatialLayout:
    """A spatial arm's requests as calls of its core: targets anywhere in the base frame, with
    a tool pitch (rad, outward), a whole rotation, or neither."""

    def __init__(self, arm: SpatialArm, targets: TargetCheck) -> None:
        self.arm = arm
        self.targets = targets

    def query(self, target: StampedTarget) -> SpatialTarget:
        """The core's arguments for `target` (InvalidOrientation for a bad quaternion)."""
        return self.targets.spatial(target)

    def solve(
        self, query: SpatialTarget, branch: Branch, current: tuple[float, ...] | None
    ) -> IkResult:
        if query.rotation is not None:
            return self.arm.solve_rotation(
                query.x, query.y, query.z, query.rotation, branch=branch, current=current
            )
        return self.arm.solve(
            query.x, query.y, query.z, query.pitch, branch=branch, current=current
        )

    def batch_query(self, request: SolveIKBatch.Request) -> SpatialPoints:
        """A batch's targets in the base frame (`TargetCheck.spatial_points`)."""
        return self.targets.spatial_points(
            request.header.frame_id,
            request.x,
            request.y,
            request.z,
            request.orientation_mode,
            request.tool_angle,
            request.roll,
        )

    def solve_batch(
        self, points: SpatialPoints, branch: Branch, current: tuple[float, ...] | None
    ) -> IkArrays:
        """The batch as a chain on the core's array solve (`SpatialArm.solve_many`)."""
        width = len(points.rows[0]) if points.rows else 3
        rows = np.asarray(points.rows, dtype=float).reshape(-1, width)
        return self.arm.solve_many(rows, branch, current, chain=True)

    def fill_tool(self, msg, joints: Sequence[float], frame_id: str, stamp) -> None:
        """Set the PoseStamped `msg` to the tool pose (FK) at `joints` (rad), in `frame_id`."""
        fill_transform_pose(msg, self.arm.link_frames(joints)[-1], frame_id=frame_id, stamp=stamp)

    def link_points(self, joints: Sequence[float]) -> list[tuple[float, float, float]]:
        """(x, y, z) of the base, the shoulder, every joint after it and the tool point at
        `joints` (rad), in the base frame (m): what the markers draw the arm through (the yaw
        link and the roll link sit where the frame before them does)."""
        frames = self.arm.link_frames(joints)
        roles = self.arm.frame_roles()
        return [
            tuple(frame[:3, 3].tolist())
            for frame, role in zip(frames, roles, strict=True)
            if role not in ("yaw", "roll")
        ]

    def fill_frames(self, joints: Sequence[float], frame_id: str, stamp) -> list[PoseStamped]:
        """Every URDF frame's pose at `joints` (rad), base first, in `frame_id`."""
        return [
            fill_transform_pose(PoseStamped(), frame, frame_id=frame_id, stamp=stamp)
            for frame in self.arm.link_frames(joints)
        ]

    def tool_words(self, joints: Sequence[float]) -> str:
        """Where the tool is at `joints` (rad), in words (m, deg)."""
        tool = self.arm.forward(joints)
        return (
            f"({tool.x:.4f}, {tool.y:.4f}, {tool.z:.4f}) m, pitch "
            f"{math.degrees(tool.pitch):.2f} deg, roll {math.degrees(tool.roll):.2f} deg"
        )

    def reach_words(self) -> str:
        lo, hi = self.arm.yaw_limits
        yaw = (
            "continuous"
            if (lo, hi) == (-math.inf, math.inf)
            else (f"{math.degrees(lo):.1f}..{math.degrees(hi):.1f} deg")
        )
        return (
            f"reach {self.arm.reach:.3f} m from the shoulder ({self.arm.shoulder_height:.3f} m "
            f"up, {self.arm.shoulder_forward:.3f} m forward), yaw {yaw}"
        )

    def region_job(self) -> tuple[Callable[[SpatialArm], ReachableRegion], SpatialArm]:
        """The function that finds the cells of the vertical plane the tool point reaches
        within the joint limits, and its argument."""
        return vertical_region, self.arm

    def workspace(self, frame_id: str, stamp, region: ReachableRegion | None = None) -> MarkerArray:
        """ik_markers' latched part: the horizontal reach as a circle and a clickable disc on
        the base frame's x-y plane, the directions the yaw can face, and the `region` of the
        vertical plane (drawn in the x-z plane) once it is computed."""
        radius = abs(self.arm.shoulder_forward) + self.arm.reach
        markers = workspace_markers(0.0, radius, frame_id=frame_id, z=0.0, stamp=stamp)
        markers.markers += yaw_range_markers(
            self.arm.yaw_limits, radius, frame_id=frame_id, stamp=stamp
        )
        markers.markers += the_envelope(self.arm, radius, frame_id, stamp)
        if region is not None:
            markers.markers += region_markers(
                region, frame_id=frame_id, z=0.0, stamp=stamp, vertical=True
            )
        return markers


Layout = PlanarLayout | SpatialLayout


def the_envelope(arm: PlanarArm | SpatialArm, reach: float, frame_id: str, stamp) -> list:
    """The markers of the envelope `arm` keeps to (its table as a square as wide as the
    `reach`, m, and its boxes); none without an envelope."""
    envelope = arm.envelope
    if envelope is None:
        return []
    return envelope_markers(
        envelope.table_z, envelope.keep_out_boxes, reach, frame_id=frame_id, stamp=stamp
    )


def layout_for(arm: PlanarArm | SpatialArm, targets: TargetCheck) -> Layout:
    """The layout of `arm`: the one place where the arm's kind picks how requests are solved."""
    if isinstance(arm, SpatialArm):
        return SpatialLayout(arm, targets)
    return PlanarLayout(arm, targets)


@dataclass(frozen=True)
class IkSetup:
    """What every request of one arm is answered with: its core model and layout, its joint
    and frame names (with the frame prefix), the target check, the node's default branch and
    the batch limit (`ik.max_batch_targets`)."""

    config: ArmConfig
    arm: PlanarArm | SpatialArm
    layout: Layout
    targets: TargetCheck
    default_branch: Branch

    @classmethod
    def from_config(cls, config: ArmConfig) -> IkSetup:
        arm = config.make_arm()
        targets = TargetCheck.from_config(config)
        return cls(
            config=config,
            arm=arm,
            layout=layout_for(arm, targets),
            targets=targets,
            default_branch=Branch.from_name(config.default_branch),
        )

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(self.config.joint_names)

    @property
    def base_frame(self) -> str:
        return self.targets.base_frame

    @property
    def tip_frame(self) -> str:
        return self.config.frame(self.config.tip_frame)


def branch_of(value: int, default: Branch) -> Branch:
    """The Branch of a request's BRANCH_* value (a Refusal for an unknown one); 0 (CLOSEST)
    means the node's `default` (its default_branch parameter)."""
    if value not in BRANCH_NAMES:
        choices = ", ".join(f"{v} ({name})" for v, name in BRANCH_NAMES.items())
        raise Refusal(f"unknown branch value {value}; use one of {choices}")
    if value == SolveIK.Request.BRANCH_CLOSEST:
        return default
    return Branch(value)


def current_joints(
    seed: JointState, joint_names: Sequence[str], latest: tuple[float, ...] | None
) -> tuple[float, ...] | None:
    """Joints (rad) BRANCH_CLOSEST stays close to: the request's seed (a Refusal naming the
    joint when it cannot be read), else the `latest` joint_states.

    None before any joint_states arrived: the core then picks the branch farthest from the
    joint limits (MAX_LIMIT_MARGIN), the safest guess when the arm's pose is unknown.
    """
    if is_empty(seed):
        return latest
    try:
        return joint_positions(seed, joint_names)
    except JointStateError as error:
        raise Refusal(f"seed: {error}") from None
