"""The harness's service call: an unanswered request is sent again (ros2/rmw_fastrtps#842)."""

from __future__ import annotations

import pytest
import ros_helpers
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
