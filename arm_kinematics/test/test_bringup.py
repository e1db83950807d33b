"""The one-process bringup: its options, its robot_description, and two arms in two namespaces.

The two-arm test starts two real `bringup` processes (the 2R arm in /arm_a, the 3R example in
/arm_b) in this test run's ROS domain and talks to them through rclpy, as `ros2 service call`
and `ros2 topic echo` would.
"""

from __future__ import annotations

import math
import subprocess
import threading
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import yaml
from geometry_msgs.msg import PointStamped
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_helpers import (
    PACKAGE_DIR,
    installed_executable,
    ros_graph,
    start_node_process,
    stop_process,
    wait_for,
)
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from arm_kinematics.config import ArmConfig
from arm_kinematics.description import robot_description
from arm_kinematics.names import absolute_namespace, frame_prefix_for, namespace_frame_prefix
from arm_kinematics.nodes.bringup import RobotDescriptionPublisher, ros_arguments
from arm_kinematics.rclpy_compat.action_client import ActionClient

CONFIG_2R = PACKAGE_DIR / "config" / "arm.yaml"
CONFIG_3R = PACKAGE_DIR / "config" / "arm_3r.yaml"
LATCHED = QoSProfile(
    depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)


def run_bringup(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    """Run a bringup that is expected to stop by itself (bad options)."""
    return subprocess.run(
        [installed_executable("bringup"), *args], capture_output=True, text=True, timeout=timeout
    )


# --- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("", "/"),
        ("/", "/"),
        ("arm_a", "/arm_a"),
        ("/arm_a/", "/arm_a"),
        ("lab/arm_b", "/lab/arm_b"),
    ],
)
def test_namespace_is_made_absolute(given: str, expected: str) -> None:
    assert absolute_namespace(given) == expected


@pytest.mark.parametrize("bad", ["left arm", "1arm", "arm//b", "arm-b"])
def test_invalid_namespace_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid namespace"):
        absolute_namespace(bad)


def test_ros_arguments_give_every_node_the_file_backend_and_namespace() -> None:
    assert ros_arguments(Path("/c/arm.yaml"), "servokit", "/arm_a") == [
        "--ros-args",
        "--params-file",
        "/c/arm.yaml",
        "-p",
        "config_file:='/c/arm.yaml'",  # hardware_node's: where calibration/save writes
        "-p",
        "hardware.backend:=servokit",
        "-r",
        "__ns:=/arm_a",
    ]
    # No backend option: the file's hardware.backend stands; no namespace: no remapping.
    assert ros_arguments(Path("/c/arm.yaml"), None, "/") == [
        "--ros-args",
        "--params-file",
        "/c/arm.yaml",
        "-p",
        "config_file:='/c/arm.yaml'",
    ]


def test_the_namespace_gives_the_frame_prefix_unless_the_option_says_otherwise() -> None:
    assert namespace_frame_prefix("/left_arm") == "left_arm/"
    assert namespace_frame_prefix("lab/arm_b/") == "lab/arm_b/"
    assert namespace_frame_prefix("/") == ""
    assert frame_prefix_for(None, "/left_arm") == "left_arm/"
    assert frame_prefix_for("", "/left_arm") == ""  # asked for none
    assert frame_prefix_for("arm_1/", "/left_arm") == "arm_1/"
    assert frame_prefix_for(None, "/") is None  # the file's own frame_prefix stands
    # Every node of the process gets it as a parameter (quoted: read as YAML).
    assert ros_arguments(Path("/c/arm.yaml"), None, "/arm_a", "arm_a/")[-4:] == [
        "-p",
        "frame_prefix:='arm_a/'",
        "-r",
        "__ns:=/arm_a",
    ]


