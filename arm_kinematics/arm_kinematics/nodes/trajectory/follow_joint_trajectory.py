"""FollowJointTrajectory goals as ros2_controllers' joint_trajectory_controller (Jazzy) follows
them, without rclpy: the goal's checks and their error codes, the tolerances, the start time
(`header.stamp`), the checks at every setpoint and after the last, the feedback values, and the
result. `nodes/follow_joint_trajectory_action.py` serves the action with these parts.

A goal is a joint trajectory like the `joint_trajectory` topic's, with the same rules
(`TrajectoryMove`, `check_joint_trajectory`: names in any order, times strictly increasing,
positions within the limits, no segment faster than `max_velocity_deg_s`, the one from the
current pose included), admitted by the same rule as every motion (`goals.Admission`: a newer
valid motion preempts, one moves at a time) and streamed by the same `SetpointStream`. On top:

- **Joints.** Every arm joint, unless the `allow_partial_joints_goal` parameter is true: then
  the joints left out hold where they are. Unknown or twice-named joints (also in the
  tolerances), a multi-DOF trajectory or component tolerances (this arm has no multi-DOF
  joints): INVALID_JOINTS.
- **Points.** At least one; `velocities` and `accelerations` empty or one per joint, the last
  point's velocities zero, no `effort` (joint_trajectory_controller's checks): else
  INVALID_GOAL. Between points the joints follow a line, a cubic or a quintic as the
  controller's spline does (positions; and velocities; and accelerations), and the whole
  motion, sampled as it is streamed, is checked against the joint velocity and acceleration
  limits before anything moves (`check_joint_trajectory`): over a limit is INVALID_GOAL,
  naming the point, the joint and the value.
- **Start.** `header.stamp` zero: at once. In the future: the trajectory's time 0 is then; the
  segment from the current pose to the first point ends at the stamp plus its
  `time_from_start`, as the controller does, so a MoveIt trajectory (its first point the
  current pose at time 0) holds the arm until the stamp. In the past by `late` seconds: it
  starts now, `late` behind its schedule, unless it would end in the past or, with a goal time
  limit, `late` exceeds it (it could no longer end within the limit: a servo cannot jump into
  the middle of a trajectory): OLD_HEADER_TIMESTAMP.
- **Tolerances** per joint, in rad, from the goal (`path_tolerance`, `goal_tolerance`) else the
  node's read-only defaults; control_msgs' rule: a value > 0 is the bound, 0 keeps the default,
  -1 lifts it, any other negative value is INVALID_GOAL. A bound of 0 is not checked. Position
  bounds only: joint_states of hobby servos carry positions, so velocity and acceleration
  bounds are accepted and not checked (as the controller does with a position-only state
  interface). `goal_time_tolerance` likewise (0 keeps the default, -1: no limit).
- **While it runs**, before every setpoint: each joint of `joint_states` against where the
  trajectory wanted it when that message came; a joint beyond its path tolerance ends the goal
  PATH_TOLERANCE_VIOLATED. Feedback goes out with every setpoint (the command rate): desired,
  actual and error (positions, and velocities: the actual ones from the difference of the last
  two joint_states), all at the time of that joint_states message.
- **At the end**, from the last point's time: SUCCESSFUL once every joint is within its goal
  tolerance of the last point; not by the end plus `goal_time_tolerance`: GOAL_TOLERANCE_VIOLATED
  (with no limit it waits, as the controller does, until a cancel or a newer motion).
- A cancel decelerates along the trajectory within the limits (`stop_setpoints`), then holds
  the arm where `joint_states` says it is once it has stopped, as the controller holds its
  current state; a broken tolerance holds it at once (the arm is not following). The joints
  that move freely stop on the setpoint already sent; where a blocked servo stopped short of
  it, one command at the pose measured makes it stop pushing. A newer motion replaces the
  goal (decelerating it the same way), which ends ABORTED with INVALID_GOAL ("preempted by
  ..."), as the controller reports a preempted goal; so does the node's shutdown.

No rclpy here (message types only). Units: radians, seconds; `now` is the node clock (s).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from builtin_interfaces.msg import Duration
from control_msgs.action import FollowJointTrajectory
from trajectory_msgs.msg import JointTrajectoryPoint

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Envelope
from arm_kinematics.kinematics.planning.joint_trajectory import JointNamesError, joint_columns
from arm_kinematics.kinematics.planning.timed_joint_path import (
    TimedJointPath,
    trajectory_setpoints,
)
from arm_kinematics.nodes.messages import constant_names
from arm_kinematics.nodes.refusals import InvalidJoints, Refusal
from arm_kinematics.nodes.trajectory.goals import (
    GoalRun,
    Outcome,
    Result,
    TrajectoryMove,
    format_joints,
)
from arm_kinematics.nodes.trajectory.streaming import JointSample, JointStateMonitor, SetpointStream

FollowResult = FollowJointTrajectory.Result

#: FollowJointTrajectory error_code value -> constant name.
ERROR_NAMES = constant_names(
    FollowResult,
    (
        "SUCCESSFUL",
        "INVALID_GOAL",
        "INVALID_JOINTS",
        "OLD_HEADER_TIMESTAMP",
        "PATH_TOLERANCE_VIOLATED",
        "GOAL_TOLERANCE_VIOLATED",
    ),
)
ACTION_NAME = "follow_joint_trajectory"
"""The action's name under the controller's, as joint_trajectory_controller serves it."""
DEFAULT_CONTROLLER_NAME = "arm_controller"
LABEL = "follow_joint_trajectory goal"
"""How these goals are named in log lines and in the reason of a motion they preempt."""
ERASE = -1.0
"""A tolerance (or goal_time_tolerance) of -1 lifts the bound (control_msgs/JointTolerance)."""
_ERASE_SLACK = float(np.finfo(np.float32).eps)  # what counts as -1 (the controller's test)
SETTLE_S = 0.5
"""Longest wait for the arm to come to rest (the setpoint already sent, a servo tick, one
joint_states) before it is held where it is (s)."""
HOLD_SLACK = 1e-9
"""rad: a joint at rest this close to its last setpoint is held by it (no command needed)."""


def error_name(code: int) -> str:
    """Name of an error_code ("UNKNOWN(42)" for a value the action does not define)."""
    return ERROR_NAMES.get(code, f"UNKNOWN({code})")


class OldHeaderTimestamp(Refusal):
    """A goal whose `header.stamp` lies too far in the past to start it now."""


@dataclass(frozen=True)
class Tolerances:
    """Bounds of one goal, per arm joint in the arm's order (rad; 0: not checked), and the
    time after the last point's by which the goal tolerance must hold (s; 0: no limit)."""

    path: tuple[float, ...]
    goal: tuple[float, ...]
    goal_time: float


