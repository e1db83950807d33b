"""The whole arm: IK, trajectory and hardware nodes, robot_state_publisher, the web page's bridge
and (optionally) RViz.

    ros2 launch arm_kinematics arm.launch.py                  # the page on http://127.0.0.1:8080/
    ros2 launch arm_kinematics arm.launch.py rviz:=true web:=false
    ros2 launch arm_kinematics arm.launch.py config:=my_arm.yaml hardware:=servokit
    ros2 launch arm_kinematics arm.launch.py namespace:=left_arm

Every node reads the same params file (`config`); the URDF for robot_state_publisher is expanded
from urdf/arm.urdf.xacro with that same file, so the model and the kinematics agree. All topic,
service and action names are relative: with `namespace:=left_arm` they move under /left_arm, and
two arms in two namespaces do not see each other. robot_state_publisher and RViz are remapped
from /tf and /tf_static to the namespace's tf and tf_static for the same reason (with no
namespace these are /tf and /tf_static as usual).
"""

from __future__ import annotations

import os

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, SetLaunchConfiguration
from launch.conditions import IfCondition
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
TF_REMAPPINGS = [("/tf", "tf"), ("/tf_static", "tf_static")]


def _absolute_config(context: LaunchContext) -> list[SetLaunchConfiguration]:
    """Make `config` absolute: xacro resolves a relative path against the xacro's folder."""
    path = os.path.abspath(os.path.expanduser(LaunchConfiguration("config").perform(context)))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"arm.launch.py: config file not found: {path}")
    return [SetLaunchConfiguration("config", path)]


def generate_launch_description() -> LaunchDescription:
    config = LaunchConfiguration("config")
    hardware = LaunchConfiguration("hardware")
    rviz = LaunchConfiguration("rviz")
    namespace = LaunchConfiguration("namespace")
    web = LaunchConfiguration("web")

    arm_parameters = [config, {"hardware.backend": hardware}]
    robot_description = ParameterValue(
        Command(
            [
                FindExecutable(name="xacro"),
                " ",
                PathJoinSubstitution([FindPackageShare(PACKAGE), "urdf", "arm.urdf.xacro"]),
                " config:=",
                config,
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
                "namespace",
                default_value="",
                description="namespace of every node, topic, service and action of this arm",
            ),
            OpaqueFunction(function=_absolute_config),
            Node(
                package=PACKAGE,
                executable="ik_node",
                namespace=namespace,
                parameters=arm_parameters,
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="trajectory_node",
                namespace=namespace,
                parameters=arm_parameters,
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="hardware_node",
                namespace=namespace,
                parameters=arm_parameters,
                output="screen",
            ),
            Node(
                package=PACKAGE,
                executable="web_bridge",
                namespace=namespace,
                parameters=arm_parameters,
                condition=IfCondition(web),
                output="screen",
            ),
            Node(
                package="robot_state_publisher",
                executable="robot_state_publisher",
                namespace=namespace,
                parameters=[{"robot_description": robot_description}],
                remappings=TF_REMAPPINGS,
                output="screen",
            ),
            Node(
                package="rviz2",
                executable="rviz2",
                namespace=namespace,
                arguments=[
                    "-d",
                    PathJoinSubstitution([FindPackageShare(PACKAGE), "rviz", "arm.rviz"]),
                ],
                remappings=TF_REMAPPINGS,
                condition=IfCondition(rviz),
                output="screen",
            ),
        ]
    )
