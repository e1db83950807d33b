#!/usr/bin/env python3
"""Scalar IK speed of the kinematics core, beside bare closed-form floors measured in the same run.

Planar: for the 2R default arm (config/arm.yaml) and the 3R example with a requested tool heading
(config/arm_3r.yaml), on the same random reachable targets (FK of random joints within limits):
  floor: a bare closed-form solve in plain Python (law of cosines and atan2, one elbow, nothing
         else; for 3R the same plus the wrist point and joint 3),
  solve: the full `PlanarArm.solve` as a user calls it (input checks, statuses, limits, both
         elbows, branch choice, message, result) on the arm as the nodes build it (with its
         config's workspace envelope: every answer checked against it), CLOSEST from a
         `current` pose, and the bare model's (no envelope),
and the ratios solve / floor (target: no more than 5x, for 2R and for 3R with a heading).

Spatial (issues 19 and 25): an OpenManipulator-X-like arm (base yaw + 3 pitch joints, its
published dimensions), targets = FK of random joints within the limits:
  floor: yaw = atan2, the wrist point from the pitch, the law of cosines, one elbow, nothing else,
  `SpatialArm.solve` with position and pitch, with position only (the pitch in closed form), and
  `solve_rotation` with the whole tool rotation, one target a call; and the same three on arrays,
  every target in one call (`solve_many`, `solve_rotation_many`), per target; per-solve time,
  the ratio to the floor, max |FK(answer) - target| and the statuses (every target is reachable:
  anything but OK/SINGULAR, or an answer off by more than 1e-9 m, is a wrong status).
Beside it, where Robotics Toolbox for Python imports (it is not one of the project's pins: see
bench/requirements-rtb.txt), its C++ `ik_LM` on the same arm (an ETS built from the same numbers,
its FK checked equal to ours before timing) and the same targets: full pose, position only (its
mask) and full pose with a tolerance tight enough for 1e-9 m; its success flags, how many answers
are more than 0.1 mm / 1e-9 m off, and our speed-up over it in each mode (position and pitch and
the full pose against its full pose, position only against its position only). Targets: the
array solve at least 50x as fast as ik_LM per target, the scalar solve at least 2x, in every mode;
ours exact on every answer, never a wrong status.

The reachable region (issue 25): `reachable_region` (planar) and `vertical_region` (spatial) of
every shipped config at its default cell size, best of the rounds (target: under 0.5 s each),
with the config's workspace envelope (the cells it removes marked, issue 23) beside the bare
model's.

Each variant runs in turn, several rounds, best time kept, so that load from other processes on a
shared machine hits every variant alike.

Usage: python bench/bench_ik.py [--targets N] [--spatial-targets M] [--rounds R] [--strict]
(Run with the workspace environment: `source scripts/env.sh`; with ik_LM beside it, from the venv
that bench/requirements-rtb.txt describes. It sets no environment variables.)
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
from arm_kinematics.kinematics import Branch, IkResult, IkStatus, PlanarArm, SpatialArm

try:  # optional: not one of the project's pins (bench/requirements-rtb.txt says why and how)
    import roboticstoolbox as rtb
except ImportError:
    rtb = None

RATIO_TARGET = 5.0
REGION_TARGET_S = 0.5
SCALAR_SPEEDUP_TARGET = 2.0
ARRAY_SPEEDUP_TARGET = 50.0
EXACT_M = 1e-9
"""m: an answer whose FK is farther than this from its target is not exact."""
OFF_M = 1e-4
"""m: 0.1 mm, the error the issue counts ik_LM's answers against."""
RTB_TIGHT_TOL = 1e-20
"""ik_LM's `tol` bounds E = 0.5 |e|^2 (e: the 6-vector pose error, m and rad); its default 1e-6
allows up to 1.4 mm. 1e-20 allows 1.4e-10 m: the tightest that is still above rounding."""


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
    names = (
        "floor (bare closed form)",
        "solve",
        "solve, CLOSEST from current",
        "solve, bare model (no envelope)",
    )
    runs = (
        floor,
        full_solve(arm, three, None),
        full_solve(arm, three, middle),
        full_solve(arm.bare, three, None),
    )
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


