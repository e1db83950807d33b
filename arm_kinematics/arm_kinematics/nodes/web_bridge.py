"""`web_bridge`: the arm's page and a rosbridge v2 WebSocket on one port (issue 10).

    web_bridge                                   # http://127.0.0.1:8080/ (the page), ws://.../ws
    web_bridge --ros-args -p port:=0             # any free port; the log line gives the URL
    web_bridge --ros-args -r __ns:=/left_arm     # the arm in /left_arm
    web_bridge --ros-args -p host:=0.0.0.0       # on the LAN: every client needs the token

The thin rclpy side of the bridge: parameters, and the ROS half of every rosbridge op
(subscriptions, publishers, service clients, the action client). Parsing, validation,
conversion, rate limits and the HTTP/WebSocket server live in `arm_kinematics.bridge`, which
has no ROS graph in it. aiohttp runs on its own asyncio loop in a thread beside the executor;
messages cross with `call_soon_threadsafe` and futures, never by blocking either side.

The node spins its own single-threaded executor on a thread of its own (`node.executor` is set
when it is built, so `run_nodes` and the test graphs leave it there). Its callbacks never
block: they convert a message and hand it to the loop. Every pass of an rclpy executor builds
its wait set from every entity of its nodes, in Python, holding the GIL: about 1 ms in
bringup's shared executor (five nodes and their parameter services), a fraction of that for
the bridge's own few. A call through the bridge takes two such passes (the response, then
its done callbacks, which rclpy runs as executor tasks), and the page's subscriptions one per
message; on the shared executor they cost the arm's nodes that time as well.

Only this arm's names (bridge/allowlist.py) are reachable; see docs/web_bridge.md ("Allow-list").
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException, ShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from arm_kinematics.bridge import protocol
from arm_kinematics.bridge.allowlist import AllowList, Interface
from arm_kinematics.bridge.auth import TokenFileError, generate_token, read_token_file
from arm_kinematics.bridge.convert import ConversionError, from_json, to_json
from arm_kinematics.bridge.protocol import ProtocolError
from arm_kinematics.bridge.security import BridgeSettings
from arm_kinematics.bridge.server import BridgeServer, Session, call_soon_threadsafe
from arm_kinematics.bridge.throttle import Throttle
from arm_kinematics.nodes.params import (
    ParameterStartupError,
    check_unknown_parameters,
    given_arm_names,
    take_given_parameters,
)
from arm_kinematics.nodes.runner import NodeStartupError, run_node

# The one import of the race-free ActionClient (see its module).
from arm_kinematics.rclpy_compat.action_client import ActionClient, destroy_actions

MAX_CALLS_IN_FLIGHT = 32  # per connection: service calls and goals waiting for an answer
MAX_SUBSCRIPTIONS = 32  # per connection (each is an rclpy subscription)
_READY_POLL_S = 0.02
_SPIN_TIMEOUT_S = 0.1  # the bridge's executor looks for its stop flag at least this often
_JOIN_TIMEOUT_S = 5.0

_DESCRIPTIONS = {
    "host": "address to bind (loopback by default; any other address is reachable from the "
    "network and logged as a warning)",
    "port": "TCP port of the page and the WebSocket (0 = any free port)",
    "web_root": "folder of the page's files ('' = the installed share/arm_kinematics/web)",
    "allowed_hosts": "extra host names accepted in Host/Origin headers (besides the bound "
    "address and localhost), e.g. the machine's name when host is 0.0.0.0",
    "max_connections": "most WebSocket clients at once",
    "max_message_bytes": "largest client message (bytes); a larger one closes its connection",
    "rate_limit_per_s": "messages per second a connection may send on average",
    "rate_limit_burst": "messages a connection may send at once above the average rate",
    "service_timeout_s": "longest wait for a service answer or an action server (s)",
    "require_token": "ask every client for the token on a loopback bind too (behind a reverse "
    "proxy); any other bind address always does",
    "token_file": "file holding the token, readable by its owner only ('' = a new token at "
    "each start, printed once in the page's URL)",
}
_PARAMETER_TYPES = {
    bool: ParameterType.PARAMETER_BOOL,
    str: ParameterType.PARAMETER_STRING,
    int: ParameterType.PARAMETER_INTEGER,
    float: ParameterType.PARAMETER_DOUBLE,
    tuple: ParameterType.PARAMETER_STRING_ARRAY,
}


class WebBridgeStartupError(NodeStartupError):
    """The port cannot be opened (e.g. in use): one log line, exit code 1."""


@dataclass
class _Goal:
    """One client's goal (under its rosbridge id): its handle once accepted, a pending cancel."""

    handle: Any = None
    cancel_requested: bool = False


