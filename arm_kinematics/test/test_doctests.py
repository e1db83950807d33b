"""Every worked example in the package's docstrings, run as a test.

Here rather than as pytest's `--doctest-modules` on the command line, so that `colcon test`
(which runs pytest on this folder with setup.cfg's options) runs them exactly as `make test`
does, and a new module's examples are found without editing a list.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import arm_kinematics


def modules_with_examples() -> list[str]:
    """The package's modules whose source holds a `>>>` example."""
    names = []
    for info in pkgutil.walk_packages(arm_kinematics.__path__, "arm_kinematics."):
        spec = importlib.util.find_spec(info.name)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        with open(spec.origin, encoding="utf-8") as source:
            if ">>>" in source.read():
                names.append(info.name)
    return names


MODULES = modules_with_examples()


def test_the_examples_are_found_in_every_layer():
    layers = {name.split(".")[1] for name in MODULES}
    assert {"kinematics", "nodes", "bridge", "hardware", "config"} <= layers
    assert len(MODULES) >= 30


@pytest.mark.parametrize("name", MODULES)
def test_the_worked_examples_of(name: str):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has '>>>' in its source but no example doctest runs"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