# --- spatial: an OpenManipulator-X-like arm ------------------------------------------------------

SpatialTarget = tuple[float, float, float, float, np.ndarray]
"""x, y, z (m, base frame), the tool pitch (rad, outward convention) and the tool rotation."""


def omx_arm() -> SpatialArm:
    """OpenManipulator-X's published dimensions and joint limits (as test_spatial_kinematics.omx):
    the shoulder 0.077 m up and 0.012 m forward, the upper arm a 0.024 m step over 0.128 m, the
    forearm 0.124 m, wrist to tool 0.126 m; no wrist roll."""
    d = math.radians
    return SpatialArm(
        (math.hypot(0.024, 0.128), 0.124, 0.126),
        [(d(-160), d(160)), (d(-100), d(90)), (d(-90), d(85)), (d(-115), d(100))],
        shoulder_height=0.077,
        shoulder_forward=0.012,
        link_angle_offsets=(math.atan2(0.128, 0.024), 0.0, 0.0),
        joint_names=("base_yaw", "shoulder", "elbow", "wrist_pitch"),
    )


def random_spatial_joints(arm: SpatialArm, count: int, seed: int) -> list[list[float]]:
    """Random joints (rad) within the limits (the link angle limits too, where the arm has them)."""
    rng = np.random.default_rng(seed)
    lows = np.array([max(lo, -math.pi) for lo, _ in arm.joint_limits])
    highs = np.array([min(hi, math.pi) for _, hi in arm.joint_limits])
    joints: list[list[float]] = []
    while len(joints) < count:
        draws = rng.uniform(lows, highs, (count, arm.n_joints)).tolist()
        joints += [q for q in draws if arm.within_limits(q)][: count - len(joints)]
    return joints


def spatial_targets(arm: SpatialArm, count: int, seed: int) -> list[SpatialTarget]:
    """FK of random joints within the limits."""
    tools = [arm.forward(q) for q in random_spatial_joints(arm, count, seed)]
    return [(t.x, t.y, t.z, t.pitch, t.rotation) for t in tools]


def floor_spatial(arm: SpatialArm) -> Callable[[list[SpatialTarget]], list[tuple[float, ...]]]:
    """The spatial floor: yaw = atan2, the wrist point from the pitch, the law of cosines for one
    elbow, the joint angles back from the bent links' offsets; in plain Python on floats. From
    the front only and without limits: not an answer a user could take, the least work any
    closed form does."""
    l1, l2, l3 = arm.link_lengths
    d1, d2, d3 = arm.link_angle_offsets
    height, forward = arm.shoulder_height, arm.shoulder_forward
    k = 2.0 * l1 * l2
    l1sq_l2sq = l1 * l1 + l2 * l2
    atan2, sqrt, cos, sin, hypot = math.atan2, math.sqrt, math.cos, math.sin, math.hypot

    def run(targets: list[SpatialTarget]) -> list[tuple[float, ...]]:
        answers = []
        for x, y, z, pitch, _ in targets:
            heading = pitch + d3  # the last straight link's angle in the vertical plane
            wx = hypot(x, y) - forward - l3 * cos(heading)
            wz = z - height - l3 * sin(heading)
            c2 = (wx * wx + wz * wz - l1sq_l2sq) / k
            s2 = sqrt(max(0.0, 1.0 - c2 * c2))
            phi1 = atan2(wz, wx) - atan2(l2 * s2, l1 + l2 * c2)
            phi2 = atan2(s2, c2)
            answers.append(
                (atan2(y, x), phi1 - d1, phi2 - d2 + d1, heading - phi1 - phi2 - d3 + d2)
            )
        return answers

    return run


