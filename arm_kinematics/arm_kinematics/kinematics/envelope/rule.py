"""The envelope as a rule of the IK solve: a candidate that breaks it is not feasible, as one
outside the joint limits is not.

A solve's candidates are the elbows of the target (and a spatial arm's sides, each solved on
its own: `SpatialArm._attempt` applies `keep_inside` to each side before the side is chosen).
`keep_inside` takes the bare model's `Answer` (the branch rule's choice and the other elbow;
its words, and the envelope's, made only when read):

- the choice inside: the answer stands; the other elbow, when it breaks the envelope, is no
  longer offered as the alternative;
- the choice outside, the other elbow inside, and the rule free to take it (closest, max limit
  margin; not a requested elbow): the other elbow, solved as asked for at the same tool angle,
  saying why;
- else OUTSIDE_WORKSPACE with the choice's constraint and part.

A 3-joint plane's tool angle for a position-only target is chosen first by its own rule (least
motion, or pointing away from the base, within the joint limits); the envelope then decides
between the elbows at that angle.

`keep_inside_many` is the same rule over the rows of an array solve (`solve_many`), from the
bare model's array answers (unseeded, one seed per row or chained, as `many.py` of each arm
solves them): a row whose choice is inside is final (its alternative checked on
arrays); a row outside is answered by the scalar rule. In a chain (each row seeded by the
answer before) a changed row changes the seeds after it: the rows after it are solved again
from there (FIRST_CHUNK rows, then twice as many each time while they stay inside: a chain's
rows are solved one after the other, so the rows past the next one outside are never solved
far ahead; the bare chain of those rows runs on arrays, `planar/chain_rows.py`), or, after a
run of rows outside, by the scalar rule for twice as many rows each time (so a path that keeps
leaving costs about N, not N^2, rows solved). Radians.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ..planar.chain_rows import forward_seeds, seed_after
from ..planar.rows import Seeds
from ..types import Answer, Branch, IkArrays, IkResult, IkStatus, refusal

if TYPE_CHECKING:
    from .envelope import Envelope, Violations

REQUESTED_ELBOWS = (Branch.ELBOW_UP, Branch.ELBOW_DOWN)
FIRST_CHUNK = 8
"""Rows of a chain's bare solve taken at once after a row outside (then twice as many)."""
Seed = tuple[float, ...] | None


def keep_inside(
    envelope: Envelope, answer: Answer, branch: Branch, other: Callable[[], Answer]
) -> Answer:
    """The module docstring's rule on one answer of the bare model (`answer`, asked with
    `branch`); `other()` solves the target again with the other elbow asked for. Answers, their
    words (and the envelope's) made when read.

    >>> import math
    >>> from arm_kinematics.kinematics import Envelope, PlanarArm
    >>> arm = PlanarArm((1.0, 0.8))
    >>> box = Envelope(arm, link_radius=0.01, keep_out_boxes=[(0.9, 0.8, -0.1, 1.1, 1.0, 0.1)])
    >>> down = arm.answer(1.0731, 1.2727, None, Branch.ELBOW_DOWN, None)  # its elbow in the box
    >>> inside = keep_inside(box, down, Branch.CLOSEST,
    ...                      lambda: arm.answer(1.0731, 1.2727, None, Branch.ELBOW_UP, None))
    >>> [round(math.degrees(q), 2) for q in inside.joints], inside.alternative
    ([69.73, -45.0], None)
    >>> keep_inside(box, down, Branch.ELBOW_DOWN, lambda: None).result().message[:62]
    'OUTSIDE_WORKSPACE: the forearm (link 2) would be 88.9 mm insid'
    """
    if not answer.ok:
        return answer
    if envelope.clears(answer.joints) and (
        answer.alternative is None or envelope.clears(answer.alternative)
    ):
        return answer  # the common case: far from every constraint (the cheap bound)
    poses = [answer.joints] if answer.alternative is None else [answer.joints, answer.alternative]
    checked = envelope.check_many(poses)
    if checked.ok[0]:
        return answer if checked.ok.all() else replace(answer, alternative=None)
    outside = refusal(IkStatus.OUTSIDE_WORKSPACE, _outside_text, checked)
    if len(poses) == 1 or not checked.ok[1] or branch in REQUESTED_ELBOWS:
        return outside
    swapped = other()
    if not swapped.ok or not envelope.inside(swapped.joints):
        return outside
    return replace(swapped, alternative=None, words=partial(_swapped_text, swapped, checked))


def _outside_text(checked: Violations) -> str:
    """The OUTSIDE_WORKSPACE message of the first pose `checked`."""
    violation = checked.at(0)
    assert violation is not None
    return violation.message


def _swapped_text(swapped: Answer, checked: Violations) -> str:
    """The other elbow's words, and why the chosen one (the first pose `checked`) was not."""
    reason = _outside_text(checked).removeprefix(f"{IkStatus.OUTSIDE_WORKSPACE.name}: ")
    return f"{swapped.words()}; the other elbow is outside the workspace envelope: {reason}"


