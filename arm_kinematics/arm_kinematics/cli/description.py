"""`arm_description`: the arm's URDF as a parameters file for robot_state_publisher.

    arm_description > arm_description.yaml                         # config/arm.yaml, no namespace
    arm_description --config my_arm.yaml --namespace left_arm > left_arm_description.yaml
    arm_description --from-topic --namespace left_arm > left.yaml   # what a running bringup latched
    ros2 run robot_state_publisher robot_state_publisher --ros-args \\
      --params-file left_arm_description.yaml -r __ns:=/left_arm

Why a file: `-p robot_description:="$(...)"` hands the URDF to rcl's parameter parser as YAML
text, which fails on the comments xacro copies into the URDF (a bare ": " in a value) and on
any ' #' in it. A parameters file written by a YAML library quotes the text, so rcl reads it back
exactly. The URDF comes from the same xacro and options as `bringup`'s (`description.py`), or,
with `--from-topic`, from the `robot_description` topic that bringup (or robot_state_publisher)
latches, for a machine that has not got the arm's config file.

Exit codes: 0 written; 1 bad command line or config; 2 nothing on the topic in time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import yaml

from arm_kinematics.cli.common import EXIT_BAD_COMMAND_LINE, ClientParser

EXIT_NO_DESCRIPTION = 2
PARAMETER = "robot_description"


def build_parser() -> argparse.ArgumentParser:
    parser = ClientParser(
        prog="arm_description",
        description="Write the arm's URDF as a ROS 2 parameters file (robot_description) for "
        "robot_state_publisher, from the config file as bringup builds it, or from the "
        "latched robot_description topic.",
    )
    parser.add_argument(
        "--config", default=None, help="params file of the arm (default: config/arm.yaml)"
    )
    parser.add_argument(
        "--namespace", default="", help="the arm's namespace, as given to bringup (default none)"
    )
    parser.add_argument(
        "--frame-prefix",
        default=None,
        help="prefix of the arm's TF frames (default: the namespace and '/', as bringup does)",
    )
    parser.add_argument(
        "--from-topic",
        action="store_true",
        help="read <namespace>/robot_description from the running graph instead of the config",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait with --from-topic"
    )
    parser.add_argument(
        "--urdf", action="store_true", help="write the plain URDF instead of a parameters file"
    )
    parser.add_argument("--output", "-o", default="-", help="file to write (default: stdout)")
    return parser


def parameters_file(urdf: str) -> str:
    """A ROS 2 parameters file that gives every node (`/**`) the parameter robot_description.

    >>> text = parameters_file('<robot name="arm"><!-- a: b # c --></robot>')
    >>> yaml.safe_load(text)["/**"]["ros__parameters"]["robot_description"]
    '<robot name="arm"><!-- a: b # c --></robot>'
    """
    document = {"/**": {"ros__parameters": {PARAMETER: urdf}}}
    return yaml.safe_dump(document, default_flow_style=False, width=1_000_000)


def from_config(config: str | None, namespace: str, frame_prefix: str | None) -> str:
    """The URDF bringup latches for these options (ValueError/ConfigError when invalid)."""
    from arm_kinematics.description import robot_description
    from arm_kinematics.names import absolute_namespace, frame_prefix_for

    prefix = frame_prefix_for(frame_prefix, absolute_namespace(namespace))
    return robot_description(config, prefix)


def from_topic(namespace: str, timeout: float) -> str | None:
    """The latched `<namespace>/robot_description` (std_msgs/String), or None after `timeout`
    seconds."""
    import time

    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    from arm_kinematics.names import absolute_namespace

    topic = absolute_namespace(namespace).rstrip("/") + "/" + PARAMETER
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = rclpy.create_node("arm_description", context=context)
        latched = QoSProfile(
            depth=1,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
        received: list[str] = []
        node.create_subscription(String, topic, lambda msg: received.append(msg.data), latched)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        deadline = time.monotonic() + timeout
        while not received and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
        node.destroy_node()
        return received[0] if received else None
    finally:
        rclpy.try_shutdown(context=context)


def run(argv: Sequence[str]) -> int:
    """The command for `argv` (argv[0] is the program); the exit code."""
    from arm_kinematics.config import ConfigError

    args = build_parser().parse_args(list(argv)[1:])
    if args.from_topic:
        urdf = from_topic(args.namespace, args.timeout)
        if urdf is None:
            print(
                f"arm_description: nothing on {args.namespace or '/'} robot_description within "
                f"{args.timeout:g} s (is bringup running, with the same ROS_DOMAIN_ID?)",
                file=sys.stderr,
            )
            return EXIT_NO_DESCRIPTION
    else:
        try:
            urdf = from_config(args.config, args.namespace, args.frame_prefix)
        except (ValueError, ConfigError) as error:
            print(f"arm_description: {error}", file=sys.stderr)
            return EXIT_BAD_COMMAND_LINE
    text = urdf if args.urdf else parameters_file(urdf)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    return 0


def main() -> None:
    sys.exit(run(sys.argv))
