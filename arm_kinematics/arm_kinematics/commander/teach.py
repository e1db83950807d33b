"""The commander's verbs of named poses and taught sequences (docs/sequences.md), a part of
`ArmCommander` (which inherits them): `save_pose`, `list_poses`, `delete_pose` answer at once;
`move_to_named_pose` and `run_sequence` are task verbs like `move_to_pose` (one task at a
time, `wait_for_task`, `cancel_task`, feedback).

What is checked here is only the shape of the arguments (a name is text, one program);
whether a name is valid, a pose may be gone to, or a program is a sequence for this arm is the
trajectory node's to say, in its words.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arm_kinematics.commander.answers import (
    MoveFeedback,
    MoveResult,
    NamedPose,
    SequenceFeedback,
    SequenceResult,
)
from arm_kinematics.commander.errors import InvalidArgumentError
from arm_kinematics.commander.session import TRAJECTORY_NODE, Session
from arm_kinematics.commander.targets import number
from arm_kinematics_interfaces.action import MoveArm, RunSequence
from arm_kinematics_interfaces.srv import DeleteNamedPose, ListNamedPoses, SaveNamedPose

MODES = {"linear": MoveArm.Goal.LINEAR, "joint": MoveArm.Goal.JOINT}


def _name(name: object, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"{what} must be a name (text), not {name!r}")
    return name


class TeachVerbs:
    """Named poses and sequences as verbs (mixed into ArmCommander, whose `_s` is its
    `Session`)."""

    _s: Session

    def save_pose(
        self, name: str, *, overwrite: bool = False, timeout_s: float | None = None
    ) -> NamedPose:
        """Save the arm's pose now (at rest) under `name` (named_poses/save); RequestRefusedError
        with the node's words when it cannot (a bad or taken name, the arm moving). The same
        pose saved again under its name succeeds; `overwrite` replaces another one."""
        request = SaveNamedPose.Request(name=_name(name, "name"), overwrite=bool(overwrite))
        budget = self._s.budget(timeout_s)
        response = self._s.call_checked(self._s.save_pose, request, TRAJECTORY_NODE, budget)
        return NamedPose.of(response.pose)

    def list_poses(self, timeout_s: float | None = None) -> list[NamedPose]:
        """The named poses (named_poses/list): `home`, then the file's, each with `problem`,
        what would refuse a move there ('' for none)."""
        budget = self._s.budget(timeout_s)
        request = ListNamedPoses.Request()
        response = self._s.call_checked(self._s.list_poses, request, TRAJECTORY_NODE, budget)
        return [
            NamedPose.of(pose, problem)
            for pose, problem in zip(response.poses, response.problems, strict=True)
        ]

    def delete_pose(self, name: str, timeout_s: float | None = None) -> str:
        """Delete the named pose `name` (named_poses/delete); the node's words (which say
        when there was none). RequestRefusedError for `home` or a file it cannot write."""
        request = DeleteNamedPose.Request(name=_name(name, "name"))
        budget = self._s.budget(timeout_s)
        response = self._s.call_checked(self._s.delete_pose, request, TRAJECTORY_NODE, budget)
        return response.message

    def move_to_named_pose(
        self,
        name: str,
        *,
        mode: str = "linear",
        speed: float = 0.0,
        on_feedback: Callable[[MoveFeedback], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """Start a MoveArm goal to the named pose `name`: "linear" (the tool in a straight line
        to where the pose's joints put it, arriving at those joints) or "joint" (the joints
        there); `speed` as `move_to_pose`'s. Returns once the goal is accepted; the result is
        a MoveResult (INVALID_GOAL for an unknown pose or one not valid for this arm)."""
        if mode not in MODES:
            raise InvalidArgumentError(f"mode {mode!r} is not one of {', '.join(MODES)}")
        self._s.check_no_task()
        goal = MoveArm.Goal(
            named_pose=_name(name, "name"), mode=MODES[mode], speed=number("speed", speed)
        )
        task = self._s.new_task(
            "move_to_named_pose", self._s.move_arm, MoveFeedback.of, MoveResult.of, on_feedback
        )
        self._s.start(task, goal, "move_arm", TRAJECTORY_NODE, "", self._s.budget(timeout_s))

    def run_sequence(
        self,
        path: str | Path | None = None,
        *,
        program: str | None = None,
        saved: str | None = None,
        on_feedback: Callable[[SequenceFeedback], None] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        """Start a taught sequence (run_sequence): the program in the file `path` (read here),
        the program's text `program`, or the sequence saved under the name `saved`: exactly
        one. Returns once the goal is accepted; the result is a SequenceResult. The trajectory
        node plans it whole from the arm's pose before anything moves."""
        given = [value for value in (path, program, saved) if value is not None]
        if len(given) != 1:
            raise InvalidArgumentError("give one of path, program or saved")
        self._s.check_no_task()
        goal = RunSequence.Goal()
        if path is not None:
            try:
                goal.program = Path(path).expanduser().read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise InvalidArgumentError(f"cannot read the program {path}: {error}") from None
            goal.name = Path(path).stem
        elif program is not None:
            goal.program = _name(program, "program")
        else:
            goal.name = _name(saved, "saved")
        task = self._s.new_task(
            "run_sequence", self._s.run_sequence, SequenceFeedback.of, SequenceResult.of,
            on_feedback,
        )  # fmt: skip
        hint = " (is the trajectory node shutting down?)"
        self._s.start(task, goal, "run_sequence", TRAJECTORY_NODE, hint, self._s.budget(timeout_s))
