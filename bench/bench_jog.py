"""Benchmark of the jog: command published -> first changed joint_states, and the jog loop's
cost per cycle.

1. Latency, BETWEEN PROCESSES: the real HardwareNode (sim, joint_states at 50 Hz) and
   TrajectoryNode of the desk kit (`arm_desk_kit.yaml`) in one child process through
   `run_nodes` (the production executor), as `bringup` runs them. This process publishes a
   TwistStamped stream at 50 Hz on servo_node/delta_twist_cmds from rest (no jog running: each
   command starts a new jog, its admission and its thread) and records, from the first command
   published (monotonic), the arrival of the first joint_commands setpoint and of the first
   joint_states that differs from the rest pose. The stream then stops and the arm comes to
   rest before the next trial (directions alternate, up and down). Printed beside one command
   period (20 ms) and one joint_states period (20 ms): the first changed joint_states cannot
   come sooner than the setpoint plus the hardware node's next tick.
2. Cost per cycle, IN ONE PROCESS: `Jogger.step` on the desk kit with its envelope (a table,
   the base column) in three regimes: moving freely (the candidate passes: one trial, two
   closed-form solves and the envelope on the step and its stop), braking into the table
   (bisections), and out to full stretch (halvings near it); beside the 20 ms command period
   and one bare `SpatialArm.solve` measured in the same run.

The machine is shared: the figures are this run's. Usage:
    source scripts/env.sh && python bench/bench_jog.py [--trials N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

if __name__ == "__main__" and "--serve" not in sys.argv:
    # A domain of its own and localhost discovery: no crosstalk with tests or a demo.
    os.environ["ROS_DOMAIN_ID"] = str(random.SystemRandom().randint(120, 230))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

import numpy as np
import rclpy
from geometry_msgs.msg import TwistStamped
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState

from arm_kinematics.config import ArmConfig, load_parameters_file
from arm_kinematics.kinematics.jog import Jogger, TwistCommand

ROOT = Path(__file__).resolve().parents[1]
KIT_FILE = ROOT / "arm_kinematics" / "config" / "arm_desk_kit.yaml"
PERIOD_S = 0.02
TIMEOUT_S = 60.0
SPEED_M_S = 0.03


def serve() -> int:
    """The desk kit's HardwareNode (sim, 50 Hz) and TrajectoryNode in this process."""
    from rclpy.parameter import Parameter

    from arm_kinematics.nodes.hardware_node import HardwareNode
    from arm_kinematics.nodes.runner import run_nodes
    from arm_kinematics.nodes.trajectory_node import TrajectoryNode

    values = {**load_parameters_file(KIT_FILE), "hardware.remember_pose": False}
    overrides = [Parameter(name, value=value) for name, value in values.items()]
    return run_nodes(
        [
            lambda: HardwareNode(parameter_overrides=overrides),
            lambda: TrajectoryNode(parameter_overrides=overrides),
        ]
    )


class Client:
    """The twist publisher and the joint_commands and joint_states recorders."""

    def __init__(self) -> None:
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = Node("bench_jog_client", context=self.context)
        self.lock = threading.Lock()
        self.states: list[tuple[float, tuple[float, ...]]] = []  # (arrival, positions)
        self.commands: list[float] = []  # arrivals
        self.node.create_subscription(JointState, "joint_states", self._on_state, 100)
        self.node.create_subscription(JointState, "joint_commands", self._on_command, 100)
        self.twists = self.node.create_publisher(TwistStamped, "servo_node/delta_twist_cmds", 10)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()
        self.wait(lambda: self.twists.get_subscription_count() > 0 and self.states, "the nodes")

    def _spin(self) -> None:
        with contextlib.suppress(Exception):  # the context ends at shutdown
            self.executor.spin()

    def _on_state(self, msg: JointState) -> None:
        now = time.monotonic()
        with self.lock:
            self.states.append((now, tuple(msg.position)))

    def _on_command(self, _msg: JointState) -> None:
        now = time.monotonic()
        with self.lock:
            self.commands.append(now)

    @staticmethod
    def wait(predicate, what: str) -> None:
        # Polls slowly: a busy poller would compete for the GIL with what is measured.
        deadline = time.monotonic() + TIMEOUT_S
        while not predicate():
            if time.monotonic() > deadline:
                raise SystemExit(f"bench_jog: timed out waiting for {what}")
            time.sleep(0.005)

    def at_rest(self, count: int = 15) -> tuple[float, ...]:
        """Wait until `count` joint_states in a row are equal (0.3 s at 50 Hz); the pose."""

        def still() -> bool:
            with self.lock:
                last = [p for _, p in self.states[-count:]]
            return len(last) == count and all(p == last[0] for p in last)

        self.wait(still, "the arm at rest")
        with self.lock:
            return self.states[-1][1]

    def trial(self, up: bool) -> tuple[float, float]:
        """One jog from rest: (first setpoint, first changed joint_states) after the first
        command, seconds."""
        rest = self.at_rest()
        with self.lock:
            states, commands = len(self.states), len(self.commands)
        message = TwistStamped()
        message.header.frame_id = "base_link"
        message.twist.linear.z = SPEED_M_S if up else -SPEED_M_S
        first = time.monotonic()
        next_at = first
        changed = None
        while changed is None or time.monotonic() - first < 0.2:
            message.header.stamp = self.node.get_clock().now().to_msg()
            self.twists.publish(message)
            next_at += PERIOD_S
            with self.lock:
                moved = [t for t, p in self.states[states:] if p != rest]
            if moved and changed is None:
                changed = moved[0]
            if time.monotonic() - first > 5.0:
                raise SystemExit("bench_jog: the arm did not move")
            time.sleep(max(0.0, next_at - time.monotonic()))
        with self.lock:
            setpoint = self.commands[commands]
        return setpoint - first, changed - first

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5.0)
        rclpy.shutdown(context=self.context)
        self.thread.join(timeout=5.0)


