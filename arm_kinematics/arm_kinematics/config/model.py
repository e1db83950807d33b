"""The validated configuration's parts: the servo, joint, hardware, trajectory, mount, spatial,
gripper and workspace sections as frozen dataclasses (radians, metres, seconds), their choices, and
`ConfigError`. `arm.py` composes them into `ArmConfig`; `reader.py` fills them from parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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


DEFAULT_ACCELERATION_TIME_S = 0.25
"""s: without `max_acceleration_deg_s2` a joint reaches its `max_velocity_deg_s` in this time
(the acceleration is max_velocity / this), and the start-up log says so."""
DEFAULT_TOOL_ACCELERATION_M_S2 = 0.3
"""m/s^2: the tool's acceleration limit along a Cartesian path without
`trajectory.max_acceleration_m_s2` (the start-up log says so)."""
DEFAULT_MAX_BATCH_TARGETS = 100_000
"""Most targets in one solve_ik_batch request, when `ik.max_batch_targets` is not given."""


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
    max_velocity: float  # rad/s
    home: float
    servo: ServoConfig
    max_acceleration: float = math.inf  # rad/s^2 (the reader always sets it)


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
    max_tool_acceleration: float = math.inf  # m/s^2 along a Cartesian path (the reader sets it)


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
    reach_timeout_s: float  # s after the motion has ended: not there by then = stalled

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
class EnvelopeConfig:
    """The workspace envelope (`workspace.*`, docs/workspace.md), in the base frame, metres.
    The defaults (a file without the section) constrain nothing.

    >>> EnvelopeConfig().is_empty, EnvelopeConfig(table_z=0.0, link_radius=0.01).is_empty
    (True, False)
    """

    table_z: float | None = None  # no part of the arm below this height; None: no table
    keep_out_boxes: tuple[tuple[float, ...], ...] = ()  # (min x, y, z, max x, y, z) each
    link_radius: float = 0.0  # the arm's parts: capsules of this radius about their lines
    base_column_radius: float = 0.0  # the base column about the base z axis; 0: none
    tool_length: float = 0.0  # the fingers' reach beyond the tool point, along its x axis

    @property
    def is_empty(self) -> bool:
        """No table, no keep-out box, no base column: nothing to check."""
        return self.table_z is None and not self.keep_out_boxes and self.base_column_radius == 0
