"""launch/arm.launch.py and rviz/arm.rviz.

`launch` and `launch_ros` are not on PyPI, so here the launch file is checked from its Python
AST (executables, packages, arguments, referenced files, relative names) and its xacro command
is run as robot_state_publisher's Command would run it. On a machine with ROS 2 Jazzy the
launch description is also built with `launch`/`launch_ros` and its entities checked.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from launch_file import LAUNCH_ARGUMENTS, LAUNCH_FILE, LaunchSource, call_name, console_scripts

from arm_kinematics.config import ConfigError, default_config_path
from arm_kinematics.description import robot_description, xacro_path
from arm_kinematics.names import launch_frames

PACKAGE_DIR = Path(__file__).resolve().parents[1]
RVIZ_FILE = PACKAGE_DIR / "rviz" / "arm.rviz"
ARM_EXECUTABLES = {"ik_node", "trajectory_node", "hardware_node", "web_bridge"}
#: Set by the launch file itself (from the config and the namespace), not an argument.
DERIVED_CONFIGURATIONS = {"rviz_fixed_frame"}


@pytest.fixture(scope="module")
def launch_source() -> LaunchSource:
    return LaunchSource(LAUNCH_FILE)


def test_launch_file_starts_exactly_the_declared_executables(launch_source: LaunchSource) -> None:
    nodes = launch_source.nodes()
    ours = {n["executable"] for n in nodes if n["package"] == "arm_kinematics"}
    assert ours == ARM_EXECUTABLES
    assert ours <= console_scripts()
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
    arm_nodes = [
        n
        for n in nodes
        if n["package"] == "arm_kinematics"
        and n["executable"] not in ("web_bridge", "hardware_node", "trajectory_node")
    ]
    arm_params = {ast.dump(n["parameters"]) for n in arm_nodes}
    assert len(arm_params) == 1
    (shared,) = arm_params
    # hardware_node: the arm's parameters, then its config_file (calibration/save's file);
    # trajectory_node the same (named poses and sequences are kept beside it).
    for executable in ("hardware_node", "trajectory_node"):
        node = next(n for n in nodes if n["executable"] == executable)
        first, config_file = node["parameters"].elts
        assert isinstance(first, ast.Starred)
        assert ast.dump(first.value) == shared
        assert launch_source.value(config_file.keys[0]) == "config_file"
        assert config_file.values[0].args[0].id == "config"
    rviz = next(n for n in nodes if n["package"] == "rviz2")
    assert call_name(rviz["condition"]) == "IfCondition"
    web = next(n for n in nodes if n["executable"] == "web_bridge")
    assert call_name(web["condition"]) == "IfCondition"
    assert web["condition"].args[0].id == "web"
    # web_bridge: the arm's parameters, then its port from the web_port argument.
    first, port = web["parameters"].elts
    assert isinstance(first, ast.Starred)
    assert ast.dump(first.value) == shared
    assert launch_source.value(port.keys[0]) == "port"
    assert port.values[0].args[0].id == "web_port"


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
    assert launch_source.value(declared["frame_prefix"]["default"]) == "<namespace>/"
    assert launch_source.value(declared["web_port"]["default"]) == "8080"
    assert declared["web"]["choices"] == ["true", "false"]
    assert all(entry["description"] for entry in declared.values())
    used = {launch_source.value(c.args[0]) for c in launch_source.calls_to("LaunchConfiguration")}
    assert used == LAUNCH_ARGUMENTS | DERIVED_CONFIGURATIONS


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


def test_names_are_relative_and_tf_is_shared(launch_source: LaunchSource) -> None:
    absolute = {
        node.value
        for node in ast.walk(launch_source.tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("/")
    }
    assert absolute == set()
    # One /tf for every arm: nothing is remapped (frame names carry the prefix instead).
    assert all("remappings" not in node for node in launch_source.nodes())


def _assigned(launch_source: LaunchSource, name: str) -> ast.AST:
    (value,) = [
        statement.value
        for statement in ast.walk(launch_source.tree)
        if isinstance(statement, ast.Assign)
        and [getattr(t, "id", None) for t in statement.targets] == [name]
    ]
    return value


def test_every_node_and_the_urdf_get_the_one_frame_prefix(launch_source: LaunchSource) -> None:
    frame_prefix = _assigned(launch_source, "frame_prefix")
    assert call_name(frame_prefix) == "LaunchConfiguration"
    assert launch_source.value(frame_prefix.args[0]) == "frame_prefix"
    # The arm nodes: the config file, then the backend and the prefix (later entries win).
    config, overrides = _assigned(launch_source, "arm_parameters").elts
    assert config.id == "config"
    given = {
        launch_source.value(k): v for k, v in zip(overrides.keys, overrides.values, strict=True)
    }
    assert set(given) == {"hardware.backend", "frame_prefix"}
    assert call_name(given["frame_prefix"]) == "ParameterValue"
    assert given["frame_prefix"].args[0].id == "frame_prefix"
    assert launch_source.keyword(given["frame_prefix"], "value_type").id == "str"
    # The URDF is expanded with the same prefix (xacro's argument) ...
    (command,) = launch_source.calls_to("Command")
    parts = command.args[0].elts
    index = [launch_source.value(p) for p in parts].index(" frame_prefix:=")
    assert parts[index + 1].id == "frame_prefix"
    # ... and robot_state_publisher has no frame_prefix of its own (it would prefix the mount's
    # parent frame too, world -> left_arm/world, and split the tree).
    nodes = launch_source.nodes()
    (rsp,) = [n for n in nodes if n["package"] == "robot_state_publisher"]
    (rsp_parameters,) = rsp["parameters"].elts
    assert [launch_source.value(k) for k in rsp_parameters.keys] == ["robot_description"]
    # RViz: the fixed frame the launch file works out (the mount's parent, else the base).
    (rviz,) = [n for n in nodes if n["package"] == "rviz2"]
    arguments = rviz["arguments"].elts
    assert launch_source.value(arguments[2]) == "-f"
    assert launch_source.value(arguments[3].args[0]) == "rviz_fixed_frame"
    # Both are worked out by the plain function tested below.
    assert "launch_frames" in {
        node.func.id for node in launch_source.calls if isinstance(node.func, ast.Name)
    }


def test_the_launch_frames_follow_the_namespace_unless_the_argument_says_otherwise(
    tmp_path: Path,
) -> None:
    config = str(PACKAGE_DIR / "config" / "arm.yaml")
    assert launch_frames(config, None, "left_arm") == ("left_arm/", "left_arm/base_link")
    assert launch_frames(config, None, "/lab/arm_b") == ("lab/arm_b/", "lab/arm_b/base_link")
    assert launch_frames(config, None, "") == ("", "base_link")
    assert launch_frames(config, "", "left_arm") == ("", "base_link")
    assert launch_frames(config, "arm_1/", "") == ("arm_1/", "arm_1/base_link")
    with pytest.raises(ConfigError, match="frame_prefix"):
        launch_frames(config, "left arm/", "")
    # A mounted arm: RViz looks from the frame it stands in; the file's own prefix without a
    # namespace.
    mounted = tmp_path / "mounted.yaml"
    mounted.write_text(
        Path(config)
        .read_text()
        .replace('parent_frame: ""', "parent_frame: world")
        .replace('frame_prefix: ""', "frame_prefix: lab_arm/")
    )
    assert launch_frames(str(mounted), None, "") == ("lab_arm/", "world")
    assert launch_frames(str(mounted), None, "left_arm") == ("left_arm/", "world")


def test_xacro_with_the_launch_prefix_names_the_arm_frames_and_keeps_the_mount_parent(
    tmp_path: Path,
) -> None:
    """`xacro ... config:=<mounted file> frame_prefix:=left_arm/`, as the launch file runs it."""
    mounted = tmp_path / "mounted.yaml"
    mounted.write_text(
        (PACKAGE_DIR / "config" / "arm.yaml")
        .read_text()
        .replace('parent_frame: ""', "parent_frame: world")
    )
    result = subprocess.run(
        [shutil.which("xacro"), str(xacro_path()), f"config:={mounted}", "frame_prefix:=left_arm/"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    urdf = ET.fromstring(result.stdout)
    assert {link.get("name") for link in urdf.iter("link")} == {
        "world",
        "left_arm/base_link",
        "left_arm/link_1",
        "left_arm/link_2",
        "left_arm/tool0",
    }
    children = {joint.find("child").get("link") for joint in urdf.iter("joint")}
    assert {link.get("name") for link in urdf.iter("link")} - children == {"world"}


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
