"""Jogging: the tool or the joints moved live at a commanded velocity, one command period at a
time, within the joints' velocity and acceleration limits, the tool's acceleration limit, the
SINGULAR band and the workspace envelope (numpy only, no ROS).

Modules, each one idea (imports point down this list): `commands` (a twist or joint velocities
as plain numbers), `axes` (what an arm's jog drives, a twist turned into it, the rest dropped
and named), `singularity` (the distance to the solver's SINGULAR band), `status` (MoveIt
Servo's status codes, what held a step back), `limits` (the limits, how fast the velocity
changes, how a stop goes), `trials` (one step tried against every rule), `jogger` (`Jogger`,
the step). docs/jogging.md says how the nodes use it.
"""

from .axes import JogAxes, TwistRates
from .commands import JogCommand, JointJogCommand, TwistCommand
from .jogger import Jogger, JogStep
from .limits import JogLimits
from .singularity import SingularRatio, singular_ratio
from .status import Bound, JogCode, Limit

__all__ = [
    "Bound",
    "JogAxes",
    "JogCode",
    "JogCommand",
    "JogLimits",
    "JogStep",
    "Jogger",
    "JointJogCommand",
    "Limit",
    "SingularRatio",
    "TwistCommand",
    "TwistRates",
    "singular_ratio",
]