def spatial_solve(arm: SpatialArm, mode: str) -> Callable[[list[SpatialTarget]], list]:
    """`SpatialArm.solve` / `solve_rotation` called as a user would, one target a call, or
    `solve_many` / `solve_rotation_many` on all of them (the arrays built in the loop too);
    nothing else in the loop but keeping the answers (joints or None, status; checked after
    the timing)."""
    solve, solve_rotation = arm.solve, arm.solve_rotation

    def with_pitch(targets: list[SpatialTarget]) -> list:
        return [answer(solve(x, y, z, pitch)) for x, y, z, pitch, _ in targets]

    def position_only(targets: list[SpatialTarget]) -> list:
        return [answer(solve(x, y, z)) for x, y, z, _, _ in targets]

    def rotation(targets: list[SpatialTarget]) -> list:
        return [answer(solve_rotation(x, y, z, matrix)) for x, y, z, _, matrix in targets]

    arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def as_arrays(targets: list[SpatialTarget]) -> tuple[np.ndarray, np.ndarray]:
        """The targets as the arrays a caller of the array solve holds: (x, y, z, pitch) rows
        and the rotations, built once (not timed after the first round)."""
        if id(targets) not in arrays:
            rows = np.array([target[:4] for target in targets])
            arrays[id(targets)] = (rows, np.array([target[4] for target in targets]))
        return arrays[id(targets)]

    def many_with_pitch(targets: list[SpatialTarget]):
        return arm.solve_many(as_arrays(targets)[0])

    def many_position_only(targets: list[SpatialTarget]):
        return arm.solve_many(as_arrays(targets)[0][:, :3])

    def many_rotation(targets: list[SpatialTarget]):
        rows, matrices = as_arrays(targets)
        return arm.solve_rotation_many(rows[:, :3], matrices)

    return {
        "pitch": with_pitch,
        "position": position_only,
        "rotation": rotation,
        "many pitch": many_with_pitch,
        "many position": many_position_only,
        "many rotation": many_rotation,
    }[mode]


def answer(result: IkResult) -> tuple[list[float] | None, IkStatus]:
    """(joints or None, status) of a scalar answer."""
    return result.joints, result.status


def answers_of(answers) -> list:
    """(joints or None, status) per row of an array answer."""
    ok = answers.ok.tolist()
    return [
        (joints if solved else None, IkStatus(status))
        for joints, solved, status in zip(
            answers.joints.tolist(), ok, answers.status.tolist(), strict=True
        )
    ]


def best_answers(
    variants: dict[str, Callable[[], list]], rounds: int
) -> tuple[dict[str, float], dict[str, list]]:
    """`best_times` for runs that return their answers: (best seconds, the last answers)."""
    best = dict.fromkeys(variants, math.inf)
    answers: dict[str, list] = {}
    for _ in range(rounds):
        for name, run in variants.items():
            start = time.perf_counter()
            answers[name] = run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, answers


def position_errors(arm: SpatialArm, joints: list, targets: list[SpatialTarget]) -> np.ndarray:
    """|FK(answer) - target| (m) per target, inf where there is no answer."""
    return np.array(
        [
            math.inf if q is None else math.dist(arm.forward(q).position, target[:3])
            for q, target in zip(joints, targets, strict=True)
        ]
    )


def pitch_errors(arm: SpatialArm, joints: list, targets: list[SpatialTarget]) -> np.ndarray:
    """|FK(answer)'s pitch - the target's| (rad, wrapped) per target, inf without an answer."""
    return np.array(
        [
            math.inf if q is None else abs(math.remainder(arm.forward(q).pitch - t[3], math.tau))
            for q, t in zip(joints, targets, strict=True)
        ]
    )


def rotation_errors(arm: SpatialArm, joints: list, targets: list[SpatialTarget]) -> np.ndarray:
    """The largest |element| of FK(answer)'s rotation - the target's, per target."""
    return np.array(
        [
            math.inf if q is None else float(np.abs(arm.forward(q).rotation - t[4]).max())
            for q, t in zip(joints, targets, strict=True)
        ]
    )