@dataclass
class _ClientState:
    subscriptions: dict[tuple[str, Any], tuple[Any, Throttle]] = field(default_factory=dict)
    goals: dict[Any, _Goal] = field(default_factory=dict)
    calls_in_flight: int = 0


def declare_bridge_parameters(node: Node) -> BridgeSettings:
    """Declare web_bridge's read-only parameters and validate them (ParameterStartupError)."""
    given = take_given_parameters(node)
    check_unknown_parameters(node, given, *given_arm_names(given))
    values: dict[str, Any] = {}
    defaults = BridgeSettings()
    try:
        for spec in fields(BridgeSettings):
            default = getattr(defaults, spec.name)
            if isinstance(default, tuple) and spec.name not in given:
                # rclpy cannot declare an empty string array (ros2/rclpy#912, open: it becomes a
                # byte array): not given, the parameter is not declared, and means none.
                values[spec.name] = default
                continue
            descriptor = ParameterDescriptor(
                type=_PARAMETER_TYPES[type(default)],
                description=_DESCRIPTIONS[spec.name],
                read_only=True,
                dynamic_typing=isinstance(default, float),  # `1` in a file for a float
            )
            # rclpy takes an empty list for a byte array: a string list is declared by its type.
            initial = Parameter.Type.STRING_ARRAY if isinstance(default, tuple) else default
            value = node.declare_parameter(spec.name, initial, descriptor).value
            if isinstance(default, tuple):
                value = tuple(value or ())
            if isinstance(default, float):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"parameter '{spec.name}' = {value!r}: must be a number")
                value = float(value)
            values[spec.name] = value
        settings = BridgeSettings(**values)
        settings.validate()
    except (ParameterException, TypeError, ValueError) as error:
        node.get_logger().fatal(f"invalid configuration: {error}")
        raise ParameterStartupError() from None
    return settings


def installed_web_root() -> Path | None:
    """share/arm_kinematics/web of the installed package, or None if it is not there."""
    from ament_index_python.packages import PackageNotFoundError, get_package_share_directory

    try:
        root = Path(get_package_share_directory("arm_kinematics")) / "web"
    except PackageNotFoundError:
        return None
    return root if root.is_dir() else None


