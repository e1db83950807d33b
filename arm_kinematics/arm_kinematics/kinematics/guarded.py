"""An arm's optional workspace envelope: what makes its solves keep every part inside it.

`PlanarArm` and `SpatialArm` carry an `envelope` (None: the bare model, every pose within the
joint limits is a candidate). With one (`with_envelope`, as `ArmConfig.make_arm` gives every
node), a candidate that breaks the envelope is not feasible, as one outside the joint limits is
not: `solve` answers the other elbow (or side) where the branch rule allows it, else
OUTSIDE_WORKSPACE naming the constraint and the part (`envelope/rule.py`, docs/workspace.md).
No import of the envelope here: the arm asks the object it carries.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .envelope import Envelope

Arm = TypeVar("Arm", bound="Guarded")


class Guarded:
    """The envelope slot of an arm model (a mixin of `PlanarArm` and `SpatialArm`)."""

    envelope: Envelope | None = None
    """The workspace envelope the solves keep inside (None: none)."""

    def with_envelope(self: Arm, envelope: Envelope | None) -> Arm:
        """A copy of this arm whose solves keep inside `envelope` (None: the bare model).

        >>> from arm_kinematics.kinematics import Envelope, PlanarArm
        >>> bare = PlanarArm((1.0, 0.8))
        >>> arm = bare.with_envelope(Envelope(bare, link_radius=0.01,
        ...                                   keep_out_boxes=[(1.0, 1.2, -0.1, 1.2, 1.4, 0.1)]))
        >>> arm.solve(1.0731, 1.2727).message[:63]
        'OUTSIDE_WORKSPACE: the tool point would be 82.7 mm inside keep-'
        >>> bare.solve(1.0731, 1.2727).status.name, arm.with_envelope(None).envelope
        ('OK', None)
        """
        joints = self.n_joints  # type: ignore[attr-defined]
        if envelope is not None and envelope.parts.chain.n_joints != joints:
            raise ValueError(
                f"the envelope is of an arm of {envelope.parts.chain.n_joints} joints, not {joints}"
            )
        arm = copy.copy(self)
        arm.envelope = None if envelope is None or envelope.is_empty else envelope
        arm.__dict__.pop("_bare", None)
        return arm

    @property
    def bare(self: Arm) -> Arm:
        """This arm without its envelope (itself when it has none): the model's own solve."""
        if self.envelope is None:
            return self
        bare = self.__dict__.get("_bare")
        if bare is None:
            bare = self.with_envelope(None)
            self.__dict__["_bare"] = bare
        return bare
