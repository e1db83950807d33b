"""plan_line: straight Cartesian lines with IK per step, failures at the right step, timing.

The setpoints that plan_line also makes (with a command period) are tested in test_streaming.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from arm_kinematics.kinematics import (
    Branch,
    IkStatus,
    LinePath,
    PlanarArm,
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
    plan = plan_line(ARM_2R, start, goal, 0.01, current)
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
    plan = plan_line(arm, start, goal, 0.01, current)
    points = expected_points(start, goal, 0.01)
    inside = next(i for i, (x, y) in enumerate(points) if math.hypot(x, y) < 0.5 - 1e-6)
    assert inside == 54  # x = -0.45: the first point closer than 0.5 m (|x| < 0.458)
    assert plan.status is IkStatus.TOO_CLOSE
    assert plan.ik_status is IkStatus.TOO_CLOSE
    assert plan.failed_step == inside
    assert plan.failed_point == pytest.approx(points[inside], abs=1e-15)
    assert len(plan.points) == len(plan.joints) == len(plan.times) == inside
    assert plan.feasible_fraction == inside / 200
    assert not plan.ok
    assert f"step {inside} of 200" in plan.message
    assert "TOO_CLOSE" in plan.message


def test_unreachable_goal_fails_at_the_first_step_outside() -> None:
    start, goal = (1.0, 0.5), (2.5, 0.5)
    plan = plan_line(ARM_2R, start, goal, 0.01, ARM_2R.solve(*start).joints)
    points = expected_points(start, goal, 0.01)
    outside = next(i for i, (x, y) in enumerate(points) if math.hypot(x, y) > 1.8 + 1e-6)
    assert plan.status is IkStatus.TOO_FAR
    assert plan.failed_step == outside == 72  # x = 1.73: hypot(x, 0.5) > 1.8 from x = 1.729
    assert plan.feasible_fraction == outside / 150
    assert set(plan.step_status.tolist()) == {int(IkStatus.OK)}


def test_joint_limit_fails_at_the_first_step_without_a_solution_in_limits() -> None:
    start, goal = (0.5, 1.2), (-1.2, 0.5)
    plan = plan_line(SHOULDER_LIMITED, start, goal, 0.01, SHOULDER_LIMITED.solve(*start).joints)
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
    free = plan_line(SHOULDER_LIMITED, start, goal, 0.01, current)
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
    plan = plan_line(SHOULDER_LIMITED, start, goal, 0.01, current, max_joint_step=math.radians(10))
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
        ARM_2R, start, (0.6, 1.0), 0.01, ARM_2R.solve(*start).joints, max_joint_step=1e-4
    )
    assert plan.status is PlanStatus.JOINT_JUMP
    assert plan.failed_step == 0
    assert plan.feasible_fraction == 0.0
    assert plan.points.shape == (0, 2)
    assert plan.joints.shape == (0, 2)
    assert plan.duration == 0.0


def test_times_keep_tool_speed_and_joint_velocity_limits() -> None:
    start, goal = (1.0, 0.6), (1.78, 0.05)  # ends near full stretch: the elbow speeds up
    current = ARM_2R.solve(*start).joints
    speed = 0.2
    limits = (1.0, 1.0)
    plan = plan_line(ARM_2R, start, goal, 0.005, current, speed=speed, joint_velocity_limits=limits)
    assert plan.ok
    dt = np.diff(np.concatenate(([0.0], plan.times)))
    assert np.all(dt > 0)
    ds = np.hypot(*np.diff(np.vstack(([start], plan.points)), axis=0).T)
    dq = np.abs(np.diff(np.vstack(([current], plan.joints)), axis=0))
    tool_speed = ds / dt
    joint_speed = dq / dt[:, None]
    assert np.all(tool_speed <= speed * (1 + 1e-12))
    assert np.all(joint_speed <= np.array(limits) * (1 + 1e-12))
    joint_bound = (dq / np.array(limits)).max(axis=1) > ds / speed
    assert joint_bound.any()
    assert (~joint_bound).any()
    np.testing.assert_allclose(tool_speed[~joint_bound], speed, rtol=1e-12)
    np.testing.assert_allclose(joint_speed[joint_bound].max(axis=1), 1.0, rtol=1e-12)
    assert plan.duration == pytest.approx(dt.sum())


def test_times_without_speed_follow_the_joint_limits_only() -> None:
    start = (1.2, 0.3)
    current = ARM_2R.solve(*start).joints
    plan = plan_line(ARM_2R, start, (0.6, 1.0), 0.01, current, joint_velocity_limits=(0.5, 0.5))
    dq = np.abs(np.diff(np.vstack(([current], plan.joints)), axis=0))
    dt = np.diff(np.concatenate(([0.0], plan.times)))
    np.testing.assert_allclose(dt, dq.max(axis=1) / 0.5, rtol=1e-12)


def test_3r_line_with_heading() -> None:
    arm = PlanarArm((1.0, 0.8, 0.3))
    start, goal = (1.2, 0.4, 0.3), (0.8, 1.0, 1.2)
    current = arm.solve(*start).joints
    plan = plan_line(arm, start, goal, 0.02, current)
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
    plan = plan_line(arm, (1.0, 0.0, 3.0), (1.0, 0.1), 0.05, arm.solve(1.0, 0.0, 3.0).joints)
    assert plan.points.shape == (2, 2)


def test_continuous_joints_do_not_jump_by_two_pi() -> None:
    start, goal = (-1.7, 0.5), (-1.7, -0.5)  # behind the base: joint 1 crosses +-pi
    current = ARM_2R.solve(*start, branch=Branch.ELBOW_DOWN).joints
    plan = plan_line(ARM_2R, start, goal, 0.01, current, max_joint_step=0.1)
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
        ({"goal": (1.0,)}, "goal"),
        ({"current": (0.1,)}, "current"),
        ({"speed": -1.0}, "speed"),
        ({"joint_velocity_limits": (1.0,)}, "joint_velocity_limits"),
        ({"joint_velocity_limits": (1.0, 0.0)}, "joint velocity limit"),
        ({"max_joint_step": 0.0}, "max_joint_step"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, words) -> None:
    arguments = {
        "start": (1.2, 0.3),
        "goal": (0.6, 1.0),
        "max_step": 0.01,
        "current": (0.0, 0.5),
    }
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=words):
        plan_line(ARM_2R, **arguments)