@dataclass(frozen=True)
class FollowSettings:
    """The node's read-only parameters for this action (tolerances in rad, goal time in s)."""

    controller_name: str
    allow_partial: bool
    defaults: Tolerances

    @property
    def action_name(self) -> str:
        """The action's name relative to the node's namespace."""
        return f"{self.controller_name}/{ACTION_NAME}"


def resolve_tolerance(default: float, given: float, what: str) -> float:
    """control_msgs' rule for one bound: `given` > 0 is the bound, 0 keeps `default`, -1 lifts
    it (0: not checked); any other value is refused.

    >>> resolve_tolerance(0.1, 0.0, "x"), resolve_tolerance(0.1, 0.05, "x")
    (0.1, 0.05)
    >>> resolve_tolerance(0.1, -1.0, "x")
    0.0
    >>> try:
    ...     resolve_tolerance(0.1, -2.0, "goal_tolerance of joint elbow: position")
    ... except Refusal as refusal:
    ...     print(refusal)
    goal_tolerance of joint elbow: position = -2: a tolerance is > 0, 0 (the default) or -1 (no bound)
    """  # noqa: E501
    if not math.isfinite(given):
        raise Refusal(f"{what} = {given} is not a number: use > 0, 0 (the default) or -1")
    if given > 0.0:
        return float(given)
    if abs(given - ERASE) < _ERASE_SLACK:
        return 0.0
    if given < 0.0:
        raise Refusal(f"{what} = {given:g}: a tolerance is > 0, 0 (the default) or -1 (no bound)")
    return default