def spatial_table(
    arm: SpatialArm,
    targets: list[SpatialTarget],
    per_target: dict[str, float],
    answers: dict[str, list],
) -> bool:
    """Print our spatial variants' table; return whether every answer of ours was exact (1e-9 m,
    and 1e-9 in the pitch / rotation it was asked for) with a right status."""
    floor = per_target[FLOOR]
    print(f"spatial, OpenManipulator-X-like (yaw + 3 pitch joints): {arm!r}")
    print(
        f"  {'variant':36s} {'per target':>11s} {'x floor':>8s} {'max |FK - target|':>19s}"
        "  statuses (every target is reachable)"
    )
    all_right = True
    for name in (FLOOR, *OURS):
        if name == FLOOR:
            joints = answers[name]
            errors = position_errors(arm, joints, targets)
            within = sum(arm.within_limits(q) for q in joints)
            verdict = (
                f"{int((errors <= EXACT_M).sum())} exact (from the front, one elbow), "
                f"{within} within the limits"
            )
        else:
            joints = [joints for joints, _ in answers[name]]
            errors = position_errors(arm, joints, targets)
            wrong = (errors > EXACT_M) | np.array(
                [
                    status not in (IkStatus.OK, IkStatus.SINGULAR) or not arm.within_limits(q)
                    for q, status in answers[name]
                ]
            )
            mode = OURS[name].removeprefix("many ")
            if mode == "pitch":
                wrong |= pitch_errors(arm, joints, targets) > EXACT_M
            if mode == "rotation":
                wrong |= rotation_errors(arm, joints, targets) > EXACT_M
            statuses = Counter(status.name for _, status in answers[name])
            verdict = ", ".join(f"{k} {v}" for k, v in statuses.most_common())
            verdict += f"; wrong {int(wrong.sum())}"
            all_right = all_right and not wrong.any()
        per = per_target[name]
        print(
            f"  {name:36s} {per * 1e6:8.3f} us {per / floor:7.2f}x {errors.max():16.2e} m"
            f"  {verdict}"
        )
    return all_right


# --- Robotics Toolbox for Python's ik_LM on the same arm ----------------------------------------


def rtb_ets(arm: SpatialArm):  # -> roboticstoolbox.ETS
    """The same arm as a Robotics Toolbox elementary transform sequence, from the same numbers:
    Rz (yaw), the shoulder's translations, then per pitch joint a flipped Ry (our pitch joints
    turn about -y) and its bent link's two translations, the roll (if any) an Rx; joint limits
    as qlim; no joint offsets (ik_LM's C++ refuses them), no zero translation."""
    et = rtb.ET
    sequence = et.Rz(qlim=list(arm.yaw_limits))

    def shift(dx: float, dz: float) -> None:
        nonlocal sequence
        for value, make in ((dx, et.tx), (dz, et.tz)):
            if value != 0.0:
                sequence = sequence * make(value)

    shift(arm.shoulder_forward, arm.shoulder_height)
    pitch_limits = arm.joint_limits[1 : 1 + arm.n_pitch]
    for limits, length, delta in zip(
        pitch_limits, arm.link_lengths, arm.link_angle_offsets, strict=True
    ):
        sequence = sequence * et.Ry(flip=True, qlim=list(limits))
        shift(length * math.cos(delta), length * math.sin(delta))
    if arm.has_roll:
        sequence = sequence * et.Rx(qlim=list(arm.roll_limits))
    return sequence


def rtb_fk_difference(arm: SpatialArm, ets, count: int = 1000, seed: int = 2) -> float:
    """The largest difference (m, and rotation matrix elements) between rtb's FK and ours over
    random joints within the limits."""
    worst = 0.0
    for joints in random_spatial_joints(arm, count, seed):
        theirs, ours = ets.eval(np.array(joints)), arm.forward(joints)
        worst = max(
            worst,
            float(np.abs(theirs[:3, 3] - ours.position).max()),
            float(np.abs(theirs[:3, :3] - ours.rotation).max()),
        )
    return worst


def rtb_solve(
    ets, tol: float, mask: tuple[float, ...] | None, poses: list[np.ndarray]
) -> Callable[[], list]:
    """`ets.ik_LM` as a user calls it (a 4x4 target pose, no q0: its own random starts) on
    every pose, keeping its IKSolution answers."""
    ik_lm = ets.ik_LM
    weights = None if mask is None else np.array(mask, dtype=float)

    def run() -> list:
        return [ik_lm(pose, tol=tol, mask=weights) for pose in poses]

    return run


