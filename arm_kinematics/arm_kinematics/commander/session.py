"""The commander's plumbing behind its verbs (`Session`): its node's clients of the arm's
services and actions, its bounded waits for a server, an answer or a goal's acceptance, the
one task it runs, and the arm's facts and gripper unit read once from the running nodes.

Every wait is bounded by a `Budget` and ends in a `CommanderError` that says what was missing
and where to look (`ServerUnavailableError`: which node, in which namespace).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from control_msgs.action import GripperCommand
from rclpy.context import Context
from sensor_msgs.msg import JointState

from arm_kinematics.commander.connection import Budget, Connection, Latest
from arm_kinematics.commander.errors import (
    RequestRefusedError,
    ServerUnavailableError,
    TaskRefusedError,
    TaskRunningError,
)
from arm_kinematics.commander.gripper import GripperUnit
from arm_kinematics.commander.targets import ARM_PARAMETERS, ArmFacts, number
from arm_kinematics.commander.tasks import ActionTask
from arm_kinematics.config import GRIPPER_UNIT_PARAMETERS
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm, RunSequence
from arm_kinematics_interfaces.srv import (
    ComputeFK,
    DeleteNamedPose,
    ListNamedPoses,
    SaveNamedPose,
    SolveIK,
)

IK_NODE, TRAJECTORY_NODE, HARDWARE_NODE = "ik_node", "trajectory_node", "hardware_node"
GRIPPER_ACTION = "gripper_controller/gripper_cmd"
HINT = "in this namespace and ROS_DOMAIN_ID?"


class Session:
    """A commander's node in `namespace` (absolute) and everything it waits for; see the
    module docstring. `facts`: the arm's, when the caller gave a config (else read once from
    the running nodes)."""

    def __init__(
        self,
        namespace: str,
        timeout_s: float,
        facts: ArmFacts | None,
        node_name: str,
        context: Context | None,
        args: Sequence[str] | None,
    ) -> None:
        self.namespace = namespace
        self.timeout_s = timeout_s
        self.facts = facts
        self.gripper: GripperUnit | None = None
        self.task: ActionTask | None = None
        self.joint_states = Latest()
        self.ros = Connection(namespace, node_name, context, args)
        try:
            node = self.ros.node
            self.solve_ik = node.create_client(SolveIK, "solve_ik")
            self.compute_fk = node.create_client(ComputeFK, "compute_fk")
            self.save_pose = node.create_client(SaveNamedPose, "named_poses/save")
            self.list_poses = node.create_client(ListNamedPoses, "named_poses/list")
            self.delete_pose = node.create_client(DeleteNamedPose, "named_poses/delete")
            self.move_arm = ActionClient(node, MoveArm, "move_arm")
            self.gripper_cmd = ActionClient(node, GripperCommand, GRIPPER_ACTION)
            self.run_sequence = ActionClient(node, RunSequence, "run_sequence")
            self.parameters = {
                n: self.ros.parameter_client(n) for n in (IK_NODE, TRAJECTORY_NODE, HARDWARE_NODE)
            }
            node.create_subscription(JointState, "joint_states", self.joint_states.set, 10)
            self.ros.start()
        except BaseException:
            self.ros.close()
            raise

    # --- bounds and the task ------------------------------------------------------------------

    def timeout(self, timeout_s: float | None) -> float:
        return self.timeout_s if timeout_s is None else number("timeout_s", timeout_s)

    def budget(self, timeout_s: float | None) -> Budget:
        return Budget.of(self.timeout(timeout_s))

    def check_no_task(self) -> None:
        task = self.task
        if task is not None and not task.done:
            raise TaskRunningError(
                f"the {task.name} task is still running: wait_for_task() or cancel_task() "
                "before the next task"
            )

    def new_task(self, name: str, client: Any, feedback_of, result_of, on_feedback) -> ActionTask:
        """A task of the action `client`, its messages turned into the commander's values."""
        return ActionTask(
            name, client, self.ros.run, feedback_of, result_of, on_feedback,
            self.ros.node.get_logger(),
        )  # fmt: skip

    def start(
        self, task: ActionTask, goal: Any, action: str, node: str, hint: str, budget: Budget
    ) -> None:
        """Send the task's goal once its server is there; return once it is accepted."""
        self.wait_action(task.client, action, node, budget)
        server = self.ros.node.resolve_topic_name(action)  # as rcl_action resolves it
        # The task is this commander's from the moment it is sent: an interrupted wait for
        # the acceptance leaves it here for cancel_task() and close().
        self.task = task
        task.send(goal)
        accepted = task.wait_accepted(budget.remaining())
        if accepted is None:
            task.cancel()  # once it is accepted, if ever: nobody waits for it any more
            self.task = None
            raise ServerUnavailableError(
                f"{server} did not accept the goal within {budget.seconds:g} s"
            )
        if not accepted:
            self.task = None
            raise TaskRefusedError(f"{server} rejected the goal{hint}")

    # --- servers and answers ------------------------------------------------------------------

    def node_name(self, node: str) -> str:
        return f"{self.namespace.rstrip('/')}/{node}"

    def service_name(self, client: Any) -> str:
        return self.ros.node.resolve_service_name(client.srv_name)

    def service_words(self, client: Any, node: str) -> str:
        return f"no {self.service_name(client)} service (is {node} running, {HINT})"

    def action_words(self, action: str, node: str) -> str:
        server = self.ros.node.resolve_topic_name(action)  # as rcl_action resolves it
        return f"no {server} action server (is {node} running, {HINT})"

    def wait_service(self, client: Any, node: str, budget: Budget) -> None:
        """Return once the service is on the graph; ServerUnavailableError after the budget."""
        if not self.ros.wait_until(client.service_is_ready, budget):
            raise ServerUnavailableError(
                f"no {self.service_name(client)} service within {budget.seconds:g} s "
                f"(is {node} running, {HINT})"
            )

    def wait_action(self, client: Any, action: str, node: str, budget: Budget) -> None:
        """Return once the action server is on the graph; ServerUnavailableError after the
        budget."""
        if not self.ros.wait_until(client.server_is_ready, budget):
            raise ServerUnavailableError(
                f"no {self.ros.node.resolve_topic_name(action)} action server within "
                f"{budget.seconds:g} s (is {node} running, {HINT})"
            )

    def call(self, client: Any, request: Any, node: str, budget: Budget) -> Any:
        """An idempotent service's answer within the budget, else ServerUnavailableError."""
        self.wait_service(client, node, budget)
        name = self.service_name(client)
        response = self.ros.call(client, request, budget)
        if response is None:
            raise ServerUnavailableError(f"{name} did not answer within {budget.seconds:g} s")
        return response

    def call_checked(self, client: Any, request: Any, node: str, budget: Budget) -> Any:
        """`call`, and RequestRefusedError with the node's words when its answer says no
        (`success` false). For the named poses' services, which are idempotent: a save of the
        pose a name already holds and a delete of a pose that is not there both succeed."""
        response = self.call(client, request, node, budget)
        if not response.success:
            raise RequestRefusedError(response.message)
        return response

    # --- the arm ------------------------------------------------------------------------------

    def arm_facts(self, node: str, budget: Budget) -> ArmFacts:
        """The arm's layout, joints and plane: the config's, else `node`'s parameters."""
        if self.facts is None:
            values = self.ros.read_parameters(self.parameters[node], ARM_PARAMETERS, budget)
            if values is None:
                raise self.no_node(node, budget)
            self.facts = ArmFacts.from_parameters(values, self.node_name(node))
        return self.facts

    def read_gripper(self, budget: Budget, missing_ok: bool = False) -> GripperUnit | None:
        """The gripper's unit from the hardware node (read once); None for an arm without a
        gripper when `missing_ok`, else NoGripperError."""
        if self.gripper is None:
            client = self.parameters[HARDWARE_NODE]
            values = self.ros.read_parameters(client, GRIPPER_UNIT_PARAMETERS, budget)
            if values is None:
                raise self.no_node(HARDWARE_NODE, budget)
            if missing_ok and not values.get("gripper.joint"):
                return None
            self.gripper = GripperUnit.from_parameters(values, self.node_name(HARDWARE_NODE))
        return self.gripper

    def no_node(self, node: str, budget: Budget) -> ServerUnavailableError:
        return ServerUnavailableError(
            f"no {self.node_name(node)} answered within {budget.seconds:g} s "
            f"(is the arm running, {HINT})"
        )