def seconds(duration: Duration) -> float:
    """A builtin_interfaces Duration (or Time) in seconds."""
    return duration.sec + duration.nanosec * 1e-9


def duration(value: float) -> Duration:
    """Seconds as a builtin_interfaces Duration (negative values too: sec rounds down)."""
    whole = math.floor(value)
    nanosec = min(round((value - whole) * 1e9), 999_999_999)
    return Duration(sec=int(whole), nanosec=int(nanosec))


def goal_tolerances(
    goal: FollowJointTrajectory.Goal, joint_names: Sequence[str], defaults: Tolerances
) -> Tolerances:
    """The goal's tolerances resolved against `defaults` (`resolve_tolerance` per bound); a
    Refusal for a bad value, InvalidJoints for a joint that is not the arm's or named twice."""
    resolved = {"path_tolerance": list(defaults.path), "goal_tolerance": list(defaults.goal)}
    for field, values in resolved.items():
        seen: set[str] = set()
        for tolerance in getattr(goal, field):
            name = tolerance.name
            if name not in joint_names:
                raise InvalidJoints(
                    f"{field} names joint '{name}', not one of this controller's joints "
                    f"({', '.join(joint_names)})"
                )
            if name in seen:
                raise InvalidJoints(f"{field} names joint {name} twice")
            seen.add(name)
            index = list(joint_names).index(name)
            what = f"{field} of joint {name}"
            values[index] = resolve_tolerance(
                values[index], tolerance.position, f"{what}: position"
            )
            # Checked for a legal value, not applied: joint_states carry no velocities.
            resolve_tolerance(0.0, tolerance.velocity, f"{what}: velocity")
            resolve_tolerance(0.0, tolerance.acceleration, f"{what}: acceleration")
    goal_time = resolve_tolerance(
        defaults.goal_time, seconds(goal.goal_time_tolerance), "goal_time_tolerance (s)"
    )
    return Tolerances(
        tuple(resolved["path_tolerance"]), tuple(resolved["goal_tolerance"]), goal_time
    )


@dataclass(frozen=True)
class FollowMove(TrajectoryMove):
    """A FollowJointTrajectory goal's trajectory (TrajectoryMove's times are relative to the
    stamp), its resolved tolerances and `start_stamp` (s of the node clock; 0: start at once)."""

    tolerances: Tolerances = Tolerances((), (), 0.0)
    start_stamp: float = 0.0

    def scheduled(self, now: float) -> tuple[TrajectoryMove, float]:
        """The trajectory as it must run when streamed from `now` (s, node clock), with times
        from then, and how late it starts (s, >= 0); OldHeaderTimestamp when the stamp is too
        old (module docstring).

        >>> move = FollowMove(("j",), (1.0, 2.0), ((0.1,), (0.2,)), start_stamp=100.0,
        ...                   tolerances=Tolerances((0.0,), (0.0,), 0.5))
        >>> move.scheduled(99.5)[0].times, move.scheduled(99.5)[1]  # the stamp is 0.5 s away
        ((1.5, 2.5), 0.0)
        >>> move.scheduled(100.25)[1]  # a quarter of a second late: within the goal time
        0.25
        >>> try:
        ...     move.scheduled(101.0)
        ... except OldHeaderTimestamp as refusal:
        ...     print(refusal)
        header.stamp is 1.00 s in the past, more than goal_time_tolerance 0.5 s: started now it cannot end in time; stamp it later (or 0: start at once)
        """  # noqa: E501
        if self.start_stamp == 0.0:
            return self, 0.0
        until = self.start_stamp - now
        if until > 0.0:
            return replace(self, times=tuple(t + until for t in self.times)), 0.0
        late = -until
        if late > self.times[-1]:
            raise OldHeaderTimestamp(
                f"header.stamp is {late:.2f} s in the past: the trajectory ({self.times[-1]:g} s) "
                "would have ended already; stamp it later (or 0: start at once)"
            )
        goal_time = self.tolerances.goal_time
        if goal_time > 0.0 and late > goal_time:
            raise OldHeaderTimestamp(
                f"header.stamp is {late:.2f} s in the past, more than goal_time_tolerance "
                f"{goal_time:g} s: started now it cannot end in time; stamp it later (or 0: "
                "start at once)"
            )
        return self, late


