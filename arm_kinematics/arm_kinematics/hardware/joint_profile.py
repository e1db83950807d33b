"""One joint's motion in time, from where it is (moving or not) to a target where it rests, or to
a stop: the time-optimal profile under its velocity and acceleration limits, by ruckig.

The gripper's joint moves this way (`hardware/driver.py`): every goal starts and ends at rest,
and a goal that replaces a running one, or a cancel, starts from the joint's velocity at that
moment, so its velocity never jumps. ruckig (pantor/ruckig) computes the profile once per
change of target (`Ruckig.calculate` into a `Trajectory`); the node samples it at the node
clock of each tick (`at`), so a tick that comes late or early still lands on the profile (the
online `Ruckig.update` assumes a fixed period). No jerk limit is given (the config has none),
so ruckig's profile is the trapezoid of velocity: accelerate at the limit, cruise at the
velocity limit, brake at the limit; ruckig also covers the cases a hand-written trapezoid gets
wrong (a start faster than the limit, a target behind a moving joint, a move too short to
reach full speed).

Positions in radians, velocities in rad/s, accelerations in rad/s^2, times in seconds of one
clock (the node's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ruckig import ControlInterface, InputParameter, Result, Ruckig, Trajectory


@dataclass(frozen=True)
class JointPoint:
    """Where a joint is at a time: position (rad) and velocity (rad/s)."""

    position: float
    velocity: float = 0.0


class JointProfile:
    """A planned motion of one joint that began at `start_s` and ends at rest at `end_position`
    after `duration_s`.

    >>> move = JointProfile.to_target(JointPoint(0.0), 1.0, 1.0, 4.0, start_s=10.0)
    >>> round(move.duration_s, 9)  # 0.25 s up to 1 rad/s, 0.75 s at it, 0.25 s down
    1.25
    >>> [round(v, 9) for v in (move.at(10.125).position, move.at(10.125).velocity)]
    [0.03125, 0.5]
    >>> move.at(99.0), move.finished(11.25)
    (JointPoint(position=1.0, velocity=0.0), True)
    """

    def __init__(self, trajectory: Trajectory, start_s: float, end_position: float) -> None:
        self._trajectory = trajectory
        self.start_s = start_s
        self.duration_s = float(trajectory.duration)
        self.end_position = end_position

    @classmethod
    def to_target(
        cls,
        now: JointPoint,
        target: float,
        max_velocity: float,
        max_acceleration: float,
        *,
        start_s: float,
    ) -> JointProfile:
        """From `now` (at `start_s`) to rest at `target`, within the limits (rad/s, rad/s^2)."""
        request = _request(now, max_velocity, max_acceleration)
        request.target_position = [target]
        return cls(_calculate(request), start_s, target)

    @classmethod
    def stop(
        cls, now: JointPoint, max_velocity: float, max_acceleration: float, *, start_s: float
    ) -> JointProfile:
        """From `now` (at `start_s`) to rest as soon as the acceleration limit allows: a brake.

        >>> brake = JointProfile.stop(JointPoint(0.0, 1.0), 1.0, 4.0, start_s=0.0)
        >>> brake.duration_s, brake.end_position  # 0.25 s, 1/2 * 1 rad/s * 0.25 s further
        (0.25, 0.125)
        """
        request = _request(now, max_velocity, max_acceleration)
        request.control_interface = ControlInterface.Velocity
        trajectory = _calculate(request)
        end = float(trajectory.at_time(trajectory.duration)[0][0])
        return cls(trajectory, start_s, end)

    def at(self, now_s: float) -> JointPoint:
        """The joint on the profile at `now_s` (before the start: at the start; from the end
        on: exactly at `end_position`, at rest)."""
        t = now_s - self.start_s
        if t >= self.duration_s:
            return JointPoint(self.end_position)
        position, velocity, _ = self._trajectory.at_time(max(t, 0.0))
        return JointPoint(float(position[0]), float(velocity[0]))

    def delayed(self, seconds: float) -> JointProfile:
        """The same profile begun `seconds` later (the node's ticks stalled: slower, no jump)."""
        return JointProfile(self._trajectory, self.start_s + seconds, self.end_position)

    def finished(self, now_s: float) -> bool:
        """Whether the joint is at rest at `end_position` at `now_s`."""
        return now_s - self.start_s >= self.duration_s


def _request(now: JointPoint, max_velocity: float, max_acceleration: float) -> InputParameter:
    request = InputParameter(1)
    request.current_position = [now.position]
    request.current_velocity = [now.velocity]
    # No jerk limit: the acceleration may change at once, so where it is now does not matter.
    request.current_acceleration = [0.0]
    request.target_velocity = [0.0]
    request.target_acceleration = [0.0]
    request.max_velocity = [max_velocity]
    request.max_acceleration = [max_acceleration]
    request.max_jerk = [math.inf]
    return request


def _calculate(request: InputParameter) -> Trajectory:
    trajectory = Trajectory(1)
    result = Ruckig(1).calculate(request, trajectory)
    if result not in (Result.Working, Result.Finished):
        # Only for input no validated config gives (NaN, a zero limit): a bug, not a user error.
        raise ValueError(f"ruckig could not plan the joint's motion ({result}): {request}")
    return trajectory
