"""launch/arm.launch.py and rviz/arm.rviz.

`launch` and `launch_ros` are not on PyPI, so here the launch file is checked from its Python
AST (executables, packages, arguments, referenced files, relative names) and its xacro command
is run as robot_state_publisher's Command would run it. On a machine with ROS 2 Jazzy the
launch description is also built with `launch`/`launch_ros` and its entities checked.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from arm_kinematics.config import default_config_path
from arm_kinematics.description import robot_description, xacro_path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
LAUNCH_FILE = PACKAGE_DIR / "launch" / "arm.launch.py"
RVIZ_FILE = PACKAGE_DIR / "rviz" / "arm.rviz"
ARM_EXECUTABLES = {"ik_node", "trajectory_node", "hardware_node", "web_bridge"}
LAUNCH_ARGUMENTS = {"config", "hardware", "rviz", "web", "namespace"}


# --- the launch file's AST ----------------------------------------------------------------------


def _call_name(node: ast.AST) -> str | None:
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
        return [c for c in self.calls if _call_name(c) == name]

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
            if _call_name(parts[0]) == "FindPackageShare":
                package = self.value(parts[0].args[0])
                paths.append((package, *(self.value(p) for p in parts[1:])))
        return paths


def _console_scripts() -> set[str]:
    tree = ast.parse((PACKAGE_DIR / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "console_scripts":
                    return {entry.split("=")[0].strip() for entry in ast.literal_eval(value)}
    raise AssertionError("setup.py declares no console_scripts")


@pytest.fixture(scope="module")
def launch_source() -> LaunchSource:
    return LaunchSource(LAUNCH_FILE)


def test_launch_file_starts_exactly_the_declared_executables(launch_source: LaunchSource) -> None:
    nodes = launch_source.nodes()
    ours = {n["executable"] for n in nodes if n["package"] == "arm_kinematics"}
    assert ours == ARM_EXECUTABLES
    assert ours <= _console_scripts()
    others = {(n["package"], n["executable"]) for n in nodes if n["package"] != "arm_kinematics"}
    assert others == {
        ("robot_state_publisher", "robot_state_publisher"),
        ("rviz2", "rviz2"),
    }


def test_every_node_is_namespaced_and_the_arm_nodes_share_one_params_list(
    launch_source: LaunchSource,
) -> None:
    nodes = launch_source.nodes()
    for node in nodes:
        namespace = node.get("namespace")
        assert isinstance(namespace, ast.Name), f"{node['executable']} has no namespace"
        assert namespace.id == "namespace"
        # A fixed node name would make two launches in one namespace collide silently; the
        # nodes' own names are used.
        assert "name" not in node
    arm_params = {ast.dump(n["parameters"]) for n in nodes if n["package"] == "arm_kinematics"}
    assert len(arm_params) == 1
    rviz = next(n for n in nodes if n["package"] == "rviz2")
    assert _call_name(rviz["condition"]) == "IfCondition"
    web = next(n for n in nodes if n["executable"] == "web_bridge")
    assert _call_name(web["condition"]) == "IfCondition"
    assert web["condition"].args[0].id == "web"


def test_launch_arguments_are_declared_with_safe_defaults(launch_source: LaunchSource) -> None:
    declared = {}
    for call in launch_source.calls_to("DeclareLaunchArgument"):
        name = launch_source.value(call.args[0])
        declared[name] = {
            "default": launch_source.keyword(call, "default_value"),
            "choices": launch_source.value(launch_source.keyword(call, "choices")),
            "description": launch_source.value(launch_source.keyword(call, "description")),
        }
    assert set(declared) == LAUNCH_ARGUMENTS
    assert launch_source.value(declared["hardware"]["default"]) == "sim"
    assert declared["hardware"]["choices"] == ["sim", "servokit"]
    assert launch_source.value(declared["rviz"]["default"]) == "false"
    assert launch_source.value(declared["namespace"]["default"]) == ""
    assert launch_source.value(declared["web"]["default"]) == "true"
    assert declared["web"]["choices"] == ["true", "false"]
    assert all(entry["description"] for entry in declared.values())
    used = {launch_source.value(c.args[0]) for c in launch_source.calls_to("LaunchConfiguration")}
    assert used == LAUNCH_ARGUMENTS


def test_files_the_launch_file_references_exist(launch_source: LaunchSource) -> None:
    referenced = set(launch_source.share_files())
    assert referenced == {
        ("arm_kinematics", "config", "arm.yaml"),
        ("arm_kinematics", "urdf", "arm.urdf.xacro"),
        ("arm_kinematics", "rviz", "arm.rviz"),
    }
    installed_share = default_config_path().parent.parent
    for _, *parts in referenced:
        assert PACKAGE_DIR.joinpath(*parts).is_file()
        # scripts/setup.sh installs them where FindPackageShare looks.
        assert installed_share.joinpath(*parts).is_file(), installed_share.joinpath(*parts)


def test_names_are_relative_except_the_tf_remapping(launch_source: LaunchSource) -> None:
    absolute = {
        node.value
        for node in ast.walk(launch_source.tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("/")
    }
    assert absolute == {"/tf", "/tf_static"}
    assert launch_source.constants["TF_REMAPPINGS"] == [
        ("/tf", "tf"),
        ("/tf_static", "tf_static"),
    ]


def test_xacro_command_of_robot_state_publisher_gives_the_description() -> None:
    """Run `xacro <share>/urdf/arm.urdf.xacro config:=<file>` as the launch file's Command does."""
    executable = shutil.which("xacro")
    assert executable, "the xacro package's command is missing from the environment"
    config = PACKAGE_DIR / "config" / "arm_3r.yaml"
    result = subprocess.run(
        [executable, str(xacro_path()), f"config:={config}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr

    def joints(urdf: str) -> list[str]:
        return [ET.tostring(j, encoding="unicode") for j in ET.fromstring(urdf).iter("joint")]

    assert joints(result.stdout) == joints(robot_description(config))
    assert len(joints(result.stdout)) == 4  # three revolute joints and the fixed tool frame


# --- with launch and launch_ros (a real ROS 2 Jazzy install) -------------------------------------


def test_launch_description_builds_with_launch_ros() -> None:
    # launch.actions, not launch: the package's own launch/ folder is an importable namespace
    # package named `launch` when the source tree is on sys.path.
    pytest.importorskip("launch_ros", reason="launch_ros is not installable from PyPI (ROS 2 only)")
    pytest.importorskip("launch.actions", reason="launch is not installable from PyPI (ROS 2 only)")
    from launch.actions import DeclareLaunchArgument
    from launch_ros.actions import Node

    spec = importlib.util.spec_from_file_location("arm_launch", LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    description = module.generate_launch_description()

    arguments = {a.name: a for a in description.entities if isinstance(a, DeclareLaunchArgument)}
    assert set(arguments) == LAUNCH_ARGUMENTS
    assert arguments["hardware"].choices == ["sim", "servokit"]
    nodes = [e for e in description.entities if isinstance(e, Node)]
    assert sorted(n.node_executable for n in nodes) == sorted(
        [*ARM_EXECUTABLES, "robot_state_publisher", "rviz2"]
    )
    rviz = next(n for n in nodes if n.node_package == "rviz2")
    assert rviz.condition is not None
    web = next(n for n in nodes if n.node_executable == "web_bridge")
    assert web.condition is not None


# --- RViz config --------------------------------------------------------------------------------


def test_rviz_config_shows_the_arm_its_markers_and_has_the_publish_point_tool() -> None:
    document = yaml.safe_load(RVIZ_FILE.read_text())
    manager = document["Visualization Manager"]
    assert manager["Global Options"]["Fixed Frame"] == "base_link"
    displays = {d["Class"]: [] for d in manager["Displays"]}
    for display in manager["Displays"]:
        displays[display["Class"]].append(display)
        assert display.get("Enabled", True) is True

    (robot_model,) = displays["rviz_default_plugins/RobotModel"]
    assert robot_model["Description Source"] == "Topic"
    assert robot_model["Description Topic"]["Value"] == "robot_description"
    # robot_state_publisher and the bringup latch the description: only a transient-local
    # subscription gets it when RViz starts after them.
    assert robot_model["Description Topic"]["Durability Policy"] == "Transient Local"
    assert "rviz_default_plugins/TF" in displays
    marker_topics = {
        d["Topic"]["Value"]: d["Topic"] for d in displays["rviz_default_plugins/MarkerArray"]
    }
    assert set(marker_topics) == {"ik_markers", "trajectory_markers"}
    # Both nodes latch their markers (transient local): RViz started later still shows them.
    for topic in marker_topics.values():
        assert topic["Durability Policy"] == "Transient Local"

    tools = {t["Class"]: t for t in manager["Tools"]}
    assert tools["rviz_default_plugins/PublishPoint"]["Topic"]["Value"] == "clicked_point"

    # Relative topics, so `namespace:=X` (rviz2 started in X) shows arm X.
    topics = [robot_model["Description Topic"]["Value"], *marker_topics, "clicked_point"]
    assert not any(topic.startswith("/") for topic in topics)
