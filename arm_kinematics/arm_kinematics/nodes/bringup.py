"""The whole arm in one process, for machines without `ros2 launch`.

    bringup                                   # config/arm.yaml, its backend, no namespace
    bringup --config arm_3r.yaml --hardware sim --namespace left_arm
    bringup --namespace left_arm --ros-args --log-level debug

Composes the hardware, IK and trajectory nodes, a small node that latches the arm's URDF on
`robot_description` and (unless --no-web) web_bridge, the page on http://127.0.0.1:8080/, all
on one multi-threaded executor (nodes/runner.py). Every node reads the
same params file (`--params-file`), the backend option overrides `hardware.backend` for all of
them, and the namespace is applied as the `__ns` remapping, so all names stay relative and two
bringups in two namespaces do not see each other. The arm's TF frames get the namespace as
their prefix (`--namespace left_arm`: `left_arm/base_link`, ...; `--frame-prefix` overrides it),
in every node's `frame_prefix` parameter and in the latched URDF, so that two arms share one
/tf as one tree (with their mounts in one `world`). Ctrl-C or SIGTERM shuts down cleanly: each
node's close() runs (the trajectory node cancels its goal before the hardware node releases or
holds the servos, per `hardware.on_shutdown`) and the process exits 0.

A ROS machine on the same network shows the arm in RViz by running its own
robot_state_publisher (or RViz's RobotModel display) on this namespace's robot_description.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from arm_kinematics.config import BACKENDS, ArmConfig, ConfigError, default_config_path
from arm_kinematics.description import robot_description
from arm_kinematics.names import absolute_namespace, frame_prefix_for
from arm_kinematics.nodes.params import (
    check_unknown_parameters,
    given_arm_names,
    take_given_parameters,
)
from arm_kinematics.nodes.runner import run_nodes

EXIT_BAD_ARGUMENTS = 2


class RobotDescriptionPublisher(Node):
    """Latches the URDF on `robot_description` (std_msgs/String, transient local), as
    robot_state_publisher does, and offers it as the read-only parameter of the same name."""

    def __init__(self, urdf: str, **kwargs) -> None:
        # What it was given is read from rclpy's declaration of it (nodes/params.py).
        super().__init__(
            "robot_description_publisher",
            automatically_declare_parameters_from_overrides=True,
            **kwargs,
        )
        given = take_given_parameters(self)
        check_unknown_parameters(self, given, *given_arm_names(given))
        self.declare_parameter(
            "robot_description",
            urdf,
            ParameterDescriptor(description="the arm's URDF (XML)", read_only=True),
        )
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        self._publisher = self.create_publisher(String, "robot_description", latched)
        self._publisher.publish(String(data=urdf))
        self.get_logger().info(
            f"latched the URDF ({len(urdf)} characters) on {self._publisher.topic_name}"
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bringup",
        description="Start the arm's IK, trajectory and hardware nodes in one process, and "
        "latch its URDF on robot_description. Extra ROS arguments may follow --ros-args.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="params file of the arm (default: the package's config/arm.yaml)",
    )
    parser.add_argument(
        "--hardware",
        choices=BACKENDS,
        default=None,
        help="servo backend; overrides the file's hardware.backend (default: the file's)",
    )
    parser.add_argument(
        "--namespace",
        default="",
        help="namespace of every node, topic, service and action of this arm (default: none)",
    )
    parser.add_argument(
        "--frame-prefix",
        default=None,
        help="prefix of the arm's TF frames, e.g. left_arm/ ('' for none; default: the "
        "namespace and '/', else the file's frame_prefix)",
    )
    parser.add_argument(
        "--no-web",
        dest="web",
        action="store_false",
        help="do not start web_bridge (the page and its rosbridge WebSocket)",
    )
    parser.add_argument(
        "--web-port",
        type=int,
        default=None,
        help="web_bridge's port (default 8080; 0 = any free port, the log gives the URL)",
    )
    parser.add_argument(
        "--web-host",
        default=None,
        help="web_bridge's bind address (default 127.0.0.1; anything else is reachable from "
        "the network)",
    )
    return parser


def ros_arguments(
    config: Path, hardware: str | None, namespace: str, frame_prefix: str | None = None
) -> list[str]:
    """The `--ros-args` block that gives every node of the process the arm's settings
    (`frame_prefix` None: the file's)."""
    # config_file: hardware_node's (calibration/save writes beside or over it) and
    # trajectory_node's (named poses and sequences are kept beside it); the other nodes do not
    # declare it. Quoted: the value is read as YAML.
    arguments = ["--ros-args", "--params-file", str(config), "-p", f"config_file:='{config}'"]
    if hardware is not None:
        arguments += ["-p", f"hardware.backend:={hardware}"]
    if frame_prefix is not None:
        # Quoted: the value is read as YAML, where a bare empty value would be null.
        arguments += ["-p", f"frame_prefix:='{frame_prefix}'"]
    if namespace != "/":
        arguments += ["-r", f"__ns:={namespace}"]
    return arguments


def node_factories(urdf: str, web: dict[str, str | int] | None = None) -> list[Callable[[], Node]]:
    """The nodes, in start order; the runner closes them in reverse order.

    `web`: web_bridge's parameters set by options (host, port), or None for no web_bridge.
    """
    # Imported here so that `bringup --help` and argument errors do not load the nodes.
    from arm_kinematics.nodes.hardware_node import HardwareNode
    from arm_kinematics.nodes.ik_node import IkNode
    from arm_kinematics.nodes.trajectory_node import TrajectoryNode

    # Hardware first (joint_states flow before anything plans), trajectory last among the arm
    # nodes so that on shutdown its goal is canceled before the servos are released.
    factories: list[Callable[[], Node]] = [
        HardwareNode,
        IkNode,
        TrajectoryNode,
        lambda: RobotDescriptionPublisher(urdf),
    ]
    if web is not None:
        from rclpy.parameter import Parameter

        from arm_kinematics.nodes.web_bridge import WebBridge

        # Started last, closed first: its clients' goals are canceled before the arm stops.
        overrides = [Parameter(name, value=value) for name, value in web.items()]
        factories.append(lambda: WebBridge(parameter_overrides=overrides))
    return factories


def main(argv: Sequence[str] | None = None) -> None:
    import rclpy.utilities

    argv = list(sys.argv if argv is None else argv)
    # Options are read from the arguments outside --ros-args blocks; those blocks go to rclpy.
    options = _parser().parse_args(rclpy.utilities.remove_ros_args(argv)[1:])
    config_path = (options.config or default_config_path()).expanduser().resolve()
    try:
        namespace = absolute_namespace(options.namespace)
        frame_prefix = frame_prefix_for(options.frame_prefix, namespace)
        config = ArmConfig.from_file(config_path)
        # Validates the prefix too (ConfigError naming frame_prefix).
        urdf = robot_description(config_path, frame_prefix)
    except (ValueError, ConfigError) as error:  # ConfigError is a ValueError too
        print(f"bringup: {error}", file=sys.stderr)
        sys.exit(EXIT_BAD_ARGUMENTS)
    backend = options.hardware or config.hardware.backend
    prefix = config.frame_prefix if frame_prefix is None else frame_prefix
    print(
        f"bringup: {len(config.joints)}-joint arm from {config_path}, backend {backend}, "
        f"namespace {namespace}, frames {prefix}{config.base_frame}...",
        file=sys.stderr,
        flush=True,
    )
    # Ours first, the user's own --ros-args blocks after them (they win on a conflict).
    rcl_arguments = [
        argv[0],
        *ros_arguments(config_path, options.hardware, namespace, frame_prefix),
        "--",
    ]
    rcl_arguments += argv[1:]
    web = None
    if options.web:
        web = {"port": options.web_port, "host": options.web_host}
        web = {name: value for name, value in web.items() if value is not None}
    sys.exit(run_nodes(node_factories(urdf, web), args=rcl_arguments))


if __name__ == "__main__":
    main()
