"""What the tests of the hardware's plain parts (no ROS: the driver, the intake, calibration
mode) share: `Log`, a log that keeps its lines, and `differences`, the velocities and
accelerations of (time, position) samples, checked against limits within `SLACK`.

Used by test_gripper_motion.py, test_hardware_parts.py and test_gripper_smooth.py (which takes
its samples from joint_states).
"""

from __future__ import annotations

import itertools

SLACK = 1e-9  # relative: float rounding of the finite differences


class Log:
    """The lines a plain part logs (any level), for the driver's `log`."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, message: str, **_kwargs) -> None:
        self.lines.append(message)

    warning = error = info


def differences(samples: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    """Velocities between neighbouring samples and accelerations over each three (the second
    divided difference, exact for samples of a motion with bounded acceleration)."""
    times = [t for t, _ in samples]
    velocities = [(p1 - p0) / (t1 - t0) for (t0, p0), (t1, p1) in itertools.pairwise(samples)]
    accelerations = [
        2.0 * (v1 - v0) / (times[i + 2] - times[i])
        for i, (v0, v1) in enumerate(itertools.pairwise(velocities))
    ]
    return velocities, accelerations
