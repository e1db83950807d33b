"""Benchmark of trajectory_node: goal acceptance to first setpoint, and setpoint period jitter.

Set-up (what users get):
- SERVER: the real IkNode, HardwareNode (sim) and TrajectoryNode through `run_nodes`
  (nodes/runner.py, the production WorkerBoundExecutor), either all three in one child
  process (--layout bringup, the README's run command) or one child process each (--layout
  processes, what the launch file starts). The arm is the default one with longer links,
  L = (1.0, 0.8) m, so that a 1 m line fits in its ring.
- CLIENT: this process, one node on a SingleThreadedExecutor spinning in a thread: an
  ActionClient (rclpy_compat/action_client.py: rclpy's, without its send/record race) and a
  subscription on joint_commands that records the arrival time (monotonic) and the header
  stamp (the node's clock just before each publish) of every setpoint.

Measured:
1. Acceptance to first setpoint for a 1 m line at 1 mm steps, at the default 0.05 m/s (a
   point at every setpoint of the tool's own timing, from rest to 0.05 m/s at 0.3 m/s^2 and
   back: about 1,006 IK points in one solve_ik_batch call, and nothing else to solve where no
   joint sets the pace; every IK of a goal is solved in the IK node), or at `--speed`. In the
   node: the time from the accepted-goal callback to the publish of the first setpoint, which
   the node logs. From the client: the goal-accepted response to the first joint_commands
   message. Each goal is canceled once its first setpoint arrives (it stops at once: it moves
   at 6 mm/s then), so every goal runs the same 1 m line. Target (issue 12, and issue 23 with
   the new timing): p99 under 20 ms.
2. Period jitter of the setpoints at 50 Hz over one 10 s move (500 setpoints): |interval -
   20 ms|, from the node's publish stamps and from the client's arrival times. Target:
   p99 under 5 ms.
3. The desk kit (arm_desk_kit.yaml, a spatial arm; issue 25): the three nodes in one child
   process with that params file, and LINEAR position-only goals along a 20 cm line at 5 mm/s
   (about 2,000 IK steps, each seeded by the previous answer: the chain of the array solve,
   which goes row by row here, the tool angle of each step being the least motion from the
   step before). Acceptance to first setpoint, as in 1, each goal canceled after its first
   setpoint and the next one sent from where it stopped. Target: under 50 ms (node p50).

The machine is shared: the figures are this run's. Usage:
    source scripts/env.sh && python bench/bench_trajectory.py [--layout L] [--goals N]
    [--desk-goals N] [--strict]
(--strict: exit 1 when a target is missed.)
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import re
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
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

TIMEOUT_S = 60.0
LINK_LENGTHS = [1.0, 0.8]
START = (1.55, 0.55)  # ends of the 1 m line: inside the ring of (1.0, 0.8) and the limits
GOAL = (0.75, 1.15)
FIRST_SETPOINT_TARGET_MS = 20.0  # p99, issue 12
DESK_KIT = "arm_desk_kit.yaml"
DESK_START = (0.15, -0.1, 0.10)  # ends of the desk kit's 20 cm line (m), inside its envelope
DESK_GOAL = (0.15, 0.1, 0.10)
DESK_SPEED = 0.005  # m/s: at the kit's 50 Hz, a setpoint (and an IK step) every 0.1 mm
DESK_TARGET_MS = 50.0  # node p50, issue 25
JITTER_TARGET_MS = 5.0
_FIRST_SETPOINT_LOG = re.compile(
    r"planned (\d+) IK steps \((\d+) IK round trips, ([\d.]+) ms in all\)"
    r".*first setpoint ([\d.]+) ms after"
)


def _executable(name: str) -> str:
    from ament_index_python.packages import get_package_prefix

    return os.path.join(get_package_prefix("arm_kinematics"), "lib", "arm_kinematics", name)


def serve(which: str) -> int:
    """Run `which` node ("ik", "hardware", "trajectory") or "all" three in this process;
    "desk": all three with the desk kit's params file."""
    from arm_kinematics.config import default_config_path
    from arm_kinematics.nodes.hardware_node import HardwareNode
    from arm_kinematics.nodes.ik_node import IkNode
    from arm_kinematics.nodes.runner import run_nodes
    from arm_kinematics.nodes.trajectory_node import TrajectoryNode

    if which == "desk":
        arguments = ["--ros-args", "--params-file", str(default_config_path(DESK_KIT))]
        return run_nodes([IkNode, HardwareNode, TrajectoryNode], arguments)

    overrides = [Parameter("link_lengths_m", value=LINK_LENGTHS)]
    factories = {
        "ik": lambda: IkNode(parameter_overrides=overrides),
        "hardware": lambda: HardwareNode(parameter_overrides=overrides),
        "trajectory": lambda: TrajectoryNode(parameter_overrides=overrides),
    }
    names = list(factories) if which == "all" else [which]
    return run_nodes([factories[name] for name in names])


