"""The only names a web_bridge client may use: this arm's own topics, services and action.

Names are resolved in the bridge node's namespace as ROS resolves relative names: with the
namespace `/left_arm`, `solve_ik` and `/left_arm/solve_ik` are the same service, `/solve_ik`
is another arm's and refused. `/diagnostics` is global (hardware_node publishes it there).
The type a client names, if any, must be the name's real type, written `pkg/msg/Name` (or
`pkg/Name`, as ROS 1 clients do).

>>> allowed = AllowList("/left_arm")
>>> allowed.service("solve_ik", None).resolved
'/left_arm/solve_ik'
>>> allowed.service("/solve_ik", None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
arm_kinematics.bridge.protocol.ProtocolError: service '/solve_ik' is not one of this arm's ...
"""

from __future__ import annotations

from dataclasses import dataclass

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import MarkerArray

from arm_kinematics.bridge.convert import type_name
from arm_kinematics.bridge.protocol import MessageId, ProtocolError
from arm_kinematics_interfaces.action import MoveArm
from arm_kinematics_interfaces.msg import CalibrationState
from arm_kinematics_interfaces.srv import (
    CalibrationFile,
    ComputeFK,
    JogServo,
    PlanCartesianPath,
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
)
SERVICES = (
    Interface("solve_ik", SolveIK),
    Interface("solve_ik_batch", SolveIKBatch),
    Interface("compute_fk", ComputeFK),
    Interface("plan_cartesian_path", PlanCartesianPath),
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
)
ACTIONS = (Interface("move_arm", MoveArm),)


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
            return {
                (r := resolve(i.name, namespace)): Interface(
                    i.name, i.type, r, i.latched, i.subscribe, i.publish
                )
                for i in interfaces
            }

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

    def action(
        self, name: str, requested_type: str | None, message_id: MessageId = None
    ) -> Interface:
        return self._find(self.actions, "action", name, requested_type, message_id)
