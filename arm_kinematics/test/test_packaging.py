"""package.xml declares what the code imports, with rosdep keys, and a LICENSE matches it.

A ROS workspace installs a package's dependencies from package.xml alone (`rosdep install`), so a
module imported by the code but missing there works here (everything is in .venv) and fails there.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from catkin_pkg.package import parse_package

PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = PACKAGE_DIR.parent

#: Python module -> the rosdep key that provides it, for modules whose key is not their own name.
ROSDEP_KEYS = {
    "numpy": "python3-numpy",
    "yaml": "python3-yaml",
    "ruamel": "python3-ruamel.yaml",
    "transforms3d": "python3-transforms3d",
    "pytest": "python3-pytest",
    "hypothesis": "python3-hypothesis",
    "scipy": "python3-scipy",
    "toppra": "python3-toppra-pip",
    "catkin_pkg": "python3-catkin-pkg",
    "adafruit_servokit": "python3-adafruit-servokit-pip",
    "aiohttp": "python3-aiohttp",
    "psutil": "python3-psutil",
}
#: Modules with no rosdep key at all: installed with pip, as docs/install.md says (ruckig:
#: rosdistro's ruckig package is the C++ library, without the Python module).
PIP_ONLY = {"adafruit_extended_bus", "playwright", "roslibpy", "ruckig"}
#: Modules of this package and of the test folder itself.
OWN = {"arm_kinematics", "arm_kinematics_interfaces"}


def imported_modules(folder: Path) -> set[str]:
    """Top-level names of every absolute import in the .py files below `folder`."""
    names: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    test_modules = {p.stem for p in (PACKAGE_DIR / "test").glob("*.py")}
    return names - set(sys.stdlib_module_names) - OWN - test_modules


def declared(kinds: tuple[str, ...], environment: dict[str, str]) -> set[str]:
    package = parse_package(str(PACKAGE_DIR / "package.xml"))
    package.evaluate_conditions(environment)
    return {
        dependency.name
        for kind in kinds
        for dependency in getattr(package, kind)
        if dependency.evaluated_condition
    }


RUN_KINDS = ("build_depends", "exec_depends", "build_export_depends")
WANTING_SERVOKIT = {"ARM_KINEMATICS_SERVOKIT": "true"}


@pytest.mark.parametrize(
    "folder", [PACKAGE_DIR / "arm_kinematics", PACKAGE_DIR / "launch"], ids=lambda p: p.name
)
def test_every_module_the_code_imports_is_a_run_dependency(folder: Path) -> None:
    keys = declared(RUN_KINDS, WANTING_SERVOKIT)
    missing = {
        module
        for module in imported_modules(folder) - PIP_ONLY
        if ROSDEP_KEYS.get(module, module) not in keys
    }
    assert not missing, f"imported but not declared in package.xml: {sorted(missing)}"


def test_every_module_the_tests_import_is_declared() -> None:
    keys = declared((*RUN_KINDS, "test_depends"), WANTING_SERVOKIT)
    missing = {
        module
        for module in imported_modules(PACKAGE_DIR / "test") - PIP_ONLY
        if ROSDEP_KEYS.get(module, module) not in keys
    }
    assert not missing, f"imported by tests but not declared in package.xml: {sorted(missing)}"


def test_the_servokit_pip_key_is_asked_for_only_when_wanted() -> None:
    # A pip key breaks `rosdep install` where pip is externally managed (PEP 668): the
    # simulated default must install without it.
    key = ROSDEP_KEYS["adafruit_servokit"]
    assert key not in declared(RUN_KINDS, {})
    assert key in declared(RUN_KINDS, WANTING_SERVOKIT)


@pytest.mark.parametrize("package_dir", ["arm_kinematics", "arm_kinematics_interfaces"])
def test_a_license_file_matches_the_license_in_package_xml(package_dir: str) -> None:
    package = parse_package(str(REPO_DIR / package_dir / "package.xml"))
    assert [str(license_) for license_ in package.licenses] == ["Apache-2.0"]
    for path in (REPO_DIR / "LICENSE", REPO_DIR / package_dir / "LICENSE"):
        text = path.read_text()
        assert "Apache License" in text, path
        assert "Version 2.0, January 2004" in text, path


def test_setup_py_installs_the_license() -> None:
    assert "LICENSE" in (PACKAGE_DIR / "setup.py").read_text()


def test_no_test_file_imports_another_test_file() -> None:
    """Shared pieces live in helper modules (docs/testing.md), so that each test file can be
    run, changed or deleted on its own."""
    imports = []
    for path in sorted((PACKAGE_DIR / "test").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            imports += [f"{path.name}: {name}" for name in names if name.startswith("test_")]
    assert imports == []
