"""Benchmark of ik_node: solve_ik round trip against rclpy's own floor, and solve_ik_batch.

Set-up (chosen to measure what users get, and to compare like with like):
- SERVER: a child process runs the real `IkNode` and a node of no-work services through
  `run_nodes` (nodes/runner.py), i.e. on the WorkerBoundExecutor that `ik_node` uses in
  production, every service in a ReentrantCallbackGroup. The empty std_srvs/Trigger service is
  the floor: a round trip through the same executor doing no work at all. A SolveIK-typed
  service that does no work shows how much of the gap the SolveIK message types alone cost.
- CLIENT: this process, one node on a SingleThreadedExecutor spinning in a background thread;
  each call is `call_async` and then a wait on a threading.Event set by the future's done
  callback. (A client looping `call_async` + `spin_until_future_complete` gets slower with
  every call on these wheels, and a multi-threaded client executor adds about 1 ms per call:
  either would measure the client rather than the server.)
- The calls are interleaved one by one, so machine load drifts hit every service alike.

Targets: solve_ik p50 no more than 1.1x the no-work SolveIK service's p50 (issue 12: same message
types, same executor, so the ratio is what the IK node's own work costs); solve_ik_batch of
1,000 targets under 20 ms end to end (p50 of the batch calls). The Trigger floor is printed for
reference.

The desk kit (issue 25): a second server process runs an `IkNode` with arm_desk_kit.yaml (in
the namespace /desk_kit), and solve_ik_batch of 10,000 position-only targets must be answered
in under 0.5 s end to end: the issue's target repeated (x 0.15, y 0.05, z 0.10) and a 17 cm
line sampled every 17 um (what a planner sends). Beside the round trip, where the time goes,
measured in this process on the same request: the request's targets into the base frame
(`batch_query`), the core's chained array solve, and the answer's fields. The machine is
shared: figures are this run's.

Usage: source scripts/env.sh && python bench/bench_ik_service.py [--calls N] [--strict]
(--strict: exit 1 when a target is missed.)
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from typing import Any

if __name__ == "__main__" and "--serve" not in sys.argv:
    # A domain of its own and localhost discovery: no crosstalk with tests or a demo.
    os.environ["ROS_DOMAIN_ID"] = str(random.SystemRandom().randint(120, 230))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

import numpy as np
import rclpy
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from std_srvs.srv import Trigger

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

TIMEOUT_S = 60.0
BATCH_SIZE = 1000
P50_RATIO_TARGET = 1.1
BATCH_TARGET_MS = 20.0
DESK_KIT = "arm_desk_kit.yaml"
DESK_NAMESPACE = "/desk_kit"
DESK_BATCH = 10_000
DESK_TARGET_MS = 500.0


class FloorNode(Node):
    """Services that do no work, on the same executor set-up as ik_node.

    `bench_trigger` (std_srvs/Trigger) is rclpy's round-trip floor. `bench_solve_ik_echo` is a
    SolveIK service that answers with the response it is handed (empty JointStates): what the
    SolveIK message types alone cost rclpy, without any IK.
    """

    def __init__(self) -> None:
        super().__init__("bench_floor")
        group = ReentrantCallbackGroup()
        self.create_service(Trigger, "bench_trigger", self._echo, callback_group=group)
        self.create_service(SolveIK, "bench_solve_ik_echo", self._echo, callback_group=group)

    @staticmethod
    def _echo(_request: Any, response: Any) -> Any:
        return response


def serve(ros_args: list[str]) -> int:
    from arm_kinematics.nodes.ik_node import IkNode
    from arm_kinematics.nodes.runner import run_nodes

    return run_nodes([IkNode, FloorNode], ["--ros-args", *ros_args] if ros_args else None)


def start_server(*ros_args: str) -> subprocess.Popen:
    """A server process (`serve`), its ROS arguments after --ros-args."""
    return subprocess.Popen(
        [sys.executable, __file__, "--serve", *ros_args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=10.0)
    except subprocess.TimeoutExpired:
        server.kill()


# --- the client side ---------------------------------------------------------------------------


class Caller:
    """One client node spun by a SingleThreadedExecutor in a thread; `call` waits on an Event."""

    def __init__(self) -> None:
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = Node("bench_ik_client", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        with contextlib.suppress(Exception):  # the context ends at shutdown
            self.executor.spin()

    def client(self, srv_type: Any, name: str) -> Any:
        client = self.node.create_client(srv_type, name)
        if not client.wait_for_service(timeout_sec=TIMEOUT_S):
            raise SystemExit(f"bench_ik_service: no {name} service within {TIMEOUT_S:g} s")
        return client

    @staticmethod
    def call(client: Any, request: Any) -> tuple[float, Any]:
        """(seconds, response) of one round trip."""
        done = threading.Event()
        start = time.perf_counter()
        future = client.call_async(request)
        future.add_done_callback(lambda _: done.set())
        if not done.wait(TIMEOUT_S):
            raise SystemExit(f"bench_ik_service: {client.srv_name} did not answer")
        return time.perf_counter() - start, future.result()

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5.0)
        rclpy.shutdown(context=self.context)
        self.thread.join(timeout=5.0)


def reachable_targets(config: ArmConfig, count: int, rng: random.Random) -> list[tuple]:
    """Tip positions of random joints within the limits (so every request is answered OK)."""
    arm = config.make_arm()
    targets = []
    for _ in range(count):
        joints = [rng.uniform(lo * 0.9, hi * 0.9) for lo, hi in config.joint_limits]
        x, y, _ = arm.forward(joints)
        targets.append((x, y))
    return targets


def percentiles_ms(values_s: list[float]) -> tuple[float, float]:
    array = np.asarray(values_s) * 1e3
    return float(np.percentile(array, 50)), float(np.percentile(array, 99))


def solve_request(x: float, y: float) -> SolveIK.Request:
    request = SolveIK.Request()
    request.target.header.frame_id = "base_link"
    request.target.pose.position.x = x
    request.target.pose.position.y = y
    return request


def measure(calls: int, warmup: int, batches: int) -> bool:
    config = ArmConfig.from_file()
    rng = random.Random(3)
    server = start_server()
    desk_path = str(default_config_path(DESK_KIT))
    desk_server = start_server("-r", f"__ns:={DESK_NAMESPACE}", "--params-file", desk_path)
    caller = Caller()
    try:
        trigger = caller.client(Trigger, "/bench_trigger")
        echo = caller.client(SolveIK, "/bench_solve_ik_echo")
        solve = caller.client(SolveIK, "/solve_ik")
        batch = caller.client(SolveIKBatch, "/solve_ik_batch")

        trigger_times, echo_times, solve_times = [], [], []
        targets = reachable_targets(config, warmup + calls, rng)
        for index, (x, y) in enumerate(targets):
            trigger_s, _ = caller.call(trigger, Trigger.Request())
            echo_s, _ = caller.call(echo, solve_request(x, y))
            solve_s, response = caller.call(solve, solve_request(x, y))
            if response.status not in (SolveIK.Response.OK, SolveIK.Response.SINGULAR):
                raise SystemExit(f"bench_ik_service: ({x}, {y}) answered {response.message}")
            if index >= warmup:
                trigger_times.append(trigger_s)
                echo_times.append(echo_s)
                solve_times.append(solve_s)

        # A batch along a straight line through the workspace, 1,000 points, seeded in turn.
        (x0, y0), (x1, y1) = reachable_targets(config, 2, rng)
        request = SolveIKBatch.Request()
        request.header.frame_id = "base_link"
        request.x = np.linspace(x0, x1, BATCH_SIZE).tolist()
        request.y = np.linspace(y0, y1, BATCH_SIZE).tolist()
        batch_times = []
        solved = 0
        for _ in range(batches + 2):
            seconds, response = caller.call(batch, request)
            batch_times.append(seconds)
            solved = sum(1 for s in response.statuses if s <= SolveIK.Response.SINGULAR)
            if len(response.statuses) != BATCH_SIZE:
                raise SystemExit(f"bench_ik_service: batch answered {len(response.statuses)}")
        batch_times = batch_times[2:]  # first calls warm caches up
        desk = {name: measure_desk_batch(caller, request) for name, request in desk_requests()}
    finally:
        caller.close()
        stop_server(server)
        stop_server(desk_server)

    trigger_p50, trigger_p99 = percentiles_ms(trigger_times)
    echo_p50, echo_p99 = percentiles_ms(echo_times)
    solve_p50, solve_p99 = percentiles_ms(solve_times)
    batch_p50, batch_p99 = percentiles_ms(batch_times)
    ratio = solve_p50 / echo_p50
    ratio_ok = ratio <= P50_RATIO_TARGET
    batch_ok = batch_p50 < BATCH_TARGET_MS
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.2f} (1 min)")
    print("server: IkNode + no-work services on run_nodes' WorkerBoundExecutor, own process")
    print("client: SingleThreadedExecutor in a thread, Event wait; calls interleaved")
    print(f"{'round trip (ms)':<34}{'p50':>8}{'p99':>8}")
    print(f"{'std_srvs/Trigger (floor), n=' + str(calls):<34}{trigger_p50:8.3f}{trigger_p99:8.3f}")
    print(f"{'SolveIK types, no work, n=' + str(calls):<34}{echo_p50:8.3f}{echo_p99:8.3f}")
    print(f"{'solve_ik, n=' + str(calls):<34}{solve_p50:8.3f}{solve_p99:8.3f}")
    print(
        f"SolveIK types alone / Trigger p50 = {echo_p50 / trigger_p50:.3f}; "
        f"solve_ik / Trigger p50 = {solve_p50 / trigger_p50:.3f}"
    )
    print(
        f"solve_ik p50 / SolveIK types, no work p50 = {ratio:.3f} "
        f"(target <= {P50_RATIO_TARGET}): {'met' if ratio_ok else 'MISSED'}"
    )
    print(
        f"solve_ik_batch of {BATCH_SIZE} targets ({solved} solved), n={batches}: "
        f"p50 {batch_p50:.2f} ms, p99 {batch_p99:.2f} ms end to end (target < "
        f"{BATCH_TARGET_MS:g} ms): {'met' if batch_ok else 'MISSED'}"
    )
    desk_ok = report_desk(desk)
    return ratio_ok and batch_ok and desk_ok


def desk_requests() -> list[tuple[str, SolveIKBatch.Request]]:
    """The desk kit's two batches of DESK_BATCH position-only targets (base frame, m)."""
    repeated = SolveIKBatch.Request()
    repeated.header.frame_id = "base_link"
    repeated.x, repeated.y, repeated.z = ([v] * DESK_BATCH for v in (0.15, 0.05, 0.10))
    line = SolveIKBatch.Request()
    line.header.frame_id = "base_link"
    start, end = np.array([0.17, -0.06, 0.08]), np.array([0.09, 0.12, 0.16])  # 0.21 m
    points = start + np.linspace(0.0, 1.0, DESK_BATCH)[:, None] * (end - start)
    line.x, line.y, line.z = (points[:, axis].tolist() for axis in range(3))
    return [("one target repeated", repeated), ("a 21 cm line", line)]


