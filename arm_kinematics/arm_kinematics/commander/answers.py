"""What the commander hands back: plain, typed values made from the services' and actions'
messages, with the interfaces' status names (metres, radians, joints by name).

An answer is data, never an exception: a solve that finds no solution is an `IkAnswer` whose
`status` is "TOO_FAR"; a move that cannot be planned is a `MoveResult` whose `status` is
"IK_FAILED". Joints are dicts {name: rad} in the node's order; a pose is a `Pose`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from action_msgs.msg import GoalStatus

from arm_kinematics.nodes.messages import (
    COMPUTE_FK_STATUS_NAMES,
    constant_names,
    position_values,
    quaternion_values,
    solve_ik_status_name,
)
from arm_kinematics.nodes.teach.status import status_name as sequence_status_name
from arm_kinematics.nodes.trajectory.goals import status_name as move_status_name

#: action_msgs GoalStatus value -> name ("SUCCEEDED", "CANCELED", "ABORTED", ...).
GOAL_STATUS_NAMES = {
    value: name.removeprefix("STATUS_")
    for value, name in constant_names(
        GoalStatus,
        (
            "STATUS_UNKNOWN",
            "STATUS_ACCEPTED",
            "STATUS_EXECUTING",
            "STATUS_CANCELING",
            "STATUS_SUCCEEDED",
            "STATUS_CANCELED",
            "STATUS_ABORTED",
        ),
    ).items()
}


def goal_status_name(status: int) -> str:
    """Name of an action goal's final status ("UNKNOWN(42)" for a value action_msgs lacks)."""
    return GOAL_STATUS_NAMES.get(status, f"UNKNOWN({status})")


def joints_of(msg: Any) -> dict[str, float]:
    """{name: rad} of a sensor_msgs/JointState, in its order (empty for an empty message)."""
    return {str(n): float(q) for n, q in zip(msg.name, msg.position, strict=False)}


@dataclass(frozen=True)
class Pose:
    """A pose: `position` (x, y, z) m and `orientation` (x, y, z, w) in `frame_id`."""

    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    frame_id: str = ""

    @classmethod
    def of(cls, stamped: Any) -> Pose:
        """From a geometry_msgs/PoseStamped."""
        pose = stamped.pose
        return cls(
            position_values(pose), quaternion_values(pose.orientation), stamped.header.frame_id
        )


@dataclass(frozen=True)
class IkAnswer:
    """A `solve_ik` answer: the SolveIK status name and value, the joints (None when refused),
    the other elbow branch when it is feasible too (else None), the manipulability (m^2), the
    node's words, and the tool pose of the solution (None when refused)."""

    status: str
    status_code: int
    joints: dict[str, float] | None
    alternative: dict[str, float] | None
    manipulability: float
    message: str
    tool: Pose | None

    @property
    def solved(self) -> bool:
        """True for OK and SINGULAR (solved, near a singularity)."""
        return self.status in ("OK", "SINGULAR")

    @classmethod
    def of(cls, response: Any) -> IkAnswer:
        return cls(
            status=solve_ik_status_name(response.status),
            status_code=response.status,
            joints=joints_of(response.solution) or None,
            alternative=joints_of(response.alternative) or None,
            manipulability=response.manipulability,
            message=response.message,
            tool=Pose.of(response.tool) if response.tool.header.frame_id else None,
        )


@dataclass(frozen=True)
class FkAnswer:
    """A `compute_fk` answer: the ComputeFK status name and value, the tool pose and every
    frame of the URDF by its TF name (empty unless OK), whether the joints are within their
    limits, the manipulability (m^2) and the node's words."""

    status: str
    status_code: int
    tip: Pose | None
    frames: dict[str, Pose]
    within_limits: bool
    manipulability: float
    message: str

    @classmethod
    def of(cls, response: Any) -> FkAnswer:
        ok = response.status == 0
        return cls(
            status=COMPUTE_FK_STATUS_NAMES.get(response.status, f"UNKNOWN({response.status})"),
            status_code=response.status,
            tip=Pose.of(response.tip) if ok else None,
            frames={
                name: Pose.of(frame)
                for name, frame in zip(response.frame_names, response.frames, strict=False)
            },
            within_limits=response.within_limits,
            manipulability=response.manipulability,
            message=response.message,
        )


@dataclass(frozen=True)
class MoveFeedback:
    """MoveArm feedback: setpoint `step` of `total_steps`, the `fraction` done, the commanded
    tool point (m, base frame) and joints (rad)."""

    step: int
    total_steps: int
    fraction: float
    tip: tuple[float, float, float]
    joints: dict[str, float]

    @classmethod
    def of(cls, feedback: Any) -> MoveFeedback:
        tip = feedback.tip
        return cls(
            feedback.step,
            feedback.total_steps,
            feedback.fraction,
            (tip.x, tip.y, tip.z),
            joints_of(feedback.joints),
        )


