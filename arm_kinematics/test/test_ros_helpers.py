"""The test helpers themselves: the harness's service call and `call_idempotent` (an unanswered
request is sent again, ros2/rmw_fastrtps#842), and the manual clock of manual_clock.py."""

from __future__ import annotations

import pytest
import ros_helpers
from manual_clock import ManualLoop
from rclpy.task import Future


class DroppingClient:
    """A client whose first `drops` requests get no answer, as when Fast DDS drops a response."""

    srv_name = "/dropping"

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.sent: list[Future] = []
        self.removed: list[Future] = []

    def wait_for_service(self, timeout_sec: float) -> bool:
        return True

    def call_async(self, request: str) -> Future:
        future = Future()
        if len(self.sent) >= self.drops:
            future.set_result(f"answer to {request} #{len(self.sent)}")
        self.sent.append(future)
        return future

    def remove_pending_request(self, future: Future) -> None:
        self.removed.append(future)


def test_a_dropped_answer_is_asked_for_again_and_the_lost_request_forgotten(monkeypatch) -> None:
    monkeypatch.setattr(ros_helpers, "RESEND_S", 0.05)
    client = DroppingClient(drops=2)
    assert ros_helpers.RosGraph.call(None, client, "fk", timeout=10.0) == "answer to fk #2"
    assert client.removed == client.sent[:2]


def test_no_answer_at_all_still_fails_after_the_timeout(monkeypatch) -> None:
    monkeypatch.setattr(ros_helpers, "RESEND_S", 0.05)
    client = DroppingClient(drops=10**6)
    with pytest.raises(
        AssertionError, match="timed out after 0 s waiting for answer from /dropping"
    ):
        ros_helpers.RosGraph.call(None, client, "fk", timeout=0.3)
    assert len(client.sent) >= 2


def test_a_real_service_whose_first_answer_is_held_answers_the_request_sent_again() -> None:
    # The first request's answer is held back (as a dropped one never comes); call_idempotent
    # withdraws it after resend_s and the second send is answered by the same real service.
    import threading

    from rclpy.callback_groups import ReentrantCallbackGroup
    from std_srvs.srv import Trigger

    from arm_kinematics.rclpy_compat.service_call import call_idempotent

    release = threading.Event()
    served: list[int] = []

    def serve(_request, response):
        served.append(len(served))
        if served[-1] == 0:
            release.wait(30.0)
        response.success, response.message = True, f"request {served[-1]}"
        return response

    with ros_helpers.ros_graph() as graph:
        server = graph.node("held_server")
        server.create_service(Trigger, "held", serve, callback_group=ReentrantCallbackGroup())
        client = graph.node("held_client").create_client(Trigger, "/held")
        ros_helpers.wait_for(lambda: client.wait_for_service(timeout_sec=0.1), what="/held")
        try:
            response = call_idempotent(
                client, Trigger.Request(), 30.0, ros_helpers.future_done_within, resend_s=0.2
            )
        finally:
            release.set()
        # Answered by a later send (request 1 on a quiet machine; a later one if even that
        # took longer than resend_s), never by the held one.
        assert response.success
        assert response.message != "request 0"
        assert len(served) >= 2


def test_a_manual_loop_runs_what_falls_due_in_time_order_and_at_its_time() -> None:
    loop = ManualLoop()
    fired: list[tuple[str, float]] = []
    loop.call_later(0.5, lambda: fired.append(("late", loop.time())))
    loop.call_later(0.2, lambda: fired.append(("early", loop.time())))
    loop.call_later(0.3, lambda: fired.append(("canceled", loop.time()))).cancel()
    loop.advance_to(0.4)
    assert fired == [("early", 0.2)]
    assert loop.time() == 0.4
    loop.advance_to(1.0)
    assert fired == [("early", 0.2), ("late", 0.5)]
    assert loop.time() == 1.0


def test_a_graph_shut_down_ends_its_spin_thread_at_once() -> None:
    # A shut down executor's spin returns at once; a spin loop that went on calling it kept
    # the thread busy until the join's timeout, and every module's teardown waited for it.
    with ros_helpers.ros_graph() as graph:
        graph.node("short_lived")
        thread = graph._thread
        assert thread.is_alive()
    assert not thread.is_alive()
