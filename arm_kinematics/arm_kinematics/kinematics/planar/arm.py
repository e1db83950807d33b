"""`PlanarArm`: the chain model of `chain.py` plus its inverse kinematics (2R and 3R).

`solve` runs the checks in the order of precedence of the statuses, top to bottom:

1. INVALID_INPUT: a target or heading that is not a finite number, a `current` of the wrong
   length or with a non-finite value, a branch that is not a `Branch` value, or an arm with more
   than 3 joints (the closed forms cover 2R and 3R).
2. TOO_FAR / TOO_CLOSE: the target's distance r from the base lies outside the ring
   `|L1 - L2| <= r <= L1 + L2` (2R) or outside the tip's reachable ring of a 3R arm
   (`max(0, 2 max(L) - sum(L)) <= r <= sum(L)`); checked on r when the closed form finds no
   solve (a tip off its ring always leaves the 2R part off its own, so nothing is missed). A
   target outside the ring by at most `edge_tolerance` (m) is solved on the edge (joint 2
   exactly 0 or pi) and flagged SINGULAR; the round trip `forward(joints) == target` to 1e-9 m
   is promised for targets inside the ring.
3. ORIENTATION_UNREACHABLE: the position is reachable but not with the requested heading: for
   3R the wrist point `target - L3 (cos h, sin h)` lies outside the 2R ring of links 1-2; a 2R
   arm meets a requested heading h only when one of its two solutions has it: when the elbow
   point `target - L2 (cos h, sin h)` lies L1 from the base (to HEADING_MATCH_TOLERANCE m, which
   is about 1e-10 / L2 rad of heading away from full stretch).
4. JOINT_LIMIT: geometrically reachable, but every candidate (or the explicitly requested elbow)
   breaks a joint limit (see `chain.py` for how limits apply). Never hidden by the SINGULAR flag.
5. SINGULAR: solved, but |sin(joint 2)| (of the 2R part / the wrist solve) is below
   `singularity_margin`: near full stretch or full fold, where joint speeds blow up.
6. OK.

The formulas live in `closed_form.py`, the branch rules in `branches.py`, the message texts in
`explain.py`, the 3R tool heading when none is requested in `tool_angles.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from ..angles import wrap_angle
from ..array_api import norm
from ..guarded import Guarded
from ..types import (
    Answer,
    Branch,
    IkArrays,
    IkResult,
    IkStatus,
    branch_of,
    invalid_answer,
    invalid_input,
    refusal,
)
from . import free_heading, many
from .branches import ONLY_WITHIN_LIMITS, Choice, choose_branch
from .chain import PlanarChain, as_number
from .closed_form import (
    HEADING_MATCH_TOLERANCE,
    NEAR_COINCIDENT,
    three_link_ik,
    three_link_manipulability,
    two_link_ik,
    wrist_point,
)
from .explain import (
    heading_mismatch_text,
    singular_words,
    solved_text,
    wrong_elbow_heading_text,
)
from .failures import limit_failure, ring_failure, wrist_failure
from .limits import LIMIT_TOLERANCE

Joints = tuple[float, ...]


class PlanarArm(PlanarChain, Guarded):
    """A planar arm of 2 or 3 revolute joints with closed-form IK (the chain model, its
    arguments and attributes: see `PlanarChain`; with an envelope, `Guarded`).

    The reference arm: links 1.0 and 0.8 m; joints 30 and 45 degrees put the tip at
    (1.0731, 1.2727), and IK of that point gives back both elbows.

    >>> arm = PlanarArm((1.0, 0.8))
    >>> x, y, _ = arm.forward((math.radians(30), math.radians(45)))
    >>> round(x, 4), round(y, 4)
    (1.0731, 1.2727)
    >>> result = arm.solve(x, y, branch=Branch.ELBOW_DOWN)
    >>> result.status, [round(math.degrees(q), 6) for q in result.joints]
    (<IkStatus.OK: 0>, [30.0, 45.0])
    >>> [round(math.degrees(q), 3) for q in result.alternative]
    [69.73, -45.0]
    """

    # --- one target -----------------------------------------------------------------------

    def solve(
        self,
        x: float,
        y: float,
        heading: float | None = None,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
    ) -> IkResult:
        """Joint angles (rad) that put the tip at (x, y) (m, base frame), optionally with a
        tool heading (rad). Never raises: bad numbers give INVALID_INPUT.

        Closed form (law of cosines with atan2). 2R: (x, y); a requested heading is met only
        if one of the two elbow solutions has it. 3R with a heading: the wrist point
        `(x, y) - L3 (cos h, sin h)` is solved as 2R and joint 3 = h - theta1 - theta2. 3R
        without a heading: the heading is chosen (`tool_angles.py`): with `current`, the
        feasible heading with the least joint motion from `current`; without `current`, the
        heading pointing away from the base (atan2(y, x)), else the nearest reachable heading,
        else (joint limits) the nearest feasible one.

        Branch rules: ELBOW_UP (joint 2 < 0) / ELBOW_DOWN (joint 2 > 0) exactly that elbow, or
        JOINT_LIMIT saying whether the other one is feasible; CLOSEST the feasible one with
        the least motion from `current` (joint-space distance, the short way round for
        continuous joints), or with no `current` as MAX_LIMIT_MARGIN; MAX_LIMIT_MARGIN the
        feasible one whose smallest distance to a limit is largest (elbow up on a tie, e.g.
        without limits). The statuses' precedence: see the module docstring.

        >>> arm = PlanarArm((1.0, 0.8), [(-math.pi / 2, math.pi / 2)] * 2)
        >>> result = arm.solve(1.0731, 1.2727)
        >>> result.message
        'OK: solved elbow down (largest joint-limit margin)'
        >>> arm.solve(3.0, 0.0).status, arm.solve(float("nan"), 0.0).status
        (<IkStatus.TOO_FAR: 2>, <IkStatus.INVALID_INPUT: 6>)
        >>> PlanarArm((1.0, 0.8, 0.3)).solve(1.0731, 1.5727, math.pi / 2).joints[2] > 0
        True
        """
        # 1. INVALID_INPUT: every input checked and converted before any geometry: the seed
        # here, the rest in `answer` (which solve_chain calls with seeds it already checked).
        if current is not None:
            current = self._checked_current(current)
            if isinstance(current, IkResult):
                return current
        return self.answer(x, y, heading, branch, current).result()

    def answer(self, x: Any, y: Any, heading: Any, branch: Any, current: Joints | None) -> Answer:
        """`solve` with `current` checked (None or n finite floats, rad), as an `Answer` (its
        words made when read): step 1's checks of the rest, then `solve_valid` (the bare
        model's steps 2-6) and, when the arm carries an envelope, its rule (`_keep_inside`)."""
        x, y = as_number(x), as_number(y)
        if x is None or y is None:
            return invalid_answer("target x and y must be numbers (m)")
        if not (math.isfinite(x) and math.isfinite(y)):
            return invalid_answer(f"target ({x}, {y}) must be finite (m)")
        if not isinstance(branch, Branch):
            checked_branch = branch_of(branch)
            if checked_branch is None:
                return invalid_answer(
                    f"unknown branch {branch!r}: expected "
                    + ", ".join(f"{b.value} ({b.name})" for b in Branch)
                )
            branch = checked_branch
        if heading is not None:
            heading = as_number(heading)
            if heading is None or not math.isfinite(heading):
                return invalid_answer("heading must be a finite number (rad)")
        n = self.n_joints
        if n > 3:
            return invalid_answer(f"closed-form IK covers 2 and 3 joints; this arm has {n}")
        answer = self.solve_valid(x, y, heading, branch, current)
        if self.envelope is None or not answer.ok:
            return answer
        return self._keep_inside(answer, x, y, heading, branch, current)

    def _keep_inside(
        self, answer: Answer, x: float, y: float, heading: float | None, branch: Branch,
        current: Joints | None,
    ) -> Answer:  # fmt: skip
        """The envelope's rule (`envelope/rule.py`) on the bare model's `answer`: the other
        elbow at the same heading when the chosen one breaks it."""
        assert self.envelope is not None
        if heading is None and self.n_joints == 3:
            heading = wrap_angle(math.fsum(answer.joints))  # the heading its rule chose
        elbow = Branch.ELBOW_DOWN if answer.joints[1] < 0.0 else Branch.ELBOW_UP
        return self.envelope.keep_inside(
            answer, branch, lambda: self.solve_valid(x, y, heading, elbow, current)
        )

    def solve_valid(
        self, x: float, y: float, heading: float | None, branch: Branch, current: Joints | None
    ) -> Answer:
        """Steps 2-6 for inputs already checked (step 1): x, y and the heading finite floats
        (m, rad; heading None for none), a `Branch`, `current` None or n finite floats (rad);
        what the spatial solve calls for its vertical plane."""
        n = self.n_joints
        if n == 3 and heading is None:
            return free_heading.solve(self, x, y, branch, current)

        # 2. TOO_FAR / TOO_CLOSE, then the closed form: both elbows, limits not applied yet.
        # The closed form fails when the target (2R) or the wrist point (3R) is off links
        # 1-2's ring, which it always is when the tip is off its own ring (by the triangle
        # inequality, with the same edge_tolerance): the radius is checked only then.
        if n == 2:
            l1, l2 = self.link_lengths
            elbows = two_link_ik(l1, l2, x, y, self.edge_tolerance)
            if elbows is None:
                return ring_failure(x, y, math.sqrt(x * x + y * y), self.ring_12)
        else:
            elbows = three_link_ik(self.link_lengths, x, y, heading, self.edge_tolerance)
            if elbows is None:
                return wrist_failure(self, x, y, heading)
        up, down, sin_elbow = elbows
        coincident = sin_elbow == 0.0
        only_reason = ONLY_WITHIN_LIMITS

        # 3. ORIENTATION_UNREACHABLE (2R with a heading).
        if heading is not None and n == 2:
            matched = self._heading_elbows(x, y, heading, branch, up, down, sin_elbow)
            if isinstance(matched, Answer):
                return matched
            up, down, coincident = matched
            only_reason = " (the only branch with that heading)"
        return self._choose(branch, current, up, down, sin_elbow, coincident, only_reason)

    def _heading_elbows(
        self,
        x: float,
        y: float,
        heading: float,
        branch: Branch,
        up: Joints,
        down: Joints,
        sin_elbow: float,
    ) -> tuple[Joints | None, Joints | None, bool] | Answer:
        """Step 3, 2R: (elbow up, elbow down, coincident) keeping the elbow that has the
        requested heading (None for the other), or ORIENTATION_UNREACHABLE.

        The elbow follows from the heading (well conditioned even at full stretch, where a
        heading computed from the position is only good to 1e-8 rad).
        """
        l1, l2 = self.link_lengths
        elbow_x, elbow_y = wrist_point(x, y, heading, l2)
        r = math.sqrt(x * x + y * y)
        inner, outer = self.ring_12
        outside = max(0.0, r - outer, inner - r)
        if abs(norm(elbow_x, elbow_y) - l1) > HEADING_MATCH_TOLERANCE + outside:
            return refusal(
                IkStatus.ORIENTATION_UNREACHABLE, heading_mismatch_text, x, y, heading, up, down
            )
        shoulder = math.atan2(elbow_y, elbow_x)
        matched = (shoulder, wrap_angle(heading - shoulder))
        if sin_elbow < NEAR_COINCIDENT:
            return matched, matched, True
        if matched[1] < 0.0:
            if branch is Branch.ELBOW_DOWN:
                return refusal(
                    IkStatus.ORIENTATION_UNREACHABLE, wrong_elbow_heading_text, x, y, heading,
                    down, "elbow down", "elbow up",
                )  # fmt: skip
            return matched, None, sin_elbow == 0.0
        if branch is Branch.ELBOW_UP:
            return refusal(
                IkStatus.ORIENTATION_UNREACHABLE, wrong_elbow_heading_text, x, y, heading, up,
                "elbow up", "elbow down",
            )  # fmt: skip
        return None, matched, sin_elbow == 0.0

    def _within_limits(
        self,
        current: Joints | None,
        up: Joints | None,
        down: Joints | None,
        coincident: bool,
    ) -> tuple[Joints | None, float, Joints | None, float]:
        """Step 4: each elbow moved by k * 2 pi into the limits where that can help, and its
        limit margin; (up, its margin, down, its margin), None for an elbow outside them."""
        if self.shifts_can_fit:
            reference = current if current is not None else (0.0,) * self.n_joints
            up_fit = None if up is None else self.fit_into_limits(up, reference)
            down_fit = None if down is None else self.fit_into_limits(down, reference)
        else:
            up_fit, down_fit = up, down
        up_margin = -math.inf if up_fit is None else self.limit_margin(up_fit)
        down_margin = -math.inf if down_fit is None else self.limit_margin(down_fit)
        if up_margin < -LIMIT_TOLERANCE:
            up_fit = None
        if down_margin < -LIMIT_TOLERANCE:
            down_fit = None
        if coincident and up_fit is not None:
            down_fit = None  # one configuration: do not offer it twice
        return up_fit, up_margin, down_fit, down_margin

    def _choice(
        self,
        branch: Branch,
        current: Joints | None,
        up: Joints | None,
        down: Joints | None,
        coincident: bool,
        only_reason: str = ONLY_WITHIN_LIMITS,
    ) -> tuple[Choice | None, Joints | None, Joints | None]:
        """Steps 4-5: (the branch rule's choice among the elbows within the limits, or None;
        the elbows moved into the limits, None for one outside them)."""
        up_fit, up_margin, down_fit, down_margin = self._within_limits(
            current, up, down, coincident
        )
        choice = choose_branch(
            branch, up_fit, up_margin, down_fit, down_margin, coincident, current,
            self.joint_kinds, only_reason,
        )  # fmt: skip
        return choice, up_fit, down_fit

    def _choose(
        self,
        branch: Branch,
        current: Joints | None,
        up: Joints | None,
        down: Joints | None,
        sin_elbow: float,
        coincident: bool,
        only_reason: str = ONLY_WITHIN_LIMITS,
    ) -> Answer:
        """Steps 4-6: the branch rule among the elbows within the limits (`_choice`; else
        JOINT_LIMIT), then SINGULAR or OK (`_answer`)."""
        choice, up_fit, down_fit = self._choice(branch, current, up, down, coincident, only_reason)
        if choice is None:
            return limit_failure(self, branch, up, down, up_fit, down_fit)
        return self._answer(choice, sin_elbow, coincident)

    def _answer(self, choice: Choice, sin_elbow: float, coincident: bool) -> Answer:
        """Step 6 for the branch rule's `choice`: SINGULAR below the singularity margin, else
        OK, with the manipulability."""
        chosen, other, reason = choice
        if self.n_joints == 2:
            manipulability = self.link_lengths[0] * self.link_lengths[1] * sin_elbow
        else:
            manipulability = three_link_manipulability(self.link_lengths, chosen)
        margin = self.singularity_margin
        if sin_elbow < margin:
            words = partial(singular_words, chosen, coincident, reason, sin_elbow, margin)
            return Answer(IkStatus.SINGULAR, chosen, words, other, manipulability)
        words = partial(solved_text, chosen, coincident, reason)
        return Answer(IkStatus.OK, chosen, words, other, manipulability)

    def _checked_current(self, current: Any) -> Joints | IkResult:
        """`current` as n finite floats (rad), or its INVALID_INPUT."""
        if isinstance(current, (str, bytes)):
            return invalid_input(f"current {current!r} must be {self.n_joints} joint angles (rad)")
        try:
            values = tuple(map(float, current))
        except (TypeError, ValueError, OverflowError):
            return invalid_input(f"current {current!r} must be {self.n_joints} joint angles (rad)")
        if len(values) != self.n_joints:
            return invalid_input(
                f"current has {len(values)} values but the arm has {self.n_joints} joints "
                f"({', '.join(self.joint_names)})"
            )
        if not all(map(math.isfinite, values)):
            return invalid_input(f"current {values!r} holds a NaN or infinite value")
        return values

    # --- many targets -----------------------------------------------------------------------

    def solve_many(
        self,
        targets: Any,
        branch: Branch | int = Branch.CLOSEST,
        current: Any = None,
        *,
        chain: bool = False,
    ) -> IkArrays:
        """`solve` for N targets at once, on numpy arrays: the same answer for each target.

        Args:
            targets: (N, 2) rows (x, y) or (N, 3) rows (x, y, heading), m and rad, base frame;
                a 3R arm without a heading column takes its heading as `solve` does.
            branch: the branch rule of every row.
            current: None; one pose (n joint angles, rad) that seeds every row; or (N, n), one
                seed per row. With `chain`, None or one pose: the first row's seed, each later
                row seeded by the previous solution (the last one found), as `solve_chain`.

        Returns:
            `IkArrays`: status, joints, the other elbow, the manipulability per row; the words
            of a row on request. A value that `solve` refuses (NaN, a bad seed, an unknown
            branch) is that row's INVALID_INPUT; a wrong shape of `targets` raises ValueError.

        What runs on arrays and what row by row: `many.py`; with an envelope, the bare
        model's answers and then its rule (`envelope/rule.py`).

        >>> arm = PlanarArm((1.0, 0.8))
        >>> answers = arm.solve_many([[1.0731, 1.2727], [1.0, 0.5], [5.0, 0.0]])
        >>> answers.status.tolist(), [round(math.degrees(q), 2) for q in answers.joints[0]]
        ([0, 0, 2], [69.73, -45.0])
        >>> answers.message(2)[:46]
        'TOO_FAR: target (5, 0) m is 5 m from the base,'
        """
        bare = self.bare
        answers = many.solve_many(bare, targets, branch, current, chain)
        if self.envelope is None:
            return answers
        rows = np.asarray(targets, dtype=float)
        return self.envelope.keep_inside_many(
            answers,
            current=current,
            chain=chain,
            bare=lambda start, stop, seed: many.solve_many(
                bare, rows[start:stop], branch, seed, True
            ),
            scalar=lambda i, seed: self.solve(*many.target_of(rows[i]), branch, seed),
        )

    def solve_chain(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        headings: Sequence[float | None] | None = None,
        branch: Branch | int = Branch.CLOSEST,
        current: Sequence[float] | None = None,
        stop_on_failure: bool = False,
    ) -> list[IkResult]:
        """Solve targets (m, base frame) in order, each seeded by the previous successful
        solution (what the batch service and the planner use).

        The first target is seeded by `current`. `headings` is None or one heading (rad, or
        None) per target. With `stop_on_failure` the list ends at the first failure
        (included). Lengths that disagree give one INVALID_INPUT result per target of the
        longest sequence.

        >>> arm = PlanarArm((1.0, 0.8))
        >>> [r.status.name for r in arm.solve_chain([1.2, 5.0, 1.0], [0.3, 0.0, 0.5])]
        ['OK', 'TOO_FAR', 'OK']
        """
        try:
            xs_list, ys_list = list(xs), list(ys)
            heading_list = [None] * len(xs_list) if headings is None else list(headings)
        except TypeError:
            return [invalid_input("xs, ys and headings must be sequences")]
        count = len(xs_list)
        if len(ys_list) != count or len(heading_list) != count:
            longest = max(count, len(ys_list), len(heading_list))
            failure = invalid_input(
                f"{count} xs, {len(ys_list)} ys and {len(heading_list)} headings "
                "must have the same length"
            )
            return [failure] * (1 if stop_on_failure else longest)
        seed = current
        if seed is not None:
            seed = self._checked_current(seed)
            if isinstance(seed, IkResult):
                return [seed] * (1 if stop_on_failure else count)
        results = []
        for x, y, heading in zip(xs_list, ys_list, heading_list, strict=True):
            result = self.answer(x, y, heading, branch, seed).result()
            results.append(result)
            if result.joints is not None:  # solved (OK or SINGULAR)
                seed = result.joints
            elif stop_on_failure:
                break
        return results
