"""The only names a web_bridge client may use: this arm's own topics, services and action.

Names are resolved in the bridge node's namespace as ROS resolves relative names: with the
namespace `/left_arm`, `solve_ik` and `/left_arm/solve_ik` are the same service, `/solve_ik`
is another arm's and refused. `/diagnostics` is global (hardware_node publishes it there).
The type a client names, if any, must be the name's real type, written `pkg/msg/Name` (or
`pkg/Name`, as ROS 1 clients do). One parameter service is reachable, and only for the names it
lists: the hardware node's `get_parameters`, for its read-only `gripper.*` parameters (the unit
and ends of the gripper the page's buttons drive, as the `gripper` command reads them).

>>> allowed = AllowList("/left_arm")
>>> allowed.service("solve_ik", None).resolved
'/left_arm/solve_ik'
>>> allowed.service("/solve_ik", None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
arm_kinematics.bridge.protocol.ProtocolError: service '/solve_ik' is not one of this arm's ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from control_msgs.action import GripperCommand
from control_msgs.msg import JointJog
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, TwistStamped
from moveit_msgs.msg import ServoStatus
from rcl_interfaces.srv import GetParameters
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import MarkerArray

from arm_kinematics.bridge.convert import type_name
from arm_kinematics.bridge.protocol import MessageId, ProtocolError
from arm_kinematics.config import GRIPPER_UNIT_PARAMETERS
from arm_kinematics_interfaces.action import MoveArm, RunSequence
from arm_kinematics_interfaces.msg import CalibrationState
from arm_kinematics_interfaces.srv import (
    CalibrationFile,
    ComputeFK,
    DeleteNamedPose,
    DeleteSequence,
    JogServo,
    ListNamedPoses,
    ListSequences,
    PlanCartesianPath,
    SaveNamedPose,
    SaveSequence,
    SolveIK,
    SolveIKBatch,
)


@dataclass(frozen=True)
class Interface:
    """One allowed name: `name` as the nodes declare it, `resolved` in the bridge's namespace."""

    name: str
    type: type
    resolved: str = ""
    latched: bool = False  # published transient local: subscribe with the same durability
    subscribe: bool = False
    publish: bool = False
    # A GetParameters service: the only parameter names a request may ask for (empty: any
    # request of the type, for every other service).
    parameters: tuple[str, ...] = ()
    # A command stream (a jog's velocities, many a second): only the newest message counts, so
    # the bridge's publisher keeps one (depth 1) and never hands on a queue of old ones.
    latest_only: bool = False

    @property
    def type_name(self) -> str:
        return type_name(self.type)


TOPICS = (
    Interface("joint_states", JointState, subscribe=True),
    Interface("robot_description", String, latched=True, subscribe=True),
    Interface("ik_markers", MarkerArray, latched=True, subscribe=True),
    Interface("trajectory_markers", MarkerArray, latched=True, subscribe=True),
    Interface("/diagnostics", DiagnosticArray, subscribe=True),
    Interface("clicked_point", PointStamped, subscribe=True, publish=True),
    # Checked by trajectory_node (names, times, limits, speeds) like any other publisher's.
    Interface("joint_trajectory", JointTrajectory, publish=True),
    # The hardware node's calibration mode (the calibration page).
    Interface("calibration/state", CalibrationState, latched=True, subscribe=True),
    # The jog (MoveIt Servo's topics on trajectory_node): the page's keys and gamepad stream
    # twists at 50 Hz; the status says what the jog does and what it dropped.
    Interface("servo_node/delta_twist_cmds", TwistStamped, publish=True, latest_only=True),
    Interface("servo_node/delta_joint_cmds", JointJog, publish=True, latest_only=True),
    Interface("servo_node/status", ServoStatus, latched=True, subscribe=True),
)
SERVICES = (
    Interface("solve_ik", SolveIK),
    Interface("solve_ik_batch", SolveIKBatch),
    Interface("compute_fk", ComputeFK),
    Interface("plan_cartesian_path", PlanCartesianPath),
    # The trajectory node's one STOP for every motion (the page's STOP button, its Escape key).
    Interface("stop", Trigger),
    # Calibration mode (hardware_node, nodes/calibration.py): the calibration page's services.
    Interface("calibration/enter", Trigger),
    Interface("calibration/leave", Trigger),
    Interface("calibration/jog", JogServo),
    Interface("calibration/release_all", Trigger),
    Interface("calibration/heartbeat", Trigger),
    Interface("calibration/preview", CalibrationFile),
    Interface("calibration/save", CalibrationFile),
    # The sim backend's simulated bus fault (absent on servokit: a call then times out).
    Interface("simulate_fault", SetBool),
    # The page's gripper box reads the gripper's unit and ends, and no other parameter.
    Interface("hardware_node/get_parameters", GetParameters, parameters=GRIPPER_UNIT_PARAMETERS),
    # Named poses and taught sequences (trajectory_node, docs/sequences.md): the page's teach box.
    Interface("named_poses/save", SaveNamedPose),
    Interface("named_poses/list", ListNamedPoses),
    Interface("named_poses/delete", DeleteNamedPose),
    Interface("sequences/save", SaveSequence),
    Interface("sequences/list", ListSequences),
    Interface("sequences/delete", DeleteSequence),
)
ACTIONS = (
    Interface("move_arm", MoveArm),
    Interface("gripper_controller/gripper_cmd", GripperCommand),  # hardware_node's
    Interface("run_sequence", RunSequence),  # trajectory_node's taught sequences
)