def rtb_table(
    arm: SpatialArm,
    targets: list[SpatialTarget],
    per_target: dict[str, float],
    answers: dict[str, list],
) -> dict[tuple[str, str], float]:
    """Print ik_LM's table beside ours; return our speed-up over it per (ik_LM's, ours)."""
    floor = per_target[FLOOR]
    print(
        f"  {'variant':40s} {'per target':>11s} {'x floor':>8s} {'success':>8s}"
        f" {'> 0.1 mm':>8s} {'> 1e-9 m':>8s} {'max |FK - target|':>19s}  wrong status"
    )
    speedups = {}
    for name, (_, _, ours) in RTB.items():
        solutions = answers[name]
        errors = position_errors(arm, [s.q.tolist() for s in solutions], targets)
        success = np.array([s.success for s in solutions])
        false_success = int((success & (errors > OFF_M)).sum())
        failed = int((~success).sum())  # every target is reachable
        per = per_target[name]
        print(
            f"  {name:40s} {per * 1e6:8.3f} us {per / floor:7.2f}x {int(success.sum()):8d}"
            f" {int((errors > OFF_M).sum()):8d} {int((errors > EXACT_M).sum()):8d}"
            f" {errors.max():16.2e} m  {false_success} success > 0.1 mm off, {failed} failed"
        )
        for our_name in ours:
            speedups[name, our_name] = per / per_target[our_name]
    print("  our speed-up over ik_LM (its time / ours):")
    for (name, our_name), factor in speedups.items():
        print(f"    {our_name:36s} vs {name:40s} {factor:7.2f}x")
    return speedups


FLOOR = "floor (bare closed form)"
OURS = {
    "solve, position and pitch": "pitch",
    "solve, position only": "position",
    "solve_rotation, full pose": "rotation",
    "solve_many, position and pitch": "many pitch",
    "solve_many, position only": "many position",
    "solve_rotation_many, full pose": "many rotation",
}
"""Our variants and what they are asked for (`many`: every target in one call)."""
FULL_POSE_OURS = (
    "solve, position and pitch",
    "solve_rotation, full pose",
    "solve_many, position and pitch",
    "solve_rotation_many, full pose",
)
POSITION_OURS = ("solve, position only", "solve_many, position only")
ARRAY_OURS = tuple(name for name in OURS if "_many" in name)
RTB = {
    "ik_LM, full pose": (1e-6, None, FULL_POSE_OURS),
    "ik_LM, position only (mask 1,1,1,0,0,0)": (1e-6, (1, 1, 1, 0, 0, 0), POSITION_OURS),
    f"ik_LM, full pose, tol {RTB_TIGHT_TOL:g}": (RTB_TIGHT_TOL, None, FULL_POSE_OURS),
}
"""ik_LM's variants: (tol, mask, ours that answer the same question: on this arm, without a
wrist roll, the position and the pitch are the whole pose). tol 1e-6 and no mask are its
defaults."""
TARGET_PAIRS = {
    ours: (
        "ik_LM, position only (mask 1,1,1,0,0,0)" if ours in POSITION_OURS else "ik_LM, full pose"
    )
    for ours in OURS
}
"""Which ik_LM variant each of ours is held against (its defaults: tol 1e-6)."""
RTB_INSTALL = "a venv of its own, as bench/requirements-rtb.txt says"


