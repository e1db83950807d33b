"""`Jogger`: a jog one command period at a time, from a twist or joint velocities to the next
joints, within every limit, with what held it back.

Each `step`:

1. the command becomes a goal velocity: a twist the rates of the coordinates the arm drives
   (`axes.py`, what it cannot make dropped and named), joint velocities capped at their
   limits; no command (or a zero one) is a goal of rest;
2. the velocity moves toward the goal by one period of the tool's acceleration (joint
   velocities: of each joint's): the candidate;
3. the candidate is tried (`trials.py`: the closed-form solve of the next tool pose seeded by
   the current joints, the joints' velocity and acceleration limits, no jump, the SINGULAR
   band no nearer, and a stop after it that keeps the same rules and the envelope). If it
   fails, the step is the fastest that passes between it and one period of braking (a
   bisection of the segment between the two): the arm slows down before a limit and stops at
   it, and moves on as soon as the command leads away;
4. if even braking fails (it follows the stop the step before checked, so only rounding can
   make it fail), the joints brake in joint space within their acceleration limits (and never
   past a joint limit).

A command of the other kind (a twist while joints jog, or the reverse) first brings the arm to
rest. The state is the commanded joints and their velocities; the tool pose is their forward
kinematics at every step, so nothing drifts. Metres, radians, seconds, the base frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ..angles import wrap_angle
from ..envelope import Envelope
from ..planar.arm import PlanarArm
from ..spatial.arm import SpatialArm
from .axes import JogAxes
from .commands import JogCommand, JointJogCommand, TwistCommand
from .limits import JogLimits, braked, stop_time, toward, weighted_norm
from .singularity import singular_ratio
from .status import HALTING, Bound, JogCode, Limit, limit_words, status_code
from .trials import Here, Trial, joint_trial, task_trial

BISECTIONS = 4
"""Halvings of the segment between the current velocity and braking: the speed kept is within
1/16 of one period's braking of the fastest that passes (each trial that passes checks the
envelope along its stop, the dearest part of a step)."""
HALVINGS = 20
"""How often the candidate's change is halved before the current velocity is kept, when a
joint's velocity or acceleration held it back (2^-20 of one period's change: a jog leaving a
singularity from rest starts that slowly). A place ahead (a limit, the envelope) is not
halved toward: the current velocity is kept, and the next periods brake if they must."""
RATE_BOUNDS = frozenset((Bound.VELOCITY, Bound.ACCELERATION))
HALT_FRACTION = 0.01
"""A held-back step slower than this fraction of the commanded speed has halted."""
SAME_DIRECTION = 0.99
"""The cosine between two commands (about 8 degrees) within which a halted jog stays halted:
pushing on toward the limit that stopped it does not creep closer, a step at a time."""


class Halt(NamedTuple):
    """Where a jog halted: the goal velocity that pushed it there and the limit it met."""

    goal: np.ndarray
    limit: Limit


class JogStep(NamedTuple):
    """One period of a jog: the joints to command (rad) and their velocities (rad/s), what held
    it back (None: nothing), whether it has halted there (at rest, the command still asking
    for motion), whether it climbs out of the SINGULAR band, and what of the command was
    dropped (words; empty: nothing)."""

    joints: tuple[float, ...]
    velocities: tuple[float, ...]
    limit: Limit | None = None
    halted: bool = False
    leaving_singularity: bool = False
    dropped: tuple[str, ...] = ()

    @property
    def moving(self) -> bool:
        """Some joint moves (the arm is not at rest after this step)."""
        return any(self.velocities)

    @property
    def code(self) -> JogCode:
        """The status code (moveit_msgs/ServoStatus's value)."""
        return status_code(self.limit, self.halted, self.leaving_singularity)

    @property
    def words(self) -> str:
        """What held the step back, in words ("" when nothing did, or only a ramp)."""
        return "" if self.limit is None else limit_words(self.limit, self.halted)


class Jogger:
    """A jog of `arm` from `joints` (rad, at rest), within `limits` and `envelope`.

    The reference planar arm (links 1.0 and 0.8 m) jogged along +y at 0.1 m/s with the tool
    accelerating at up to 1 m/s^2: after 0.1 s (5 periods of 20 ms) it moves at the commanded
    speed; 15 periods take it 26 mm along the line x = 1.0 m.

    >>> import math
    >>> arm = PlanarArm((1.0, 0.8))
    >>> limits = JogLimits(0.02, (2.0, 2.0), (20.0, 20.0), tool_acceleration=1.0)
    >>> jogger = Jogger(arm, limits, (0.0, math.pi / 2))
    >>> up = TwistCommand((0.0, 0.1, 0.0), (0.0, 0.0, 0.0))
    >>> steps = [jogger.step(up) for _ in range(15)]
    >>> [round(v, 6) for v in arm.forward(steps[-1].joints)[:2]]
    [1.0, 0.826]
    >>> jogger.speed
    0.1
    """

    def __init__(
        self,
        arm: PlanarArm | SpatialArm,
        limits: JogLimits,
        joints: Sequence[float],
        envelope: Envelope | None = None,
    ) -> None:
        if len(limits.joint_velocities) != arm.n_joints:
            raise ValueError(f"limits of {len(limits.joint_velocities)} joints: {arm.n_joints}")
        # The jog checks the envelope itself, along each step and the stop after it, and a pose
        # already inside it may move to where no part is deeper: its solves are the bare
        # model's (an arm carrying an envelope would refuse every pose near one).
        self.arm = arm = arm.bare
        self.limits = limits
        self.envelope = envelope
        self.axes = JogAxes.of(arm)
        self._joints = np.array(arm.checked_joints(joints), dtype=float)
        self._velocities = np.zeros(arm.n_joints)
        self._rates = np.zeros(len(self.axes.controlled))  # of the twist that moves the arm
        self._twisting = False  # the arm moves by a twist (else by joint velocities, or rests)
        self._leaving = False  # the last step climbed out of the SINGULAR band
        self._halt: Halt | None = None  # at rest against a limit, and which goal pushed it
        tool = arm.tool_vector(tuple(self._joints.tolist()))
        self._ratio = singular_ratio(arm, self._joints, tool[:2])
        violation = None if envelope is None else envelope.check(tuple(self._joints.tolist()))
        self._depth = 0.0 if violation is None else violation.depth

    @property
    def joints(self) -> tuple[float, ...]:
        """The commanded joints (rad)."""
        return tuple(self._joints.tolist())

    @property
    def moving(self) -> bool:
        return bool(self._velocities.any())

    @property
    def speed(self) -> float:
        """The tool's speed of the last step (m/s, turns weighted as `JogAxes.weights`), 0.0
        when the arm rests or jogs its joints."""
        if not self._twisting:
            return 0.0
        return round(weighted_norm(self._rates, self.axes.weights), 12)

    def step(self, command: JogCommand | None) -> JogStep:
        """The next period's joints for `command` (None: come to rest)."""
        if command is not None and command.is_zero:
            command = None
        if self.moving and command is not None:
            switching = isinstance(command, TwistCommand) != self._twisting
            if switching:
                command = None  # to rest first, then the other kind
        if isinstance(command, JointJogCommand) or (command is None and not self._twisting):
            return self._joint_step(command)
        return self._twist_step(command)

    # --- the two kinds ----------------------------------------------------------------------

    def _twist_step(self, command: TwistCommand | None) -> JogStep:
        limits, axes = self.limits, self.axes
        pose, rotation = axes.tool(self.arm, self._joints)
        rates = self._rates if self._twisting else np.zeros_like(self._rates)
        speed = weighted_norm(rates, axes.weights)
        time_to_stop = stop_time(
            speed, limits.tool_acceleration, self._velocities, limits.joint_accelerations
        )
        brake = braked(rates, limits.period, time_to_stop)
        goal, dropped, goal_speed = None, (), 0.0
        if command is not None:
            goal, dropped = axes.rates(pose, rotation, command)
            goal_speed = weighted_norm(goal, axes.weights)
        held = self._still_halted(goal, axes.weights)
        candidate = brake
        if goal is not None and held is None:
            candidate = toward(rates, goal, axes.weights, limits.tool_acceleration * limits.period)
        here = self._here()
        best, limit = _search(lambda r: task_trial(here, pose, r), rates, candidate, brake)
        limit = held or limit
        if best is None:
            self._brake_joints()
            self._rates = _rates_between(axes, pose, axes.tool(self.arm, self._joints)[0], limits)
            self._twisting = True
        else:
            self._accept(best)
            self._rates = best.rates
            self._twisting = bool(best.rates.any())
        speed = weighted_norm(self._rates, axes.weights)
        halted = held is not None or _halted(limit, speed, goal_speed)
        self._remember_halt(goal, limit, halted)
        return self._result(limit, halted, dropped)

    def _joint_step(self, command: JointJogCommand | None) -> JogStep:
        limits = self.limits
        velocities = self._velocities
        accelerations = np.array(limits.joint_accelerations)
        time_to_stop = stop_time(0.0, float("inf"), velocities, accelerations)
        brake = braked(velocities, limits.period, time_to_stop)
        candidate, goal = brake, None
        if command is not None:
            goal = np.array(command.capped(limits.joint_velocities).velocities)
        held = self._still_halted(goal, np.ones(len(velocities)))
        if goal is not None and held is None:
            most = accelerations * limits.period
            candidate = velocities + np.clip(goal - velocities, -most, most)
        here = self._here()
        best, limit = _search(lambda r: joint_trial(here, r), velocities, candidate, brake)
        limit = held or limit
        if best is None:
            self._brake_joints()
        else:
            self._accept(best)
        self._twisting = False
        halted = held is not None
        if goal is not None and not halted:
            jogged = goal != 0.0
            fraction = np.abs(self._velocities[jogged]) / np.abs(goal[jogged])
            halted = _halted(limit, float(fraction.max(initial=0.0)), 1.0)
        self._remember_halt(goal, limit, halted)
        return self._result(limit, halted, ())

    # --- the state ----------------------------------------------------------------------------

    def _here(self) -> Here:
        return Here(
            self.arm,
            self.axes,
            self.limits,
            self.envelope,
            self._joints,
            self._velocities,
            self._ratio,
            self._depth,
        )

    def _accept(self, trial: Trial) -> None:
        assert trial.joints is not None
        assert trial.velocities is not None
        assert trial.ratio is not None
        self._leaving = self._ratio.ratio < 1.0 and trial.ratio.ratio > self._ratio.ratio
        self._joints, self._velocities = trial.joints, trial.velocities
        self._ratio, self._depth = trial.ratio, min(self._depth, trial.depth)

    def _still_halted(self, goal: np.ndarray | None, weights) -> Limit | None:
        """The limit the arm halted against when `goal` pushes on the way it halted it: the
        step then only brakes (to rest, where it stays)."""
        halt = self._halt
        if halt is None or goal is None or len(goal) != len(halt.goal):
            return None
        size = weighted_norm(goal, weights) * weighted_norm(halt.goal, weights)
        weighted = np.asarray(weights)
        cosine = float((goal * weighted) @ (halt.goal * weighted)) / size if size else 0.0
        return halt.limit if cosine >= SAME_DIRECTION else None

    def _remember_halt(self, goal: np.ndarray | None, limit: Limit | None, halted: bool) -> None:
        self._halt = Halt(goal, limit) if halted and goal is not None and limit else None

    def _brake_joints(self) -> None:
        """The last resort: every joint slowed in proportion within its acceleration limit,
        in joint space, never past a joint limit (that joint then stops at it)."""
        limits = self.limits
        accelerations = np.array(limits.joint_accelerations)
        time_to_stop = stop_time(0.0, float("inf"), self._velocities, accelerations)
        velocities = braked(self._velocities, limits.period, time_to_stop)
        lows, highs = np.array(self.arm.joint_limits).T
        joints = np.clip(self._joints + velocities * limits.period, lows, highs)
        self._velocities = (joints - self._joints) / limits.period
        self._joints = joints
        tool = self.arm.tool_vector(tuple(joints.tolist()))
        self._leaving = False
        self._ratio = singular_ratio(self.arm, joints, tool[:2])

    def _result(self, limit: Limit | None, halted: bool, dropped: tuple[str, ...]) -> JogStep:
        leaving = self._leaving and self.moving
        return JogStep(
            self.joints, tuple(self._velocities.tolist()), limit, halted, leaving, dropped
        )


def _search(
    trial: Callable[[np.ndarray], Trial],
    current: np.ndarray,
    candidate: np.ndarray,
    brake: np.ndarray,
) -> tuple[Trial | None, Limit | None]:
    """The step to take, and what held the candidate back (None when it passed; a limit that
    is only a ramp, ACCELERATION, is no reason to say). Tried in turn: the `candidate`; else,
    if the `current` velocity passes, the candidate's change halved until it passes when only
    a joint's rate held it back (near a singularity the joints allow only a small change: a
    jog leaves it slowly, never not at all), else the current velocity; else the fastest that
    passes between it and one period of braking (`brake`, a bisection); None when braking
    fails too."""
    first = trial(candidate)
    if first.ok:
        return first, None
    limit = first.limit
    rates_only = limit is not None and limit.bound in RATE_BOUNDS
    if limit is not None and limit.bound is Bound.ACCELERATION:
        limit = None
    kept = trial(current)
    if kept.ok:
        change = candidate - current
        for halving in range(1, HALVINGS + 1 if rates_only else 1):
            tried = trial(current + change / 2.0**halving)
            if tried.ok:
                return tried, limit
        return kept, limit
    best = trial(brake)
    if not best.ok:
        return None, limit
    low, high = 0.0, 1.0  # the fraction of the way toward braking: high passes, low fails
    for _ in range(BISECTIONS):
        middle = 0.5 * (low + high)
        tried = trial(current + middle * (brake - current))
        if tried.ok:
            high, best = middle, tried
        else:
            low = middle
    return best, limit


def _halted(limit: Limit | None, speed: float, goal_speed: float) -> bool:
    """A step held back by `limit` has halted when it is slower than HALT_FRACTION of the
    commanded speed (any unit, both alike)."""
    if limit is None or limit.bound not in HALTING:
        return False
    return goal_speed > 0.0 and speed < HALT_FRACTION * goal_speed


def _rates_between(
    axes: JogAxes, before: np.ndarray, after: np.ndarray, limits: JogLimits
) -> np.ndarray:
    """The controlled coordinates' rates of a step from tool pose `before` to `after`."""
    index = list(axes.controlled)
    change = after[index] - before[index]
    mask = axes.angle_mask
    change[mask] = [wrap_angle(a) for a in change[mask]]
    return change / limits.period