def resolve(name: str, namespace: str) -> str:
    """A node-relative or absolute name as an absolute name.

    >>> resolve("joint_states", "/left_arm"), resolve("/diagnostics", "/left_arm")
    ('/left_arm/joint_states', '/diagnostics')
    >>> resolve("joint_states", "/")
    '/joint_states'
    """
    if name.startswith("/"):
        return name
    return f"{namespace.rstrip('/')}/{name}"


def same_type(requested: str, interface: Interface) -> bool:
    """Whether a client's type name is the interface's type ('pkg/Name' means 'pkg/kind/Name')."""
    actual = interface.type_name
    package, _kind, name = actual.split("/")
    return requested in (actual, f"{package}/{name}")


class AllowList:
    """The arm's interfaces resolved in `namespace`; lookups raise ProtocolError."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace

        def resolved(interfaces: tuple[Interface, ...]) -> dict[str, Interface]:
            return {(r := resolve(i.name, namespace)): replace(i, resolved=r) for i in interfaces}

        self.topics = resolved(TOPICS)
        self.services = resolved(SERVICES)
        self.actions = resolved(ACTIONS)

    def _find(
        self,
        table: dict[str, Interface],
        kind: str,
        name: str,
        requested_type: str | None,
        message_id: MessageId,
    ) -> Interface:
        interface = table.get(resolve(name, self.namespace))
        if interface is None:
            raise ProtocolError(
                f"{kind} '{name}' is not one of this arm's {kind}s ({', '.join(table)})",
                message_id,
            )
        if requested_type is not None and not same_type(requested_type, interface):
            raise ProtocolError(
                f"{kind} '{interface.resolved}' has type {interface.type_name}, "
                f"not {requested_type}",
                message_id,
            )
        return interface

    def topic(
        self,
        name: str,
        requested_type: str | None,
        *,
        publish: bool,
        message_id: MessageId = None,
    ) -> Interface:
        topic = self._find(self.topics, "topic", name, requested_type, message_id)
        if publish and not topic.publish:
            raise ProtocolError(f"topic '{topic.resolved}' is read-only here", message_id)
        if not publish and not topic.subscribe:
            raise ProtocolError(f"topic '{topic.resolved}' cannot be subscribed", message_id)
        return topic

    def service(
        self, name: str, requested_type: str | None, message_id: MessageId = None
    ) -> Interface:
        return self._find(self.services, "service", name, requested_type, message_id)

    def check_request(self, service: Interface, request: Any, message_id: MessageId = None) -> None:
        """Refuse a request that asks a parameter service for a name it does not list.

        >>> allowed = AllowList("/")
        >>> service = allowed.service("hardware_node/get_parameters", None)
        >>> allowed.check_request(service, GetParameters.Request(names=["gripper.joint"]))
        >>> allowed.check_request(service, GetParameters.Request(names=["hardware.i2c_bus"]))
        Traceback (most recent call last):
        ...
        arm_kinematics.bridge.protocol.ProtocolError: service '/hardware_node/get_parameters' \
may read only gripper.joint, gripper.position_unit, gripper.open_deg, gripper.closed_deg, \
gripper.open_m, gripper.closed_m here, not hardware.i2c_bus
        """
        if not service.parameters:
            return
        names: Sequence[str] = request.names
        refused = [name for name in names if name not in service.parameters]
        if refused:
            raise ProtocolError(
                f"service '{service.resolved}' may read only {', '.join(service.parameters)} "
                f"here, not {', '.join(refused)}",
                message_id,
            )

    def action(
        self, name: str, requested_type: str | None, message_id: MessageId = None
    ) -> Interface:
        return self._find(self.actions, "action", name, requested_type, message_id)
