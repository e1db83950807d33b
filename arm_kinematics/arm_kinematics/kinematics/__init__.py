"""Kinematics core of the planar arm (numpy only, no ROS import).

Radians, metres, relative joint angles (link i's absolute angle is the sum of joints 1..i).
Modules, each one idea (imports point down this list, never up): `angles` and `types` (units
and result types), `chain` (the arm model: geometry, forward kinematics, Jacobian, limits),
`closed_form` (2R/3R inverse kinematics formulas), `branches` (elbow choice), `explain`
(message texts), `heading_search` (3R without a heading), `arm` (`PlanarArm.solve`: the
checks in their order of precedence), then the planners `planning`, `streaming` and
`joint_plan`.
"""

from .angles import TAU, wrap_angle
from .arm import HEADING_MATCH_TOLERANCE, PlanarArm
from .chain import LIMIT_TOLERANCE, PlanarChain
from .joint_plan import joint_move_duration, joint_setpoints
from .planning import LinePlan, line_points, plan_line, step_times
from .streaming import LinePath, ResampleError, Setpoints, first_joint_jump, resample_line
from .types import BRANCH_NAMES, Branch, IkResult, IkStatus, PlanStatus

__all__ = [
    "BRANCH_NAMES",
    "HEADING_MATCH_TOLERANCE",
    "LIMIT_TOLERANCE",
    "TAU",
    "Branch",
    "IkResult",
    "IkStatus",
    "LinePath",
    "LinePlan",
    "PlanStatus",
    "PlanarArm",
    "PlanarChain",
    "ResampleError",
    "Setpoints",
    "first_joint_jump",
    "joint_move_duration",
    "joint_setpoints",
    "line_points",
    "plan_line",
    "resample_line",
    "step_times",
    "wrap_angle",
]
