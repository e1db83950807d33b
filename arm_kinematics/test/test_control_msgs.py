"""control_msgs and moveit_msgs in both routes: the PyPI route's copies are Jazzy's on the wire.

PyPI has no control_msgs and no moveit_msgs, so `scripts/setup.sh` builds
`pypi_route/control_msgs` and `pypi_route/moveit_msgs`: only the interfaces that arm_kinematics
serves, under the same package names. A MoveIt or
ros2_controllers client matches our servers only where every type carries the type hash of the
real package (RIHS01, REP 2016: a SHA-256 of the type's name, its field names and types in
order, and the same of every type it nests). The hashes below were read from the real package:

    control_msgs 5.8.0, the Jazzy release (tag 5.8.0, the head of branch jazzy: commit
    f901df2662f22a39a06aa04a85a34602c47e3cc0 of 2026-02-02), built with colcon on 2026-12-01
    against this project's pinned ros-jazzy wheels (constraints.txt: common_interfaces 5.3.6,
    rcl_interfaces 2.0.3, rosidl 4.6.6), and read from its
    install/control_msgs/share/control_msgs/{msg,action}/<Name>.json ("type_hashes").

    control_msgs/msg/JointJog (5.8.0, the same tag) and moveit_msgs 2.6.0's (the Jazzy release,
    tag 2.6.0) msg/ServoStatus and srv/ServoCommandType, the upstream .msg and .srv files as
    they are, built the same way in scratch packages of those names (a type's hash depends only
    on its own definition and the types it nests) and read from their .json files.

The hash leaves two things out: constants (a type description has none) and field defaults
(removed before hashing). Both matter to a client (the FollowJointTrajectory error codes), so
they are compared as well, from the installed .idl files.

Under `make test` the packages found are this checkout's builds of the copies; in a ROS
workspace they are the real packages (the copies are behind COLCON_IGNORE), which must then
match the same record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ament_index_python.packages import get_package_prefix, get_package_share_directory
from catkin_pkg.packages import find_packages
from control_msgs.action import FollowJointTrajectory, GripperCommand
from control_msgs.msg import GripperCommand as GripperCommandMsg
from control_msgs.msg import JointComponentTolerance, JointJog, JointTolerance
from moveit_msgs.msg import ServoStatus
from rclpy.action import ActionServer
from ros_helpers import ros_graph, wait_for
from rosidl_parser.definition import Action, IdlLocator, Message, Service
from rosidl_parser.parser import parse_idl_file

REPO_DIR = Path(__file__).resolve().parents[2]
#: The PyPI route's stand-ins, each a folder of pypi_route/.
STAND_INS = ("control_msgs", "moveit_msgs")
#: The interfaces the copies carry, as <package>/<kind>/<Name>.
INTERFACES = (
    "control_msgs/action/FollowJointTrajectory",
    "control_msgs/action/GripperCommand",
    "control_msgs/msg/GripperCommand",
    "control_msgs/msg/JointComponentTolerance",
    "control_msgs/msg/JointJog",
    "control_msgs/msg/JointTolerance",
    "moveit_msgs/msg/ServoStatus",
    "moveit_msgs/srv/ServoCommandType",
)

#: Every control_msgs and moveit_msgs type named in those interfaces' .json files of the real
#: packages (Jazzy), with its hash; how they were obtained is in the module docstring.
JAZZY_TYPE_HASHES = {
    "control_msgs/action/FollowJointTrajectory": (
        "RIHS01_738ebcb7a2d7cfa42f9f1001cc99ce3a4383d1cfe508015d9be8485e4b1c66f6"
    ),
    "control_msgs/action/FollowJointTrajectory_Feedback": (
        "RIHS01_3fd0aaecf71725121ae1ff7f01098a5e0da581e672be18a6b2c286cb43d96b49"
    ),
    "control_msgs/action/FollowJointTrajectory_FeedbackMessage": (
        "RIHS01_80398fcb9674a79081a9906e2ccf0c804dd7cb15e22e362e606ee87186beab71"
    ),
    "control_msgs/action/FollowJointTrajectory_GetResult": (
        "RIHS01_e3ceb38e3e1867c8dc0f46014df26e90eb93422f27e9e97f936e07f94be4bc8b"
    ),
    "control_msgs/action/FollowJointTrajectory_GetResult_Event": (
        "RIHS01_43161a489e52daaa5bbc2fa74f73f1804d099574fcf8f819170807d75472662a"
    ),
    "control_msgs/action/FollowJointTrajectory_GetResult_Request": (
        "RIHS01_ecf7ea8463d3beec7084bca75216d0b01b87b6e1e4e09679bb26093041efcbe9"
    ),
    "control_msgs/action/FollowJointTrajectory_GetResult_Response": (
        "RIHS01_08eefbaa146ce02ba45898d5e99160afd6c4c54a30d159aee0f2ca6035b1580f"
    ),
    "control_msgs/action/FollowJointTrajectory_Goal": (
        "RIHS01_8a9060704b269608f5a340934cc26e66869dd14bdac29e2e7fd9ec8b9882d205"
    ),
    "control_msgs/action/FollowJointTrajectory_Result": (
        "RIHS01_8002e99ed2c14c6faa522f2a93c26d744c5982f254f9e98ff9c6f19789bdb220"
    ),
    "control_msgs/action/FollowJointTrajectory_SendGoal": (
        "RIHS01_b13789dddc325a7a962825c45e28c77d37237ec129dd0c34dc5994562938c57f"
    ),
    "control_msgs/action/FollowJointTrajectory_SendGoal_Event": (
        "RIHS01_906dd566308db02673c73c654f69bdd84738589629c1bc2841ddb49059ed1c6f"
    ),
    "control_msgs/action/FollowJointTrajectory_SendGoal_Request": (
        "RIHS01_179c93691f1f6d1d115881ff88c3917b7cc6eac2ba4bf56766cc7c4389e19ef1"
    ),
    "control_msgs/action/FollowJointTrajectory_SendGoal_Response": (
        "RIHS01_e6a48ba740ae254500129a877f0b071be8663a115da1a539b74599cc97921fbf"
    ),
    "control_msgs/action/GripperCommand": (
        "RIHS01_e17c0e644eccf14bea84a0a93e0977182872c2eb7873ca6694900059b46dbc84"
    ),
    "control_msgs/action/GripperCommand_Feedback": (
        "RIHS01_8f7c520077bab528bb9161ee3b83c81eee1f8aecadb8922ce82c79d667a819c4"
    ),
    "control_msgs/action/GripperCommand_FeedbackMessage": (
        "RIHS01_392ff03fcd872f9dc2405cbeb2897fcf011ad9998458b6aa85c603b8a49e431d"
    ),
    "control_msgs/action/GripperCommand_GetResult": (
        "RIHS01_7e60a7606063d4a2728d21badac099e68b734a196ac3ab42d1d4c668eb0bb3cd"
    ),
    "control_msgs/action/GripperCommand_GetResult_Event": (
        "RIHS01_c6a1f7afeb87bf8b3165bd7b03ec0173ffada35f083a583144ab7ac96edc5a04"
    ),
    "control_msgs/action/GripperCommand_GetResult_Request": (
        "RIHS01_1a3308da3acbc62cd8a3c823de80ba9e5f9b6bb6f6056d1ad6b29f5f285f97ae"
    ),
    "control_msgs/action/GripperCommand_GetResult_Response": (
        "RIHS01_32ed5e1b5906767a3e9914dca4c4aed22529918f6c2360e6fb382363d4df4b45"
    ),
    "control_msgs/action/GripperCommand_Goal": (
        "RIHS01_607d9f41eb241e1922e90f02125e87ae6bfb78f7f64a71dc92630263d01f8b6d"
    ),
    "control_msgs/action/GripperCommand_Result": (
        "RIHS01_bf512d5aa6a0e4fe4d8be22b2ec4a1973c3d250fa1f65e47450322c25c45c0a0"
    ),
    "control_msgs/action/GripperCommand_SendGoal": (
        "RIHS01_6bf8cc4ce80cd499e7dd3258c03c50c3fa6672b469ff8355339ef1df77fcd212"
    ),
    "control_msgs/action/GripperCommand_SendGoal_Event": (
        "RIHS01_5c80eac98bcde7d64faf4b94f77ef69f12e442870dc1eba26d25b4681ef9ac0a"
    ),
    "control_msgs/action/GripperCommand_SendGoal_Request": (
        "RIHS01_1b869b7b4042272dc0f8ed65468c4e57c9e532ea5e53ce74fda0767eefbfa983"
    ),
    "control_msgs/action/GripperCommand_SendGoal_Response": (
        "RIHS01_0c8dda5e9d39ab5e3162b66e79b292a4258659ddfcf8722d39463f718b6c59bc"
    ),
    "control_msgs/msg/GripperCommand": (
        "RIHS01_57eb8f326c9889ca8bb34ead82cc94cc09bf6bc5c3b6c09546dca3a00b589890"
    ),
    "control_msgs/msg/JointComponentTolerance": (
        "RIHS01_739ea7566931944d33830fa10f1bf5e7a7fbdc3172bce7a7eaac642bd6e3ffa4"
    ),
    "control_msgs/msg/JointJog": (
        "RIHS01_ba249455a20f70168a1acb7bf43b776b72ff1f7eb5fc4cfea443f749e963c6e7"
    ),
    "control_msgs/msg/JointTolerance": (
        "RIHS01_c254f9cece0f3b733017b6990fd46d1326e25242d6b8844398c97d9a88e7d648"
    ),
    "moveit_msgs/msg/ServoStatus": (
        "RIHS01_882a75f7648d6f8a9bf528e4787f51c58f2d5d88b702e450443d99f270e6936b"
    ),
    "moveit_msgs/srv/ServoCommandType": (
        "RIHS01_2065f4daf271249330596d344ecd48f5c2d2a52e3b21b1fc56d99c52b8eeae22"
    ),
    "moveit_msgs/srv/ServoCommandType_Event": (
        "RIHS01_3bf48f6df2b0646665d481ae4719a905ecbb72c94075999bcdfb6c5c453adeea"
    ),
    "moveit_msgs/srv/ServoCommandType_Request": (
        "RIHS01_4e77fd6a0be8f0d88b473f978c73130d6d142e0ffecd5d8199fa28c0086edae5"
    ),
    "moveit_msgs/srv/ServoCommandType_Response": (
        "RIHS01_ac641d6c80f659dc4f3124b0db491727326ce5e01084e05525a7cad9b1d5f5d8"
    ),
}

#: The constants of those types in the same build's .idl files (type -> name -> (type, value)).
JAZZY_CONSTANTS = {
    "control_msgs/action/FollowJointTrajectory_Result": {
        "SUCCESSFUL": ("int32", 0),
        "INVALID_GOAL": ("int32", -1),
        "INVALID_JOINTS": ("int32", -2),
        "OLD_HEADER_TIMESTAMP": ("int32", -3),
        "PATH_TOLERANCE_VIOLATED": ("int32", -4),
        "GOAL_TOLERANCE_VIOLATED": ("int32", -5),
    },
    "control_msgs/msg/JointComponentTolerance": {
        "X_AXIS": ("uint16", 1),
        "Y_AXIS": ("uint16", 2),
        "Z_AXIS": ("uint16", 3),
        "TRANSLATION": ("uint16", 4),
        "ROTATION": ("uint16", 5),
    },
    "moveit_msgs/msg/ServoStatus": {
        "INVALID": ("int8", -1),
        "NO_WARNING": ("int8", 0),
        "DECELERATE_FOR_APPROACHING_SINGULARITY": ("int8", 1),
        "HALT_FOR_SINGULARITY": ("int8", 2),
        "DECELERATE_FOR_LEAVING_SINGULARITY": ("int8", 3),
        "DECELERATE_FOR_COLLISION": ("int8", 4),
        "HALT_FOR_COLLISION": ("int8", 5),
        "JOINT_BOUND": ("int8", 6),
    },
    "moveit_msgs/srv/ServoCommandType_Request": {
        "JOINT_JOG": ("int8", 0),
        "TWIST": ("int8", 1),
        "POSE": ("int8", 2),
    },
}
#: Fields with a default value in the same build: none of these types has one.
JAZZY_DEFAULTS: dict[str, Any] = {}


def installed_share(package: str) -> Path:
    return Path(get_package_share_directory(package))


def pypi_route() -> bool:
    """Whether this checkout's own install is the workspace (scripts/setup.sh), not a ROS one."""
    return Path(get_package_prefix("arm_kinematics")).parent == REPO_DIR / "install"


