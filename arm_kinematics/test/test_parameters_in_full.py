"""What `ros2 param dump`, `ros2 action list` and a misspelt key show, on every shipped arm.

For every shipped config a real `bringup` (its params file through `--params-file`, as the
launch file gives it) is asked through each node's own parameter services what `ros2 param
dump` asks: `list_parameters`, then `get_parameters` of every name listed; every name must get
its value. The same run checks the gripper action (served only with a gripper; web_bridge makes
no client for it until a page sends a goal), the table of each node's own parameters
(config/schema.py `NODE_PARAMETERS`), and the URDF's robot name. The unknown-key rule
(config/unknown.py) is tested on node processes and on bringup: a misspelt limit stops the node
with exit code 2 and one FATAL line naming the nearest key, any other unknown key is one WARN
line and the node runs.
"""

from __future__ import annotations

import ast
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import aiohttp
import pytest
import yaml
from bridge_client import Client, run
from launch_file import LAUNCH_FILE, LaunchSource
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters, ListParameters
from rclpy.action.graph import (
    get_action_client_names_and_types_by_node,
    get_action_server_names_and_types_by_node,
)
from ros_helpers import (
    DEFAULT_TIMEOUT_S,
    PACKAGE_DIR,
    RosGraph,
    installed_executable,
    ros_graph,
    start_node_process,
    stop_process,
    wait_for,
)

from arm_kinematics.config import (
    GRIPPER_KIND_PARAMETERS,
    NODE_PARAMETERS,
    ArmConfig,
    ConfigError,
    arm_parameters,
    load_parameters_file,
    unknown_parameters,
)
from arm_kinematics.config.schema import ROS_PARAMETERS
from arm_kinematics.description import robot_description

CONFIG_DIR = PACKAGE_DIR / "config"
SHIPPED = sorted(path.name for path in CONFIG_DIR.glob("arm*.yaml"))
STACK_NODES = (
    "hardware_node",
    "ik_node",
    "trajectory_node",
    "robot_description_publisher",
    "web_bridge",
)
GRIPPER_ACTION = "gripper_controller/gripper_cmd"


class Process:
    """An installed console script whose output is collected as it comes."""

    def __init__(self, executable: str, *args: str) -> None:
        self.process = start_node_process(installed_executable(executable), *args)
        self.lines: list[str] = []
        self._reader = threading.Thread(
            target=lambda: self.lines.extend(self.process.stdout), daemon=True
        )
        self._reader.start()

    def output(self) -> str:
        return "".join(list(self.lines))

    def wait_line(self, pattern: str) -> re.Match:
        found = wait_for(
            lambda: re.search(pattern, self.output()) or self.process.poll() is not None,
            what=f"{pattern!r} in the output",
        )
        assert isinstance(found, re.Match), self.output()
        return found

    def stop(self) -> tuple[int, str]:
        code, _ = stop_process(self.process, DEFAULT_TIMEOUT_S)
        self._reader.join(timeout=10)
        return code, self.output()

    def exit(self) -> tuple[int, str]:
        """Wait for a process that stops by itself."""
        code = self.process.wait(timeout=DEFAULT_TIMEOUT_S)
        self._reader.join(timeout=10)
        return code, self.output()


def typed_value(value) -> bool:
    return value.type != ParameterType.PARAMETER_NOT_SET


def own_parameters(node: str, joint_names) -> set[str]:
    expanded = set()
    for template in NODE_PARAMETERS.get(node, ()):
        if "{joint}" in template:
            expanded.update(template.format(joint=joint) for joint in joint_names)
        else:
            expanded.add(template)
    return expanded


def wait_until_known(probe, namespace: str) -> None:
    """Wait until `probe` has discovered every node of the stack: rclpy's graph queries by
    node raise for a node not discovered yet (ros_discovery_info comes apart from the services
    that answered the probe's calls)."""
    wanted = {(node, namespace) for node in STACK_NODES}
    wait_for(
        lambda: wanted <= set(probe.get_node_names_and_namespaces()),
        what=f"the nodes of {namespace} in the probe's graph",
    )


