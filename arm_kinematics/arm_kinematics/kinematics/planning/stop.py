"""A stop along the path: what a cancel, a preemption or a shutdown streams instead of the
rest of a motion.

Pure numpy. Seconds, radians, metres. The arm has been sent `sent` setpoints of a motion whose
`Setpoints.follower` says how they follow their path (a tool line, a JOINT move's joint line, a
joint trajectory's own time). From where the last one put it, at the plan's speed there, the
stop decelerates along the same path at a constant rate d (`SpeedProfile.stopping`), never
faster than the plan itself would go further on (`SpeedProfile.lower`), so it stays ON the
path: every stop setpoint of a line is again an IK solution of a point of it.

The rate: a joint moving at q' stops in q' / a at its acceleration limit a, and the tool at
speed v in v / a_tool; the stop takes the longest of those, then 1.25, 1.6, ... up to 4 times
that (`STRETCHES`) until its setpoints, with the two sent before and the rest after, keep every
limit in their finite differences (`stream_limits.py`). Should none (a stretch of the path ahead
that no slower stop keeps either), the arm finishes the planned motion, which does.

No ruckig here: along one path coordinate and without a jerk limit, a stop at constant
deceleration is the time-optimal one, one line (`stopping`); ruckig's use is a jerk-limited
target in several coordinates at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .joint_path import Setpoints
from .profile import SpeedProfile
from .stream_limits import stream_excesses

#: How much longer than the shortest a stop may be tried (the shortest: longest of q' / a).
STRETCHES = (1.0, 1.25, 1.6, 2.0, 2.5, 3.2, 4.0)
#: A path speed below this is at rest (path units per second).
AT_REST = 1e-9


@dataclass(frozen=True)
class Stop:
    """The setpoints that replace the rest of a motion (`joints` (m, n) rad, the last where the
    arm rests; none when it is at rest already, or holds where it is), their `seconds`, and
    how it stops, in words (`how`: for a result message)."""

    joints: np.ndarray
    seconds: float
    how: str


def stop_setpoints(setpoints: Setpoints, sent: int) -> Stop:
    """The stop after `sent` of `setpoints` (module docstring). Without a follower, before
    the first setpoint or after the last one: no setpoints (the arm is where the last one put
    it).

    >>> from arm_kinematics.kinematics.planning.joint_plan import joint_setpoints
    >>> from arm_kinematics.kinematics.planning.options import MotionLimits
    >>> from arm_kinematics.kinematics import PlanarArm
    >>> arm, limits = PlanarArm((1.0, 0.8)), MotionLimits(0.02, (1.0, 1.0), (4.0, 4.0))
    >>> move = joint_setpoints(arm, (0.0, 0.0), (1.0, 0.5), limits)  # 1.25 s
    >>> move.joints[39].tolist()  # 0.8 s in, joint 0 at 1 rad/s
    [0.675, 0.3375]
    >>> stop = stop_setpoints(move, 40)  # 0.25 s at 4 rad/s^2 to rest, 0.125 rad further on
    >>> len(stop.joints), stop.joints[-1].round(6).tolist()
    (13, [0.8, 0.4])
    """
    follower = setpoints.follower
    count, period = len(setpoints), setpoints.period
    none = np.zeros((0, setpoints.joints.shape[1]))
    if sent <= 0:
        return Stop(none, 0.0, "before its first setpoint: nothing moved")
    if sent >= count:
        return Stop(none, 0.0, "after its last setpoint")
    if follower is None:
        return Stop(none, 0.0, "held at its last setpoint (no path to decelerate along)")
    here = float(follower.positions[sent - 1])
    speed = float(follower.profile.speed_at(np.array([sent * period]))[0])
    if speed <= AT_REST:
        return Stop(none, 0.0, "at rest already")
    before_row = setpoints.joints[sent - 2] if sent >= 2 else np.asarray(follower.start)
    last_row = setpoints.joints[sent - 1]
    before_at = float(follower.positions[sent - 2]) if sent >= 2 else follower.profile.start
    limits = follower.limits
    joint_speeds = np.abs(last_row - before_row) / period
    shortest = max(
        float(np.max(joint_speeds / limits.joint_accelerations)),
        0.0 if limits.tool_acceleration is None else speed / limits.tool_acceleration,
        period,
    )  # (the path speed is the tool's where the limits bound the tool: a Cartesian path)
    ahead = follower.profile.after(here)
    for stretch in STRETCHES:
        ramp = SpeedProfile.stopping(here, speed, speed / (shortest * stretch))
        profile = ahead.lower(ramp)
        positions = profile.sample(period)
        joints = follower.joints_at(positions, tuple(last_row.tolist()))
        if joints is None:
            continue
        stream = np.vstack((before_row, last_row, joints, joints[-1:], joints[-1:]))
        around = np.concatenate(([before_at, here], positions, positions[-1:], positions[-1:]))
        first, _ = stream_excesses(stream, period, limits, follower.tool_at(around))
        if first is None:
            seconds = len(joints) * period
            return Stop(joints, seconds, f"decelerated along its path in {seconds:.2f} s")
    rest = setpoints.joints[sent:]
    seconds = len(rest) * period
    return Stop(
        rest, seconds, f"no sooner stop kept the limits: finished its path ({seconds:.2f} s)"
    )