def follow_move(
    goal: FollowJointTrajectory.Goal,
    settings: FollowSettings,
    joint_names: Sequence[str],
    now: float,
) -> FollowMove:
    """The goal's checks that need no joint_states (module docstring), in this order: joints
    (InvalidJoints), tolerances, points (Refusal), the stamp (OldHeaderTimestamp)."""
    trajectory = goal.trajectory
    multi_dof = goal.multi_dof_trajectory
    if multi_dof.joint_names or multi_dof.points:
        raise InvalidJoints(
            "multi_dof_trajectory is not empty: this arm has no multi-DOF joints (its joints: "
            f"{', '.join(joint_names)})"
        )
    if goal.component_path_tolerance or goal.component_goal_tolerance:
        raise InvalidJoints("component tolerances are for multi-DOF joints: this arm has none")
    names = tuple(trajectory.joint_names)
    try:
        joint_columns(names, joint_names, settings.allow_partial)
    except JointNamesError as error:
        hint = ""
        if "missing" in str(error):
            hint = " (partial goals need the parameter allow_partial_joints_goal: true)"
        raise InvalidJoints(f"{error}{hint}") from None
    tolerances = goal_tolerances(goal, joint_names, settings.defaults)
    points = trajectory.points
    if not points:
        raise Refusal("the trajectory has no points: nothing to follow")
    for index, point in enumerate(points):
        for field in ("velocities", "accelerations"):
            count = len(getattr(point, field))
            if count not in (0, len(names)):
                raise Refusal(
                    f"point {index}: {count} {field} for {len(names)} joint names (give one "
                    "per joint, or none)"
                )
        if len(point.effort):
            raise Refusal(f"point {index}: effort is not supported (hobby servos take positions)")
    for name, velocity in zip(names, points[-1].velocities, strict=False):
        if abs(velocity) > _ERASE_SLACK:
            raise Refusal(
                f"the last point has velocity {velocity:g} rad/s for joint {name}: a trajectory "
                "must end at rest"
            )
    move = FollowMove(
        names=names,
        times=tuple(seconds(p.time_from_start) for p in points),
        positions=tuple(tuple(float(q) for q in p.positions) for p in points),
        velocities=tuple(tuple(float(v) for v in p.velocities) for p in points),
        accelerations=tuple(tuple(float(a) for a in p.accelerations) for p in points),
        hold_missing=settings.allow_partial,
        tolerances=tolerances,
        start_stamp=seconds(trajectory.header.stamp),
    )
    move.scheduled(now)  # refuses an old stamp before anything else happens
    return move


@dataclass
class FollowOutcome(Outcome):
    """An Outcome with the goal's FollowJointTrajectory `error_code`; `holds`: the arm is to be
    held where it stopped (a cancel, a broken tolerance)."""

    error_code: int = FollowResult.SUCCESSFUL
    holds: bool = False


def error_code_of(refusal: Refusal | None) -> int:
    """The error_code of a refused goal: INVALID_JOINTS, OLD_HEADER_TIMESTAMP or INVALID_GOAL."""
    if isinstance(refusal, InvalidJoints):
        return FollowResult.INVALID_JOINTS
    if isinstance(refusal, OldHeaderTimestamp):
        return FollowResult.OLD_HEADER_TIMESTAMP
    return FollowResult.INVALID_GOAL


