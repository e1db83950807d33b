"""Named poses and taught sequences on the trajectory node (docs/sequences.md): the few lines
the node needs.

`TeachInterface` declares the parameters (`settings.py`), serves `named_poses/*` and
`sequences/*` (`services.py`) and the `run_sequence` action (`sequence_action.py`), and runs an
admitted sequence (`runner.py`) on a setpoint stream of its own that shares the node's
settings, joint_states, publisher and start pose. For the node: `named_move` (a MoveArm goal's
`named_pose`, for `goals.validate`) and `run` (an admitted `SequenceMove`, from the node's goal
run once the sequence holds the arm).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import PlanarArm, PlanOptions, SolvePoints, SpatialArm
from arm_kinematics.nodes.teach.gripper_step import GripperSteps
from arm_kinematics.nodes.teach.named import NamedPoses
from arm_kinematics.nodes.teach.runner import SequenceRunner
from arm_kinematics.nodes.teach.sequence import PlannedStep, SequenceMove, resolve_sequence
from arm_kinematics.nodes.teach.sequence_action import SequenceAction
from arm_kinematics.nodes.teach.services import TeachServices
from arm_kinematics.nodes.teach.settings import declare_teach_parameters
from arm_kinematics.nodes.trajectory.goals import Admission, GoalRun, Move, Outcome
from arm_kinematics.nodes.trajectory.poses import ToolPoses
from arm_kinematics.nodes.trajectory.streaming import (
    JointStateMonitor,
    SetpointStream,
    StreamSettings,
)
from arm_kinematics.teach.poses import PoseFile
from arm_kinematics.teach.program import Program
from arm_kinematics.teach.store import SequenceStore

__all__ = ["NodeParts", "SequenceMove", "TeachInterface"]

DRAWN_PER_MOVE = 100
"""The planned path's markers: at most this many tool poses of each move, and its end."""


@dataclass(frozen=True)
class NodeParts:
    """What of the trajectory node a sequence uses: its stream's settings, joint_states,
    setpoint publisher, start pose rule, IK (`solver(run)`), goal run (`outcome_of`), and the
    markers of a plan (`draw(start, tips)`) and of a move that cannot be planned
    (`draw_failed(start, outcome)`)."""

    stream: StreamSettings
    monitor: JointStateMonitor
    publish: Callable[[Sequence[float]], object]
    start_pose: Callable[[tuple[float, ...]], tuple[float, ...]]
    solver: Callable[[GoalRun], SolvePoints]
    outcome_of: Callable[[GoalRun], Outcome]
    draw: Callable[[tuple[float, ...], np.ndarray], None]
    draw_failed: Callable[[tuple[float, ...], Outcome], None]


class TeachInterface:
    """Named poses and sequences on the trajectory node `node`; see the module docstring."""

    def __init__(
        self,
        node: Node,
        config: ArmConfig,
        arm: PlanarArm | SpatialArm,
        poses: ToolPoses,
        admission: Admission,
        parts: NodeParts,
        group: CallbackGroup,
    ) -> None:
        settings = declare_teach_parameters(node, config.robot_name)
        self.named = NamedPoses(config, arm, PoseFile(settings.poses_file))
        store = SequenceStore(settings.sequences_directory)

        def moving() -> str | None:
            active = admission.active
            return None if active is None else active.label

        def resolve(program: Program) -> SequenceMove:
            return resolve_sequence(program, config, self.named, settings)

        TeachServices(
            node, config, self.named, store, parts.monitor, parts.start_pose, moving, resolve, group
        )
        self.action = SequenceAction(
            node, config, poses, self.named, store, settings, admission, parts.outcome_of, group
        )
        stream = SetpointStream(
            parts.stream,
            parts.monitor,
            parts.publish,
            lambda run, done, count, joints, _sent: self.action.feedback(run, done, count, joints),
            poses.words_at,
        )

        def draw(start: tuple[float, ...], planned: list[PlannedStep]) -> None:
            # At most DRAWN_PER_MOVE tool poses a move (and its end): what a line needs, and
            # the forward kinematics of every setpoint would delay the first one.
            tips = []
            for step in planned:
                if step.setpoints is not None:
                    joints = step.setpoints.joints
                    stride = max(1, len(joints) // DRAWN_PER_MOVE)
                    tips += [arm.tool_vector(q) for q in [*joints[::stride], joints[-1]]]
            parts.draw(start, np.array(tips, dtype=float))

        self._runner = SequenceRunner(
            arm,
            config,
            stream,
            parts.solver,
            GripperSteps(node, config, group),
            self.action.step_begins,
            poses.words_at,
            draw,
            parts.draw_failed,
            node.get_logger().info,
        )
        node.get_logger().info(
            f"named poses in {settings.poses_file} (named_poses/save, list, delete; MoveArm's "
            f"named_pose); sequences on '{self.action.name}', saved in "
            f"{settings.sequences_directory} (sequences/save, list, delete); a sequence's "
            f"first move at most {settings.ease_in_speed:g} m/s (LINEAR) or "
            f"{settings.ease_in_joint_fraction:g} of the joint limits (JOINT)"
        )

    def named_move(self, name: str, mode: int, options: PlanOptions) -> Move:
        """The Move of a MoveArm goal's `named_pose` (a Refusal: INVALID_GOAL)."""
        return self.named.move(name, mode, options)

    def run(self, run: GoalRun, sequence: SequenceMove, start: tuple[float, ...]) -> Outcome:
        """Run an admitted sequence that holds the arm, from the joints `start` (rad)."""
        return self._runner.run(run, sequence, start)
