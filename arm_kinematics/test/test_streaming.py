"""Pure tests of the trajectory math: line paths, setpoints on the line, JOINT moves.

Every setpoint of a LINEAR move must be an IK solution of a point on the line, its finite
differences at the command period (the rest before and after included) must keep every joint's
velocity and acceleration limit and the tool's, and the last setpoint must be the goal. Numbers
are checked against independent geometry (distance to the line, forward kinematics, the
trapezoid of a rest-to-rest motion), not against the code's own intermediate values. The
setpoints come from `plan_line` with limits, solved by `chain_solver` (what the IK node's batch
runs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import (
    Branch,
    IkStatus,
    LinePath,
    MotionLimits,
    PlanarArm,
    PlanOptions,
    PlanStatus,
    chain_solver,
    first_joint_jump,
    plan_line,
)
from arm_kinematics.kinematics.planning import timing_stage
from arm_kinematics.kinematics.planning.joint_plan import joint_move_duration, joint_setpoints

PERIOD = 0.02
LIMIT = math.radians(120.0)  # rad/s
ACCELERATION = 4 * LIMIT  # rad/s^2: full speed in 0.25 s
TOOL_ACCELERATION = 1.0  # m/s^2
MAX_JUMP = math.radians(10.0)
HALF_PI = math.pi / 2
BIG_ARM = PlanarArm((1.0, 0.8), [(-HALF_PI, HALF_PI)] * 2)


def distance_to_line(points: np.ndarray, a: tuple[float, float], b: tuple[float, float]):
    """Distance of each (x, y) to the segment a-b's line, and the progress along it (0..1)."""
    a_, b_ = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    direction = b_ - a_
    length = float(np.linalg.norm(direction))
    rel = np.asarray(points, dtype=float)[:, :2] - a_
    cross = np.abs(rel[:, 0] * direction[1] - rel[:, 1] * direction[0]) / length
    return cross, rel @ direction / length**2


class RecordingSolver:
    """chain_solver(arm), recording each call's targets and seed; `tamper(call, targets,
    answers)` may change the answers' joints (to feed the planner a branch flip)."""

    def __init__(self, arm: PlanarArm, tamper=None) -> None:
        self.solve = chain_solver(arm)
        self.calls: list[tuple[np.ndarray, tuple | None]] = []
        self.tamper = tamper

    def __call__(self, points, seed):
        self.calls.append((points.copy(), seed))
        answers = self.solve(points, seed)
        if self.tamper is not None:
            answers = self.tamper(len(self.calls), points, answers)
        return answers


def limits_of(arm, speed=0.05, tool_acceleration=TOOL_ACCELERATION) -> MotionLimits:
    """This file's limits: LIMIT rad/s and ACCELERATION rad/s^2 on every joint, PERIOD, the
    tool at `speed` m/s and `tool_acceleration` m/s^2."""
    return MotionLimits(
        PERIOD,
        [LIMIT] * arm.n_joints,
        [ACCELERATION] * arm.n_joints,
        tool_speed=speed,
        tool_acceleration=tool_acceleration,
    )


def plan(
    arm,
    start_joints,
    goal,
    *,
    speed=0.05,
    max_step=0.001,
    limits=None,
    timed=True,
    max_joint_step=MAX_JUMP,
    solve=None,
):
    """plan_line from the tip of `start_joints` with this file's limits (`limits_of`) and
    MAX_JUMP; `timed` False: points and IK only. `goal` is (x, y) or (x, y, heading)."""
    x0, y0, h0 = arm.forward(start_joints)
    start = (x0, y0, h0) if len(goal) == 3 else (x0, y0)
    limits = (limits or limits_of(arm, speed)) if timed else None
    return plan_line(
        arm, start, goal, start_joints, PlanOptions(max_step, limits, max_joint_step, solve)
    )


