#!/usr/bin/env python3
"""IK throughput of the kinematics core, beside bare closed-form floors measured in the same run.

Prints solves per second on the same random targets for:
  (a) a bare closed-form 2R solve in plain Python (law of cosines + atan2, nothing else),
  (b) the full scalar `PlanarArm.solve` (validation, statuses, limits, branch choice, result),
      without `current` and (b') CLOSEST from a `current` pose,
  (c) a bare numpy vectorised 2R solve (the same formulas over arrays),
  (d) `PlanarArm.solve_batch`, which works through long arrays in blocks of CHUNK targets so
      that its temporaries stay in cache; (c') is the bare batch run the same way, for fairness,
and the ratios (b)/(a) and (d)/(c). Each variant runs in turn, several rounds, best time kept,
so that load from other processes on a shared machine hits every variant alike.

Usage: python bench/bench_ik.py [--targets N] [--rounds R] [--config PATH]
(Run with the workspace environment: `source scripts/env.sh`. It sets no environment variables.)
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Callable

import numpy as np

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, IkStatus, PlanarArm
from arm_kinematics.kinematics.batch import CHUNK


def bare_scalar(l1: float, l2: float) -> Callable[[list[float], list[float]], None]:
    """The floor: law of cosines and atan2 for one elbow, in plain Python on floats."""
    k = 2.0 * l1 * l2
    l1sq_l2sq = l1 * l1 + l2 * l2
    atan2, sqrt = math.atan2, math.sqrt

    def run(xs: list[float], ys: list[float]) -> None:
        for x, y in zip(xs, ys, strict=True):
            c2 = (x * x + y * y - l1sq_l2sq) / k
            s2 = sqrt(max(0.0, 1.0 - c2 * c2))
            (atan2(y, x) - atan2(l2 * s2, l1 + l2 * c2), atan2(s2, c2))

    return run


def full_scalar(arm: PlanarArm, current: tuple[float, ...] | None):
    """The full `solve`, called as a user would, with nothing else in the loop: the branch is
    looked up once (an Enum class attribute costs ~45 ns in Python 3.11, which the floor does
    not pay either) and the with/without-current choice is made outside the loop."""
    solve = arm.solve
    closest = Branch.CLOSEST

    def run(xs: list[float], ys: list[float]) -> None:
        for x, y in zip(xs, ys, strict=True):
            solve(x, y)

    def run_from_current(xs: list[float], ys: list[float]) -> None:
        for x, y in zip(xs, ys, strict=True):
            solve(x, y, None, closest, current)

    return run if current is None else run_from_current


def bare_batch(l1: float, l2: float) -> Callable[[np.ndarray, np.ndarray], None]:
    """The batch floor: the same formulas over numpy arrays, nothing else."""
    k = 2.0 * l1 * l2
    l1sq_l2sq = l1 * l1 + l2 * l2

    def run(x: np.ndarray, y: np.ndarray) -> None:
        c2 = (x * x + y * y - l1sq_l2sq) / k
        s2 = np.sqrt(np.maximum(0.0, 1.0 - c2 * c2))
        np.arctan2(y, x) - np.arctan2(l2 * s2, l1 + l2 * c2)
        np.arctan2(s2, c2)

    return run


def blocked(run: Callable[[np.ndarray, np.ndarray], None], size: int):
    """`run` over blocks of `size` targets (temporaries that stay in cache)."""

    def run_blocks(x: np.ndarray, y: np.ndarray) -> None:
        for start in range(0, len(x), size):
            run(x[start : start + size], y[start : start + size])

    return run_blocks


def full_batch(arm: PlanarArm) -> Callable[[np.ndarray, np.ndarray], None]:
    def run(x: np.ndarray, y: np.ndarray) -> None:
        arm.solve_batch(x, y)

    return run


def best_times(variants: dict[str, tuple[Callable, tuple]], rounds: int) -> dict[str, float]:
    best = dict.fromkeys(variants, math.inf)
    for _ in range(rounds):
        for name, (run, args) in variants.items():
            start = time.perf_counter()
            run(*args)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def target_sets(arm: PlanarArm, count: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    lows = np.array([max(lo, -math.pi) for lo, _ in arm.joint_limits])
    highs = np.array([min(hi, math.pi) for _, hi in arm.joint_limits])
    joints = rng.uniform(lows, highs, (count, arm.n_joints))
    reachable = np.array([arm.forward(q)[:2] for q in joints.tolist()])
    square = rng.uniform(-1.1 * arm.reach, 1.1 * arm.reach, (count, 2))
    return {
        "reachable (FK of random joints within limits)": (reachable[:, 0], reachable[:, 1]),
        "mixed (uniform in a square around the arm)": (square[:, 0], square[:, 1]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--config", default=None, help="arm parameters file (default arm.yaml)")
    args = parser.parse_args()

    arm = ArmConfig.from_file(args.config).make_arm()
    l1, l2 = arm.link_lengths[:2]
    print(f"arm: {arm!r}")
    print(f"{args.targets} targets per set, best of {args.rounds} rounds\n")
    for label, (x, y) in target_sets(arm, args.targets, seed=1).items():
        xs, ys = x.tolist(), y.tolist()
        mid = tuple((max(lo, -1.0) + min(hi, 1.0)) / 2 for lo, hi in arm.joint_limits)
        bare, full, closest = "(a) bare scalar", "(b) full solve", "(b') full solve, current"
        bare_np, batch = "(c) bare numpy batch", "(d) solve_batch"
        bare_blocks = f"(c') bare numpy, {CHUNK} blocks"
        variants = {
            bare: (bare_scalar(l1, l2), (xs, ys)),
            full: (full_scalar(arm, None), (xs, ys)),
            closest: (full_scalar(arm, mid), (xs, ys)),
            bare_np: (bare_batch(l1, l2), (x, y)),
            bare_blocks: (blocked(bare_batch(l1, l2), CHUNK), (x, y)),
            batch: (full_batch(arm), (x, y)),
        }
        times = best_times(variants, args.rounds)
        statuses = Counter(IkStatus(s).name for s in arm.solve_batch(x, y).status.tolist())
        print(f"targets: {label}")
        print("  statuses: " + ", ".join(f"{k} {v}" for k, v in statuses.most_common()))
        print(f"  {'variant':32s} {'per target':>12s} {'solves/s':>14s}")
        for name, seconds in times.items():
            per = seconds / args.targets
            unit = f"{per * 1e9:9.1f} ns" if per < 1e-6 else f"{per * 1e6:9.3f} us"
            print(f"  {name:32s} {unit:>12s} {1.0 / per:14,.0f}")
        print(
            f"  ratio full solve / bare scalar: {times[full] / times[bare]:.2f}x "
            f"(CLOSEST from current: {times[closest] / times[bare]:.2f}x)"
        )
        print(
            f"  ratio solve_batch / bare numpy batch: {times[batch] / times[bare_np]:.2f}x "
            f"(/ the same in blocks of {CHUNK}, as solve_batch works: "
            f"{times[batch] / times[bare_blocks]:.2f}x)"
        )
        print()


if __name__ == "__main__":
    main()
