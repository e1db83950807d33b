"""The answers of a planar solve that say no, and the heading note of one that says yes: which
status and which words (`explain.py` holds the texts), as `Answer`s whose words are made when
read. Metres and radians, the arm's plane.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ..types import Answer, Branch, IkStatus, refusal
from .closed_form import wrist_point
from .explain import (
    heading_note_text,
    limit_failure_text,
    link_angle_text,
    orientation_3r_text,
    too_close_text,
    too_far_text,
    violation_text,
)
from .tool_angles import reachable_headings

if TYPE_CHECKING:
    from .chain import PlanarChain

Joints = tuple[float, ...]


def ring_failure(x: float, y: float, r: float, ring: tuple[float, float]) -> Answer:
    """TOO_FAR beyond the `ring`'s outer edge (m), else TOO_CLOSE, for a target `r` m out.

    >>> ring_failure(3.0, 0.0, 3.0, (0.2, 1.8)).status.name
    'TOO_FAR'
    """
    inner, outer = ring
    if r > outer:
        return refusal(IkStatus.TOO_FAR, too_far_text, x, y, r, outer)
    return refusal(IkStatus.TOO_CLOSE, too_close_text, x, y, r, inner)


def wrist_failure(chain: PlanarChain, x: float, y: float, heading: float) -> Answer:
    """Why a 3R closed form found no wrist solve: the tip off its ring (TOO_FAR / TOO_CLOSE),
    else ORIENTATION_UNREACHABLE (the wrist point off links 1-2's ring), with the headings
    that would reach the target."""
    r = math.sqrt(x * x + y * y)
    inner, outer = chain.ring
    if not inner - chain.edge_tolerance <= r <= outer + chain.edge_tolerance:
        return ring_failure(x, y, r, chain.ring)
    return refusal(IkStatus.ORIENTATION_UNREACHABLE, _wrist_text, chain, x, y, heading)


def _wrist_text(chain: PlanarChain, x: float, y: float, heading: float) -> str:
    return orientation_3r_text(
        x,
        y,
        heading,
        wrist_point(x, y, heading, chain.link_lengths[2]),
        chain.ring_12,
        reachable_headings(chain.link_lengths, x, y, chain.edge_tolerance),
    )


def limit_failure(
    chain: PlanarChain,
    branch: Branch,
    up: Joints | None,
    down: Joints | None,
    up_fit: Joints | None,
    down_fit: Joints | None,
) -> Answer:
    """JOINT_LIMIT naming the joint each elbow would need outside its limits (and, for a
    requested elbow, whether the other one is feasible)."""
    other_fit = down_fit if branch is Branch.ELBOW_UP else up_fit
    return refusal(IkStatus.JOINT_LIMIT, _limit_text, chain, branch, up, down, other_fit)


def _limit_text(
    chain: PlanarChain,
    branch: Branch,
    up: Joints | None,
    down: Joints | None,
    other_fit: Joints | None,
) -> str:
    return limit_failure_text(
        branch, violation(chain, up), violation(chain, down), other_fit is not None
    )


def violation(chain: PlanarChain, joints: Joints | None) -> str | None:
    """Words for the first joint (or link angle) of `joints` (rad) that no 2 pi shift brings
    into its limits; None for an elbow that does not exist.

    >>> from arm_kinematics.kinematics import PlanarChain
    >>> violation(PlanarChain((1.0, 0.8), [(-1.0, 1.0), (-1.0, 1.0)]), (0.5, 2.0))
    'joint 2 = 114.59 deg, outside [-57.30 deg, 57.30 deg]'
    """
    if joints is None:
        return None
    found = chain.limit_violation(joints)
    if found is not None:
        index, angle = found
        return violation_text(chain.joint_names[index], angle, chain.joint_limits[index])
    link = chain.link_angle_violation(joints)
    if link is not None and chain.link_angle_limits is not None:
        index, angle = link
        names = chain.joint_names[: index + 1]
        return link_angle_text(names, angle, chain.link_angle_limits[index])
    return "a joint outside its limits"


def with_heading_note(answer: Answer, heading: float, rule: str) -> Answer:
    """A solved 3R answer whose heading (rad) the solve chose, with that heading and its
    `rule` said; a refusal as it is."""
    if not answer.ok:
        return answer
    words = partial(_noted, answer.words, heading, rule)
    return Answer(answer.status, answer.joints, words, answer.alternative, answer.manipulability)


def _noted(words: Callable[[], str], heading: float, rule: str) -> str:
    return heading_note_text(words(), heading, rule)
