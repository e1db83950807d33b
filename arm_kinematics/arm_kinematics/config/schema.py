"""The parameters by ROS name: one `ParameterSpec` per parameter (type, description with
units), the tables of each section, and `parameter_spec`, the list a node declares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from arm_kinematics.kinematics import BRANCH_NAMES

from .model import BACKENDS, GRIPPER_UNITS, LAYOUTS


@dataclass(frozen=True)
class ParameterSpec:
    """One ROS parameter: its name, Python type and a description with units.

    The nodes declare it with the package's config/arm.yaml value as default; where that file
    has none (or `packaged_default` is False), with `default`, or else by type only (a params
    file must then give it, or ArmConfig says it is missing or takes its own default).
    """

    name: str
    type: type
    description: str
    is_array: bool = False
    default: Any = None
    packaged_default: bool = True
    # Whether a misspelt key near this one is refused (config/unknown.py): true for whatever
    # shapes or bounds the arm's motion, false for a name or a bound on work.
    safety: bool = True


_LAYOUT_SPEC = ParameterSpec(
    "layout", str, "joint layout: planar (about z) | spatial (yaw + pitch chain)", default="planar"
)
_GRIPPER_JOINT_SPEC = ParameterSpec(
    "gripper.joint", str, "the gripper's joint (joints.<name> section), empty: none", default=""
)
DEFAULT_ROBOT_NAME = "arm"

_GLOBAL_SPECS = (
    # Not the packaged file's name: a file without one is some other arm.
    ParameterSpec(
        "robot_name",
        str,
        "the robot's name in its URDF (<robot name=...>): what RViz, robot_state_publisher and "
        "MoveIt's setup assistant show",
        default=DEFAULT_ROBOT_NAME,
        packaged_default=False,
        safety=False,
    ),
    ParameterSpec("base_frame", str, "frame of the targets and of joint 1's axis"),
    ParameterSpec("tip_frame", str, "frame at the tip of the last link"),
    ParameterSpec("plane_z_m", float, "height of the arm's plane in base_frame, m"),
    ParameterSpec("plane_tolerance_m", float, "largest |z - plane_z_m| of a target, m"),
    ParameterSpec("singularity_margin", float, "SINGULAR when sin(elbow angle) < this"),
    ParameterSpec("edge_tolerance_m", float, "targets this close outside the ring solve on it, m"),
    ParameterSpec("default_branch", str, "IK branch rule: " + " | ".join(BRANCH_NAMES)),
    ParameterSpec("joint_names", str, "joint names, base to tip", is_array=True),
    ParameterSpec("link_lengths_m", float, "link lengths, base to tip, m", is_array=True),
    ParameterSpec("hardware.backend", str, "servo backend: " + " | ".join(BACKENDS)),
    ParameterSpec("hardware.publish_rate_hz", float, "joint_states rate, Hz"),
    ParameterSpec("hardware.i2c_bus", int, "I2C bus number of the PCA9685"),
    ParameterSpec("hardware.i2c_address", int, "I2C address of the PCA9685 (64 = 0x40)"),
    ParameterSpec("hardware.channels", int, "PCA9685 channels: 8 or 16"),
    ParameterSpec("hardware.pwm_frequency_hz", float, "servo PWM frequency, Hz"),
    ParameterSpec("hardware.on_shutdown", str, "release (PWM off) | hold (keep last pulse)"),
    ParameterSpec("frame_prefix", str, "prefix of the arm's own TF frames, e.g. left_arm/"),
    ParameterSpec("mount.parent_frame", str, "frame the arm is mounted in (empty: no mount)"),
    ParameterSpec("mount.xyz_m", float, "base_frame origin in mount.parent_frame, m", True),
    ParameterSpec("mount.rpy_deg", float, "base_frame roll, pitch, yaw in the parent, deg", True),
    ParameterSpec(
        "ik.max_batch_targets",
        int,
        "most targets in one solve_ik_batch request (larger: refused)",
        safety=False,
    ),
    ParameterSpec("trajectory.command_rate_hz", float, "joint_commands setpoint rate, Hz"),
    ParameterSpec(
        "trajectory.max_acceleration_m_s2", float, "tool acceleration limit on a Cartesian path"
    ),
    ParameterSpec("trajectory.default_speed_m_s", float, "LINEAR tool speed when a goal says 0"),
    ParameterSpec(
        "trajectory.default_joint_speed_fraction", float, "JOINT speed fraction when a goal says 0"
    ),
    ParameterSpec("trajectory.default_max_step_m", float, "Cartesian step when a goal says 0, m"),
    ParameterSpec("trajectory.max_joint_step_deg", float, "larger step = branch flip, degrees"),
    ParameterSpec("trajectory.joint_state_timeout_s", float, "joint_states silence limit, s"),
    ParameterSpec("trajectory.ik_timeout_s", float, "IK service answer limit, s"),
    ParameterSpec(
        "trajectory.goal_tolerance_deg", float, "joint_states this close to the goal = reached"
    ),
)

_JOINT_SPECS = (
    ("min_deg", float, "lower joint limit, degrees"),
    ("max_deg", float, "upper joint limit, degrees"),
    ("max_velocity_deg_s", float, "joint speed limit (planner and servo slew), degrees/s"),
    ("max_acceleration_deg_s2", float, "joint acceleration limit (every motion), degrees/s^2"),
    ("home_deg", float, "start-up pose, degrees"),
    ("servo.channel", int, "PCA9685 channel"),
    ("servo.offset_deg", float, "servo angle at joint 0, servo degrees"),
    ("servo.sign", int, "+1, or -1 for a mirrored servo"),
    ("servo.min_deg", float, "servo travel lower end, servo degrees"),
    ("servo.max_deg", float, "servo travel upper end, servo degrees"),
    ("servo.actuation_range_deg", float, "servo's full actuation range, servo degrees"),
    ("servo.min_pulse_us", int, "pulse width at servo 0 degrees, microseconds"),
    ("servo.max_pulse_us", int, "pulse width at the actuation range, microseconds"),
)


_LINKAGE_SPEC = (
    "servo.linkage",
    str,
    "direct (sets the joint angle) | parallelogram (sets the link's angle in the arm's plane)",
)

_SPATIAL_SPECS = (
    ParameterSpec("spatial.shoulder_height_m", float, "pitch joint 1's axis above base_frame, m"),
    ParameterSpec(
        "spatial.shoulder_forward_m", float, "... and ahead of the yaw axis, m", default=0.0
    ),
    ParameterSpec(
        "spatial.link_angle_offsets_deg", float, "bend of each pitch link, degrees", True
    ),
    ParameterSpec(
        "spatial.wrist_roll", bool, "the last joint rolls about the tool's own axis", default=False
    ),
)
_WORKSPACE_SPECS = tuple(
    # Each arm's own: never the package's arm.yaml value (a box there is not another arm's).
    ParameterSpec(name, typ, text, is_array=is_array, packaged_default=False)
    for name, typ, text, is_array in (
        (
            "workspace.table_z_m",
            float,
            "the table's height in base_frame, m: no part of the arm below it (left out: none)",
            False,
        ),
        (
            "workspace.keep_out_boxes_m",
            float,
            "boxes no part of the arm enters, 6 numbers each: min x, y, z, max x, y, z, m",
            True,
        ),
        (
            "workspace.link_radius_m",
            float,
            "the arm's parts: capsules of this radius about their centre lines, m",
            False,
        ),
        (
            "workspace.base_column_radius_m",
            float,
            "base column radius about base_frame's z, m: the forearm and tool keep out (0: none)",
            False,
        ),
        (
            "workspace.tool_length_m",
            float,
            "the fingers' reach beyond the tool point along the tool's x axis, m",
            False,
        ),
    )
)

# A spatial arm has no plane: these are read only to say that they are not used.
UNUSED_BY_SPATIAL = ("plane_z_m", "plane_tolerance_m")

_GRIPPER_SPECS = (
    ParameterSpec("gripper.position_unit", str, "goal position: " + " | ".join(GRIPPER_UNITS)),
    ParameterSpec("gripper.open_deg", float, "gripper joint angle fully open, degrees"),
    ParameterSpec("gripper.closed_deg", float, "gripper joint angle closed, degrees"),
    ParameterSpec("gripper.open_m", float, "opening between the fingers at open_deg, m"),
    ParameterSpec("gripper.closed_m", float, "opening between the fingers at closed_deg, m"),
    ParameterSpec(
        "gripper.reach_timeout_s", float, "not at the goal this long after the ramp: stalled, s"
    ),
)
GRIPPER_UNIT_PARAMETERS = (
    "gripper.joint",
    "gripper.position_unit",
    "gripper.open_deg",
    "gripper.closed_deg",
    "gripper.open_m",
    "gripper.closed_m",
)
"""The hardware node's parameters that say which joint the gripper is, its goals' unit and its
ends: what a gripper client (the `gripper` command, the page through the bridge) reads."""
GRIPPER_KIND_PARAMETERS = ("gripper.joint", "gripper.position_unit")
GRIPPER_END_PARAMETERS = {
    "opening_m": ("gripper.open_m", "gripper.closed_m"),
    "angle_rad": ("gripper.open_deg", "gripper.closed_deg"),
}
"""A gripper client asks in two requests: `GRIPPER_KIND_PARAMETERS`, then the ends of that
unit. A `get_parameters` request that names a parameter the node has not declared gets no
value at all (rclpy), and neither has an arm without a gripper `gripper.position_unit`, nor a
gripper in `angle_rad` `gripper.open_m`: no answer to the first means no gripper."""


def _joint_specs(joint: str) -> list[ParameterSpec]:
    specs = [
        ParameterSpec(f"joints.{joint}.{key}", typ, f"{joint}: {text}")
        for key, typ, text in _JOINT_SPECS
    ]
    key, typ, text = _LINKAGE_SPEC
    # Not in the packaged file (its servos are direct): every joint gets the value it means.
    specs.append(ParameterSpec(f"joints.{joint}.{key}", typ, f"{joint}: {text}", default="direct"))
    return specs


def parameter_spec(
    joint_names: Sequence[str], layout: str = "planar", gripper_joint: str = ""
) -> list[ParameterSpec]:
    """Every parameter of the arm: the global ones, those of the layout (`spatial.*` for a
    spatial one), the workspace's, the gripper's (when `gripper_joint` is not empty) and the
    per-joint ones for the given joint names and the gripper's joint."""
    specs = [_LAYOUT_SPEC, _GRIPPER_JOINT_SPEC]
    for spec in _GLOBAL_SPECS:
        if layout == "spatial" and spec.name in UNUSED_BY_SPATIAL:
            spec = ParameterSpec(spec.name, spec.type, spec.description + " (planar only)")
            spec = replace(spec, packaged_default=False)
        specs.append(spec)
    if layout == "spatial":
        specs.extend(_SPATIAL_SPECS)
    specs.extend(_WORKSPACE_SPECS)
    if gripper_joint:
        specs.extend(_GRIPPER_SPECS)
    for joint in (*joint_names, *([gripper_joint] if gripper_joint else [])):
        specs.extend(_joint_specs(joint))
    return specs


