"""Pure tests of the trajectory math: line paths, setpoints on the line, JOINT moves.

Every setpoint of a LINEAR move must be an IK solution of a point on the line, no joint may
move more than its velocity limit times the period between two setpoints, and the last setpoint
must be the goal. Numbers are checked against independent geometry (distance to the line,
forward kinematics), not against the code's own intermediate values. The setpoints come from
`plan_line` with a command period, solved by `chain_solver` (what the IK node's batch runs).
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
    PlanarArm,
    PlanStatus,
    chain_solver,
    first_joint_jump,
    plan_line,
)
from arm_kinematics.kinematics.planning.joint_plan import joint_move_duration, joint_setpoints

PERIOD = 0.02
LIMIT = math.radians(120.0)
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


def plan(
    arm,
    start_joints,
    goal,
    *,
    speed=0.05,
    max_step=0.001,
    limits=None,
    period=PERIOD,
    max_joint_step=MAX_JUMP,
    solve=None,
):
    """plan_line from the tip of `start_joints` with this file's defaults: LIMIT rad/s on
    every joint, PERIOD, MAX_JUMP. `goal` is (x, y) or (x, y, heading)."""
    x0, y0, h0 = arm.forward(start_joints)
    start = (x0, y0, h0) if len(goal) == 3 else (x0, y0)
    return plan_line(
        arm,
        start,
        goal,
        max_step,
        start_joints,
        solve=solve,
        speed=speed,
        joint_velocity_limits=limits or [LIMIT] * arm.n_joints,
        max_joint_step=max_joint_step,
        period=period,
    )


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


# --- resampling a LINEAR move --------------------------------------------------------------------


def test_setpoints_lie_on_the_line_end_on_the_goal_and_respect_speed_and_joint_limits():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    goal = (x0 - 0.8, y0 + 0.6)  # a 1 m line well inside the ring
    _, setpoints = line_setpoints(BIG_ARM, start_joints, goal, speed=0.05)
    off, progress = distance_to_line(setpoints.tips, (x0, y0), goal)
    assert off.max() < 1e-9
    assert np.all(np.diff(progress) > 0)  # always forward
    assert setpoints.tips[-1, :2] == pytest.approx(goal, abs=1e-9)
    steps = np.abs(np.diff(np.vstack((start_joints, setpoints.joints)), axis=0))
    assert steps.max() <= LIMIT * PERIOD * (1 + 1e-12)
    # 0.05 m/s is slow for this arm: no joint limits it, so the tool moves 1 mm per period.
    travel = np.hypot(*np.diff(np.vstack(((x0, y0), setpoints.tips[:, :2])), axis=0).T)
    assert travel == pytest.approx(0.05 * PERIOD, rel=1e-9)
    assert len(setpoints) == 1000
    assert setpoints.duration == pytest.approx(20.0)


def test_joint_velocity_limits_slow_the_tool_and_are_never_exceeded():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    goal = (x0 - 0.8, y0 + 0.6)
    speed = 2.0  # 40 mm per period: far more than 120 deg/s of joint speed allows here
    _, setpoints = line_setpoints(BIG_ARM, start_joints, goal, speed=speed)
    joints = np.vstack((start_joints, setpoints.joints))
    ratio = (np.abs(np.diff(joints, axis=0)) / (LIMIT * PERIOD)).max(axis=1)
    assert ratio.max() <= 1.0 + 1e-12
    assert ratio.max() > 0.99  # the binding joint runs at (almost) its limit
    travel = np.hypot(*np.diff(np.vstack(((x0, y0), setpoints.tips[:, :2])), axis=0).T)
    assert travel.max() <= speed * PERIOD * (1 + 1e-12)
    assert setpoints.duration > 1.0 / speed  # slower than the requested speed
    off, _ = distance_to_line(setpoints.tips, (x0, y0), goal)
    assert off.max() < 1e-9
    assert setpoints.tips[-1, :2] == pytest.approx(goal, abs=1e-9)


def test_the_tool_slows_down_near_a_singularity_and_keeps_full_speed_elsewhere():
    # A line running out to 0.5 mm short of full stretch (r = 1.7995 of 1.8): near the end the
    # elbow must swing fast (dq2/dr grows like 1/sin(q2), ~50 rad/m there), so the tool slows
    # below its 0.2 m/s; at the start (r = 1.5, dq2/dr ~ 2 rad/m) it runs at the requested speed.
    arm, start, goal, speed = STRETCH_ARM, STRETCH_START, STRETCH_GOAL, 0.2
    start_joints = STRETCH_START_JOINTS
    _, setpoints = line_setpoints(arm, start_joints, goal, speed=speed)
    travel = np.hypot(*np.diff(np.vstack((start, setpoints.tips[:, :2])), axis=0).T)
    # Full speed: the line in a whole number of periods, just below 0.2 m/s (75 periods).
    periods = math.ceil((goal[0] - start[0]) / (speed * PERIOD))
    full_speed = (goal[0] - start[0]) / (periods * PERIOD)
    assert speed * (1 - 1 / periods) < full_speed <= speed
    assert travel[:10] == pytest.approx(full_speed * PERIOD, rel=1e-9)
    assert travel[-3:].mean() < 0.5 * speed * PERIOD
    assert np.all(np.diff(travel[-6:]) < 0.0)  # slower and slower towards full stretch
    assert setpoints.duration > (goal[0] - start[0]) / speed + PERIOD
    steps = np.abs(np.diff(np.vstack((start_joints, setpoints.joints)), axis=0))
    assert steps.max() <= LIMIT * PERIOD * (1 + 1e-12)
    assert steps.max() > 0.95 * LIMIT * PERIOD  # the elbow runs (almost) at its limit
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
    # both ends reachable, the line between them is not. Streamed at 0.05 m/s, the plan has a
    # point at every setpoint (1 mm), and the first one in the hole refuses the line.
    arm = PlanarArm((1.0, 0.8))
    start_joints = arm.solve(0.5, 0.1, branch=Branch.ELBOW_DOWN).joints
    assert plan(arm, start_joints, (-0.5, 0.1), max_step=10.0, period=None).total_steps == 1
    result = plan(arm, start_joints, (-0.5, 0.1), max_step=10.0, max_joint_step=math.pi)
    assert result.total_steps == 1000  # 1 m at 1 mm per period
    assert result.status == IkStatus.TOO_CLOSE
    assert result.setpoints is None
    x, y = result.failed_point
    assert math.hypot(x, y) < 0.2
    assert result.failed_point == pytest.approx((0.5 - 0.001 * (result.failed_step + 1), 0.1))
    assert math.hypot(0.5 - 0.001 * result.failed_step, 0.1) >= 0.2  # the first in the hole
    assert f"step {result.failed_step} of 1000 at" in result.message


def test_a_setpoint_of_a_later_call_without_ik_refuses_the_line_naming_its_plan_step():
    # Where the elbow slows the tool (near full stretch), the setpoints move off the plan
    # points and are solved in a second call; one of them failing refuses the whole line.
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
    # The plan step whose segment holds it: between plan points failed_step - 1 and failed_step.
    step = result.failed_step
    assert 1.5 + 0.2995 * step / result.total_steps < failed_at[0][0]
    assert failed_at[0][0] < 1.5 + 0.2995 * (step + 1) / result.total_steps
    assert f"step {step} of {result.total_steps}: the setpoint at" in result.message
    assert f"before planned point {step} fails:" in result.message


def test_a_plan_that_flips_branch_at_a_point_is_refused_as_a_joint_jump():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    point_2 = (x0 - 0.15, y0)  # plan point 150 of 200 on the 0.2 m line (one per setpoint)

    def mirror_point_2(call, targets, answers):
        # The other elbow at that plan point, as a silently flipping solver would answer.
        for index, target in enumerate(targets.tolist()):
            if math.dist(target, point_2) < 1e-12:
                mirrored = BIG_ARM.solve(*target, branch=Branch.ELBOW_UP)
                assert mirrored.ok
                answers.joints[index] = mirrored.joints
        return answers

    solver = RecordingSolver(BIG_ARM, mirror_point_2)
    result = plan(BIG_ARM, start_joints, (x0 - 0.2, y0), max_step=0.05, solve=solver)
    assert result.status == PlanStatus.JOINT_JUMP
    assert result.total_steps == 200
    assert result.failed_step == 149
    assert result.failed_point == pytest.approx(point_2, abs=1e-12)
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


@pytest.mark.parametrize(("speed", "per_setpoint"), [(0.05, 1), (0.1, 2), (0.3, 6), (0.02, 1)])
def test_a_line_no_joint_slows_takes_one_solve_call_each_setpoint_a_plan_point(speed, per_setpoint):
    # 0.1118 m at 1 mm: 112 periods at 0.05 m/s (a point each), 56 at 0.1 m/s (two points
    # each), 19 at 0.3 m/s (six each: 114 points), 280 at 0.02 m/s (a point each, 0.4 mm).
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
    periods = math.ceil(length / (speed * PERIOD))
    assert len(result.setpoints) == periods
    assert result.total_steps == len(targets) == periods * per_setpoint
    assert result.total_steps >= math.ceil(length / 0.001)  # at most max_step apart
    # In order along the line (each target seeded by the one before), each point once, and
    # every k-th one a setpoint's tip: the setpoints' IK is the plan's.
    off, progress = distance_to_line(targets, (x0, y0), goal)
    assert off.max() < 1e-12
    assert np.diff(progress) == pytest.approx(1 / len(targets), rel=1e-6)
    assert result.setpoints.tips[:, :2] == pytest.approx(
        targets[per_setpoint - 1 :: per_setpoint], abs=1e-12
    )
    assert result.setpoints.joints == pytest.approx(
        result.joints[per_setpoint - 1 :: per_setpoint], abs=1e-12
    )


def test_where_a_joint_slows_the_tool_the_setpoints_from_there_take_a_second_call():
    start_joints = (0.0, math.pi / 4)
    x0, y0, _ = BIG_ARM.forward(start_joints)
    solver = RecordingSolver(BIG_ARM)
    result = plan(BIG_ARM, start_joints, (x0 - 0.1, y0 + 0.05), speed=2.0, solve=solver)
    assert result.ok
    assert result.solve_calls == len(solver.calls) == 2
    (_, first_seed), (targets, second_seed) = solver.calls
    assert first_seed == start_joints
    # The joints bind from the first step at 2 m/s: every setpoint is solved again, from the start.
    assert second_seed == start_joints
    assert result.setpoints.tips[:, :2] == pytest.approx(targets, abs=1e-9)


def test_setpoints_that_come_out_too_fast_are_slowed_by_a_further_call_never_exceeded():
    # A coarse plan (a point per 1 cm setpoint at 0.5 m/s, max_step 5 cm) into the fast region
    # near full stretch: the joints are far from linear between plan points, so the setpoints
    # solved after the slowdown exceed the elbow's limit somewhere; the planner slows that
    # stretch and solves again.
    arm, start_joints = STRETCH_ARM, STRETCH_START_JOINTS
    solver = RecordingSolver(arm)
    result = plan(
        arm, start_joints, (1.79, 0.0), speed=0.5, max_step=0.05, max_joint_step=0.6, solve=solver
    )
    assert result.ok, result.message
    assert result.solve_calls == len(solver.calls) > 2
    setpoints = result.setpoints
    steps = np.abs(np.diff(np.vstack((start_joints, setpoints.joints)), axis=0))
    assert steps.max() <= LIMIT * PERIOD * (1 + 1e-12)
    assert np.abs(setpoints.tips[:, 1]).max() < 1e-9
    assert setpoints.tips[-1, :2] == pytest.approx((1.79, 0.0), abs=1e-9)


@pytest.mark.parametrize(
    ("speed", "period", "message"),
    [(0.0, PERIOD, "speed"), (-1.0, PERIOD, "speed"), (0.05, 0.0, "period")],
)
def test_plan_refuses_bad_speed_or_period(speed, period, message):
    with pytest.raises(ValueError, match=message):
        plan(BIG_ARM, (0.0, 0.5), (1.4, 0.5), speed=speed, period=period)


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
    result = plan(
        arm,
        start,
        (x1, y1),
        speed=speed,
        limits=config.max_velocities,
        max_joint_step=config.trajectory.max_joint_step,
    )
    assume(result.ok)
    setpoints = result.setpoints
    off, progress = distance_to_line(setpoints.tips, (x0, y0), (x1, y1))
    assert off.max() < 1e-9
    assert np.all(np.diff(progress) > 0)
    assert setpoints.tips[-1, :2] == pytest.approx((x1, y1), abs=1e-9)
    steps = np.abs(np.diff(np.vstack((start, setpoints.joints)), axis=0))
    assert np.all(steps <= np.asarray(config.max_velocities) * PERIOD * (1 + 1e-12))
    assert all(arm.within_limits(q) for q in setpoints.joints)


# --- JOINT moves -------------------------------------------------------------------------------


def test_joint_move_reaches_the_goal_in_step_with_every_joint_within_its_share_of_the_limit():
    start, goal = (0.0, math.pi / 4), (0.8, -0.3)
    limits = (LIMIT, LIMIT / 2)
    duration = joint_move_duration(start, goal, limits, 0.5)
    # Joint 2 moves 1.085 rad at 60 deg/s * 0.5: it sets the pace.
    assert duration == pytest.approx(abs(-0.3 - math.pi / 4) / (0.5 * LIMIT / 2))
    setpoints = joint_setpoints(
        BIG_ARM, start, goal, velocity_limits=limits, speed_fraction=0.5, period=PERIOD
    )
    assert len(setpoints) == math.ceil(duration / PERIOD)
    assert tuple(setpoints.joints[-1]) == goal
    steps = np.abs(np.diff(np.vstack((start, setpoints.joints)), axis=0))
    assert np.all(steps <= 0.5 * np.asarray(limits) * PERIOD * (1 + 1e-12))
    # The joints move together: every setpoint is the same fraction of the way for both.
    fractions = (setpoints.joints - start) / (np.asarray(goal) - start)
    assert fractions[:, 0] == pytest.approx(fractions[:, 1], abs=1e-12)


def test_joint_move_tool_path_leaves_the_straight_line():
    start, goal = (0.0, math.pi / 4), (0.8, -0.3)
    setpoints = joint_setpoints(
        BIG_ARM, start, goal, velocity_limits=(LIMIT, LIMIT), speed_fraction=1.0, period=PERIOD
    )
    a, b = BIG_ARM.forward(start)[:2], BIG_ARM.forward(goal)[:2]
    off, _ = distance_to_line(setpoints.tips, a, b)
    assert off.max() > 0.05  # 5 cm off the chord: a curve, not a line
    assert setpoints.tips[-1, :2] == pytest.approx(b, abs=1e-12)


def test_joint_move_of_zero_length_is_the_goal_once():
    setpoints = joint_setpoints(
        BIG_ARM,
        (0.1, 0.2),
        (0.1, 0.2),
        velocity_limits=(LIMIT, LIMIT),
        speed_fraction=1.0,
        period=PERIOD,
    )
    assert setpoints.joints.tolist() == [[0.1, 0.2]]


@pytest.mark.parametrize("fraction", [0.0, 1.5, math.nan])
def test_joint_move_refuses_a_speed_fraction_outside_0_1(fraction):
    with pytest.raises(ValueError, match="speed_fraction"):
        joint_move_duration((0.0, 0.0), (0.1, 0.1), (LIMIT, LIMIT), fraction)
