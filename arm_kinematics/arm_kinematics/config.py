"""The arm's configuration: one YAML file (config/arm.yaml) for every node, the URDF and tools.

Pure Python (PyYAML, no ROS import). The file is a ROS 2 parameters file whose `/**` section
holds the parameters by their ROS names; `flatten_parameters` turns it into the flat
`{"joints.elbow.min_deg": -90.0, ...}` mapping that the nodes also build from their declared
parameters, and `ArmConfig.from_parameters` validates either into radians and SI units.

Degrees live only in the file (names ending in `_deg`); every attribute here is radians.

Two layouts (`layout`): `planar` (the default: every joint turns about the base z axis, in the
plane z = plane_z_m) and `spatial` (a yaw about the base z axis, 2 or 3 pitch joints in the
vertical plane it turns, an optional wrist roll; `spatial.*`). Either may carry a gripper
(`gripper.*`: a servo joint outside the kinematic chain) and servos that drive a link through a
parallelogram (`joints.<name>.servo.linkage`). docs/spatial_arms.md describes the keys.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from arm_kinematics.kinematics import BRANCH_NAMES, PlanarArm, SpatialArm

# The package folder of the source tree (config/, urdf/ ...), used when not installed.
_SOURCE_PACKAGE_DIR = Path(__file__).resolve().parent.parent

_FRAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/")
BACKENDS = ("sim", "servokit")
SHUTDOWN_MODES = ("release", "hold")
LAYOUTS = ("planar", "spatial")
LINKAGES = ("direct", "parallelogram")
"""How a servo drives its joint: `direct` (the servo turns the joint: it sets the joint angle,
relative to the link before) or `parallelogram` (a linkage from the base sets the link's angle
in the arm's plane, the sum of the in-plane joints up to this one: MeArm, EEZYbotArm, uArm)."""
GRIPPER_UNITS = ("opening_m", "angle_rad")
"""What a gripper goal's position is: the opening between the fingers (m), or the gripper
joint's angle (rad, as in joint_states)."""


class ConfigError(ValueError):
    """A parameter is missing or invalid; the message names the parameter and its value."""

    def __init__(self, name: str, value: Any, reason: str) -> None:
        super().__init__(f"parameter '{name}' = {value!r}: {reason}")
        self.name = name
        self.value = value
        self.reason = reason


@dataclass(frozen=True)
class ServoConfig:
    """Calibration of one hobby servo on the PCA9685 board (degrees are the servo's own)."""

    channel: int
    offset_deg: float
    sign: int
    min_deg: float
    max_deg: float
    actuation_range_deg: float
    min_pulse_us: int
    max_pulse_us: int
    linkage: str = "direct"  # one of LINKAGES

    def servo_deg(self, set_angle_rad: float) -> float:
        """Servo angle (degrees) for the angle the servo sets (radians): offset + sign *
        degrees(angle). That angle is the joint's (`direct`) or the link's angle in the arm's
        plane (`parallelogram`: the sum of the in-plane joints up to this one)."""
        return self.offset_deg + self.sign * math.degrees(set_angle_rad)

    def set_angle(self, servo_deg: float) -> float:
        """The inverse of `servo_deg`: the angle (radians) the servo sets at `servo_deg`."""
        return math.radians((servo_deg - self.offset_deg) * self.sign)

    @property
    def set_angle_range(self) -> tuple[float, float]:
        """(min, max) of the angle the servo sets within its travel, radians."""
        ends = sorted(self.set_angle(v) for v in (self.min_deg, self.max_deg))
        return (ends[0], ends[1])

    def pulse_us(self, servo_deg: float) -> float:
        """The pulse width (microseconds) of a servo angle (servo degrees): linear from
        `min_pulse_us` at 0 to `max_pulse_us` at `actuation_range_deg`, as ServoKit makes it.

        >>> ServoConfig(0, 90.0, 1, 0.0, 180.0, 180.0, 500, 2500).pulse_us(45.0)
        1000.0
        """
        span = self.max_pulse_us - self.min_pulse_us
        return self.min_pulse_us + servo_deg / self.actuation_range_deg * span

    def servo_deg_at(self, pulse_us: float) -> float:
        """The inverse of `pulse_us`: the servo angle (servo degrees) of a pulse width (us).

        >>> ServoConfig(0, 90.0, 1, 0.0, 180.0, 180.0, 500, 2500).servo_deg_at(1000.0)
        45.0
        """
        span = self.max_pulse_us - self.min_pulse_us
        return (pulse_us - self.min_pulse_us) / span * self.actuation_range_deg


@dataclass(frozen=True)
class JointConfig:
    """One revolute joint: limits and speeds in radians, its servo's calibration."""

    name: str
    min_position: float
    max_position: float
    max_velocity: float
    home: float
    servo: ServoConfig


@dataclass(frozen=True)
class HardwareConfig:
    backend: str
    publish_rate_hz: float
    i2c_bus: int
    i2c_address: int
    channels: int
    pwm_frequency_hz: float
    on_shutdown: str


@dataclass(frozen=True)
class TrajectoryConfig:
    command_rate_hz: float
    default_speed: float  # m/s
    default_joint_speed_fraction: float
    default_max_step: float  # m
    max_joint_step: float  # rad
    joint_state_timeout_s: float
    ik_timeout_s: float
    goal_tolerance: float  # rad: joint_states this close to the last setpoint = goal reached


@dataclass(frozen=True)
class MountConfig:
    """Where the arm stands in a bigger robot: the pose of `base_frame` in `parent_frame`.

    `xyz` in metres and `rpy` in radians (roll, pitch, yaw about the parent's fixed x, y, z
    axes, as URDF's origin rpy): a point p in the base frame is R(rpy) p + xyz in the parent.
    """

    parent_frame: str
    xyz: tuple[float, float, float]
    rpy: tuple[float, float, float]


@dataclass(frozen=True)
class SpatialConfig:
    """The spatial layout's geometry (`spatial.*`): metres and radians."""

    shoulder_height: float  # m: pitch joint 1's axis above the base frame's origin
    shoulder_forward: float  # m: ... and ahead of the yaw axis, along the arm's plane
    link_angle_offsets: tuple[float, ...]  # rad, per pitch link: its bend (0: straight)
    wrist_roll: bool  # the last joint is a roll about the tool's own x axis


@dataclass(frozen=True)
class GripperConfig:
    """The gripper (`gripper.*`): a servo joint outside the kinematic chain, and what a gripper
    goal's position means. Angles in radians; openings in metres.

    With `position_unit` "opening_m" the opening between the fingers is linear in the joint
    angle: `closed_m` at `closed_angle`, `open_m` at `open_angle`. A goal lies between closed
    and open (`position_limits`).

    >>> joint = JointConfig("gripper", 0.0, math.radians(60), 1.0, 0.0, None)
    >>> g = GripperConfig(joint, "opening_m", math.radians(60), 0.0, 0.06, 0.0, 2.0)
    >>> round(g.position(math.radians(30)), 9), round(math.degrees(g.joint_angle(0.015)), 9)
    (0.03, 15.0)
    """

    joint: JointConfig
    position_unit: str  # one of GRIPPER_UNITS
    open_angle: float  # rad: the gripper joint's angle fully open
    closed_angle: float  # rad: ... closed
    open_m: float | None  # m between the fingers at open_angle (opening_m only)
    closed_m: float | None  # m between the fingers at closed_angle (opening_m only)
    reach_timeout_s: float  # s past the ramp's duration: not there by then = stalled

    @property
    def name(self) -> str:
        return self.joint.name

    def position(self, joint_rad: float) -> float:
        """The goal position (the configured unit) of a gripper joint angle (rad)."""
        if self.position_unit == "angle_rad":
            return joint_rad
        assert self.open_m is not None
        assert self.closed_m is not None
        fraction = (joint_rad - self.closed_angle) / (self.open_angle - self.closed_angle)
        return self.closed_m + fraction * (self.open_m - self.closed_m)

    def joint_angle(self, position: float) -> float:
        """The gripper joint angle (rad) of a goal position (the configured unit)."""
        if self.position_unit == "angle_rad":
            return position
        assert self.open_m is not None
        assert self.closed_m is not None
        fraction = (position - self.closed_m) / (self.open_m - self.closed_m)
        return self.closed_angle + fraction * (self.open_angle - self.closed_angle)

    @property
    def open_position(self) -> float:
        """Fully open, in the configured unit."""
        return self.position(self.open_angle)

    @property
    def closed_position(self) -> float:
        """Closed, in the configured unit."""
        return self.position(self.closed_angle)

    @property
    def position_limits(self) -> tuple[float, float]:
        """(min, max) of a goal position, the configured unit: closed and open, sorted."""
        ends = sorted((self.open_position, self.closed_position))
        return (ends[0], ends[1])

    @property
    def unit_words(self) -> str:
        return "m between the fingers" if self.position_unit == "opening_m" else "rad"


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
    max_batch_targets: int = 100_000  # most targets in one solve_ik_batch request
    layout: str = "planar"  # one of LAYOUTS
    spatial: SpatialConfig | None = None  # the spatial layout's geometry
    gripper: GripperConfig | None = None
    notes: tuple[str, ...] = ()  # start-up notes for the log (parameters given but not used)

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
        """The kinematic model of this arm: a `PlanarArm`, or a `SpatialArm` (layout spatial)."""
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

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any]) -> ArmConfig:
        """Validate a flat mapping of ROS parameter names to values (see `parameter_spec`)."""
        return _Reader(params).arm()

    @classmethod
    def from_file(cls, path: str | Path | None = None) -> ArmConfig:
        """Load and validate a parameters file (the package's config/arm.yaml by default)."""
        return cls.from_parameters(load_parameters_file(path))


