"""The printed tour (`kinematics_tour`) of a spatial arm: a yaw under a vertical chain.

FK of a pose, IK of its tool point with both elbows (checked by FK), then with the tool's pitch,
CLOSEST from the home pose, the statuses 3D adds (too far, behind the arm beyond the yaw's
limits, on the yaw axis, an orientation the joints cannot give) and a straight line in 3D.
Degrees next to radians; metres in the base frame. No ROS.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from arm_kinematics.cli.planar_tour import angle, joints_text, plan_default_line
from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, IkResult, SpatialArm
from arm_kinematics.kinematics.spatial.rotations import rot_z


def point_text(point: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:.4f}" for v in point[:3]) + ") m"


def result_lines(arm: SpatialArm, result: IkResult, names: Sequence[str], target) -> list[str]:
    lines = [f"    status {result.status.name} ({int(result.status)}): {result.message}"]
    if result.ok:
        tool = arm.forward(result.joints)
        error = math.dist(tool.position, target[:3])
        lines.append(f"    joints: {joints_text(result.joints, names)}")
        lines.append(
            f"    FK check: tool at {point_text(tool.position)}, pitch {angle(tool.pitch)}; "
            f"distance to the target {error:.1e} m"
        )
    return lines


def tour(config: ArmConfig) -> list[str]:
    arm = config.make_arm()
    names = config.joint_names
    lo, hi = arm.yaw_limits
    out = [
        f"Arm: spatial, {arm.n_joints} joints ({', '.join(names)}), links "
        + ", ".join(f"{length:.3f}" for length in arm.link_lengths)
        + f" m; the shoulder {arm.shoulder_height:.3f} m up and {arm.shoulder_forward:.3f} m "
        f"ahead of the yaw axis; reach {arm.reach:.3f} m from the shoulder; yaw "
        f"{math.degrees(lo):.1f} .. {math.degrees(hi):.1f} deg",
        "",
    ]

    # 1. Forward kinematics of a pose between the home pose and the middle of the limits.
    middle = [(a + b) / 2 for a, b in arm.joint_limits]
    pose = tuple(0.5 * h + 0.5 * m for h, m in zip(config.home, middle, strict=True))
    tool = arm.forward(pose)
    out.append(f"1. Forward kinematics of {joints_text(pose, names)}:")
    out.append(
        f"    tool at {point_text(tool.position)}, pitch {angle(tool.pitch)}, "
        f"roll {angle(tool.roll)}"
    )

    # 2. IK of that tool point, both elbows, then with its pitch.
    out.append("")
    out.append(f"2. Inverse kinematics of that tool point {point_text(tool.position)}:")
    for branch in (Branch.ELBOW_UP, Branch.ELBOW_DOWN):
        out.append(f"  {branch.name.lower()}, position only:")
        out.extend(
            result_lines(arm, arm.solve(*tool.position, branch=branch), names, tool.position)
        )
    out.append(f"  with the pitch {angle(tool.pitch)}:")
    pitched = arm.solve(*tool.position, pitch=tool.pitch)
    out.extend(result_lines(arm, pitched, names, tool.position))

    # 3. CLOSEST from the home pose.
    out.append("")
    out.append(f"3. CLOSEST from the home pose {joints_text(config.home, names)}:")
    closest = arm.solve(*tool.position, branch=Branch.CLOSEST, current=config.home)
    out.extend(result_lines(arm, closest, names, tool.position))

    # 4. What the arm cannot do.
    out.append("")
    out.append("4. Targets the arm cannot take:")
    height = arm.shoulder_height
    reach = abs(arm.shoulder_forward) + arm.reach
    cases = [
        ("too far", (1.25 * reach, 0.0, height)),
        ("behind the arm", (-0.5 * reach, -0.05 * reach, height)),
        ("on the yaw axis", (0.0, 0.0, height + 0.5 * arm.reach)),
    ]
    for label, target in cases:
        out.append(f"  {label}, {point_text(target)}:")
        out.extend(result_lines(arm, arm.solve(*target), names, target))
    out.append(
        f"  the tool turned 20 deg out of its vertical plane at {point_text(tool.position)}:"
    )
    turned = arm.solve_rotation(*tool.position, rot_z(0.35) @ tool.rotation)
    out.append(f"    status {turned.status.name} ({int(turned.status)}): {turned.message}")

    # 5. A straight line in 3D from the home tool point to the tool point of step 1.
    out.append("")
    trajectory = config.trajectory
    start = arm.forward(config.home).position
    plan = plan_default_line(arm, config, start, tool.position)
    out.append(
        f"5. Straight line from the home tool point {point_text(start)} to step 1's, "
        f"{trajectory.default_max_step * 1000:.1f} mm steps at {trajectory.default_speed:.3f} m/s:"
    )
    out.append(f"    status {plan.status.name}: {plan.message}")
    if plan.setpoints is not None:
        tips = plan.setpoints.tips[:, :3]
        direction = np.subtract(tool.position, start)
        relative = tips - np.asarray(start)
        along = relative @ direction / (direction @ direction)
        off = np.linalg.norm(relative - along[:, None] * direction, axis=1)
        out.append(
            f"    {len(plan.setpoints)} setpoints at {trajectory.command_rate_hz:g} Hz "
            f"({plan.setpoints.duration:.2f} s), each an IK solution on the line (at most "
            f"{off.max():.1e} m off it)"
        )
    return out
