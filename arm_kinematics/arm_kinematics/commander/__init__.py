"""A Python API with task verbs for the arm: `ArmCommander` (docs/python_api.md).

The client layer, beside the command-line clients (which are written on it): it imports the
kinematics core, `config`, `names`, `rclpy_compat` and the message helpers, never a node class.

    from arm_kinematics.commander import ArmCommander

    with ArmCommander(namespace="") as arm:
        arm.wait_until_ready(timeout_s=30)
        arm.move_to_pose(0.15, 0.05, 0.10, pitch=-0.5)
        print(arm.wait_for_task().status)

Modules: `commander` (the verbs), `teach` (the verbs of named poses and sequences),
`session` (the node's clients, bounded waits, the task), `tasks` (one action goal from sending
to its result), `connection` (the node on its own executor thread), `targets` (arguments ->
request fields), `gripper` (the gripper's unit and range), `answers` (the typed answers and
results), `errors`.
"""

from arm_kinematics.commander.answers import (
    FkAnswer,
    GripperFeedback,
    GripperResult,
    IkAnswer,
    MoveFeedback,
    MoveResult,
    NamedPose,
    Pose,
    SequenceFeedback,
    SequenceResult,
)
from arm_kinematics.commander.commander import ArmCommander
from arm_kinematics.commander.errors import (
    CommanderError,
    InvalidArgumentError,
    NoGripperError,
    RequestRefusedError,
    ServerUnavailableError,
    TaskRefusedError,
    TaskRunningError,
    TaskTimeoutError,
)
from arm_kinematics.commander.gripper import GripperUnit

__all__ = [
    "ArmCommander",
    "CommanderError",
    "FkAnswer",
    "GripperFeedback",
    "GripperResult",
    "GripperUnit",
    "IkAnswer",
    "InvalidArgumentError",
    "MoveFeedback",
    "MoveResult",
    "NamedPose",
    "NoGripperError",
    "Pose",
    "RequestRefusedError",
    "SequenceFeedback",
    "SequenceResult",
    "ServerUnavailableError",
    "TaskRefusedError",
    "TaskRunningError",
    "TaskTimeoutError",
]