def package_file(folder: str, name: str) -> Path:
    """A data file shipped with the package (`folder/name`): the installed share/ copy, else
    the source tree's."""
    source = _SOURCE_PACKAGE_DIR / folder / name
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:  # no ROS environment (the core and its configs work without one)
        return source
    try:
        installed = Path(get_package_share_directory("arm_kinematics")) / folder / name
    except (PackageNotFoundError, ValueError):  # not installed, or no ament index set up
        return source
    return installed if installed.is_file() else source


def default_config_path(name: str = "arm.yaml") -> Path:
    """Path of a config file shipped with the package: the installed share/ copy, else source."""
    return package_file("config", name)


# --- the parameters, by ROS name --------------------------------------------------------------


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


_LAYOUT_SPEC = ParameterSpec(
    "layout", str, "joint layout: planar (about z) | spatial (yaw + pitch chain)", default="planar"
)
_GRIPPER_JOINT_SPEC = ParameterSpec(
    "gripper.joint", str, "the gripper's joint (joints.<name> section), empty: none", default=""
)

_GLOBAL_SPECS = (
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
        "ik.max_batch_targets", int, "most targets in one solve_ik_batch request (larger: refused)"
    ),
    ParameterSpec("trajectory.command_rate_hz", float, "joint_commands setpoint rate, Hz"),
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
    ParameterSpec("spatial.shoulder_forward_m", float, "... and ahead of the yaw axis, m"),
    ParameterSpec(
        "spatial.link_angle_offsets_deg", float, "bend of each pitch link, degrees", True
    ),
    ParameterSpec("spatial.wrist_roll", bool, "the last joint rolls about the tool's own axis"),
)
# A spatial arm has no plane: these are read only to say that they are not used.
_UNUSED_BY_SPATIAL = ("plane_z_m", "plane_tolerance_m")

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