class Client:
    """Action client and joint_commands recorder on a SingleThreadedExecutor in a thread."""

    def __init__(self) -> None:
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = Node("bench_trajectory_client", context=self.context)
        self.lock = threading.Lock()
        self.arrivals: list[float] = []  # monotonic
        self.stamps: list[float] = []  # header stamps, seconds
        self.first_arrival = threading.Event()
        self.node.create_subscription(JointState, "joint_commands", self._on_command, 1000)
        self.action = ActionClient(self.node, MoveArm, "move_arm")
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()
        if not self.action.wait_for_server(timeout_sec=TIMEOUT_S):
            raise SystemExit("bench_trajectory: no move_arm action server")
        deadline = time.monotonic() + TIMEOUT_S
        while self.node.count_publishers("joint_commands") == 0:
            if time.monotonic() > deadline:
                raise SystemExit("bench_trajectory: joint_commands publisher not matched")
            time.sleep(0.01)

    def _spin(self) -> None:
        with contextlib.suppress(Exception):  # the context ends at shutdown
            self.executor.spin()

    def _on_command(self, msg: JointState) -> None:
        now = time.monotonic()
        with self.lock:
            self.arrivals.append(now)
            self.stamps.append(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9)
        self.first_arrival.set()

    def reset(self) -> None:
        with self.lock:
            self.arrivals.clear()
            self.stamps.clear()
        self.first_arrival.clear()

    @staticmethod
    def wait(future: Any, what: str) -> Any:
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        if not done.wait(TIMEOUT_S):
            raise SystemExit(f"bench_trajectory: no {what} within {TIMEOUT_S:g} s")
        return future.result()

    def send(self, goal: MoveArm.Goal) -> tuple[Any, float]:
        """(goal handle, monotonic time the acceptance arrived)."""
        handle = self.wait(self.action.send_goal_async(goal), "goal response")
        accepted = time.monotonic()
        if not handle.accepted:
            raise SystemExit("bench_trajectory: goal rejected")
        return handle, accepted

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=5.0)
        rclpy.shutdown(context=self.context)
        self.thread.join(timeout=5.0)


def line_goal(
    x: float, y: float, mode: int = MoveArm.Goal.LINEAR, speed: float = 0.0, z: float = 0.0
) -> Any:
    """A goal to (x, y, z) m in base_link, position only (a planar arm's z is 0)."""
    goal = MoveArm.Goal(mode=mode, speed=speed, max_step=0.001)
    goal.target.header.frame_id = "base_link"
    goal.target.pose.position.x = x
    goal.target.pose.position.y = y
    goal.target.pose.position.z = z
    goal.target.pose.orientation.w = 1.0
    return goal


def percentiles(values: list[float]) -> tuple[float, float, float]:
    array = np.asarray(values)
    return (
        float(np.percentile(array, 50)),
        float(np.percentile(array, 99)),
        float(array.max()),
    )


def start_servers(commands: list[list[str]]) -> tuple[list[subprocess.Popen], list[str]]:
    """The server processes of `commands`, and their output lines as they come."""
    servers = [
        subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        for command in commands
    ]
    log: list[str] = []
    for server in servers:
        threading.Thread(target=lambda s=server: log.extend(s.stdout), daemon=True).start()
    return servers, log


def stop_servers(servers: list[subprocess.Popen]) -> None:
    for server in servers:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGINT)
    for server in servers:
        try:
            server.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def go_to(client: Client, goal: Any) -> None:
    """Run `goal` to its end; SystemExit unless it succeeds."""
    handle, _ = client.send(goal)
    result = client.wait(handle.get_result_async(), "result").result
    if result.status != MoveArm.Result.SUCCEEDED:
        raise SystemExit(f"bench_trajectory: could not reach the start: {result.message}")


