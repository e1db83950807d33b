"""rclpy 7.1 action workarounds: an ActionClient whose futures always complete, and the
destruction of a node's action servers and clients, which rclpy's destroy_node skips.

Upstream: ros2/rclpy#1123, fixed by ros2/rclpy#1308 (released in rclpy 7.1.6 for Jazzy, as
ros2/rclpy#1517, and 9.1.2 for Kilted). For: rclpy 7.1.0 to 7.1.5. Mind the wheels: the PyPI
wheel `ros-rclpy` 7.1.6 holds rclpy 7.1.5 (its package.xml says so), without the fix; the check
below reads that package.xml. `destroy_actions` has no upstream fix that we know of (rclpy
7.1.x, check).

rclpy 7.1's ActionClient sends a request and only then records the future that waits for its
answer. When an executor spins in another thread (a test graph, a GUI, a node that sends goals
from a timer), the answer can be handled in between: rclpy logs "Ignoring unexpected goal
response" and the future never completes. We met it in bench_trajectory on a loaded machine.

`ActionClient` here sends each request under a lock and lets an answer be handled only once
that lock is free, i.e. once the request's future is recorded. The rest is rclpy's.
"""

from __future__ import annotations

import threading
from typing import Any

from rclpy.action import ActionClient as RclpyActionClient
from rclpy.action import ActionServer
from rclpy.node import Node

from arm_kinematics.rclpy_compat import warn_if_fixed

#: First rclpy release of each major line with ros2/rclpy#1308.
FIXED_IN: dict[int, tuple[int, ...] | None] = {7: (7, 1, 6), 9: (9, 1, 2)}
warn_if_fixed("arm_kinematics.rclpy_compat.action_client.ActionClient", "ros2/rclpy#1308", FIXED_IN)


class ActionClient(RclpyActionClient):
    """rclpy's ActionClient without the send/record race of ros2/rclpy#1123."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Reentrant: a feedback or done callback may send the next request.
        self._request_lock = threading.RLock()

    def send_goal_async(self, *args: Any, **kwargs: Any) -> Any:
        with self._request_lock:
            return super().send_goal_async(*args, **kwargs)

    def _cancel_goal_async(self, goal_handle: Any) -> Any:
        with self._request_lock:
            return super()._cancel_goal_async(goal_handle)

    def _get_result_async(self, goal_handle: Any) -> Any:
        with self._request_lock:
            return super()._get_result_async(goal_handle)

    async def execute(self, taken_data: Any) -> None:
        # An answer in taken_data was taken after its request was sent; the sender holds the
        # lock until it has recorded the future, so once the lock is free the future is there.
        with self._request_lock:
            pass
        await super().execute(taken_data)


def destroy_actions(node: Node) -> None:
    """Destroy the node's action servers and clients; call it just before `destroy_node()`.

    rclpy 7.1's destroy_node skips them, and their handles keep the node (and its DDS
    participant) in the ROS graph until the garbage collector runs.
    """
    for waitable in list(node.waitables):
        if isinstance(waitable, (ActionServer, RclpyActionClient)):
            waitable.destroy()
