"""The whole arm: IK, trajectory and hardware nodes, robot_state_publisher, the web page's bridge
and (optionally) RViz.

    ros2 launch arm_kinematics arm.launch.py                  # the page on http://127.0.0.1:8080/
    ros2 launch arm_kinematics arm.launch.py rviz:=true web:=false
    ros2 launch arm_kinematics arm.launch.py config:=my_arm.yaml hardware:=servokit
    ros2 launch arm_kinematics arm.launch.py namespace:=left_arm      # frames left_arm/base_link...
    ros2 launch arm_kinematics arm.launch.py namespace:=right_arm web_port:=8081   # a second arm

Every node reads the same params file (`config`); the URDF for robot_state_publisher is expanded
from urdf/arm.urdf.xacro with that same file, so the model and the kinematics agree. All topic,
service and action names are relative: with `namespace:=left_arm` they move under /left_arm, and
two arms in two namespaces do not see each other's services. TF is shared: every arm publishes
on the one /tf and /tf_static, its frames named with `frame_prefix` (by default the namespace
and '/', e.g. left_arm/base_link), so two arms mounted in one `world` are one tree.

The prefix goes to every node as the `frame_prefix` parameter and to xacro as its argument;
robot_state_publisher gets the prefixed URDF and no `frame_prefix` of its own, because its
prefix would also rename the URDF's root (the mount's parent, e.g. world -> left_arm/world) and
split the tree.

The arm's nodes are required, as roslaunch's `required="true"` was: when one of them ends
while the launch runs (a bad parameter, a port in use, a board that cannot be opened: its log
line says why, and launch logs "process has died ... exit code N"), `_end_the_launch` says
which and shuts the launch down, and every other node stops as on Ctrl-C. An arm without its
hardware node or its page is not left running half-started. RViz is not required: closing its
window leaves the arm running.
"""

from __future__ import annotations

import os

from launch import LaunchContext, LaunchDescription
from launch.actions import (
    DeclareLaunchArgument,
    LogInfo,
    OpaqueFunction,
    SetLaunchConfiguration,
    Shutdown,
)
from launch.conditions import IfCondition
from launch.events.process import ProcessExited
from launch.substitutions import (
    Command,
    FindExecutable,
    LaunchConfiguration,
    PathJoinSubstitution,
)
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

PACKAGE = "arm_kinematics"
#: The frame_prefix argument's default: the namespace and '/', or the file's prefix without one.
NAMESPACE_PREFIX = "<namespace>/"


def _absolute_config(context: LaunchContext) -> list[SetLaunchConfiguration]:
    """Make `config` absolute: xacro resolves a relative path against the xacro's folder."""
    path = os.path.abspath(os.path.expanduser(LaunchConfiguration("config").perform(context)))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"arm.launch.py: config file not found: {path}")
    return [SetLaunchConfiguration("config", path)]


def _frames(context: LaunchContext) -> list[SetLaunchConfiguration]:
    """Resolve `frame_prefix` (its default from the namespace) and RViz's fixed frame."""
    from arm_kinematics.names import launch_frames

    requested = LaunchConfiguration("frame_prefix").perform(context)
    prefix, fixed_frame = launch_frames(
        LaunchConfiguration("config").perform(context),
        None if requested == NAMESPACE_PREFIX else requested,
        LaunchConfiguration("namespace").perform(context),
    )
    return [
        SetLaunchConfiguration("frame_prefix", prefix),
        SetLaunchConfiguration("rviz_fixed_frame", fixed_frame),
    ]


def _end_the_launch(event: ProcessExited, context: LaunchContext) -> list | None:
    """A required node ended (`on_exit` of each arm node): say so and shut the launch down,
    unless it is shutting down already (Ctrl-C)."""
    if context.is_shutdown:
        return None
    reason = (
        f"{event.process_name} ended with exit code {event.returncode} (its log above says "
        "why): stopping the arm's other nodes"
    )
    return [LogInfo(msg=reason), Shutdown(reason=reason)]


