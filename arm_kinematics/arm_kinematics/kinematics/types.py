"""Result types of the kinematics core: IK statuses, elbow branches and the IK result."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class IkStatus(IntEnum):
    """Outcome of one IK solve; the values equal the SolveIK.srv status constants 0..6."""

    OK = 0
    SINGULAR = 1  # solved, but near full stretch or full fold: callers should slow down
    TOO_FAR = 2  # beyond the outer edge of the reachable ring
    TOO_CLOSE = 3  # inside the inner hole of the reachable ring
    JOINT_LIMIT = 4  # reachable, but every candidate breaks a joint limit
    ORIENTATION_UNREACHABLE = 5  # position reachable, requested heading not
    INVALID_INPUT = 6  # NaN, infinity, wrong length of `current`, unknown branch, n > 3


class Branch(IntEnum):
    """Elbow branch rule; the values equal the SolveIK.srv BRANCH_* constants."""

    CLOSEST = 0  # least joint motion from `current` (MAX_LIMIT_MARGIN without `current`)
    ELBOW_UP = 1  # joint 2 < 0: elbow on the counter-clockwise side of the base->target line
    ELBOW_DOWN = 2  # joint 2 > 0
    MAX_LIMIT_MARGIN = 3  # the feasible branch farthest from its joint limits

    @classmethod
    def from_name(cls, name: str) -> Branch:
        """Branch from its name, case-insensitive ("closest", "elbow_up", ...); ValueError else."""
        if isinstance(name, str):
            member = cls.__members__.get(name.strip().upper())
            if member is not None:
                return member
        names = ", ".join(m.name.lower() for m in cls)
        raise ValueError(f"unknown branch {name!r}: expected one of {names}")


class PlanStatus(IntEnum):
    """Plan failures that are not an IK status (values do not collide with IkStatus)."""

    JOINT_JUMP = 100  # a step's joints moved more than max_joint_step: a silent branch flip


@dataclass(frozen=True)
class IkResult:
    """One IK answer.

    `joints` (radians, relative joint angles) is set only for OK and SINGULAR. `alternative` is
    the other elbow branch's joints when it is feasible too (within limits, meeting the heading)
    and distinct from `joints`. `manipulability` is sqrt(det(Jp Jp^T)) of the position Jacobian
    at `joints` (m^2), 0.0 without a solution.
    """

    status: IkStatus
    joints: tuple[float, ...] | None
    message: str
    alternative: tuple[float, ...] | None = None
    manipulability: float = 0.0

    @property
    def ok(self) -> bool:
        """True when `joints` holds a solution (OK or SINGULAR)."""
        return self.status <= 1


_new_object = object.__new__


def make_result(
    status: IkStatus,
    joints: tuple[float, ...] | None,
    message: str,
    alternative: tuple[float, ...] | None = None,
    manipulability: float = 0.0,
) -> IkResult:
    """Build an IkResult without the frozen dataclass __init__ (3x faster; same object)."""
    result = _new_object(IkResult)
    fields = result.__dict__
    fields["status"] = status
    fields["joints"] = joints
    fields["message"] = message
    fields["alternative"] = alternative
    fields["manipulability"] = manipulability
    return result
