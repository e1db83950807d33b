#!/usr/bin/env python3
"""The motion timing of the planner (issue 23), side by side in one run.

1. Durations. For moves of the default 2R arm (config/arm.yaml), the desk kit
   (config/arm_desk_kit.yaml) and a long-link 2R arm whose line runs into full stretch (the
   elbow sets the pace there), each move's duration as the planner streams it (its setpoints
   times the 20 ms period) beside
   - the time-optimal bound under the same limits: toppra on the same path at 0.1 mm, 2000
     gridpoints, the full limits (no headroom, no whole periods): the fastest any
     parameterization of that path could be; for a JOINT move the exact trapezoid;
   - today's constant-speed timing (the planner before this change): the tool at its speed from
     the first period, slowed only where a joint would exceed its velocity limit, in a whole
     number of periods; a JOINT move at constant joint speed. It starts and stops with a jump.
   Target: within 5 % of the bound (a polyline is printed beside the sum of its segments'
   rest-to-rest bounds: it passes its corners without stopping, which no continuous-time bound
   allows at a corner, so it may be faster than that sum).
2. Planning time of a 0.3 m line at 1 mm steps on the 2R default arm (IK in this process,
   `chain_solver`, as the tests do), the new planner beside today's, loaded from the commit
   before this change (`git show BASELINE:...`), best of several rounds; and where a joint
   binds (toppra and a second IK call). The trajectory node's acceptance -> first setpoint is
   bench_trajectory.py's.

Usage: source scripts/env.sh && python bench/bench_motion.py [--rounds N] [--strict]
(--strict: exit 1 when a duration is more than 5 % over its bound.)
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import (
    Branch,
    MotionLimits,
    PlanarArm,
    PlanOptions,
    chain_solver,
    joint_move_duration,
    joint_setpoints,
    plan_line,
    plan_polyline,
)
from arm_kinematics.kinematics.planning import time_optimal

REPO = Path(__file__).resolve().parents[1]
BASELINE = "a7699209a495cd2d80d1676e2ff206d9510ef82d"  # the branch point: constant-speed timing
TARGET = 1.05


def optimal_line_seconds(arm, start, goal, current, limits: MotionLimits) -> float:
    """The time-optimal rest-to-rest duration of the straight line start -> goal: toppra on the
    IK of points 0.1 mm apart, 2000 gridpoints, the full limits (the tool's too)."""
    d = arm.position_dims
    length = math.dist(start[:d], goal[:d])
    count = max(20, math.ceil(length / 1e-4))
    u = np.arange(count + 1) / count
    points = np.asarray(start)[None, :] + u[1:, None] * (np.asarray(goal) - np.asarray(start))
    answers = chain_solver(arm)(points, tuple(current))
    joints = np.vstack((current, answers.joints))
    profile = time_optimal.time_optimal(u * length, joints, limits, tool=True)
    return math.nan if profile is None else profile.duration


def constant_speed_seconds(arm, start, goal, current, limits: MotionLimits) -> float:
    """Today's timing of the line: each 1 mm step at the tool speed, or slower where a joint
    would exceed its velocity limit, the whole in a whole number of periods."""
    d = arm.position_dims
    length = math.dist(start[:d], goal[:d])
    count = math.ceil(length / 1e-3)
    u = np.arange(1, count + 1) / count
    points = np.asarray(start)[None, :] + u[:, None] * (np.asarray(goal) - np.asarray(start))
    joints = np.vstack((current, chain_solver(arm)(points, tuple(current)).joints))
    steps = np.abs(np.diff(joints, axis=0)) / np.asarray(limits.joint_velocities)
    seconds = np.maximum(length / count / limits.tool_speed, steps.max(axis=1)).sum()
    return math.ceil(seconds / limits.period - 1e-9) * limits.period


def duration_rows() -> list[tuple[str, float, float, float]]:
    """(move, planned seconds, bound seconds, today's seconds)."""
    rows = []
    default = ArmConfig.from_file()
    arm, limits = default.make_arm(), default.motion_limits(0.05)
    home = default.home
    start = arm.forward(home)[:2]
    options = PlanOptions(0.001, limits, default.trajectory.max_joint_step)
    for goal in ((0.12, 0.05), (0.06, 0.14)):
        plan = plan_line(arm, start, goal, home, options)
        rows.append((
            f"2R arm.yaml LINEAR {start[0]:.3f},{start[1]:.3f} -> {goal[0]},{goal[1]} 0.05 m/s",
            plan.setpoints.duration,
            optimal_line_seconds(arm, start, goal, home, limits),
            constant_speed_seconds(arm, start, goal, home, limits),
        ))  # fmt: skip
    # A long-link arm into full stretch: the elbow, not the tool, sets the pace at the end.
    stretch = PlanarArm((1.0, 0.8), [(-math.pi, math.pi)] * 2, singularity_margin=0.0)
    current = stretch.solve(1.5, 0.0, branch=Branch.ELBOW_DOWN).joints
    fast = MotionLimits(0.02, (math.radians(120),) * 2, (math.radians(480),) * 2, 0.2, 1.0)
    plan = plan_line(stretch, (1.5, 0.0), (1.79, 0.0), current, PlanOptions(0.001, fast))
    rows.append((
        "2R (1.0, 0.8) m LINEAR 1.5 -> 1.79 m (full stretch) 0.2 m/s",
        plan.setpoints.duration,
        optimal_line_seconds(stretch, (1.5, 0.0), (1.79, 0.0), current, fast),
        constant_speed_seconds(stretch, (1.5, 0.0), (1.79, 0.0), current, fast),
    ))  # fmt: skip
    kit = ArmConfig.from_file(default_config_path("arm_desk_kit.yaml"))
    arm_3d, limits_3d = kit.make_arm(), kit.motion_limits(0.05)
    tool = arm_3d.tool_vector(kit.home)[:4]
    goal_3d = (tool[0] - 0.06, tool[1] + 0.08, tool[2] - 0.05, tool[3])
    plan = plan_line(
        arm_3d, tool, goal_3d, kit.home, PlanOptions(0.001, limits_3d, math.radians(10))
    )
    rows.append((
        "desk kit LINEAR 11.2 cm with its pitch 0.05 m/s",
        plan.setpoints.duration,
        optimal_line_seconds(arm_3d, tool, goal_3d, kit.home, limits_3d),
        constant_speed_seconds(arm_3d, tool, goal_3d, kit.home, limits_3d),
    ))  # fmt: skip
    joint_goal = tuple(np.add(kit.home, np.radians((40.0, -30.0, 45.0, 20.0, 60.0))))
    joint_limits = kit.motion_limits().scaled(0.5)
    move = joint_setpoints(arm_3d, kit.home, joint_goal, joint_limits)
    change = np.abs(np.subtract(joint_goal, kit.home))
    today = np.max(change / np.array(joint_limits.joint_velocities))
    rows.append((
        "desk kit JOINT move, speed 0.5",
        move.duration,
        joint_move_duration(kit.home, joint_goal, joint_limits),
        math.ceil(today / 0.02 - 1e-9) * 0.02,
    ))  # fmt: skip
    # A polyline of shallow corners (a 6 cm arc in 8 chords) on the default arm.
    centre = (0.10, 0.05)
    arc = [
        (centre[0] + 0.04 * math.cos(a), centre[1] + 0.04 * math.sin(a))
        for a in np.radians(np.linspace(-30.0, 60.0, 9))
    ]
    current = default.make_arm().solve(*arc[0]).joints
    plan = plan_polyline(arm, arc[0], arc[1:], current, options)
    chords = list(itertools.pairwise(arc))
    segments = [
        optimal_line_seconds(arm, a, b, arm.solve(*a, current=current).joints, limits)
        for a, b in chords
    ]
    rows.append((
        "2R arm.yaml polyline, 8 chords of a 4 cm arc, 0.05 m/s (bound: each chord from rest)",
        plan.setpoints.duration,
        float(sum(segments)),
        sum(constant_speed_seconds(arm, a, b, current, limits) for a, b in chords),
    ))  # fmt: skip
    return rows


def load_baseline():
    """Today's line planner (the branch point's `line_plan.py` and the modules it imports), as
    a package of its own in a temporary folder; None where git cannot show it."""
    folder = Path(tempfile.mkdtemp(prefix="baseline_planning_"))
    package = folder / "baseline_planning"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("line_plan", "line", "ik_answers", "joint_path"):
        source = f"arm_kinematics/arm_kinematics/kinematics/planning/{name}.py"
        try:
            text = subprocess.run(
                ["git", "-C", str(REPO), "show", f"{BASELINE}:{source}"],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
        except (OSError, subprocess.CalledProcessError):
            return None
        (package / f"{name}.py").write_text(
            text.replace("from ..", "from arm_kinematics.kinematics.")
        )
    spec = importlib.util.spec_from_file_location(
        "baseline_planning", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_planning"] = module
    spec.loader.exec_module(module)
    from baseline_planning import line_plan  # type: ignore[import-not-found]

    return line_plan.plan_line


def best_ms(call, rounds: int) -> float:
    best = math.inf
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best * 1e3


def planning_rows(rounds: int) -> list[tuple[str, float, float]]:
    """(case, new ms, today's ms) for a 0.3 m line at 1 mm steps."""
    config = ArmConfig.from_file()
    big = PlanarArm((1.0, 0.8), [(-math.pi, math.pi)] * 2, singularity_margin=0.0)
    rows = []
    old_plan_line = load_baseline()
    cases = [
        # A 0.3 m line on a (1.0, 0.8) m arm at 0.05 m/s: no joint binds.
        ("0.3 m line, 0.05 m/s (the tool sets the pace)", (1.2, 0.3), (1.2, 0.6), 0.05, 1.0),
        # Into full stretch at 0.2 m/s: the elbow binds, toppra and a second IK call.
        ("0.3 m line into full stretch, 0.2 m/s (the elbow)", (1.495, 0.0), (1.795, 0.0), 0.2, 1.0),
    ]
    velocity, acceleration = math.radians(120), math.radians(480)
    for name, start, goal, speed, tool_acceleration in cases:
        current = big.solve(*start, branch=Branch.ELBOW_DOWN).joints
        limits = MotionLimits(0.02, (velocity,) * 2, (acceleration,) * 2, speed, tool_acceleration)
        options = PlanOptions(0.001, limits, math.radians(10))
        plan = plan_line(big, start, goal, current, options)
        assert plan.ok, plan.message
        new = best_ms(lambda: plan_line(big, start, goal, current, options), rounds)  # noqa: B023
        old = math.nan
        if old_plan_line is not None:
            old = best_ms(
                lambda: old_plan_line(
                    big, start, goal, 0.001, current, speed=speed,  # noqa: B023
                    joint_velocity_limits=(velocity,) * 2, max_joint_step=math.radians(10),
                    period=0.02,
                ),
                rounds,
            )  # fmt: skip
        rows.append((f"{name}: {len(plan.setpoints)} setpoints, {plan.solve_calls} IK calls", new,
                     old))  # fmt: skip
    del config
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="best of N plans (default 15)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    time_optimal.load()  # toppra's imports, once, before anything is timed
    print("1. Durations (s): as streamed / the time-optimal bound / today's constant speed")
    missed = False
    for name, planned, bound, today in duration_rows():
        ratio = planned / bound
        polyline = "polyline" in name
        mark = "" if polyline else ("  met" if ratio <= TARGET else "  MISSED")
        missed |= not polyline and ratio > TARGET
        print(
            f"  {name}\n      {planned:7.3f} / {bound:7.3f} (x{ratio:.3f}{mark}) / {today:7.3f} "
            f"(today x{today / bound:.3f}, starting and stopping with a jump)"
        )
    print(f"2. Planning time (ms, best of {args.rounds}), IK in this process: new / today")
    for name, new, old in planning_rows(args.rounds):
        print(f"  {name}\n      {new:7.1f} / {old:7.1f} (x{new / old:.2f})")
    print(
        f"target: every move within {TARGET - 1:.0%} of its bound: {'MISSED' if missed else 'met'}"
    )
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
