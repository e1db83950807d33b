"""The printed tour of the kinematics core on a planar arm (`kinematics_tour`, `tour.py`);
a spatial arm's is `spatial_tour.py`, which shares this module's helpers.

FK of a pose, IK of its tip with both elbows (checked by FK), CLOSEST from the home pose, the
statuses of unreachable targets, a joint-limit case and a straight-line plan. Degrees are shown
next to radians; lengths are metres. No ROS: it reads the arm's parameters file directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, IkResult, PathPlan, PlanarArm, PlanOptions, plan_line
from arm_kinematics.kinematics.planning.stream_limits import differences, with_rest

# A pose to start from (degrees, base to tip), clipped into the joint limits.
_TOUR_POSE_DEG = (30.0, 45.0, -60.0)


def angle(value: float) -> str:
    """'45.00 deg (0.7854 rad)'."""
    return f"{math.degrees(value):.2f} deg ({value:.4f} rad)"


def joints_text(joints: Sequence[float], names: Sequence[str]) -> str:
    return ", ".join(f"{name} {angle(q)}" for name, q in zip(names, joints, strict=True))


def pose_text(x: float, y: float, heading: float | None = None) -> str:
    text = f"x = {x:.5f} m, y = {y:.5f} m"
    return text if heading is None else f"{text}, heading = {angle(heading)}"


def result_text(arm: PlanarArm, result: IkResult, names: Sequence[str], target) -> list[str]:
    lines = [f"    status {result.status.name} ({int(result.status)}): {result.message}"]
    if result.ok:
        x, y, heading = arm.forward(result.joints)
        error = math.hypot(x - target[0], y - target[1])
        lines.append(f"    joints: {joints_text(result.joints, names)}")
        lines.append(
            f"    FK check: {pose_text(x, y, heading)}; distance to the target {error:.1e} m"
        )
        lines.append(f"    manipulability {result.manipulability:.3e} m^2")
    return lines


def plan_default_line(arm, config: ArmConfig, start, goal) -> PathPlan:
    """The straight line from `start` to `goal` (tool poses) as the trajectory node would plan
    it with the file's defaults, from the home pose."""
    trajectory = config.trajectory
    options = PlanOptions(
        trajectory.default_max_step,
        config.motion_limits(tool_speed=trajectory.default_speed),
        trajectory.max_joint_step,
    )
    return plan_line(arm, start, goal, config.home, options)


