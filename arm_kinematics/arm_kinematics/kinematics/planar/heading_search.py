"""The search for a 3R tool heading when none is requested: sample, then golden-section refine.

Headings in radians. The caller supplies the cost of a heading (`evaluate`), inf where the
heading has no feasible solution; this module knows nothing about arms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ..angles import TAU

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


def narrow_windows(
    intervals: Sequence[tuple[float, float]], margin: Callable[[float], float]
) -> list[tuple[float, float]]:
    """Heading windows (rad) where `margin(h)` (>= 0 where h is feasible, below 0 by how far
    it is not) reaches 0, for when no sample of `search_heading` was feasible.

    Joint limits can leave feasible headings only in a window narrower than the samples'
    spacing (2 degrees of a full turn on `arm_3r.yaml`, against 7.5 degrees between samples).
    The margin is sampled as `search_heading` samples; around each local maximum a
    golden-section search climbs to the peak, and a peak at or above 0 gives the window of one
    sample spacing about it, for `search_heading` to sample again.

    >>> windows = narrow_windows([(0.0, 6.0)], lambda h: 0.01 - abs(h - 2.0))  # 0.02 rad wide
    >>> [(round(a, 3), round(b, 3)) for a, b in windows]
    [(1.936, 2.064)]
    """
    windows = []
    for lo, hi in intervals:
        samples = np.linspace(lo, hi, HEADING_SAMPLES).tolist()
        values = [margin(h) for h in samples]
        step = (hi - lo) / (HEADING_SAMPLES - 1)
        for i, value in enumerate(values):
            left = values[i - 1] if i > 0 else -math.inf
            right = values[i + 1] if i + 1 < len(values) else -math.inf
            if value < left or value < right:
                continue  # not a local maximum
            a, b = max(lo, samples[i] - step), min(hi, samples[i] + step)
            peak, height = _golden_section_max(margin, a, b)
            if height >= 0.0:
                windows.append((max(lo, peak - step / 2.0), min(hi, peak + step / 2.0)))
    return windows


def _golden_section_max(f: Callable[[float], float], a: float, b: float) -> tuple[float, float]:
    """(h, f(h)) at the largest value of f on [a, b] (f single-peaked there), to 1e-10 rad."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(60):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
        if b - a < 1e-10:
            break
    return (c, fc) if fc > fd else (d, fd)
