"""The plain parts of trajectory_node (nodes/trajectory/), without a ROS graph.

Admission and preemption, the setpoint stream and its watchdog, the IK batch adapter, a goal's
plan and the markers, each driven directly: no rclpy.init, no executor, no DDS. Waits are for
conditions (a goal stopped, a thread done), never fixed sleeps.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from builtin_interfaces.msg import Time
from visualization_msgs.msg import Marker

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import (
    Envelope,
    IkAnswers,
    PlanOptions,
    Setpoints,
    chain_solver,
    joint_setpoints,
)
from arm_kinematics.nodes.refusals import Refusal, WrongFrame
from arm_kinematics.nodes.trajectory.goals import (
    Admission,
    Move,
    Result,
    invalid_goal,
    plan_options,
    validate,
)
from arm_kinematics.nodes.trajectory.ik_batch import (
    IkBatchClient,
    IkInterruptedError,
    IkUnavailableError,
    batch_answers,
    batch_request,
)
from arm_kinematics.nodes.trajectory.markers import TrajectoryMarkers
from arm_kinematics.nodes.trajectory.planning import MAX_PLAN_POINTS, PlannedMove, plan_move
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics.nodes.trajectory.streaming import (
    JointStateMonitor,
    SetpointStream,
    StreamSettings,
)
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

CONFIG = ArmConfig.from_file()
ARM = CONFIG.make_arm()
POSES = ToolPoses(ARM, CONFIG)
LINEAR = MoveArm.Goal.LINEAR


def move(x: float = 0.12, y: float = 0.05, speed: float = 0.05, max_step: float = 0.001) -> Move:
    """A LINEAR goal's Move to (x, y) at `speed` m/s, as `validate` makes it."""
    options = PlanOptions(max_step, CONFIG.motion_limits(speed), CONFIG.trajectory.max_joint_step)
    return Move(mode=LINEAR, target=(x, y), options=options)


# --- validation --------------------------------------------------------------------------------


def test_validate_fills_the_defaults_and_explains_a_refusal():
    goal = MoveArm.Goal(mode=LINEAR)
    goal.target.pose.position.x, goal.target.pose.position.y = 0.12, 0.05
    valid = validate(goal, CONFIG)
    assert valid == move(speed=CONFIG.trajectory.default_speed, max_step=0.001)
    goal.target.header.frame_id = "world"
    with pytest.raises(WrongFrame, match=r"^target frame 'world' is not the arm's base frame"):
        validate(goal, CONFIG)
    goal.target.header.frame_id = ""
    goal.speed = -1.0
    with pytest.raises(Refusal, match=r"^speed = -1 is negative \(0 means the default\)$"):
        validate(goal, CONFIG)


# --- admission and preemption ------------------------------------------------------------------


def test_a_valid_goal_preempts_the_running_one_and_an_invalid_one_disturbs_nobody():
    admission = Admission()
    first = admission.admit(b"1", move())
    assert first.stop_status is None
    refused = admission.refuse(b"2", Refusal("speed = -1 is negative"))
    assert refused.move is None
    assert refused.refusal.message == "speed = -1 is negative"
    assert first.stop_status is None
    assert not first.wake.is_set()
    second = admission.admit(b"3", move())
    assert first.stop_status == Result.PREEMPTED
    assert first.wake.is_set()
    assert first.stopped((0.0, math.pi / 4)).message == (
        "preempted by a newer goal; the arm stays at (0.00, 45.00) deg"
    )
    assert second.stop_status is None
    admission.cancel(b"3")
    assert second.stopped(None).status == Result.CANCELED
    assert second.stopped(None).message == "canceled by the client"
    assert admission.find(b"2") is refused


def test_one_goal_moves_at_a_time_and_a_goal_stopped_while_waiting_never_moves():
    admission = Admission()
    first = admission.admit(b"1", move())
    assert admission.take_motion(first)
    second = admission.admit(b"2", move())  # preempts the first
    waited: list[bool] = []
    waiter = threading.Thread(target=lambda: waited.append(admission.take_motion(second)))
    waiter.start()
    assert first.stop_status == Result.PREEMPTED
    admission.release_motion()  # the first goal ends
    waiter.join(timeout=10)
    assert waited == [True]
    third = admission.admit(b"3", move())  # preempts the second while it moves
    blocked: list[bool] = []
    third_waits = threading.Thread(target=lambda: blocked.append(admission.take_motion(third)))
    fourth = admission.admit(b"4", move())  # ... and the third before it got the motion
    third_waits.start()
    third_waits.join(timeout=10)
    assert blocked == [False]
    admission.release_motion()
    assert admission.take_motion(fourth)


