"""What every IK request is answered with, its branch and seed, and its call of the core.

A request's target is checked by `targets.TargetCheck` (the frame, finite numbers, ...; the
same check as the trajectory node's) into a `StampedTarget`; the arm's layout turns that into
the query of the core and calls it. `PlanarLayout` is today's only layout: the plane check and
the heading, then `PlanarArm.solve` / `solve_chain`. A spatial arm (issue 19) gets a layout of
its own with the same methods (its query x, y, z with a pitch and roll or a rotation, its
`solve` / `solve_rotation`), chosen in `layout_for`: nothing else in the IK node changes.

No rclpy node here, message types only. Units: metres, radians.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sensor_msgs.msg import JointState

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Branch, IkResult, PlanarArm
from arm_kinematics.nodes.messages import (
    BRANCH_NAMES,
    JointStateError,
    fill_pose_stamped,
    is_empty,
    joint_positions,
)
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.targets import PlanarPoints, PlanarTarget, StampedTarget, TargetCheck
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch


class PlanarLayout:
    """A planar arm's requests as calls of its core: targets on the arm's plane, with a
    heading (rad about the base's z) or none."""

    def __init__(self, arm: PlanarArm, targets: TargetCheck) -> None:
        self.arm = arm
        self.targets = targets

    def query(self, target: StampedTarget) -> PlanarTarget:
        """The core's arguments for `target`: the plane check (OffPlane) and the heading
        (InvalidOrientation)."""
        return self.targets.planar(target)

    def solve(
        self, query: PlanarTarget, branch: Branch, current: tuple[float, ...] | None
    ) -> IkResult:
        return self.arm.solve(query.x, query.y, query.heading, branch=branch, current=current)

    def batch_query(self, request: SolveIKBatch.Request) -> PlanarPoints:
        """A batch's targets in the base frame (`TargetCheck.planar_points`; `roll` is not
        read: a planar arm has none)."""
        return self.targets.planar_points(
            request.header.frame_id,
            request.x,
            request.y,
            request.z,
            request.orientation_mode,
            request.tool_angle,
        )

    def solve_batch(
        self,
        points: PlanarPoints,
        branch: Branch,
        current: tuple[float, ...] | None,
        stop_on_failure: bool,
    ) -> list[IkResult]:
        return self.arm.solve_chain(
            points.x,
            points.y,
            points.headings,
            branch=branch,
            current=current,
            stop_on_failure=stop_on_failure,
        )

    def fill_tool(self, msg, joints: Sequence[float], frame_id: str, stamp) -> None:
        """Set the PoseStamped `msg` to the tool pose (FK) at `joints` (rad), in `frame_id`
        (the base frame), on the arm's plane."""
        x, y, heading = self.arm.forward(joints)
        fill_pose_stamped(
            msg, x, y, heading, frame_id=frame_id, z=self.targets.plane_z, stamp=stamp
        )


def layout_for(arm: PlanarArm, targets: TargetCheck) -> PlanarLayout:
    """The layout of `arm`: the one place where the arm's kind picks how requests are solved."""
    if isinstance(arm, PlanarArm):
        return PlanarLayout(arm, targets)
    raise TypeError(f"ik_node serves planar arms only, not a {type(arm).__name__}")


@dataclass(frozen=True)
class IkSetup:
    """What every request of one arm is answered with: its core model and layout, its joint
    and frame names (with the frame prefix), the target check, the node's default branch and
    the batch limit (`ik.max_batch_targets`)."""

    config: ArmConfig
    arm: PlanarArm
    layout: PlanarLayout
    targets: TargetCheck
    default_branch: Branch

    @classmethod
    def from_config(cls, config: ArmConfig) -> IkSetup:
        arm = config.make_arm()
        targets = TargetCheck.from_config(config)
        return cls(
            config=config,
            arm=arm,
            layout=layout_for(arm, targets),
            targets=targets,
            default_branch=Branch.from_name(config.default_branch),
        )

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(self.config.joint_names)

    @property
    def base_frame(self) -> str:
        return self.targets.base_frame

    @property
    def tip_frame(self) -> str:
        return self.config.frame(self.config.tip_frame)


def branch_of(value: int, default: Branch) -> Branch:
    """The Branch of a request's BRANCH_* value (a Refusal for an unknown one); 0 (CLOSEST)
    means the node's `default` (its default_branch parameter)."""
    if value not in BRANCH_NAMES:
        choices = ", ".join(f"{v} ({name})" for v, name in BRANCH_NAMES.items())
        raise Refusal(f"unknown branch value {value}; use one of {choices}")
    if value == SolveIK.Request.BRANCH_CLOSEST:
        return default
    return Branch(value)


def current_joints(
    seed: JointState, joint_names: Sequence[str], latest: tuple[float, ...] | None
) -> tuple[float, ...] | None:
    """Joints (rad) BRANCH_CLOSEST stays close to: the request's seed (a Refusal naming the
    joint when it cannot be read), else the `latest` joint_states.

    None before any joint_states arrived: the core then picks the branch farthest from the
    joint limits (MAX_LIMIT_MARGIN), the safest guess when the arm's pose is unknown.
    """
    if is_empty(seed):
        return latest
    try:
        return joint_positions(seed, joint_names)
    except JointStateError as error:
        raise Refusal(f"seed: {error}") from None
