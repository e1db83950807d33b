"""`trajectory_node`: the MoveArm action. Straight-line (or joint-space) moves, planned whole
before anything moves, then streamed to `joint_commands` at the command rate.

Interfaces (relative names, so a namespace moves them all):
- action server `move_arm` (arm_kinematics_interfaces/action/MoveArm);
- subscription `joint_states` (sensor_msgs/JointState): the start pose and the hardware watchdog;
- publisher `joint_commands` (sensor_msgs/JointState, names + positions in radians);
- client `solve_ik_batch` (the IK node): every planned point is solved there in one call;
- subscription `clicked_point` (geometry_msgs/PointStamped, RViz's "Publish Point"): a LINEAR
  move to the clicked point at the default speed;
- publisher `trajectory_markers` (visualization_msgs/MarkerArray, transient local): the planned
  path, and on an abort the feasible part, the failing step and its status.

Goal lifecycle: validate -> start pose from the latest joint_states -> plan (IK of every point
through `solve_ik_batch`, joint-jump check, resampling into setpoints on the line within the
joint velocity limits) -> stream -> wait until joint_states reach the last setpoint. Any
failure before streaming aborts with nothing sent to the arm.

One goal moves the arm at a time. A new VALID goal preempts the running one at once (the old goal
ends PREEMPTED with the arm left at its last commanded point, then the new one is planned from
there); an invalid goal is refused with INVALID_GOAL and does not disturb the running one.
Cancel stops streaming at once (CANCELED, the arm stays at the last commanded point).

Threading: the action's execute callback runs on the runner's WorkerBoundExecutor and waits
only on events with timeouts (the IK answer, the next tick, a fresh joint_states), so the
callbacks it needs (IK response, joint_states, cancel, a preempting goal) run on other threads.
"""

from __future__ import annotations

import array
import math
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import NoReturn

import numpy as np
from geometry_msgs.msg import Point, PointStamped
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from arm_kinematics.kinematics import (
    LinePath,
    PlanStatus,
    ResampleError,
    Setpoints,
    first_joint_jump,
    joint_setpoints,
    resample_line,
)
from arm_kinematics.nodes.action_client import destroy_actions
from arm_kinematics.nodes.messages import (
    JointStateError,
    OrientationError,
    joint_positions,
    joint_state,
    quaternion_to_heading,
    solve_ik_status_name,
)
from arm_kinematics.nodes.params import declare_arm_parameters
from arm_kinematics.nodes.runner import run_node
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

Result = MoveArm.Result

#: MoveArm result status value -> constant name.
STATUS_NAMES = {
    getattr(Result, name): name
    for name in (
        "SUCCEEDED",
        "INVALID_GOAL",
        "IK_FAILED",
        "JOINT_JUMP",
        "CANCELED",
        "PREEMPTED",
        "IK_UNAVAILABLE",
        "HARDWARE_FAULT",
        "NO_JOINT_STATE",
    )
}
MODE_NAMES = {MoveArm.Goal.LINEAR: "LINEAR", MoveArm.Goal.JOINT: "JOINT"}

#: Refuse goals that would need more IK points or setpoints than this (memory and planning
#: time grow with them; raise max_step or speed instead).
MAX_PLAN_POINTS = 200_000
MAX_SETPOINTS = 500_000

#: Feedback goes out with the first setpoint, then at most every FEEDBACK_PERIOD_S, and with
#: the last: enough for a progress display, without a client callback per setpoint.
FEEDBACK_PERIOD_S = 0.1
_POLL_S = 0.05  # longest uninterrupted wait while waiting for something that has no event


def status_name(status: int) -> str:
    """Name of a MoveArm result status ("UNKNOWN(42)" for a value the action does not define)."""
    return STATUS_NAMES.get(status, f"UNKNOWN({status})")


class _GoalError(ValueError):
    """A goal that cannot be executed as sent (INVALID_GOAL); the message says why."""


@dataclass(frozen=True)
class _Move:
    """A validated goal: target in the base frame (metres, radians), speed, step."""

    mode: int
    x: float
    y: float
    heading: float | None
    speed: float  # m/s (LINEAR) or fraction of the joint velocity limits (JOINT)
    max_step: float  # m