def type_hashes(interface: str) -> dict[str, str]:
    """Type name -> hash of the stand-ins' types, as the installed package's
    <kind>/<Name>.json says for `interface` (<package>/<kind>/<Name>)."""
    package, name = interface.split("/", 1)
    generated = json.loads((installed_share(package) / f"{name}.json").read_text())
    return {
        entry["type_name"]: entry["hash_string"]
        for entry in generated["type_hashes"]
        if entry["type_name"].split("/")[0] in STAND_INS
    }


def idl_messages(interface: str) -> list[Message]:
    """The messages an installed .idl defines (an action's goal, result, feedback and
    feedback message; a service's request, response and event)."""
    package, name = interface.split("/", 1)
    content = parse_idl_file(IdlLocator(installed_share(package), f"{name}.idl")).content
    messages: list[Message] = []
    for element in content.elements:
        if isinstance(element, Message):
            messages.append(element)
        elif isinstance(element, Action):
            messages += [element.goal, element.result, element.feedback, element.feedback_message]
        elif isinstance(element, Service):
            messages += [element.request_message, element.response_message, element.event_message]
    return messages


def type_name(message: Message) -> str:
    return "/".join(message.structure.namespaced_type.namespaced_name())


def never_executed(goal_handle: Any) -> None:
    raise AssertionError("no goal is sent to these servers")