def test_bad_options_exit_2_with_one_clear_line(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    result = run_bringup("--config", str(missing))
    assert result.returncode == 2
    assert str(missing) in result.stderr
    assert "cannot be read" in result.stderr
    assert "Traceback" not in result.stderr

    result = run_bringup("--namespace", "left arm")
    assert result.returncode == 2
    assert "invalid namespace 'left arm'" in result.stderr

    result = run_bringup("--namespace", "left_arm", "--frame-prefix", "left arm/")
    assert result.returncode == 2
    assert "parameter 'frame_prefix' = 'left arm/'" in result.stderr

    result = run_bringup("--hardware", "gpio")
    assert result.returncode == 2
    assert "invalid choice: 'gpio'" in result.stderr

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        CONFIG_2R.read_text().replace("link_lengths_m: [0.100, 0.080]", "link_lengths_m: [0.1]")
    )
    result = run_bringup("--config", str(bad))
    assert result.returncode == 2
    assert "link_lengths_m" in result.stderr
    assert "Traceback" not in result.stderr


# --- robot_description --------------------------------------------------------------------------


def test_robot_description_is_latched_for_late_subscribers_in_the_namespace() -> None:
    urdf = robot_description(CONFIG_3R)
    with ros_graph() as graph:
        publisher = graph.add(
            RobotDescriptionPublisher(urdf, context=graph.context, namespace="arm_x")
        )
        assert publisher.get_parameter("robot_description").value == urdf
        # Subscribed only after the one and only publish: transient local still delivers it.
        received: list[str] = []
        listener = graph.node("listener")
        listener.create_subscription(
            String, "/arm_x/robot_description", lambda m: received.append(m.data), LATCHED
        )
        wait_for(lambda: received, what="the latched robot_description")
        assert received == [urdf]


# --- two arms in one graph ----------------------------------------------------------------------


class JointStateLog:
    """Every joint_states message of one namespace: the names it carried and its positions."""

    def __init__(self) -> None:
        self.names: set[tuple[str, ...]] = set()
        self.positions: list[tuple[float, ...]] = []
        self._lock = threading.Lock()

    def __call__(self, message: JointState) -> None:
        with self._lock:
            self.names.add(tuple(message.name))
            self.positions.append(tuple(message.position))

    def count(self) -> int:
        with self._lock:
            return len(self.positions)

    def last(self) -> tuple[float, ...]:
        with self._lock:
            return self.positions[-1]

    def since(self, index: int) -> list[tuple[float, ...]]:
        with self._lock:
            return self.positions[index:]


def _near(positions: Sequence[float], target: Sequence[float], tolerance: float) -> bool:
    return len(positions) == len(target) and all(
        abs(p - t) <= tolerance for p, t in zip(positions, target, strict=True)
    )