class WebBridge(Node):
    """Serves the page and the rosbridge protocol for this arm's own interfaces."""

    def __init__(self, **kwargs: Any) -> None:
        # What it was given is read from rclpy's declaration of it (nodes/params.py).
        super().__init__(
            "web_bridge", automatically_declare_parameters_from_overrides=True, **kwargs
        )
        self.settings = declare_bridge_parameters(self)
        self.allowed = AllowList(self.get_namespace())
        self._callbacks = ReentrantCallbackGroup()
        # Created on a client's first call or goal, so that the graph shows a client only for
        # what a page uses: no gripper action client on an arm without a gripper (the page asks
        # the hardware node's gripper.joint first).
        self._service_clients: dict[str, Any] = {}
        self._action_clients: dict[str, ActionClient] = {}
        self._topic_publishers: dict[str, Any] = {}
        web_root = Path(self.settings.web_root) if self.settings.web_root else installed_web_root()
        if web_root is None or not web_root.is_dir():
            self.get_logger().warning(
                f"no web page found ({web_root or 'share/arm_kinematics/web'}): serving only /ws"
            )
            web_root = None
        token = self._token()
        if not self.settings.loopback:
            self.get_logger().warning(
                f"binding {self.settings.host}: reachable from the network (parameter host); "
                "every client must show the token. No TLS: the token and everything the page "
                "sends cross the network unencrypted; for TLS put web_bridge behind a reverse "
                "proxy (docs/web_bridge.md, 'The page on the LAN')"
            )
        try:
            self.server = BridgeServer(self.settings, web_root, self, self.get_logger(), token)
        except OSError as error:
            self.get_logger().fatal(
                f"cannot listen on {self.settings.host}:{self.settings.port}: {error.strerror} "
                "(another arm's page on this port? Give each arm its own: web_port:=8081 "
                "with arm.launch.py, --web-port 8081 with bringup, -p port:=8081 for this node)"
            )
            raise WebBridgeStartupError() from None
        self.server.start()
        self._executor = SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self)
        self._stop_spinning = threading.Event()
        self._spinner = threading.Thread(target=self._spin, name="web_bridge_ros", daemon=True)
        self._spinner.start()
        self.url = self.server.url
        ws_url = f"ws{self.url[4:]}ws"
        # The page names the arm's topics with ?ns= (it may talk to another bridge too).
        namespace = self.get_namespace()
        page = self.url if namespace == "/" else f"{self.url}?ns={namespace}"
        join = "&" if "?" in page else "?"
        if token is None:
            self.get_logger().info(f"page at {page}")
            self.get_logger().info(f"rosbridge v2 WebSocket at {ws_url}")
        elif self.settings.token_file:
            self.get_logger().info(
                f"page at {page} (every client needs the token in "
                f"{self.settings.token_file}: open {page}{join}token=<token> once, then a "
                "cookie holds it)"
            )
        else:  # printed once: the only way to learn a generated token
            self.get_logger().info(
                f"page at {page}{join}token={token} (open it once: the token becomes a cookie)"
            )
        if token is not None:
            self.get_logger().info(
                f"rosbridge v2 WebSocket at {ws_url}: programs send the header "
                "'Authorization: Bearer <token>' or add ?token=<token> to this URL"
            )

    def _token(self) -> str | None:
        """The token clients must show (None on a loopback bind without require_token)."""
        if not self.settings.token_required:
            return None
        if not self.settings.token_file:
            return generate_token()
        try:
            return read_token_file(self.settings.token_file)
        except TokenFileError as error:
            self.get_logger().fatal(f"invalid configuration: {error}")
            raise ParameterStartupError() from None

    # --- Dispatcher: runs on the server's loop thread, never blocks ----------------------------

    def dispatch(self, session: Session, request: protocol.Request) -> None:
        state = session.state.setdefault("ros", _ClientState())
        if isinstance(request, protocol.Subscribe):
            self._subscribe(session, state, request)
        elif isinstance(request, protocol.Unsubscribe):
            self._unsubscribe(session, state, request)
        elif isinstance(request, protocol.Advertise):
            self._publisher(
                self.allowed.topic(request.topic, request.type, publish=True, message_id=request.id)
            )
        elif isinstance(request, protocol.Unadvertise):
            self.allowed.topic(request.topic, None, publish=True, message_id=request.id)
        elif isinstance(request, protocol.Publish):
            self._publish(request)
        elif isinstance(request, protocol.CallService):
            self._call_service(session, state, request)
        elif isinstance(request, protocol.SendActionGoal):
            self._send_goal(session, state, request)
        elif isinstance(request, protocol.CancelActionGoal):
            self._cancel_goal(state, request)

    def disconnected(self, session: Session) -> None:
        """A client went away: drop its subscriptions and cancel its goals (the arm stops)."""
        state: _ClientState | None = session.state.get("ros")
        if state is None:
            return
        for subscription, throttle in state.subscriptions.values():
            throttle.close()
            self.destroy_subscription(subscription)
        state.subscriptions.clear()
        for goal in state.goals.values():
            goal.cancel_requested = True
            if goal.handle is not None:
                goal.handle.cancel_goal_async()

    # --- topics ---------------------------------------------------------------------------------

    def _subscribe(
        self, session: Session, state: _ClientState, request: protocol.Subscribe
    ) -> None:
        topic = self.allowed.topic(
            request.topic, request.type, publish=False, message_id=request.id
        )
        key = (topic.resolved, request.id)
        if key in state.subscriptions:  # the same subscription again: new rate and queue
            self._drop_subscription(state, key)
        elif len(state.subscriptions) >= MAX_SUBSCRIPTIONS:
            raise ProtocolError(
                f"too many subscriptions (at most {MAX_SUBSCRIPTIONS} per connection)", request.id
            )
        throttle = Throttle(
            lambda text: session.send_text(text, droppable=True),
            request.throttle_rate_ms,
            request.queue_length,
            session.loop,
        )
        name = request.topic  # roslibjs matches messages by the exact name it subscribed to

        def on_message(message: Any) -> None:  # executor thread
            if session.closed:
                return
            text = protocol.encode(protocol.topic_message(name, to_json(message)))
            call_soon_threadsafe(session.loop, throttle.offer, text)

        subscription = self.create_subscription(
            topic.type, topic.resolved, on_message, _qos(topic), callback_group=self._callbacks
        )
        state.subscriptions[key] = (subscription, throttle)

    def _drop_subscription(self, state: _ClientState, key: tuple[str, Any]) -> None:
        subscription, throttle = state.subscriptions.pop(key)
        throttle.close()
        self.destroy_subscription(subscription)

    def _unsubscribe(
        self, session: Session, state: _ClientState, request: protocol.Unsubscribe
    ) -> None:
        topic = self.allowed.topic(request.topic, None, publish=False, message_id=request.id)
        keys = [
            key
            for key in state.subscriptions
            if key[0] == topic.resolved and (request.id is None or key[1] == request.id)
        ]
        if not keys:
            session.send(
                protocol.status(
                    "warning", f"unsubscribe: no subscription to '{request.topic}'", request.id
                )
            )
        for key in keys:
            self._drop_subscription(state, key)

    def _publisher(self, topic: Interface) -> Any:
        publisher = self._topic_publishers.get(topic.resolved)
        if publisher is None:
            publisher = self.create_publisher(topic.type, topic.resolved, _qos(topic))
            self._topic_publishers[topic.resolved] = publisher
        return publisher

    def _publish(self, request: protocol.Publish) -> None:
        # Publishing without `advertise` first is allowed: the allow-list knows the type.
        topic = self.allowed.topic(request.topic, None, publish=True, message_id=request.id)
        message = from_json(
            topic.type, request.msg, "msg", stamp_now=lambda: self.get_clock().now().to_msg()
        )
        self._publisher(topic).publish(message)

    # --- services -------------------------------------------------------------------------------

    def _call_service(
        self, session: Session, state: _ClientState, request: protocol.CallService
    ) -> None:
        service = self.allowed.service(request.service, request.type, request.id)
        ros_request = _message_from_args(service.type.Request, request.args)
        self.allowed.check_request(service, ros_request, request.id)
        _count_call(state, request.id)
        timeout = request.timeout_s or self.settings.service_timeout_s
        client = self._service_clients.get(service.resolved)
        if client is None:
            client = self.create_client(
                service.type, service.resolved, callback_group=self._callbacks
            )
            self._service_clients[service.resolved] = client

        async def call() -> None:
            try:
                response = await _ros_call(
                    client.service_is_ready,
                    lambda: client.call_async(ros_request),
                    timeout,
                    f"service '{service.resolved}'",
                    cancel=client.remove_pending_request,
                )
                answer = protocol.service_response(
                    request.service, to_json(response), True, request.id
                )
            except Exception as error:  # TimeoutError, or rclpy's own failure
                _refuse(session, request, _failure_text(error))
                return
            finally:
                state.calls_in_flight -= 1
            session.send(answer)

        session.loop.create_task(call())

    # --- actions --------------------------------------------------------------------------------

    def _send_goal(
        self, session: Session, state: _ClientState, request: protocol.SendActionGoal
    ) -> None:
        action = self.allowed.action(request.action, request.action_type, request.id)
        if request.id is not None and request.id in state.goals:
            raise ProtocolError(
                f"send_action_goal: a goal with id {request.id!r} is running", request.id
            )
        goal_message = _message_from_args(action.type.Goal, request.args)
        _count_call(state, request.id)
        client = self._action_clients.get(action.resolved)
        if client is None:
            client = ActionClient(
                self, action.type, action.resolved, callback_group=self._callbacks
            )
            self._action_clients[action.resolved] = client
        goal = _Goal()
        # A goal without an id cannot be canceled by the client, but is on disconnect.
        key = request.id if request.id is not None else object()
        state.goals[key] = goal
        feedback_callback = None
        if request.feedback:

            def feedback_callback(feedback: Any) -> None:  # executor thread
                session.send(
                    protocol.action_feedback(request.action, to_json(feedback.feedback), request.id)
                )

        async def run() -> None:
            try:
                handle = await _ros_call(
                    client.server_is_ready,
                    lambda: client.send_goal_async(
                        goal_message, feedback_callback=feedback_callback
                    ),
                    self.settings.service_timeout_s,
                    f"action '{action.resolved}'",
                )
                if not handle.accepted:
                    _refuse(session, request, f"action '{action.resolved}': goal rejected")
                    return
                goal.handle = handle
                if goal.cancel_requested:
                    handle.cancel_goal_async()
                result = await _wrap(session.loop, handle.get_result_async())
                session.send(
                    protocol.action_result(
                        request.action, to_json(result.result), result.status, True, request.id
                    )
                )
            except Exception as error:  # TimeoutError, or rclpy's own failure
                _refuse(session, request, _failure_text(error))
            finally:
                state.calls_in_flight -= 1
                state.goals.pop(key, None)

        session.loop.create_task(run())

    def _cancel_goal(self, state: _ClientState, request: protocol.CancelActionGoal) -> None:
        self.allowed.action(request.action, None, request.id)
        goal = state.goals.get(request.id)
        if goal is None:
            raise ProtocolError(
                f"cancel_action_goal: no goal in progress with id {request.id!r}", request.id
            )
        goal.cancel_requested = True
        if goal.handle is not None:
            goal.handle.cancel_goal_async()

    # --- the bridge's own executor, and shutdown ------------------------------------------------

    def _spin(self) -> None:
        while not self._stop_spinning.is_set():
            try:
                self._executor.spin_once(timeout_sec=_SPIN_TIMEOUT_S)
            except (ExternalShutdownException, ShutdownException):
                return
            except Exception as error:  # a callback's failure must not stop the bridge
                self.get_logger().error(f"a callback failed: {error!r}")

    def close(self) -> None:
        """Close every client (their goals are canceled) and stop the server."""
        server = getattr(self, "server", None)
        if server is not None:
            server.stop()

    def destroy_node(self) -> None:
        self.close()
        spinner = getattr(self, "_spinner", None)
        if spinner is not None:
            self._stop_spinning.set()
            self._executor.wake()
            spinner.join(_JOIN_TIMEOUT_S)
            self._executor.shutdown(timeout_sec=0)
        destroy_actions(self)
        super().destroy_node()


