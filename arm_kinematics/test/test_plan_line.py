"""plan_line: straight Cartesian lines with IK per step, failures at the right step, timing.

The setpoints that plan_line also makes (with limits) are tested in test_streaming.py and, for
every shipped arm, test_motion_limits.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from arm_kinematics.kinematics import (
    Branch,
    IkStatus,
    LinePath,
    MotionLimits,
    PlanarArm,
    PlanOptions,
    PlanStatus,
    plan_line,
    wrap_angle,
)

ARM_2R = PlanarArm((1.0, 0.8))
SHOULDER_LIMITED = PlanarArm((1.0, 0.8), [(-math.pi / 2, math.pi / 2), (-math.pi, math.pi)])


def distance_to_line(point, start, goal) -> float:
    (x, y), (x0, y0), (x1, y1) = point, start, goal
    return abs((x1 - x0) * (y0 - y) - (x0 - x) * (y1 - y0)) / math.hypot(x1 - x0, y1 - y0)


def expected_points(start, goal, max_step):
    """The spacing rule, independently: N = ceil(length / max_step) equal steps."""
    count = math.ceil(math.hypot(goal[0] - start[0], goal[1] - start[1]) / max_step)
    return [
        (start[0] + k / count * (goal[0] - start[0]), start[1] + k / count * (goal[1] - start[1]))
        for k in range(1, count + 1)
    ]


def acos_ik_candidates(lengths, x, y):
    """Both 2R solutions by acos (a different formula from the core's atan2 form)."""
    l1, l2 = lengths
    c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    if not -1.0 <= c2 <= 1.0:
        return []
    result = []
    for theta2 in (math.acos(c2), -math.acos(c2)):
        theta1 = math.atan2(y, x) - math.atan2(l2 * math.sin(theta2), l1 + l2 * math.cos(theta2))
        result.append((wrap_angle(theta1), theta2))
    return result


def test_line_inside_the_workspace_stays_on_the_line() -> None:
    start, goal = (1.2, 0.3), (0.6, 1.0)
    current = ARM_2R.solve(*start).joints
    plan = plan_line(ARM_2R, start, goal, current, PlanOptions(0.01))
    assert plan.ok
    assert plan.status is IkStatus.OK
    assert plan.failed_step is None
    assert plan.failed_point is None
    assert plan.feasible_fraction == 1.0
    expected = expected_points(start, goal, 0.01)
    assert plan.total_steps == len(expected) == 93
    np.testing.assert_allclose(plan.points, expected, atol=1e-15)
    assert tuple(plan.points[-1]) == goal
    steps = np.diff(np.vstack(([start], plan.points)), axis=0)
    assert np.hypot(*steps.T).max() <= 0.01
    worst = 0.0
    for point, joints in zip(plan.points, plan.joints, strict=True):
        x, y, _ = ARM_2R.forward(joints)
        worst = max(worst, math.hypot(x - point[0], y - point[1]))
        worst = max(worst, distance_to_line((x, y), start, goal))
    assert worst < 1e-9
    x, y, _ = ARM_2R.forward(plan.joints[-1])
    assert math.hypot(x - goal[0], y - goal[1]) < 1e-9
    # Seeded by the previous step with CLOSEST: the branch of `current` is kept.
    assert np.all(np.sign(plan.joints[:, 1]) == np.sign(current[1]))


def test_line_through_the_hole_fails_at_the_first_step_inside() -> None:
    arm = PlanarArm((1.0, 0.5))  # hole of radius 0.5 around the base
    start, goal = (-1.0, 0.2), (1.0, 0.2)  # both ends reachable, passes 0.2 m from the base
    current = arm.solve(*start).joints
    plan = plan_line(arm, start, goal, current, PlanOptions(0.01))
    points = expected_points(start, goal, 0.01)
    inside = next(i for i, (x, y) in enumerate(points) if math.hypot(x, y) < 0.5 - 1e-6)
    assert inside == 54  # x = -0.45: the first point closer than 0.5 m (|x| < 0.458)
    assert plan.status is IkStatus.TOO_CLOSE
    assert plan.ik_status is IkStatus.TOO_CLOSE
    assert plan.failed_step == inside
    assert plan.failed_point == pytest.approx(points[inside], abs=1e-15)
    assert len(plan.points) == len(plan.joints) == inside
    assert plan.times is None  # without limits: points and IK only
    assert plan.feasible_fraction == inside / 200
    assert not plan.ok
    assert f"step {inside} of 200" in plan.message
    assert "TOO_CLOSE" in plan.message


def test_unreachable_goal_fails_at_the_first_step_outside() -> None:
    start, goal = (1.0, 0.5), (2.5, 0.5)
    plan = plan_line(ARM_2R, start, goal, ARM_2R.solve(*start).joints, PlanOptions(0.01))
    points = expected_points(start, goal, 0.01)
    outside = next(i for i, (x, y) in enumerate(points) if math.hypot(x, y) > 1.8 + 1e-6)
    assert plan.status is IkStatus.TOO_FAR
    assert plan.failed_step == outside == 72  # x = 1.73: hypot(x, 0.5) > 1.8 from x = 1.729
    assert plan.feasible_fraction == outside / 150
    assert set(plan.step_status.tolist()) == {int(IkStatus.OK)}


def test_joint_limit_fails_at_the_first_step_without_a_solution_in_limits() -> None:
    start, goal = (0.5, 1.2), (-1.2, 0.5)
    plan = plan_line(
        SHOULDER_LIMITED, start, goal, SHOULDER_LIMITED.solve(*start).joints, PlanOptions(0.01)
    )
    points = expected_points(start, goal, 0.01)
    blocked = next(
        i
        for i, (x, y) in enumerate(points)
        if not any(
            abs(q[0]) <= math.pi / 2
            for q in acos_ik_candidates(SHOULDER_LIMITED.link_lengths, x, y)
        )
    )
    assert plan.status is IkStatus.JOINT_LIMIT
    assert plan.failed_step == blocked
    assert all(SHOULDER_LIMITED.within_limits(q) for q in plan.joints)


def test_branch_flip_is_a_joint_jump() -> None:
    start, goal = (1.2, 0.8), (0.2, 1.5)
    current = SHOULDER_LIMITED.solve(*start, branch=Branch.ELBOW_UP).joints
    assert current[1] < 0
    # Without a jump limit the plan silently flips to elbow down where elbow up hits the limit.
    free = plan_line(SHOULDER_LIMITED, start, goal, current, PlanOptions(0.01))
    assert free.ok
    flips = np.flatnonzero(np.diff(np.sign(free.joints[:, 1])))
    assert len(flips) == 1
    points = expected_points(start, goal, 0.01)
    first_up_blocked = next(
        i
        for i, (x, y) in enumerate(points)
        if not any(
            q[1] < 0 and abs(q[0]) <= math.pi / 2
            for q in acos_ik_candidates(SHOULDER_LIMITED.link_lengths, x, y)
        )
    )
    assert flips[0] + 1 == first_up_blocked
    # With a jump limit the flip is the failure.
    plan = plan_line(
        SHOULDER_LIMITED, start, goal, current, PlanOptions(0.01, max_joint_step=math.radians(10))
    )
    assert plan.status is PlanStatus.JOINT_JUMP
    assert plan.ik_status is IkStatus.OK
    assert plan.failed_step == first_up_blocked
    assert plan.feasible_fraction == first_up_blocked / len(points)
    assert "JOINT_JUMP" in plan.message
    assert "branch flip" in plan.message
    assert np.all(plan.joints[:, 1] < 0)


def test_tiny_joint_step_limit_fails_at_the_first_step() -> None:
    start = (1.2, 0.3)
    plan = plan_line(
        ARM_2R,
        start,
        (0.6, 1.0),
        ARM_2R.solve(*start).joints,
        PlanOptions(0.01, max_joint_step=1e-4),
    )
    assert plan.status is PlanStatus.JOINT_JUMP
    assert plan.failed_step == 0
    assert plan.feasible_fraction == 0.0
    assert plan.points.shape == (0, 2)
    assert plan.joints.shape == (0, 2)
    assert plan.duration == 0.0


def trapezoid_seconds(distance: float, speed: float, acceleration: float) -> float:
    """The shortest rest-to-rest time over `distance` within a speed and an acceleration."""
    if distance * acceleration <= speed * speed:  # a triangle: never at full speed
        return 2.0 * math.sqrt(distance / acceleration)
    return distance / speed + speed / acceleration


LIMITS_2R = MotionLimits(0.02, (1.0, 1.0), (4.0, 4.0), tool_speed=0.2, tool_acceleration=1.0)


def test_times_pass_every_point_within_the_limits_where_the_tool_sets_the_pace() -> None:
    start, goal = (1.2, 0.3), (0.9, 0.6)  # well inside the ring: no joint limits the tool
    current = ARM_2R.solve(*start).joints
    plan = plan_line(ARM_2R, start, goal, current, PlanOptions(0.005, LIMITS_2R))
    assert plan.ok, plan.message
    # The tool alone sets the pace: 0.4243 m from rest to rest at 0.2 m/s and 1 m/s^2 (within
    # 0.1 % of them), and the setpoints are planned points, passed every period.
    length = math.hypot(0.3, 0.3)
    assert plan.duration == pytest.approx(trapezoid_seconds(length, 0.1998, 0.999), rel=1e-9)
    assert plan.solve_calls == 1
    times = plan.times
    assert np.all(np.diff(np.concatenate(([0.0], times))) > 0)
    # Setpoint k (but the last) is the point passed at (k + 1) periods; the last one is the
    # goal, reached at the end of the motion, within its last period.
    on_period = np.isclose(times / 0.02, np.round(times / 0.02), atol=1e-6)
    assert on_period.sum() == len(plan.setpoints) - 1
    np.testing.assert_allclose(times[on_period], 0.02 * np.arange(1, len(plan.setpoints)))
    np.testing.assert_allclose(plan.joints[on_period], plan.setpoints.joints[:-1], atol=1e-12)
    assert plan.setpoints.joints[-1].tolist() == plan.joints[-1].tolist()
    assert plan.duration <= plan.setpoints.duration < plan.duration + 0.02
    # Between points the tool never goes faster than its speed.
    ds = np.hypot(*np.diff(np.vstack(([start], plan.points)), axis=0).T)
    assert np.all(ds / np.diff(np.concatenate(([0.0], times))) <= 0.2)


def test_a_joint_sets_the_pace_near_full_stretch_and_the_plan_takes_longer() -> None:
    # Out to 0.5 mm short of full stretch: the elbow turns ~50 rad/m there, faster than its
    # 1 rad/s allows at the tool's 0.2 m/s; toppra times the joints, a second solve call puts
    # the setpoints ON the line where that timing says.
    arm = PlanarArm((1.0, 0.8), [(-math.pi, math.pi)] * 2, singularity_margin=0.0)
    current = arm.solve(1.5, 0.0, branch=Branch.ELBOW_DOWN).joints
    plan = plan_line(arm, (1.5, 0.0), (1.7995, 0.0), current, PlanOptions(0.001, LIMITS_2R))
    assert plan.ok, plan.message
    assert plan.solve_calls == 2
    tool_only = trapezoid_seconds(0.2995, 0.2, 1.0)
    assert plan.duration > tool_only + 0.1
    # A lower bound no plan can beat: the elbow's own travel within its limits.
    elbow = abs(plan.joints[-1][1] - current[1])
    assert plan.duration >= trapezoid_seconds(elbow, 1.0, 4.0)
    assert np.all(np.abs(plan.setpoints.tips[:, 1]) < 1e-9)  # on the line y = 0


def test_a_line_to_where_the_tool_is_is_one_setpoint_at_rest() -> None:
    current = ARM_2R.solve(1.2, 0.3).joints
    plan = plan_line(ARM_2R, (1.2, 0.3), (1.2, 0.3), current, PlanOptions(0.01, LIMITS_2R))
    assert plan.ok
    # The chained array solve answers as `solve` does, to 1e-12 rad (here 1 ulp apart).
    assert plan.setpoints.joints.tolist() == [pytest.approx(current, abs=1e-12)]
    assert plan.times.tolist() == [0.0]
    assert plan.velocities.tolist() == plan.accelerations.tolist() == [[0.0, 0.0]]


def test_3r_line_with_heading() -> None:
    arm = PlanarArm((1.0, 0.8, 0.3))
    start, goal = (1.2, 0.4, 0.3), (0.8, 1.0, 1.2)
    current = arm.solve(*start).joints
    plan = plan_line(arm, start, goal, current, PlanOptions(0.02))
    assert plan.ok
    assert plan.points.shape == (37, 3)
    turn = goal[2] - start[2]
    for k, (point, joints) in enumerate(zip(plan.points, plan.joints, strict=True), start=1):
        x, y, heading = arm.forward(joints)
        assert math.hypot(x - point[0], y - point[1]) < 1e-9
        assert distance_to_line((x, y), start[:2], goal[:2]) < 1e-9
        assert heading == pytest.approx(start[2] + k / 37 * turn, abs=1e-9)


def test_heading_is_interpolated_the_short_way_round() -> None:
    path = LinePath((1.0, 0.0), (1.0, 0.1), (3.0,), (-3.0,))
    points = path.points(path.step_count(0.05))
    assert len(points) == 2  # u = 0.5 and 1.0
    assert points[0, 2] == pytest.approx(wrap_angle(3.0 + 0.5 * (2 * math.pi - 6.0)))
    assert points[1, 2] == -3.0
    # A heading on one end only is ignored: plain (x, y) points.
    arm = PlanarArm((1.0, 0.8, 0.3))
    plan = plan_line(
        arm, (1.0, 0.0, 3.0), (1.0, 0.1), arm.solve(1.0, 0.0, 3.0).joints, PlanOptions(0.05)
    )
    assert plan.points.shape == (2, 2)


def test_continuous_joints_do_not_jump_by_two_pi() -> None:
    start, goal = (-1.7, 0.5), (-1.7, -0.5)  # behind the base: joint 1 crosses +-pi
    current = ARM_2R.solve(*start, branch=Branch.ELBOW_DOWN).joints
    plan = plan_line(ARM_2R, start, goal, current, PlanOptions(0.01, max_joint_step=0.1))
    assert plan.ok, plan.message
    assert np.abs(np.diff(plan.joints, axis=0)).max() < 0.1
    assert plan.joints[:, 0].max() > math.pi  # continued past pi instead of wrapping
    # Each point alone is solved wrapped to (-pi, pi]: the plan unwrapped them.
    wrapped = [
        ARM_2R.solve(x, y, current=tuple(q)).joints
        for (x, y), q in zip(plan.points, plan.joints, strict=True)
    ]
    np.testing.assert_allclose(np.cos(wrapped), np.cos(plan.joints), atol=1e-12)
    assert max(q[0] for q in wrapped) <= math.pi


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"max_step": 0.0}, "max_step"),
        ({"max_step": math.nan}, "max_step"),
        ({"start": (math.nan, 0.0)}, "start"),
        ({"goal": (1.0,)}, "waypoint 0"),
        ({"current": (0.1,)}, "current"),
        ({"current": None, "limits": LIMITS_2R}, "limits: setpoints need the current joints"),
        ({"limits": MotionLimits(0.02, (1.0,), (1.0,))}, "the limits are for 1 joints, not 2"),
        ({"max_joint_step": 0.0}, "max_joint_step"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, words) -> None:
    arguments = {"start": (1.2, 0.3), "goal": (0.6, 1.0), "current": (0.0, 0.5)}
    options = {"max_step": 0.01}
    for name in ("max_step", "limits", "max_joint_step"):
        if name in kwargs:
            options[name] = kwargs.pop(name)
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=words):
        plan_line(ARM_2R, **arguments, options=PlanOptions(**options))


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"period": 0.0}, "period"),
        ({"joint_velocities": (1.0, 0.0)}, "joint velocity limit 1"),
        ({"joint_accelerations": (1.0,)}, "2 joint velocity limits for 1"),
        ({"tool_speed": -0.1}, "tool speed"),
        ({"tool_acceleration": math.inf}, "tool acceleration"),
    ],
)
def test_bad_limits_raise_value_error(values, words) -> None:
    arguments = {"period": 0.02, "joint_velocities": (1.0, 1.0), "joint_accelerations": (4.0, 4.0)}
    with pytest.raises(ValueError, match=words):
        MotionLimits(**{**arguments, **values})
