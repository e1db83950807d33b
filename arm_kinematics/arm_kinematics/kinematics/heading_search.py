"""The search for a 3R tool heading when none is requested: sample, then golden-section refine.

Headings in radians. The caller supplies the cost of a heading (`evaluate`), inf where the
heading has no feasible solution; this module knows nothing about arms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from .angles import TAU

HEADING_SAMPLES = 48
"""Samples per reachable heading interval before the refinement."""

Result = TypeVar("Result")


def search_heading(
    intervals: Sequence[tuple[float, float]],
    evaluate: Callable[[float], tuple[float, Result | None]],
    held_heading: float | None = None,
) -> tuple[Result, float] | None:
    """The least-cost heading over `intervals` (increasing rad pairs) and its result.

    `evaluate(h)` returns `(cost, result)`, or `(inf, None)` where h has no solution. Each
    interval is sampled at HEADING_SAMPLES evenly spaced headings (plus `held_heading`, shifted
    by k * 2 pi into the interval, when given: it makes sure a current pose that is itself a
    solution is found); then a golden-section search refines around the best sample (the cost
    is smooth there). None when no sample has a solution.

    >>> result, h = search_heading([(0.0, 2.0)], lambda h: ((h - 1.234) ** 2, "found"))
    >>> result, round(h, 6)
    ('found', 1.234)
    """
    best: tuple[float, Result, float, float, float] | None = None
    for lo, hi in intervals:
        samples = np.linspace(lo, hi, HEADING_SAMPLES).tolist()
        if held_heading is not None:
            held = held_heading + round(((lo + hi) / 2.0 - held_heading) / TAU) * TAU
            if lo <= held <= hi:
                samples.append(held)
        step = (hi - lo) / (HEADING_SAMPLES - 1)
        for h in samples:
            value, result = evaluate(h)
            if result is not None and (best is None or value < best[0]):
                best = (value, result, h, max(lo, h - step), min(hi, h + step))
    if best is None:
        return None
    value, result, h, a, b = best
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, rc = evaluate(c)
    fd, rd = evaluate(d)
    for _ in range(40):
        if fc < fd:
            b, d, fd, rd = d, c, fc, rc
            c = b - ratio * (b - a)
            fc, rc = evaluate(c)
        else:
            a, c, fc, rc = c, d, fd, rd
            d = a + ratio * (b - a)
            fd, rd = evaluate(d)
        if b - a < 1e-10:
            break
    for f, r, hh in ((fc, rc, c), (fd, rd, d)):
        if r is not None and f < value:
            value, result, h = f, r, hh
    return result, h
