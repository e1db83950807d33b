"""The envelope's exact segment-to-box distances against brute-force sampling of the segment."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arm_kinematics.kinematics.envelope.geometry import (
    point_box_distance,
    segment_box_distance,
    segment_box_signed_distance,
)

SAMPLES = 20001  # points along each segment for the brute force
coordinate = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
point = st.tuples(coordinate, coordinate, coordinate).map(np.array)
size = st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False)
sizes = st.tuples(size, size, size).map(np.array)


def sampled(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """SAMPLES points evenly along a-b, (SAMPLES, 3)."""
    t = np.linspace(0.0, 1.0, SAMPLES)[:, None]
    return a + t * (b - a)


def signed_point_box(p: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The signed distance of points to a box, written independently: outside the Euclidean
    distance, inside minus the distance to the nearest face."""
    outside = point_box_distance(p, lo, hi)
    inside = np.min(np.concatenate((p - lo, hi - p), axis=-1), axis=-1)
    return np.where(outside > 0.0, outside, -inside)


def sampling_error(a: np.ndarray, b: np.ndarray) -> float:
    """How much the sampled minimum may exceed the true one: the distance is 1-Lipschitz
    along the segment, and every point lies within half a sample spacing of a sample."""
    return float(np.linalg.norm(b - a)) / (2 * (SAMPLES - 1)) + 1e-12


@settings(max_examples=300, deadline=None)
@given(a=point, b=point, lo=point, extent=sizes)
def test_signed_distance_equals_the_sampled_minimum(a, b, lo, extent) -> None:
    hi = lo + extent
    signed, t = segment_box_signed_distance(a, b, lo, hi)
    brute = signed_point_box(sampled(a, b), lo, hi)
    # Never above the sampled minimum (it is a minimum) and below it by the sampling error.
    assert float(signed) <= brute.min() + 1e-12
    assert brute.min() - float(signed) <= sampling_error(a, b)
    # And t says where: the signed distance of that point is the answer.
    assert 0.0 <= float(t) <= 1.0
    at_t = signed_point_box(a + float(t) * (b - a), lo, hi)
    assert abs(float(at_t) - float(signed)) <= 1e-12


@settings(max_examples=300, deadline=None)
@given(a=point, b=point, top=coordinate)
def test_distance_to_the_column_axis_equals_the_sampled_minimum(a, b, top) -> None:
    """The base column is the degenerate box of its axis, x = y = 0 and z up to its top,
    with no bottom: its distance is that of a point to a ray, sampled here."""
    lo, hi = np.array([0.0, 0.0, -np.inf]), np.array([0.0, 0.0, top])
    distance, _ = segment_box_distance(a, b, lo, hi)
    points = sampled(a, b)
    above = np.maximum(points[:, 2] - top, 0.0)
    brute = np.sqrt(points[:, 0] ** 2 + points[:, 1] ** 2 + above**2)
    assert float(distance) <= brute.min() + 1e-12
    assert brute.min() - float(distance) <= sampling_error(a, b)


def test_the_cases_sampling_finds_hard() -> None:
    lo, hi = np.zeros(3), np.ones(3)
    # Parallel to a face, 0.25 m above it: the distance is the same along the whole segment.
    assert segment_box_distance([-1, 0.5, 1.25], [2, 0.5, 1.25], lo, hi)[0] == 0.25
    # Beside a face, along it: 0.5 m away wherever y is within the box (t in [0.25, 0.5]).
    distance, t = segment_box_distance([1.5, -1.0, 0.5], [1.5, 3.0, 0.5], lo, hi)
    assert float(distance) == 0.5
    assert 0.25 <= float(t) <= 0.5
    # Through a corner exactly: touching is distance 0.
    assert segment_box_distance([2.0, 0.0, 1.0], [0.0, 2.0, 1.0], lo, hi)[0] == 0.0
    # A point (a == b) is a segment too.
    assert segment_box_distance([2.0, 0.5, 0.5], [2.0, 0.5, 0.5], lo, hi)[0] == 1.0
    # Along the box's axis, through it: 0.5 m deep at the middle.
    signed, t = segment_box_signed_distance([0.5, 0.5, -3.0], [0.5, 0.5, 4.0], lo, hi)
    assert (float(signed), float(t)) == (-0.5, 0.5)


def test_whole_arrays_broadcast() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-1, 1, (50, 4, 3)), rng.uniform(-1, 1, (50, 4, 3))
    lo = rng.uniform(-1, 0, (4, 3))
    hi = lo + 0.5
    signed, t = segment_box_signed_distance(a, b, lo, hi)
    assert signed.shape == t.shape == (50, 4)
    one_by_one = [
        float(segment_box_signed_distance(a[i, j], b[i, j], lo[j], hi[j])[0])
        for i in range(50)
        for j in range(4)
    ]
    assert signed.ravel().tolist() == one_by_one
