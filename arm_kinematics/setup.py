from glob import glob

from setuptools import find_packages, setup

package_name = "arm_kinematics"

setup(
    name=package_name,
    version="0.1.0",
    packages=find_packages(exclude=["test"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml", "LICENSE"]),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        ("share/" + package_name + "/config", glob("config/*.yaml")),
        ("share/" + package_name + "/sequences", glob("sequences/*.yaml")),
        ("share/" + package_name + "/urdf", glob("urdf/*.xacro")),
        ("share/" + package_name + "/rviz", glob("rviz/*.rviz")),
        ("share/" + package_name + "/web", glob("web/*.*")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="arm_kinematics developers",
    maintainer_email="arm-kinematics@example.org",
    description="Kinematics, IK, straight-line moves and servo driving for hobby-servo arms.",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "ik_node = arm_kinematics.nodes.entry:ik_node",
            "trajectory_node = arm_kinematics.nodes.entry:trajectory_node",
            "hardware_node = arm_kinematics.nodes.entry:hardware_node",
            "bringup = arm_kinematics.nodes.entry:bringup",
            "web_bridge = arm_kinematics.nodes.entry:web_bridge",
            "ik_client = arm_kinematics.cli.ik_client:main",
            "move_arm = arm_kinematics.cli.move_arm:main",
            "gripper = arm_kinematics.cli.gripper:main",
            "named_pose = arm_kinematics.cli.named_pose:main",
            "run_sequence = arm_kinematics.cli.run_sequence:main",
            "kinematics_tour = arm_kinematics.cli.tour:main",
            "arm_description = arm_kinematics.cli.description:main",
        ],
    },
)
