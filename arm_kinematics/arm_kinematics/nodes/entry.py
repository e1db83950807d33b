"""The nodes' console scripts: the stop signals are caught first, then the node is imported.

See `stop_signals.py` for why. `setup.py` points each node's script here.
"""

from __future__ import annotations

import importlib
import sys

from arm_kinematics.nodes.stop_signals import catch_stop_signals


def _run(module: str) -> None:
    stop, _ = catch_stop_signals()  # run_nodes takes the handlers over (and restores them)
    main = importlib.import_module(f"arm_kinematics.nodes.{module}").main
    if stop.is_set():
        sys.exit(0)  # stopped while starting: nothing to close
    main()


def ik_node() -> None:
    _run("ik_node")


def trajectory_node() -> None:
    _run("trajectory_node")


def hardware_node() -> None:
    _run("hardware_node")


def web_bridge() -> None:
    _run("web_bridge")


def bringup() -> None:
    _run("bringup")