def percentiles_ms(values: list[float]) -> tuple[float, float, float]:
    array = np.asarray(values) * 1e3
    return float(np.percentile(array, 50)), float(np.percentile(array, 99)), float(array.max())


def latency(trials: int) -> None:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(server.stdout), daemon=True).start()
    client = None
    try:
        client = Client()
        setpoints, changes = [], []
        for trial in range(trials):
            setpoint, changed = client.trial(up=trial % 2 == 0)
            setpoints.append(setpoint)
            changes.append(changed)
    except SystemExit:
        print("".join(log[-15:]), file=sys.stderr)
        raise
    finally:
        if client is not None:
            client.close()
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    print(f"jog latency from rest, {trials} jogs (desk kit, sim, 50 Hz), from the first command:")
    print("                                    p50 ms   p99 ms   max ms")
    for words, values in (
        ("first joint_commands setpoint ", setpoints),
        ("first changed joint_states    ", changes),
    ):
        p50, p99, most = percentiles_ms(values)
        print(f"  {words}  {p50:8.1f} {p99:8.1f} {most:8.1f}")
    p50, p99, _ = percentiles_ms(changes)
    period = PERIOD_S * 1e3
    print(
        f"  one command period: {period:.0f} ms; first changed joint_states p50 = "
        f"{p50 / period:.2f} periods, p99 = {p99 / period:.2f} periods"
    )


def cycle_cost(repeats: int) -> None:
    config = ArmConfig.from_file(KIT_FILE)
    arm = config.make_arm()
    envelope = config.make_envelope(arm)
    from arm_kinematics.nodes.servo.interface import jog_limits

    limits = jog_limits(config)
    regimes = {
        "moving freely (back, 0.03 m/s)": (TwistCommand((-0.03, 0.0, 0.0), (0.0,) * 3), 60),
        "braking into the table, halted": (TwistCommand((0.0, 0.0, -0.08), (0.0,) * 3), 150),
        "out to full stretch, halted": (TwistCommand((0.05, 0.0, 0.0), (0.0,) * 3), 150),
    }
    tool = arm.tool_vector(config.home)
    solves = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(100):
            arm.solve(tool[0], tool[1], tool[2], tool[3], tool[4], current=config.home)
        solves.append((time.perf_counter() - started) / 100)
    solve_us = float(np.median(solves)) * 1e6
    print(
        f"jog loop cost per cycle (Jogger.step, desk kit and envelope; median of {repeats} runs):"
    )
    print(f"  one SpatialArm.solve, for scale: {solve_us:.0f} us")
    print("                                    us/step   max us   share of 20 ms   solves")
    for words, (command, steps) in regimes.items():
        means, worst = [], 0.0
        for _ in range(repeats):
            jogger = Jogger(arm, limits, config.home, envelope)
            times = []
            for _ in range(steps):
                started = time.perf_counter()
                jogger.step(command)
                times.append(time.perf_counter() - started)
            means.append(float(np.mean(times)))
            worst = max(worst, max(times))
        mean_us = float(np.median(means)) * 1e6
        share = mean_us / (PERIOD_S * 1e6)
        print(
            f"  {words:34s}{mean_us:8.0f} {worst * 1e6:8.0f} {share:14.1%}"
            f" {mean_us / solve_us:8.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--trials", type=int, default=40, help="jogs from rest (default 40)")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each regime")
    args = parser.parse_args()
    if args.serve:
        return serve()
    cycle_cost(args.repeats)
    latency(args.trials)
    return 0


if __name__ == "__main__":
    sys.exit(main())