#: The parameters each node of the stack declares besides the arm's (`parameter_spec`), by node
#: name; `{joint}` stands for each of the arm's joints. A params file given to every node (the
#: launch file's, bringup's) holds some of them: each node knows the others' names, so none of
#: them is called unknown (`config/unknown.py`). `test_unknown_parameters.py` checks this table
#: against what the running nodes declare.
NODE_PARAMETERS: dict[str, tuple[str, ...]] = {
    "hardware_node": (
        "config_file",
        "calibration.heartbeat_timeout_s",
        "calibration.jog_speed_deg_s",
        "hardware.remember_pose",
        "hardware.pose_file",
    ),
    "trajectory_node": (
        "max_waypoints",
        "controller_name",
        "allow_partial_joints_goal",
        "constraints.goal_time_s",
        "constraints.{joint}.trajectory_deg",
        "constraints.{joint}.goal_deg",
        "moveit_servo.incoming_command_timeout",
        "moveit_servo.command_in_type",
        "moveit_servo.scale.linear",
        "moveit_servo.scale.rotational",
        "moveit_servo.scale.joint",
        "config_file",
        "named_poses.file",
        "sequences.directory",
        "sequences.ease_in_speed_m_s",
        "sequences.ease_in_joint_fraction",
    ),
    "web_bridge": (
        "host",
        "port",
        "web_root",
        "allowed_hosts",
        "max_connections",
        "max_message_bytes",
        "rate_limit_per_s",
        "rate_limit_burst",
        "service_timeout_s",
        "require_token",
        "token_file",
    ),
    "robot_description_publisher": ("robot_description",),
}
#: rclpy's own parameters, on every node.
ROS_PARAMETERS = ("use_sim_time", "start_type_description_service")


def arm_parameters(joint_names: Sequence[str], gripper_joint: str = "") -> dict[str, ParameterSpec]:
    """Every arm parameter a params file may hold for these joints, by name, whatever its
    layout and whether it has a gripper: `parameter_spec` of both layouts, with the gripper's
    section.

    >>> names = arm_parameters(["shoulder", "elbow"])
    >>> "joints.elbow.max_velocity_deg_s" in names, "spatial.wrist_roll" in names
    (True, True)
    >>> "gripper.open_deg" in names, "joints.wrist.min_deg" in names
    (True, False)
    """
    specs = {spec.name: spec for spec in _GRIPPER_SPECS}
    for layout in LAYOUTS:
        specs.update((s.name, s) for s in parameter_spec(joint_names, layout, gripper_joint))
    return specs


def node_parameter_names(joint_names: Sequence[str]) -> frozenset[str]:
    """The nodes' own parameters (`NODE_PARAMETERS`, `ROS_PARAMETERS`) for these joints."""
    names = set(ROS_PARAMETERS)
    for templates in NODE_PARAMETERS.values():
        for template in templates:
            if "{joint}" in template:
                names.update(template.format(joint=joint) for joint in joint_names)
            else:
                names.add(template)
    return frozenset(names)
