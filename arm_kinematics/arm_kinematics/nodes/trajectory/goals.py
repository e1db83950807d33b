"""A motion from acceptance to its outcome: validation, admission and preemption.

A motion is a MoveArm goal (or a clicked point, which is one without a goal handle), a joint
trajectory from another planner (`trajectory_msgs/JointTrajectory`), a FollowJointTrajectory
goal or a jog (`nodes/servo/control.py`). Every kind follows one rule: a valid newer motion
preempts the running one, one motion holds the arm at a time, and a refused one disturbs
nobody; the stop service stops them all (`stop_all`).

No rclpy here (message types only): the node passes goals in and turns outcomes into
MoveArm results. Units: metres, radians, seconds (monotonic).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rclpy.action import CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.impl.rcutils_logger import RcutilsLogger
from trajectory_msgs.msg import JointTrajectory

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Envelope, PlanOptions
from arm_kinematics.kinematics.planning.joint_trajectory import (
    JointNamesError,
    JointTrajectoryError,
    check_joint_trajectory,
)
from arm_kinematics.kinematics.planning.timed_joint_path import TimedJointPath
from arm_kinematics.nodes.messages import constant_names
from arm_kinematics.nodes.refusals import InvalidJoints, Refusal
from arm_kinematics.nodes.targets import waypoint_tool_angles
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics_interfaces.action import MoveArm

Result = MoveArm.Result

#: MoveArm result status value -> constant name.
STATUS_NAMES = constant_names(
    Result,
    (
        "SUCCEEDED",
        "INVALID_GOAL",
        "IK_FAILED",
        "JOINT_JUMP",
        "CANCELED",
        "PREEMPTED",
        "IK_UNAVAILABLE",
        "HARDWARE_FAULT",
        "NO_JOINT_STATE",
        "SHUTDOWN",
        "CALIBRATING",
    ),
)
MODE_NAMES = {MoveArm.Goal.LINEAR: "LINEAR", MoveArm.Goal.JOINT: "JOINT"}

POLL_S = 0.05
"""Longest uninterrupted wait for something that has no event of its own (seconds)."""
SHUTDOWN_REASON = "the trajectory node is shutting down"


def status_name(status: int) -> str:
    """Name of a MoveArm result status ("UNKNOWN(42)" for a value the action does not define)."""
    return STATUS_NAMES.get(status, f"UNKNOWN({status})")


def format_joints(joints: tuple[float, ...]) -> str:
    """'(30.00, 45.00) deg' for joints in radians."""
    return "(" + ", ".join(f"{math.degrees(q):.2f}" for q in joints) + ") deg"


@dataclass(frozen=True)
class Move:
    """A validated goal: the target as the planner's tool pose in the base frame (a planar
    arm's (x, y[, heading]), a spatial arm's (x, y, z[, pitch[, roll]]); metres, radians), how
    to plan it (`options`: the step, the branch-flip step, and the limits: for LINEAR the tool
    speed the goal asked, for JOINT the joint velocity limits times its speed fraction), and
    the LINEAR waypoints passed through before the target (poses alike). `joints`: a named
    pose's joints (rad, the arm's order) the move ends at: a JOINT move goes there without IK,
    a LINEAR move's line ends where they put the tool and must arrive at them."""

    mode: int
    target: tuple[float, ...]
    options: PlanOptions
    waypoints: tuple[tuple[float, ...], ...] = ()
    joints: tuple[float, ...] | None = None