def test_close_ends_every_goal_with_shutdown_refuses_new_ones_and_waits_for_them():
    admission = Admission()
    running = admission.admit(b"1", move())
    assert not admission.closing
    assert not admission.close(timeout=0.05)  # the goal has not finished yet
    assert admission.closing
    assert running.stop_status == Result.SHUTDOWN  # not CANCELED: no client asked for it
    assert running.stop_reason == "the trajectory node is shutting down"
    late = admission.admit(b"2", move())
    assert late.stop_status == Result.SHUTDOWN
    finisher = threading.Thread(target=lambda: [admission.finish(r) for r in (running, late)])
    finisher.start()
    assert admission.close(timeout=10)
    finisher.join(timeout=10)


# --- the setpoint stream -----------------------------------------------------------------------


class Recorder:
    """publish/feedback callbacks of a SetpointStream; a follower updates the monitor."""

    def __init__(self, monitor: JointStateMonitor, follow: bool = True, stop_after=None):
        self.monitor = monitor
        self.follow = follow
        self.stop_after = stop_after  # (count, run, status): stop the run after that many
        self.sent: list[tuple[float, ...]] = []
        self.feedback: list[int] = []

    def publish(self, joints):
        self.sent.append(tuple(joints))
        if self.follow:  # a hardware that is there at once
            self.monitor.update(tuple(joints))
        if self.stop_after and len(self.sent) == self.stop_after[0]:
            self.stop_after[1].stop(self.stop_after[2], "canceled by the client")
        return ("message", len(self.sent))

    def on_feedback(self, _run, step, count, joints, sent):
        assert sent == ("message", step)
        assert joints == self.sent[step - 1]
        self.feedback.append(step)


def setpoints(count: int = 12, period: float = 0.005) -> Setpoints:
    start = np.array(CONFIG.home)
    joints = start + np.linspace(0.001, 0.05, count)[:, None]
    return Setpoints(joints=joints, period=period, forward=ARM.tool_vector)


def stream(
    recorder: Recorder, watchdog: float = 5.0, tolerance: float = 1e-9, period: float = 0.005
) -> SetpointStream:
    settings = StreamSettings(period=period, watchdog_s=watchdog, goal_tolerance=tolerance)
    return SetpointStream(
        settings, recorder.monitor, recorder.publish, recorder.on_feedback, POSES.words_at
    )


def test_the_stream_sends_every_setpoint_then_succeeds_once_the_arm_is_there():
    monitor = JointStateMonitor()
    monitor.update(tuple(CONFIG.home))
    recorder = Recorder(monitor)
    admission = Admission()
    run = admission.admit(b"1", move())
    plan = setpoints()
    outcome = stream(recorder).run(run, plan, tuple(CONFIG.home), total_steps=40)
    assert outcome.status == Result.SUCCEEDED, outcome.message
    assert recorder.sent == [tuple(row) for row in plan.joints.tolist()]
    assert outcome.final == recorder.sent[-1]
    assert (outcome.total_steps, outcome.feasible_fraction) == (40, 1.0)
    assert recorder.feedback[0] == 1
    assert recorder.feedback[-1] == len(plan)
    assert len(run.timing.publish_times) == len(plan)
    # Setpoint k goes out k periods after the first's tick, never earlier (no burst). Measured
    # from the first's publish time, which is that tick plus the first publish's own cost (tens
    # of microseconds under load: 42 us seen), hence a tolerance of a tenth of the period.
    since_first = np.asarray(run.timing.publish_times) - run.timing.publish_times[0]
    assert np.all(since_first >= np.arange(len(plan)) * 0.005 - 0.0005)