@pytest.mark.parametrize("package", STAND_INS)
def test_the_pypi_route_uses_its_copy_and_a_ros_workspace_the_real_package(package: str) -> None:
    installed = (installed_share(package) / "package.xml").read_text()
    copy = (REPO_DIR / "pypi_route" / package / "package.xml").read_text()
    if pypi_route():
        assert installed == copy, f"{installed_share(package)} is not pypi_route/{package}"
    else:
        assert installed != copy, f"a ROS workspace built the PyPI route's {package}"


def test_a_ros_workspace_does_not_see_the_copy_and_setup_sh_does() -> None:
    # What colcon (in a workspace whose src holds this repository) and rosdep (catkin_pkg)
    # find, and what setup.sh's colcon finds with the copy's folder as a base path of its own
    # (that it built the copy is the test above).
    colcon_list = [sys.executable, "-m", "colcon", "list", "--names-only", "--base-paths"]
    workspace = subprocess.run(
        [*colcon_list, str(REPO_DIR)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(workspace) == ["arm_kinematics", "arm_kinematics_interfaces"]
    rosdep = {package.name for package in find_packages(str(REPO_DIR)).values()}
    assert rosdep == {"arm_kinematics", "arm_kinematics_interfaces"}
    copies = [str(REPO_DIR / "pypi_route" / package) for package in STAND_INS]
    setup = subprocess.run(
        [*colcon_list, str(REPO_DIR), *copies], capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(setup) == ["arm_kinematics", "arm_kinematics_interfaces", *STAND_INS]


@pytest.mark.parametrize("interface", INTERFACES)
def test_type_hashes_equal_the_jazzy_release(interface: str) -> None:
    hashes = type_hashes(interface)
    assert interface in hashes
    assert {name: JAZZY_TYPE_HASHES.get(name) for name in hashes} == hashes


def test_every_recorded_type_is_generated() -> None:
    generated = set().union(*(type_hashes(interface) for interface in INTERFACES))
    assert generated == set(JAZZY_TYPE_HASHES)


def test_constants_and_defaults_equal_the_jazzy_release() -> None:
    constants: dict[str, dict[str, tuple[str, Any]]] = {}
    defaults: dict[str, Any] = {}
    for interface in INTERFACES:
        for message in idl_messages(interface):
            name = type_name(message)
            if message.constants:
                constants[name] = {c.name: (c.type.typename, c.value) for c in message.constants}
            for member in message.structure.members:
                if member.has_annotation("default"):
                    defaults[f"{name}.{member.name}"] = member.get_annotation_value("default")
    assert constants == JAZZY_CONSTANTS
    assert defaults == JAZZY_DEFAULTS


def test_the_hashes_on_the_wire_are_the_recorded_ones() -> None:
    # What DDS discovery carries: the hash the C type support reports for each endpoint.
    topics = {
        "joint_tolerance": JointTolerance,
        "joint_component_tolerance": JointComponentTolerance,
        "gripper_command": GripperCommandMsg,
        "delta_joint_cmds": JointJog,
        "status": ServoStatus,
    }
    actions = {"follow_joint_trajectory": FollowJointTrajectory, "gripper_cmd": GripperCommand}
    with ros_graph() as graph:
        node = graph.node("control_msgs_hashes")
        for topic, message_type in topics.items():
            node.create_publisher(message_type, topic, 1)
        for action, action_type in actions.items():
            ActionServer(node, action_type, action, execute_callback=never_executed)

        def wire_hash(topic: str) -> tuple[str, str]:
            info = wait_for(lambda: node.get_publishers_info_by_topic(topic), what=topic)[0]
            return info.topic_type, str(info.topic_type_hash)

        for topic, message_type in topics.items():
            name = message_type.__module__.split(".")[0] + f"/msg/{message_type.__name__}"
            assert wire_hash(f"/{topic}") == (name, JAZZY_TYPE_HASHES[name])
        for action, action_type in actions.items():
            name = f"control_msgs/action/{action_type.__name__}_FeedbackMessage"
            assert wire_hash(f"/{action}/_action/feedback") == (name, JAZZY_TYPE_HASHES[name])