@dataclass(frozen=True)
class TrajectoryMove:
    """A joint trajectory to check against the start pose and stream: joint names, times (s
    from the start), positions (rad, one row per point in the order of `names`) and each
    point's velocities (rad/s) and accelerations (rad/s^2), empty where it gives none. With
    `hold_missing` the arm's joints it leaves out keep their start position (partial goals)."""

    names: tuple[str, ...]
    times: tuple[float, ...]
    positions: tuple[tuple[float, ...], ...]
    hold_missing: bool = False
    velocities: tuple[tuple[float, ...], ...] = ()
    accelerations: tuple[tuple[float, ...], ...] = ()

    @classmethod
    def from_message(cls, msg: JointTrajectory) -> TrajectoryMove:
        """The plain trajectory of a message (its velocities and accelerations shape the
        motion between its points: `check_joint_trajectory`)."""
        return cls(
            names=tuple(msg.joint_names),
            times=tuple(
                p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in msg.points
            ),
            positions=tuple(tuple(float(q) for q in p.positions) for p in msg.points),
            velocities=tuple(tuple(float(v) for v in p.velocities) for p in msg.points),
            accelerations=tuple(tuple(float(a) for a in p.accelerations) for p in msg.points),
        )

    def __len__(self) -> int:
        return len(self.times)

    def check(
        self,
        config: ArmConfig,
        current: tuple[float, ...] | None,
        envelope: Envelope | None = None,
    ) -> TimedJointPath:
        """The trajectory checked whole from the joints `current` (rad; None: no joint_states
        came in time), its stream inside `envelope` (the arm's workspace envelope; None: none);
        a Refusal naming the point and joint, or the place and the part, says why not
        (InvalidJoints for the joint names)."""
        if current is None:
            raise Refusal(
                f"no joint_states within {config.trajectory.joint_state_timeout_s:g} s, so no "
                "start pose to check it from"
            )
        try:
            return check_joint_trajectory(
                self.names,
                self.times,
                self.positions,
                joint_names=config.joint_names,
                joint_limits=config.joint_limits,
                limits=config.motion_limits(),
                current=current,
                hold_missing=self.hold_missing,
                velocities=self.velocities or None,
                accelerations=self.accelerations or None,
                envelope=envelope,
            )
        except JointNamesError as error:
            raise InvalidJoints(str(error)) from None
        except JointTrajectoryError as error:
            raise Refusal(str(error)) from None


@dataclass
class Outcome:
    """How a goal ended: a MoveArm result status and its fields, in plain Python.

    `final` is the joints at the end (radians, the last commanded point), None when unknown;
    `path_points` (M, 2|3) the planned points when the plan failed at `failed_step` (for the
    abort markers); `commanded` the last setpoint a stream sent (None: none).
    """

    status: int
    message: str
    final: tuple[float, ...] | None = None
    ik_status: int = 0  # SolveIK OK
    failed_step: int = 0
    total_steps: int = 0
    feasible_fraction: float = 0.0
    sent_setpoints: int = 0
    total_setpoints: int = 0
    failed_point: tuple[float, ...] | None = None
    path_points: object = None
    commanded: tuple[float, ...] | None = None


#: A named pose's Move: (name, mode, options) -> Move, or a Refusal (unknown, not valid here).
NamedMove = Callable[[str, int, PlanOptions], Move]


def validate(
    goal: MoveArm.Goal,
    config: ArmConfig,
    max_waypoints: int | None = None,
    poses: ToolPoses | None = None,
    named: NamedMove | None = None,
) -> Move:
    """The goal as a Move in the base frame; a Refusal says why it is INVALID_GOAL.

    The target and waypoints may be stamped in the base frame or the mount's parent frame
    (`poses.goal`: `targets.TargetCheck`, the same check as the IK node's); at most
    `max_waypoints` waypoints (None: no limit). `poses`: the node's (None: the config's arm).
    A goal's `named_pose` is looked up through `named` (None: no named poses here).
    """
    poses = poses or ToolPoses(config.make_arm(), config)
    if goal.mode not in MODE_NAMES:
        raise Refusal(f"unknown mode {goal.mode}: use LINEAR (0) or JOINT (1)")
    for name, value in (("speed", goal.speed), ("max_step", goal.max_step)):
        if not math.isfinite(value):
            raise Refusal(f"{name} = {value} is not finite")
        if value < 0:
            raise Refusal(f"{name} = {value:g} is negative (0 means the default)")
    if goal.named_pose:
        if goal.waypoints:
            raise Refusal("a named pose is gone to from where the arm is: give no waypoints")
        if named is None:
            raise Refusal("this node has no named poses")
        return named(goal.named_pose, goal.mode, move_options(goal, config))
    if goal.waypoints and goal.mode != MoveArm.Goal.LINEAR:
        raise Refusal("waypoints are for LINEAR moves only")
    if max_waypoints is not None and len(goal.waypoints) > max_waypoints:
        raise Refusal(
            f"{len(goal.waypoints)} waypoints: the most is max_waypoints = {max_waypoints}"
        )
    mode = goal.orientation_mode
    angles = waypoint_tool_angles(mode, len(goal.waypoints), goal.waypoint_tool_angles)
    frame = goal.target.header.frame_id
    target = poses.goal(frame, goal.target.pose, mode, goal.tool_angle)
    waypoints = tuple(
        poses.goal(frame, pose, mode, angle, f"waypoint {index}")
        for index, (pose, angle) in enumerate(zip(goal.waypoints, angles, strict=True))
    )
    return Move(mode=goal.mode, target=target, options=move_options(goal, config),
                waypoints=waypoints)  # fmt: skip