def tour(config: ArmConfig) -> list[str]:
    arm = config.make_arm()
    names = config.joint_names
    n = arm.n_joints
    inner, outer = arm.ring
    out = [
        f"Arm: {n} joints ({', '.join(names)}), links "
        + ", ".join(f"{length:.3f}" for length in arm.link_lengths)
        + f" m; the tip reaches {inner:.4f} .. {outer:.4f} m from the base",
        "Joint limits: "
        + "; ".join(
            f"{name} [{math.degrees(lo):.1f}, {math.degrees(hi):.1f}] deg"
            for name, (lo, hi) in zip(names, arm.joint_limits, strict=True)
        ),
        "",
    ]

    # 1. Forward kinematics.
    pose = tuple(
        min(max(math.radians(deg), lo), hi)
        for deg, (lo, hi) in zip(_TOUR_POSE_DEG, arm.joint_limits, strict=False)
    )
    pose = pose + tuple(0.0 for _ in range(n - len(pose)))
    out.append(f"1. Forward kinematics of {joints_text(pose, names)}:")
    for index, (x, y, heading) in enumerate(arm.frames(pose)):
        label = "base" if index == 0 else ("tip" if index == n else f"end of link {index}")
        out.append(f"    {label:14s} {pose_text(x, y, heading)}")
    tip = arm.forward(pose)
    heading = tip[2] if n == 3 else None

    # 2. IK with both elbows.
    out.append("")
    with_heading = f" with heading {angle(heading)}" if heading is not None else ""
    out.append(f"2. Inverse kinematics of that tip ({pose_text(*tip[:2])}){with_heading}:")
    for branch in (Branch.ELBOW_UP, Branch.ELBOW_DOWN):
        out.append(f"  {branch.name.lower()}:")
        out.extend(result_text(arm, arm.solve(tip[0], tip[1], heading, branch), names, tip))

    # 3. CLOSEST from the home pose.
    out.append("")
    home = config.home
    out.append(f"3. CLOSEST from the home pose {joints_text(home, names)}:")
    closest = arm.solve(tip[0], tip[1], heading, Branch.CLOSEST, home)
    out.extend(result_text(arm, closest, names, tip))
    if closest.ok:
        motion = math.sqrt(sum(d * d for d in arm.joint_delta(home, closest.joints)))
        out.append(f"    joint motion from home: {motion:.4f} rad ({math.degrees(motion):.2f} deg)")

    # 4. Unreachable targets and a joint limit.
    out.append("")
    out.append("4. Targets the arm cannot take:")
    cases = [("too far", (1.25 * outer, 0.0))]
    if inner > 0.0:
        cases.append(("too close", (0.5 * inner, 0.0)))
    else:
        out.append("    (no inner hole: the links leave no unreachable disc around the base)")
    cases.append(("behind the base", (-0.9 * outer, 0.0)))
    for label, target in cases:
        out.append(f"  {label}, {pose_text(*target)}:")
        out.extend(result_text(arm, arm.solve(*target), names, target))

    # 5. A straight line.
    out.append("")
    start = arm.forward(home)
    goal = tip
    trajectory = config.trajectory
    plan = plan_default_line(
        arm, config, start if n == 3 else start[:2], goal if n == 3 else goal[:2]
    )
    out.append(
        f"5. Straight line from the home tip ({pose_text(*start[:2])}) to the tip of step 1, "
        f"{trajectory.default_max_step * 1000:.1f} mm steps at {trajectory.default_speed:.3f} m/s:"
    )
    out.append(f"    status {plan.status.name}: {plan.message}")
    out.append(
        f"    {len(plan.points)} of {plan.total_steps} steps feasible "
        f"({100 * plan.feasible_fraction:.1f} %), duration {plan.duration:.3f} s"
    )
    if plan.setpoints is not None:
        out += setpoint_lines(plan, config, start[:2], goal[:2])
    if len(plan.points) and plan.times is not None:
        for label, index in (("first", 0), ("middle", len(plan.points) // 2), ("last", -1)):
            x, y = plan.points[index][:2]
            out.append(
                f"    {label:6s} t = {plan.times[index]:.3f} s  {pose_text(x, y)}  "
                f"{joints_text(plan.joints[index], names)}"
            )
    return out


def setpoint_lines(plan: PathPlan, config: ArmConfig, start, goal) -> list[str]:
    """What the setpoints of a planned line do: on the line, and their peak tool speed and
    acceleration and each joint's, as finite differences at the command period."""
    assert plan.setpoints is not None
    setpoints, period = plan.setpoints, plan.setpoints.period
    tips = setpoints.tips[:, :2]
    (dx, dy), rel = np.subtract(goal, start), tips - np.asarray(start)
    offsets = (dx * rel[:, 1] - dy * rel[:, 0]) / math.hypot(dx, dy)
    tool_v, tool_a = differences(with_rest(start, tips), period)
    joint_v, joint_a = differences(with_rest(config.home, setpoints.joints), period)
    lines = [
        f"    {len(setpoints)} setpoints at {1 / period:g} Hz ({setpoints.duration:.2f} s), each "
        f"an IK solution on the line (at most {np.abs(offsets).max():.1e} m off it); "
        f"{plan.solve_calls} IK batch call(s)",
        f"    tool: peak {np.linalg.norm(tool_v, axis=1).max():.4f} m/s, "
        f"{np.linalg.norm(tool_a, axis=1).max():.3f} m/s^2 (limit "
        f"{config.trajectory.max_tool_acceleration:g} m/s^2)",
    ]
    for j, name in enumerate(config.joint_names):
        lines.append(
            f"    {name}: peak {math.degrees(np.abs(joint_v[:, j]).max()):.1f} deg/s (limit "
            f"{math.degrees(config.max_velocities[j]):.1f}), "
            f"{math.degrees(np.abs(joint_a[:, j]).max()):.1f} deg/s^2 (limit "
            f"{math.degrees(config.max_accelerations[j]):.1f})"
        )
    return lines