def stream_peaks(start_joints, joints, limits: MotionLimits, start_tip=None, tips=None):
    """The largest ratio of each finite difference to its limit over the stream with the rest
    before and after: (joint velocity, joint acceleration, tool speed, tool acceleration),
    computed here from np.diff, independently of the planner's own check."""

    def padded(first, rows):
        rows = np.asarray(rows, dtype=float)
        return np.vstack((first, first, rows, rows[-1], rows[-1]))

    stream = padded(np.asarray(start_joints, dtype=float), joints)
    velocity = np.abs(np.diff(stream, axis=0)) / PERIOD
    acceleration = np.abs(np.diff(stream, n=2, axis=0)) / PERIOD**2
    peaks = [
        float((velocity / limits.joint_velocities).max()),
        float((acceleration / limits.joint_accelerations).max()),
    ]
    if tips is not None:
        tool = padded(np.asarray(start_tip, dtype=float), tips)
        speed = np.linalg.norm(np.diff(tool, axis=0), axis=1) / PERIOD
        accel = np.linalg.norm(np.diff(tool, n=2, axis=0), axis=1) / PERIOD**2
        peaks += [float(speed.max() / limits.tool_speed),
                  float(accel.max() / limits.tool_acceleration)]  # fmt: skip
    return peaks


def trapezoid_seconds(distance: float, speed: float, acceleration: float) -> float:
    """The shortest rest-to-rest time over `distance` within a speed and an acceleration."""
    if distance * acceleration <= speed * speed:
        return 2.0 * math.sqrt(distance / acceleration)
    return distance / speed + speed / acceleration


# A line out to 0.5 mm short of full stretch (r = 1.5 -> 1.7995 of 1.8) on an arm whose joints
# can take it: near the end the elbow must swing fast, so a joint sets the pace there.
STRETCH_ARM = PlanarArm((1.0, 0.8), [(-math.pi, math.pi)] * 2, singularity_margin=0.0)
STRETCH_START, STRETCH_GOAL = (1.5, 0.0), (1.7995, 0.0)
STRETCH_START_JOINTS = STRETCH_ARM.solve(*STRETCH_START, branch=Branch.ELBOW_DOWN).joints


def line_setpoints(arm, start_joints, goal, *, speed=0.05, max_step=0.001, limits=None):
    result = plan(arm, start_joints, goal, speed=speed, max_step=max_step, limits=limits)
    assert result.ok, result.message
    return result, result.setpoints


# --- LinePath ----------------------------------------------------------------------------------


def test_line_points_are_evenly_spaced_at_most_max_step_apart_and_end_on_the_goal():
    path = LinePath((0.1, 0.02), (0.03, 0.12))
    assert path.length == pytest.approx(math.hypot(0.07, 0.10))
    count = path.step_count(0.001)
    assert count == math.ceil(path.length / 0.001) == 123
    points = path.points(count)
    assert points.shape == (123, 2)
    steps = np.hypot(*np.diff(np.vstack(((0.1, 0.02), points)), axis=0).T)
    assert steps.max() <= 0.001
    assert steps.min() == pytest.approx(steps.max(), rel=1e-9)
    assert tuple(points[-1]) == (0.03, 0.12)  # exactly the goal
    for i in (0, 50, 122):  # points(count)[i] is at((i + 1) / count): seeds rely on it
        assert points[i] == pytest.approx(path.at((i + 1) / count)[:2], abs=1e-15)


def test_a_zero_length_line_is_one_step_onto_the_goal():
    path = LinePath((0.1, 0.05), (0.1, 0.05))
    assert path.step_count(0.001) == 1
    assert path.points(1).tolist() == [[0.1, 0.05]]


def test_heading_turns_the_short_way_and_counts_towards_the_step_count():
    # From 170 deg to -170 deg is a 20 deg turn through 180, not 340 deg back.
    path = LinePath((0.0, 0.0), (0.0, 0.0), (math.radians(170),), (math.radians(-170),))
    assert path.heading_change == pytest.approx(math.radians(20))
    # Turning in place: the wrist (0.05 m behind the tip) swings 0.05 * 20 deg = 17.5 mm.
    assert path.step_count(0.001, angle_radii=(0.05,)) == 18
    points = path.points(18)
    assert points[-1, 2] == pytest.approx(math.radians(-170))
    assert np.degrees(points[8, 2]) == pytest.approx(180.0, abs=1e-9) or np.degrees(
        points[8, 2]
    ) == pytest.approx(-180.0, abs=1e-9)


