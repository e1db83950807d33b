"""Kinematics core of the planar arm (numpy only, no ROS import).

Radians, metres, relative joint angles (link i's absolute angle is the sum of joints 1..i).
Modules, each one idea (imports point down this list, never up): `angles` and `types` (units
and result types), `chain` (the arm model: geometry, forward kinematics, Jacobian, limits),
`closed_form` (2R/3R inverse kinematics formulas), `branches` (elbow choice), `explain`
(message texts), `heading_search` (3R without a heading), `arm` (`PlanarArm.solve`: the
checks in their order of precedence), then the planners `planning` and `joint_plan`.
"""

from .angles import TAU, wrap_angle
from .arm import HEADING_MATCH_TOLERANCE, PlanarArm
from .chain import LIMIT_TOLERANCE, PlanarChain
from .joint_plan import joint_move_duration, joint_setpoints
from .planning import (
    IkAnswers,
    LinePath,
    LinePlan,
    PolylinePlan,
    Setpoints,
    SolvePoints,
    chain_solver,
    first_joint_jump,
    plan_line,
    plan_polyline,
    polyline_step_counts,
)
from .types import BRANCH_NAMES, Branch, IkResult, IkStatus, PlanStatus

__all__ = [
    "BRANCH_NAMES",
    "HEADING_MATCH_TOLERANCE",
    "LIMIT_TOLERANCE",
    "TAU",
    "Branch",
    "IkAnswers",
    "IkResult",
    "IkStatus",
    "LinePath",
    "LinePlan",
    "PlanStatus",
    "PlanarArm",
    "PlanarChain",
    "PolylinePlan",
    "Setpoints",
    "SolvePoints",
    "chain_solver",
    "first_joint_jump",
    "joint_move_duration",
    "joint_setpoints",
    "plan_line",
    "plan_polyline",
    "polyline_step_counts",
    "wrap_angle",
]
