"""`trajectory_node`: the MoveArm action. Straight-line (or joint-space) moves, planned whole
before anything moves, then streamed to `joint_commands` at the command rate.

Interfaces (relative names, so a namespace moves them all):
- action server `move_arm` (arm_kinematics_interfaces/action/MoveArm);
- subscription `joint_states` (sensor_msgs/JointState): the start pose and the hardware watchdog;
- publisher `joint_commands` (sensor_msgs/JointState, names + positions in radians);
- client `solve_ik_batch` (the IK node): every IK point of a goal is solved there;
- subscription `clicked_point` (geometry_msgs/PointStamped, RViz's "Publish Point"): a LINEAR
  move to the clicked point at the default speed;
- subscription `joint_trajectory` (trajectory_msgs/JointTrajectory, joint_trajectory_controller's
  convention): a timed joint path from another planner, checked whole, then streamed like a
  goal's setpoints; an empty one stops the arm where it is;
- service `plan_cartesian_path` (arm_kinematics_interfaces/srv/PlanCartesianPath): plans a
  polyline with the LINEAR rules and returns the timed JointTrajectory; nothing moves;
- action server `<controller_name>/follow_joint_trajectory`
  (control_msgs/action/FollowJointTrajectory, as joint_trajectory_controller serves it: MoveIt's
  route; `nodes/follow_joint_trajectory_action.py`);
- publisher `trajectory_markers` (visualization_msgs/MarkerArray, transient local): the planned
  path, and on an abort the feasible part, the failing step and its status.
- subscription `calibration/state` (arm_kinematics_interfaces/CalibrationState, transient
  local, from the hardware node): while calibration mode is on, every MoveArm goal, joint
  trajectory and clicked point is refused (CALIBRATING; the motion running when it begins is
  stopped); `plan_cartesian_path` plans as usual (it moves nothing).
- MoveIt Servo's jog: `servo_node/delta_twist_cmds`, `servo_node/delta_joint_cmds`,
  `servo_node/status` and its services (`nodes/servo/`, docs/jogging.md); a jog is admitted as
  any other motion;
- service `stop` (std_srvs/Trigger): stops every motion at once (`nodes/stop_service.py`).
- named poses and taught sequences (`nodes/teach/`, docs/sequences.md): the services
  `named_poses/save`, `list`, `delete` and `sequences/save`, `list`, `delete`, MoveArm's
  `named_pose`, and the action `run_sequence` (arm_kinematics_interfaces/action/RunSequence),
  a sequence admitted as any other motion.

Targets and waypoints may be stamped in the base frame or, with a mount, the mount's parent
frame; they are transformed into the base frame before planning (`frames.TargetFrames`).
Parameters of this node only (read-only): `max_waypoints`, the most waypoints a MoveArm goal or
a plan request may carry; the FollowJointTrajectory action's (`controller_name`,
`allow_partial_joints_goal`, `constraints.*`).

Goal lifecycle: validate -> start pose from the latest joint_states -> plan (the core's
`plan_polyline`: IK of the line's points in one solve_ik_batch round trip, the joint-jump check,
the timing within the joint and tool limits, and where a joint sets the pace the IK of the
setpoints on the line in a second round trip) -> stream (a cancel, a preemption or the shutdown:
a deceleration along the path) -> wait until joint_states reach the last setpoint. Any failure
before streaming aborts with nothing sent.

This module is the ROS wiring only; the parts are plain and live in `nodes/trajectory/`:
`goals` (validation, admission, preemption), `ik_batch` (the IK client), `planning`,
`streaming` and `markers`. A goal's run returns an `Outcome`, which becomes its result here.

Threading: the action's execute callback runs on the runner's WorkerBoundExecutor and waits
only on events with timeouts (the IK answer, the next tick, a fresh joint_states), so the
callbacks it needs (IK response, joint_states, cancel, a preempting goal) run on other threads.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Sequence

import numpy as np
from geometry_msgs.msg import Point, PointStamped
from rcl_interfaces.msg import IntegerRange, ParameterDescriptor, ParameterType
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import MarkerArray

from arm_kinematics.kinematics import Setpoints
from arm_kinematics.kinematics.planning import time_optimal
from arm_kinematics.kinematics.planning.timed_joint_path import trajectory_setpoints
from arm_kinematics.nodes.follow_joint_trajectory_action import (
    FollowJointTrajectoryAction,
    declare_follow_parameters,
)
from arm_kinematics.nodes.messages import JointStateError, joint_positions, joint_state
from arm_kinematics.nodes.params import ParameterStartupError, declare_arm_parameters
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.runner import run_node
from arm_kinematics.nodes.servo.interface import ServoInterface
from arm_kinematics.nodes.stop_service import create_stop_service
from arm_kinematics.nodes.teach.interface import NodeParts, SequenceMove, TeachInterface
from arm_kinematics.nodes.trajectory import cartesian
from arm_kinematics.nodes.trajectory.follow_joint_trajectory import FollowMove, TrajectoryFollower
from arm_kinematics.nodes.trajectory.goals import (
    MODE_NAMES,
    Admission,
    GoalRun,
    GoalTiming,
    Move,
    Outcome,
    Result,
    TrajectoryMove,
    invalid_goal,
    status_name,
    validate,
)
from arm_kinematics.nodes.trajectory.ik_batch import IkBatchClient
from arm_kinematics.nodes.trajectory.markers import TrajectoryMarkers, marker_scale
from arm_kinematics.nodes.trajectory.planning import PlannedMove, plan_move
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics.nodes.trajectory.streaming import (
    JointStateMonitor,
    SetpointStream,
    StreamSettings,
)
from arm_kinematics.rclpy_compat.action_client import destroy_actions
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.msg import CalibrationState
from arm_kinematics_interfaces.srv import PlanCartesianPath, SolveIK, SolveIKBatch

__all__ = ["GoalTiming", "TrajectoryNode", "main", "status_name"]

#: Longest wait in close() for the goals to end (s): a stream stops within one command period,
#: a plan within its IK round trip's poll; below the runner's CLOSE_TIMEOUT_S.
CLOSE_TIMEOUT_S = 1.5
#: Default of the `max_waypoints` parameter.
DEFAULT_MAX_WAYPOINTS = 1000


def declare_max_waypoints(node: Node) -> int:
    """Declare the read-only `max_waypoints` parameter and validate it (an integer >= 1)."""
    descriptor = ParameterDescriptor(
        type=ParameterType.PARAMETER_INTEGER,
        description=(
            "most waypoints a MoveArm goal or a plan_cartesian_path request may carry; "
            "more are refused at once"
        ),
        read_only=True,
        integer_range=[IntegerRange(from_value=1, to_value=1_000_000, step=1)],
    )
    try:
        value = node.declare_parameter("max_waypoints", DEFAULT_MAX_WAYPOINTS, descriptor).value
    except Exception as error:  # rclpy's complaint about a value of the wrong type or range
        node.get_logger().fatal(f"invalid configuration: parameter 'max_waypoints': {error}")
        raise ParameterStartupError() from None
    return int(value)


class TrajectoryNode(Node):
    """Plans and streams MoveArm goals; see the module docstring."""

    def __init__(self, **kwargs) -> None:
        # What it was given is read from rclpy's declaration of it (nodes/params.py).
        super().__init__(
            "trajectory_node", automatically_declare_parameters_from_overrides=True, **kwargs
        )
        self.config = declare_arm_parameters(self)
        self.max_waypoints = declare_max_waypoints(self)
        follow_settings = declare_follow_parameters(self, self.config)
        self.arm = self.config.make_arm()
        time_optimal.load()  # toppra (0.9 s of imports) now, not in the first goal that needs it
        trajectory = self.config.trajectory
        self._names = list(self.config.joint_names)
        self.last_timing = GoalTiming()
        self._admission = Admission()
        self._joint_states = JointStateMonitor()
        base_frame = self.config.frame(self.config.base_frame)  # with the arm's frame prefix
        self.poses = ToolPoses(self.arm, self.config)
        self._draw = TrajectoryMarkers(base_frame, marker_scale(self.arm.link_lengths))

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
        self._ik = IkBatchClient(
            self.create_client(SolveIKBatch, "solve_ik_batch", callback_group=group),
            self.resolve_service_name("solve_ik_batch"),
            self._names,
            base_frame,
            trajectory.ik_timeout_s,
            position_dims=self.arm.position_dims,
        )
        self._stream = SetpointStream(
            StreamSettings(
                period=1.0 / trajectory.command_rate_hz,
                watchdog_s=trajectory.joint_state_timeout_s,
                goal_tolerance=trajectory.goal_tolerance,
            ),
            self._joint_states,
            self._publish_setpoint,
            self._publish_feedback,
            self.poses.words_at,
            on_first=self._on_first_setpoint,
        )
        self._commanded: tuple[float, ...] | None = None  # the last setpoint published
        self._handles: dict[bytes, ServerGoalHandle] = {}
        self._closing = threading.Event()  # ends the waits of callbacks that are not goals
        self._create_inputs(group)
        self._follow = TrajectoryFollower(
            self.config,
            follow_settings,
            self._stream,
            self._joint_states,
            lambda: self.get_clock().now().nanoseconds * 1e-9,
            self._publish_setpoint,
            lambda run, values: self._follow_action.publish_feedback(run, values),
            self.arm.tool_vector,
            self.arm.envelope,
        )
        self._follow_action = FollowJointTrajectoryAction(
            self,
            self._follow,
            self._admission,
            self._outcome,
            lambda: self._joint_states.wait_fresh(trajectory.joint_state_timeout_s, self._closing),
            group,
        )
        self._servo = ServoInterface(
            self,
            self.config,
            self.arm,
            self.arm.envelope,
            self._admission,
            lambda wake: self._start_pose(
                self._joint_states.wait_fresh(trajectory.joint_state_timeout_s, wake)
            ),
            self._publish_setpoint,
            group,
        )
        create_stop_service(self, self._admission, group)
        self._teach = TeachInterface(
            self,
            self.config,
            self.arm,
            self.poses,
            self._admission,
            NodeParts(
                self._stream.settings,
                self._joint_states,
                self._publish_setpoint,
                self._start_pose,
                lambda run: self._ik.solver(run.wake, run.timing),
                self._outcome,
                self._draw_plan,
                self._draw_failed,
            ),
            group,
        )
        action = self.resolve_topic_name("move_arm")  # resolved as rcl_action resolves it
        self.get_logger().info(
            f"trajectory_node ready: action '{action}', joints {self._names}, "
            f"{trajectory.command_rate_hz:g} Hz setpoints, default "
            f"{trajectory.default_speed:g} m/s in steps of "
            f"{trajectory.default_max_step * 1000:g} mm"
        )

    # --- inputs ----------------------------------------------------------------------------

    def _create_inputs(self, group: ReentrantCallbackGroup) -> None:
        """The motions' inputs: the MoveArm action, clicked points, joint trajectories, and
        the plan_cartesian_path service."""
        self._server = ActionServer(
            self,
            MoveArm,
            "move_arm",
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            handle_accepted_callback=self._on_accepted,
            cancel_callback=self._on_cancel,
            callback_group=group,
        )
        # RViz's "Publish Point": a LINEAR move at the default speed, validated, preempting and
        # preempted like an action goal (it has no goal handle, so no feedback or result).
        self.create_subscription(
            PointStamped, "clicked_point", self._on_clicked_point, 10, callback_group=group
        )
        self.create_subscription(
            JointTrajectory, "joint_trajectory", self._on_joint_trajectory, 10, callback_group=group
        )
        self.create_service(
            PlanCartesianPath, "plan_cartesian_path", self._on_plan_request, callback_group=group
        )
        self.create_subscription(
            CalibrationState,
            "calibration/state",
            self._on_calibration_state,
            QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL),
            callback_group=group,
        )

    def _on_calibration_state(self, msg: CalibrationState) -> None:
        if msg.active and not self._admission.held:
            stopped = self._admission.hold(
                "the hardware node is in calibration mode: motions are refused until it "
                "leaves it (calibration/leave)"
            )
            self.get_logger().warning(
                "calibration mode on: MoveArm goals, joint trajectories and clicked points are "
                "refused until it ends"
                + (f"; stopped the running {stopped.label}" if stopped else "")
            )
        elif not msg.active and self._admission.held:
            self._admission.release_hold()
            self.get_logger().info("calibration mode off: motions are accepted again")

    def _on_joint_state(self, msg: JointState) -> None:
        try:
            joints = joint_positions(msg, self._names, allow_unknown=True)
        except JointStateError as error:
            self.get_logger().warning(f"ignoring joint_states: {error}", throttle_duration_sec=5.0)
            return
        stamp = msg.header.stamp
        self._joint_states.update(joints, stamp.sec + stamp.nanosec * 1e-9)

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
        run = self._admit_goal(uuid.uuid4().bytes, goal, "clicked point move")
        # Its own thread, not an executor worker: a move lasts seconds.
        threading.Thread(target=self._finish, args=(run,), daemon=True).start()

    def _on_joint_trajectory(self, msg: JointTrajectory) -> None:
        trajectory = TrajectoryMove.from_message(msg)
        if len(trajectory) == 0:
            stopped = self._admission.stop_active("stopped by an empty joint trajectory")
            self.get_logger().info(
                "empty joint trajectory: "
                + (f"stopped the running {stopped.label}" if stopped else "nothing was moving")
            )
            return
        timeout = self.config.trajectory.joint_state_timeout_s
        current = self._start_pose(self._joint_states.wait_fresh(timeout, self._closing))
        try:
            trajectory.check(self.config, current, self.arm.envelope)
        except Refusal as refusal:  # refused whole: nothing moves, nobody is disturbed
            self.get_logger().warning(f"joint trajectory refused: {refusal}; nothing moved")
            return
        run = self._admission.admit(uuid.uuid4().bytes, trajectory, "joint trajectory")
        threading.Thread(target=self._finish, args=(run,), daemon=True).start()

    def _on_plan_request(
        self, request: PlanCartesianPath.Request, response: PlanCartesianPath.Response
    ) -> PlanCartesianPath.Response:
        timeout = self.config.trajectory.joint_state_timeout_s
        try:
            answer = cartesian.plan_cartesian_path(
                self.poses,
                self.config,
                request,
                self.max_waypoints,
                lambda: self._joint_states.wait_fresh(timeout, self._closing),
                self._ik.solver(self._closing, GoalTiming()),
            )
        except Refusal as refusal:
            answer = cartesian.refusal(refusal)
        except Exception as error:  # never leave a caller without an answer
            self.get_logger().error(f"plan_cartesian_path failed unexpectedly: {error!r}")
            answer = cartesian.refusal(f"the request could not be processed: {error!r}")
        answer.trajectory.header.stamp = self._now()
        name = cartesian.STATUS_NAMES.get(answer.status, str(answer.status))
        self.get_logger().info(f"plan_cartesian_path {name}: {answer.message}")
        return answer

    def _on_goal(self, _goal: MoveArm.Goal) -> GoalResponse:
        return self._admission.goal_response(self.get_logger(), "goal")

    def _on_accepted(self, handle: ServerGoalHandle) -> None:
        key = bytes(handle.goal_id.uuid)
        self._handles[key] = handle
        self._admit_goal(key, handle.request)
        handle.execute()

    def _admit_goal(self, key: bytes, goal: MoveArm.Goal, label: str = "goal") -> GoalRun:
        """Validate a goal and register it: a valid one preempts the running motion, a
        refused one (its Refusal kept for its INVALID_GOAL result) disturbs nobody."""
        try:
            move = validate(
                goal, self.config, self.max_waypoints, self.poses, self._teach.named_move
            )
        except Refusal as refusal:
            return self._admission.refuse(key, refusal, label)
        return self._admission.admit(key, move, label)

    def _on_cancel(self, handle: ServerGoalHandle) -> CancelResponse:
        return self._admission.cancel_response(handle)

    def _execute(self, handle: ServerGoalHandle) -> MoveArm.Result:
        run = self._admission.admitted_run(handle)
        key = run.key
        try:
            result = self._finish(run)
        finally:
            self._handles.pop(key, None)
        if result.status == Result.SUCCEEDED:
            handle.succeed()
        elif result.status == Result.CANCELED and handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        return result

    # --- a goal, from admission to its result ----------------------------------------------

    def _finish(self, run: GoalRun) -> MoveArm.Result:
        """Run a goal to its end; its result (also logged). Never raises."""
        outcome = self._outcome(run)
        line = f"{run.label} {status_name(outcome.status)}: {outcome.message}"
        if outcome.status in (Result.SUCCEEDED, Result.CANCELED, Result.PREEMPTED):
            self.get_logger().info(line)
        else:
            self.get_logger().warning(line)
        return self._result(outcome)

    def _outcome(self, run: GoalRun) -> Outcome:
        """Run a motion to its end; its outcome. Never raises."""
        try:
            outcome = self._run(run)
        except Exception as error:  # never let a bug leave the goal hanging or kill the node
            self.get_logger().error(f"{run.label} failed unexpectedly: {error!r}")
            outcome = Outcome(
                Result.HARDWARE_FAULT,
                f"internal error: {error!r}",
                final=self._joint_states.latest(),
            )
        finally:
            self._admission.finish(run)
        return outcome

    def _run(self, run: GoalRun) -> Outcome:
        if run.move is None:
            assert run.refusal is not None  # registered by Admission.refuse
            return invalid_goal(run.refusal)
        move = run.move
        if not self._admission.take_motion(run):  # a preempted goal leaves within one tick
            return run.stopped(self._joint_states.latest()) or Outcome(Result.CANCELED, "")
        try:
            stopped = run.stopped(self._joint_states.latest())
            if stopped is not None:
                return stopped
            timeout = self.config.trajectory.joint_state_timeout_s
            start = self._start_pose(self._joint_states.wait_fresh(timeout, run.wake))
            if start is None:
                return run.stopped(None) or Outcome(
                    Result.NO_JOINT_STATE,
                    f"no joint_states for {timeout:g} s on "
                    f"'{self.resolve_topic_name('joint_states')}' (is the hardware node "
                    "running?): nothing moved",
                )
            if isinstance(move, FollowMove):
                return self._follow.run(run, move, start)
            if isinstance(move, TrajectoryMove):
                return self._stream_trajectory(run, move, start)
            if isinstance(move, SequenceMove):
                return self._teach.run(run, move, start)
            try:
                planned = plan_move(
                    self.arm, self.config, move, start, self._ik.solver(run.wake, run.timing), run
                )
            except Refusal as refusal:  # too big to plan
                return invalid_goal(refusal)
            if not isinstance(planned, PlannedMove):
                self._draw_failed(start, planned)
                return planned
            self.last_timing = run.timing
            return self._stream.run(run, planned.setpoints, start, planned.total_steps)
        finally:
            self._admission.release_motion()

    def _draw_failed(self, start: tuple[float, ...], planned: Outcome) -> None:
        """The abort markers of a plan that failed at a step (its points, if it has them)."""
        if planned.path_points is not None:
            self._markers.publish(
                self._draw.abort(
                    self.poses.tip(start),
                    np.array([self.poses.point(p) for p in planned.path_points]),
                    planned.failed_step,
                    planned.status,
                    planned.ik_status,
                    self._now(),
                )
            )

    def _draw_plan(self, start: tuple[float, ...], tips: np.ndarray) -> None:
        """The plan markers of the tool poses `tips` from the joints `start`."""
        points = np.array([self.poses.point(tip) for tip in tips])
        self._markers.publish(self._draw.plan(self.poses.tip(start), points, self._now()))

    def _start_pose(self, measured: tuple[float, ...] | None) -> tuple[float, ...] | None:
        """Where a motion starts: the last setpoint this node sent when `measured` (the latest
        joint_states) is within the goal tolerance of it (the arm is there, at rest after a
        stop: a new motion goes on from the very setpoint the last one ended with, not from a
        reading a period old), else `measured`."""
        commanded = self._commanded
        if measured is None or commanded is None or len(commanded) != len(measured):
            return measured
        tolerance = self.config.trajectory.goal_tolerance
        near = all(abs(a - b) <= tolerance for a, b in zip(measured, commanded, strict=True))
        return commanded if near else measured

    def _stream_trajectory(
        self, run: GoalRun, trajectory: TrajectoryMove, start: tuple[float, ...]
    ) -> Outcome:
        """Check a joint trajectory again from the pose the arm is at now (it was checked from
        the latest joint_states when it came), sample it at the command rate and stream it."""
        try:
            path = trajectory.check(self.config, start, self.arm.envelope)
        except Refusal as refusal:
            return invalid_goal(Refusal(f"refused: {refusal}; nothing moved"), final=start)
        setpoints = trajectory_setpoints(path, self.config.motion_limits(), self.arm.tool_vector)
        return self._stream.run(run, setpoints, start, len(trajectory))

    # --- what the stream sends -------------------------------------------------------------

    def _publish_setpoint(self, joints: Sequence[float]) -> JointState:
        command = joint_state(self._names, joints, stamp=self._now())
        self._commands.publish(command)
        self._commanded = tuple(float(q) for q in joints)
        return command

    def _publish_feedback(
        self, run: GoalRun, step: int, count: int, joints: tuple[float, ...], sent: object
    ) -> None:
        handle = self._handles.get(run.key)
        if handle is None:  # a clicked point has no goal handle
            return
        x, y, z = self.poses.tip(joints)
        feedback = MoveArm.Feedback(step=step, total_steps=count, fraction=step / count)
        feedback.tip = Point(x=x, y=y, z=z)
        feedback.joints = sent
        handle.publish_feedback(feedback)

    def _on_first_setpoint(
        self, run: GoalRun, setpoints: Setpoints, start: tuple[float, ...], total_steps: int
    ) -> None:
        self._draw_plan(start, setpoints.tips)
        timing = run.timing
        move = run.move
        first_at = (timing.first_setpoint_at - run.accepted_at) * 1000
        rate = 1.0 / self._stream.settings.period
        if isinstance(move, TrajectoryMove):
            self.get_logger().info(
                f"{run.label} of {len(move)} points ({move.times[-1]:.2f} s): "
                f"{len(setpoints)} setpoints at {rate:g} Hz; first setpoint {first_at:.1f} ms "
                "after it came"
            )
            return
        assert isinstance(move, Move)
        via = f" via {len(move.waypoints)} waypoints" if move.waypoints else ""
        # One log line per goal before its result, written once the arm moves: a log call
        # (stdout and /rosout) before planning would delay the first setpoint.
        self.get_logger().info(
            f"{run.label} {MODE_NAMES[move.mode]} to {self.poses.words(move.target)}{via}: "
            f"planned {total_steps} IK steps ({timing.ik_calls} IK round trips, "
            f"{timing.ik_s * 1000:.1f} ms in all) into {len(setpoints)} setpoints "
            f"({setpoints.duration:.2f} s at {rate:g} Hz); "
            f"first setpoint {first_at:.1f} ms after acceptance"
        )

    # --- results ---------------------------------------------------------------------------

    def _now(self):
        return self.get_clock().now().to_msg()

    def _result(self, outcome: Outcome) -> MoveArm.Result:
        result = Result(status=outcome.status, message=outcome.message)
        result.ik_status = outcome.ik_status or SolveIK.Response.OK
        result.failed_step = outcome.failed_step
        result.total_steps = outcome.total_steps
        result.sent_setpoints = outcome.sent_setpoints
        result.total_setpoints = outcome.total_setpoints
        result.feasible_fraction = outcome.feasible_fraction
        if outcome.failed_point is not None:
            x, y, z = self.poses.point(outcome.failed_point)
            result.failed_point = Point(x=x, y=y, z=z)
        if outcome.final is not None:
            result.final_joints = joint_state(self._names, outcome.final, stamp=self._now())
        return result

    # --- shutdown --------------------------------------------------------------------------

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """End every goal with SHUTDOWN (a moving arm decelerates along its path to rest, within
        the limits: at the shipped ones a quarter of a second), refuse new ones, and wait up to
        `timeout` s for them; their results go out as the runner spins."""
        self._closing.set()
        if not self._admission.close(timeout):
            self.get_logger().error(f"goals still running {timeout:g} s after the shutdown began")

    def destroy_node(self) -> None:
        destroy_actions(self)
        super().destroy_node()


def main() -> None:
    sys.exit(run_node(TrajectoryNode))


if __name__ == "__main__":
    main()
