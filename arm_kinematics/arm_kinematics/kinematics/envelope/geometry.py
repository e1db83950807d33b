"""How far a straight segment is from an axis-aligned box, on whole arrays (numpy only).

The envelope's parts of the arm are capsules (a segment and a radius) and its obstacles are
boxes: a keep-out box, and the base column as the degenerate box of its axis (x = y = 0,
z up to its top) with the column's radius added. A capsule meets an obstacle when its
segment comes nearer than the two radii; so the one question is the least distance from a
segment to a box, and, when the segment enters the box, how deep.

Both are exact, without sampling:

- Outside (`segment_box_distance`): along the segment p(t) = a + t (b - a), t in [0, 1], the
  squared distance to the box is a sum over the axes of (the coordinate's excess beyond the
  box's side)^2: a convex piecewise quadratic in t, whose pieces change where a coordinate
  crosses a side (at most six knots). On each piece it is one quadratic; its least value is at
  the vertex clipped into the piece; the least of those seven is the minimum.
- Inside (`segment_box_depth`): a point's depth inside the box is its distance to the nearest
  face, the least of six linear functions of t; the most of a least of lines lies at t = 0,
  t = 1 or where two lines cross (15 pairs).

Shapes: `a`, `b` (..., 3) and `lo`, `hi` (..., 3) broadcast against each other; the results
have the broadcast shape without the last axis. Metres. A side may be -inf (the column has
no bottom) in `segment_box_distance`.
"""

from __future__ import annotations

import itertools

import numpy as np

_PAIRS = np.array(list(itertools.combinations(range(6), 2)))  # the 15 pairs of box faces


def _with_ends(crossings: np.ndarray) -> np.ndarray:
    """The segment parameters to try: 0, 1 and the `crossings` (..., k) within [0, 1] (one
    outside is clipped to its end; one that does not exist, nan or inf, is 0)."""
    inside = np.where(np.isfinite(crossings), np.clip(crossings, 0.0, 1.0), 0.0)
    ends = np.zeros((*crossings.shape[:-1], 2))
    ends[..., 1] = 1.0
    return np.concatenate((ends, inside), axis=-1)


def _pick(values: np.ndarray, t: np.ndarray, best: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`values` and `t` (..., k) at the index `best` (...) of their last axis."""
    index = best[..., None]
    return (
        np.take_along_axis(values, index, axis=-1)[..., 0],
        np.take_along_axis(t, index, axis=-1)[..., 0],
    )


def point_box_distance(p: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The distance (m) from points `p` (..., 3) to the box [lo, hi] (0 inside it).

    >>> point_box_distance(np.array([3.0, 0.5, 4.0]), np.zeros(3), np.ones(3)).item()
    3.605551275463989
    """
    excess = np.maximum(np.maximum(lo - p, p - hi), 0.0)
    return np.sqrt(np.sum(excess * excess, axis=-1))


def segment_box_distance(
    a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The least distance (m) from the segments a-b to the boxes [lo, hi] (0 where they meet),
    and the segment parameter t in [0, 1] of a nearest point (a + t (b - a)).

    A segment from (-1, 0.5, 2) to (2, 0.5, 2) passes 1 m above the unit cube:

    >>> distance, t = segment_box_distance(
    ...     np.array([-1.0, 0.5, 2.0]), np.array([2.0, 0.5, 2.0]), np.zeros(3), np.ones(3))
    >>> distance.item(), 0.0 <= t.item() <= 1.0
    (1.0, True)
    """
    a, b, lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, lo, hi)))
    d = b - a
    with np.errstate(divide="ignore", invalid="ignore"):
        crossings = np.concatenate(((lo - a) / d, (hi - a) / d), axis=-1)
    knots = np.sort(_with_ends(crossings), axis=-1)  # (..., 8)
    start, stop = knots[..., :-1], knots[..., 1:]  # the 7 pieces
    a7, d7, lo7, hi7 = (v[..., None, :] for v in (a, d, lo, hi))
    middle = (start + stop) / 2
    p_middle = a7 + middle[..., None] * d7
    below, above = p_middle < lo7, p_middle > hi7
    side = np.where(below, lo7, np.where(above, hi7, 0.0))
    active = below | above  # the axes whose excess is not 0 on the piece
    offset = np.where(active, a7 - side, 0.0)
    slope = np.where(active, d7, 0.0)
    curvature = np.sum(slope * slope, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = -np.sum(offset * slope, axis=-1) / curvature
    t = np.clip(np.where(curvature > 0.0, vertex, middle), start, stop)
    distance = point_box_distance(a7 + t[..., None] * d7, lo7, hi7)
    # A piece inside the box is at distance 0 (its ends may round to just outside a face).
    distance = np.where(np.any(active, axis=-1), distance, 0.0)
    return _pick(distance, t, np.argmin(distance, axis=-1))


def segment_box_depth(
    a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """How deep (m) the segments a-b reach into the boxes [lo, hi] (finite sides): the most,
    over the segment, of a point's distance to the box's nearest face (negative where the
    whole segment is outside; then not a distance), and the t in [0, 1] where it is reached.

    A segment through the unit cube's centre reaches 0.5 m deep, at its middle:

    >>> depth, t = segment_box_depth(
    ...     np.array([-1.0, 0.5, 0.5]), np.array([2.0, 0.5, 0.5]), np.zeros(3), np.ones(3))
    >>> depth.item(), round(t.item(), 9)
    (0.5, 0.5)
    """
    a, b, lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, lo, hi)))
    d = b - a
    # The distance to each face is a line in t: offset + slope * t.
    offset = np.concatenate((a - lo, hi - a), axis=-1)  # (..., 6)
    slope = np.concatenate((d, -d), axis=-1)
    i, j = _PAIRS[:, 0], _PAIRS[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        crossings = (offset[..., j] - offset[..., i]) / (slope[..., i] - slope[..., j])
    t = _with_ends(crossings)  # (..., 17)
    depth = np.min(offset[..., None, :] + slope[..., None, :] * t[..., None], axis=-1)
    return _pick(depth, t, np.argmax(depth, axis=-1))


def segment_box_signed_distance(
    a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The least signed distance (m) from the segments a-b to the boxes [lo, hi] (finite
    sides): the distance where the segment stays outside, minus the depth where it enters;
    and the t in [0, 1] of that nearest (or deepest) point.

    >>> signed, t = segment_box_signed_distance(
    ...     np.array([[0.5, 0.5, 0.9], [0.5, 0.5, 1.5]]), np.array([0.5, 0.5, 3.0]),
    ...     np.zeros(3), np.ones(3))
    >>> signed.round(9).tolist(), t.round(9).tolist()
    ([-0.1, 0.5], [0.0, 0.0])
    """
    distance, t_out = segment_box_distance(a, b, lo, hi)
    depth, t_in = segment_box_depth(a, b, lo, hi)
    inside = distance <= 0.0
    return np.where(inside, -depth, distance), np.where(inside, t_in, t_out)
