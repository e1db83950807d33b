"""Kinematics core of the planar arm (numpy only, no ROS import).

Radians, metres, relative joint angles (link i's absolute angle is the sum of joints 1..i).
"""

from .angles import TAU, angle_difference, wrap_angle
from .arm import HEADING_TOLERANCE, LIMIT_TOLERANCE, PlanarArm
from .types import Branch, IkResult, IkStatus, PlanStatus

__all__ = [
    "HEADING_TOLERANCE",
    "LIMIT_TOLERANCE",
    "TAU",
    "Branch",
    "IkResult",
    "IkStatus",
    "PlanStatus",
    "PlanarArm",
    "angle_difference",
    "wrap_angle",
]