def _joint_specs(joint: str) -> list[ParameterSpec]:
    return [
        ParameterSpec(f"joints.{joint}.{key}", typ, f"{joint}: {text}")
        for key, typ, text in (*_JOINT_SPECS, _LINKAGE_SPEC)
    ]


def parameter_spec(
    joint_names: list[str] | tuple[str, ...], layout: str = "planar", gripper_joint: str = ""
) -> list[ParameterSpec]:
    """Every parameter of the arm: the global ones, those of the layout (`spatial.*` for a
    spatial one), the gripper's (when `gripper_joint` is not empty) and the per-joint ones for
    the given joint names and the gripper's joint."""
    specs = [_LAYOUT_SPEC, _GRIPPER_JOINT_SPEC]
    for spec in _GLOBAL_SPECS:
        if layout == "spatial" and spec.name in _UNUSED_BY_SPATIAL:
            spec = ParameterSpec(spec.name, spec.type, spec.description + " (planar only)")
            spec = replace(spec, packaged_default=False)
        specs.append(spec)
    if layout == "spatial":
        specs.extend(_SPATIAL_SPECS)
    if gripper_joint:
        specs.extend(_GRIPPER_SPECS)
    for joint in (*joint_names, *([gripper_joint] if gripper_joint else [])):
        specs.extend(_joint_specs(joint))
    return specs