def move_options(goal: MoveArm.Goal, config: ArmConfig) -> PlanOptions:
    """How a goal is planned: its `speed` (0: the default) is the tool speed in m/s in LINEAR
    mode and a fraction (0, 1] of the joint velocity limits in JOINT mode; a Refusal for a
    JOINT fraction above 1."""
    return plan_options(config, goal.mode, goal.speed, goal.max_step)


def plan_options(config: ArmConfig, mode: int, speed: float, max_step: float = 0.0) -> PlanOptions:
    """The `PlanOptions` of a move in `mode` (LINEAR, JOINT) at `speed` (LINEAR: m/s, JOINT: a
    fraction (0, 1] of the joint velocity limits; 0: the configured default) in steps of
    `max_step` m (0: the default); a Refusal for a JOINT fraction above 1."""
    trajectory = config.trajectory
    options = dict(
        max_step=max_step or trajectory.default_max_step,
        max_joint_step=trajectory.max_joint_step,
    )
    if mode == MoveArm.Goal.LINEAR:
        limits = config.motion_limits(tool_speed=speed or trajectory.default_speed)
        return PlanOptions(limits=limits, **options)
    fraction = speed or trajectory.default_joint_speed_fraction
    if fraction > 1.0:
        raise Refusal(
            f"speed = {fraction:g}: in JOINT mode it is a fraction (0, 1] of the joint "
            "velocity limits"
        )
    return PlanOptions(limits=config.motion_limits().scaled(fraction), **options)


def invalid_goal(refusal: Refusal, final: tuple[float, ...] | None = None) -> Outcome:
    """The one way a Refusal ends a goal: INVALID_GOAL with its words (the arm stays at
    `final`, rad, when known)."""
    return Outcome(Result.INVALID_GOAL, refusal.message, final=final)


@dataclass
class GoalTiming:
    """Timings of a goal that streamed (monotonic seconds), for its log line and tests."""

    ik_s: float = 0.0  # the solve_ik_batch round trips, in all
    ik_calls: int = 0
    first_setpoint_at: float = math.nan
    publish_times: list[float] = field(default_factory=list)


@dataclass
class GoalRun:
    """One admitted goal (an action goal, or a clicked point without a goal handle), and the
    stop request other callbacks make. `move` is None for a refused goal, then `refusal`
    says why."""

    key: bytes
    move: Move | TrajectoryMove | None
    refusal: Refusal | None
    label: str = "goal"  # for log lines
    accepted_at: float = field(default_factory=time.monotonic)
    wake: threading.Event = field(default_factory=threading.Event)
    stop_status: int | None = None  # CANCELED, PREEMPTED or SHUTDOWN, set once, then `wake`
    stop_reason: str = ""
    timing: GoalTiming = field(default_factory=GoalTiming)

    def stop(self, status: int, reason: str) -> None:
        if self.stop_status is None:
            self.stop_status = status
            self.stop_reason = reason
        self.wake.set()

    def stopped(self, last: tuple[float, ...] | None, how: str = "") -> Outcome | None:
        """The outcome of a stopped goal (the arm stays at `last`; `how` it stopped, e.g.
        "decelerated along the path in 0.24 s"), else None."""
        if self.stop_status is None:
            return None
        where = f"; the arm stays at {format_joints(last)}" if last is not None else ""
        how = f"; {how}" if how else ""
        return Outcome(self.stop_status, self.stop_reason + how + where, final=last)


