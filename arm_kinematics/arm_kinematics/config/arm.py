"""`ArmConfig`: the whole validated configuration of one arm, and its kinematic model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arm_kinematics.kinematics import MotionLimits, PlanarArm, SpatialArm
from arm_kinematics.kinematics.envelope import Constraint, Envelope

from .files import load_parameters_file
from .model import (
    DEFAULT_MAX_BATCH_TARGETS,
    ConfigError,
    EnvelopeConfig,
    GripperConfig,
    HardwareConfig,
    JointConfig,
    MountConfig,
    SpatialConfig,
    TrajectoryConfig,
)
from .reader import Reader
from .schema import DEFAULT_ROBOT_NAME
from .unknown import unknown_parameters
from .workspace import BOXES, COLUMN, TABLE


@dataclass(frozen=True)
class ArmConfig:
    """The whole validated configuration of one arm (radians, metres, seconds).

    `joints` are the kinematic joints in `joint_names` order; `driven_joints` adds the
    gripper's: every servo the hardware node drives and `joint_states` names.
    """

    base_frame: str
    tip_frame: str
    plane_z: float
    plane_tolerance: float
    singularity_margin: float
    edge_tolerance: float
    default_branch: str
    link_lengths: tuple[float, ...]
    joints: tuple[JointConfig, ...]
    hardware: HardwareConfig
    trajectory: TrajectoryConfig
    mount: MountConfig | None = None
    frame_prefix: str = ""
    max_batch_targets: int = DEFAULT_MAX_BATCH_TARGETS  # most targets in one solve_ik_batch request
    layout: str = "planar"  # one of LAYOUTS
    spatial: SpatialConfig | None = None  # the spatial layout's geometry
    gripper: GripperConfig | None = None
    workspace: EnvelopeConfig = field(default_factory=EnvelopeConfig)  # `workspace.*`
    notes: tuple[str, ...] = ()  # start-up notes for the log (parameters given but not used)
    robot_name: str = DEFAULT_ROBOT_NAME  # the URDF's <robot name=...>

    def frame(self, name: str) -> str:
        """The TF name of one of the arm's own frames (`frame_prefix` + name); e.g. with the
        prefix "left_arm/", frame("base_link") is "left_arm/base_link". The mount's parent frame
        is not the arm's own and is never prefixed."""
        return self.frame_prefix + name

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(j.name for j in self.joints)

    @property
    def joint_limits(self) -> tuple[tuple[float, float], ...]:
        """(min, max) per joint, radians."""
        return tuple((j.min_position, j.max_position) for j in self.joints)

    @property
    def max_velocities(self) -> tuple[float, ...]:
        """Joint velocity limits, rad/s."""
        return tuple(j.max_velocity for j in self.joints)

    @property
    def max_accelerations(self) -> tuple[float, ...]:
        """Joint acceleration limits, rad/s^2."""
        return tuple(j.max_acceleration for j in self.joints)

    def motion_limits(self, tool_speed: float | None = None) -> MotionLimits:
        """The limits every motion of this arm keeps: the command period, the joints' velocity
        and acceleration limits and, for a Cartesian path at `tool_speed` (m/s), the tool's
        acceleration limit (`trajectory.max_acceleration_m_s2`)."""
        return MotionLimits(
            period=1.0 / self.trajectory.command_rate_hz,
            joint_velocities=self.max_velocities,
            joint_accelerations=self.max_accelerations,
            tool_speed=tool_speed,
            tool_acceleration=None if tool_speed is None else self.trajectory.max_tool_acceleration,
        )

    @property
    def home(self) -> tuple[float, ...]:
        return tuple(j.home for j in self.joints)

    @property
    def driven_joints(self) -> tuple[JointConfig, ...]:
        """Every joint with a servo: the kinematic joints, then the gripper's (if any)."""
        return self.joints + (() if self.gripper is None else (self.gripper.joint,))

    @property
    def plane_joints(self) -> tuple[int, ...]:
        """Indices (in `joints`) of the joints that turn in the arm's plane: every joint of a
        planar arm, the pitch joints of a spatial one. A parallelogram servo sets the sum of
        these up to its own joint."""
        if self.spatial is None:
            return tuple(range(len(self.joints)))
        return tuple(range(1, 1 + len(self.link_lengths)))

    @property
    def link_angle_limits(self) -> tuple[tuple[float, float] | None, ...]:
        """Per plane joint: None, or (min, max) of its link's angle in the arm's plane (rad;
        above the horizontal for a spatial arm) that its parallelogram servo's travel allows."""
        return tuple(
            self.joints[i].servo.set_angle_range
            if self.joints[i].servo.linkage == "parallelogram"
            else None
            for i in self.plane_joints
        )

    def make_arm(self) -> PlanarArm | SpatialArm:
        """The kinematic model of this arm, a `PlanarArm` or a `SpatialArm` (layout spatial),
        carrying its workspace envelope (`workspace.*`): its solves keep every part inside it
        (docs/workspace.md). Without the section, the bare model."""
        arm = self.make_model()
        if self.workspace.is_empty:
            return arm
        return arm.with_envelope(self.make_envelope(arm))

    def make_model(self) -> PlanarArm | SpatialArm:
        """The bare kinematic model of this arm (no envelope): `make_arm` without it."""
        link_limits = self.link_angle_limits
        if all(limits is None for limits in link_limits):
            link_limits = None
        if self.spatial is None:
            return PlanarArm(
                self.link_lengths,
                joint_limits=self.joint_limits,
                link_angle_limits=link_limits,
                singularity_margin=self.singularity_margin,
                edge_tolerance=self.edge_tolerance,
                joint_names=self.joint_names,
            )
        return SpatialArm(
            self.link_lengths,
            self.joint_limits,
            shoulder_height=self.spatial.shoulder_height,
            shoulder_forward=self.spatial.shoulder_forward,
            link_angle_offsets=self.spatial.link_angle_offsets,
            has_roll=self.spatial.wrist_roll,
            link_angle_limits=link_limits,
            singularity_margin=self.singularity_margin,
            edge_tolerance=self.edge_tolerance,
            joint_names=self.joint_names,
        )

    def make_envelope(self, arm: PlanarArm | SpatialArm | None = None) -> Envelope:
        """The workspace envelope of this arm (`workspace.*`) on `arm` (by default a new
        `make_arm()`): the fingertips at their widest are the gripper's `open_m` apart."""
        gripper = self.gripper
        width = gripper.open_m if gripper is not None and gripper.open_m is not None else 0.0
        workspace = self.workspace
        return Envelope(
            self.make_model() if arm is None else arm.bare,
            link_radius=workspace.link_radius,
            table_z=workspace.table_z,
            keep_out_boxes=workspace.keep_out_boxes,
            column_radius=workspace.base_column_radius,
            plane_z=self.plane_z,
            tool_length=workspace.tool_length,
            fingertip_half_width=width / 2,
        )

    def check_home_in_workspace(self) -> None:
        """ConfigError when the home pose (`joints.*.home_deg`) is outside the envelope: the
        arm would start where no motion may go."""
        if self.workspace.is_empty:
            return
        violation = self.make_envelope().check(self.home)
        if violation is None:
            return
        name = {Constraint.TABLE: TABLE, Constraint.KEEP_OUT_BOX: BOXES}.get(
            violation.constraint, COLUMN
        )
        flat_boxes = [v for box in self.workspace.keep_out_boxes for v in box]  # as in the file
        value = {TABLE: self.workspace.table_z, BOXES: flat_boxes}.get(
            name, self.workspace.base_column_radius
        )
        reason = violation.message.removeprefix("OUTSIDE_WORKSPACE: ")
        raise ConfigError(name, value, f"at the home pose (joints.*.home_deg) {reason}")

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any]) -> ArmConfig:
        """Validate a flat mapping of ROS parameter names to values (see `parameter_spec`)."""
        config = cls(**Reader(params).arm_fields())
        config.check_home_in_workspace()
        return config

    @classmethod
    def from_file(cls, path: str | Path | None = None) -> ArmConfig:
        """Load and validate a parameters file (the package's config/arm.yaml by default).

        A key no node of the stack knows is named as the nodes name it (config/unknown.py): a
        refused one raises ConfigError, any other is a note.
        """
        params = load_parameters_file(path)
        names = params.get("joint_names")
        names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
        gripper = params.get("gripper.joint")
        gripper = gripper if isinstance(gripper, str) else ""
        notes = []
        for unknown in unknown_parameters(params, names, gripper):
            words = unknown.words(names, gripper)
            if unknown.refused:
                reason = unknown.reason(names, gripper)
                raise ConfigError(unknown.name, params[unknown.name], "unknown" + reason)
            notes.append(words)
        config = cls.from_parameters(params)
        return replace(config, notes=(*config.notes, *notes)) if notes else config
