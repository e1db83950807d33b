"""A joint path checked against the envelope at every point and between them.

Between two points the arm moves on the straight line in joint space (the hardware node's
ramps, the JOINT planner and the samples of a timed trajectory all do). The line is cut into
sub-steps so that no point of the arm travels more than `resolution` (default
PATH_RESOLUTION_M = 2 mm) between two checks: a point turning about joint j moves at most
`motion_radii[j]` metres per radian of it (`ArmParts`), so a sub-step moving the joints by dq
moves no point more than sum_j |dq_j| motion_radii[j]. A part can thus cross into a
constraint between two checks by at most half the resolution (1 mm by default) unseen.

`Envelope.check_path` checks every sub-step's pose in one `check_many` call; the first one
outside is the answer, with the path point before it and how far along the way.
"""

from __future__ import annotations

import numpy as np

PATH_RESOLUTION_M = 0.002
"""m: the most any point of the arm travels between two checks of a path."""


def path_samples(
    path: np.ndarray, motion_radii: np.ndarray, resolution: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The poses at which a joint path (M, n) rad is checked: every point and, between two,
    as many evenly spaced sub-steps as keep every point of the arm within `resolution` (m)
    of the last check; returns the poses (K, n), and for each the path point before it and
    the fraction of the way to the next (0 at a path point).

    One joint of a 1 m arm turning 0.01 rad at a 4 mm resolution: 3 sub-steps.

    >>> poses, index, fraction = path_samples(
    ...     np.array([[0.0], [0.01]]), np.array([1.0]), 0.004)
    >>> poses.round(6).ravel().tolist(), index.tolist(), fraction.round(3).tolist()
    ([0.0, 0.003333, 0.006667, 0.01], [0, 0, 0, 1], [0.0, 0.333, 0.667, 0.0])
    """
    steps = np.diff(path, axis=0)  # (M - 1, n)
    travel = np.abs(steps) @ motion_radii
    counts = np.maximum(np.ceil(travel / resolution), 1).astype(int)
    segment = np.repeat(np.arange(len(steps)), counts)
    first = np.cumsum(counts) - counts
    fraction = (np.arange(len(segment)) - np.repeat(first, counts) + 1) / counts[segment]
    poses = path[segment] + fraction[:, None] * steps[segment]
    at_point = fraction >= 1.0  # the sub-step that ends a segment is the next path point
    poses[at_point] = path[segment[at_point] + 1]
    index = np.where(at_point, segment + 1, segment)
    fraction = np.where(at_point, 0.0, fraction)
    return (
        np.concatenate((path[:1], poses)),
        np.concatenate(([0], index)),
        np.concatenate(([0.0], fraction)),
    )