def test_a_canceled_goal_decelerates_along_its_path_within_the_limits_then_stays():
    monitor = JointStateMonitor()
    home = tuple(CONFIG.home)
    monitor.update(home)
    run = Admission().admit(b"1", move())
    recorder = Recorder(monitor, stop_after=(20, run, Result.CANCELED))
    limits = CONFIG.motion_limits()
    # 1.4 rad of shoulder at up to 120 deg/s and 480 deg/s^2: 0.92 s, at full speed from 0.25 s
    # to 0.67 s; canceled at 0.4 s, 0.25 s of deceleration take it 0.26 rad further.
    goal = (home[0] + 1.4, home[1] - 0.5)
    motion = joint_setpoints(ARM, home, goal, limits)
    outcome = stream(recorder, period=limits.period).run(run, motion, home, total_steps=1)
    assert outcome.status == Result.CANCELED
    assert (outcome.sent_setpoints, outcome.total_setpoints) == (20, len(motion))
    sent = np.array(recorder.sent)
    assert len(sent) == 20 + 13 < len(motion)  # it decelerated after the cancel, stopped short
    assert sent[:20].tolist() == motion.joints[:20].tolist()
    assert sent[-1, 0] - sent[19, 0] == pytest.approx(
        0.5 * limits.joint_velocities[0] * 0.25, rel=0.1
    )
    # On the joint line, within the limits, ending at rest: the stream's finite differences.
    stream_rows = np.vstack((home, home, sent, sent[-1], sent[-1]))
    velocity = np.abs(np.diff(stream_rows, axis=0)) / limits.period
    acceleration = np.abs(np.diff(stream_rows, n=2, axis=0)) / limits.period**2
    assert np.all(velocity <= np.array(limits.joint_velocities) * (1 + 1e-9))
    assert np.all(acceleration <= np.array(limits.joint_accelerations) * (1 + 1e-9))
    share = (sent - home) @ (np.subtract(goal, home)) / np.sum(np.subtract(goal, home) ** 2)
    assert np.abs(sent - (home + share[:, None] * np.subtract(goal, home))).max() < 1e-12
    assert outcome.final == recorder.sent[-1]
    assert outcome.message.startswith("canceled by the client; decelerated along its path in ")
    assert "; the arm stays at (" in outcome.message
    assert recorder.feedback[-1] <= 20  # no feedback while it stops


@pytest.mark.parametrize(
    ("count", "closed_after", "counts"),
    [(1, 0, (0, 1)), (12, 5, (5, 12)), (12, 12, (12, 12))],
    ids=["before-the-first-setpoint", "mid-stream", "waiting-for-arrival"],
)
def test_the_shutdown_reports_the_goal_s_own_setpoints_wherever_it_finds_it(
    count: int, closed_after: int, counts: tuple[int, int]
) -> None:
    """SHUTDOWN with the goal's own plan (total) and how many of its setpoints went out: before
    the first (0 of 1: what a shutdown round once saw for a goal planned from where the arm
    already was), mid-stream (the stop's setpoints not counted), and while the goal waits for
    the arm to reach its last setpoint (all of them)."""
    home = tuple(CONFIG.home)
    monitor = JointStateMonitor()
    monitor.update(home)
    recorder = Recorder(monitor, follow=False)  # the arm stays home: the goal waits for it
    admission = Admission()
    run = admission.admit(b"1", move())
    publish = recorder.publish

    def publish_then_close(joints):
        answer = publish(joints)
        if len(recorder.sent) == closed_after:
            admission.close(timeout=0.0)
        return answer

    recorder.publish = publish_then_close
    if closed_after == 0:
        admission.close(timeout=0.0)
    outcome = stream(recorder).run(run, setpoints(count), home, total_steps=40)
    assert outcome.status == Result.SHUTDOWN, outcome.message
    assert (outcome.sent_setpoints, outcome.total_setpoints) == counts
    assert outcome.total_steps == 40
    assert recorder.sent[: counts[0]] == [tuple(r) for r in setpoints(count).joints[: counts[0]]]


def test_a_canceled_stream_without_a_path_stops_at_once_at_the_last_setpoint():
    monitor = JointStateMonitor()
    monitor.update(tuple(CONFIG.home))
    admission = Admission()
    run = admission.admit(b"1", move())
    recorder = Recorder(monitor, stop_after=(3, run, Result.CANCELED))
    outcome = stream(recorder).run(run, setpoints(), tuple(CONFIG.home), total_steps=40)
    assert outcome.status == Result.CANCELED
    assert len(recorder.sent) == 3
    assert outcome.final == recorder.sent[-1]
    assert outcome.message.startswith(
        "canceled by the client; held at its last setpoint (no path to decelerate along); "
        "the arm stays at ("
    )


