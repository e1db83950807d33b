"""Solve a batch of points in one `solve_ik_batch` round trip: the `solve` callable that the
core's `plan_line` takes, so that a goal's IK is solved in the IK node and nowhere else.

The rclpy client is created by the node (in its callback group) and handed in; this module
only builds the request, sends it (again while no answer comes: `call_idempotent`), waits for
the answer without blocking the executor, and reads it.
"""

from __future__ import annotations

import array
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from arm_kinematics.kinematics import IkAnswers
from arm_kinematics.nodes.messages import joint_state, solve_ik_status_name
from arm_kinematics.nodes.trajectory.goals import POLL_S, GoalTiming
from arm_kinematics.rclpy_compat.service_call import RESEND_S, call_idempotent
from arm_kinematics_interfaces.srv import SolveIK, SolveIKBatch

RESEND_S_PER_TARGET = 25e-6
"""Seconds per target before a batch is sent again: about three times what the IK node takes
per target (README: 100,000 targets in 0.62-0.88 s), so that a large batch still being solved
is not solved twice."""


class IkUnavailableError(Exception):
    """The IK service was absent, silent or answered for another arm; the message says which."""


class IkInterruptedError(Exception):
    """The goal was stopped (canceled, preempted) while it waited for the IK answer."""


def batch_request(
    points: np.ndarray,
    seed: Sequence[float] | None,
    joint_names: Sequence[str],
    base_frame: str,
    position_dims: int = 2,
) -> SolveIKBatch.Request:
    """A CLOSEST request for `points`, the planner's tool poses in the base frame (a planar
    arm's (M, 2) x, y or (M, 3) with headings, on the arm's plane: no z; a spatial arm's (M, 3)
    x, y, z, (M, 4) with the pitch, (M, 5) with the pitch and roll; m and rad), every target
    answered (the planner reads the targets after a failing one too)."""

    def column(index: int) -> array.array:
        return array.array("d", np.ascontiguousarray(points[:, index]).tobytes())

    request = SolveIKBatch.Request()
    request.header.frame_id = base_frame
    request.x, request.y = column(0), column(1)
    if position_dims == 3:
        request.z = column(2)
    angles = points.shape[1] - position_dims
    if angles >= 1:
        request.orientation_mode = SolveIKBatch.Request.TOOL_ANGLE
        request.tool_angle = column(position_dims)
    if angles == 2:
        request.orientation_mode = SolveIKBatch.Request.FULL_ORIENTATION
        request.roll = column(position_dims + 1)
    request.branch = SolveIK.Request.BRANCH_CLOSEST
    if seed is not None:
        request.seed = joint_state(list(joint_names), seed)
    request.stop_on_failure = False
    return request


def batch_answers(
    response: SolveIKBatch.Response, joint_names: Sequence[str], count: int
) -> IkAnswers:
    """The answers to a request of `count` targets, joints in `joint_names` order.

    A request-level refusal (wrong frame, off the plane...) fails every target with its status;
    every refusal is explained by the response's message. Raises IkUnavailableError when the IK
    node serves an arm with other joints.
    """
    names = list(response.joint_names)
    status = np.frombuffer(bytes(response.statuses), dtype=np.uint8)
    if sorted(names) != sorted(joint_names) or len(response.positions) != len(status) * len(names):
        raise IkUnavailableError(
            f"the IK node answers for joints {names}, this arm has {list(joint_names)}: both "
            "nodes must read the same params file"
        )
    message = response.message
    if len(status) == 0:
        status = np.full(count, response.status, dtype=np.uint8)
        return IkAnswers(status, np.full((count, len(joint_names)), np.nan), lambda _i: message)
    order = [names.index(name) for name in joint_names]
    rows = np.frombuffer(response.positions, dtype=float).reshape(len(status), len(names))
    # The message is "N of M targets solved; first failure at index i (STATUS): <reason>": a
    # failing step is explained by the reason alone (the batch's counts mix plan points and
    # setpoints, which mean nothing to the goal's caller).
    name = solve_ik_status_name(response.status)
    reason = message.partition(f"({name}): ")[2] or message
    return IkAnswers(status, rows[:, order], lambda _i: reason)


class IkBatchClient:
    """`solve(points, seed)` through one solve_ik_batch round trip of at most `timeout_s`.

    The request is sent through `call_idempotent` (a solve may be served twice with no harm):
    a response that Fast DDS drops (ros2/rmw_fastrtps#842) is asked for again after
    `resend_s`, or longer for a large batch (RESEND_S_PER_TARGET), instead of ending the goal
    with IK_UNAVAILABLE.
    """

    def __init__(
        self,
        client: Any,
        service: str,
        joint_names: Sequence[str],
        base_frame: str,
        timeout_s: float,
        resend_s: float = RESEND_S,
        position_dims: int = 2,
    ) -> None:
        self._client = client
        self._service = service
        self._names = list(joint_names)
        self._base_frame = base_frame
        self._position_dims = position_dims
        self._timeout_s = timeout_s
        self._resend_s = resend_s

    def solver(self, wake: threading.Event, timing: GoalTiming):
        """The `solve` callable for one goal: stops waiting when `wake` is set (the goal was
        stopped) and adds each round trip to `timing`."""

        def solve(points: np.ndarray, seed: tuple[float, ...] | None) -> IkAnswers:
            started = time.monotonic()
            try:
                return self.solve(points, seed, wake)
            finally:
                timing.ik_s += time.monotonic() - started
                timing.ik_calls += 1

        return solve

    def solve(
        self, points: np.ndarray, seed: tuple[float, ...] | None, wake: threading.Event
    ) -> IkAnswers:
        """Answers for `points` (see `batch_answers`).

        Raises IkUnavailableError (no service, no answer within the timeout, another arm) or
        IkInterruptedError (`wake` was set while waiting).
        """
        request = batch_request(points, seed, self._names, self._base_frame, self._position_dims)
        deadline = time.monotonic() + self._timeout_s
        while not self._client.service_is_ready():
            if wake.wait(timeout=min(POLL_S, max(0.0, deadline - time.monotonic()))):
                raise IkInterruptedError()
            if time.monotonic() >= deadline:
                raise self._unavailable("was not found")
        resend_s = max(self._resend_s, len(points) * RESEND_S_PER_TARGET)
        response = call_idempotent(
            self._client,
            request,
            max(0.0, deadline - time.monotonic()),
            lambda future, seconds: self._wait(future, seconds, wake),
            resend_s,
        )
        if response is None:
            raise self._unavailable("did not answer")
        return batch_answers(response, self._names, len(points))

    def _wait(self, future: Any, seconds: float, wake: threading.Event) -> bool:
        """Whether `future` is answered within `seconds`; IkInterruptedError (the request
        withdrawn) as soon as `wake` is set."""
        answered = threading.Event()
        future.add_done_callback(lambda _f: answered.set())
        until = time.monotonic() + seconds
        while not answered.wait(timeout=min(POLL_S, max(0.0, until - time.monotonic()))):
            if wake.is_set():
                self._client.remove_pending_request(future)
                raise IkInterruptedError()
            if time.monotonic() >= until:
                return False
        return True

    def _unavailable(self, problem: str) -> IkUnavailableError:
        return IkUnavailableError(
            f"IK service '{self._service}' {problem} within ik_timeout_s = "
            f"{self._timeout_s:g} s (is the IK node running, in this namespace?)"
        )