@pytest.mark.parametrize("bad", [0.0, -0.001, math.nan, math.inf])
def test_step_count_refuses_a_bad_max_step(bad):
    with pytest.raises(ValueError, match="max_step"):
        LinePath((0.0, 0.0), (0.1, 0.0)).step_count(bad)


# --- joint-jump check --------------------------------------------------------------------------


def test_first_joint_jump_finds_a_branch_flip_and_treats_nan_as_one():
    start = (0.0, 0.5)
    rows = np.array([[0.0, 0.55], [0.01, 0.6], [0.3, -0.6], [0.31, -0.62]])
    index, _ = first_joint_jump(BIG_ARM, start, rows, MAX_JUMP)
    assert index == 2
    index, _ = first_joint_jump(BIG_ARM, start, rows[:2], MAX_JUMP)
    assert index is None
    rows[1, 0] = math.nan
    assert first_joint_jump(BIG_ARM, start, rows, MAX_JUMP)[0] == 1
    # The first row is compared with the start pose.
    assert first_joint_jump(BIG_ARM, (1.0, 0.5), rows, MAX_JUMP)[0] == 0


def test_first_joint_jump_does_not_count_a_continuous_joint_crossing_pi():
    free = PlanarArm((1.0, 0.8))  # no limits: continuous joints wrapped to (-pi, pi]
    rows = np.array([[math.pi - 0.01, 0.5], [-math.pi + 0.01, 0.5]])
    index, unwrapped = first_joint_jump(free, (math.pi - 0.02, 0.5), rows, MAX_JUMP)
    assert index is None
    assert unwrapped[1, 0] == pytest.approx(math.pi + 0.01)


# --- the setpoints of a LINEAR move ------------------------------------------------------------


