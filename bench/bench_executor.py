"""Benchmark of WorkerBoundExecutor against rclpy's MultiThreadedExecutor, side by side.

The load is the shape of `bringup` during a move, in one process on one executor:
- a STREAM callback holds one worker for the whole run (as a MoveArm goal does) and publishes a
  JointState every 20 ms, waiting on an Event between ticks, like the trajectory node;
- a 50 Hz timer publishes another JointState (the hardware node's joint_states);
- two subscriptions take both topics and do a little work (the hardware node, the trajectory
  node's joint_states listener).

Measured per executor, over the same number of stream ticks:
1. the stream's period jitter |dt - 20 ms| (p50, p99, max), from its publish times;
2. the executor's passes per callback run: how many times rclpy yielded work to it for each
   callback that actually ran (1.0 means no callback was handed over twice).

Executors: rclpy's MultiThreadedExecutor with its default threads (the CPU count, 2 here: what
the nodes used before) and with 4, and WorkerBoundExecutor with its 4. They run one after the
other, in rounds, in this process; the machine is shared, so read the ratios of one run.

Usage: source scripts/env.sh && python bench/bench_executor.py [--ticks N] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from collections.abc import Callable

# A domain of its own (tests use 1..100) and localhost discovery: no crosstalk with a demo.
os.environ["ROS_DOMAIN_ID"] = str(random.SystemRandom().randint(120, 230))
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

import numpy as np
import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import JointState

from arm_kinematics.nodes.runner import GIL_SWITCH_INTERVAL_S
from arm_kinematics.rclpy_compat.executor import WorkerBoundExecutor

PERIOD_S = 0.02
TIMEOUT_S = 120.0


def counting(executor_class: type) -> type:
    """`executor_class` that counts the callbacks rclpy yields to it."""

    class Counting(executor_class):
        yielded = 0

        def wait_for_ready_callbacks(self, *args, **kwargs):
            result = super().wait_for_ready_callbacks(*args, **kwargs)
            self.yielded += 1
            return result

    return Counting


def run_once(make_executor: Callable[[Context], MultiThreadedExecutor], ticks: int) -> dict:
    """The bringup-shaped load on one executor; the stream's jitter and the passes per callback."""
    context = Context()
    rclpy.init(context=context)
    executor = make_executor(context)
    group = ReentrantCallbackGroup()
    node = Node("bench_executor", context=context)
    executor.add_node(node)
    stream_pub = node.create_publisher(JointState, "stream", 50)
    states_pub = node.create_publisher(JointState, "states", 10)
    callbacks = [0]
    lock = threading.Lock()

    def count() -> None:
        with lock:
            callbacks[0] += 1

    def on_message(msg: JointState) -> None:
        count()
        sum(float(q) for q in msg.position)  # a little work, as the nodes do

    def on_timer() -> None:
        count()
        states_pub.publish(JointState(name=["a", "b"], position=[0.1, 0.2]))

    node.create_subscription(JointState, "stream", on_message, 50, callback_group=group)
    node.create_subscription(JointState, "states", on_message, 10, callback_group=group)
    node.create_timer(PERIOD_S, on_timer, callback_group=group)
    published: list[float] = []
    done = threading.Event()
    wake = threading.Event()

    def stream() -> None:
        count()
        started = time.monotonic()
        for k in range(ticks):
            delay = started + k * PERIOD_S - time.monotonic()
            if delay > 0:
                wake.wait(delay)
            stream_pub.publish(JointState(name=["a", "b"], position=[0.1 * k, 0.2]))
            published.append(time.monotonic())
        done.set()

    node.create_guard_condition(stream, callback_group=group).trigger()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            executor.spin_once(timeout_sec=0.1)

    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    finished = done.wait(TIMEOUT_S)
    stop.set()
    spinner.join(timeout=10.0)
    # rclpy 7.1's shutdown does not wait for the callbacks in its pool: let them end first.
    executor._executor.shutdown(wait=True)
    executor.shutdown(timeout_sec=10.0)
    node.destroy_node()
    rclpy.try_shutdown(context=context)
    jitter_ms = np.abs(np.diff(published) - PERIOD_S) * 1000.0
    return {
        "finished": finished,
        "ticks": len(published),
        "p50": float(np.percentile(jitter_ms, 50)) if len(jitter_ms) else float("nan"),
        "p99": float(np.percentile(jitter_ms, 99)) if len(jitter_ms) else float("nan"),
        "max": float(jitter_ms.max()) if len(jitter_ms) else float("nan"),
        "passes_per_callback": executor.yielded / max(callbacks[0], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=250, help="stream ticks per run (20 ms)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the three executors")
    args = parser.parse_args()
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)  # as run_nodes sets it for every node process
    contenders = {
        "rclpy MultiThreadedExecutor(), 2 threads here": lambda c: counting(MultiThreadedExecutor)(
            context=c
        ),
        "rclpy MultiThreadedExecutor(4)": lambda c: counting(MultiThreadedExecutor)(4, context=c),
        "WorkerBoundExecutor(4)": lambda c: counting(WorkerBoundExecutor)(4, context=c),
    }
    results: dict[str, list[dict]] = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, make in contenders.items():
            results[name].append(run_once(make, args.ticks))
    load = os.getloadavg()[0]
    print(f"bench_executor: {os.cpu_count()} CPUs, load average {load:.2f}; {args.rounds} rounds")
    print(f"stream jitter |dt - 20 ms| over {args.ticks} ticks, one worker held by the stream")
    print(f"{'executor':48s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>8s} {'passes/cb':>10s}")
    worst_p99 = {}
    for name, runs in results.items():
        for run in runs:
            note = "" if run["finished"] else f"  (only {run['ticks']} ticks in {TIMEOUT_S:g} s)"
            print(
                f"{name:48s} {run['p50']:8.2f} {run['p99']:8.2f} {run['max']:8.2f} "
                f"{run['passes_per_callback']:10.2f}{note}"
            )
        worst_p99[name] = max(run["p99"] for run in runs)
    ours = worst_p99["WorkerBoundExecutor(4)"]
    for name, p99 in worst_p99.items():
        if name != "WorkerBoundExecutor(4)":
            print(f"worst p99, {name} / WorkerBoundExecutor(4): {p99 / ours:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