def test_joint_states_that_stop_during_the_move_end_it_as_a_hardware_fault():
    monitor = JointStateMonitor()
    monitor.update(tuple(CONFIG.home))  # then never again
    recorder = Recorder(monitor, follow=False)
    run = Admission().admit(b"1", move())
    outcome = stream(recorder, watchdog=0.02).run(
        run, setpoints(count=200), tuple(CONFIG.home), total_steps=1
    )
    assert outcome.status == Result.HARDWARE_FAULT
    assert "joint_states stopped for 0.02 s during the move" in outcome.message
    assert "stopped at once (no deceleration: the hardware does not answer)" in outcome.message
    assert 0 < len(recorder.sent) < 200
    assert outcome.final == recorder.sent[-1]


def test_an_arm_that_does_not_arrive_is_a_hardware_fault_after_the_watchdog():
    monitor = JointStateMonitor()
    home = tuple(CONFIG.home)
    monitor.update(home)
    recorder = Recorder(monitor, follow=False)
    done = threading.Event()

    def stuck_hardware():  # fresh joint_states that stay at home
        while not done.wait(0.005):
            monitor.update(home)

    hardware = threading.Thread(target=stuck_hardware)
    hardware.start()
    try:
        run = Admission().admit(b"1", move())
        outcome = stream(recorder, watchdog=0.2).run(run, setpoints(), home, total_steps=1)
    finally:
        done.set()
        hardware.join()
    assert outcome.status == Result.HARDWARE_FAULT
    assert "did not reach the last setpoint" in outcome.message
    assert "(joint_states: (0.00, 45.00) deg)" in outcome.message
    assert len(recorder.sent) == 12


def test_wait_fresh_returns_the_next_joint_states_or_none_when_stopped():
    monitor = JointStateMonitor()
    wake = threading.Event()
    found: list = []
    waiter = threading.Thread(target=lambda: found.append(monitor.wait_fresh(10.0, wake)))
    waiter.start()
    monitor.update((0.1, 0.2))
    waiter.join(timeout=10)
    assert found == [(0.1, 0.2)]
    wake.set()
    assert JointStateMonitor().wait_fresh(10.0, wake) is None


# --- the IK batch adapter ----------------------------------------------------------------------


def test_a_batch_request_asks_for_closest_with_the_seed_and_every_target_answered():
    points = np.array([[0.12, 0.05, 0.3], [0.13, 0.05, 0.4]])
    request = batch_request(points, (0.1, 0.2), ["shoulder", "elbow"], "base_link")
    assert (list(request.x), list(request.y), list(request.tool_angle)) == (
        [0.12, 0.13],
        [0.05, 0.05],
        [0.3, 0.4],
    )
    assert list(request.z) == []  # on the arm's plane
    assert request.orientation_mode == SolveIKBatch.Request.TOOL_ANGLE
    assert request.branch == SolveIK.Request.BRANCH_CLOSEST
    assert list(request.seed.name) == ["shoulder", "elbow"]
    assert list(request.seed.position) == [0.1, 0.2]
    assert not request.stop_on_failure


def test_batch_answers_reorder_the_joints_and_spread_a_request_refusal_over_every_target():
    response = SolveIKBatch.Response()
    response.joint_names = ["elbow", "shoulder"]
    response.statuses = bytes([SolveIK.Response.OK, SolveIK.Response.TOO_FAR])
    response.positions = [0.2, 0.1, math.nan, math.nan]
    response.message = "1 of 2 targets solved"
    answers = batch_answers(response, ["shoulder", "elbow"], 2)
    assert answers.status.tolist() == [0, 2]
    assert answers.joints[0].tolist() == [0.1, 0.2]
    assert answers.explain(1) == "1 of 2 targets solved"
    # A failing step is explained by the target's own reason, not the batch's counts.
    response.status = SolveIK.Response.TOO_FAR
    response.message = "1 of 2 targets solved; first failure at index 1 (TOO_FAR): TOO_FAR: far"
    assert batch_answers(response, ["shoulder", "elbow"], 2).explain(1) == "TOO_FAR: far"
    refused = SolveIKBatch.Response(status=SolveIK.Response.WRONG_FRAME, message="frame 'x'")
    refused.joint_names = ["shoulder", "elbow"]
    answers = batch_answers(refused, ["shoulder", "elbow"], 3)
    assert answers.status.tolist() == [SolveIK.Response.WRONG_FRAME] * 3
    assert np.isnan(answers.joints).all()
    with pytest.raises(IkUnavailableError, match="both nodes must read the same params file"):
        batch_answers(response, ["shoulder", "wrist"], 2)


