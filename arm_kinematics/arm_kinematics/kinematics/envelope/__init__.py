"""The workspace envelope: where the arm may be, in its base frame (numpy only, no ROS).

A table no part of the arm goes below, keep-out boxes no part enters, and the arm's own base
column that the forearm and the tool never pass through; the arm's parts are capsules of a
configurable radius around its links, the fingers and the fingertips. Modules, each one idea
(imports point down this list): `geometry` (segment-to-box distances on arrays), `parts` (the
arm's named points and capsules, from the arm model), `path` (where a joint path is checked),
`explain` (the refusal texts), `rule` (the envelope as a rule of the IK solve: `keep_inside`,
`keep_inside_many`), `bound` (the cheap conservative bound of one pose on plain floats),
`envelope` (`Envelope`: `check`, `clears`, `inside`, `check_many`, `check_path`).
docs/workspace.md says what is checked where.
"""

from .envelope import Constraint, Envelope, PathViolation, Violation, Violations
from .parts import ArmParts
from .path import PATH_RESOLUTION_M, path_samples

__all__ = [
    "PATH_RESOLUTION_M",
    "ArmParts",
    "Constraint",
    "Envelope",
    "PathViolation",
    "Violation",
    "Violations",
    "path_samples",
]
