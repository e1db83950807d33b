"""RunSequence's result statuses by name, and how a move's end (MoveArm's status) ends a
sequence. Message types only, so that clients (the commander) may import it."""

from __future__ import annotations

from arm_kinematics.nodes.messages import constant_names
from arm_kinematics_interfaces.action import MoveArm, RunSequence

SequenceResult = RunSequence.Result
#: RunSequence result status value -> name.
STATUS_NAMES = constant_names(
    SequenceResult,
    (
        "SUCCEEDED",
        "INVALID_SEQUENCE",
        "PLAN_FAILED",
        "STEP_FAILED",
        "CANCELED",
        "PREEMPTED",
        "SHUTDOWN",
        "CALIBRATING",
    ),
)
#: A move stopped (MoveArm's status) stops its sequence with this status; any other end of a
#: move but SUCCEEDED is STEP_FAILED.
STOPS = {
    MoveArm.Result.CANCELED: SequenceResult.CANCELED,
    MoveArm.Result.PREEMPTED: SequenceResult.PREEMPTED,
    MoveArm.Result.SHUTDOWN: SequenceResult.SHUTDOWN,
    MoveArm.Result.CALIBRATING: SequenceResult.CALIBRATING,
}


def status_name(status: int) -> str:
    """Name of a RunSequence result status ("UNKNOWN(42)" for a value it does not define).

    >>> status_name(SequenceResult.PLAN_FAILED), status_name(42)
    ('PLAN_FAILED', 'UNKNOWN(42)')
    """
    return STATUS_NAMES.get(status, f"UNKNOWN({status})")