def gripper_actions(graph: RosGraph, probe, node: str, namespace: str) -> tuple[set, set]:
    """The gripper action names `node` serves and those it has a client for (once the probe
    knows `node`: `wait_until_known`)."""
    served = get_action_server_names_and_types_by_node(probe, node, namespace)
    used = get_action_client_names_and_types_by_node(probe, node, namespace)
    wanted = f"{namespace}/{GRIPPER_ACTION}"
    return {n for n, _ in served if n == wanted}, {n for n, _ in used if n == wanted}


async def page_gripper_requests(port: int, namespace: str, goal: bool) -> list:
    """What the page does first through web_bridge (gripper.js `load`): the gripper's joint
    and unit; with `goal`, then a goal to open (an arm with a gripper only)."""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
    ):
        client = Client(ws)
        await client.send(
            {
                "op": "call_service",
                "id": "kind",
                "service": f"{namespace}/hardware_node/get_parameters",
                "args": {"names": list(GRIPPER_KIND_PARAMETERS)},
            }
        )
        answer = await client.answer("service_response", "kind")
        assert answer["result"] is True, answer
        values = answer["values"]["values"]
        if goal:
            await client.send(
                {
                    "op": "send_action_goal",
                    "id": "open",
                    "action": f"{namespace}/{GRIPPER_ACTION}",
                    "action_type": "control_msgs/action/GripperCommand",
                    "args": {"command": {"position": 0.02, "max_effort": 0.0}},
                }
            )
            result = await client.answer("action_result", "open")
            assert result["result"] is True, result
        return values


@pytest.mark.parametrize("name", SHIPPED)
def test_every_listed_parameter_has_a_value_and_a_gripper_action_only_with_a_gripper(
    name: str,
) -> None:
    config = ArmConfig.from_file(CONFIG_DIR / name)
    namespace = "/dump_" + name.removesuffix(".yaml")
    # Any free port, as bringup finds it (a port found free here could be taken before then).
    bringup = Process(
        "bringup", "--config", str(CONFIG_DIR / name), "--namespace", namespace,
        "--web-port", "0",
    )  # fmt: skip
    try:
        page = rf"page at http://127\.0\.0\.1:(\d+)/\?ns={re.escape(namespace)}"
        port = int(bringup.wait_line(page).group(1))
        with ros_graph() as graph:
            probe = graph.node("dump_probe")
            wait_until_known(probe, namespace)
            declared = {}
            for node in STACK_NODES:
                lister = probe.create_client(ListParameters, f"{namespace}/{node}/list_parameters")
                getter = probe.create_client(GetParameters, f"{namespace}/{node}/get_parameters")
                request = ListParameters.Request(depth=ListParameters.Request.DEPTH_RECURSIVE)
                names = list(graph.call(lister, request).result.names)
                values = graph.call(getter, GetParameters.Request(names=names)).values
                # What `ros2 param dump` and `ros2 param get` need: a value for every name.
                assert len(values) == len(names), (node, len(values), len(names))
                unset = [n for n, v in zip(names, values, strict=True) if not typed_value(v)]
                assert unset == [], (node, unset)
                declared[node] = dict(zip(names, values, strict=True))

            # Each node's own parameters are the table's (nodes/params.py knows them by it).
            gripper_joint = config.gripper.joint.name if config.gripper is not None else ""
            arm = arm_parameters(config.joint_names, gripper_joint)
            for node, values in declared.items():
                own = set(values) - arm.keys() - set(ROS_PARAMETERS)
                expected = own_parameters(node, config.joint_names)
                if node == "web_bridge":
                    expected.discard("allowed_hosts")  # not given: not declared (no empty list)
                assert own == expected, node
            # The URDF's robot name is the config's.
            urdf = declared["robot_description_publisher"]["robot_description"].string_value
            assert ET.fromstring(urdf).get("name") == config.robot_name

            # The gripper action is served where a gripper is, and by nothing else.
            has_gripper = config.gripper is not None
            action = f"{namespace}/{GRIPPER_ACTION}"
            if has_gripper:
                wait_for(
                    lambda: gripper_actions(graph, probe, "hardware_node", namespace)[0],
                    what=f"{action} served by the hardware node",
                )
            values = run(page_gripper_requests(port, namespace, goal=has_gripper))
            # The probe has discovered the bridge's client of that call: were there a gripper
            # client made at start-up, it would be seen by now too.
            parameters = f"{namespace}/hardware_node/get_parameters"
            wait_for(
                lambda: (
                    parameters
                    in {
                        n
                        for n, _ in probe.get_client_names_and_types_by_node(
                            "web_bridge", namespace
                        )
                    }
                ),
                what="web_bridge's get_parameters client",
            )
            # Its clients: the bridge's, made on first use, and the trajectory node's for the
            # gripper steps of sequences (docs/sequences.md), only where a gripper is.
            for node in STACK_NODES:
                served, used = gripper_actions(graph, probe, node, namespace)
                assert served == ({action} if has_gripper and node == "hardware_node" else set())
                if not has_gripper:
                    assert used == set(), node
                elif node == "trajectory_node":  # made at start-up: discovered in time
                    wait_for(
                        lambda: gripper_actions(graph, probe, "trajectory_node", namespace)[1],
                        what=f"trajectory_node's client of {action}",
                    )
                elif node != "web_bridge":
                    assert used == set(), node
            if has_gripper:
                assert [v["string_value"] for v in values] == [
                    config.gripper.joint.name,
                    config.gripper.position_unit,
                ]
                # The page's goal made the bridge's client: the check above sees clients.
                wait_for(
                    lambda: gripper_actions(graph, probe, "web_bridge", namespace)[1],
                    what="web_bridge's gripper action client after the page's goal",
                )
            else:
                assert values == []  # no gripper.position_unit: the page shows no gripper
    finally:
        code, output = bringup.stop()
    assert code == 0, output
    assert "unknown parameter" not in output