@dataclass
class GoalTiming:
    """Timings of the last goal that streamed (monotonic seconds), for its log line and tests."""

    ik_s: float = math.nan  # the solve_ik_batch round trip
    first_setpoint_at: float = math.nan
    publish_times: list[float] = field(default_factory=list)


@dataclass
class _Run:
    """One accepted goal (an action goal, or a clicked point without a goal handle) and the
    flags other callbacks use to stop it."""

    key: bytes
    handle: ServerGoalHandle | None
    move: _Move | None
    error: str | None
    accepted_at: float
    wake: threading.Event = field(default_factory=threading.Event)
    label: str = "goal"  # for log lines
    stop_status: int | None = None  # CANCELED, PREEMPTED (set once, then `wake` is set)
    stop_reason: str = ""
    timing: GoalTiming = field(default_factory=GoalTiming)

    def stop(self, status: int, reason: str) -> None:
        if self.stop_status is None:
            self.stop_status = status
            self.stop_reason = reason
        self.wake.set()


class _GoalEndError(Exception):
    """Ends a goal early with a filled Result (raised from deep inside planning/streaming)."""

    def __init__(self, result: MoveArm.Result) -> None:
        super().__init__(result.message)
        self.result = result


class TrajectoryNode(Node):
    """Plans and streams MoveArm goals; see the module docstring."""

    def __init__(self, **kwargs) -> None:
        super().__init__("trajectory_node", **kwargs)
        self.config = declare_arm_parameters(self)
        self.arm = self.config.make_arm()
        self._trajectory = self.config.trajectory
        self._names = list(self.config.joint_names)
        self._period = 1.0 / self._trajectory.command_rate_hz
        self.last_timing = GoalTiming()

        self._state_lock = threading.Condition()
        self._state: tuple[float, tuple[float, ...]] | None = None  # (monotonic, joints)
        self._goal_lock = threading.Lock()
        self._motion_lock = threading.Lock()  # held by the goal that plans/moves the arm
        self._runs: dict[bytes, _Run] = {}
        self._active: _Run | None = None  # newest valid goal: the only one allowed to move
        self._idle = threading.Condition(self._goal_lock)
        self._closing = False

        group = ReentrantCallbackGroup()
        # A second of setpoints: a subscriber that stalls briefly still gets every one.
        self._commands = self.create_publisher(JointState, "joint_commands", 50)
        self._markers = self.create_publisher(
            MarkerArray,
            "trajectory_markers",
            QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL),
        )
        self.create_subscription(
            JointState, "joint_states", self._on_joint_state, 10, callback_group=group
        )
        self._ik = self.create_client(SolveIKBatch, "solve_ik_batch", callback_group=group)
        self._server = ActionServer(
            self,
            MoveArm,
            "move_arm",
            execute_callback=self._execute,
            goal_callback=lambda _goal: GoalResponse.ACCEPT,
            handle_accepted_callback=self._on_accepted,
            cancel_callback=self._on_cancel,
            callback_group=group,
        )
        # RViz's "Publish Point": a LINEAR move at the default speed, validated, preempting and
        # preempted like an action goal (it has no goal handle, so no feedback or result).
        self.create_subscription(
            PointStamped, "clicked_point", self._on_clicked_point, 10, callback_group=group
        )
        action = self.resolve_topic_name("move_arm")  # resolved as rcl_action resolves it
        self.get_logger().info(
            f"trajectory_node ready: action '{action}', joints {self._names}, "
            f"{self._trajectory.command_rate_hz:g} Hz setpoints, default "
            f"{self._trajectory.default_speed:g} m/s in steps of "
            f"{self._trajectory.default_max_step * 1000:g} mm"
        )

    # --- inputs ----------------------------------------------------------------------------

    def _on_joint_state(self, msg: JointState) -> None:
        try:
            joints = joint_positions(msg, self._names, allow_unknown=True)
        except JointStateError as error:
            self.get_logger().warning(f"ignoring joint_states: {error}", throttle_duration_sec=5.0)
            return
        with self._state_lock:
            self._state = (time.monotonic(), joints)
            self._state_lock.notify_all()

    def _on_clicked_point(self, msg: PointStamped) -> None:
        p = msg.point
        self.get_logger().info(
            f"clicked point ({p.x:.4f}, {p.y:.4f}, {p.z:.4f}) in '{msg.header.frame_id}': "
            "moving there in a straight line"
        )
        goal = MoveArm.Goal(mode=MoveArm.Goal.LINEAR)
        goal.target.header = msg.header
        goal.target.pose.position = p
        goal.target.pose.orientation.w = 1.0
        run = self._admit(uuid.uuid4().bytes, None, goal, "clicked point move")
        # Its own thread, not an executor worker: a move lasts seconds.
        threading.Thread(target=self._finish, args=(run,), daemon=True).start()

    # --- goal lifecycle --------------------------------------------------------------------

    def _admit(
        self, key: bytes, handle: ServerGoalHandle | None, goal: MoveArm.Goal, label: str
    ) -> _Run:
        """Validate a goal and register it; a valid one preempts the goal that runs."""
        try:
            move, error = self._validate(goal), None
        except _GoalError as problem:
            move, error = None, str(problem)
        run = _Run(
            key=key,
            handle=handle,
            move=move,
            error=error,
            accepted_at=time.monotonic(),
            label=label,
        )
        with self._goal_lock:
            if self._closing:
                run.stop(Result.CANCELED, "the node is shutting down")
            elif move is not None:
                previous, self._active = self._active, run
                if previous is not None:
                    previous.stop(Result.PREEMPTED, "preempted by a newer goal")
            self._runs[key] = run
        return run

    def _on_accepted(self, handle: ServerGoalHandle) -> None:
        self._admit(bytes(handle.goal_id.uuid), handle, handle.request, "goal")
        handle.execute()

    def _on_cancel(self, handle: ServerGoalHandle) -> CancelResponse:
        with self._goal_lock:
            run = self._runs.get(bytes(handle.goal_id.uuid))
        if run is not None:
            run.stop(Result.CANCELED, "canceled by the client")
        return CancelResponse.ACCEPT

    def _execute(self, handle: ServerGoalHandle) -> MoveArm.Result:
        with self._goal_lock:
            run = self._runs[bytes(handle.goal_id.uuid)]
        result = self._finish(run)
        if result.status == Result.SUCCEEDED:
            handle.succeed()
        elif result.status == Result.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        return result

    def _finish(self, run: _Run) -> MoveArm.Result:
        """Run a goal to its end; its result (also logged). Never raises."""
        try:
            result = self._run(run)
        except _GoalEndError as outcome:
            result = outcome.result
        except Exception as error:  # never let a bug leave the goal hanging or kill the node
            self.get_logger().error(f"{run.label} failed unexpectedly: {error!r}")
            result = self._result(Result.HARDWARE_FAULT, f"internal error: {error!r}")
            result.final_joints = self._joint_state_msg(self._latest_joints())
        finally:
            with self._goal_lock:
                self._runs.pop(run.key, None)
                if self._active is run:
                    self._active = None
                self._idle.notify_all()
        line = f"{run.label} {status_name(result.status)}: {result.message}"
        if result.status in (Result.SUCCEEDED, Result.CANCELED, Result.PREEMPTED):
            self.get_logger().info(line)
        else:
            self.get_logger().warning(line)
        return result

    def _run(self, run: _Run) -> MoveArm.Result:
        if run.error is not None:
            return self._result(Result.INVALID_GOAL, run.error)
        move = run.move
        assert move is not None
        # One goal plans and moves at a time; a preempted goal leaves within one tick.
        while not self._motion_lock.acquire(timeout=_POLL_S):
            self._check_stop(run, self._latest_joints())
        try:
            self._check_stop(run, self._latest_joints())
            self.get_logger().info(
                f"goal {MODE_NAMES[move.mode]} to ({move.x:.4f}, {move.y:.4f})"
                + (
                    f" heading {math.degrees(move.heading):.2f} deg"
                    if move.heading is not None
                    else ""
                )
            )
            start = self._start_joints(run)
            if move.mode == MoveArm.Goal.LINEAR:
                setpoints, total_steps = self._plan_line(run, move, start)
            else:
                setpoints, total_steps = self._plan_joint(run, move, start)
            return self._stream(run, setpoints, total_steps, start)
        finally:
            self._motion_lock.release()

    # --- validation ------------------------------------------------------------------------

    def _validate(self, goal: MoveArm.Goal) -> _Move:
        """The goal as a _Move, or _GoalError saying what is wrong with it."""
        frame = goal.target.header.frame_id
        base = self.config.base_frame
        if frame not in ("", base):
            raise _GoalError(f"target frame '{frame}' is not the arm's base frame '{base}'")
        if goal.mode not in MODE_NAMES:
            raise _GoalError(f"unknown mode {goal.mode}: use LINEAR (0) or JOINT (1)")
        p = goal.target.pose.position
        for name, value in (("x", p.x), ("y", p.y), ("z", p.z)):
            if not math.isfinite(value):
                raise _GoalError(f"target position {name} = {value} is not finite")
        for name, value in (("speed", goal.speed), ("max_step", goal.max_step)):
            if not math.isfinite(value):
                raise _GoalError(f"{name} = {value} is not finite")
            if value < 0:
                raise _GoalError(f"{name} = {value:g} is negative (0 means the default)")
        off_plane = abs(p.z - self.config.plane_z)
        if off_plane > self.config.plane_tolerance:
            raise _GoalError(
                f"target z = {p.z:g} m is {off_plane:.4g} m off the arm's plane "
                f"(z = {self.config.plane_z:g} +- {self.config.plane_tolerance:g} m)"
            )
        heading = None
        if goal.use_heading:
            try:
                heading = quaternion_to_heading(goal.target.pose.orientation)
            except OrientationError as error:
                raise _GoalError(str(error)) from None
        trajectory = self._trajectory
        if goal.mode == MoveArm.Goal.LINEAR:
            speed = goal.speed or trajectory.default_speed
        else:
            speed = goal.speed or trajectory.default_joint_speed_fraction
            if speed > 1.0:
                raise _GoalError(
                    f"speed = {speed:g}: in JOINT mode it is a fraction (0, 1] of the joint "
                    "velocity limits"
                )
        return _Move(
            mode=goal.mode,
            x=p.x,
            y=p.y,
            heading=heading,
            speed=speed,
            max_step=goal.max_step or trajectory.default_max_step,
        )

    # --- start pose ------------------------------------------------------------------------

    def _latest_joints(self) -> tuple[float, ...] | None:
        with self._state_lock:
            return None if self._state is None else self._state[1]

    def _start_joints(self, run: _Run) -> tuple[float, ...]:
        """The latest joint_states if it is fresh, else the next one within the timeout."""
        timeout = self._trajectory.joint_state_timeout_s
        deadline = time.monotonic() + timeout
        while True:
            with self._state_lock:
                state = self._state
                if state is not None and time.monotonic() - state[0] <= timeout:
                    return state[1]
                self._state_lock.wait(timeout=min(_POLL_S, max(0.0, deadline - time.monotonic())))
            self._check_stop(run, None)
            if time.monotonic() >= deadline:
                raise _GoalEndError(
                    self._result(
                        Result.NO_JOINT_STATE,
                        f"no joint_states for {timeout:g} s on "
                        f"'{self.resolve_topic_name('joint_states')}' (is the hardware node "
                        "running?): nothing moved",
                    )
                )

    # --- planning --------------------------------------------------------------------------

    def _plan_line(self, run: _Run, move: _Move, start: tuple[float, ...]) -> tuple[Setpoints, int]:
        """The setpoints of a LINEAR move and the number of planned IK points."""
        x0, y0, h0 = self.arm.forward(start)
        path = LinePath(
            (x0, y0),
            (move.x, move.y),
            h0 if move.heading is not None else None,
            move.heading,
        )
        count = path.step_count(move.max_step, heading_radius=self.arm.link_lengths[-1])
        if count > MAX_PLAN_POINTS:
            raise _GoalEndError(
                self._result(
                    Result.INVALID_GOAL,
                    f"the line needs {count} points of max_step {move.max_step:g} m; the most "
                    f"is {MAX_PLAN_POINTS}: use a larger max_step",
                )
            )
        expected_setpoints = path.length / (move.speed * self._period)
        if expected_setpoints > MAX_SETPOINTS:
            raise _GoalEndError(
                self._result(
                    Result.INVALID_GOAL,
                    f"at {move.speed:g} m/s the move would take "
                    f"{expected_setpoints * self._period:.0f} s ({expected_setpoints:.0f} "
                    f"setpoints, the most is {MAX_SETPOINTS}): use a higher speed",
                )
            )
        points = path.points(count)
        joints, statuses = self._solve_points(run, points, start, move.heading is not None)
        jump, joints = first_joint_jump(self.arm, start, joints, self._trajectory.max_joint_step)
        if jump is not None:
            previous = start if jump == 0 else joints[jump - 1]
            size = float(np.max(np.abs(joints[jump] - np.asarray(previous))))
            self._abort_plan(
                run,
                Result.JOINT_JUMP,
                statuses[jump],
                jump,
                points,
                start,
                f"step {jump} of {count} at {self._format_point(points[jump])} moves a joint "
                f"{math.degrees(size):.1f} deg (more than max_joint_step "
                f"{math.degrees(self._trajectory.max_joint_step):g} deg): the elbow would flip "
                "branch; nothing moved",
            )
        try:
            setpoints = resample_line(
                self.arm,
                path,
                start,
                joints,
                speed=move.speed,
                velocity_limits=self.config.max_velocities,
                period=self._period,
                max_joint_step=self._trajectory.max_joint_step,
            )
        except ResampleError as error:
            status = (
                Result.JOINT_JUMP if error.status == PlanStatus.JOINT_JUMP else Result.IK_FAILED
            )
            ik_status = SolveIK.Response.OK if status == Result.JOINT_JUMP else int(error.status)
            self._abort_plan(
                run, status, ik_status, error.step, points, start, f"{error}; nothing moved"
            )
        return setpoints, count

    def _plan_joint(
        self, run: _Run, move: _Move, start: tuple[float, ...]
    ) -> tuple[Setpoints, int]:
        """The setpoints of a JOINT move (one IK point: the goal)."""
        heading = move.heading
        goal = np.array([[move.x, move.y] if heading is None else [move.x, move.y, heading]])
        joints, _ = self._solve_points(run, goal, start, heading is not None)
        setpoints = joint_setpoints(
            self.arm,
            start,
            joints[0],
            velocity_limits=self.config.max_velocities,
            speed_fraction=move.speed,
            period=self._period,
        )
        return setpoints, 1

    def _solve_points(
        self, run: _Run, points: np.ndarray, start: tuple[float, ...], use_heading: bool
    ) -> tuple[np.ndarray, list[int]]:
        """IK of every point through solve_ik_batch (seeded by `start`, CLOSEST, stopping at the
        first failure): the (M, n) joints and per-point statuses, or an _GoalEndError abort."""
        request = SolveIKBatch.Request()
        request.header.frame_id = self.config.base_frame
        request.x = array.array("d", np.ascontiguousarray(points[:, 0]).tobytes())
        request.y = array.array("d", np.ascontiguousarray(points[:, 1]).tobytes())
        request.z = self.config.plane_z
        request.use_heading = use_heading
        if use_heading:
            request.heading = array.array("d", np.ascontiguousarray(points[:, 2]).tobytes())
        request.branch = SolveIK.Request.BRANCH_CLOSEST
        request.seed = joint_state(self._names, start)
        request.stop_on_failure = True
        started = time.monotonic()
        response = self._call_ik(run, request, start)
        run.timing.ik_s = time.monotonic() - started
        count = len(points)
        names = list(response.joint_names)
        if sorted(names) != sorted(self._names) or len(response.positions) != len(
            response.statuses
        ) * len(names):
            raise _GoalEndError(
                self._result(
                    Result.IK_UNAVAILABLE,
                    f"the IK node answers for joints {names}, this arm has {self._names}: both "
                    "nodes must read the same params file; nothing moved",
                    final=start,
                )
            )
        statuses = list(response.statuses)
        if response.status not in (SolveIK.Response.OK, SolveIK.Response.SINGULAR):
            failed = response.first_failure
            if failed < 0:  # a request-level refusal (frame, plane, ...): step 0 fails
                failed = 0
            ik_status = statuses[failed] if failed < len(statuses) else response.status
            self._abort_plan(
                run,
                Result.IK_FAILED,
                ik_status,
                failed,
                points,
                start,
                f"step {failed} of {count} at {self._format_point(points[failed])} has no IK "
                f"solution ({solve_ik_status_name(ik_status)}: {response.message}); "
                f"{failed}/{count} of the path is feasible; nothing moved",
            )
        order = [names.index(name) for name in self._names]
        joints = np.frombuffer(response.positions, dtype=float).reshape(count, len(names))
        return joints[:, order], statuses

    def _call_ik(
        self, run: _Run, request: SolveIKBatch.Request, start: tuple[float, ...]
    ) -> SolveIKBatch.Response:
        timeout = self._trajectory.ik_timeout_s
        deadline = time.monotonic() + timeout
        service = self.resolve_service_name("solve_ik_batch")

        def unavailable(problem: str) -> _GoalEndError:
            return _GoalEndError(
                self._result(
                    Result.IK_UNAVAILABLE,
                    f"IK service '{service}' {problem} within ik_timeout_s = {timeout:g} s "
                    "(is the IK node running, in this namespace?): nothing moved",
                    final=start,
                )
            )

        while not self._ik.service_is_ready():
            if run.wake.wait(timeout=min(_POLL_S, max(0.0, deadline - time.monotonic()))):
                self._check_stop(run, start)
            if time.monotonic() >= deadline:
                raise unavailable("was not found")
        answered = threading.Event()
        future = self._ik.call_async(request)
        future.add_done_callback(lambda _f: answered.set())
        while not answered.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._ik.remove_pending_request(future)
                raise unavailable("did not answer")
            answered.wait(timeout=min(_POLL_S, remaining))
            if run.wake.is_set():
                self._ik.remove_pending_request(future)
                self._check_stop(run, start)
        response = future.result()
        if response is None:
            raise unavailable("did not answer")
        return response

    def _abort_plan(
        self,
        run: _Run,
        status: int,
        ik_status: int,
        step: int,
        points: np.ndarray,
        start: tuple[float, ...],
        message: str,
    ) -> NoReturn:
        """End the goal with a planning failure at `step` (nothing was sent to the arm)."""
        count = len(points)
        result = self._result(status, message, final=start)
        result.ik_status = int(ik_status)
        result.failed_step = int(step)
        result.total_steps = count
        result.feasible_fraction = step / count
        result.failed_point = Point(
            x=float(points[step, 0]), y=float(points[step, 1]), z=self.config.plane_z
        )
        self._publish_abort_markers(start, points, step, status, ik_status)
        raise _GoalEndError(result)

    # --- streaming -------------------------------------------------------------------------

    def _stream(
        self, run: _Run, setpoints: Setpoints, total_steps: int, start: tuple[float, ...]
    ) -> MoveArm.Result:
        self.last_timing = timing = run.timing
        publish_times = timing.publish_times
        count = len(setpoints)
        joints = setpoints.joints.tolist()
        last = start
        watchdog = self._trajectory.joint_state_timeout_s
        started = time.monotonic()
        next_feedback_at = started
        for k in range(count):
            tick = started + k * self._period
            delay = tick - time.monotonic()
            if delay > 0:
                run.wake.wait(delay)
            elif delay < -self._period:
                # More than a period late (a loaded machine): shift the schedule rather than
                # bursting the missed setpoints, which would command joints beyond their limits.
                started -= delay
            self._check_stop(run, last)
            self._check_hardware(run, last, watchdog)
            command = joint_state(self._names, joints[k], stamp=self.get_clock().now().to_msg())
            self._commands.publish(command)
            publish_times.append(time.monotonic())
            if k == 0:
                timing.first_setpoint_at = publish_times[0]
                # After, not before, the first setpoint: neither delays the arm.
                self._publish_plan_markers(start, setpoints)
                self.get_logger().info(
                    f"planned {total_steps} IK steps (IK round trip {timing.ik_s * 1000:.1f} ms)"
                    f" into {count} setpoints ({setpoints.duration:.2f} s at "
                    f"{self._trajectory.command_rate_hz:g} Hz); first setpoint "
                    f"{(timing.first_setpoint_at - run.accepted_at) * 1000:.1f} ms after "
                    "acceptance"
                )
            last = tuple(joints[k])
            now = publish_times[-1]
            if run.handle is not None and (now >= next_feedback_at or k == count - 1):
                next_feedback_at = now + FEEDBACK_PERIOD_S
                tip_x, tip_y, _ = self.arm.forward(last)
                feedback = MoveArm.Feedback(step=k + 1, total_steps=count, fraction=(k + 1) / count)
                feedback.tip = Point(x=tip_x, y=tip_y, z=self.config.plane_z)
                feedback.joints = command
                run.handle.publish_feedback(feedback)
        self._wait_until_reached(run, last)
        tip_x, tip_y, tip_heading = self.arm.forward(last)
        result = self._result(
            Result.SUCCEEDED,
            f"reached ({tip_x:.4f}, {tip_y:.4f}) heading {math.degrees(tip_heading):.2f} deg "
            f"in {count} setpoints ({time.monotonic() - started:.2f} s)",
            final=last,
        )
        result.total_steps = total_steps
        result.feasible_fraction = 1.0
        return result

    def _check_hardware(self, run: _Run, last: tuple[float, ...], watchdog: float) -> None:
        with self._state_lock:
            age = math.inf if self._state is None else time.monotonic() - self._state[0]
        if age > watchdog:
            raise _GoalEndError(
                self._result(
                    Result.HARDWARE_FAULT,
                    f"joint_states stopped for {watchdog:g} s during the move: streaming stopped "
                    "at the last commanded point",
                    final=last,
                )
            )

    def _wait_until_reached(self, run: _Run, goal: tuple[float, ...]) -> None:
        """Wait until joint_states are within goal_tolerance of the last setpoint."""
        tolerance = self._trajectory.goal_tolerance
        timeout = self._trajectory.joint_state_timeout_s
        deadline = time.monotonic() + timeout
        while True:
            with self._state_lock:
                state = self._state
                if state is not None:
                    error = max(abs(a - b) for a, b in zip(state[1], goal, strict=True))
                    if error <= tolerance:
                        return
                self._state_lock.wait(timeout=_POLL_S)
            self._check_stop(run, goal)
            if time.monotonic() >= deadline:
                measured = "none" if state is None else self._format_joints(state[1])
                raise _GoalEndError(
                    self._result(
                        Result.HARDWARE_FAULT,
                        f"the arm did not reach the last setpoint {self._format_joints(goal)} "
                        f"within {timeout:g} s (joint_states: {measured}): is the hardware "
                        "node refusing commands?",
                        final=goal,
                    )
                )

    def _check_stop(self, run: _Run, last: tuple[float, ...] | None) -> None:
        """End the goal if it was canceled or preempted (the arm stays where it was sent)."""
        if run.stop_status is None:
            return
        where = f"; the arm stays at {self._format_joints(last)}" if last is not None else ""
        raise _GoalEndError(self._result(run.stop_status, run.stop_reason + where, final=last))

    # --- results and markers ---------------------------------------------------------------

    def _result(
        self, status: int, message: str, final: tuple[float, ...] | None = None
    ) -> MoveArm.Result:
        result = Result(status=status, message=message)
        result.ik_status = SolveIK.Response.OK
        if final is not None:
            result.final_joints = self._joint_state_msg(final)
        return result

    def _joint_state_msg(self, joints: tuple[float, ...] | None) -> JointState:
        if joints is None:
            return JointState()
        return joint_state(self._names, joints, stamp=self.get_clock().now().to_msg())

    @staticmethod
    def _format_point(point: np.ndarray) -> str:
        text = f"({point[0]:.4f}, {point[1]:.4f})"
        if len(point) > 2:
            text += f" heading {math.degrees(point[2]):.2f} deg"
        return text

    @staticmethod
    def _format_joints(joints: tuple[float, ...]) -> str:
        return "(" + ", ".join(f"{math.degrees(q):.2f}" for q in joints) + ") deg"

    def _marker(self, marker_type: int, marker_id: int, ns: str, color: ColorRGBA) -> Marker:
        marker = Marker(type=marker_type, id=marker_id, ns=ns, action=Marker.ADD, color=color)
        marker.header.frame_id = self.config.base_frame
        marker.header.stamp = self.get_clock().now().to_msg()
        marker.pose.orientation.w = 1.0
        return marker

    def _line_marker(
        self, marker_id: int, ns: str, xy: np.ndarray, color: ColorRGBA, width: float
    ) -> Marker | None:
        if len(xy) < 2:
            return None
        marker = self._marker(Marker.LINE_STRIP, marker_id, ns, color)
        marker.scale.x = width
        z = self.config.plane_z
        marker.points = [Point(x=float(x), y=float(y), z=z) for x, y in xy[:, :2].tolist()]
        return marker

    def _publish(self, markers: list[Marker | None]) -> None:
        clear = Marker(action=Marker.DELETEALL)
        clear.header.frame_id = self.config.base_frame
        self._markers.publish(MarkerArray(markers=[clear, *[m for m in markers if m]]))

    def _publish_plan_markers(self, start: tuple[float, ...], setpoints: Setpoints) -> None:
        """The path the tool will follow (the setpoints' tips, from the start)."""
        tip0 = np.asarray(self.arm.forward(start))[None, :2]
        path = np.vstack((tip0, setpoints.tips[:, :2]))
        width = 0.1 * self._marker_scale()
        self._publish(
            [
                self._line_marker(
                    0, "planned_path", path, ColorRGBA(r=0.1, g=0.6, b=1.0, a=1.0), width
                )
            ]
        )

    def _publish_abort_markers(
        self,
        start: tuple[float, ...],
        points: np.ndarray,
        step: int,
        status: int,
        ik_status: int,
    ) -> None:
        """Feasible part green, the rest faded red, a red sphere and a label at the failure."""
        tip0 = np.asarray(self.arm.forward(start))[None, :2]
        xy = np.vstack((tip0, points[:, :2]))
        scale = self._marker_scale()
        green = ColorRGBA(r=0.1, g=0.9, b=0.2, a=1.0)
        red = ColorRGBA(r=1.0, g=0.1, b=0.1, a=1.0)
        faded = ColorRGBA(r=1.0, g=0.3, b=0.3, a=0.35)
        # xy[0] is the start, xy[step + 1] the failing point.
        feasible = self._line_marker(0, "feasible_path", xy[: step + 1], green, 0.1 * scale)
        rest = self._line_marker(1, "infeasible_path", xy[step:], faded, 0.06 * scale)
        x, y = (float(v) for v in points[step, :2])
        sphere = self._marker(Marker.SPHERE, 2, "failed_step", red)
        sphere.pose.position = Point(x=x, y=y, z=self.config.plane_z)
        sphere.scale.x = sphere.scale.y = sphere.scale.z = 0.5 * scale
        text = self._marker(
            Marker.TEXT_VIEW_FACING, 3, "failed_step", ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
        )
        text.pose.position = Point(x=x, y=y, z=self.config.plane_z + 0.8 * scale)
        text.scale.z = 0.35 * scale
        label = status_name(status)
        if status == Result.IK_FAILED:
            label += f" ({solve_ik_status_name(ik_status)})"
        text.text = f"{label} at step {step}/{len(points)}"
        self._publish([feasible, rest, sphere, text])

    def _marker_scale(self) -> float:
        """A size that suits the arm: 5 % of its reach, metres."""
        return 0.05 * sum(self.arm.link_lengths)

    # --- shutdown --------------------------------------------------------------------------

    def close(self, timeout: float = 2.0) -> None:
        """Stop every goal (the arm stays at its last commanded point) and wait for them."""
        deadline = time.monotonic() + timeout
        with self._goal_lock:
            self._closing = True
            for run in self._runs.values():
                run.stop(Result.CANCELED, "the node is shutting down")
            while self._runs and time.monotonic() < deadline:
                self._idle.wait(timeout=max(0.0, deadline - time.monotonic()))

    def destroy_node(self) -> None:
        destroy_actions(self)
        super().destroy_node()


def main() -> None:
    sys.exit(run_node(TrajectoryNode))


if __name__ == "__main__":
    main()