def flatten_parameters(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested YAML mapping -> {"dotted.name": value} as ROS names parameters."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten_parameters(value, name + "."))
        else:
            flat[name] = value
    return flat


def load_parameters_file(path: str | Path | None = None) -> dict[str, Any]:
    """Read a ROS 2 parameters file and return the flat parameters of its `/**` section."""
    path = Path(path) if path is not None else default_config_path()
    try:
        document = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError("params_file", str(path), f"cannot be read: {error}") from error
    try:
        tree = document["/**"]["ros__parameters"]
    except (TypeError, KeyError) as error:
        raise ConfigError(
            "params_file", str(path), "has no '/**: ros__parameters:' section"
        ) from error
    return flatten_parameters(tree)


# --- validation ---------------------------------------------------------------------------------


class _Reader:
    """Reads and checks parameters one by one, raising ConfigError for the first bad one."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = params

    def raw(self, name: str) -> Any:
        if name not in self.params:
            raise ConfigError(name, None, "is missing")
        return self.params[name]

    def number(
        self,
        name: str,
        *,
        positive: bool = False,
        non_negative: bool = False,
        integer: bool = False,
    ) -> float:
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(name, value, "must be a number")
        if integer and (not float(value).is_integer()):
            raise ConfigError(name, value, "must be a whole number")
        if not math.isfinite(value):
            raise ConfigError(name, value, "must be finite")
        if positive and value <= 0:
            raise ConfigError(name, value, "must be > 0")
        if non_negative and value < 0:
            raise ConfigError(name, value, "must be >= 0")
        return int(value) if integer else float(value)

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        value = self.raw(name)
        if not isinstance(value, str) or value.lower() not in choices:
            raise ConfigError(name, value, "must be one of " + ", ".join(choices))
        return value.lower()

    def text(self, name: str) -> str:
        value = self.raw(name)
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(name, value, "must be a non-empty string")
        return value

    def flag(self, name: str, default: bool) -> bool:
        value = self.optional(name, default)
        if not isinstance(value, bool):
            raise ConfigError(name, value, "must be true or false")
        return value

    def numbers(self, name: str, value: Any, count: int) -> tuple[float, ...]:
        if not isinstance(value, list | tuple) or len(value) != count:
            raise ConfigError(name, value, f"must give {count} numbers")
        for number in value:
            if isinstance(number, bool) or not isinstance(number, int | float):
                raise ConfigError(name, value, "must hold numbers")
            if not math.isfinite(number):
                raise ConfigError(name, value, f"{number} must be finite")
        return tuple(float(v) for v in value)

    def joint_names(self, layout: str) -> list[str]:
        names = self.raw("joint_names")
        fewest = 3 if layout == "spatial" else 2
        if (
            not isinstance(names, list | tuple)
            or len(names) < fewest
            or not all(isinstance(n, str) and n for n in names)
        ):
            raise ConfigError(
                "joint_names", names, f"must list at least {fewest} non-empty joint names"
            )
        if len(set(names)) != len(names):
            raise ConfigError("joint_names", names, "has a name twice")
        return list(names)

    def link_lengths(self, names: list[str], layout: str) -> tuple[float, ...]:
        lengths = self.raw("link_lengths_m")
        if layout == "spatial":
            if not isinstance(lengths, list | tuple) or not 2 <= len(lengths) <= 3:
                raise ConfigError(
                    "link_lengths_m",
                    lengths,
                    "a spatial arm has 2 or 3 pitch links: give 2 or 3 lengths, one per pitch "
                    "joint",
                )
        elif not isinstance(lengths, list | tuple) or len(lengths) != len(names):
            raise ConfigError(
                "link_lengths_m", lengths, f"must give {len(names)} lengths, one per joint"
            )
        for length in lengths:
            if isinstance(length, bool) or not isinstance(length, int | float):
                raise ConfigError("link_lengths_m", lengths, "must hold numbers")
            if not math.isfinite(length) or length <= 0:
                raise ConfigError(
                    "link_lengths_m", lengths, f"length {length} must be finite and > 0"
                )
        return tuple(float(v) for v in lengths)

    def spatial(self, names: list[str], pitch_links: int) -> SpatialConfig:
        """The `spatial.*` keys, and joint_names checked against them: a yaw, one pitch joint
        per link, and a roll when `spatial.wrist_roll` is true."""
        roll = self.flag("spatial.wrist_roll", False)
        expected = 1 + pitch_links + (1 if roll else 0)
        if len(names) != expected:
            if len(names) == 2 + pitch_links and not roll:
                raise ConfigError(
                    "spatial.wrist_roll",
                    roll,
                    f"joint_names lists {len(names)} joints for {pitch_links} pitch links "
                    "(link_lengths_m): a yaw, the pitch joints and a roll, so set "
                    "spatial.wrist_roll: true",
                )
            if len(names) == 1 + pitch_links and roll:
                raise ConfigError(
                    "spatial.wrist_roll",
                    roll,
                    f"joint_names lists {len(names)} joints for {pitch_links} pitch links "
                    "(link_lengths_m): a yaw and the pitch joints, none left for the roll",
                )
            raise ConfigError(
                "joint_names",
                names,
                f"a spatial arm lists its yaw, {pitch_links} pitch joints (one per "
                f"link_lengths_m){' and its roll' if roll else ''}: {expected} names",
            )
        offsets = self.optional("spatial.link_angle_offsets_deg", [0.0] * pitch_links)
        offsets = self.numbers("spatial.link_angle_offsets_deg", offsets, pitch_links)
        forward = self.optional("spatial.shoulder_forward_m", 0.0)
        if isinstance(forward, bool) or not isinstance(forward, int | float):
            raise ConfigError("spatial.shoulder_forward_m", forward, "must be a number")
        if not math.isfinite(forward):
            raise ConfigError("spatial.shoulder_forward_m", forward, "must be finite")
        return SpatialConfig(
            shoulder_height=self.number("spatial.shoulder_height_m"),
            shoulder_forward=float(forward),
            link_angle_offsets=tuple(math.radians(v) for v in offsets),
            wrist_roll=roll,
        )

    def arm(self) -> ArmConfig:
        layout = self.choice("layout", LAYOUTS) if "layout" in self.params else "planar"
        names = self.joint_names(layout)
        lengths = self.link_lengths(names, layout)
        spatial = self.spatial(names, len(lengths)) if layout == "spatial" else None
        notes = []
        if spatial is None:
            plane_z = self.number("plane_z_m")
            plane_tolerance = self.number("plane_tolerance_m", non_negative=True)
            unused = sorted(n for n in self.params if n.startswith("spatial."))
            if unused:
                notes.append(f"layout planar: {', '.join(unused)} not used")
        else:
            given = [n for n in _UNUSED_BY_SPATIAL if self.params.get(n) is not None]
            plane_z = self.number("plane_z_m") if "plane_z_m" in given else 0.0
            plane_tolerance = (
                self.number("plane_tolerance_m", non_negative=True)
                if "plane_tolerance_m" in given
                else 0.001
            )
            if given:
                notes.append(
                    f"layout spatial: {' and '.join(given)} not used (a spatial arm has no plane)"
                )
        hardware = self.hardware()
        joints = tuple(self.joint(name, hardware.channels) for name in names)
        gripper = self.gripper(names, hardware.channels)
        driven = joints + (() if gripper is None else (gripper.joint,))
        owners: dict[int, str] = {}
        for joint in driven:
            owner = owners.setdefault(joint.servo.channel, joint.name)
            if owner != joint.name:
                raise ConfigError(
                    f"joints.{joint.name}.servo.channel",
                    joint.servo.channel,
                    f"is used by another joint too ({owner})",
                )
        plane = range(len(joints)) if spatial is None else range(1, 1 + len(lengths))
        self.linkages(joints, plane, spatial is not None)
        margin = self.number("singularity_margin", non_negative=True)
        if margin >= 1:
            raise ConfigError("singularity_margin", margin, "must be < 1 (it bounds a sine)")
        return ArmConfig(
            base_frame=self.text("base_frame"),
            tip_frame=self.text("tip_frame"),
            plane_z=plane_z,
            plane_tolerance=plane_tolerance,
            singularity_margin=margin,
            edge_tolerance=self.number("edge_tolerance_m", non_negative=True),
            default_branch=self.choice("default_branch", BRANCH_NAMES),
            link_lengths=lengths,
            joints=joints,
            hardware=hardware,
            trajectory=self.trajectory(),
            mount=self.mount(),
            frame_prefix=self.frame_prefix(),
            max_batch_targets=self.max_batch_targets(),
            layout=layout,
            spatial=spatial,
            gripper=gripper,
            notes=tuple(notes),
        )

    def linkages(self, joints: tuple[JointConfig, ...], plane: range, spatial: bool) -> None:
        """Check every parallelogram servo: on a plane joint after the first, its travel
        overlapping what the joint limits allow the link, and home inside its travel."""
        for index, joint in enumerate(joints):
            if joint.servo.linkage != "parallelogram":
                continue
            p = f"joints.{joint.name}."
            if index not in plane or index == plane[0]:
                if spatial and index == 0:
                    what = "the yaw"
                elif index not in plane:
                    what = "the roll"
                else:
                    what = "the first pitch joint" if spatial else "the first joint"
                raise ConfigError(
                    p + "servo.linkage",
                    "parallelogram",
                    f"{joint.name} is {what}: only a {'pitch ' if spatial else ''}joint after "
                    "the first can be driven through a parallelogram (its servo sets the link's "
                    "angle, the sum of the joints before it and its own)",
                )
            chain = [joints[i] for i in plane if i <= index]
            words = " + ".join(j.name for j in chain)
            servo = joint.servo
            low = math.fsum(j.min_position for j in chain)
            high = math.fsum(j.max_position for j in chain)
            servo_low, servo_high = servo.set_angle_range
            if min(high, servo_high) - max(low, servo_low) <= 1e-9:
                raise ConfigError(
                    p + "servo.offset_deg",
                    servo.offset_deg,
                    f"the servo's travel [{servo.min_deg:g}, {servo.max_deg:g}] lets the link "
                    f"({words}) reach [{math.degrees(servo_low):g}, {math.degrees(servo_high):g}]"
                    f" deg, the joint limits [{math.degrees(low):g}, {math.degrees(high):g}] "
                    "deg: they do not overlap",
                )
            home = math.fsum(j.home for j in chain)
            home_servo = servo.servo_deg(home)
            if not servo.min_deg - 1e-9 <= home_servo <= servo.max_deg + 1e-9:
                raise ConfigError(
                    p + "home_deg",
                    math.degrees(joint.home),
                    f"puts the link at {math.degrees(home):g} deg ({words}, every joint at "
                    f"home), which maps to servo angle {home_servo:g} deg, outside the servo's "
                    f"travel [{servo.min_deg:g}, {servo.max_deg:g}]",
                )

    def gripper(self, names: list[str], board_channels: int) -> GripperConfig | None:
        name = self.optional("gripper.joint", "")
        if not isinstance(name, str):
            raise ConfigError("gripper.joint", name, "must be a joint name (or empty: none)")
        if not name:
            return None
        if name in names:
            raise ConfigError(
                "gripper.joint",
                name,
                "is in joint_names too: the gripper is not a kinematic joint, list it only "
                "under gripper.joint (with its joints.<name> section)",
            )
        joint = self.joint(name, board_channels)
        if joint.servo.linkage != "direct":
            raise ConfigError(
                f"joints.{name}.servo.linkage", joint.servo.linkage, "the gripper's must be direct"
            )
        unit = self.choice("gripper.position_unit", GRIPPER_UNITS)
        low, high = math.degrees(joint.min_position), math.degrees(joint.max_position)
        angles = {}
        for key in ("open_deg", "closed_deg"):
            angle = self.number("gripper." + key)
            if not low - 1e-9 <= angle <= high + 1e-9:
                raise ConfigError(
                    "gripper." + key, angle, f"must lie within joints.{name} [{low:g}, {high:g}]"
                )
            angles[key] = angle
        if angles["open_deg"] == angles["closed_deg"]:
            raise ConfigError(
                "gripper.open_deg", angles["open_deg"], "must differ from gripper.closed_deg"
            )
        open_m = closed_m = None
        if unit == "opening_m":
            closed_m = self.number("gripper.closed_m", non_negative=True)
            open_m = self.number("gripper.open_m", non_negative=True)
            if open_m <= closed_m:
                raise ConfigError(
                    "gripper.open_m", open_m, f"must be > gripper.closed_m ({closed_m:g})"
                )
        return GripperConfig(
            joint=joint,
            position_unit=unit,
            open_angle=math.radians(angles["open_deg"]),
            closed_angle=math.radians(angles["closed_deg"]),
            open_m=open_m,
            closed_m=closed_m,
            reach_timeout_s=self.number("gripper.reach_timeout_s", positive=True),
        )

    def max_batch_targets(self) -> int:
        name = "ik.max_batch_targets"
        if name not in self.params:
            return ArmConfig.max_batch_targets
        return int(self.number(name, positive=True, integer=True))

    def optional(self, name: str, default: Any) -> Any:
        """A parameter that files written before it existed may leave out."""
        return self.params.get(name, default)

    def frame_name(self, name: str, value: Any, *, empty_ok: bool) -> str:
        if not isinstance(value, str) or (not value and not empty_ok):
            raise ConfigError(name, value, "must be a frame name")
        if value and not _FRAME_CHARACTERS.issuperset(value):
            raise ConfigError(name, value, "may hold only letters, digits, '_' and '/'")
        if value.startswith("/"):
            raise ConfigError(name, value, "must not start with '/' (tf2 frames never do)")
        return value

    def frame_prefix(self) -> str:
        return self.frame_name("frame_prefix", self.optional("frame_prefix", ""), empty_ok=True)

    def triple(self, name: str, default: list[float]) -> tuple[float, float, float]:
        value = self.optional(name, default)
        if (
            not isinstance(value, list | tuple)
            or len(value) != 3
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
            or not all(math.isfinite(v) for v in value)
        ):
            raise ConfigError(name, value, "must be 3 finite numbers")
        return (float(value[0]), float(value[1]), float(value[2]))

    def mount(self) -> MountConfig | None:
        parent = self.frame_name(
            "mount.parent_frame", self.optional("mount.parent_frame", ""), empty_ok=True
        )
        xyz = self.triple("mount.xyz_m", [0.0, 0.0, 0.0])
        rpy_deg = self.triple("mount.rpy_deg", [0.0, 0.0, 0.0])
        if not parent:
            return None
        if parent in (self.raw("base_frame"), self.raw("tip_frame")):
            raise ConfigError("mount.parent_frame", parent, "must not be one of the arm's frames")
        return MountConfig(parent, xyz, tuple(math.radians(v) for v in rpy_deg))

    def joint(self, name: str, board_channels: int) -> JointConfig:
        p = f"joints.{name}."
        lower = self.number(p + "min_deg")
        upper = self.number(p + "max_deg")
        if lower > upper:
            raise ConfigError(p + "min_deg", lower, f"must be <= {p}max_deg ({upper})")
        home = self.number(p + "home_deg")
        if not lower <= home <= upper:
            raise ConfigError(p + "home_deg", home, f"must lie within [{lower}, {upper}]")
        servo = self.servo(p + "servo.", board_channels)
        # A parallelogram servo sets the link's angle, not this joint's: `linkages` checks it.
        direct_limits = (
            (("min_deg", lower), ("max_deg", upper)) if servo.linkage == "direct" else ()
        )
        for limit_name, joint_deg in direct_limits:
            servo_deg = servo.offset_deg + servo.sign * joint_deg
            if not servo.min_deg - 1e-9 <= servo_deg <= servo.max_deg + 1e-9:
                raise ConfigError(
                    p + limit_name,
                    joint_deg,
                    f"maps to servo angle {servo_deg:g} deg, outside the servo's travel "
                    f"[{servo.min_deg:g}, {servo.max_deg:g}]",
                )
        return JointConfig(
            name=name,
            min_position=math.radians(lower),
            max_position=math.radians(upper),
            max_velocity=math.radians(self.number(p + "max_velocity_deg_s", positive=True)),
            home=math.radians(home),
            servo=servo,
        )

    def servo(self, p: str, board_channels: int) -> ServoConfig:
        channel = self.number(p + "channel", integer=True)
        if not 0 <= channel < board_channels:
            raise ConfigError(p + "channel", channel, f"must be 0..{board_channels - 1}")
        sign = self.number(p + "sign", integer=True)
        if sign not in (1, -1):
            raise ConfigError(p + "sign", sign, "must be +1 or -1")
        actuation = self.number(p + "actuation_range_deg", positive=True)
        lower = self.number(p + "min_deg")
        upper = self.number(p + "max_deg")
        if not 0 <= lower < upper <= actuation:
            raise ConfigError(
                p + "min_deg",
                lower,
                f"servo travel must satisfy 0 <= min_deg < max_deg <= {actuation:g}",
            )
        min_pulse = self.number(p + "min_pulse_us", integer=True, positive=True)
        max_pulse = self.number(p + "max_pulse_us", integer=True, positive=True)
        if min_pulse >= max_pulse:
            raise ConfigError(
                p + "min_pulse_us", min_pulse, f"must be < max_pulse_us ({max_pulse})"
            )
        return ServoConfig(
            channel=int(channel),
            offset_deg=self.number(p + "offset_deg"),
            sign=int(sign),
            min_deg=lower,
            max_deg=upper,
            actuation_range_deg=actuation,
            min_pulse_us=int(min_pulse),
            max_pulse_us=int(max_pulse),
            linkage=self.choice(p + "linkage", LINKAGES)
            if p + "linkage" in self.params
            else "direct",
        )

    def hardware(self) -> HardwareConfig:
        channels = self.number("hardware.channels", integer=True)
        if channels not in (8, 16):
            raise ConfigError("hardware.channels", channels, "must be 8 or 16")
        address = self.number("hardware.i2c_address", integer=True)
        if not 0x03 <= address <= 0x77:
            raise ConfigError("hardware.i2c_address", address, "must be a 7-bit address 3..119")
        frequency = self.number("hardware.pwm_frequency_hz", positive=True)
        if not 24 <= frequency <= 1526:
            raise ConfigError(
                "hardware.pwm_frequency_hz", frequency, "PCA9685 range is 24..1526 Hz"
            )
        publish_rate = self.number("hardware.publish_rate_hz", positive=True)
        if publish_rate > 1000:
            # Each tick writes the servos and publishes; beyond this rclpy only burns the CPU.
            raise ConfigError("hardware.publish_rate_hz", publish_rate, "must be <= 1000 Hz")
        return HardwareConfig(
            backend=self.choice("hardware.backend", BACKENDS),
            publish_rate_hz=publish_rate,
            i2c_bus=int(self.number("hardware.i2c_bus", integer=True, non_negative=True)),
            i2c_address=int(address),
            channels=int(channels),
            pwm_frequency_hz=frequency,
            on_shutdown=self.choice("hardware.on_shutdown", SHUTDOWN_MODES),
        )

    def trajectory(self) -> TrajectoryConfig:
        p = "trajectory."
        fraction = self.number(p + "default_joint_speed_fraction", positive=True)
        if fraction > 1:
            raise ConfigError(p + "default_joint_speed_fraction", fraction, "must be in (0, 1]")
        return TrajectoryConfig(
            command_rate_hz=self.number(p + "command_rate_hz", positive=True),
            default_speed=self.number(p + "default_speed_m_s", positive=True),
            default_joint_speed_fraction=fraction,
            default_max_step=self.number(p + "default_max_step_m", positive=True),
            max_joint_step=math.radians(self.number(p + "max_joint_step_deg", positive=True)),
            joint_state_timeout_s=self.number(p + "joint_state_timeout_s", positive=True),
            ik_timeout_s=self.number(p + "ik_timeout_s", positive=True),
            goal_tolerance=math.radians(self.number(p + "goal_tolerance_deg", positive=True)),
        )