class GoalEnd(NamedTuple):
    """A finished goal: its error_code and error_string, and its goal status (`succeeded`,
    `canceled` or `aborted`)."""

    error_code: int
    error_string: str
    status: str


def goal_end(outcome: Outcome, refusal: Refusal | None, cancel_requested: bool) -> GoalEnd:
    """How a goal's Outcome ends it: SUCCEEDED only with SUCCESSFUL, CANCELED only for a
    client's cancel (error_code SUCCESSFUL, as the controller's), ABORTED for the rest.

    A plain Outcome comes from the rules every motion shares: refused (the Refusal's code),
    preempted, stopped by the shutdown, without joint_states or by calibration mode
    (INVALID_GOAL, as the controller's preempted and deactivated goals; the message says
    which), joint_states silent while it ran (PATH_TOLERANCE_VIOLATED: the path could not be
    checked).
    """
    status = outcome.status
    if isinstance(outcome, FollowOutcome):
        code = outcome.error_code
    elif status == Result.INVALID_GOAL:
        code = error_code_of(refusal)
    elif status == Result.CANCELED:
        code = FollowResult.SUCCESSFUL
    elif status == Result.HARDWARE_FAULT:
        code = FollowResult.PATH_TOLERANCE_VIOLATED
    else:
        code = FollowResult.INVALID_GOAL
    if status == Result.SUCCEEDED and code == FollowResult.SUCCESSFUL:
        return GoalEnd(code, outcome.message, "succeeded")
    if status == Result.CANCELED and cancel_requested:
        return GoalEnd(FollowResult.SUCCESSFUL, outcome.message, "canceled")
    if code == FollowResult.SUCCESSFUL:  # never ABORTED with SUCCESSFUL
        code = FollowResult.INVALID_GOAL
    return GoalEnd(code, outcome.message, "aborted")


class FeedbackValues(NamedTuple):
    """One feedback: the trajectory's time (s from its time 0, negative before the stamp) at
    which `joint_states` measured `actual` (rad) and `actual_velocity` (rad/s, from
    differences), and where the trajectory wanted the joints then (`desired`, rad, and
    `desired_velocity`, rad/s); every joint of the arm, in its order."""

    time: float
    desired: tuple[float, ...]
    desired_velocity: tuple[float, ...]
    actual: tuple[float, ...]
    actual_velocity: tuple[float, ...]


def feedback_message(
    names: Sequence[str], values: FeedbackValues
) -> FollowJointTrajectory.Feedback:
    """The action's feedback (its header stamp left for the node): desired, actual and their
    difference `error` = desired - actual, positions and velocities."""
    at = duration(values.time)

    def point(positions: Sequence[float], velocities: Sequence[float]) -> JointTrajectoryPoint:
        return JointTrajectoryPoint(
            positions=[float(q) for q in positions],
            velocities=[float(v) for v in velocities],
            time_from_start=at,
        )

    error = [d - a for d, a in zip(values.desired, values.actual, strict=True)]
    error_velocity = [
        d - a for d, a in zip(values.desired_velocity, values.actual_velocity, strict=True)
    ]
    return FollowJointTrajectory.Feedback(
        joint_names=list(names),
        desired=point(values.desired, values.desired_velocity),
        actual=point(values.actual, values.actual_velocity),
        error=point(error, error_velocity),
    )


def _bounds_words(name: str, error: float, bound: float) -> str:
    return (
        f"joint {name} {abs(error):.4f} rad ({math.degrees(abs(error)):.2f} deg) off, beyond "
        f"{bound:.4f} rad ({math.degrees(bound):.2f} deg)"
    )