@pytest.mark.ros
def test_two_bringups_in_two_namespaces_do_not_cross_talk() -> None:
    from arm_kinematics_interfaces.action import MoveArm
    from arm_kinematics_interfaces.srv import ComputeFK

    arms = {"arm_a": ArmConfig.from_file(CONFIG_2R), "arm_b": ArmConfig.from_file(CONFIG_3R)}
    executable = installed_executable("bringup")
    processes = {
        # The 2R arm with the file's backend, the 3R example with the backend given.
        # Each with its web bridge on a free port (two on the default 8080 would collide).
        # --frame-prefix '': the arms' frames unprefixed, as this test stamps its clicks in
        # base_link; test_two_mounted_arms_with_prefixes_form_one_tree covers prefixed arms.
        "arm_a": start_node_process(
            executable,
            "--namespace",
            "arm_a",
            "--config",
            str(CONFIG_2R),
            "--web-port",
            "0",
            "--frame-prefix",
            "",
        ),
        "arm_b": start_node_process(
            executable,
            "--namespace",
            "/arm_b",
            "--config",
            str(CONFIG_3R),
            "--hardware",
            "sim",
            "--web-port",
            "0",
            "--frame-prefix",
            "",
        ),
    }
    exits: dict[str, tuple[int, str]] = {}
    try:
        with ros_graph() as graph:
            probe = graph.node("two_arm_probe")
            logs = {ns: JointStateLog() for ns in arms}
            descriptions: dict[str, list[str]] = {ns: [] for ns in arms}
            for ns in arms:
                probe.create_subscription(JointState, f"/{ns}/joint_states", logs[ns], 50)
                probe.create_subscription(
                    String,
                    f"/{ns}/robot_description",
                    lambda m, ns=ns: descriptions[ns].append(m.data),
                    LATCHED,
                )

            for ns, config in arms.items():
                # Each arm's service answers for that arm's own geometry.
                client = probe.create_client(ComputeFK, f"/{ns}/compute_fk")
                request = ComputeFK.Request()
                request.joints.name = list(config.joint_names)
                request.joints.position = [0.0] * len(config.joints)
                response = graph.call(client, request)
                assert response.status == ComputeFK.Response.OK, response.message
                assert response.tip.pose.position.x == pytest.approx(sum(config.link_lengths))
                # The URDF links as TF has them: the base, one per joint, the tool.
                assert len(response.frames) == len(config.joints) + 2

                wait_for(lambda ns=ns: logs[ns].count() >= 10, what=f"/{ns}/joint_states")
                wait_for(lambda ns=ns: descriptions[ns], what=f"/{ns}/robot_description")
                urdf = ET.fromstring(descriptions[ns][0])
                revolute = [
                    j.get("name") for j in urdf.iter("joint") if j.get("type") == "revolute"
                ]
                assert revolute == list(config.joint_names)
                assert _near(logs[ns].last(), config.home, 1e-9)

            # Each namespace holds its own four nodes, and the topics that the RViz config and
            # the docs name exist there; no arm node sits in the root namespace.
            # Discovery of each node and endpoint can lag the first messages: wait, don't sample.
            for ns in arms:
                for name in (
                    "ik_node",
                    "trajectory_node",
                    "hardware_node",
                    "robot_description_publisher",
                ):
                    wait_for(
                        lambda name=name, ns=ns: (
                            (name, f"/{ns}") in probe.get_node_names_and_namespaces()
                        ),
                        what=f"node {name} in /{ns}",
                    )
                wait_for(lambda ns=ns: probe.count_publishers(f"/{ns}/ik_markers") >= 1)
                wait_for(lambda ns=ns: probe.count_publishers(f"/{ns}/trajectory_markers") >= 1)
                wait_for(lambda ns=ns: probe.count_subscribers(f"/{ns}/clicked_point") >= 1)

            # Nodes of earlier tests in this ROS domain can stay in the graph for a while after
            # they are gone (DDS announces a departure late on a loaded machine); a bringup node
            # in the root namespace would stay for good.
            def arm_nodes_in_root() -> list[str]:
                return [
                    name
                    for name, namespace in probe.get_node_names_and_namespaces()
                    if namespace == "/" and name != "two_arm_probe"
                ]

            try:
                wait_for(lambda: not arm_nodes_in_root(), what="no arm node in the root namespace")
            except AssertionError as error:
                raise AssertionError(f"{error}: {arm_nodes_in_root()}") from None

            # Move the 3R arm_b by a joint command: it gets there, arm_a does not stir.
            target_b = (0.3, -0.6, 0.4)
            commands = probe.create_publisher(JointState, "/arm_b/joint_commands", 10)
            wait_for(lambda: commands.get_subscription_count() >= 1, what="arm_b joint_commands")
            a_start = logs["arm_a"].count()
            commands.publish(JointState(name=list(arms["arm_b"].joint_names), position=target_b))
            wait_for(lambda: _near(logs["arm_b"].last(), target_b, 1e-9), what="arm_b at target")
            wait_for(lambda: logs["arm_a"].count() >= a_start + 25, what="arm_a joint_states")

            # Click a point for arm_a (RViz's Publish Point): it moves there in a straight line,
            # arm_b stays put.
            arm_a = arms["arm_a"].make_arm()
            clicked = (0.15, -0.03)
            server = ActionClient(probe, MoveArm, "/arm_a/move_arm")
            wait_for(lambda: server.wait_for_server(timeout_sec=0.1), what="/arm_a/move_arm")
            clicks = probe.create_publisher(PointStamped, "/arm_a/clicked_point", 10)
            wait_for(lambda: clicks.get_subscription_count() >= 1, what="arm_a clicked_point")
            a_click, b_start = logs["arm_a"].count(), logs["arm_b"].count()
            click = PointStamped()
            click.header.frame_id = "base_link"
            click.point.x, click.point.y = clicked
            clicks.publish(click)

            def arm_a_at_click() -> bool:
                x, y, _ = arm_a.forward(logs["arm_a"].last())
                return math.hypot(x - clicked[0], y - clicked[1]) < 1e-6

            wait_for(arm_a_at_click, what="arm_a at the clicked point")
            wait_for(lambda: logs["arm_b"].count() >= b_start + 25, what="arm_b joint_states")

            for ns, config in arms.items():
                # Only this arm's joint names ever arrived on its joint_states.
                assert logs[ns].names == {config.joint_names}
            home_a = arms["arm_a"].home
            assert all(_near(p, home_a, 1e-9) for p in logs["arm_a"].positions[a_start:a_click])
            # The click moved arm_a along the straight line: every sampled tip lies on the segment
            # (to 0.5 mm: joint_states sample the servos between 1 mm apart setpoints).
            start = np.array(arm_a.forward(home_a)[:2])
            segment = np.array(clicked) - start
            moved = logs["arm_a"].since(a_click)
            assert len(set(moved)) > 10
            for joints in moved:
                tip = np.array(arm_a.forward(joints)[:2]) - start
                along = np.clip(tip @ segment / (segment @ segment), 0.0, 1.0)
                assert np.linalg.norm(tip - along * segment) < 5e-4
            assert all(_near(p, target_b, 1e-9) for p in logs["arm_b"].since(b_start))

            # Ctrl-C on arm_a in the middle of a 2 s move: it stops short of the goal and exits
            # cleanly; arm_b keeps running and keeps still.
            at_click = logs["arm_a"].last()
            goal = (0.14, 0.08)
            click.point.x, click.point.y = goal
            clicks.publish(click)
            wait_for(lambda: not _near(logs["arm_a"].last(), at_click, 1e-3), what="arm_a moving")
            exits["arm_a"] = stop_process(processes["arm_a"])
            x, y, _ = arm_a.forward(logs["arm_a"].last())
            assert math.hypot(x - goal[0], y - goal[1]) > 0.01
            b_count = logs["arm_b"].count()
            wait_for(lambda: logs["arm_b"].count() >= b_count + 10, what="arm_b still publishing")
            assert all(_near(p, target_b, 1e-9) for p in logs["arm_b"].since(b_start))
    except BaseException:
        for ns, process in processes.items():
            code, output = exits.get(ns) or stop_process(process)
            print(f"--- bringup {ns} exited {code}:\n{output}")
        raise

    exits["arm_b"] = stop_process(processes["arm_b"])
    for ns, (code, output) in exits.items():
        assert code == 0, f"{ns} exited {code}:\n{output}"
        assert "Traceback" not in output, output
        assert "never retrieved" not in output, output
        assert "servos released" in output, output