class Admission:
    """Which goals exist and which one may move the arm.

    A valid goal becomes the active one at once and stops the goal before it (PREEMPTED); an
    invalid goal is registered (so that it gets its INVALID_GOAL result) without disturbing
    anyone. Only one goal holds the motion (plans and streams) at a time; a preempted goal
    gives it up within one tick of its stream. While `hold` is on (the hardware node is in
    calibration mode) every valid motion is stopped as it comes (CALIBRATING, the hold's
    reason) and so is the one running when the hold begins.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._runs: dict[bytes, GoalRun] = {}
        self._active: GoalRun | None = None
        self._closing = False
        self._held: str | None = None  # why every motion is refused now (calibration)
        self._motion = threading.Lock()

    def admit(self, key: bytes, move: Move | TrajectoryMove, label: str = "goal") -> GoalRun:
        """Register a valid goal (a Move or a checked TrajectoryMove): it preempts the active
        one."""
        return self._register(GoalRun(key=key, move=move, refusal=None, label=label))

    def refuse(self, key: bytes, refusal: Refusal, label: str = "goal") -> GoalRun:
        """Register a refused goal, so that it gets its INVALID_GOAL result; it disturbs
        nobody."""
        return self._register(GoalRun(key=key, move=None, refusal=refusal, label=label))

    def _register(self, run: GoalRun) -> GoalRun:
        label, key = run.label, run.key
        with self._lock:
            if self._closing:
                run.stop(Result.SHUTDOWN, SHUTDOWN_REASON)
            elif self._held is not None and run.move is not None:
                run.stop(Result.CALIBRATING, self._held)  # refused: nobody is disturbed
            elif run.move is not None:
                previous, self._active = self._active, run
                if previous is not None:
                    previous.stop(Result.PREEMPTED, f"preempted by a newer {label}")
            self._runs[key] = run
        return run

    def stop_active(self, reason: str) -> GoalRun | None:
        """Stop the active motion (PREEMPTED, with `reason`), as an empty joint trajectory
        asks: the arm stays at its last commanded point. The stopped run, or None."""
        with self._lock:
            previous, self._active = self._active, None
        if previous is not None:
            previous.stop(Result.PREEMPTED, reason)
        return previous

    def stop_all(self, reason: str) -> list[GoalRun]:
        """Stop every motion, the active one and those still waiting for the arm (PREEMPTED,
        `reason`), as the stop service asks; later motions are admitted as ever. The runs
        stopped."""
        with self._lock:
            self._active = None
            runs = [r for r in self._runs.values() if r.move is not None and r.stop_status is None]
        for run in runs:
            run.stop(Result.PREEMPTED, reason)
        return runs

    def hold(self, reason: str) -> GoalRun | None:
        """Refuse every motion from now on (CALIBRATING, `reason`) and stop the active one;
        the stopped run, or None."""
        with self._lock:
            self._held = reason
            previous, self._active = self._active, None
        if previous is not None:
            previous.stop(Result.CALIBRATING, reason)
        return previous

    def release_hold(self) -> None:
        """Motions are admitted again."""
        with self._lock:
            self._held = None

    @property
    def held(self) -> bool:
        return self._held is not None

    @property
    def active(self) -> GoalRun | None:
        """The motion that holds the arm or is about to (the newest admitted), if any."""
        with self._lock:
            return self._active

    def find(self, key: bytes) -> GoalRun | None:
        with self._lock:
            return self._runs.get(key)

    def cancel(self, key: bytes) -> None:
        run = self.find(key)
        if run is not None:
            run.stop(Result.CANCELED, "canceled by the client")

    def take_motion(self, run: GoalRun) -> bool:
        """Wait until `run` may move the arm; False (without it) once `run` is stopped."""
        while not self._motion.acquire(timeout=POLL_S):
            if run.stop_status is not None:
                return False
        if run.stop_status is not None:
            self._motion.release()
            return False
        return True

    def release_motion(self) -> None:
        self._motion.release()

    def finish(self, run: GoalRun) -> None:
        """`run` has its outcome: forget it."""
        with self._lock:
            self._runs.pop(run.key, None)
            if self._active is run:
                self._active = None
            self._idle.notify_all()

    @property
    def closing(self) -> bool:
        """True once `close` was called: every new motion is refused."""
        return self._closing

    def cancel_response(self, handle: ServerGoalHandle) -> CancelResponse:
        """An action server's answer to a cancel of `handle`'s goal: its run stops (decelerating
        along its path), and the cancel is accepted."""
        self.cancel(bytes(handle.goal_id.uuid))
        return CancelResponse.ACCEPT

    def admitted_run(self, handle: ServerGoalHandle) -> GoalRun:
        """The run of `handle`'s goal, admitted (or refused) when it was accepted."""
        run = self.find(bytes(handle.goal_id.uuid))
        assert run is not None  # admitted by the server's accept callback before execute
        return run

    def goal_response(self, logger: RcutilsLogger, label: str) -> GoalResponse:
        """An action server's answer to a new goal of `label`: REJECT (said in the log) once
        the node is closing, else ACCEPT (the checks come after, with a result that says why)."""
        if self._closing:
            logger.warning(f"{label} rejected: the trajectory node is shutting down")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def close(self, timeout: float) -> bool:
        """Stop every goal (SHUTDOWN) and refuse new ones; wait up to `timeout` s until they
        finished. True if they all did."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._closing = True
            for run in self._runs.values():
                run.stop(Result.SHUTDOWN, SHUTDOWN_REASON)
            while self._runs and time.monotonic() < deadline:
                self._idle.wait(timeout=max(0.0, deadline - time.monotonic()))
            return not self._runs
