"""How a check in the nodes says no: it raises a `Refusal`; it never returns "a value or why not".

Every check of a request, a goal or a message (a service request, a MoveArm goal, a clicked
point, a joint trajectory) that refuses it raises a Refusal whose message says what is wrong
and what to send instead. The class names the fault, in the terms of SolveIK's status values
(the interface that tells the faults apart):

- `Refusal`: invalid input (INVALID_INPUT): a NaN, an unknown enum value, counts that do not
  match, a limit exceeded;
- `WrongFrame`, `OffPlane`, `InvalidOrientation`: the stamped-target check (`nodes/targets.py`:
  WRONG_FRAME, OFF_PLANE, INVALID_ORIENTATION);
- `InvalidJoints`: joint names that are not the arm's joints, each once (a joint trajectory's;
  FollowJointTrajectory answers INVALID_JOINTS, SolveIK's terms INVALID_INPUT);
- `messages.JointStateError`: joints by name that cannot be read; its `problem` says which, for
  ComputeFK's own status values.

Each node turns a Refusal into its answer in one place, at its boundary: `ik_node` answers
with the Refusal's `status` (ComputeFK: the status of the joint problem) and one throttled
WARN line; `trajectory_node` ends a goal with INVALID_GOAL, answers a plan request with
INVALID_REQUEST and logs a refused joint trajectory, each with the Refusal's words.

Answers are not refusals: an IK result (`IkResult` with its `IkStatus`, the per-target
statuses of a batch), a plan that fails at a step, or the IK node being unavailable are data
or outcomes, returned as such.
"""

from __future__ import annotations

from typing import ClassVar

from arm_kinematics_interfaces.srv import SolveIK

_IK = SolveIK.Response


# Not "...Error" (N818): a refusal is the answer to a bad request, not a fault of the program.
class Refusal(ValueError):  # noqa: N818
    """A request, goal or message refused by a check: invalid input (SolveIK INVALID_INPUT).

    >>> refusal = Refusal("speed = -1 is negative")
    >>> refusal.status == SolveIK.Response.INVALID_INPUT, str(refusal)
    (True, 'speed = -1 is negative')
    """

    #: The SolveIK status value that names the fault.
    status: ClassVar[int] = _IK.INVALID_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class WrongFrame(Refusal):
    """A target stamped in a frame that is neither the base frame nor the mount's parent."""

    status: ClassVar[int] = _IK.WRONG_FRAME


class OffPlane(Refusal):
    """A planar arm's target further from the arm's plane than the plane tolerance."""

    status: ClassVar[int] = _IK.OFF_PLANE


class InvalidJoints(Refusal):
    """Joint names that are unknown, named twice or (a whole-arm trajectory) missing."""


class InvalidOrientation(Refusal):
    """A FULL_ORIENTATION quaternion that is not of unit length, or no orientation the arm can
    take (for a planar arm: not a rotation about the base's z)."""

    status: ClassVar[int] = _IK.INVALID_ORIENTATION