MOUNTS = {  # namespace -> (xyz m, rpy deg): two arms on one table in world, facing each other
    "left_arm": ((0.0, 0.25, 0.8), (0.0, 0.0, -90.0)),
    "right_arm": ((0.0, -0.25, 0.8), (0.0, 0.0, 90.0)),
}


def mounted_config(tmp_path: Path, namespace: str) -> Path:
    """arm.yaml with the mount of `namespace` in world."""
    document = yaml.safe_load(CONFIG_2R.read_text())
    xyz, rpy = MOUNTS[namespace]
    document["/**"]["ros__parameters"]["mount"] = {
        "parent_frame": "world",
        "xyz_m": list(xyz),
        "rpy_deg": list(rpy),
    }
    path = tmp_path / f"{namespace}.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.mark.ros
def test_two_mounted_arms_with_prefixes_form_one_tree(tmp_path: Path) -> None:
    from arm_kinematics.frames import Mount
    from arm_kinematics_interfaces.srv import ComputeFK, SolveIK

    configs = {ns: mounted_config(tmp_path, ns) for ns in MOUNTS}
    executable = installed_executable("bringup")
    processes = {
        ns: start_node_process(executable, "--namespace", ns, "--config", str(path), "--no-web")
        for ns, path in configs.items()
    }
    exits: dict[str, tuple[int, str]] = {}
    try:
        with ros_graph() as graph:
            probe = graph.node("mounted_probe")
            descriptions: dict[str, list[str]] = {ns: [] for ns in MOUNTS}
            for ns in MOUNTS:
                probe.create_subscription(
                    String,
                    f"/{ns}/robot_description",
                    lambda m, ns=ns: descriptions[ns].append(m.data),
                    LATCHED,
                )
            parents: dict[str, str] = {}  # child link -> parent link, over both arms
            for ns, (xyz, rpy) in MOUNTS.items():
                wait_for(lambda ns=ns: descriptions[ns], what=f"/{ns}/robot_description")
                urdf = ET.fromstring(descriptions[ns][0])
                links = {link.get("name") for link in urdf.iter("link")}
                assert links == {
                    "world",
                    f"{ns}/base_link",
                    f"{ns}/link_1",
                    f"{ns}/link_2",
                    f"{ns}/tool0",
                }
                (mount,) = [
                    j for j in urdf.iter("joint") if j.find("parent").get("link") == "world"
                ]
                assert mount.find("child").get("link") == f"{ns}/base_link"
                origin = mount.find("origin")
                assert [float(v) for v in origin.get("xyz").split()] == pytest.approx(xyz)
                assert [float(v) for v in origin.get("rpy").split()] == pytest.approx(
                    [math.radians(v) for v in rpy]
                )
                for joint in urdf.iter("joint"):
                    child = joint.find("child").get("link")
                    assert child not in parents, f"{child} has two parents"
                    parents[child] = joint.find("parent").get("link")
            # One tree: every link of both arms leads up to the one shared root, world.
            all_links = set(parents) | set(parents.values())
            roots = {link for link in all_links if link not in parents}
            assert roots == {"world"}
            assert len(all_links) == 9

            # A point on the left arm's plane, given in world: the left arm solves it like the
            # same point in its base frame; the right arm, 0.5 m away, answers for itself.
            arm = ArmConfig.from_file(CONFIG_2R).make_arm()
            base_x, base_y, _ = arm.forward((0.3, 0.8))
            left = Mount.from_pose(
                "world", MOUNTS["left_arm"][0], [math.radians(v) for v in MOUNTS["left_arm"][1]]
            )
            world = left.point_to_parent((base_x, base_y, 0.0))

            def request(frame: str, x: float, y: float, z: float) -> SolveIK.Request:
                message = SolveIK.Request()
                message.target.header.frame_id = frame
                position = message.target.pose.position
                position.x, position.y, position.z = x, y, z
                message.branch = SolveIK.Request.BRANCH_ELBOW_DOWN
                return message

            clients = {ns: probe.create_client(SolveIK, f"/{ns}/solve_ik") for ns in MOUNTS}
            in_world = graph.call(clients["left_arm"], request("world", *world))
            in_base = graph.call(
                clients["left_arm"], request("left_arm/base_link", base_x, base_y, 0.0)
            )
            assert in_world.status == SolveIK.Response.OK, in_world.message
            assert in_world.solution.position == pytest.approx((0.3, 0.8), abs=1e-9)
            assert in_world.solution.position == pytest.approx(in_base.solution.position, abs=1e-12)
            assert "solved in 'left_arm/base_link'" in in_world.message
            other = graph.call(clients["right_arm"], request("world", *world))
            assert other.status == SolveIK.Response.TOO_FAR, other.message
            crossed = graph.call(
                clients["left_arm"], request("right_arm/base_link", base_x, base_y, 0.0)
            )
            assert crossed.status == SolveIK.Response.WRONG_FRAME
            assert "'left_arm/base_link'" in crossed.message

            for ns in MOUNTS:
                client = probe.create_client(ComputeFK, f"/{ns}/compute_fk")
                fk_request = ComputeFK.Request()
                fk_request.joints.name = ["shoulder", "elbow"]
                fk_request.joints.position = [0.3, 0.8]
                fk = graph.call(client, fk_request)
                assert fk.tip.header.frame_id == f"{ns}/base_link"
                assert f"tip '{ns}/tool0'" in fk.message
    except BaseException:
        for ns, process in processes.items():
            code, output = exits.get(ns) or stop_process(process)
            print(f"--- bringup {ns} exited {code}:\n{output}")
        raise
    for ns, process in processes.items():
        code, output = stop_process(process)
        assert code == 0, f"{ns} exited {code}:\n{output}"
        assert f"frames {ns}/base_link" in output
        assert "Traceback" not in output, output