# --- the robot's name ---------------------------------------------------------------------------


def test_each_shipped_config_names_its_own_robot_and_a_file_without_a_name_is_arm(
    tmp_path: Path,
) -> None:
    names = {}
    for name in SHIPPED:
        urdf = ET.fromstring(robot_description(CONFIG_DIR / name))
        names[name] = urdf.get("name")
        assert names[name] == load_parameters_file(CONFIG_DIR / name)["robot_name"]
    assert len(set(names.values())) == len(SHIPPED), names
    assert names["arm_desk_kit.yaml"] == "desk_kit_arm"
    document = yaml.safe_load((CONFIG_DIR / "arm.yaml").read_text())
    del document["/**"]["ros__parameters"]["robot_name"]
    unnamed = tmp_path / "unnamed.yaml"
    unnamed.write_text(yaml.safe_dump(document))
    assert ET.fromstring(robot_description(unnamed)).get("name") == "arm"
    assert ArmConfig.from_file(unnamed).robot_name == "arm"
    document["/**"]["ros__parameters"]["robot_name"] = "my arm"
    unnamed.write_text(yaml.safe_dump(document))
    with pytest.raises(ConfigError, match="robot_name"):
        ArmConfig.from_file(unnamed)


# --- unknown keys: the rule ---------------------------------------------------------------------


def test_the_shipped_configs_hold_no_unknown_key() -> None:
    for name in SHIPPED:
        params = load_parameters_file(CONFIG_DIR / name)
        gripper = params.get("gripper.joint", "")
        assert unknown_parameters(params, params["joint_names"], gripper) == [], name


@pytest.mark.parametrize(
    ("key", "nearest", "refused"),
    [
        ("joints.elbow.max_velocty_deg_s", "joints.elbow.max_velocity_deg_s", True),
        ("joints.elbow.max_acceleration_deg_s", "joints.elbow.max_acceleration_deg_s2", True),
        ("trajectory.max_acceleration_m_s", "trajectory.max_acceleration_m_s2", True),
        ("workspace.tabel_z_m", None, True),  # a section of limits: refused, near or not
        ("hardware.backnd", "hardware.backend", True),
        ("link_length_m", "link_lengths_m", True),  # near an arm parameter that shapes motion
        ("singularity_margn", "singularity_margin", True),
        ("robot_nam", "robot_name", False),  # a name: warned
        ("ik.max_batch_target", "ik.max_batch_targets", False),
        ("prot", "port", False),  # web_bridge's
        ("calibration.jog_sped_deg_s", "calibration.jog_speed_deg_s", False),
        ("notes", None, False),
    ],
)
def test_a_misspelt_key_is_refused_where_it_would_leave_a_limit_and_warned_elsewhere(
    key: str, nearest: str | None, refused: bool
) -> None:
    (found,) = unknown_parameters([key, "port", "joints.elbow.min_deg"], ["shoulder", "elbow"])
    assert (found.name, found.refused) == (key, refused)
    if nearest is not None or not key.startswith("workspace."):
        assert found.nearest == nearest