def _refuse(session: Session, request: protocol.Request, text: str) -> None:
    """A failed call or goal: the status error and the failed answer its client waits for."""
    as_sent = {
        "op": "call_service" if isinstance(request, protocol.CallService) else "send_action_goal",
        "service": getattr(request, "service", None),
        "action": getattr(request, "action", None),
    }
    for answer in protocol.refusal(as_sent, text, request.id):
        session.send(answer)


def _failure_text(error: Exception) -> str:
    return str(error) if isinstance(error, TimeoutError) else f"internal error: {error!r}"


def _qos(topic: Interface) -> QoSProfile:
    if topic.latest_only:
        # A jog's stream: the newest command wins, so no older one waits behind it anywhere
        # on this side (the WebSocket's frames are handed on in order as they come).
        return QoSProfile(depth=1)
    if topic.latched:
        # The publishers latch (transient local, depth 1 each; ik_markers has two), so a page
        # that subscribes late still gets the last message of every one of them.
        return QoSProfile(
            depth=10,
            reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL,
        )
    return QoSProfile(depth=10)


def _message_from_args(message_class: type, args: dict[str, Any] | list[Any]) -> Any:
    names = list(message_class.get_fields_and_field_types())
    try:
        values = protocol.positional_args(args, names)
    except ValueError as error:
        raise ConversionError("args", str(error)) from None
    return from_json(message_class, values, "args")