def first_setpoints(client: Client, goal: Any, goals: int) -> list[float]:
    """Send `goal` `goals` times, each canceled once its first setpoint arrives: the client's
    ms from the acceptance to that setpoint."""
    client_ms = []
    for _ in range(goals):
        client.reset()
        handle, accepted = client.send(goal)
        result_future = handle.get_result_async()
        while not client.first_arrival.wait(0.1):
            if result_future.done():
                message = result_future.result().result.message
                raise SystemExit(f"bench_trajectory: the goal ended early: {message}")
        with client.lock:
            first = client.arrivals[0]
        client_ms.append((first - accepted) * 1e3)
        client.wait(handle.cancel_goal_async(), "cancel")
        response = client.wait(handle.get_result_async(), "result")
        if response.result.status != MoveArm.Result.CANCELED:
            raise SystemExit(f"bench_trajectory: {response.result.message}")
    return client_ms


def node_figures(log: list[str], goals: int) -> list[re.Match]:
    """The node's first-setpoint log lines of the last `goals` goals (after the move to the
    start)."""
    deadline = time.monotonic() + 5.0
    found: list[re.Match] = []
    while time.monotonic() < deadline:
        found = [m for line in list(log) if (m := _FIRST_SETPOINT_LOG.search(line))]
        if len(found) >= goals + 1:
            break
        time.sleep(0.05)
    return found[1:]


def measure(goals: int, layout: str, speed: float) -> bool:
    # "bringup": the three nodes in one process (the README's run command); "processes": one
    # process per node (what the launch file starts).
    if layout == "bringup":
        commands = [[sys.executable, __file__, "--serve", "all"]]
    else:  # the installed executables, as `ros2 run` / the launch file start them
        lengths = "[" + ",".join(str(v) for v in LINK_LENGTHS) + "]"
        commands = [
            [_executable(name), "--ros-args", "-p", f"link_lengths_m:={lengths}"]
            for name in ("ik_node", "hardware_node", "trajectory_node")
        ]
    servers, log = start_servers(commands)
    client = Client()
    try:
        # ik_node computes its reachable region once it spins (0.3 s of solves on this arm): a
        # goal in that second waits for the interpreter, so measure from after it.
        deadline = time.monotonic() + 60.0
        while not any("reachable region" in line for line in list(log)):
            if time.monotonic() > deadline:
                raise SystemExit("bench_trajectory: ik_node published no reachable region")
            time.sleep(0.05)
        # Start at one end of the line.
        go_to(client, line_goal(*START, mode=MoveArm.Goal.JOINT, speed=1.0))

        # 1. Acceptance -> first setpoint, 1 m line, 1 mm steps; canceled after it.
        client_ms = first_setpoints(client, line_goal(*GOAL, speed=speed), goals)
        # The node's own figures, from its log lines (one per goal that streamed).
        lines = node_figures(log, goals)
        steps = {int(m.group(1)) for m in lines}
        node_ms = [float(m.group(4)) for m in lines]
        ik_ms = [float(m.group(3)) for m in lines]
        ik_calls = sorted({int(m.group(2)) for m in lines})

        # 2. Period jitter over one 10 s move at 50 Hz: 0.5 m at 0.05 m/s.
        client.reset()
        mid = ((START[0] + GOAL[0]) / 2, (START[1] + GOAL[1]) / 2)
        handle, _ = client.send(line_goal(*mid, speed=0.05))
        response = client.wait(handle.get_result_async(), "result")
        if response.result.status != MoveArm.Result.SUCCEEDED:
            raise SystemExit(f"bench_trajectory: {response.result.message}")
        with client.lock:
            arrivals = np.diff(client.arrivals)
            stamps = np.diff(client.stamps)
    except SystemExit:
        print("".join(log[-15:]), file=sys.stderr)  # what the nodes said
        raise
    finally:
        client.close()
        stop_servers(servers)

    period_ms = 20.0
    publish_jitter = np.abs(stamps * 1e3 - period_ms).tolist()
    arrival_jitter = np.abs(arrivals * 1e3 - period_ms).tolist()
    node_p50, node_p99, node_max = percentiles(node_ms)
    client_p50, client_p99, client_max = percentiles(client_ms)
    ik_p50, ik_p99, _ = percentiles(ik_ms)
    pub_p50, pub_p99, pub_max = percentiles(publish_jitter)
    arr_p50, arr_p99, arr_max = percentiles(arrival_jitter)
    print(
        f"layout {layout}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
        f"arm L = {LINK_LENGTHS} m"
    )
    print(
        f"1 m line {START} -> {GOAL} at 1 mm steps and {speed:g} m/s ({min(steps)}..{max(steps)} "
        "IK points: the "
        f"arm starts where the previous goal was canceled); {goals} goals, each canceled "
        "after its first setpoint"
    )
    print("acceptance -> first setpoint        p50 ms   p99 ms   max ms")
    print(f"  in the node (log)              {node_p50:8.1f} {node_p99:8.1f} {node_max:8.1f}")
    print(f"  client: accepted -> received   {client_p50:8.1f} {client_p99:8.1f} {client_max:8.1f}")
    print(
        f"  of which solve_ik_batch round trips ({'/'.join(map(str, ik_calls))} per goal) "
        f"p50 {ik_p50:.1f} ms, p99 {ik_p99:.1f} ms in all"
    )
    print(f"setpoint period jitter |dt - 20 ms| over {len(stamps) + 1} setpoints at 50 Hz")
    print(f"  node publish stamps            {pub_p50:8.2f} {pub_p99:8.2f} {pub_max:8.2f}")
    print(f"  client arrival times           {arr_p50:8.2f} {arr_p99:8.2f} {arr_max:8.2f}")
    ok_first = node_p99 < FIRST_SETPOINT_TARGET_MS
    ok_jitter = pub_p99 < JITTER_TARGET_MS
    print(
        f"target first setpoint < {FIRST_SETPOINT_TARGET_MS:g} ms (node p99): "
        f"{'met' if ok_first else 'MISSED'}; "
        f"target jitter p99 < {JITTER_TARGET_MS:g} ms (node): {'met' if ok_jitter else 'MISSED'}"
    )
    return ok_first and ok_jitter and math.isfinite(node_p50)