class _Rows:
    """The answers being made: every row's arrays, and the seed each row was solved with."""

    def __init__(self, answers: IkArrays) -> None:
        self.status = answers.status.copy()
        self.joints = answers.joints.copy()
        self.alternative = answers.alternative.copy()
        self.has_alternative = answers.has_alternative.copy()
        self.manipulability = answers.manipulability.copy()
        self.seeds: list[Seed] = [None] * len(answers)

    def take(self, part: IkArrays, start: int, stop: int, seed: Seed, envelope: Envelope) -> Seed:
        """Rows start..stop - 1 from `part` (the bare answers of rows start.. in a chain from
        `seed`), their alternatives checked; the seed after them."""
        rows = slice(start, stop)
        count = stop - start
        self.status[rows] = part.status[:count]
        self.joints[rows] = part.joints[:count]
        self.manipulability[rows] = part.manipulability[:count]
        self.alternative[rows] = part.alternative[:count]
        self.has_alternative[rows] = part.has_alternative[:count]
        self._check_alternatives(np.arange(start, stop), envelope)
        values, given = forward_seeds(self.status[rows], self.joints[rows], seed)
        self.seeds[rows] = [
            tuple(row) if seeded else None
            for row, seeded in zip(values.tolist(), given.tolist(), strict=True)
        ]
        return seed_after(self.status[rows], self.joints[rows], seed)

    def _check_alternatives(self, rows: np.ndarray, envelope: Envelope) -> None:
        """The alternatives of `rows` that break the envelope are no longer offered."""
        offered = rows[self.has_alternative[rows]]
        if offered.size:
            outside = offered[~envelope.check_many(self.alternative[offered]).ok]
            self.has_alternative[outside] = False
            self.alternative[outside] = self.joints[outside]

    def put(self, index: int, result: IkResult, seed: Seed) -> Seed:
        """Row `index` as the scalar rule answered it from `seed`; the seed after it."""
        self.seeds[index] = seed
        self.status[index] = int(result.status)
        if not result.ok:
            self.joints[index] = 0.0 if seed is None else seed
            self.manipulability[index] = 0.0
            self.alternative[index], self.has_alternative[index] = self.joints[index], False
            return seed
        self.joints[index] = result.joints
        self.manipulability[index] = result.manipulability
        other = result.alternative
        self.has_alternative[index] = other is not None
        self.alternative[index] = self.joints[index] if other is None else other
        return tuple(result.joints)

    def arrays(self, scalar: Callable[[int, Any], IkResult]) -> IkArrays:
        return IkArrays(
            self.status, self.joints, self.alternative, self.has_alternative,
            self.manipulability, lambda i: scalar(i, self.seeds[i]),
        )  # fmt: skip


def keep_inside_many(
    envelope: Envelope,
    answers: IkArrays,
    *,
    current: Any,
    chain: bool,
    bare: Callable[[int, int, Seed], IkArrays],
    scalar: Callable[[int, Any], IkResult],
) -> IkArrays:
    """The module docstring's rule over an array solve: `answers` the bare model's (seeded as
    `current` says, as a `chain` or not), `bare(start, stop, seed)` the bare chain of rows
    start..stop - 1 from `seed`, `scalar(index, seed)` the scalar solve (with the rule) of a
    row."""
    count, n = answers.joints.shape
    seeds = Seeds.of(current, count, n, chain)
    made = _Rows(answers)
    if not chain or seeds.bad.any():
        made.take(answers, 0, count, None, envelope)
        for index in range(count):
            made.seeds[index] = seeds.row(index, current)
        for index in _outside(answers, envelope).tolist():
            made.put(index, scalar(index, made.seeds[index]), made.seeds[index])
        return made.arrays(scalar)
    start, seed, part, run, chunk = 0, seeds.row(0, current) if count else None, answers, 1, 0
    while start < count:
        if part is None:  # the bare chain again from `start`, `chunk` rows at a time
            part = bare(start, min(count, start + chunk), seed)
        outside = _outside(part, envelope)
        stop = start + (len(part) if not outside.size else int(outside[0]))
        seed = made.take(part, start, stop, seed, envelope)
        if not outside.size:  # all inside: the next rows, twice as many
            start, part, chunk = stop, None, 2 * chunk
            continue
        end = min(count, stop + run)  # from the first row outside, `run` rows by the rule
        for index in range(stop, end):
            seed = made.put(index, scalar(index, seed), seed)
        run = run * 2 if stop == start else 1
        start, part, chunk = end, None, FIRST_CHUNK
    return made.arrays(scalar)


def _outside(answers: IkArrays, envelope: Envelope) -> np.ndarray:
    """The rows whose answer is a solution that breaks the envelope."""
    solved = np.flatnonzero(answers.ok)
    return solved[~envelope.check_many(answers.joints[solved]).ok]
