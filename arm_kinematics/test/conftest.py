"""Shared test set-up.

Every test run gets its own ROS_DOMAIN_ID (and localhost-only discovery) before rclpy is
imported anywhere, one that no other run on the machine holds (a lock file per domain), so
parallel runs and a demo left running never answer each other's calls;
every module and every test its own XDG_STATE_HOME (where the hardware node remembers its
pose), so no test starts where another one, or the user's arm, stopped.
The helper modules (every .py file here that is not a test file, docs/testing.md) get pytest's
assertion rewriting, as test files do, so that a failed `assert` in them shows its values.

Fixtures for every test module (a module's own fixture of the same name takes precedence):
- `graph`: an empty `RosGraph` (ros_helpers.py) for the module; add nodes to it.
- `default_arm`: the default arm (config/arm.yaml) as `make_nodes` builds it (IK, hardware on
  simulated servos, trajectory) with a `Harness` (trajectory_harness.py), for the module; the
  nodes are `default_arm.nodes`. Tests move the arm: start from a pose of your own
  (`default_arm.move_to(x, y)`).
"""

from __future__ import annotations

import fcntl
import os
import random
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# A run started in the background by a shell without job control has SIGINT ignored, and the
# programs it starts inherit that: the tests that press Ctrl-C on a CLI would press in vain.
# A handler of our own is reset to the default in every program started, so they get Ctrl-C.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

pytest.register_assert_rewrite(
    *sorted(
        path.stem
        for path in Path(__file__).parent.glob("*.py")
        if not path.stem.startswith(("test_", "conftest"))
    )
)

_DOMAIN_LOCKS = Path(tempfile.gettempdir()) / "arm_kinematics_test_domains"
_held_domain: list[Any] = []  # the open lock file of this run's domain, until the run ends


def _reserve_domain() -> int:
    """A ROS domain that no other test run on this machine holds now.

    A domain drawn at random is shared by two runs at once (of two checkouts, say) one time
    in a few; their nodes of the same names then answer each other's calls and goals. Each
    run holds an exclusive lock on a file per domain instead; the lock goes with the process.
    Domains 1..100 are valid for Fast DDS's default ports; 0 is what a demo uses.
    """
    _DOMAIN_LOCKS.mkdir(exist_ok=True)
    for domain in random.SystemRandom().sample(range(1, 101), 100):
        lock = (_DOMAIN_LOCKS / f"{domain}.lock").open("w")  # not inherited by child processes
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            continue
        _held_domain.append(lock)
        return domain
    raise RuntimeError(f"every test domain 1..100 is held by another run ({_DOMAIN_LOCKS})")


# Under pytest-xdist (`make test` runs the files on several workers) each worker is a run of its
# own: it inherits the controller's environment, domain included, so it reserves its own here.
if "PYTEST_XDIST_WORKER" in os.environ or "ARM_KINEMATICS_TEST_DOMAIN" not in os.environ:
    os.environ["ARM_KINEMATICS_TEST_DOMAIN"] = str(_reserve_domain())
os.environ["ROS_DOMAIN_ID"] = os.environ["ARM_KINEMATICS_TEST_DOMAIN"]
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"


@pytest.fixture(autouse=True, scope="module")
def _state_directory_of_the_module(tmp_path_factory) -> Iterator[None]:
    """Each module's nodes (a module-scoped stack too) keep their state, the hardware node's
    remembered pose, in a fresh XDG_STATE_HOME: never the user's, never another module's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
        yield


@pytest.fixture(autouse=True)
def _state_directory_of_the_test(tmp_path_factory, monkeypatch) -> None:
    """... and so does each test's: a node a test starts begins at home unless the test itself
    left a remembered pose (a restart within the test)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture(scope="module")
def graph() -> Iterator[Any]:
    from ros_helpers import ros_graph  # after ROS_DOMAIN_ID is set above

    with ros_graph() as module_graph:
        yield module_graph


@pytest.fixture(scope="module")
def default_arm() -> Iterator[Any]:
    from ros_helpers import ros_graph
    from trajectory_harness import Harness, make_nodes

    with ros_graph() as arm_graph:
        nodes = make_nodes(arm_graph)
        harness = Harness(arm_graph, nodes["hardware"])
        harness.nodes = nodes
        yield harness
