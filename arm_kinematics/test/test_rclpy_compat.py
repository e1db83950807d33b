"""rclpy_compat: the version check that says when a workaround is no longer needed."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

import arm_kinematics.rclpy_compat as compat

FIXED_IN = {7: (7, 1, 6), 9: (9, 1, 2)}


def check(version):
    return compat.warn_if_fixed("a workaround", "ros2/rclpy#1308", FIXED_IN, version=version)


def test_a_version_before_the_fix_needs_the_workaround_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check((7, 1, 5)) is None
        assert check((9, 1, 1)) is None
        assert compat.warn_if_fixed("w", "fix", {7: None}, version=(7, 1, 9)) is None


@pytest.mark.parametrize("version", [(7, 1, 6), (7, 2, 0), (9, 1, 2)])
def test_a_version_with_the_fix_warns_that_the_workaround_can_go(version):
    with pytest.warns(RuntimeWarning, match="a workaround is no longer needed: rclpy"):
        text = check(version)
    assert "ros2/rclpy#1308" in text


def test_a_major_version_never_checked_warns_to_check_it():
    with pytest.warns(
        RuntimeWarning, match=r"written for rclpy 7\.x, 9\.x; rclpy 10\.0\.1 was not"
    ):
        check((10, 0, 1))


def test_the_running_version_is_rclpys_own_package_xml(monkeypatch):
    from ament_index_python.packages import get_package_share_directory

    xml = (Path(get_package_share_directory("rclpy")) / "package.xml").read_text()
    expected = tuple(int(v) for v in re.search(r"<version>(\d+)\.(\d+)\.(\d+)", xml).groups())
    assert compat.rclpy_version() == expected
    # Without the ament index, the distribution's metadata; without either, None (no warning).
    monkeypatch.setattr(compat, "_package_xml_version", lambda: None)
    monkeypatch.setattr(compat.importlib.metadata, "version", lambda _name: "7.1.6")
    assert compat.rclpy_version() == (7, 1, 6)

    def missing(name):
        raise compat.importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(compat.importlib.metadata, "version", missing)
    assert compat.rclpy_version() is None
    assert check(None) is None


def test_the_installed_rclpy_still_needs_both_workarounds():
    version = compat.rclpy_version()
    assert version is not None
    assert version < (7, 1, 6)  # the rclpy inside these wheels (ros-rclpy 7.1.6 holds 7.1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("executor", "action_client"):
            module = importlib.import_module(f"arm_kinematics.rclpy_compat.{name}")
            assert compat.warn_if_fixed(name, "its fix", module.FIXED_IN) is None
