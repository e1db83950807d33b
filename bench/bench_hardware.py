"""Benchmark of hardware_node: joint_states period jitter and joint_commands -> register write.

1. Jitter, BETWEEN PROCESSES: a real `hardware_node` process (sim backend, in /hw) publishes
   joint_states at 50 Hz, then at 200 Hz; at the same time a BASELINE process (a bare rclpy node
   on the same runner, publishing a JointState from a timer, in /base) does the same. This process
   subscribes to both and measures the periods from the stamps (the publisher's timer) and from
   the arrival times here (timer + DDS + this subscriber). Jitter = |period - 1/rate|.
2. Command -> write, IN ONE PROCESS: a HardwareNode on the servokit backend (the real ServoKit /
   PCA9685 code) over the tests' fake I2C bus and a commander node, on one WorkerBoundExecutor
   (rclpy_compat/executor.py) with the GIL switch interval of nodes/runner.py, as the bringup does.
   Per command (the arm at rest before it): perf_counter from `publish()` to the first PWM
   register write. Interleaved with it, the BASELINE: publish() to the entry of a
   bare subscription callback on the same executor (what rclpy alone costs), and the node's own
   share: its callback called directly (no DDS) to the register write.

Targets (issue 5): p99 jitter < 5 ms at 50 Hz; command -> write p99 < 5 ms. The machine is
shared, so each figure is printed beside its baseline measured at the same time, and the ratio.

Usage: source scripts/env.sh && python bench/bench_hardware.py [--samples N]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_DIR = ROOT / "arm_kinematics" / "test"

# A domain of its own (tests use 1..100) and localhost discovery: no crosstalk with a demo.
# The baseline publisher process inherits the domain through BENCH_HARDWARE_DOMAIN.
os.environ.setdefault("BENCH_HARDWARE_DOMAIN", str(random.SystemRandom().randint(120, 230)))
os.environ["ROS_DOMAIN_ID"] = os.environ["BENCH_HARDWARE_DOMAIN"]
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.node import Node  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

sys.path.insert(0, str(TEST_DIR))
from fake_i2c import FakeI2C  # noqa: E402
from ros_helpers import installed_executable  # noqa: E402

from arm_kinematics.config import ArmConfig  # noqa: E402
from arm_kinematics.hardware import ServoKitBackend  # noqa: E402
from arm_kinematics.nodes.hardware_node import HardwareNode  # noqa: E402
from arm_kinematics.nodes.runner import GIL_SWITCH_INTERVAL_S  # noqa: E402
from arm_kinematics.rclpy_compat.executor import WorkerBoundExecutor  # noqa: E402

TIMEOUT_S = 60.0


def wait_until(predicate: Callable[[], object], what: str, timeout: float = TIMEOUT_S) -> None:
    # Polls slowly: a busy poller would compete for the GIL with the threads being measured.
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_hardware: timed out waiting for {what}")
        time.sleep(0.01)


def percentiles_ms(values_s: list[float] | np.ndarray) -> tuple[float, float, float]:
    """p50, p99 and max in milliseconds."""
    array = np.asarray(values_s) * 1e3
    return float(np.percentile(array, 50)), float(np.percentile(array, 99)), float(array.max())


# --- 1. joint_states jitter between processes ----------------------------------------------------


def baseline_publisher(rate_hz: float) -> None:
    """The baseline process: a bare rclpy node publishing a 2-joint JointState at `rate_hz`."""
    from arm_kinematics.nodes.runner import run_node

    class Baseline(Node):
        def __init__(self) -> None:
            super().__init__("baseline_publisher")
            self._publisher = self.create_publisher(JointState, "joint_states", 10)
            self.create_timer(1.0 / rate_hz, self._tick)

        def _tick(self) -> None:
            msg = JointState(name=["shoulder", "elbow"], position=[0.0, 0.0])
            msg.header.stamp = self.get_clock().now().to_msg()
            self._publisher.publish(msg)

    sys.exit(run_node(Baseline, args=["baseline", "--ros-args", "-r", "__ns:=/base"]))


class StateRecorder:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.arrivals: list[float] = []
        self.stamps: list[float] = []

    def __call__(self, msg: JointState) -> None:
        now = time.perf_counter()
        with self._lock:
            self.arrivals.append(now)
            self.stamps.append(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9)

    def jitter(
        self, rate_hz: float, skip: int, count: int
    ) -> dict[str, tuple[float, float, float]]:
        period = 1.0 / rate_hz
        with self._lock:
            arrival = np.diff(np.array(self.arrivals[skip : skip + count + 1]))
            stamped = np.diff(np.array(self.stamps[skip : skip + count + 1]))
        return {
            "stamp": percentiles_ms(np.abs(stamped - period)),
            "arrival": percentiles_ms(np.abs(arrival - period)),
        }


def measure_jitter(rate_hz: float, samples: int) -> dict[str, dict[str, tuple]]:
    quiet = {"start_new_session": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [
        subprocess.Popen(
            [
                installed_executable("hardware_node"),
                "--ros-args",
                "-r",
                "__ns:=/hw",
                "-p",
                f"hardware.publish_rate_hz:={rate_hz}",
                "--log-level",
                "warn",
            ],
            **quiet,
        ),
        subprocess.Popen([sys.executable, __file__, "--baseline-publisher", str(rate_hz)], **quiet),
    ]
    context = Context()
    rclpy.init(context=context)
    node = Node("bench_joint_states", context=context)
    recorders = {"hardware_node": StateRecorder(), "baseline": StateRecorder()}
    node.create_subscription(JointState, "/hw/joint_states", recorders["hardware_node"], 100)
    node.create_subscription(JointState, "/base/joint_states", recorders["baseline"], 100)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    warmup = 20
    try:
        wait_until(
            lambda: all(len(r.arrivals) >= samples + warmup + 1 for r in recorders.values()),
            f"{samples} joint_states from both publishers",
        )
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGINT)
        for process in processes:
            process.wait(timeout=TIMEOUT_S)
        executor.shutdown(timeout_sec=5.0)
        node.destroy_node()
        rclpy.shutdown(context=context)
        spinner.join(timeout=10.0)
    return {name: r.jitter(rate_hz, warmup, samples) for name, r in recorders.items()}


# --- 2. joint_commands -> register write in one process -------------------------------------------


def measure_command_to_write(samples: int) -> dict[str, tuple[float, float, float]]:
    config = ArmConfig.from_file()
    bus = FakeI2C()
    backend = ServoKitBackend([j.servo for j in config.joints], config.hardware, bus)
    context = Context()
    rclpy.init(context=context)
    hardware = HardwareNode(backend, context=context)
    client = Node("bench_commander", context=context)
    commands = client.create_publisher(JointState, "joint_commands", 10)
    # Baseline: the same message type to a subscription that does nothing but note the time.
    echo_publisher = client.create_publisher(JointState, "bench_echo", 10)
    echoed = threading.Event()
    echo_times: list[float] = []

    def on_echo(_msg: JointState) -> None:
        echo_times.append(time.perf_counter())
        echoed.set()

    echo_node = Node("bench_echo", context=context)
    echo_node.create_subscription(JointState, "bench_echo", on_echo, 10)
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)  # as run_nodes sets it
    executor = WorkerBoundExecutor(context=context)
    for node in (hardware, client, echo_node):
        executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    latencies: list[float] = []
    baseline: list[float] = []
    in_node: list[float] = []
    try:
        wait_until(
            lambda: (
                commands.get_subscription_count() > 0
                and echo_publisher.get_subscription_count() > 0
            ),
            "publishers matched",
        )
        elbow = config.home[1]
        for k in range(samples + 10):
            msg = JointState(name=list(config.joint_names), position=[0.0, elbow])
            echoed.clear()
            sent = time.perf_counter()
            echo_publisher.publish(msg)
            if not echoed.wait(TIMEOUT_S):
                raise SystemExit("bench_hardware: the baseline message never arrived")
            # Small moves (2 degrees: a 17 ms ramp) so the arm is at rest before each command:
            # the first write after it is this command's. Out through DDS, back by a direct
            # call of the callback (the node's own work, without rclpy).
            for via_dds, degrees in ((True, 2.0), (False, 0.0)):
                target = (math.radians(degrees), elbow)
                msg = JointState(name=list(config.joint_names), position=list(target))
                mark = bus.mark()
                start = time.perf_counter()
                if via_dds:
                    commands.publish(msg)
                else:
                    hardware._on_command(msg)
                write = bus.wait_for_pwm_write(mark, TIMEOUT_S)
                if write is None:
                    raise SystemExit("bench_hardware: the command was never written to the bus")
                if k >= 10:  # warm-up
                    (latencies if via_dds else in_node).append(write.time_s - start)
                wait_until(lambda t=target: hardware.positions == t, "the arm at rest")
            if k >= 10:
                baseline.append(echo_times[-1] - sent)
    finally:
        executor.shutdown(timeout_sec=5.0)
        for node in (hardware, client, echo_node):
            node.destroy_node()
        rclpy.shutdown(context=context)
        spinner.join(timeout=10.0)
    return {
        "hardware_node": percentiles_ms(latencies),
        "baseline": percentiles_ms(baseline),
        "in_node": percentiles_ms(in_node),
    }


def print_row(label: str, figures: tuple[float, float, float], baseline: tuple, note: str) -> None:
    p50, p99, worst = figures
    ratio = p99 / baseline[1] if baseline[1] > 0 else math.inf
    print(
        f"  {label:<24} p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  max {worst:6.3f} ms   "
        f"| baseline p50 {baseline[0]:6.3f}  p99 {baseline[1]:6.3f} ms  "
        f"| p99 ratio {ratio:4.2f}{note}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=500, help="periods/commands per figure")
    parser.add_argument("--baseline-publisher", type=float, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.baseline_publisher:
        baseline_publisher(options.baseline_publisher)
        return
    print(
        f"bench_hardware: {os.cpu_count()} CPUs, load average "
        f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}, ROS_DOMAIN_ID "
        f"{os.environ['ROS_DOMAIN_ID']}, {options.samples} samples per figure"
    )
    print("joint_states period jitter |period - 1/rate| (publisher process -> this process):")
    for rate in (50.0, 200.0):
        result = measure_jitter(rate, options.samples)
        for source in ("stamp", "arrival"):
            note = "  (target p99 < 5 ms)" if rate == 50.0 and source == "arrival" else ""
            print_row(
                f"{rate:.0f} Hz, {source}",
                result["hardware_node"][source],
                result["baseline"][source],
                note,
            )
    result = measure_command_to_write(options.samples)
    print("joint_commands publish() -> first PWM register write (one process, fake bus):")
    print_row("command -> write", result["hardware_node"], result["baseline"], "  (target < 5 ms)")
    p50, p99, worst = result["in_node"]
    print(
        f"  {'of which the node itself':<24} p50 {p50:6.3f} ms  p99 {p99:6.3f} ms  "
        f"max {worst:6.3f} ms   (callback called directly: validation, ramp step, ServoKit, bus)"
    )
    print(f"load average after: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
