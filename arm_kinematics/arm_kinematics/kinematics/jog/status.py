"""What holds a jog back, and the status a person reads: MoveIt Servo's codes, our words.

`JogCode` has the values of moveit_msgs/ServoStatus (MoveIt Servo's StatusCode): a client of
MoveIt Servo reads the same numbers here. `Limit` is what held one step back (its `Bound` and
words naming the joint, the constraint or the singularity); `status_code` turns it into the
code, e.g. a WORKSPACE limit is DECELERATE_FOR_COLLISION while the tool still moves toward it
and HALT_FOR_COLLISION once it has stopped there. Words never hold a number that changes from
one step to the next, so that a status said once stays the same while nothing changes.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import NamedTuple


class JogCode(IntEnum):
    """The status codes of moveit_msgs/ServoStatus, with their values.

    >>> JogCode(5).name
    'HALT_FOR_COLLISION'
    """

    INVALID = -1
    NO_WARNING = 0
    DECELERATE_FOR_APPROACHING_SINGULARITY = 1
    HALT_FOR_SINGULARITY = 2
    DECELERATE_FOR_LEAVING_SINGULARITY = 3
    DECELERATE_FOR_COLLISION = 4
    HALT_FOR_COLLISION = 5
    JOINT_BOUND = 6


class Bound(Enum):
    """What held a step back."""

    SINGULARITY = "singularity"  # the SINGULAR band ahead (full stretch or fold, the yaw axis)
    JOINT_LIMIT = "joint limit"  # a joint's (or a linkage's) limit ahead, the yaw's, the roll's
    JUMP = "jump"  # going on needs a joint to jump: a branch flip
    REACH = "reach"  # the solver has no pose ahead for another reason
    WORKSPACE = "workspace"  # the table, a keep-out box or the base column ahead
    VELOCITY = "velocity"  # a joint at its velocity limit: the tool slower than commanded
    ACCELERATION = "acceleration"  # a joint at its acceleration limit: a ramp, no warning


class Limit(NamedTuple):
    """What held a step back, and its words (a joint, a constraint and the part of the arm, a
    singularity: never a number that changes as the arm moves)."""

    bound: Bound
    words: str


_HALTS = {
    Bound.SINGULARITY: JogCode.HALT_FOR_SINGULARITY,
    Bound.REACH: JogCode.HALT_FOR_SINGULARITY,
    Bound.WORKSPACE: JogCode.HALT_FOR_COLLISION,
    Bound.JOINT_LIMIT: JogCode.JOINT_BOUND,
    Bound.JUMP: JogCode.JOINT_BOUND,
}
_SLOWS = {
    Bound.SINGULARITY: JogCode.DECELERATE_FOR_APPROACHING_SINGULARITY,
    Bound.REACH: JogCode.DECELERATE_FOR_APPROACHING_SINGULARITY,
    Bound.WORKSPACE: JogCode.DECELERATE_FOR_COLLISION,
    Bound.JOINT_LIMIT: JogCode.JOINT_BOUND,
    Bound.JUMP: JogCode.JOINT_BOUND,
}


HALTING = frozenset(_HALTS)
"""The bounds a jog halts at (a place the arm cannot pass), unlike a velocity limit."""


def status_code(limit: Limit | None, halted: bool, leaving_singularity: bool = False) -> JogCode:
    """The code of a step held back by `limit` (None: by nothing), `halted` when the arm has
    stopped while the command still asks for motion; `leaving_singularity` when it moves out of
    the SINGULAR band.

    >>> status_code(Limit(Bound.WORKSPACE, "the table"), halted=False).name
    'DECELERATE_FOR_COLLISION'
    >>> status_code(Limit(Bound.WORKSPACE, "the table"), halted=True).name
    'HALT_FOR_COLLISION'
    >>> status_code(None, halted=False, leaving_singularity=True).name
    'DECELERATE_FOR_LEAVING_SINGULARITY'
    """
    if limit is not None and limit.bound in _HALTS:
        return (_HALTS if halted else _SLOWS)[limit.bound]
    if leaving_singularity:
        return JogCode.DECELERATE_FOR_LEAVING_SINGULARITY
    return JogCode.NO_WARNING


def limit_words(limit: Limit, halted: bool) -> str:
    """The words of a step held back by `limit`.

    >>> limit_words(Limit(Bound.JOINT_LIMIT, "wrist_roll at its limit"), halted=True)
    'stopped: wrist_roll at its limit'
    """
    if limit.bound is Bound.VELOCITY:
        return f"slower than commanded: {limit.words}"
    if limit.bound is Bound.ACCELERATION:
        return f"accelerating: {limit.words}"
    return ("stopped: " if halted else "slowing down: ") + limit.words