@dataclass(frozen=True)
class MoveResult:
    """How a MoveArm goal ended: its result `status` name (SUCCEEDED, INVALID_GOAL, IK_FAILED,
    CANCELED, ...; docs/trajectory_node.md) and value, the action's `goal_status` name, the
    node's words, and what it says of the plan and the stream."""

    status: str
    status_code: int
    goal_status: str
    message: str
    ik_status: str
    failed_step: int
    total_steps: int
    sent_setpoints: int
    total_setpoints: int
    feasible_fraction: float
    failed_point: tuple[float, float, float]
    final_joints: dict[str, float]

    @property
    def succeeded(self) -> bool:
        return self.status == "SUCCEEDED"

    @classmethod
    def of(cls, answer: Any) -> MoveResult:
        """From an action's GetResult response (its `status` and `result`)."""
        result = answer.result
        point = result.failed_point
        return cls(
            status=move_status_name(result.status),
            status_code=result.status,
            goal_status=goal_status_name(answer.status),
            message=result.message,
            ik_status=solve_ik_status_name(result.ik_status),
            failed_step=result.failed_step,
            total_steps=result.total_steps,
            sent_setpoints=result.sent_setpoints,
            total_setpoints=result.total_setpoints,
            feasible_fraction=result.feasible_fraction,
            failed_point=(point.x, point.y, point.z),
            final_joints=joints_of(result.final_joints),
        )


@dataclass(frozen=True)
class GripperFeedback:
    """GripperCommand feedback: the position now (the gripper's unit: m or rad), the effort
    (0: hobby servos measure none), stalled, reached."""

    position: float
    effort: float
    stalled: bool
    reached_goal: bool

    @classmethod
    def of(cls, feedback: Any) -> GripperFeedback:
        return cls(feedback.position, feedback.effort, feedback.stalled, feedback.reached_goal)


@dataclass(frozen=True)
class GripperResult:
    """How a GripperCommand goal ended: the goal `status` name (SUCCEEDED when reached,
    ABORTED when stalled, replaced or stopped by a fault, CANCELED), the position (m or rad),
    the effort (0), stalled, reached."""

    status: str
    position: float
    effort: float
    stalled: bool
    reached_goal: bool

    @property
    def succeeded(self) -> bool:
        return self.status == "SUCCEEDED" and self.reached_goal

    @classmethod
    def of(cls, answer: Any) -> GripperResult:
        result = answer.result
        return cls(
            goal_status_name(answer.status),
            result.position,
            result.effort,
            result.stalled,
            result.reached_goal,
        )


@dataclass(frozen=True)
class NamedPose:
    """A named pose of the arm: its joints {name: rad}, the tool's pose they give (base frame),
    when it was saved ('' for the built-in home) and, from `list_poses`, what would refuse a
    move there now ('' when nothing would: docs/sequences.md)."""

    name: str
    joints: dict[str, float]
    tool: Pose | None
    saved_at: str = ""
    problem: str = ""

    @classmethod
    def of(cls, msg: Any, problem: str = "") -> NamedPose:
        tool = Pose.of(msg.tool) if msg.tool.header.frame_id else None
        return cls(msg.name, joints_of(msg.joints), tool, msg.saved_at, problem)


@dataclass(frozen=True)
class SequenceFeedback:
    """RunSequence feedback: the `step` (1-based) of `total_steps`, its name and kind (move,
    gripper, wait), the `repeat` of `total_repeats`, the share done of the step and of the
    whole sequence, the commanded tool point (m, base frame) and joints (rad)."""

    step: int
    total_steps: int
    step_name: str
    step_kind: str
    repeat: int
    total_repeats: int
    step_fraction: float
    fraction: float
    tip: tuple[float, float, float]
    joints: dict[str, float]

    @classmethod
    def of(cls, feedback: Any) -> SequenceFeedback:
        tip = feedback.tip
        return cls(
            feedback.step,
            feedback.total_steps,
            feedback.step_name,
            feedback.step_kind,
            feedback.repeat,
            feedback.total_repeats,
            feedback.step_fraction,
            feedback.fraction,
            (tip.x, tip.y, tip.z),
            joints_of(feedback.joints),
        )


@dataclass(frozen=True)
class SequenceResult:
    """How a sequence ended: RunSequence's `status` name (SUCCEEDED, INVALID_SEQUENCE,
    PLAN_FAILED, STEP_FAILED, CANCELED, PREEMPTED, ...; docs/sequences.md) and value, the
    action's `goal_status`, the node's words; the step it ended in (1-based), its name and
    repeat; MoveArm's status of that step's move and the IK status and point of a move that
    cannot be planned; where the arm is; the seconds spent planning and running."""

    status: str
    status_code: int
    goal_status: str
    message: str
    step: int
    total_steps: int
    step_name: str
    repeat: int
    total_repeats: int
    move_status: str
    ik_status: str
    failed_point: tuple[float, float, float]
    final_joints: dict[str, float]
    final_tip: tuple[float, float, float]
    planning_time: float
    run_time: float

    @property
    def succeeded(self) -> bool:
        return self.status == "SUCCEEDED"

    @classmethod
    def of(cls, answer: Any) -> SequenceResult:
        """From an action's GetResult response (its `status` and `result`)."""
        result = answer.result
        point, tip = result.failed_point, result.final_tip
        return cls(
            status=sequence_status_name(result.status),
            status_code=result.status,
            goal_status=goal_status_name(answer.status),
            message=result.message,
            step=result.step,
            total_steps=result.total_steps,
            step_name=result.step_name,
            repeat=result.repeat,
            total_repeats=result.total_repeats,
            move_status=move_status_name(result.move_status),
            ik_status=solve_ik_status_name(result.ik_status),
            failed_point=(point.x, point.y, point.z),
            final_joints=joints_of(result.final_joints),
            final_tip=(tip.x, tip.y, tip.z),
            planning_time=result.planning_time,
            run_time=result.run_time,
        )