def measure_desk_batch(caller: Caller, request: SolveIKBatch.Request, calls: int = 5) -> dict:
    """Round trips of `request` to the desk kit's solve_ik_batch, and the same request's parts
    timed in this process (`where_the_time_goes`)."""
    client = caller.client(SolveIKBatch, f"{DESK_NAMESPACE}/solve_ik_batch")
    times, response = [], None
    for _ in range(calls + 1):
        seconds, response = caller.call(client, request)
        times.append(seconds)
    solved = sum(1 for s in response.statuses if s <= SolveIK.Response.SINGULAR)
    return {"times": times[1:], "solved": solved, "parts": where_the_time_goes(request)}


def where_the_time_goes(request: SolveIKBatch.Request, rounds: int = 3) -> dict[str, float]:
    """Seconds (best of `rounds`) of the IK node's steps for `request`, in this process: the
    targets into the base frame, the core's chained array solve, the answer's fields."""
    from arm_kinematics.nodes.ik.batch import fill_batch
    from arm_kinematics.nodes.ik.requests import IkSetup

    setup = IkSetup.from_config(ArmConfig.from_file(default_config_path(DESK_KIT)))
    best = {"targets into the base frame": math.inf, "chained array solve": math.inf}
    best["answer's fields"] = math.inf
    for _ in range(rounds):
        start = time.perf_counter()
        points = setup.layout.batch_query(request)
        middle = time.perf_counter()
        answers = setup.layout.solve_batch(points, setup.default_branch, None)
        solved = time.perf_counter()
        fill_batch(SolveIKBatch.Response(), answers, False, setup.joint_names)
        done = time.perf_counter()
        for name, seconds in zip(
            best, (middle - start, solved - middle, done - solved), strict=True
        ):
            best[name] = min(best[name], seconds)
    return best


def report_desk(desk: dict) -> bool:
    """Print the desk kit's batches; True when each met DESK_TARGET_MS at p50."""
    met = True
    for name, result in desk.items():
        p50, _ = percentiles_ms(result["times"])
        ok = p50 < DESK_TARGET_MS
        met = met and ok
        parts = ", ".join(
            f"{part} {seconds * 1e3:.1f} ms" for part, seconds in result["parts"].items()
        )
        print(
            f"solve_ik_batch of {DESK_BATCH} position-only targets on the desk kit, {name} "
            f"({result['solved']} solved): p50 {p50:.1f} ms, max {max(result['times']) * 1e3:.1f} "
            f"ms end to end (target < {DESK_TARGET_MS:g} ms): {'met' if ok else 'MISSED'}; "
            f"in this process: {parts}"
        )
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per service")
    parser.add_argument("--warmup", type=int, default=200, help="untimed calls first")
    parser.add_argument("--batches", type=int, default=30, help="timed batch calls")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args, ros_args = parser.parse_known_args()
    if args.serve:
        return serve(ros_args)
    met = measure(args.calls, args.warmup, args.batches)
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