class FollowWatch:
    """One running goal's checks (a `streaming.StreamWatch`): the path tolerance and feedback
    before every setpoint, then the goal tolerance until the goal time runs out.

    `path` is what is streamed (its time 0 is the stream's start), `offset` the trajectory's
    own time at that start (s: the late start, minus the wait for a future stamp)."""

    def __init__(
        self,
        names: Sequence[str],
        path: TimedJointPath,
        tolerances: Tolerances,
        offset: float,
        monitor: JointStateMonitor,
        period: float,
        watchdog_s: float,
        feedback: Callable[[GoalRun, FeedbackValues], None],
    ) -> None:
        self._names = tuple(names)
        self._path = path
        self._tolerances = tolerances
        self._offset = offset
        self._monitor = monitor
        self._period = period
        self._watchdog_s = watchdog_s
        self._feedback = feedback

    def _values(self, sample: JointSample, started: float) -> FeedbackValues:
        at = sample.received_at - started  # path time of the measurement
        desired, desired_velocity = self._path.at(at)
        return FeedbackValues(
            time=at + self._offset,
            desired=tuple(desired.tolist()),
            desired_velocity=tuple(desired_velocity.tolist()),
            actual=sample.positions,
            actual_velocity=sample.velocities,
        )

    def _beyond(self, values: FeedbackValues, bounds: Sequence[float]) -> list[str]:
        """Words for every joint whose error exceeds its bound (0: not checked)."""
        return [
            _bounds_words(name, d - a, bound)
            for name, d, a, bound in zip(
                self._names, values.desired, values.actual, bounds, strict=True
            )
            if bound > 0.0 and abs(d - a) > bound
        ]

    def check(self, run: GoalRun, started: float) -> Outcome | None:
        """Feedback, then the path tolerance (`streaming.StreamWatch.check`)."""
        sample = self._monitor.sample()
        if sample is None:
            return None
        values = self._values(sample, started)
        self._feedback(run, values)
        beyond = self._beyond(values, self._tolerances.path)
        if not beyond:
            return None
        return FollowOutcome(
            Result.HARDWARE_FAULT,
            f"path tolerance broken {values.time:.2f} s into the trajectory: "
            f"{'; '.join(beyond)} (goal path_tolerance, else the parameter "
            "constraints.<joint>.trajectory_deg); stopped",
            final=sample.positions,
            error_code=FollowResult.PATH_TOLERANCE_VIOLATED,
            holds=True,
        )

    def arrival(self, run: GoalRun, last: tuple[float, ...], count: int, started: float) -> Outcome:
        """After the last setpoint: feedback every period, SUCCESSFUL once every joint is
        within its goal tolerance of `last` from the trajectory's end on, else
        GOAL_TOLERANCE_VIOLATED past the end plus the goal time (`StreamWatch.arrival`)."""
        end = started + self._path.duration
        goal_time = self._tolerances.goal_time
        deadline = end + goal_time - max(0.0, self._offset) if goal_time > 0.0 else math.inf
        tick = started + (count - 1) * self._period  # the last setpoint's
        while True:
            stopped = run.stopped(last)
            if stopped is not None:
                return stopped
            sample = self._monitor.sample()
            now = time.monotonic()
            if sample is None or now - sample.received_at > self._watchdog_s:
                return FollowOutcome(
                    Result.HARDWARE_FAULT,
                    f"joint_states stopped for {self._watchdog_s:g} s after the last setpoint: "
                    f"the goal tolerance cannot be checked (last commanded {format_joints(last)})",
                    final=last,
                    error_code=FollowResult.GOAL_TOLERANCE_VIOLATED,
                )
            values = self._values(sample, started)
            self._feedback(run, values)
            if now >= end:
                errors = [abs(q - a) for q, a in zip(last, sample.positions, strict=True)]
                beyond = self._beyond(values._replace(desired=last), self._tolerances.goal)
                if not beyond:
                    worst = int(np.argmax(errors))
                    return FollowOutcome(
                        Result.SUCCEEDED,
                        f"reached the last point {format_joints(last)} within the goal tolerance "
                        f"{now - started:.2f} s after the start (largest error: joint "
                        f"{self._names[worst]} {errors[worst]:.2g} rad)",
                        final=last,
                    )
                if now > deadline:
                    return FollowOutcome(
                        Result.HARDWARE_FAULT,
                        f"goal tolerance missed {now - end:.2f} s after the trajectory's end "
                        f"(goal_time_tolerance {goal_time:g} s): {'; '.join(beyond)} (goal "
                        "goal_tolerance, else the parameter constraints.<joint>.goal_deg)",
                        final=sample.positions,
                        error_code=FollowResult.GOAL_TOLERANCE_VIOLATED,
                        holds=True,
                    )
            tick = max(tick + self._period, now)
            run.wake.wait(max(0.0, tick - time.monotonic()))