def generate_launch_description() -> LaunchDescription:
    config = LaunchConfiguration("config")
    hardware = LaunchConfiguration("hardware")
    rviz = LaunchConfiguration("rviz")
    namespace = LaunchConfiguration("namespace")
    web = LaunchConfiguration("web")
    frame_prefix = LaunchConfiguration("frame_prefix")
    web_port = LaunchConfiguration("web_port")

    # value_type=str: an empty prefix stays a string (launch_ros reads other values as YAML).
    arm_parameters = [
        config,
        {
            "hardware.backend": hardware,
            "frame_prefix": ParameterValue(frame_prefix, value_type=str),
        },
    ]
    robot_description = ParameterValue(
        Command(
            [
                FindExecutable(name="xacro"),
                " ",
                PathJoinSubstitution([FindPackageShare(PACKAGE), "urdf", "arm.urdf.xacro"]),
                " config:=",
                config,
                " frame_prefix:=",
                frame_prefix,
            ]
        ),
        value_type=str,
    )

    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "config",
                default_value=PathJoinSubstitution(
                    [FindPackageShare(PACKAGE), "config", "arm.yaml"]
                ),
                description="params file of the arm (geometry, limits, servos, rates); "
                "config/arm_3r.yaml is a 3-joint example",
            ),
            DeclareLaunchArgument(
                "hardware",
                default_value="sim",
                choices=["sim", "servokit"],
                description="servo backend: sim (simulated servos) or servokit (PCA9685 on I2C)",
            ),
            DeclareLaunchArgument(
                "rviz",
                default_value="false",
                choices=["true", "false"],
                description="also start RViz with rviz/arm.rviz",
            ),
            DeclareLaunchArgument(
                "web",
                default_value="true",
                choices=["true", "false"],
                description="also start web_bridge: the page and its rosbridge WebSocket on "
                "http://127.0.0.1:8080/",
            ),
            DeclareLaunchArgument(
                "web_port",
                default_value="8080",
                description="web_bridge's port on 127.0.0.1 (each arm on a machine needs its "
                "own, e.g. 8081 for a second one; 0: any free port, its log line gives the URL)",
            ),
            DeclareLaunchArgument(
                "namespace",
                default_value="",
                description="namespace of every node, topic, service and action of this arm",
            ),
            DeclareLaunchArgument(
                "frame_prefix",
                default_value=NAMESPACE_PREFIX,
                description="prefix of the arm's TF frames, e.g. left_arm/ (the namespace and "
                "'/' by default; without a namespace the config file's frame_prefix)",
            ),
            OpaqueFunction(function=_absolute_config),
            OpaqueFunction(function=_frames),
            Node(
                package=PACKAGE,
                executable="ik_node",
                namespace=namespace,
                parameters=arm_parameters,
                output="screen",
                on_exit=_end_the_launch,
            ),
            Node(
                package=PACKAGE,
                executable="trajectory_node",
                namespace=namespace,
                # config_file: named poses and sequences are kept beside the params file.
                parameters=[
                    *arm_parameters,
                    {"config_file": ParameterValue(config, value_type=str)},
                ],
                output="screen",
                on_exit=_end_the_launch,
            ),
            Node(
                package=PACKAGE,
                executable="hardware_node",
                namespace=namespace,
                # config_file: where calibration/save writes beside (or over) the params file.
                parameters=[
                    *arm_parameters,
                    {"config_file": ParameterValue(config, value_type=str)},
                ],
                output="screen",
                on_exit=_end_the_launch,
            ),
            Node(
                package=PACKAGE,
                executable="web_bridge",
                namespace=namespace,
                parameters=[*arm_parameters, {"port": ParameterValue(web_port, value_type=int)}],
                condition=IfCondition(web),
                output="screen",
                on_exit=_end_the_launch,
            ),
            Node(
                package="robot_state_publisher",
                executable="robot_state_publisher",
                namespace=namespace,
                parameters=[{"robot_description": robot_description}],
                output="screen",
                on_exit=_end_the_launch,
            ),
            Node(
                package="rviz2",
                executable="rviz2",
                namespace=namespace,
                arguments=[
                    "-d",
                    PathJoinSubstitution([FindPackageShare(PACKAGE), "rviz", "arm.rviz"]),
                    "-f",
                    LaunchConfiguration("rviz_fixed_frame"),
                ],
                condition=IfCondition(rviz),
                output="screen",
            ),
        ]
    )
