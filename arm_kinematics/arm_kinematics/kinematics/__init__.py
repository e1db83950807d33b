"""Kinematics core of the planar arm (numpy only, no ROS import).

Radians, metres, relative joint angles (link i's absolute angle is the sum of joints 1..i).
Modules, each one idea (imports point down this list, never up): `angles` and `types` (units
and result types), `chain` (the arm model: geometry, forward kinematics, Jacobian, limits),
`closed_form` (2R/3R inverse kinematics formulas), `branches` (elbow choice), `explain`
(message texts), `heading_search` (3R without a heading), `arm` (`PlanarArm.solve`: the
checks in their order of precedence), then for planning `line` (a straight tool path),
`ik_answers` (how a planner asks for IK), `joint_path` (setpoints, unwrapping, branch flips),
`options`, `profile`, `stream_limits`, `time_optimal` (the timing's parts), `line_points`,
`path_timing`, `path_setpoints`, `path_plan` (`plan_line`, `plan_polyline`), `joint_plan`,
`joint_trajectory` and `stop` (ARCHITECTURE.md).
"""

from .angles import TAU, wrap_angle
from .planar.arm import HEADING_MATCH_TOLERANCE, PlanarArm
from .planar.chain import LIMIT_TOLERANCE, PlanarChain
from .planning.ik_answers import IkAnswers, SolvePoints, chain_solver
from .planning.joint_path import Setpoints, first_joint_jump, unwrap_path
from .planning.joint_plan import joint_move_duration, joint_setpoints
from .planning.line import LinePath
from .planning.options import MotionLimits, PlanOptions
from .planning.path_plan import (
    PathPlacement,
    PathPlan,
    place_path,
    plan_line,
    plan_placed,
    plan_polyline,
    polyline_paths,
)
from .planning.profile import SpeedProfile
from .planning.stop import Stop, stop_setpoints
from .spatial.arm import SpatialArm
from .spatial.model import SpatialChain, ToolPose, outward_angles, outward_rotation
from .types import BRANCH_NAMES, Branch, IkResult, IkStatus, PlanStatus, branch_of

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
    "MotionLimits",
    "PathPlacement",
    "PathPlan",
    "PlanOptions",
    "PlanStatus",
    "PlanarArm",
    "PlanarChain",
    "Setpoints",
    "SolvePoints",
    "SpatialArm",
    "SpatialChain",
    "SpeedProfile",
    "Stop",
    "ToolPose",
    "branch_of",
    "chain_solver",
    "first_joint_jump",
    "joint_move_duration",
    "joint_setpoints",
    "outward_angles",
    "outward_rotation",
    "place_path",
    "plan_line",
    "plan_placed",
    "plan_polyline",
    "polyline_paths",
    "stop_setpoints",
    "unwrap_path",
    "wrap_angle",
]
