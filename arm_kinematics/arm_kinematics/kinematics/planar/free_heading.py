"""A 3R target without a heading, one target (`PlanarArm.solve_valid` calls `solve`): the
heading by the rule of `tool_angles.py`, then solved with it, its closed form computed once
per heading (`HeadingIk`): with a seed, the least motion from it (`least_motion.py`); without
one (and for MAX_LIMIT_MARGIN), the feasible heading nearest the one pointing away from the
base, the candidates tried nearest first. Metres and radians, the arm's plane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..angles import wrap_angle
from ..array_api import norm
from ..types import Answer, Branch, IkStatus, refusal
from .branches import Choice, branch_elbows
from .closed_form import HeadingIk
from .explain import no_heading_text
from .failures import ring_failure, with_heading_note, wrist_failure
from .least_motion import least_motion_heading
from .tool_angles import heading_band, heading_candidates, nearest_feasible

if TYPE_CHECKING:
    from .arm import PlanarArm

Joints = tuple[float, ...]


def solve(arm: PlanarArm, x: float, y: float, branch: Branch, current: Joints | None) -> Answer:
    """A 3R target without a heading: the heading by the rule of `tool_angles.py` (least
    motion from `current`; without it, or for MAX_LIMIT_MARGIN, the feasible heading
    nearest the one pointing away from the base), then solved with it (its closed form
    computed once: `HeadingIk`)."""
    r = norm(x, y)
    inner, outer = arm.ring
    if not inner - arm.edge_tolerance <= r <= outer + arm.edge_tolerance:
        return ring_failure(x, y, r, arm.ring)
    ik = HeadingIk(arm, x, y)
    if current is not None and branch is not Branch.MAX_LIMIT_MARGIN:
        found = least_motion_heading(arm, x, y, branch_elbows(branch), current, ik)
        if found is None:  # off the band (within edge_tolerance of the ring), or limits
            return _no_heading(arm, x, y, r, branch)
        heading = found[0]
        answer = _choose_at(arm, ik, heading, branch, current)
        return with_heading_note(answer, heading, "least motion from current")
    phi, delta_lo, _ = heading_band(arm.link_lengths, x, y, arm.edge_tolerance)
    if delta_lo != delta_lo:  # only within edge_tolerance of the ring: nothing fits
        return ring_failure(x, y, r, arm.ring)
    return _nearest_feasible_heading(arm, ik, phi, delta_lo, branch)


def _no_heading(arm: PlanarArm, x: float, y: float, r: float, branch: Branch) -> Answer:
    """Why no heading solves a 3R target `r` m from the base: it is only within
    edge_tolerance of its ring, where no heading reaches it (`heading_band`), or every
    heading breaks a joint limit."""
    _, delta_lo, _ = heading_band(arm.link_lengths, x, y, arm.edge_tolerance)
    if delta_lo != delta_lo:
        return ring_failure(x, y, r, arm.ring)
    return refusal(IkStatus.JOINT_LIMIT, no_heading_text, x, y, branch)


def _choose_at(
    arm: PlanarArm, ik: HeadingIk, heading: float, branch: Branch, current: Joints | None
) -> Answer:
    """Steps 2-6 of a 3R target at `heading` (rad), its closed form from `ik`."""
    elbows = ik[heading]
    if elbows is None:
        return wrist_failure(arm, ik.x, ik.y, heading)
    up, down, sin_elbow = elbows
    return arm._choose(branch, current, up, down, sin_elbow, sin_elbow == 0.0)


def _nearest_feasible_heading(
    arm: PlanarArm, ik: HeadingIk, phi: float, delta_lo: float, branch: Branch
) -> Answer:
    """A 3R target without `current`, solved at the feasible heading nearest the one
    pointing away from the base (`tool_angles.nearest_feasible`, the candidates tried
    nearest first), or JOINT_LIMIT when no heading is feasible."""
    away = wrap_angle(phi + delta_lo)
    choice = _choice_at(arm, ik, away, branch)
    if choice is not None:
        answer = _answer_at(arm, ik, away, choice)
        return with_heading_note(answer, away, "pointing away from the base")
    headings = heading_candidates(arm, ik.x, ik.y, phi, delta_lo)
    choices: dict[int, Choice | None] = {}

    def feasible(index: int) -> bool:
        if index == 0:  # the away heading: not feasible
            return False
        choices[index] = _choice_at(arm, ik, wrap_angle(headings[index]), branch)
        return choices[index] is not None

    index = nearest_feasible(phi, headings, feasible)
    if index < 0:
        return refusal(IkStatus.JOINT_LIMIT, no_heading_text, ik.x, ik.y, branch)
    heading = wrap_angle(headings[index])
    answer = _answer_at(arm, ik, heading, choices[index])
    return with_heading_note(answer, heading, "nearest feasible")


def _choice_at(arm: PlanarArm, ik: HeadingIk, heading: float, branch: Branch) -> Choice | None:
    """The branch rule's choice at `heading` (rad) without a seed (steps 2, 4 and 5, as
    the solve makes them), or None where the solve has no solution."""
    elbows = ik[heading]
    if elbows is None:
        return None
    up, down, sin_elbow = elbows
    return arm._choice(branch, None, up, down, sin_elbow == 0.0)[0]


def _answer_at(arm: PlanarArm, ik: HeadingIk, heading: float, choice: Choice) -> Answer:
    """Step 6 at `heading` (rad) for the `choice` `_choice_at` made there."""
    sin_elbow = ik[heading][2]
    return arm._answer(choice, sin_elbow, sin_elbow == 0.0)