def test_setpoints_lie_on_the_line_end_on_the_goal_and_start_and_stop_within_the_limits():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    goal = (x0 - 0.8, y0 + 0.6)  # a 1 m line well inside the ring
    result, setpoints = line_setpoints(BIG_ARM, start_joints, goal, speed=0.05)
    off, progress = distance_to_line(setpoints.tips, (x0, y0), goal)
    assert off.max() < 1e-9
    assert np.all(np.diff(progress) > 0)  # always forward
    assert setpoints.tips[-1, :2] == pytest.approx(goal, abs=1e-9)
    limits = limits_of(BIG_ARM)
    peaks = stream_peaks(start_joints, setpoints.joints, limits, (x0, y0), setpoints.tips[:, :2])
    assert max(peaks) <= 1.0
    # 0.05 m/s is slow for this arm: no joint limits it, so the tool sets the pace: 1/20 s up
    # to its speed at 1 m/s^2, 1 mm per period, and 1/20 s down (0.1 % below both limits).
    travel = np.hypot(*np.diff(np.vstack(((x0, y0), setpoints.tips[:, :2])), axis=0).T)
    assert travel[0] == pytest.approx(0.5 * 0.999 * PERIOD**2, rel=1e-9)  # from rest
    assert travel[len(travel) // 2] == pytest.approx(0.04995 * PERIOD, rel=1e-9)
    assert peaks[3] == pytest.approx(0.999, rel=1e-6)  # the tool at its acceleration
    duration = trapezoid_seconds(1.0, 0.04995, 0.999)  # 20.07 s
    assert result.duration == pytest.approx(duration, rel=1e-9)
    assert len(setpoints) == math.ceil(duration / PERIOD) == 1004
    assert result.solve_calls == 1


def test_joint_limits_slow_the_tool_and_are_never_exceeded():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    goal = (x0 - 0.8, y0 + 0.6)
    # 2 m/s and 20 m/s^2: far more than 120 deg/s and 480 deg/s^2 of the joints allow here.
    speed, tool_acceleration = 2.0, 20.0
    limits = limits_of(BIG_ARM, speed, tool_acceleration)
    result = plan(BIG_ARM, start_joints, goal, limits=limits)
    setpoints = result.setpoints
    velocity, acceleration, tool_speed, tool_accel = stream_peaks(
        start_joints, setpoints.joints, limits, (x0, y0), setpoints.tips[:, :2]
    )
    assert max(velocity, acceleration, tool_speed, tool_accel) <= 1.0
    assert max(velocity, acceleration) > 0.95  # a joint runs (almost) at a limit
    assert setpoints.duration > 1.2 * trapezoid_seconds(1.0, speed, tool_acceleration)
    off, _ = distance_to_line(setpoints.tips, (x0, y0), goal)
    assert off.max() < 1e-9
    assert setpoints.tips[-1, :2] == pytest.approx(goal, abs=1e-9)
    assert result.solve_calls == 2


def test_the_tool_slows_down_near_a_singularity_and_keeps_its_speed_elsewhere():
    # A line running out to 0.5 mm short of full stretch (r = 1.7995 of 1.8): near the end the
    # elbow must swing fast (dq2/dr grows like 1/sin(q2), ~50 rad/m there), so the tool slows
    # below its 0.2 m/s; near the start (dq2/dr ~ 2 rad/m) it reaches the requested speed.
    arm, start, goal, speed = STRETCH_ARM, STRETCH_START, STRETCH_GOAL, 0.2
    start_joints = STRETCH_START_JOINTS
    _, setpoints = line_setpoints(arm, start_joints, goal, speed=speed)
    travel = np.hypot(*np.diff(np.vstack((start, setpoints.tips[:, :2])), axis=0).T) / PERIOD
    assert travel.max() > 0.95 * speed  # at (almost) full speed on the way
    assert travel[-4:-1].max() < 0.1 * speed  # crawling into full stretch
    limits = limits_of(arm, speed)
    peaks = stream_peaks(start_joints, setpoints.joints, limits, start, setpoints.tips[:, :2])
    assert max(peaks) <= 1.0
    assert max(peaks[:2]) > 0.9  # the elbow runs (almost) at a limit
    assert setpoints.duration > trapezoid_seconds(goal[0] - start[0], speed, TOOL_ACCELERATION)
    assert np.abs(setpoints.tips[:, 1]).max() < 1e-9  # on the line y = 0
    assert setpoints.tips[-1, :2] == pytest.approx(goal, abs=1e-9)


def test_three_joint_arm_follows_the_line_and_turns_the_heading_with_it():
    arm = ArmConfig.from_file(default_config_path("arm_3r.yaml")).make_arm()
    assert arm.n_joints == 3
    start_joints = (0.2, 0.6, 0.3)
    x0, y0, h0 = arm.forward(start_joints)
    goal = (x0 - 0.03, y0 - 0.02)
    goal_heading = h0 - math.radians(20)
    _, setpoints = line_setpoints(arm, start_joints, (*goal, goal_heading), speed=0.02)
    off, progress = distance_to_line(setpoints.tips, (x0, y0), goal)
    assert off.max() < 1e-9
    # The heading turns in proportion to the distance travelled.
    expected_heading = h0 + progress * (goal_heading - h0)
    assert setpoints.tips[:, 2] == pytest.approx(expected_heading, abs=1e-9)
    assert setpoints.tips[-1] == pytest.approx((*goal, goal_heading), abs=1e-9)


def test_a_coarse_max_step_cannot_skip_the_hole_every_setpoint_is_a_plan_point():
    # One plan point (the goal) alone would lie on the far side of the inner hole (r < 0.2):
    # both ends reachable, the line between them is not. Timed at 0.05 m/s, the plan has a
    # point at every setpoint (1 mm apart at full speed), and the first one in the hole
    # refuses the line.
    arm = PlanarArm((1.0, 0.8))
    start_joints = arm.solve(0.5, 0.1, branch=Branch.ELBOW_DOWN).joints
    assert plan(arm, start_joints, (-0.5, 0.1), max_step=10.0, timed=False).total_steps == 1
    result = plan(arm, start_joints, (-0.5, 0.1), max_step=10.0, max_joint_step=math.pi)
    setpoints = math.ceil(trapezoid_seconds(1.0, 0.04995, 0.999) / PERIOD)
    assert result.total_steps == setpoints == 1004
    assert result.status == IkStatus.TOO_CLOSE
    assert result.setpoints is None
    x, y = result.failed_point
    assert math.hypot(x, y) < 0.2
    assert y == pytest.approx(0.1)
    last_outside = result.points[-1]  # the plan point before it, out of the hole
    assert math.hypot(*last_outside) >= 0.2
    assert 0.0 < last_outside[0] - x < 0.0011  # a setpoint's travel apart
    assert f"step {result.failed_step} of 1004 at" in result.message


def test_a_setpoint_of_a_later_call_without_ik_refuses_the_line_naming_its_plan_step():
    # Where the elbow slows the tool (near full stretch), the setpoints are timed by toppra
    # and solved in a second call; one of them failing refuses the whole line.
    arm = STRETCH_ARM
    failed_at = []

    def fail_one_in_call_2(call, targets, answers):
        if call == 2:
            index = len(targets) // 2
            answers.status[index] = int(IkStatus.TOO_FAR)
            answers.joints[index] = math.nan
            failed_at.append(tuple(targets[index].tolist()))
        return answers

    solver = RecordingSolver(arm, fail_one_in_call_2)
    result = plan(arm, STRETCH_START_JOINTS, STRETCH_GOAL, speed=0.2, solve=solver)
    assert len(solver.calls) == 2
    assert result.status == IkStatus.TOO_FAR
    assert result.setpoints is None
    assert result.failed_point == pytest.approx(failed_at[0], abs=1e-12)
    # The plan step whose stretch holds it: between plan points failed_step - 1 and failed_step.
    step = result.failed_step
    points = solver.calls[0][0][:, 0]
    assert points[step - 1] < failed_at[0][0] <= points[step]
    assert f"step {step} of {result.total_steps}: the setpoint at" in result.message
    assert f"before planned point {step} fails:" in result.message


def test_a_plan_that_flips_branch_at_a_point_is_refused_as_a_joint_jump():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    flipped = []

    def mirror_point_150(call, targets, answers):
        # The other elbow at plan point 150, as a silently flipping solver would answer.
        mirrored = BIG_ARM.solve(*targets[150], branch=Branch.ELBOW_UP)
        assert mirrored.ok
        answers.joints[150] = mirrored.joints
        flipped.append(tuple(targets[150].tolist()))
        return answers

    solver = RecordingSolver(BIG_ARM, mirror_point_150)
    result = plan(BIG_ARM, start_joints, (x0 - 0.2, y0), max_step=0.05, solve=solver)
    assert result.status == PlanStatus.JOINT_JUMP
    assert result.failed_step == 150
    assert result.failed_point == pytest.approx(flipped[0], abs=1e-12)
    assert "branch flip" in result.message
    assert result.setpoints is None
    assert len(solver.calls) == 1  # no further setpoints are solved for a plan that fails


def test_a_setpoint_on_another_branch_between_plan_points_is_refused_as_a_joint_jump():
    # Where the elbow slows the tool, the setpoints of call 2 lie between plan points; the
    # first of them answered with the other elbow (12+ deg of elbow away) is a branch flip.
    arm = STRETCH_ARM
    mirrored_at = []

    def mirror_first_in_call_2(call, targets, answers):
        if call == 2:
            answers.joints[0] = arm.solve(*targets[0], branch=Branch.ELBOW_UP).joints
            mirrored_at.append(tuple(targets[0].tolist()))
        return answers

    solver = RecordingSolver(arm, mirror_first_in_call_2)
    result = plan(arm, STRETCH_START_JOINTS, STRETCH_GOAL, speed=0.2, solve=solver)
    assert len(solver.calls) == 2
    assert result.status == PlanStatus.JOINT_JUMP
    assert result.failed_point == pytest.approx(mirrored_at[0], abs=1e-12)
    assert "away from the plan (a branch flip)" in result.message
    assert result.setpoints is None


@pytest.mark.parametrize("speed", [0.02, 0.05, 0.1, 0.3])
def test_a_line_no_joint_slows_takes_one_solve_call_each_setpoint_a_plan_point(speed):
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    goal = (x0 - 0.1, y0 + 0.05)
    solver = RecordingSolver(BIG_ARM)
    result = plan(BIG_ARM, start_joints, goal, solve=solver, speed=speed)
    assert result.ok
    assert result.solve_calls == 1 == len(solver.calls)
    ((targets, seed),) = solver.calls
    assert seed == start_joints
    length = math.hypot(0.1, 0.05)
    count = math.ceil(trapezoid_seconds(length, 0.999 * speed, 0.999) / PERIOD)
    assert len(result.setpoints) == count
    assert result.total_steps == len(targets) >= count
    # In order along the line (each target seeded by the one before), at most max_step apart,
    # each point once, every setpoint's tip one of them: the setpoints' IK is the plan's.
    off, progress = distance_to_line(targets, (x0, y0), goal)
    assert off.max() < 1e-12
    assert np.all(np.diff(progress) > 0)
    assert np.diff(np.concatenate(([0.0], progress))).max() * length <= 0.001 * (1 + 1e-9)
    matches = [np.flatnonzero(np.all(np.isclose(targets, tip, atol=1e-12), axis=1))
               for tip in result.setpoints.tips[:, :2]]  # fmt: skip
    assert all(len(match) == 1 for match in matches)
    rows = [int(match[0]) for match in matches]
    assert result.setpoints.joints == pytest.approx(result.joints[rows], abs=1e-12)


def test_where_a_joint_slows_the_tool_the_setpoints_take_a_second_call():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    solver = RecordingSolver(BIG_ARM)
    limits = limits_of(BIG_ARM, 2.0, 20.0)
    result = plan(BIG_ARM, start_joints, (x0 - 0.1, y0 + 0.05), limits=limits, solve=solver)
    assert result.ok
    assert result.solve_calls == len(solver.calls) == 2
    (_, first_seed), (targets, second_seed) = solver.calls
    assert first_seed == start_joints
    # The joints bind at 2 m/s: the setpoints, timed by toppra, are solved in call 2.
    assert second_seed == start_joints
    assert result.setpoints.tips[:, :2] == pytest.approx(targets, abs=1e-9)


def test_setpoints_that_still_exceed_a_limit_are_retimed_slower_never_exceeded(monkeypatch):
    # toppra keeps the limits at its gridpoints on a spline through the planned joints; the
    # setpoints are checked, and where one still exceeds a limit the path is timed again a
    # little slower. Asked to plan 5 % over the limits, the first timing must be caught.
    monkeypatch.setattr(timing_stage, "JOINT_HEADROOM", 1.05)
    arm, start_joints = STRETCH_ARM, STRETCH_START_JOINTS
    solver = RecordingSolver(arm)
    result = plan(arm, start_joints, (1.79, 0.0), speed=0.5, solve=solver)
    assert result.ok, result.message
    assert result.solve_calls == len(solver.calls) >= 3
    limits = limits_of(arm, 0.5)
    tips = result.setpoints.tips[:, :2]
    assert (
        max(stream_peaks(start_joints, result.setpoints.joints, limits, STRETCH_START, tips)) <= 1
    )
    assert np.abs(tips[:, 1]).max() < 1e-9
    assert tips[-1] == pytest.approx((1.79, 0.0), abs=1e-9)


def test_a_path_no_timing_keeps_within_its_limits_fails_rather_than_exceed_them(monkeypatch):
    # Every timing asked 50 % over the limits: after MAX_RETIMES tries the plan gives up.
    monkeypatch.setattr(timing_stage, "JOINT_HEADROOM", 1.5)
    monkeypatch.setattr(timing_stage, "MAX_RETIMES", 0)
    result = plan(STRETCH_ARM, STRETCH_START_JOINTS, (1.79, 0.0), speed=0.5)
    assert result.status == PlanStatus.JOINT_JUMP
    assert result.setpoints is None
    assert "the joints cannot follow the line within their limits" in result.message
    assert "(limit " in result.message


_DEFAULT_ARM = ArmConfig.from_file()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    start=st.tuples(st.floats(-1.4, 1.4), st.floats(-1.4, 1.4)),
    goal=st.tuples(st.floats(-1.4, 1.4), st.floats(-1.4, 1.4)),
    speed=st.floats(0.01, 0.5),
)
def test_every_feasible_line_of_the_default_arm_streams_on_the_line_within_limits(
    start, goal, speed
):
    config = _DEFAULT_ARM
    arm = config.make_arm()
    x1, y1, _ = arm.forward(goal)
    x0, y0, _ = arm.forward(start)
    assume(math.dist((x0, y0), (x1, y1)) > 1e-4)
    limits = config.motion_limits(speed)
    result = plan(arm, start, (x1, y1), limits=limits,
                  max_joint_step=config.trajectory.max_joint_step)  # fmt: skip
    assume(result.ok)
    setpoints = result.setpoints
    off, progress = distance_to_line(setpoints.tips, (x0, y0), (x1, y1))
    assert off.max() < 1e-9
    assert np.all(np.diff(progress) > 0)
    assert setpoints.tips[-1, :2] == pytest.approx((x1, y1), abs=1e-9)
    assert max(stream_peaks(start, setpoints.joints, limits, (x0, y0), setpoints.tips[:, :2])) <= 1
    assert all(arm.within_limits(q) for q in setpoints.joints)


