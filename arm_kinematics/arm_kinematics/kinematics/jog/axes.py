"""What an arm's jog can move, and a twist turned into it: the rest is dropped and named.

A jog drives coordinates of the tool pose the solver takes (`tool_vector`: a planar arm's
(x, y, heading), a spatial arm's (x, y, z, pitch, roll) in the outward convention), those the
arm's joints set freely:

- a planar arm: x and y in its plane, and the heading with 3 joints (2 joints: the heading
  follows the position). A twist's z, its turns about x and y, and a 2-joint arm's turn about z
  are dropped;
- a spatial arm: x, y and z (a sideways move turns the yaw, and the arm's vertical plane and the
  tool turn with it); the pitch with 3 pitch joints (2: the pitch follows the position); the roll
  with a wrist roll joint and 3 pitch joints. Of a twist's angular velocity, the part about
  the plane's lateral axis is the pitch rate, the part about the tool's x axis the roll rate;
  the part about the third axis (in the vertical plane, normal to the tool's x axis) would turn
  the tool out of the arm's vertical plane, which no joint does: dropped.

A part is dropped when it is more than `DROP_FRACTION` of its kind's speed (linear or
angular); what is dropped is said in words, the same words while the same parts are dropped.
Metres, radians, the base frame.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..planar.arm import PlanarArm
from ..spatial.arm import SpatialArm
from ..spatial.rotations import rot_z
from ..types import IkResult
from .commands import TwistCommand

DROP_FRACTION = 0.01
"""A part of a twist the arm cannot make is dropped (and said) above this fraction of the
twist's linear (or angular) speed; below it, it is rounding or a stick's noise."""
MIN_DROPPED = 1e-9
"""m/s or rad/s: a dropped part at most this small is not worth a word."""

# The dropped parts' words, one per part: what the twist asked, and why the arm cannot.
PLANAR_Z = "the linear z (a planar arm moves in its plane)"
PLANAR_TILT = "the turns about x and y (a planar arm turns only about z)"
PLANAR_HEADING = "the turn about z (a 2-joint arm's tool heading follows its position)"
OUT_OF_PLANE = (
    "the turn out of the arm's vertical plane (no joint turns the tool that way: a sideways "
    "move turns the yaw, and the tool with the plane)"
)
SPATIAL_PITCH = "the pitch (with 2 pitch joints the tool's pitch follows its position)"
SPATIAL_ROLL = "the roll (this arm has no wrist roll joint)"
SPATIAL_ROLL_2 = "the roll (with 2 pitch joints the wrist roll is not jogged)"


class TwistRates(NamedTuple):
    """A twist as the jog's rates: one per controlled coordinate (m/s, rad/s), and the words
    of the parts dropped (empty: none)."""

    rates: np.ndarray
    dropped: tuple[str, ...]


@dataclass(frozen=True)
class JogAxes:
    """The coordinates of an arm's tool pose (`tool_vector`) that its jog drives.

    `controlled` indexes `tool_vector`; `weights` (per controlled coordinate) turn the rates
    into the speed the tool's acceleration limit applies to: 1 for a position (m/s), the last
    link's length for an angle (m/rad: a turn counts as the speed of a point that far out).

    >>> axes = JogAxes.of(PlanarArm((0.1, 0.08, 0.04)))
    >>> axes.controlled, axes.weights
    ((0, 1, 2), (1.0, 1.0, 0.04))
    >>> JogAxes.of(SpatialArm((0.1, 0.08))).controlled  # 2 pitch joints: the pitch is free
    (0, 1, 2)
    """

    spatial: bool
    controlled: tuple[int, ...]
    weights: tuple[float, ...]
    roll_joint: bool = False  # a spatial arm with a wrist roll joint

    @classmethod
    def of(cls, arm: PlanarArm | SpatialArm) -> JogAxes:
        radius = float(arm.link_lengths[-1])
        if isinstance(arm, SpatialArm):
            controlled = [0, 1, 2]
            if arm.n_pitch == 3:
                controlled.append(3)
                if arm.has_roll:
                    controlled.append(4)
        else:
            controlled = [0, 1, 2] if arm.n_joints == 3 else [0, 1]
        spatial = isinstance(arm, SpatialArm)
        angle_from = 3 if spatial else 2
        weights = tuple(1.0 if i < angle_from else radius for i in controlled)
        return cls(spatial, tuple(controlled), weights, spatial and bool(arm.has_roll))

    @property
    def angle_mask(self) -> np.ndarray:
        """Per controlled coordinate: whether it is an angle (wrapped when differenced)."""
        angle_from = 3 if self.spatial else 2
        return np.array([i >= angle_from for i in self.controlled])

    def tool(self, arm: PlanarArm | SpatialArm, joints: Sequence[float]):
        """(the tool pose as `tool_vector` gives it, its rotation 3x3 in the base frame) at
        `joints` (rad): for a planar arm the turn about z by its heading.

        >>> pose, rotation = JogAxes.of(PlanarArm((1.0, 0.8))).tool(
        ...     PlanarArm((1.0, 0.8)), (0.0, math.pi / 2))
        >>> pose.round(6).tolist(), rotation[:, 0].round(6).tolist()
        ([1.0, 0.8, 1.570796], [0.0, 1.0, 0.0])
        """
        if self.spatial:
            tool = arm.forward(joints)
            pose = np.array([tool.x, tool.y, tool.z, tool.pitch, tool.roll])
            return pose, tool.rotation
        pose = np.array(arm.forward(joints), dtype=float)
        return pose, rot_z(pose[2])

    def solve(
        self, arm: PlanarArm | SpatialArm, pose: np.ndarray, seed: Sequence[float]
    ) -> IkResult:
        """The solver's answer for `pose` (a full `tool_vector`; only the controlled angles
        are asked for, the others follow), seeded by `seed` (rad): least motion from it."""
        values = pose.tolist()
        if self.spatial:
            pitch = values[3] if 3 in self.controlled else None
            roll = values[4] if 4 in self.controlled else None
            return arm.solve(values[0], values[1], values[2], pitch, roll, current=seed)
        heading = values[2] if 2 in self.controlled else None
        return arm.solve(values[0], values[1], heading, current=seed)

    def rates(self, pose: np.ndarray, rotation: np.ndarray, twist: TwistCommand) -> TwistRates:
        """`twist` as rates of the controlled coordinates at the tool pose `pose` with the
        tool's `rotation` (`tool`), and the words of what it asks that the arm cannot make.

        A 2R arm at full stretch along x, told to move along +y and to rise: the rise is
        dropped (a planar arm has no z).

        >>> arm = PlanarArm((1.0, 0.8))
        >>> axes = JogAxes.of(arm)
        >>> pose, rotation = axes.tool(arm, (0.0, 0.0))
        >>> rates, dropped = axes.rates(pose, rotation, TwistCommand((0.0, 0.1, 0.05), (0, 0, 0)))
        >>> rates.tolist(), dropped
        ([0.0, 0.1], ('the linear z (a planar arm moves in its plane)',))
        """
        linear = np.asarray(twist.linear, dtype=float)
        angular = np.asarray(twist.angular, dtype=float)
        if twist.in_tool_frame:
            linear, angular = rotation @ linear, rotation @ angular
        linear_floor = _floor(linear)
        angular_floor = _floor(angular)
        if not self.spatial:
            return self._planar_rates(linear, angular, linear_floor, angular_floor)
        return self._spatial_rates(pose, rotation, linear, angular, angular_floor)

    def _planar_rates(self, linear, angular, linear_floor, angular_floor) -> TwistRates:
        dropped = []
        if abs(linear[2]) > linear_floor:
            dropped.append(PLANAR_Z)
        if math.hypot(angular[0], angular[1]) > angular_floor:
            dropped.append(PLANAR_TILT)
        rates = [linear[0], linear[1]]
        if 2 in self.controlled:
            rates.append(angular[2])
        elif abs(angular[2]) > angular_floor:
            dropped.append(PLANAR_HEADING)
        return TwistRates(np.array(rates), tuple(dropped))

    def _spatial_rates(self, pose, rotation, linear, angular, angular_floor) -> TwistRates:
        # The outward convention's axes: the pitch turns about the plane's lateral axis
        # (sin psi, -cos psi, 0), the roll about the tool's x axis; both are normal to each
        # other, the rest of the angular velocity turns the tool out of the plane.
        x, y = pose[0], pose[1]
        tool_x = rotation[:, 0]
        psi = math.atan2(y, x) if math.hypot(x, y) > 0.0 else math.atan2(tool_x[1], tool_x[0])
        lateral = np.array([math.sin(psi), -math.cos(psi), 0.0])
        pitch_rate = float(angular @ lateral)
        roll_rate = float(angular @ tool_x)
        rest = angular - pitch_rate * lateral - roll_rate * tool_x
        dropped = []
        rates = list(linear)
        if 3 in self.controlled:
            rates.append(pitch_rate)
        elif abs(pitch_rate) > angular_floor:
            dropped.append(SPATIAL_PITCH)
        if 4 in self.controlled:
            rates.append(roll_rate)
        elif abs(roll_rate) > angular_floor:
            dropped.append(SPATIAL_ROLL_2 if self.roll_joint else SPATIAL_ROLL)
        if float(np.linalg.norm(rest)) > angular_floor:
            dropped.insert(0, OUT_OF_PLANE)
        return TwistRates(np.array(rates), tuple(dropped))


def _floor(vector: np.ndarray) -> float:
    """The size above which a part of `vector` is said to be dropped."""
    return max(MIN_DROPPED, DROP_FRACTION * float(np.linalg.norm(vector)))