def _count_call(state: _ClientState, message_id: Any) -> None:
    if state.calls_in_flight >= MAX_CALLS_IN_FLIGHT:
        raise ProtocolError(
            f"too many calls waiting for an answer (at most {MAX_CALLS_IN_FLIGHT} per connection)",
            message_id,
        )
    state.calls_in_flight += 1


def _wrap(loop: asyncio.AbstractEventLoop, ros_future: Any) -> asyncio.Future:
    """An asyncio future on `loop` completed from rclpy's future (done on the executor)."""
    future = loop.create_future()

    def done(_: Any) -> None:
        def settle() -> None:
            if future.done():
                return
            error = ros_future.exception()
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(ros_future.result())

        call_soon_threadsafe(loop, settle)

    ros_future.add_done_callback(done)
    return future


async def _ros_call(
    is_ready: Any, send: Any, timeout_s: float, what: str, cancel: Any = None
) -> Any:
    """Wait for the server (DDS discovery), send, await the answer; TimeoutError after timeout_s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not is_ready():
        if loop.time() >= deadline:
            raise TimeoutError(f"{what} is not available (waited {timeout_s:g} s)")
        await asyncio.sleep(_READY_POLL_S)
    ros_future = send()
    try:
        return await asyncio.wait_for(_wrap(loop, ros_future), max(deadline - loop.time(), 0.01))
    except TimeoutError:
        if cancel is not None:
            cancel(ros_future)
        raise TimeoutError(f"{what} did not answer within {timeout_s:g} s") from None


def main(args: list[str] | None = None) -> None:
    import sys

    sys.exit(run_node(WebBridge, args))


if __name__ == "__main__":
    main()
