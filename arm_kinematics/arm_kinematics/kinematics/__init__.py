"""Kinematics core of the planar arm (numpy only, no ROS import).

Radians, metres, relative joint angles (link i's absolute angle is the sum of joints 1..i).
"""

from .angles import TAU, wrap_angle
from .arm import HEADING_MATCH_TOLERANCE, LIMIT_TOLERANCE, PlanarArm
from .batch import BatchResult, solve_batch
from .joint_plan import joint_move_duration, joint_setpoints
from .planning import LinePlan, line_points, plan_line, step_times
from .streaming import LinePath, ResampleError, Setpoints, first_joint_jump, resample_line
from .types import Branch, IkResult, IkStatus, PlanStatus

__all__ = [
    "HEADING_MATCH_TOLERANCE",
    "LIMIT_TOLERANCE",
    "TAU",
    "BatchResult",
    "Branch",
    "IkResult",
    "IkStatus",
    "LinePath",
    "LinePlan",
    "PlanStatus",
    "PlanarArm",
    "ResampleError",
    "Setpoints",
    "first_joint_jump",
    "joint_move_duration",
    "joint_setpoints",
    "line_points",
    "plan_line",
    "resample_line",
    "solve_batch",
    "step_times",
    "wrap_angle",
]
