"""Shared test set-up.

Every test run gets its own ROS_DOMAIN_ID (and localhost-only discovery) before rclpy is
imported anywhere, so parallel runs and a demo left running never answer each other's calls.
The helper modules (every .py file here that is not a test file, docs/testing.md) get pytest's
assertion rewriting, as test files do, so that a failed `assert` in them shows its values.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

pytest.register_assert_rewrite(
    *sorted(
        path.stem
        for path in Path(__file__).parent.glob("*.py")
        if not path.stem.startswith(("test_", "conftest"))
    )
)

if "ARM_KINEMATICS_TEST_DOMAIN" not in os.environ:
    # Domains 1..100 are valid for Fast DDS's default ports; 0 is what a demo uses.
    os.environ["ARM_KINEMATICS_TEST_DOMAIN"] = str(random.SystemRandom().randint(1, 100))
os.environ["ROS_DOMAIN_ID"] = os.environ["ARM_KINEMATICS_TEST_DOMAIN"]
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
