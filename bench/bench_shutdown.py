"""Shutdown under load: N rounds of "start the arm, send a goal, stop it with a signal".

    python bench/bench_shutdown.py                # 50 rounds per layout, SIGINT and SIGTERM
    python bench/bench_shutdown.py --rounds 10 --layout separate

Each round checks what test_shutdown.py checks (every process exits 0, the client gets an
ABORTED goal with result SHUTDOWN and true step counts, the servos are released) and times the
exit from the signal to the last process gone. Prints, per layout, the rounds that fell short
and the exit-time percentiles beside the bound (SHUTDOWN_BOUND_S). Exits 1 if any round fell
short.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
from pathlib import Path

if __name__ == "__main__":
    # A domain of its own and localhost discovery: no crosstalk with tests or a demo.
    os.environ["ROS_DOMAIN_ID"] = str(random.SystemRandom().randint(120, 230))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arm_kinematics" / "test"))
from ros_helpers import ros_graph
from shutdown_rounds import check_round, shutdown_round

from arm_kinematics.nodes.runner import SHUTDOWN_BOUND_S


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="rounds per layout")
    parser.add_argument("--layout", choices=["bringup", "separate", "both"], default="both")
    args = parser.parse_args()
    layouts = ["bringup", "separate"] if args.layout == "both" else [args.layout]
    failed = 0
    print(f"{'layout':10} {'rounds':>6} {'short':>6} {'exit p50':>9} {'p99':>7} {'max':>7}  bound")
    with ros_graph() as graph:
        for layout in layouts:
            times, short = [], []
            for k in range(args.rounds):
                signum = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
                outcome = shutdown_round(graph, layout, signum, f"bench_{layout}_{k}")
                problems = check_round(outcome)
                times.append(outcome.exit_s)
                if problems:
                    short.append((k, signal.Signals(signum).name, problems))
            p50, p99 = np.percentile(times, [50, 99])
            print(
                f"{layout:10} {args.rounds:6d} {len(short):6d} {p50:8.2f}s {p99:6.2f}s "
                f"{max(times):6.2f}s  {SHUTDOWN_BOUND_S:g} s"
            )
            for k, name, problems in short:
                print(f"  round {k} ({name}): {'; '.join(problems)}")
            failed += len(short)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
