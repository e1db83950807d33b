"""Kinematics core of the arm (numpy only, no ROS import).

Radians, metres, relative joint angles (link i's absolute angle is the sum of joints 1..i).
Modules, each one idea, grouped by idea (ARCHITECTURE.md has the table): `angles`, `types` and
`array_api` (units, result types, formulas on floats or arrays), `planar/` (`chain` the model,
`limits`, `closed_form` the IK formulas, `tool_angles` the 3R heading in closed form,
`branches`, `explain`, `arm` `PlanarArm.solve`, `many` its arrays), `spatial/` (the spatial arm
on the planar core), `planning/` (lines, IK answers, setpoints, the timing's parts: options,
profiles, stream
limits, time-optimal timing, path plans, joint plans and trajectories, stops), `workspace` (the
reachable region) and `envelope/` (the workspace envelope: a table, keep-out boxes, the base
column).
"""

from .angles import TAU, wrap_angle
from .envelope import Envelope, PathViolation, Violation, Violations
from .planar.arm import PlanarArm
from .planar.chain import PlanarChain
from .planar.closed_form import HEADING_MATCH_TOLERANCE
from .planar.limits import LIMIT_TOLERANCE
from .planning.ik_answers import IkAnswers, SolvePoints, chain_solver
from .planning.joint_path import Setpoints, first_joint_jump, unwrap_path
from .planning.joint_plan import joint_move_duration, joint_move_outside, joint_setpoints
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
from .spatial.model import SpatialChain, ToolPose
from .spatial.outward import outward_angles, outward_rotation
from .types import BRANCH_NAMES, Branch, IkArrays, IkResult, IkStatus, PlanStatus, branch_of

__all__ = [
    "BRANCH_NAMES",
    "HEADING_MATCH_TOLERANCE",
    "LIMIT_TOLERANCE",
    "TAU",
    "Branch",
    "Envelope",
    "IkAnswers",
    "IkArrays",
    "IkResult",
    "IkStatus",
    "LinePath",
    "MotionLimits",
    "PathPlacement",
    "PathPlan",
    "PathViolation",
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
    "Violation",
    "Violations",
    "branch_of",
    "chain_solver",
    "first_joint_jump",
    "joint_move_duration",
    "joint_move_outside",
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
