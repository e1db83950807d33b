"""Result types of the kinematics core: IK statuses, elbow branches, the IK result of one target
and of many (`IkArrays`)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from functools import partial
from typing import NamedTuple

import numpy as np


class IkStatus(IntEnum):
    """Outcome of one IK solve; the values equal the SolveIK.srv status constants (0..6, 10, 11).

    >>> IkStatus(2).name, IkStatus.SINGULAR <= IkStatus.SINGULAR < IkStatus.TOO_FAR
    ('TOO_FAR', True)
    """

    OK = 0
    SINGULAR = 1  # solved, but near full stretch or full fold: callers should slow down
    TOO_FAR = 2  # beyond the outer edge of the reachable ring
    TOO_CLOSE = 3  # inside the inner hole of the reachable ring
    JOINT_LIMIT = 4  # reachable, but every candidate breaks a joint limit
    ORIENTATION_UNREACHABLE = 5  # position reachable, requested heading not
    INVALID_INPUT = 6  # NaN, infinity, wrong length of `current`, unknown branch, n > 3
    # 7..9 are the IK service's own request checks (WRONG_FRAME, OFF_PLANE, INVALID_ORIENTATION)
    YAW_LIMIT = 10  # spatial arms: the target's direction is outside the yaw joint's range
    OUTSIDE_WORKSPACE = 11  # a part of the arm would leave the workspace envelope


class Branch(IntEnum):
    """Elbow branch rule; the values equal the SolveIK.srv BRANCH_* constants.

    >>> Branch(1), Branch.ELBOW_DOWN.name.lower()
    (<Branch.ELBOW_UP: 1>, 'elbow_down')
    """

    CLOSEST = 0  # least joint motion from `current` (MAX_LIMIT_MARGIN without `current`)
    ELBOW_UP = 1  # joint 2 < 0: elbow on the counter-clockwise side of the base->target line
    ELBOW_DOWN = 2  # joint 2 > 0
    MAX_LIMIT_MARGIN = 3  # the feasible branch farthest from its joint limits

    @classmethod
    def from_name(cls, name: str) -> Branch:
        """Branch from its name, case-insensitive; ValueError naming the choices else.

        >>> Branch.from_name("Elbow_Up")
        <Branch.ELBOW_UP: 1>
        """
        if isinstance(name, str):
            member = cls.__members__.get(name.strip().upper())
            if member is not None:
                return member
        raise ValueError(f"unknown branch {name!r}: expected one of {', '.join(BRANCH_NAMES)}")


def branch_of(value: object) -> Branch | None:
    """The Branch of a valid int value (numpy's too) or a branch name; None when invalid.

    >>> branch_of(2), branch_of("closest"), branch_of(7), branch_of(True)
    (<Branch.ELBOW_DOWN: 2>, <Branch.CLOSEST: 0>, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            return Branch.from_name(value)
        except ValueError:
            return None
    try:
        return Branch(operator.index(value))
    except (TypeError, ValueError):
        return None


BRANCH_NAMES: tuple[str, ...] = tuple(branch.name.lower() for branch in Branch)
"""The branch rules' names in value order, as the `default_branch` parameter and the CLI spell
them: ('closest', 'elbow_up', 'elbow_down', 'max_limit_margin')."""


class PlanStatus(IntEnum):
    """Plan failures that are not an IK status (values do not collide with IkStatus).

    >>> int(PlanStatus.JOINT_JUMP) in set(IkStatus)
    False
    """

    JOINT_JUMP = 100  # a step's joints moved more than max_joint_step: a silent branch flip


class IkResult(NamedTuple):
    """One IK answer (immutable, compared by its fields).

    `joints` (radians, relative joint angles) is set only for OK and SINGULAR. `alternative` is
    the other elbow branch's joints when it is feasible too (within limits, meeting the heading)
    and distinct from `joints`. `manipulability` is sqrt(det(Jp Jp^T)) of the position Jacobian
    at `joints` (m^2), 0.0 without a solution. `message` is the outcome in words, the status
    name first.

    A named tuple rather than a frozen dataclass: building a frozen dataclass costs about
    0.45 us more (its __init__ sets each field through object.__setattr__), more than the
    closed form itself, and the scalar solve's budget is 5x that closed form. Read it by field
    name; it equals only another IkResult with the same fields (not a plain tuple) and has no
    order, as a dataclass would.

    >>> result = IkResult(IkStatus.TOO_FAR, None, "TOO_FAR: beyond reach")
    >>> result.ok, result.alternative, result.manipulability
    (False, None, 0.0)
    >>> result == (IkStatus.TOO_FAR, None, "TOO_FAR: beyond reach", None, 0.0)
    False
    """

    status: IkStatus
    joints: tuple[float, ...] | None
    message: str
    alternative: tuple[float, ...] | None = None
    manipulability: float = 0.0

    @property
    def ok(self) -> bool:
        """True when `joints` holds a solution (OK or SINGULAR).

        >>> IkResult(IkStatus.SINGULAR, (0.0, 0.0), "SINGULAR: at full stretch").ok
        True
        """
        return self.status <= IkStatus.SINGULAR

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IkResult) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def _unordered(self, other: object) -> bool:
        return NotImplemented

    __lt__ = __le__ = __gt__ = __ge__ = _unordered


SOLVED_MAX = IkStatus.SINGULAR
"""The largest status that holds a solution (OK and SINGULAR do), read once: a comparison
with `IkStatus.SINGULAR` looks the member up on its class every time."""


@dataclass(slots=True, eq=False)
class Answer:
    """An `IkResult` before its words: what a solve decided (status, joints, the other elbow,
    the manipulability) and `words`, the function that says it, called only when the message
    is read (`result`). The solves build their answers as these and word only the one they
    return; the array solve's rows in order are never worded.

    A slotted dataclass that nothing changes once made: a named tuple's construction goes
    through a Python-level __new__ and costs about 0.1 us more, a frozen dataclass's more
    still, and the scalar solve builds one answer on every call.

    >>> answer = Answer(IkStatus.TOO_FAR, None, lambda: "TOO_FAR: beyond reach")
    >>> answer.ok, answer.result().message
    (False, 'TOO_FAR: beyond reach')
    """

    status: IkStatus
    joints: tuple[float, ...] | None
    words: Callable[[], str]
    alternative: tuple[float, ...] | None = None
    manipulability: float = 0.0

    @property
    def ok(self) -> bool:
        """True when `joints` holds a solution (OK or SINGULAR)."""
        return self.status <= SOLVED_MAX

    def result(self) -> IkResult:
        """The `IkResult`, its message made now."""
        return IkResult(
            self.status, self.joints, self.words(), self.alternative, self.manipulability
        )


def refusal(status: IkStatus, words: Callable[..., str], *values: object) -> Answer:
    """The `Answer` that says no with `status`, its message `words(*values)` when read.

    >>> refusal(IkStatus.TOO_FAR, "TOO_FAR: {} m".format, 3.0).result().message
    'TOO_FAR: 3.0 m'
    """
    return Answer(status, None, partial(words, *values))


def invalid_input(reason: str) -> IkResult:
    """The INVALID_INPUT answer to a request the solver cannot take, `reason` in words.

    >>> invalid_input("target x and y must be numbers (m)").message
    'INVALID_INPUT: target x and y must be numbers (m)'
    """
    return IkResult(IkStatus.INVALID_INPUT, None, "INVALID_INPUT: " + reason)


def invalid_answer(reason: str) -> Answer:
    """`invalid_input` as an `Answer`.

    >>> invalid_answer("heading must be a finite number (rad)").result().status.name
    'INVALID_INPUT'
    """
    return refusal(IkStatus.INVALID_INPUT, "INVALID_INPUT: {}".format, reason)


@dataclass(frozen=True, eq=False)
class IkArrays:
    """The IK answers to N targets at once (`solve_many`), as arrays.

    `status` (N,) IkStatus values (uint8); `joints` (N, n) radians in joint order, defined on
    every row: a refused target's row holds the joints it was seeded with (its seed, or the
    previous solution in a chain), zeros without one; `ok` says which rows are solutions (OK
    or SINGULAR). `alternative` (N, n) the other elbow branch where `has_alternative` says
    there is one (as `IkResult.alternative`; the row's `joints` elsewhere).
    `manipulability` (N,) as `IkResult.manipulability` (0 where refused). The words of row i
    are made only when asked for (`message(i)`, `result(i)`): the scalar solve of that target
    with that row's seed, which gives the same answer.

    >>> from arm_kinematics.kinematics import PlanarArm
    >>> answers = PlanarArm((1.0, 0.8)).solve_many([[1.0731, 1.2727], [3.0, 0.0]])
    >>> answers.status.tolist(), answers.ok.tolist(), answers.message(1).split(":")[0]
    ([0, 2], [True, False], 'TOO_FAR')
    """

    status: np.ndarray
    joints: np.ndarray
    alternative: np.ndarray
    has_alternative: np.ndarray
    manipulability: np.ndarray
    solve_row: Callable[[int], IkResult]
    """The scalar solve of row i's target with row i's seed (for its words)."""

    def __len__(self) -> int:
        return len(self.status)

    @property
    def ok(self) -> np.ndarray:
        """(N,) True where the row holds a solution (OK or SINGULAR)."""
        return self.status <= IkStatus.SINGULAR

    def message(self, index: int) -> str:
        """Row `index`'s outcome in words, the status name first (as `IkResult.message`)."""
        return self.solve_row(index).message

    def result(self, index: int) -> IkResult:
        """Row `index` as the scalar solve answers it (an `IkResult`, with its words)."""
        return self.solve_row(index)
