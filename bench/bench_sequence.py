"""Benchmark of a taught sequence: the planning time of the shipped pick-and-place
(`sequences/desk_kit_pick_and_place.yaml` on `arm_desk_kit.yaml`: 10 steps, twice) beside its
running time, in one run.

1. ON A GRAPH: the desk kit's IkNode, HardwareNode (simulated servos) and TrajectoryNode in
   this process (the tests' `TeachStack`), the example sent as a RunSequence goal `--runs`
   times, each from home. From each result, the node's own clock: `planning_time` (every step
   of both repeats planned once the sequence holds the arm, the IK through the IK node's
   `solve_ik_batch`) and `run_time` (the steps streamed, the gripper's goals, the waits, each
   move waiting for joint_states to arrive); and the client's time from the goal sent to its
   result.
2. IN THIS PROCESS: the same plan from home with the core's in-process IK (`chain_solver`, the
   array solve the IK node runs), no ROS: the planning's cost without the service round trips,
   median of `--plans` plans; beside the motion as planned (setpoints x the command period,
   plus the waits; the gripper's travel is not planned, it is a goal of the hardware node).

The machine is shared: the figures are this run's. Usage:
    source scripts/env.sh && python bench/bench_sequence.py [--runs N] [--plans N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__":
    # A domain of its own and localhost discovery: no crosstalk with tests or a demo.
    os.environ["ROS_DOMAIN_ID"] = str(random.SystemRandom().randint(120, 230))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arm_kinematics" / "test"))
from ros_helpers import ros_graph
from teach_stack import EXAMPLE, TeachStack

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics.planning.ik_answers import chain_solver
from arm_kinematics.nodes.teach.named import NamedPoses
from arm_kinematics.nodes.teach.sequence import plan_sequence, resolve_sequence
from arm_kinematics.nodes.teach.settings import TeachSettings
from arm_kinematics.nodes.trajectory.goals import GoalRun
from arm_kinematics.teach.poses import PoseFile
from arm_kinematics.teach.program import WaitStep, read_program
from arm_kinematics_interfaces.action import RunSequence


def on_graph(runs: int, folder: Path) -> list[tuple[float, float, float]]:
    """(planning s, running s, goal sent -> result s) of `runs` runs of the example."""
    figures = []
    with ros_graph() as graph:
        stack = TeachStack(graph, folder, **{"hardware.remember_pose": False})
        for run in range(runs):
            stack.wait_at_rest()
            sent = time.monotonic()
            result = stack.run_sequence(EXAMPLE.read_text(), name="example").result
            whole = time.monotonic() - sent
            if result.status != RunSequence.Result.SUCCEEDED:
                raise SystemExit(f"bench_sequence: run {run + 1}: {result.message}")
            figures.append((result.planning_time, result.run_time, whole))
        stack.close()
    return figures


def in_process(plans: int, folder: Path) -> tuple[list[float], float, int]:
    """(planning s of each of `plans` plans, the motion as planned s, setpoints)."""
    config = ArmConfig.from_file(EXAMPLE.parents[1] / "config" / "arm_desk_kit.yaml")
    arm = config.make_arm()
    named = NamedPoses(config, arm, PoseFile(folder / "kit.poses.yaml"))
    settings = TeachSettings(folder / "kit.poses.yaml", folder / "sequences")
    sequence = resolve_sequence(read_program(EXAMPLE.read_text(), config), config, named, settings)
    solver, run = chain_solver(arm), GoalRun(b"bench", sequence, None)
    times, planned = [], []
    for _ in range(plans):
        began = time.perf_counter()
        planned = plan_sequence(arm, config, sequence, config.home, solver, run)
        times.append(time.perf_counter() - began)
        if not isinstance(planned, list):
            raise SystemExit(f"bench_sequence: the example did not plan: {planned.message}")
    setpoints = sum(len(s.setpoints.joints) for s in planned if s.setpoints is not None)
    waits = sum(s.step.seconds for s in planned if isinstance(s.step, WaitStep))
    return times, setpoints / config.trajectory.command_rate_hz + waits, setpoints


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of the example on the graph")
    parser.add_argument("--plans", type=int, default=20, help="in-process plans of it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        figures = on_graph(args.runs, Path(folder))
        times, motion_s, setpoints = in_process(args.plans, Path(folder))
    print(f"the shipped example ({EXAMPLE.name}, 20 steps), {args.runs} runs on the desk kit's")
    print("nodes in one process (simulated servos), the node's own figures:")
    print("  run  planning ms  running s  planning/running  goal sent -> result s")
    for run, (planning, running, whole) in enumerate(figures, start=1):
        ratio = planning / running
        print(f"  {run:3d}  {planning * 1e3:11.1f}  {running:9.2f}  {ratio:16.4f}  {whole:21.2f}")
    median = statistics.median(t for t, _, _ in figures)
    running = statistics.median(r for _, r, _ in figures)
    print(
        f"  median: planning {median * 1e3:.1f} ms, running {running:.2f} s: planning is "
        f"{median / running:.2%} of the running time"
    )
    plan_ms = statistics.median(times) * 1e3
    print(f"in this process, no ROS ({args.plans} plans from home, chain_solver's IK):")
    print(
        f"  planning p50 {plan_ms:.1f} ms (min {min(times) * 1e3:.1f}, max "
        f"{max(times) * 1e3:.1f}); the motion as planned {motion_s:.2f} s ({setpoints} "
        f"setpoints and the waits, without the gripper's travel)"
    )
    print(f"load average: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