def test_a_joint_section_the_arm_lacks_is_refused_and_other_nodes_keys_are_known() -> None:
    joints = ["shoulder", "elbow"]
    (found,) = unknown_parameters(["joints.wrist.min_deg"], joints)
    assert found.refused
    assert found.words(joints, "") == (
        "unknown parameter 'joints.wrist.min_deg' (wrist is not one of this arm's joints: "
        "joint_names shoulder, elbow; did you mean 'joints.elbow.min_deg'?): refused, a "
        "misspelt key under joints. would leave another value in force; correct it in the "
        "params file"
    )
    # Another node's keys, rclpy's own, a gripper's section without a gripper, another layout's.
    others = [
        "config_file",
        "port",
        "constraints.elbow.goal_deg",
        "use_sim_time",
        "gripper.open_m",
        "spatial.wrist_roll",
        "robot_description",
    ]
    assert unknown_parameters(others, joints) == []
    (claw,) = unknown_parameters(["joints.claw.min_deg", "joints.clw.min_deg"], joints, "claw")
    assert claw.name == "joints.clw.min_deg"
    assert claw.refused


def test_arm_config_from_file_refuses_a_misspelt_limit_and_notes_other_keys(
    tmp_path: Path,
) -> None:
    text = (CONFIG_DIR / "arm.yaml").read_text()
    path = tmp_path / "typo.yaml"
    path.write_text(text.replace("    robot_name:", "    prot: 8081\n    robot_name:"))
    assert any("'prot' (did you mean 'port'?)" in note for note in ArmConfig.from_file(path).notes)
    path.write_text(text.replace("max_velocity_deg_s:", "max_velocty_deg_s:", 1))
    with pytest.raises(ConfigError) as refused:
        ArmConfig.from_file(path)
    assert str(refused.value).startswith(
        "parameter 'joints.shoulder.max_velocty_deg_s' = 120.0: unknown (did you mean "
        "'joints.shoulder.max_velocity_deg_s'?): refused"
    )


# --- unknown keys: node processes and bringup ----------------------------------------------------

FATAL = (
    r"\[FATAL\] \[[0-9.]+\] \[{node}\]: unknown parameter 'joints.elbow.max_velocty_deg_s' "
    r"\(did you mean 'joints.elbow.max_velocity_deg_s'\?\): refused"
)


@pytest.mark.parametrize("node", ["ik_node", "trajectory_node", "hardware_node", "web_bridge"])
def test_a_misspelt_limit_stops_each_node_with_exit_code_2(node: str) -> None:
    process = Process(
        node, "--ros-args", "-p", "joints.elbow.max_velocty_deg_s:=500.0", "-p", "port:=0"
    )
    code, output = process.exit()
    assert code == 2, output
    assert re.search(FATAL.format(node=node), output), output
    assert len(re.findall(r"\[FATAL\]", output)) == 1, output


def test_a_key_of_no_node_is_one_warning_and_web_bridge_serves_the_arm_file_it_is_given() -> None:
    # As the launch file starts it: the whole arm file (every key known), its port, one typo.
    process = Process(
        "web_bridge", "--ros-args", "--params-file", str(CONFIG_DIR / "arm_desk_kit.yaml"),
        "-p", "hardware.backend:=sim", "-p", "port:=0", "-p", "prot:=8081",
    )  # fmt: skip
    try:
        process.wait_line(r"page at http://127\.0\.0\.1:\d+/")
    finally:
        code, output = process.stop()
    assert code == 0, output
    warnings = re.findall(r"\[WARN\].*unknown parameter.*", output)
    assert warnings == [
        warnings[0].split("[web_bridge]")[0]
        + "[web_bridge]: unknown parameter 'prot' (did you mean 'port'?): no node of the arm "
        "uses it, ignored"
    ], output


def test_bringup_refuses_a_misspelt_limit_in_the_file_before_any_node_starts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "typo.yaml"
    text = (CONFIG_DIR / "arm.yaml").read_text()
    path.write_text(text.replace("max_velocity_deg_s:", "max_velocty_deg_s:", 1))
    code, output = Process("bringup", "--config", str(path), "--no-web").exit()
    assert code == 2, output
    assert output.startswith(
        "bringup: parameter 'joints.shoulder.max_velocty_deg_s' = 120.0: unknown (did you mean "
        "'joints.shoulder.max_velocity_deg_s'?)"
    ), output
    assert "[hardware_node]" not in output