class TrajectoryFollower:
    """FollowJointTrajectory goals from their checks to their outcome, for the node: `validate`
    when one comes, `run` once it holds the motion.

    `now()` is the node clock (s), `hold(joints)` commands the arm to stay at `joints` (rad),
    `feedback(run, values)` publishes one feedback of the goal `run`; `envelope` the arm's
    workspace envelope the trajectory's stream must stay inside (None: none).
    """

    def __init__(
        self,
        config: ArmConfig,
        settings: FollowSettings,
        stream: SetpointStream,
        monitor: JointStateMonitor,
        now: Callable[[], float],
        hold: Callable[[Sequence[float]], object],
        feedback: Callable[[GoalRun, FeedbackValues], None],
        forward: Callable[[Sequence[float]], tuple[float, ...]],
        envelope: Envelope | None = None,
    ) -> None:
        self.config = config
        self.envelope = envelope
        self.settings = settings
        self._stream = stream
        self._monitor = monitor
        self._now = now
        self._hold = hold
        self._feedback = feedback
        self._forward = forward

    def validate(
        self, goal: FollowJointTrajectory.Goal, current: tuple[float, ...] | None
    ) -> FollowMove:
        """The goal as a FollowMove, checked whole from the joints `current` (rad; None: no
        joint_states came in time); a Refusal (its class names the error_code) says why not."""
        now = self._now()
        move = follow_move(goal, self.settings, self.config.joint_names, now)
        scheduled, _ = move.scheduled(now)
        scheduled.check(self.config, current, self.envelope)
        return move

    def run(self, run: GoalRun, move: FollowMove, start: tuple[float, ...]) -> Outcome:
        """Check `move` again from `start` (rad, the pose now), stream it with its checks, and
        hold the arm where it is if it was canceled or broke a tolerance; its outcome."""
        try:
            scheduled, late = move.scheduled(self._now())
            path = scheduled.check(self.config, start, self.envelope)
        except Refusal as refusal:
            return FollowOutcome(
                Result.INVALID_GOAL,
                f"refused: {refusal}; nothing moved",
                final=start,
                error_code=error_code_of(refusal),
            )
        period = self._stream.settings.period
        setpoints = trajectory_setpoints(path, self.config.motion_limits(), self._forward)
        watch = FollowWatch(
            self.config.joint_names,
            path,
            move.tolerances,
            late - (scheduled.times[0] - move.times[0]),
            self._monitor,
            period,
            self._stream.settings.watchdog_s,
            self._feedback,
        )
        outcome = self._stream.run(run, setpoints, start, len(move), watch)
        if outcome.status == Result.CANCELED:
            outcome = FollowOutcome(
                Result.CANCELED,
                outcome.message,
                error_code=FollowResult.SUCCESSFUL,
                holds=True,
                commanded=outcome.commanded,
            )
        if isinstance(outcome, FollowOutcome) and outcome.holds:
            # Where the arm came to rest: the joints that move freely finish the setpoint
            # already sent, a blocked one stays at its obstacle and is commanded there.
            commanded = outcome.commanded or start
            here = self._monitor.wait_still(SETTLE_S) or self._monitor.latest() or start
            if any(abs(a - b) > HOLD_SLACK for a, b in zip(here, commanded, strict=True)):
                self._hold(here)
            held = f"{outcome.message}; the arm holds at {format_joints(here)}"
            outcome = replace(outcome, message=held, final=here)
        return outcome