class FakeClient:
    """An rclpy client without a graph: ready or not, answering or silent."""

    def __init__(self, ready: bool, response=None) -> None:
        self.ready = ready
        self.response = response
        self.removed = 0

    def service_is_ready(self) -> bool:
        return self.ready

    def call_async(self, _request):
        from rclpy.task import Future

        future = Future()
        if self.response is not None:
            future.set_result(self.response)
        return future

    def remove_pending_request(self, _future) -> None:
        self.removed += 1


def client(fake: FakeClient, timeout: float = 0.05) -> IkBatchClient:
    return IkBatchClient(fake, "/solve_ik_batch", ["shoulder", "elbow"], "base_link", timeout)


def test_the_ik_client_reports_an_absent_or_silent_service_and_a_stopped_goal():
    points = np.array([[0.12, 0.05]])
    never = threading.Event()
    with pytest.raises(IkUnavailableError, match="'/solve_ik_batch' was not found within"):
        client(FakeClient(ready=False)).solve(points, None, never)
    silent = FakeClient(ready=True)
    with pytest.raises(IkUnavailableError, match=r"did not answer within ik_timeout_s = 0\.05 s"):
        client(silent).solve(points, None, never)
    assert silent.removed == 1  # the abandoned request does not linger
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(IkInterruptedError):
        client(FakeClient(ready=True), timeout=30.0).solve(points, None, stopped)
    response = SolveIKBatch.Response(joint_names=["shoulder", "elbow"], message="ok")
    response.statuses = bytes([0])
    response.positions = [0.1, 0.2]
    answers = client(FakeClient(ready=True, response=response)).solve(points, None, never)
    assert answers.joints.tolist() == [[0.1, 0.2]]


class DroppingClient(FakeClient):
    """A ready client whose first request gets no answer, as when Fast DDS drops a response."""

    def __init__(self, response) -> None:
        super().__init__(ready=True, response=response)
        self.sent = 0

    def call_async(self, request):
        from rclpy.task import Future

        self.sent += 1
        return Future() if self.sent == 1 else super().call_async(request)


def test_the_ik_client_sends_a_request_again_whose_answer_was_dropped():
    response = SolveIKBatch.Response(joint_names=["shoulder", "elbow"], message="ok")
    response.statuses = bytes([0])
    response.positions = [0.1, 0.2]
    dropping = DroppingClient(response)
    ik = IkBatchClient(dropping, "/solve_ik_batch", ["shoulder", "elbow"], "base_link", 30.0, 0.05)
    answers = ik.solve(np.array([[0.12, 0.05]]), None, threading.Event())
    assert answers.joints.tolist() == [[0.1, 0.2]]
    assert (dropping.sent, dropping.removed) == (2, 1)  # the lost request withdrawn


# --- a goal's plan -----------------------------------------------------------------------------


def test_a_feasible_line_plans_setpoints_and_an_infeasible_one_ends_with_its_step():
    run = Admission().admit(b"1", move())
    start = tuple(CONFIG.home)
    planned = plan_move(ARM, CONFIG, move(0.12, 0.05), start, chain_solver(ARM), run)
    assert isinstance(planned, PlannedMove)
    # A point at every setpoint of the tool's own timing (under 1 mm apart at 0.05 m/s): from
    # rest up to 0.05 m/s at 0.3 m/s^2 and down again, within 0.1 % of them. From home the
    # elbow would start at 8.6 rad/s^2 that way, over its 8.38: the joints' timing is a little
    # slower, and its setpoints solved on the line in a second call.
    length = math.dist(ARM.forward(start)[:2], (0.12, 0.05))
    seconds = length / 0.04995 + 0.04995 / 0.2997
    assert planned.total_steps == math.ceil(seconds / 0.02) == 46
    assert len(planned.setpoints) == 47
    assert ARM.forward(planned.setpoints.joints[-1])[:2] == pytest.approx((0.12, 0.05), abs=1e-9)
    assert planned.setpoints.follower is not None  # a stop decelerates along the line
    failed = plan_move(ARM, CONFIG, move(0.3, 0.0), start, chain_solver(ARM), run)
    assert failed.status == Result.IK_FAILED
    assert failed.ik_status == SolveIK.Response.TOO_FAR
    assert failed.message.endswith("of the path is feasible; nothing moved")
    assert len(failed.path_points) == failed.total_steps
    assert failed.final == start


