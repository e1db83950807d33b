"""One action goal of the commander, from sending it to its result (`ActionTask`).

The executor thread's callbacks fill it in (accepted or rejected, each feedback, the result);
the caller's thread reads it and waits on it. Sending and canceling run on the executor thread
(`Connection.run`), so a cancel asked for while the goal's acceptance is still on its way goes
out the moment the goal is accepted: a goal that was sent can always be stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

OnFeedback = Callable[[Any], None]


class ActionTask:
    """A goal of the action client `client` named `name` ("move_to_pose", "set_gripper"),
    its feedback and result turned into the commander's values by `feedback_of` and
    `result_of`; `on_feedback`, if given, gets each feedback on the executor thread."""

    def __init__(
        self,
        name: str,
        client: Any,
        run: Callable[..., Any],
        feedback_of: Callable[[Any], Any],
        result_of: Callable[[Any], Any],
        on_feedback: OnFeedback | None = None,
        logger: Any = None,
    ) -> None:
        self.name = name
        self.client = client
        self._run = run
        self._feedback_of = feedback_of
        self._result_of = result_of
        self._on_feedback = on_feedback
        self._logger = logger
        self._changed = threading.Condition()
        self._accepted: bool | None = None  # None until the server answers the goal
        self._handle: Any = None
        self._feedback: Any = None
        self._result: Any = None
        self._cancel_wanted = False
        self._cancel_sent = False

    # --- the caller's thread ----------------------------------------------------------------

    def send(self, goal: Any) -> None:
        """Send `goal` (from the executor thread); `wait_accepted` tells the answer."""
        self._run(self._send, goal)

    def wait_accepted(self, seconds: float) -> bool | None:
        """True once accepted, False if rejected, None if no answer within `seconds`."""
        with self._changed:
            self._changed.wait_for(lambda: self._accepted is not None, seconds)
            return self._accepted

    def wait_done(self, seconds: float | None) -> bool:
        """Whether the task ended (its result came, or it was rejected) within `seconds`
        (None: however long it takes)."""
        with self._changed:
            return self._changed.wait_for(self._ended, seconds)

    def cancel(self) -> None:
        """Ask the server to cancel the goal: now if it was accepted, else once it is."""
        self._run(self._cancel)

    @property
    def done(self) -> bool:
        """The result came, or the goal was rejected: nothing of it runs any more."""
        with self._changed:
            return self._ended()

    def _ended(self) -> bool:
        return self._result is not None or self._accepted is False

    @property
    def feedback(self) -> Any:
        with self._changed:
            return self._feedback

    @property
    def result(self) -> Any:
        with self._changed:
            return self._result

    # --- the executor thread ----------------------------------------------------------------

    def _send(self, goal: Any) -> None:
        future = self.client.send_goal_async(goal, feedback_callback=self._on_feedback_message)
        future.add_done_callback(self._on_answer)

    def _on_answer(self, future: Any) -> None:
        handle = future.result()
        with self._changed:
            self._accepted = bool(handle.accepted)
            if handle.accepted:
                self._handle = handle
                handle.get_result_async().add_done_callback(self._on_result)
                if self._cancel_wanted:
                    self._send_cancel()
            self._changed.notify_all()

    def _on_feedback_message(self, message: Any) -> None:
        feedback = self._feedback_of(message.feedback)
        with self._changed:
            self._feedback = feedback
        if self._on_feedback is not None:
            try:
                self._on_feedback(feedback)
            except Exception as error:  # the caller's callback must not stop the commander
                if self._logger is not None:
                    self._logger.error(f"{self.name}: on_feedback raised {error!r}; going on")

    def _on_result(self, future: Any) -> None:
        result = self._result_of(future.result())
        with self._changed:
            self._result = result
            self._changed.notify_all()

    def _cancel(self) -> None:
        with self._changed:
            self._cancel_wanted = True
            if self._handle is not None and self._result is None:
                self._send_cancel()

    def _send_cancel(self) -> None:
        if not self._cancel_sent:
            self._cancel_sent = True
            self._handle.cancel_goal_async()
