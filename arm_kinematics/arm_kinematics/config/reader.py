"""Validation: a flat mapping of parameters (by ROS name) read and checked one by one into
the configuration's parts, raising `ConfigError` for the first bad one."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from arm_kinematics.kinematics import BRANCH_NAMES

from .model import (
    BACKENDS,
    DEFAULT_ACCELERATION_TIME_S,
    DEFAULT_MAX_BATCH_TARGETS,
    DEFAULT_TOOL_ACCELERATION_M_S2,
    GRIPPER_UNITS,
    LAYOUTS,
    LINKAGES,
    SHUTDOWN_MODES,
    ConfigError,
    GripperConfig,
    HardwareConfig,
    JointConfig,
    MountConfig,
    ServoConfig,
    SpatialConfig,
    TrajectoryConfig,
)
from .schema import DEFAULT_ROBOT_NAME, UNUSED_BY_SPATIAL
from .workspace import read_workspace

_FRAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/")
_NAME_CHARACTERS = _FRAME_CHARACTERS - {"/"}


class Reader:
    """Reads and checks parameters one by one, raising ConfigError for the first bad one."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = params
        self.notes: list[str] = []  # start-up notes for the log (ArmConfig.notes)

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

    def arm_fields(self) -> dict[str, Any]:
        """The keyword arguments of `ArmConfig` (arm.py), every one checked."""
        layout = self.choice("layout", LAYOUTS) if "layout" in self.params else "planar"
        names = self.joint_names(layout)
        lengths = self.link_lengths(names, layout)
        spatial = self.spatial(names, len(lengths)) if layout == "spatial" else None
        if spatial is None:
            plane_z = self.number("plane_z_m")
            plane_tolerance = self.number("plane_tolerance_m", non_negative=True)
            unused = sorted(n for n in self.params if n.startswith("spatial."))
            if unused:
                self.notes.append(f"layout planar: {', '.join(unused)} not used")
        else:
            given = [n for n in UNUSED_BY_SPATIAL if self.params.get(n) is not None]
            plane_z = self.number("plane_z_m") if "plane_z_m" in given else 0.0
            plane_tolerance = (
                self.number("plane_tolerance_m", non_negative=True)
                if "plane_tolerance_m" in given
                else 0.001
            )
            if given:
                self.notes.append(
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
        return dict(
            robot_name=self.robot_name(),
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
            workspace=read_workspace(self),
            notes=tuple(self.notes),
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
            return DEFAULT_MAX_BATCH_TARGETS
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

    def robot_name(self) -> str:
        """`robot_name`, the URDF's robot name: a name MoveIt's setup assistant can also take
        for its package (letters, digits, '_'); a file without one is `DEFAULT_ROBOT_NAME`."""
        name = self.optional("robot_name", DEFAULT_ROBOT_NAME)
        if not isinstance(name, str) or not name or not _NAME_CHARACTERS.issuperset(name):
            raise ConfigError("robot_name", name, "must be a name of letters, digits and '_'")
        return name

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
        max_velocity = math.radians(self.number(p + "max_velocity_deg_s", positive=True))
        return JointConfig(
            name=name,
            min_position=math.radians(lower),
            max_position=math.radians(upper),
            max_velocity=max_velocity,
            home=math.radians(home),
            servo=servo,
            max_acceleration=self.acceleration(p, max_velocity),
        )

    def acceleration(self, p: str, max_velocity: float) -> float:
        """A joint's `max_acceleration_deg_s2` (rad/s^2); a file written before it existed
        gets max_velocity / DEFAULT_ACCELERATION_TIME_S, said in the notes."""
        name = p + "max_acceleration_deg_s2"
        if self.params.get(name) is None:
            value = max_velocity / DEFAULT_ACCELERATION_TIME_S
            self.notes.append(
                f"{name} not given: {math.degrees(value):g} deg/s^2 (max_velocity_deg_s "
                f"reached in {DEFAULT_ACCELERATION_TIME_S:g} s)"
            )
            return value
        return math.radians(self.number(name, positive=True))

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
            max_tool_acceleration=self.tool_acceleration(),
        )

    def tool_acceleration(self) -> float:
        """`trajectory.max_acceleration_m_s2` (m/s^2); a file written before it existed gets
        DEFAULT_TOOL_ACCELERATION_M_S2, said in the notes."""
        name = "trajectory.max_acceleration_m_s2"
        if self.params.get(name) is None:
            self.notes.append(f"{name} not given: {DEFAULT_TOOL_ACCELERATION_M_S2:g} m/s^2")
            return DEFAULT_TOOL_ACCELERATION_M_S2
        return self.number(name, positive=True)
