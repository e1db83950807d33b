"""Test dependencies that only pip has (no rosdep key): skipped where absent, never under make test.

In a rosdep-only ROS workspace (`colcon test`) a library such as Adafruit's ServoKit or
Playwright may be missing: the tests that need it say so with a skip. `make test` sets
ARM_KINEMATICS_REQUIRE_PIP_ONLY=1, and then a missing library is an import error, so that no
skip can hide a failure there.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

SERVO_LIBRARIES = ("adafruit_servokit", "adafruit_extended_bus")


def require(name: str) -> ModuleType:
    """Import `name`, or skip the calling test (or module, at import time) where it is absent."""
    if os.environ.get("ARM_KINEMATICS_REQUIRE_PIP_ONLY") == "1":
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"{name} (pip only) is not installed")


def require_servo_libraries() -> None:
    """Skip the calling test where the pip-only servo libraries are not installed."""
    for name in SERVO_LIBRARIES:
        require(name)