def bench_spatial(count: int, rounds: int) -> tuple[bool, dict[tuple[str, str], float] | None]:
    """The spatial table and, where rtb imports, ik_LM's beside it, all timed in one loop.
    Returns whether ours were all exact with right statuses, and our speed-ups (None without
    rtb)."""
    arm = omx_arm()
    targets = spatial_targets(arm, count, seed=3)
    runs = {FLOOR: floor_spatial(arm)} | {name: spatial_solve(arm, m) for name, m in OURS.items()}
    variants = {name: (lambda r=r: r(targets)) for name, r in runs.items()}
    ets = None
    if rtb is not None:
        ets = rtb_ets(arm)
        difference = rtb_fk_difference(arm, ets)
        if difference > 1e-12:
            print(f"rtb's FK of {ets} differs from ours by {difference:.3g}: no ik_LM comparison")
            ets = None
    if ets is not None:
        poses = [transform(t) for t in targets]
        for name, (tol, mask, _) in RTB.items():
            variants[name] = rtb_solve(ets, tol, mask, poses)
    seconds, answers = best_answers(variants, rounds)
    answers = {name: answers_of(a) if name in ARRAY_OURS else a for name, a in answers.items()}
    per_target = {name: value / count for name, value in seconds.items()}
    all_right = spatial_table(arm, targets, per_target, answers)
    if ets is None:
        if rtb is None:
            print(
                "\nRobotics Toolbox for Python is not installed here: no ik_LM comparison. "
                f"To run it: {RTB_INSTALL}"
            )
        return all_right, None
    print(
        f"\nRobotics Toolbox for Python {rtb.__version__}, ik_LM (C++ Levenberg-Marquardt, its"
        f" random restarts) on the same arm and targets: {ets}; its FK equals ours to"
        f" {difference:.1e} on 1000 random joints"
    )
    return all_right, rtb_table(arm, targets, per_target, answers)


def transform(target: SpatialTarget) -> np.ndarray:
    """The 4x4 homogeneous pose of a target (what ik_LM takes)."""
    pose = np.eye(4)
    pose[:3, :3], pose[:3, 3] = target[4], target[:3]
    return pose


def bench_regions(rounds: int) -> bool:
    """Print the region's time for every shipped config, with its envelope and without (the
    bare model), side by side; True when each is under target."""
    from arm_kinematics.kinematics.workspace import reachable_region, vertical_region

    met = True
    print(f"reachable region of every shipped config, best of {rounds} rounds")
    for path in sorted(default_config_path().parent.glob("arm*.yaml")):
        arm = ArmConfig.from_file(path).make_arm()
        region_of = vertical_region if isinstance(arm, SpatialArm) else reachable_region
        best = {"envelope": math.inf, "bare": math.inf}
        for _ in range(rounds):
            for name, model in (("envelope", arm), ("bare", arm.bare)):
                start = time.perf_counter()
                region = region_of(model)
                best[name] = min(best[name], time.perf_counter() - start)
                if name == "envelope":
                    kept = region
        fast = best["envelope"] < REGION_TARGET_S
        met = met and fast
        print(
            f"  {path.name:28s} {best['envelope'] * 1e3:7.1f} ms (bare model"
            f" {best['bare'] * 1e3:6.1f} ms), {int(kept.reachable.sum())} cells of"
            f" {kept.cell_size * 1e3:.1f} mm, {int(kept.removed.sum())} removed by the envelope"
            f" (target < {REGION_TARGET_S:g} s): {'met' if fast else 'MISSED'}"
        )
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=100_000)
    parser.add_argument(
        "--spatial-targets", type=int, default=10_000, help="targets of the spatial arm"
    )
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
    print()
    met = bench_regions(args.rounds) and met
    print(f"\n{args.spatial_targets} reachable targets, best of {args.rounds} rounds\n")
    exact, speedups = bench_spatial(args.spatial_targets, args.rounds)
    print(
        f"\nspatial: every answer exact (1e-9) with a right status: {'met' if exact else 'MISSED'}"
    )
    if speedups is not None:
        for ours, theirs in TARGET_PAIRS.items():
            factor = speedups[theirs, ours]
            target = ARRAY_SPEEDUP_TARGET if "_many" in ours else SCALAR_SPEEDUP_TARGET
            fast = factor >= target
            print(
                f"spatial: {ours} {factor:.2f}x as fast as {theirs} per target"
                f" (target >= {target:g}x): {'met' if fast else 'MISSED'}"
            )
            met = met and fast
    return 0 if (met and exact) or not args.strict else 1


if __name__ == "__main__":
    sys.exit(main())