def test_bringup_nodes_refuse_a_misspelt_override_and_warn_once_for_a_key_of_no_node(
    tmp_path: Path,
) -> None:
    code, output = Process(
        "bringup", "--no-web", "--namespace", "typo_override",
        "--ros-args", "-p", "joints.elbow.max_velocty_deg_s:=500.0",
    ).exit()  # fmt: skip
    assert code == 2, output
    assert re.search(FATAL.format(node="typo_override.hardware_node"), output), output
    path = tmp_path / "extra.yaml"
    text = (CONFIG_DIR / "arm.yaml").read_text()
    path.write_text(text.replace("    robot_name:", "    notes: a key of nothing\n    robot_name:"))
    process = Process(
        "bringup", "--config", str(path), "--namespace", "extra_key", "--web-port", "0"
    )
    try:
        process.wait_line(r"page at http://127\.0\.0\.1:\d+/")
    finally:
        code, output = process.stop()
    assert code == 0, output
    # Five nodes are given the key; the process says it once.
    assert len(re.findall(r"\[WARN\].*unknown parameter 'notes'", output)) == 1, output


def test_a_node_given_a_joint_section_the_arm_lacks_names_its_joints() -> None:
    process = Process("ik_node", "--ros-args", "-p", "joints.wrist.min_deg:=-80.0")
    code, output = process.exit()
    assert code == 2, output
    assert (
        "unknown parameter 'joints.wrist.min_deg' (wrist is not one of this arm's joints: "
        "joint_names shoulder, elbow" in output
    )


# --- a node that dies at launch ------------------------------------------------------------------


def test_the_launch_file_ends_the_launch_when_an_arm_node_ends() -> None:
    """launch_ros is not installable here: the launch file is read as its AST (test_launch.py)
    and the handler's logic checked there; docs/launch_and_bringup.md says what follows."""
    source = LaunchSource(LAUNCH_FILE)
    required = {}
    for node in source.nodes():
        on_exit = node.get("on_exit")
        required[node["executable"]] = isinstance(on_exit, ast.Name) and on_exit.id
    assert required == {
        "ik_node": "_end_the_launch",
        "trajectory_node": "_end_the_launch",
        "hardware_node": "_end_the_launch",
        "web_bridge": "_end_the_launch",
        "robot_state_publisher": "_end_the_launch",
        "rviz2": False,  # closing RViz leaves the arm running
    }
    (handler,) = [
        f
        for f in ast.walk(source.tree)
        if isinstance(f, ast.FunctionDef) and f.name == "_end_the_launch"
    ]
    # (event, context): nothing once the launch is shutting down (Ctrl-C), else a log line and
    # launch's Shutdown action.
    assert [a.arg for a in handler.args.args] == ["event", "context"]
    first = handler.body[1] if isinstance(handler.body[0], ast.Expr) else handler.body[0]
    assert ast.unparse(first.test) == "context.is_shutdown"
    returned = handler.body[-1].value
    assert [c.func.id for c in returned.elts] == ["LogInfo", "Shutdown"]
    assert "event.returncode" in ast.unparse(handler)


def test_an_empty_list_in_the_file_stops_bringup_and_a_node_with_the_advice(tmp_path: Path):
    # ROS 2 cannot type `[]` (a node built with automatically_declare_parameters_from_overrides
    # fails inside rclpy): the file check and the node both say what to write instead.
    path = tmp_path / "empty_boxes.yaml"
    text = (CONFIG_DIR / "arm.yaml").read_text()
    path.write_text(text.replace("# keep_out_boxes_m: [0.10", "keep_out_boxes_m: [] # [0.10", 1))
    assert "keep_out_boxes_m: []" in path.read_text()
    code, output = Process("bringup", "--config", str(path), "--no-web").exit()
    assert code == 2, output
    assert "for no box, leave workspace.keep_out_boxes_m out" in output, output
    code, output = Process("ik_node", "--ros-args", "--params-file", str(path)).exit()
    assert code == 2, output
    assert re.search(
        r"\[FATAL\] .*a params file gives an empty list \(\[\]\), which ROS 2 cannot type; "
        r"leave the key out",
        output,
    ), output
    assert "Traceback" not in output, output