def measure_desk(goals: int) -> bool:
    """Part 3 of the module docstring: True when the node's p50 met DESK_TARGET_MS."""
    servers, log = start_servers([[sys.executable, __file__, "--serve", "desk"]])
    client = Client()
    try:
        x, y, z = DESK_START
        go_to(client, line_goal(x, y, mode=MoveArm.Goal.JOINT, speed=1.0, z=z))
        x, y, z = DESK_GOAL
        client_ms = first_setpoints(client, line_goal(x, y, speed=DESK_SPEED, z=z), goals)
        lines = node_figures(log, goals)
    except SystemExit:
        print("".join(log[-15:]), file=sys.stderr)
        raise
    finally:
        client.close()
        stop_servers(servers)
    steps = [int(m.group(1)) for m in lines]
    node_p50, node_p99, node_max = percentiles([float(m.group(4)) for m in lines])
    client_p50, client_p99, client_max = percentiles(client_ms)
    ik_p50, ik_p99, _ = percentiles([float(m.group(3)) for m in lines])
    print(
        f"desk kit ({DESK_KIT}): position-only line {DESK_START} -> {DESK_GOAL} m at "
        f"{DESK_SPEED * 1e3:g} mm/s ({min(steps)}..{max(steps)} IK steps); {goals} goals, each "
        f"canceled after its first setpoint; load average {os.getloadavg()[0]:.2f}"
    )
    print("acceptance -> first setpoint        p50 ms   p99 ms   max ms")
    print(f"  in the node (log)              {node_p50:8.1f} {node_p99:8.1f} {node_max:8.1f}")
    print(f"  client: accepted -> received   {client_p50:8.1f} {client_p99:8.1f} {client_max:8.1f}")
    print(f"  of which solve_ik_batch round trips p50 {ik_p50:.1f} ms, p99 {ik_p99:.1f} ms")
    ok = node_p50 < DESK_TARGET_MS
    print(
        f"target desk kit line planned < {DESK_TARGET_MS:g} ms (node p50): "
        f"{'met' if ok else 'MISSED'}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=30, help="1 m goals to time (default 30)")
    parser.add_argument(
        "--speed", type=float, default=0.05, help="tool speed of the 1 m goals, m/s (0.05)"
    )
    parser.add_argument(
        "--desk-goals", type=int, default=10, help="desk kit line goals to time (default 10)"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--layout",
        choices=("bringup", "processes"),
        default="bringup",
        help="bringup: the three nodes in one process (default); processes: one per node",
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    ok = measure(args.goals, args.layout, args.speed)
    ok = measure_desk(args.desk_goals) and ok
    return 0 if ok or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
