"""One STOP for everything: the trajectory node's `stop` service (std_srvs/Trigger).

A call stops every motion the node's `Admission` holds or is about to run at once: MoveArm
goals and clicked points, joint trajectories, FollowJointTrajectory goals and jogs (and any
later kind that is admitted the same way). Each ends as a preempted motion does, decelerating
within the limits where its kind does (a goal ends PREEMPTED, "stopped by the stop service"), a
jog ignores the commands that keep coming until they are let go. Nothing moves afterwards until a
new command comes. The answer says what was stopped; a call while nothing moves succeeds too.
"""

from __future__ import annotations

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from std_srvs.srv import Trigger

from arm_kinematics.nodes.trajectory.goals import Admission

SERVICE = "stop"


def create_stop_service(node: Node, admission: Admission, group: CallbackGroup) -> None:
    """Serve `stop` on `node` for the motions of `admission`."""
    reason = f"stopped by the stop service ({node.resolve_service_name(SERVICE)})"

    def on_stop(_request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        stopped = admission.stop_all(reason)
        words = ", ".join(run.label for run in stopped) if stopped else "nothing was moving"
        node.get_logger().info(f"stop: {words}")
        response.success = True
        response.message = f"stopped: {words}" if stopped else words
        return response

    node.create_service(Trigger, SERVICE, on_stop, callback_group=group)
