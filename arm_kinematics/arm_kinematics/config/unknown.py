"""Keys of a params file that no node of the stack knows: named at start-up, never ignored.

A node takes every parameter it does not declare in silence (rclpy keeps it as an unused
override), so a misspelt key leaves another value in force: `max_velocty_deg_s` keeps the
packaged arm.yaml's speed limit, `workspace.table_z_m` on a stack that has no table keeps no
table. Each node therefore compares the parameters it was given with every name the stack
knows (`schema.arm_parameter_names`, `schema.node_parameter_names`: a key for another node of
the stack is not unknown) and says what it finds:

- **refused** (the node stops, exit code 2): a key under a section that holds the arm's
  geometry, limits, servos or hardware (`SAFETY_SECTIONS`), or one whose nearest known name
  is an arm parameter that shapes or bounds its motion (`link_length_m`;
  `ParameterSpec.safety`). There a typo silently swaps the value the user wrote for a default
  taken from another arm, which can move the arm further or faster than written;
- **warned**: any other key (a node setting such as web_bridge's `prot`, a name such as
  `robot_nam`, or a key of nothing known). A node setting's default is its safe one
  (loopback, bounded limits), so a typo there costs a feature, not a limit.

The words name the nearest known name (difflib's ratio, the standard library's), or, for a
`joints.<name>` section of a joint the arm does not have, the arm's joints.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .schema import arm_parameters, node_parameter_names

#: Sections whose every key is a safety matter: a misspelt one is refused.
SAFETY_SECTIONS = (
    "joints.",
    "trajectory.",
    "workspace.",
    "gripper.",
    "hardware.",
    "mount.",
    "spatial.",
)
#: difflib's similarity below which no known name is offered.
_NEAREST_CUTOFF = 0.6


@dataclass(frozen=True)
class UnknownParameter:
    """A given key that no node of the stack declares, and what a node does about it."""

    name: str
    nearest: str | None  # the closest known name, if any is close
    refused: bool
    other_joint: str | None = None  # the X of a `joints.X.` key when X is not the arm's

    def words(self, joint_names: Sequence[str], gripper_joint: str) -> str:
        """The log line's text.

        >>> UnknownParameter("joints.elbow.max_velocty_deg_s",
        ...     "joints.elbow.max_velocity_deg_s", True).words(["shoulder", "elbow"], "")
        "unknown parameter 'joints.elbow.max_velocty_deg_s' (did you mean \
'joints.elbow.max_velocity_deg_s'?): refused, a misspelt key under joints. would leave another \
value in force; correct it in the params file"
        """
        return f"unknown parameter '{self.name}'{self.reason(joint_names, gripper_joint)}"

    def reason(self, joint_names: Sequence[str], gripper_joint: str) -> str:
        """What follows the name: the nearest name or the arm's joints, and what is done."""
        text = ""
        if self.other_joint is not None:
            gripper = f", gripper.joint: {gripper_joint}" if gripper_joint else ""
            nearest = f"; did you mean '{self.nearest}'?" if self.nearest else ""
            text = (
                f" ({self.other_joint} is not one of this arm's joints: joint_names "
                f"{', '.join(joint_names)}{gripper}{nearest})"
            )
        elif self.nearest:
            text = f" (did you mean '{self.nearest}'?)"
        if not self.refused:
            return text + ": no node of the arm uses it, ignored"
        section = next((s for s in SAFETY_SECTIONS if self.name.startswith(s)), None)
        where = f"under {section}" if section else f"so near {self.nearest}"
        return (
            f"{text}: refused, a misspelt key {where} would leave another value in force; "
            "correct it in the params file"
        )


def unknown_parameters(
    given: Iterable[str], joint_names: Sequence[str], gripper_joint: str = ""
) -> list[UnknownParameter]:
    """The keys of `given` that no node of the stack knows for an arm of these joints, sorted.

    >>> found = unknown_parameters(
    ...     ["joints.elbow.max_velocty_deg_s", "port", "prot", "joints.wrist.min_deg"],
    ...     ["shoulder", "elbow"])
    >>> [(u.name, u.nearest, u.refused) for u in found]  # doctest: +NORMALIZE_WHITESPACE
    [('joints.elbow.max_velocty_deg_s', 'joints.elbow.max_velocity_deg_s', True),
     ('joints.wrist.min_deg', 'joints.elbow.min_deg', True), ('prot', 'port', False)]
    """
    arm = arm_parameters(joint_names, gripper_joint)
    known = arm.keys() | node_parameter_names(joint_names)
    found = []
    for name in sorted(set(given) - known):
        close = difflib.get_close_matches(name, known, n=1, cutoff=_NEAREST_CUTOFF)
        nearest = close[0] if close else None
        other_joint = None
        if name.startswith("joints."):
            joint = name.split(".")[1]
            if joint not in (*joint_names, gripper_joint):
                other_joint = joint
        refused = name.startswith(SAFETY_SECTIONS) or (nearest in arm and arm[nearest].safety)
        found.append(UnknownParameter(name, nearest, refused, other_joint))
    return found