def test_a_named_pose_s_joint_line_through_the_envelope_is_refused_before_anything_moves():
    """A named pose's JOINT move goes to its joints without IK; its straight joint line is
    checked against the workspace envelope all the same, as a solved JOINT goal's is."""
    start = tuple(CONFIG.home)
    goal = (start[0] + 1.2, start[1])  # the shoulder turned: the tool sweeps over (0.097, 0.135)
    box = (0.087, 0.125, -0.05, 0.107, 0.145, 0.05)
    arm = ARM.with_envelope(Envelope(ARM.bare, link_radius=0.01, keep_out_boxes=[box]))
    assert arm.envelope.check(start) is None
    assert arm.envelope.check(goal) is None
    options = plan_options(CONFIG, MoveArm.Goal.JOINT, 1.0)
    named = Move(MoveArm.Goal.JOINT, tuple(arm.forward(goal)[:2]), options, joints=goal)
    run = Admission().admit(b"1", named)
    refused = plan_move(arm, CONFIG, named, start, chain_solver(arm), run)
    assert refused.status == Result.IK_FAILED
    assert refused.ik_status == SolveIK.Response.OUTSIDE_WORKSPACE
    assert "the joints' straight line to" in refused.message
    assert "inside keep-out box 1" in refused.message
    assert refused.message.endswith("of the path is feasible; nothing moved")
    assert 0.0 < refused.feasible_fraction < 1.0
    assert refused.final == start
    planned = plan_move(ARM, CONFIG, named, start, chain_solver(ARM), run)  # without the box
    assert isinstance(planned, PlannedMove)
    assert planned.setpoints.joints[-1] == pytest.approx(goal, abs=1e-12)


def test_a_plan_ends_invalid_unavailable_or_stopped_without_anything_moving():
    run = Admission().admit(b"1", move())
    start = tuple(CONFIG.home)
    tiny = move(0.12, 0.05, max_step=1e-7)
    with pytest.raises(Refusal, match=rf"the most is {MAX_PLAN_POINTS}") as refused:
        plan_move(ARM, CONFIG, tiny, start, chain_solver(ARM), run)
    outcome = invalid_goal(refused.value, final=start)  # as the node ends the goal
    assert (outcome.status, outcome.final) == (Result.INVALID_GOAL, start)
    assert outcome.message == refused.value.message

    def unavailable(_points, _seed) -> IkAnswers:
        raise IkUnavailableError("IK service '/solve_ik_batch' was not found within 1 s")

    outcome = plan_move(ARM, CONFIG, move(), start, unavailable, run)
    assert outcome.status == Result.IK_UNAVAILABLE
    assert outcome.message.endswith("was not found within 1 s: nothing moved")

    def interrupted(_points, _seed) -> IkAnswers:
        run.stop(Result.PREEMPTED, "preempted by a newer goal")
        raise IkInterruptedError()

    outcome = plan_move(ARM, CONFIG, move(), start, interrupted, run)
    assert outcome.status == Result.PREEMPTED
    assert outcome.final == start


# --- markers -----------------------------------------------------------------------------------


def test_abort_markers_clear_then_draw_the_feasible_part_and_label_the_failing_step():
    draw = TrajectoryMarkers("base_link", 0.01)
    points = np.array([[0.1 + 0.01 * i, 0.05, 0.02] for i in range(1, 6)])
    markers = draw.abort(
        (0.1, 0.05, 0.02), points, 3, Result.IK_FAILED, SolveIK.Response.TOO_FAR, Time()
    )
    kinds = [(m.ns, m.type) for m in markers.markers]
    assert markers.markers[0].action == Marker.DELETEALL
    assert ("feasible_path", Marker.LINE_STRIP) in kinds
    feasible = markers.markers[kinds.index(("feasible_path", Marker.LINE_STRIP))]
    assert len(feasible.points) == 4  # the start and the three feasible points
    assert [p.x for p in feasible.points] == pytest.approx([0.1, 0.11, 0.12, 0.13])
    assert {p.z for p in feasible.points} == {0.02}
    label = markers.markers[kinds.index(("failed_step", Marker.TEXT_VIEW_FACING))]
    assert label.text == "IK_FAILED (TOO_FAR) at step 3/5"
