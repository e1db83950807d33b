"""Straight-line paths and their resampling into joint setpoints at the command rate.

Pure Python/numpy, no ROS. Units: metres, radians, seconds; positions in the arm's base frame.

A LINEAR move is planned in two stages:

1. `line_points` spaces Cartesian points evenly along the line from the start tip to the goal
   (at most `max_step` apart, the goal included). Their IK is solved elsewhere (the IK node's
   `solve_ik_batch`, each seeded by the previous one), which decides feasibility, branch and
   joint jumps before anything moves.
2. `resample_line` turns that plan into setpoints, one per command period. Each setpoint is a
   fresh IK solution of a point ON the line (never a joint-space interpolation between plan
   points, which would leave the line), seeded by the plan's joints at that place so that it
   stays on the plan's branch. The tool advances at the requested speed, and on any period where
   a joint would move faster than its velocity limit the advance is shortened until every joint
   step is at most `limit * period` (near singularities the tool slows down).

The path is parameterised by progress u in [0, 1]: position start + u * (goal - start) and,
with a heading, heading start + u * (goal - start) taken the short way round.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from arm_kinematics.kinematics.angles import wrap_angle
from arm_kinematics.kinematics.arm import PlanarArm
from arm_kinematics.kinematics.types import Branch, IkStatus, PlanStatus

# A setpoint whose largest joint-speed ratio is above 1 is shortened to this fraction of its
# allowed advance (a little below 1 so that one retry almost always lands inside the limit).
_SHRINK = 0.995
_MAX_SHRINKS = 60  # 0.5 ** 60 of a step: far below any physical resolution
_U_EPSILON = 1e-12


@dataclass(frozen=True)
class LinePath:
    """A straight tool path from `start` to `goal` ((x, y) metres, headings radians).

    `start_heading`/`goal_heading` are both set when the move controls the tool heading (then
    the heading turns the short way round in proportion to the distance travelled), else None.
    """

    start: tuple[float, float]
    goal: tuple[float, float]
    start_heading: float | None = None
    goal_heading: float | None = None

    @property
    def use_heading(self) -> bool:
        return self.start_heading is not None and self.goal_heading is not None

    @property
    def length(self) -> float:
        """Distance from start to goal, metres."""
        return math.hypot(self.goal[0] - self.start[0], self.goal[1] - self.start[1])

    @property
    def heading_change(self) -> float:
        """Signed heading turn from start to goal (short way round), radians; 0 without one."""
        if not self.use_heading:
            return 0.0
        return wrap_angle(self.goal_heading - self.start_heading)  # type: ignore[operator]

    def at(self, u: float) -> tuple[float, float, float | None]:
        """(x, y, heading or None) at progress u in [0, 1]; u = 1 is exactly the goal."""
        if u >= 1.0:
            return (self.goal[0], self.goal[1], self.goal_heading if self.use_heading else None)
        x = self.start[0] + u * (self.goal[0] - self.start[0])
        y = self.start[1] + u * (self.goal[1] - self.start[1])
        if not self.use_heading:
            return (x, y, None)
        return (x, y, wrap_angle(self.start_heading + u * self.heading_change))  # type: ignore[operator]

    def step_count(self, max_step: float, heading_radius: float = 0.0) -> int:
        """Number of points after the start so that no two are more than `max_step` apart.

        With a heading, the turn counts as a distance too: `heading_radius` (the last link's
        length, m) times the turn is how far the wrist swings, and that is kept under
        `max_step` as well.
        """
        if not (math.isfinite(max_step) and max_step > 0):
            raise ValueError(f"max_step must be finite and > 0, got {max_step!r}")
        travel = max(self.length, abs(self.heading_change) * heading_radius)
        return max(1, math.ceil(travel / max_step - 1e-9))

    def points(self, count: int) -> np.ndarray:
        """`count` evenly spaced points after the start, goal last: (count, 2), or (count, 3)
        with the heading column when the path has one."""
        u = np.arange(1, count + 1, dtype=float) / count
        x = self.start[0] + u * (self.goal[0] - self.start[0])
        y = self.start[1] + u * (self.goal[1] - self.start[1])
        x[-1], y[-1] = self.goal
        if not self.use_heading:
            return np.column_stack((x, y))
        start, turn = self.start_heading, self.heading_change
        heading = np.array([wrap_angle(start + f * turn) for f in u.tolist()])  # type: ignore[operator]
        heading[-1] = self.goal_heading
        return np.column_stack((x, y, heading))


def first_joint_jump(
    arm: PlanarArm, start: Sequence[float], joints: np.ndarray, max_joint_step: float
) -> tuple[int | None, np.ndarray]:
    """Check a solved path for branch flips.

    Returns (index of the first row of `joints` (M, n) that moves some joint more than
    `max_joint_step` rad from the previous row, row 0 from `start`, or None; the joints with
    continuous joints unwrapped next to their predecessor so the path has no 2 pi jumps).
    """
    path = np.asarray(joints, dtype=float)
    steps = np.abs(np.diff(np.vstack((np.asarray(start, dtype=float)[None, :], path)), axis=0))
    if np.all(steps <= max_joint_step):
        # Unwrapping only ever shortens a step, so no row can jump; nothing to unwrap either
        # unless a continuous joint crossed +-pi, which would have shown as a jump.
        return None, path
    rows = path.tolist()
    previous = tuple(float(v) for v in start)
    for index, row in enumerate(rows):
        if not all(math.isfinite(q) for q in row):
            return index, np.array(rows, dtype=float)  # a NaN row (a failed point) is a jump
        row = arm.unwrap_near(row, previous)
        rows[index] = row
        if max(abs(a - b) for a, b in zip(row, previous, strict=True)) > max_joint_step:
            return index, np.array(rows, dtype=float)
        previous = row
    return None, np.array(rows, dtype=float).reshape(np.shape(joints))


@dataclass(frozen=True)
class Setpoints:
    """Joint setpoints streamed one per `period` (s).

    `joints` (K, n) radians. Setpoint k is commanded k periods after the first one. `tips`
    (K, 3) is the forward kinematics (x, y, heading) of each setpoint in the base frame,
    computed by `forward` on first use (so that the first setpoint need not wait for it).
    """

    joints: np.ndarray
    period: float
    forward: Callable[[Sequence[float]], tuple[float, float, float]]

    def __len__(self) -> int:
        return len(self.joints)

    @property
    def duration(self) -> float:
        """Seconds of motion: one period per setpoint."""
        return len(self.joints) * self.period

    @cached_property
    def tips(self) -> np.ndarray:
        if len(self.joints) == 0:
            return np.zeros((0, 3))
        return np.array([self.forward(row) for row in self.joints.tolist()], dtype=float)


class ResampleError(RuntimeError):
    """A setpoint between two planned points could not be solved or flips the branch.

    `status` is the IkStatus of the failing solve (or PlanStatus.JOINT_JUMP), `step` the index
    of the planned point whose segment holds it, `point` the failing (x, y[, heading]).
    """

    def __init__(
        self, status: IkStatus | PlanStatus, step: int, point: tuple[float, ...], message: str
    ) -> None:
        super().__init__(message)
        self.status = status
        self.step = step
        self.point = point


def resample_line(
    arm: PlanarArm,
    path: LinePath,
    start_joints: Sequence[float],
    plan_joints: np.ndarray,
    *,
    speed: float,
    velocity_limits: Sequence[float],
    period: float,
    max_joint_step: float,
) -> Setpoints:
    """Setpoints along `path`, one per `period`, from a plan already solved at its points.

    `plan_joints` (M, n) holds the joints at `path.points(M)` (every row a solution, branch
    consistent and unwrapped: check it first with `first_joint_jump`). The tool advances
    `speed * period` (m) per period, less wherever a joint would exceed `velocity_limits`
    (rad/s). Every setpoint
    is an exact IK solution of a point on the line (FK within the solver's accuracy), seeded
    with the plan's joints interpolated at that point; the last setpoint solves the goal.

    Raises ResampleError when a point between two plan points has no solution or its solution
    is more than `max_joint_step` from the plan's joints there (a branch flip between points).
    """
    if not (math.isfinite(speed) and speed > 0):
        raise ValueError(f"speed must be finite and > 0, got {speed!r}")
    if not (math.isfinite(period) and period > 0):
        raise ValueError(f"period must be finite and > 0, got {period!r}")
    plan = np.asarray(plan_joints, dtype=float)
    count, n = plan.shape
    if count < 1 or len(start_joints) != n or len(velocity_limits) != n:
        raise ValueError("plan_joints, start_joints and velocity_limits disagree in size")
    grid = [list(map(float, start_joints)), *plan.tolist()]  # joints at u = i / count
    max_steps = [float(v) * period for v in velocity_limits]
    if not all(s > 0 for s in max_steps):
        raise ValueError(f"velocity limits must be > 0, got {velocity_limits!r}")
    # Nominal advance per period in u; a path of zero length (only turning) starts at the goal
    # and is slowed down by the joint limits like any other.
    du_nominal = speed * period / path.length if path.length > 0 else 1.0
    x0, y0 = path.start
    dx, dy = path.goal[0] - x0, path.goal[1] - y0
    use_heading = path.use_heading
    h0, turn = (path.start_heading, path.heading_change) if use_heading else (0.0, 0.0)
    solve = arm.solve
    closest = Branch.CLOSEST
    # Only continuous joints (no limits at all) can come back 2 pi away from the previous one.
    unwrap = (
        arm.unwrap_near
        if any(lo == -math.inf and hi == math.inf for lo, hi in arm.joint_limits)
        else None
    )
    joints_out: list[Sequence[float]] = []
    u = 0.0
    previous: Sequence[float] = grid[0]
    du = du_nominal
    while u < 1.0:
        # Try the nominal advance again after every slow stretch (it may be clear again), but
        # grow from the last accepted advance gradually so a long slow stretch stays cheap.
        du = min(du_nominal, du * 2.0)
        for _ in range(_MAX_SHRINKS):
            u_next = u + du
            if u_next >= 1.0 - _U_EPSILON:
                u_next = 1.0
                x, y, heading = path.at(1.0)  # exactly the goal
            else:
                x, y = x0 + u_next * dx, y0 + u_next * dy
                heading = wrap_angle(h0 + u_next * turn) if use_heading else None
            # Seed: the plan's joints interpolated at u_next (the plan's branch there).
            position = u_next * count
            i = min(int(position), count - 1)
            f = position - i
            seed = [a + f * (b - a) for a, b in zip(grid[i], grid[i + 1], strict=True)]
            result = solve(x, y, heading, closest, seed)
            # Segment `step` runs from plan point step - 1 (the start for 0) to plan point step.
            step = max(0, min(count - 1, math.ceil(position - 1e-9) - 1))
            if not result.ok:
                raise ResampleError(
                    result.status,
                    step,
                    (x, y) if heading is None else (x, y, heading),
                    f"no IK solution on the line before planned point {step}: {result.message}",
                )
            q = result.joints if unwrap is None else unwrap(result.joints, previous)
            # A solution far from the plan's joints here is on another branch: the plan's
            # points are within max_joint_step of each other, so the true path stays close.
            flip = max([abs(a - b) for a, b in zip(q, seed, strict=True)])
            if flip > max_joint_step:
                raise ResampleError(
                    PlanStatus.JOINT_JUMP,
                    step,
                    (x, y) if heading is None else (x, y, heading),
                    f"the IK solution on the line before planned point {step} is "
                    f"{math.degrees(flip):.3g} deg away from the plan (a branch flip)",
                )
            ratio = max(
                [abs(a - b) / limit for a, b, limit in zip(q, previous, max_steps, strict=True)]
            )
            if ratio <= 1.0:
                break
            du = (u_next - u) * _SHRINK / ratio
        else:
            raise ResampleError(
                PlanStatus.JOINT_JUMP,
                step,
                (x, y) if heading is None else (x, y, heading),
                f"the joints cannot follow the line within their velocity limits before "
                f"planned point {step}",
            )
        joints_out.append(q)
        previous = q
        du = u_next - u
        u = u_next
    return Setpoints(joints=np.array(joints_out, dtype=float), period=period, forward=arm.forward)