# --- JOINT moves -------------------------------------------------------------------------------


def test_joint_move_reaches_the_goal_in_step_from_rest_to_rest_within_the_limits():
    start, goal = (0.0, math.pi / 4), (0.8, -0.3)
    limits = MotionLimits(PERIOD, (LIMIT, LIMIT / 2), (ACCELERATION, ACCELERATION)).scaled(0.5)
    duration = joint_move_duration(start, goal, limits)
    # Joint 2 moves 1.085 rad at 0.5 of 60 deg/s (its share of the path: the slower one).
    assert duration == pytest.approx(
        trapezoid_seconds(abs(-0.3 - math.pi / 4), 0.5 * LIMIT / 2, ACCELERATION)
    )
    setpoints = joint_setpoints(BIG_ARM, start, goal, limits)
    assert len(setpoints) == math.ceil(duration / PERIOD)
    assert tuple(setpoints.joints[-1]) == goal
    assert max(stream_peaks(start, setpoints.joints, limits)) <= 1.0 + 1e-12
    # The joints move together: every setpoint is the same fraction of the way for both.
    fractions = (setpoints.joints - start) / (np.asarray(goal) - start)
    assert fractions[:, 0] == pytest.approx(fractions[:, 1], abs=1e-12)
    # From rest: the first period at the acceleration joint 2 (the longer way) allows.
    travel = abs(-0.3 - math.pi / 4)
    assert fractions[0, 0] == pytest.approx(0.5 * ACCELERATION / travel * PERIOD**2, rel=1e-9)


