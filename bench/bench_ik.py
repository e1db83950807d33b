#!/usr/bin/env python3
"""Scalar IK speed of the kinematics core, beside bare closed-form floors measured in the same run.

For the 2R default arm (config/arm.yaml) and the 3R example with a requested tool heading
(config/arm_3r.yaml), on the same random reachable targets (FK of random joints within limits):
  floor: a bare closed-form solve in plain Python (law of cosines and atan2, one elbow, nothing
         else; for 3R the same plus the wrist point and joint 3),
  solve: the full `PlanarArm.solve` as a user calls it (input checks, statuses, limits, both
         elbows, branch choice, message, result), and CLOSEST from a `current` pose,
and the ratios solve / floor (target: no more than 5x, for 2R and for 3R with a heading). Each
variant runs in turn, several rounds, best time kept, so that load from other processes on a
shared machine hits every variant alike.

Usage: python bench/bench_ik.py [--targets N] [--rounds R] [--strict]
(Run with the workspace environment: `source scripts/env.sh`. It sets no environment variables.)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Callable

import numpy as np

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.kinematics import Branch, PlanarArm

RATIO_TARGET = 5.0


def floor_2r(arm: PlanarArm) -> Callable[[list[tuple[float, ...]]], None]:
    """The 2R floor: law of cosines and atan2 for one elbow, in plain Python on floats."""
    l1, l2 = arm.link_lengths[:2]
    k = 2.0 * l1 * l2
    l1sq_l2sq = l1 * l1 + l2 * l2
    atan2, sqrt = math.atan2, math.sqrt

    def run(targets: list[tuple[float, ...]]) -> None:
        for x, y, _ in targets:
            c2 = (x * x + y * y - l1sq_l2sq) / k
            s2 = sqrt(max(0.0, 1.0 - c2 * c2))
            (atan2(y, x) - atan2(l2 * s2, l1 + l2 * c2), atan2(s2, c2))

    return run


def floor_3r(arm: PlanarArm) -> Callable[[list[tuple[float, ...]]], None]:
    """The 3R floor: the wrist point, then the 2R floor on it, then joint 3."""
    l1, l2, l3 = arm.link_lengths
    k = 2.0 * l1 * l2
    l1sq_l2sq = l1 * l1 + l2 * l2
    atan2, sqrt, cos, sin = math.atan2, math.sqrt, math.cos, math.sin

    def run(targets: list[tuple[float, ...]]) -> None:
        for x, y, h in targets:
            wx, wy = x - l3 * cos(h), y - l3 * sin(h)
            c2 = (wx * wx + wy * wy - l1sq_l2sq) / k
            s2 = sqrt(max(0.0, 1.0 - c2 * c2))
            q1 = atan2(wy, wx) - atan2(l2 * s2, l1 + l2 * c2)
            q2 = atan2(s2, c2)
            (q1, q2, h - q1 - q2)

    return run


def full_solve(
    arm: PlanarArm, with_heading: bool, current: tuple[float, ...] | None
) -> Callable[[list[tuple[float, ...]]], None]:
    """`PlanarArm.solve` called as a user would, nothing else in the loop."""
    solve = arm.solve
    closest = Branch.CLOSEST

    def run(targets: list[tuple[float, ...]]) -> None:
        for x, y, h in targets:
            solve(x, y, h if with_heading else None, closest, current)

    return run


def best_times(variants: dict[str, Callable[[], None]], rounds: int) -> dict[str, float]:
    best = dict.fromkeys(variants, math.inf)
    for _ in range(rounds):
        for name, run in variants.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def reachable_targets(arm: PlanarArm, count: int, seed: int) -> list[tuple[float, ...]]:
    """(x, y, heading) of FK of random joints within the limits."""
    rng = np.random.default_rng(seed)
    lows = np.array([max(lo, -math.pi) for lo, _ in arm.joint_limits])
    highs = np.array([min(hi, math.pi) for _, hi in arm.joint_limits])
    return [arm.forward(q) for q in rng.uniform(lows, highs, (count, arm.n_joints)).tolist()]


def bench_arm(label: str, arm: PlanarArm, count: int, rounds: int) -> float:
    """Print one arm's table; return the ratio solve / floor."""
    targets = reachable_targets(arm, count, seed=1)
    three = arm.n_joints == 3
    middle = tuple((max(lo, -1.0) + min(hi, 1.0)) / 2 for lo, hi in arm.joint_limits)
    floor = floor_3r(arm) if three else floor_2r(arm)
    names = ("floor (bare closed form)", "solve", "solve, CLOSEST from current")
    runs = (floor, full_solve(arm, three, None), full_solve(arm, three, middle))
    times = best_times(
        {n: (lambda r=r: r(targets)) for n, r in zip(names, runs, strict=True)}, rounds
    )
    statuses = Counter(
        arm.solve(x, y, h if three else None).status.name for x, y, h in targets[:2000]
    )
    print(f"{label}: {arm!r}")
    print("  statuses (first 2000): " + ", ".join(f"{k} {v}" for k, v in statuses.most_common()))
    print(f"  {'variant':30s} {'per target':>11s} {'x floor':>8s}")
    for name, seconds in times.items():
        print(f"  {name:30s} {seconds / count * 1e6:8.3f} us {seconds / times[names[0]]:7.2f}x")
    return times[names[1]] / times[names[0]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    print(f"{args.targets} reachable targets per arm, best of {args.rounds} rounds\n")
    arm_2r = ArmConfig.from_file().make_arm()
    arm_3r = ArmConfig.from_file(default_config_path("arm_3r.yaml")).make_arm()
    ratio_2r = bench_arm("2R, no heading", arm_2r, args.targets, args.rounds)
    ratio_3r = bench_arm("3R, with a heading", arm_3r, args.targets, args.rounds)
    met = ratio_2r <= RATIO_TARGET and ratio_3r <= RATIO_TARGET
    print(
        f"\nsolve / floor: 2R {ratio_2r:.2f}x, 3R with heading {ratio_3r:.2f}x "
        f"(target <= {RATIO_TARGET:g}x each): {'met' if met else 'MISSED'}"
    )
    return 0 if met or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
