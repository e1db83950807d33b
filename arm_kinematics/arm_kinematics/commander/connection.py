"""The commander's rclpy plumbing: one node on an executor thread of its own.

The caller's thread (a plain script's main thread) never spins: the node's executor runs on a
daemon thread, and the caller only waits for what the callbacks deliver. Every rclpy call that
starts or stops motion (sending a goal, canceling it) runs on that thread too (`run`), so a
KeyboardInterrupt, which Python raises in the main thread between any two bytecodes, can
interrupt a wait but never an rclpy call half done: a goal on its way is always known, and can
be canceled. Service calls that only compute (solve, FK, reading parameters) go from the
caller's thread through `call_idempotent` (sent again while Fast DDS drops the answer).

The context is the commander's own (initialised without rclpy's signal handlers, shut down by
`close`) unless the caller hands one in (say rclpy's default one after `rclpy.init()`), which
it then leaves as it found it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import rclpy
from rcl_interfaces.srv import GetParameters
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import parameter_value_to_python
from rclpy.signals import SignalHandlerOptions

from arm_kinematics.commander.errors import CommanderError
from arm_kinematics.rclpy_compat.action_client import destroy_actions
from arm_kinematics.rclpy_compat.service_call import call_idempotent

POLL_S = 0.05
"""Seconds between two looks at the ROS graph while waiting for a server (rclpy has no event
for a server appearing; its own wait_for_service looks every 0.25 s)."""
_SPIN_S = 0.1  # longest executor wait, so that `close` is noticed


@dataclass(frozen=True)
class Budget:
    """The bound of one wait: its `seconds` (for the words of an error) and its `deadline`
    (time.monotonic)."""

    seconds: float
    deadline: float

    @classmethod
    def of(cls, seconds: float) -> Budget:
        return cls(seconds, time.monotonic() + seconds)

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


class Connection:
    """A node `node_name` in `namespace` (absolute), spun by an executor on its own thread."""

    def __init__(
        self,
        namespace: str,
        node_name: str,
        context: Context | None = None,
        args: Sequence[str] | None = None,
    ) -> None:
        self._own_context = context is None
        self.context = Context() if context is None else context
        self.failure: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.node: Node | None = None
        self.executor: SingleThreadedExecutor | None = None
        if self._own_context:
            rclpy.init(
                args=None if args is None else list(args),
                context=self.context,
                signal_handler_options=SignalHandlerOptions.NO,
            )
        try:
            self.node = Node(
                node_name,
                namespace=namespace,
                context=self.context,
                start_parameter_services=False,
            )
            self.executor = SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
        except BaseException:
            self.close()
            raise

    def start(self) -> None:
        """Start spinning (once every client and subscription exists)."""
        self._thread = threading.Thread(target=self._spin, name="arm_commander", daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            while not self._stop.is_set() and self.context.ok():
                self.executor.spin_once(timeout_sec=_SPIN_S)
        except BaseException as error:  # a callback's bug: every wait then says so
            if not self._stop.is_set():
                self.failure = error

    def check(self) -> None:
        """Raise CommanderError when the executor thread has died."""
        if self.failure is not None:
            raise CommanderError(f"the commander's ROS thread stopped: {self.failure!r}")

    def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run `function(*args)` on the executor thread; the rclpy Task (a Future) of it."""
        self.check()
        return self.executor.create_task(function, *args)

    def wait_future(self, future: Any, seconds: float | None) -> bool:
        """Whether an rclpy future is done within `seconds` (None: however long it takes);
        wakes at once when it completes."""
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        return done.wait(seconds)

    def wait_until(self, predicate: Callable[[], bool], budget: Budget) -> bool:
        """Poll `predicate` (a look at the ROS graph) until it holds or the budget is spent."""
        while not predicate():
            self.check()
            if budget.remaining() <= 0.0:
                return False
            time.sleep(min(POLL_S, budget.remaining()))
        return True

    def call(self, client: Any, request: Any, budget: Budget) -> Any | None:
        """The response of an idempotent service within the budget, or None (see the module)."""
        return call_idempotent(client, request, budget.remaining(), self.wait_future)

    def read_parameters(self, client: Any, names: Sequence[str], budget: Budget) -> dict | None:
        """{name: value} of a node's parameters through its `get_parameters` `client` (None
        for a parameter it does not have); None when it does not answer within the budget.

        rclpy answers a request that names one undeclared parameter with no values at all (a
        spatial arm declares no `plane_z_m`, an `angle_rad` gripper no `gripper.open_m`), so a
        short answer is asked again one name at a time."""
        if not self.wait_until(client.service_is_ready, budget):
            return None
        response = self.call(client, GetParameters.Request(names=list(names)), budget)
        if response is None:
            return None
        if len(response.values) == len(names):
            return {
                name: parameter_value_to_python(value)
                for name, value in zip(names, response.values, strict=True)
            }
        values: dict[str, Any] = {}
        for name in names:
            one = self.call(client, GetParameters.Request(names=[name]), budget)
            if one is None:
                return None
            values[name] = parameter_value_to_python(one.values[0]) if one.values else None
        return values

    def parameter_client(self, node: str) -> Any:
        """A client of `node`'s (relative name, in this namespace) get_parameters service."""
        return self.node.create_client(GetParameters, f"{node}/get_parameters")

    def close(self) -> None:
        """Stop the thread, destroy the node's action clients and the node (so that the
        servers hear it leave at once), then shut down the context if it is the commander's."""
        self._stop.set()
        if self._thread is not None:
            if self.executor is not None:
                self.executor.wake()
            self._thread.join()
        if self.executor is not None:
            self.executor.shutdown(timeout_sec=0)
        if self.node is not None:
            destroy_actions(self.node)
            self.node.destroy_node()
            self.node = None
        if self._own_context:
            rclpy.try_shutdown(context=self.context)


class Latest:
    """The latest value a callback delivered, and a wait for the first one."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._value: Any = None

    def set(self, value: Any) -> None:
        with self._changed:
            self._value = value
            self._changed.notify_all()

    def get(self) -> Any:
        with self._changed:
            return self._value

    def wait(self, budget: Budget) -> Any:
        """The latest value, waiting within the budget for the first; None if none came."""
        with self._changed:
            self._changed.wait_for(lambda: self._value is not None, budget.remaining())
            return self._value