def test_joint_move_tool_path_leaves_the_straight_line():
    start, goal = (0.0, math.pi / 4), (0.8, -0.3)
    limits = MotionLimits(PERIOD, (LIMIT, LIMIT), (ACCELERATION, ACCELERATION))
    setpoints = joint_setpoints(BIG_ARM, start, goal, limits)
    a, b = BIG_ARM.forward(start)[:2], BIG_ARM.forward(goal)[:2]
    off, _ = distance_to_line(setpoints.tips, a, b)
    assert off.max() > 0.05  # 5 cm off the chord: a curve, not a line
    assert setpoints.tips[-1, :2] == pytest.approx(b, abs=1e-12)


def test_joint_move_of_zero_length_is_the_goal_once():
    limits = MotionLimits(PERIOD, (LIMIT, LIMIT), (ACCELERATION, ACCELERATION))
    setpoints = joint_setpoints(BIG_ARM, (0.1, 0.2), (0.1, 0.2), limits)
    assert setpoints.joints.tolist() == [[0.1, 0.2]]


@pytest.mark.parametrize("fraction", [0.0, 1.5, math.nan])
def test_joint_move_refuses_a_speed_fraction_outside_0_1(fraction):
    with pytest.raises(ValueError, match="speed fraction"):
        MotionLimits(PERIOD, (LIMIT, LIMIT), (ACCELERATION, ACCELERATION)).scaled(fraction)
