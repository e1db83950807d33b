"""rclpy_compat/action_client.py: goal, cancel and result futures complete even when the answer is
handled before the client has recorded the request (ros2/rclpy#1123).

The race is made certain, not left to chance: the client is held between sending a request and
recording its future until the executor, spinning in another thread, has taken the answer.
rclpy 7.1's own ActionClient then drops the answer and its future never completes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from ros_helpers import RosGraph, ros_graph, wait_for, wait_for_future

from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm

_ANSWER_WAIT_S = 30.0


class _HoldUntil(dict):
    """A pending-request table whose first membership test (right after the request has gone
    out, before the future is recorded) waits until `answered` is set."""

    def __init__(self, answered: threading.Event) -> None:
        super().__init__()
        self.answered = answered
        self.held = False

    def __contains__(self, key: object) -> bool:
        if not self.held:
            self.held = True
            assert self.answered.wait(_ANSWER_WAIT_S), "the answer was never taken"
        return super().__contains__(key)


class RacedClient(ActionClient):
    """Our ActionClient, held between send and record until the executor took the answer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.taken: dict[str, threading.Event] = {
            kind: threading.Event() for kind in ("goal", "cancel", "result")
        }

    def hold(self, kind: str) -> None:
        table = _HoldUntil(self.taken[kind])
        setattr(self, f"_pending_{kind}_requests", table)

    def take_data(self) -> Any:
        data = super().take_data()
        for kind, event in self.taken.items():
            if kind in data:
                event.set()
        return data


@pytest.fixture
def graph() -> Iterator[RosGraph]:
    with ros_graph() as graph:
        yield graph


def serve_move_arm(graph: RosGraph, release: threading.Event) -> None:
    """A move_arm server whose goals end SUCCEEDED once `release` is set (or on cancel)."""
    node = graph.node("race_server")

    def execute(handle: Any) -> MoveArm.Result:
        while not release.wait(0.01):
            if handle.is_cancel_requested:
                handle.canceled()
                return MoveArm.Result(status=MoveArm.Result.CANCELED)
        handle.succeed()
        return MoveArm.Result(status=MoveArm.Result.SUCCEEDED, message="done")

    ActionServer(
        node,
        MoveArm,
        "race_move_arm",
        execute_callback=execute,
        goal_callback=lambda _goal: GoalResponse.ACCEPT,
        cancel_callback=lambda _handle: CancelResponse.ACCEPT,
        callback_group=ReentrantCallbackGroup(),
    )


def raced_client(graph: RosGraph) -> RacedClient:
    """A RacedClient whose goal, cancel and result services have each answered once.

    wait_for_server only says the client sees the server; the server may not see the client
    yet, and a request sent then gets no answer (DDS discovery, not the race under test). One
    goal sent, canceled and awaited without a hold makes every path known both ways.
    """
    client = RacedClient(graph.node("race_client"), MoveArm, "race_move_arm")
    wait_for(lambda: client.wait_for_server(timeout_sec=0.1), what="race_move_arm server")
    warm_up = wait_for_future(client.send_goal_async(MoveArm.Goal()), what="warm-up goal")
    wait_for_future(warm_up.cancel_goal_async(), what="warm-up cancel")
    wait_for_future(warm_up.get_result_async(), what="warm-up result")
    for taken in client.taken.values():
        taken.clear()
    return client


def test_a_goal_answer_handled_before_the_request_is_recorded_still_completes(
    graph: RosGraph,
) -> None:
    release = threading.Event()
    release.set()
    serve_move_arm(graph, release)
    client = raced_client(graph)
    client.hold("goal")
    handle = wait_for_future(client.send_goal_async(MoveArm.Goal()), what="goal response")
    assert client.taken["goal"].is_set()
    assert handle.accepted
    client.hold("result")
    response = wait_for_future(handle.get_result_async(), what="result")
    assert client.taken["result"].is_set()
    assert response.result.status == MoveArm.Result.SUCCEEDED
    assert response.result.message == "done"


def test_a_cancel_answer_handled_before_the_request_is_recorded_still_completes(
    graph: RosGraph,
) -> None:
    release = threading.Event()
    serve_move_arm(graph, release)
    client = raced_client(graph)
    handle = wait_for_future(client.send_goal_async(MoveArm.Goal()), what="goal response")
    client.hold("cancel")
    cancel = wait_for_future(handle.cancel_goal_async(), what="cancel response")
    assert client.taken["cancel"].is_set()
    assert len(cancel.goals_canceling) == 1
    result = wait_for_future(handle.get_result_async(), what="result")
    assert result.result.status == MoveArm.Result.CANCELED
    release.set()
