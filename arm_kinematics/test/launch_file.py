"""launch/arm.launch.py as the tests read it without `launch` (not on PyPI): `LaunchSource`,
what the file says from its Python AST (nodes, arguments, files it references), its
`LAUNCH_ARGUMENTS`, and `console_scripts`, the executables setup.py declares.

Used by test_launch.py, test_docs_commands.py and test_parameters_in_full.py.
"""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path
from typing import Any

from ros_helpers import PACKAGE_DIR

LAUNCH_FILE = PACKAGE_DIR / "launch" / "arm.launch.py"
LAUNCH_ARGUMENTS = {"config", "hardware", "rviz", "web", "web_port", "namespace", "frame_prefix"}


def call_name(node: ast.AST) -> str | None:
    """The name a call calls (`Node`, `launch_ros.actions.Node`: "Node"); None if not a call."""
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id
        if isinstance(node.func, ast.Attribute):
            return node.func.attr
    return None


class LaunchSource:
    """What the launch file says, read from its AST without importing launch."""

    def __init__(self, path: Path) -> None:
        self.tree = ast.parse(path.read_text(), filename=str(path))
        self.constants: dict[str, Any] = {}
        for statement in self.tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
                if isinstance(target, ast.Name):
                    with contextlib.suppress(ValueError):  # computed, not a constant
                        self.constants[target.id] = ast.literal_eval(statement.value)
        self.calls = [n for n in ast.walk(self.tree) if isinstance(n, ast.Call)]

    def value(self, node: ast.AST) -> Any:
        """A literal or a module-level constant; None for anything computed at launch time."""
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        try:
            return ast.literal_eval(node)
        except ValueError:
            return None

    def calls_to(self, name: str) -> list[ast.Call]:
        return [c for c in self.calls if call_name(c) == name]

    @staticmethod
    def keyword(call: ast.Call, name: str) -> ast.AST | None:
        return next((k.value for k in call.keywords if k.arg == name), None)

    def nodes(self) -> list[dict[str, Any]]:
        """package, executable and the keyword nodes of every launch_ros Node(...)."""
        found = []
        for call in self.calls_to("Node"):
            entry = {k.arg: k.value for k in call.keywords}
            entry["package"] = self.value(entry["package"])
            entry["executable"] = self.value(entry["executable"])
            found.append(entry)
        return found

    def share_files(self) -> list[tuple[str, ...]]:
        """Every PathJoinSubstitution([FindPackageShare(pkg), 'dir', 'file']) as a tuple."""
        paths = []
        for call in self.calls_to("PathJoinSubstitution"):
            parts = call.args[0].elts
            if call_name(parts[0]) == "FindPackageShare":
                package = self.value(parts[0].args[0])
                paths.append((package, *(self.value(p) for p in parts[1:])))
        return paths


def console_scripts() -> set[str]:
    """The console scripts setup.py declares (the executables `ros2 run` finds)."""
    tree = ast.parse((PACKAGE_DIR / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "console_scripts":
                    return {entry.split("=")[0].strip() for entry in ast.literal_eval(value)}
    raise AssertionError("setup.py declares no console_scripts")
