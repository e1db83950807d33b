"""`call_idempotent`: a service call that sends its request again while no answer comes.

Fast DDS (rmw_fastrtps_cpp 8.4 in ROS 2 Jazzy, and Humble's) drops a response that the server
sends before it has matched the client's response reader: the server logs "failed to send
response (timeout): client will not receive response" and the client's future never completes
(ros2/rmw_fastrtps#842, open; the discovery race described in ros2/ros2#1253).
`wait_for_service` only sees the request path, so the window is right after it returns; on a
loaded machine it lasts seconds. The same request sent again, once the response path has
matched, is answered. Only for requests that may be served twice with no harm (a solve, an FK),
never for one that moves the arm.

This is the middleware's defect, not rclpy's, and no release fixes it yet: there is no version
to check at import. Delete this module when rmw_fastrtps ships the fix.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

RESEND_S = 1.0
"""Seconds without an answer after which the request is sent again (a solve takes about 1 ms;
an answer to an earlier send that comes late anyway is dropped with its request)."""


def call_idempotent(
    client: Any,
    request: Any,
    timeout_s: float,
    wait: Callable[[Any, float], bool],
    resend_s: float = RESEND_S,
) -> Any | None:
    """The response of the rclpy service `client` to `request` within `timeout_s` seconds, or
    None; the request is sent again every `resend_s` seconds without an answer.

    `wait(future, seconds)` waits at most `seconds` for the future and says whether it is done:
    spinning the client's node (a command-line client) or not (a node spun by another thread).
    A send that gets no answer is withdrawn (`remove_pending_request`) before the next.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        future = client.call_async(request)
        if wait(future, max(0.0, min(resend_s, deadline - time.monotonic()))):
            return future.result()
        client.remove_pending_request(future)
        if time.monotonic() >= deadline:
            return None
