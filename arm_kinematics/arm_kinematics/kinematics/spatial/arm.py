"""`SpatialArm`: the spatial chain of `model.py` plus its inverse kinematics.

A target (x, y, z) in the base frame is reached from one side of the yaw axis: from the front
(yaw = psi = atan2(y, x), the chain leaning toward the target) or over the back (yaw = psi + pi,
the chain bent backwards), each only where its yaw fits the yaw joint's limits. On each side the
vertical plane is solved by the planar core (`PlanarArm.solve`: both elbows, the branch rules,
the 3R heading search, limits, SINGULAR), the back one on the chain seen from behind
(`SpatialChain.mirror`), so "elbow up" always means the elbow above the shoulder-wrist line.

`solve` runs the checks in this order of precedence:

1. INVALID_INPUT: a target, pitch or roll that is not a finite number, a roll without a pitch,
   a `current` of the wrong length or not finite, an unknown branch.
2. YAW_LIMIT: neither side's yaw fits the yaw joint's limits (the target's direction is out of
   the yaw's range, also over the back).
3. ORIENTATION_UNREACHABLE (roll): without a wrist roll the tool's roll is 0 from the front and
   pi over the back; another roll is refused, naming both.
4. Each side's planar solve (TOO_FAR / TOO_CLOSE, ORIENTATION_UNREACHABLE, JOINT_LIMIT; then a
   requested roll within the roll joint's limits); when no side solves, the answer of the side
   that came nearest to a solution (in that order; the front on a tie), naming the other.
5. The side: with `current`, the least joint motion (the yaw's included); without, the front,
   over the back only when the front has no solution; MAX_LIMIT_MARGIN the largest margin.
6. SINGULAR: the planar solve's, or the tool within `singularity_margin * reach` of the yaw axis
   (the yaw turns fast there). On the yaw axis itself (within edge_tolerance) the direction is
   undefined: the yaw stays at `current`'s (else 0, or the middle of its limits), and the answer
   says so.

Targets are metres in the base frame; pitch and roll radians in the outward convention
(`outward.outward_angles`: pitch above the horizontal, pointing away from the yaw axis).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

from ..angles import wrap_angle
from ..array_api import norm
from ..guarded import Guarded
from ..planar.branches import MARGIN_TIE, joint_distance
from ..planar.chain import as_number
from ..types import (
    Answer,
    Branch,
    IkResult,
    IkStatus,
    branch_of,
    invalid_input,
    refusal,
)
from . import explain
from .arm_many import ManyTargets
from .model import SpatialChain
from .outward import outward_angles_of
from .rotations import checked_rotation
from .sides import ROLL_MATCH_TOLERANCE, Attempt, Side, fit_angle, same_angle

Joints = tuple[float, ...]


class SpatialArm(SpatialChain, Guarded, ManyTargets):
    """A spatial arm with closed-form IK (the model, its arguments and attributes: see
    `SpatialChain`; with an envelope, `Guarded`).

    The reference: links 0.1 and 0.08 m, the shoulder 0.05 m up; the target 0.1 m along +y and
    0.08 m above the shoulder is reached with the yaw at 90 deg: elbow down with link 1
    level and link 2 straight up, or elbow up.

    >>> arm = SpatialArm((0.1, 0.08), shoulder_height=0.05)
    >>> result = arm.solve(0.0, 0.1, 0.13, branch=Branch.ELBOW_DOWN)
    >>> result.status, [round(math.degrees(q), 6) + 0.0 for q in result.joints]
    (<IkStatus.OK: 0>, [90.0, 0.0, 90.0])
    >>> [round(math.degrees(q), 3) for q in result.alternative]  # elbow up
    [90.0, 77.32, -90.0]
    >>> [round(v, 9) for v in arm.forward(result.joints).position]
    [0.0, 0.1, 0.13]
    """

    # --- one target -----------------------------------------------------------------------

    def solve(
        self,
        x: float,
        y: float,
        z: float,
        pitch: float | None = None,
        roll: float | None = None,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
    ) -> IkResult:
        """Joint angles (rad, joint order) that put the tool point at (x, y, z) (m, base
        frame), optionally with the tool's `pitch` and then `roll` (rad, outward convention).
        Never raises: bad numbers give INVALID_INPUT. The checks and their order: the module
        docstring.

        >>> arm = SpatialArm((0.1, 0.08, 0.04), [(-2.0, 2.0), None, None, None])
        >>> down = arm.solve(0.12, 0.0, -0.02, pitch=-math.pi / 2)
        >>> down.status.name, round(math.degrees(arm.forward(down.joints).pitch), 6)
        ('OK', -90.0)
        >>> arm.solve(-0.12, 0.0, 0.0).message.startswith("OK: reaching over the back")
        True
        >>> arm.solve(1.0, 0.0, 0.0).status.name, arm.solve(0.1, float("nan"), 0.0).status.name
        ('TOO_FAR', 'INVALID_INPUT')
        """
        checked = self._checked_request(x, y, z, pitch, roll, branch, current)
        if isinstance(checked, IkResult):
            return checked
        return self.answer(*checked).result()

    def solve_rotation(
        self,
        x: float,
        y: float,
        z: float,
        rotation: Any,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
    ) -> IkResult:
        """`solve` for a whole tool orientation: `rotation` (3x3, base frame). The arm meets it
        only when its x axis lies in the target's vertical plane (pitch and roll then say it
        all); else ORIENTATION_UNREACHABLE, naming the nearest orientation the joints give and
        how far off it is (the turn about the tool's z axis that no joint gives).

        >>> from arm_kinematics.kinematics.spatial.rotations import rot_y, rot_z
        >>> arm = SpatialArm((0.1, 0.08, 0.04), has_roll=False)
        >>> arm.solve_rotation(0.12, 0.0, 0.0, rot_y(0.3)).status.name
        'OK'
        >>> arm.solve_rotation(0.12, 0.0, 0.0, rot_z(0.2)).message[:62]
        'ORIENTATION_UNREACHABLE: the tool would have to turn 11.46 deg'
        """
        rows = checked_rotation(rotation)
        if rows is None:
            return invalid_input("rotation must be a 3x3 rotation matrix of finite numbers")
        checked = self._checked_request(x, y, z, 0.0, 0.0, branch, current)
        if isinstance(checked, IkResult):
            return checked
        x, y, z, _, _, branch, current = checked
        return self.rotation_answer(x, y, z, rows, branch, current).result()

    def rotation_answer(
        self,
        x: float,
        y: float,
        z: float,
        rows: Sequence[Sequence[float]],
        branch: Branch,
        current: Joints | None,
    ) -> Answer:
        """`solve_rotation` of a checked request (the rotation's `rows`, a rotation matrix of
        floats), as an `Answer`: the rotation's pitch and roll in the outward convention,
        ORIENTATION_UNREACHABLE for a turn about the tool's z axis, else `answer`."""
        on_axis = norm(x, y) <= self.edge_tolerance
        yaw_if_on_axis = self._kept_yaw(current) if on_axis else 0.0
        (r00, r01, r02), (r10, r11, r12), (r20, _, r22) = rows
        if on_axis and abs(r20) < 1.0 - 1e-12:
            yaw_if_on_axis = math.atan2(r10, r00)  # the tool points that way
        entries = (r00, r01, r02, r10, r11, r12, r22)
        pitch, roll, twist = outward_angles_of(x, y, entries, yaw_if_on_axis)
        if abs(twist) > ROLL_MATCH_TOLERANCE:
            return refusal(IkStatus.ORIENTATION_UNREACHABLE, explain.twist_text, twist, pitch, roll)
        return self.answer(x, y, z, pitch, roll, branch, current, yaw_if_on_axis)

    # --- checks ----------------------------------------------------------------------------

    def _checked_request(
        self, x: Any, y: Any, z: Any, pitch: Any, roll: Any, branch: Any, current: Any
    ) -> tuple | IkResult:
        """The request as floats, a Branch and a checked `current`, or its INVALID_INPUT."""
        if (
            type(x) is float and type(y) is float and type(z) is float
            and (pitch is None or type(pitch) is float) and (roll is None or type(roll) is float)
            and isinstance(branch, Branch) and current is None
            and math.isfinite(x + y + z + (pitch or 0.0) + (roll or 0.0))
            and (roll is None or pitch is not None)
        ):  # fmt: skip
            return x, y, z, pitch, roll, branch, None  # the common case, checked at once
        values = [as_number(v) for v in (x, y, z)]
        if any(v is None or not math.isfinite(v) for v in values):
            return invalid_input(f"target ({x}, {y}, {z}) must be three finite numbers (m)")
        angles = []
        for name, value in (("pitch", pitch), ("roll", roll)):
            number = None if value is None else as_number(value)
            if value is not None and (number is None or not math.isfinite(number)):
                return invalid_input(f"{name} {value!r} must be a finite number (rad)")
            angles.append(number)
        if angles[1] is not None and angles[0] is None:
            return invalid_input(
                "a roll needs a pitch (the roll turns about the tool's pitched axis)"
            )
        checked_branch = branch if isinstance(branch, Branch) else branch_of(branch)
        if checked_branch is None:
            return invalid_input(f"unknown branch {branch!r}")
        seed = None
        if current is not None:
            try:
                seed = self.checked_joints(current)
            except ValueError as error:
                return invalid_input(str(error))
        return (*values, *angles, checked_branch, seed)

    # --- the solve --------------------------------------------------------------------------

    def answer(
        self,
        x: float,
        y: float,
        z: float,
        pitch: float | None,
        roll: float | None,
        branch: Branch,
        current: Joints | None,
        yaw_if_on_axis: float | None = None,
    ) -> Answer:
        """Steps 2-6 of the module docstring for a checked request, as an `Answer` (its words
        made when read)."""
        rho = norm(x, y)  # from the yaw axis
        sides, refused = self._sides(x, y, rho, current, yaw_if_on_axis)
        if not sides:
            return refusal(IkStatus.YAW_LIMIT, explain.yaw_limit_text, x, y, refused, self)
        if roll is not None and not self.has_roll:
            sides = [s for s in sides if same_angle(roll, s.tool_roll)]
            if not sides:
                return refusal(IkStatus.ORIENTATION_UNREACHABLE, explain.no_roll_text, roll)
        attempts = self._attempts(sides, z, pitch, roll, branch, current)
        solved = [a for a in attempts if a.result.ok]
        if not solved:
            return explain.nearest_failure(attempts, refused)
        chosen = self._choose(solved, branch, current)
        return self._finish(chosen, rho, refused, pitch is None and self.n_pitch == 3)

    def _attempts(
        self,
        sides: list[Side],
        z: float,
        pitch: float | None,
        roll: float | None,
        branch: Branch,
        current: Joints | None,
    ) -> list[Attempt]:
        """The sides solved in the order the rule prefers them, the second only when it could
        still be chosen: without `current`, only when the first has no solution; with it (least
        motion), only when the first moves the joints more than the second's yaw alone would."""
        if len(sides) == 1 or branch is Branch.MAX_LIMIT_MARGIN:
            return [self._attempt(side, z, pitch, roll, branch, current) for side in sides]
        if current is not None:
            sides = sorted(sides, key=lambda s: abs(wrap_angle(s.yaw - current[0])))
        first = self._attempt(sides[0], z, pitch, roll, branch, current)
        if first.result.ok:
            if current is None:
                return [first]
            kinds = self.joint_kinds
            motion = joint_distance(first.result.joints, current, kinds)
            if motion <= abs(wrap_angle(sides[1].yaw - current[0])):
                return [first]  # the other side's yaw alone moves more
        return [first, self._attempt(sides[1], z, pitch, roll, branch, current)]

    def _kept_yaw(self, current: Joints | None) -> float:
        """The yaw a target on the yaw axis keeps: `current`'s, else 0 (or the middle of the
        limits when 0 is outside them)."""
        if current is not None:
            return current[0]
        lo, hi = self.yaw_limits
        return 0.0 if lo <= 0.0 <= hi else 0.5 * (lo + hi)

    def _sides(
        self,
        x: float,
        y: float,
        rho: float,
        current: Joints | None,
        yaw_if_on_axis: float | None,
    ) -> tuple[list[Side], list[tuple[str, float]]]:
        """The sides whose yaw fits the limits, and the (name, yaw) of those that do not, for
        the target (x, y) `rho` m from the yaw axis."""
        d = self.shoulder_forward
        # The yaw moved by k * 2 pi into its limits, nearest `current`'s yaw (only limits a
        # turn apart or more leave a choice).
        near = None if current is None or self.yaw_fits_once else current[0]
        if rho <= self.edge_tolerance:
            yaw = self._kept_yaw(current) if yaw_if_on_axis is None else yaw_if_on_axis
            fitted = fit_angle(yaw, self.yaw_limits, near)
            if fitted is None:
                return [], [("axis", yaw)]
            return [Side("axis", fitted, False, rho - d)], []
        psi = math.atan2(y, x)
        sides, refused = [], []
        for name, yaw, back in (("front", psi, False), ("back", wrap_angle(psi + math.pi), True)):
            fitted = fit_angle(yaw, self.yaw_limits, near)
            if fitted is None:
                refused.append((name, yaw))
            else:
                sides.append(Side(name, fitted, back, rho + d if back else rho - d))
        return sides, refused

    def _attempt(
        self,
        side: Side,
        z: float,
        pitch: float | None,
        roll: float | None,
        branch: Branch,
        current: Joints | None,
    ) -> Attempt:
        """Solve the vertical plane on `side` (and the roll): an Attempt in joint order; with
        an envelope, its rule on this side (`envelope/rule.py`: the other elbow at the same
        tool pitch when the chosen one breaks it)."""
        heading = None
        if pitch is not None:  # the planar heading: the last straight link's angle
            delta = self.link_angle_offsets[-1]
            heading = wrap_angle(pitch - delta if side.back else pitch + delta)
        planar_current = None
        if current is not None:
            planar_current = self.planar_joints(current[1 : 1 + self.n_pitch])
            if side.back:
                planar_current = self.mirror(planar_current)
        attempt, planar = self._side_solve(side, z, heading, roll, branch, current, planar_current)
        if self.envelope is None or not attempt.result.ok:
            return attempt
        if heading is None and self.n_pitch == 3:
            heading = wrap_angle(math.fsum(planar))  # the pitch its rule chose
        elbow = Branch.ELBOW_DOWN if planar[1] < 0.0 else Branch.ELBOW_UP
        answer = self.envelope.keep_inside(
            attempt.result,
            branch,
            lambda: (
                self._side_solve(side, z, heading, roll, elbow, current, planar_current)[0].result
            ),
        )
        return Attempt(side, answer)

    def _side_solve(
        self,
        side: Side,
        z: float,
        heading: float | None,
        roll: float | None,
        branch: Branch,
        current: Joints | None,
        planar_current: Joints | None,
    ) -> tuple[Attempt, Joints]:
        """The bare model's Attempt on `side` (the plane solved with the planar `heading`),
        and the plane's chosen joints (its geometric angles on that side; () when refused)."""
        chain = self.vertical_back if side.back else self.vertical
        planar = chain.solve_valid(
            side.planar_x, z - self.shoulder_height, heading, branch, planar_current
        )
        if not planar.ok:
            return Attempt(side, planar), ()
        roll_joint = self._roll_joint(side, roll, current) if self.has_roll else 0.0
        if isinstance(roll_joint, Answer):
            return Attempt(side, roll_joint), ()
        joints = self._joints(side, planar.joints, roll_joint)
        other = (
            None
            if planar.alternative is None
            else self._joints(side, planar.alternative, roll_joint)
        )
        answer = Answer(planar.status, joints, planar.words, other, planar.manipulability)
        return Attempt(side, answer), planar.joints

    def _roll_joint(self, side: Side, roll: float | None, current: Joints | None) -> float | Answer:
        """The roll joint's angle (rad; 0.0 without one) for the requested tool `roll`, or the
        JOINT_LIMIT of one outside the roll's limits. Without a requested roll the roll stays."""
        if not self.has_roll:
            return 0.0
        assert self.roll_limits is not None
        held = None if current is None else current[-1]
        wanted = (held if held is not None else 0.0) if roll is None else roll - side.tool_roll
        fitted = fit_angle(wanted, self.roll_limits, None if self.roll_fits_once else held)
        if fitted is None and roll is None:  # 0 outside the limits: the middle of them
            fitted = 0.5 * (self.roll_limits[0] + self.roll_limits[1])
        if fitted is None:
            return refusal(
                IkStatus.JOINT_LIMIT, explain.roll_limit_text, self.joint_names[-1], wanted,
                self.roll_limits, side.name,
            )  # fmt: skip
        return fitted

    def _joints(self, side: Side, planar: Sequence[float], roll_joint: float) -> Joints:
        """The joint vector (yaw, pitch joints, roll) of a planar solution on `side`."""
        pitches = self.pitch_joints(self.mirror(planar) if side.back else planar)
        if self.has_roll:
            return (side.yaw, *pitches, roll_joint)
        return (side.yaw, *pitches)

    def _choose(self, solved: list[Attempt], branch: Branch, current: Joints | None) -> Attempt:
        """Step 5 of the module docstring."""
        if len(solved) == 1:
            return solved[0]
        if branch is Branch.MAX_LIMIT_MARGIN:
            margins = [self.limit_margin(a.result.joints) for a in solved]
            best = 0  # the first on a tie
            for index, margin in enumerate(margins):
                if margin > margins[best] + MARGIN_TIE:
                    best = index
            return solved[best]
        if current is not None:
            kinds = self.joint_kinds
            return min(solved, key=lambda a: joint_distance(a.result.joints, current, kinds))
        return solved[0]  # the front first

    def _finish(
        self, chosen: Attempt, rho: float, refused: list[tuple[str, float]], chose_pitch: bool
    ) -> Answer:
        """The chosen attempt's answer for a target `rho` m from the yaw axis: SINGULAR near
        it, the side said (and the tool pitch the 3-joint chain chose, when `chose_pitch`),
        the manipulability of the whole position Jacobian."""
        answer = chosen.result
        # The yaw column of the position Jacobian is rho long and normal to the plane, so the
        # determinant of J J^T is rho^2 times the vertical chain's.
        manipulability = rho * answer.manipulability
        near = self.near_axis
        side = chosen.side
        singular = side.name == "axis" or rho < near
        status = IkStatus.SINGULAR if singular else answer.status
        axis = (rho, near) if singular else None
        words = partial(explain.solved_words, self, answer, side, refused, chose_pitch, axis)
        return Answer(status, answer.joints, words, answer.alternative, manipulability)
