"""The rosbridge v2 protocol: parsing and validating client messages, building server messages.

Spec: ROSBRIDGE_PROTOCOL.md of RobotWebTools/rosbridge_suite; answers shaped as rosbridge_library
sends them (ROS 2 branch), so roslibjs and roslibpy work unchanged:

- errors and warnings: `{"op": "status", "level": "error", "msg": ..., "id": ...}` (`id` only when
  the client's message had one);
- `service_response`: `service`, `values` (the response, or the error text when `result` is
  false), `result`, `id`;
- `action_feedback` / `action_result`: `action`, `values`, `id`; the result also has `status`
  (action_msgs/GoalStatus) and `result` (false only when no result could be obtained, with the
  error text in `values`).

An `id` may be a string or an integer and is echoed unchanged.

>>> text = '{"op": "subscribe", "topic": "/joint_states", "throttle_rate": 100}'
>>> request = parse_request(decode(text))
>>> request.topic, request.throttle_rate_ms, request.queue_length
('/joint_states', 100, 0)
>>> status("error", "unknown op 'x'", "a1")
{'op': 'status', 'level': 'error', 'msg': "unknown op 'x'", 'id': 'a1'}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

MessageId = str | int | None


class ProtocolError(ValueError):
    """A client message that cannot be served; answered with a `status` error (and `id`)."""

    def __init__(
        self, message: str, message_id: MessageId = None, request: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message_id = message_id
        self.request = request  # the decoded message, when it could be decoded


# --- decoding ----------------------------------------------------------------------------------


def decode(text: str | bytes) -> dict[str, Any]:
    """One JSON text to a message object with a string `op`; raises ProtocolError.

    Python's json accepts the non-JSON tokens NaN, Infinity and -Infinity (and 1e999 becomes
    inf): any non-finite number anywhere is refused here, naming where it is.
    """
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, bad UTF-8, deep nesting
        raise ProtocolError(f"invalid JSON: {error}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a rosbridge message must be a JSON object with an 'op' field")
    message_id = message.get("id")
    if message_id is not None and (
        isinstance(message_id, bool) or not isinstance(message_id, str | int)
    ):
        raise ProtocolError("'id' must be a string or an integer")
    where = _non_finite(message, "")
    if where is not None:
        raise ProtocolError(
            f"field '{where}': NaN and infinity are not JSON numbers and are refused",
            message_id,
            message,
        )
    op = message.get("op")
    if not isinstance(op, str):
        raise ProtocolError("a rosbridge message must have a string 'op'", message_id)
    return message


def _non_finite(value: Any, path: str) -> str | None:
    """Dotted path of the first non-finite float in a decoded JSON value, else None."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return where
        elif isinstance(item, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
    return None


# --- requests ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subscribe:
    id: MessageId
    topic: str
    type: str | None
    throttle_rate_ms: int
    queue_length: int


@dataclass(frozen=True)
class Unsubscribe:
    id: MessageId
    topic: str


@dataclass(frozen=True)
class Advertise:
    id: MessageId
    topic: str
    type: str


@dataclass(frozen=True)
class Unadvertise:
    id: MessageId
    topic: str


@dataclass(frozen=True)
class Publish:
    id: MessageId
    topic: str
    msg: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CallService:
    id: MessageId
    service: str
    type: str | None
    args: dict[str, Any] | list[Any]
    timeout_s: float | None


@dataclass(frozen=True)
class SendActionGoal:
    id: MessageId
    action: str
    action_type: str
    args: dict[str, Any] | list[Any]
    feedback: bool


@dataclass(frozen=True)
class CancelActionGoal:
    id: MessageId
    action: str


Request = (
    Subscribe
    | Unsubscribe
    | Advertise
    | Unadvertise
    | Publish
    | CallService
    | SendActionGoal
    | CancelActionGoal
)

#: Ops a client may send us. The server-side ops of a client that serves services or actions
#: itself (advertise_service, advertise_action, ...) are refused: this bridge only lets clients
#: use the arm's own interfaces.
CLIENT_OPS = (
    "subscribe",
    "unsubscribe",
    "advertise",
    "unadvertise",
    "publish",
    "call_service",
    "send_action_goal",
    "cancel_action_goal",
)

_NO_VALUE = object()


def _get(
    message: dict[str, Any], name: str, kinds: type | tuple[type, ...], default: Any = _NO_VALUE
) -> Any:
    value = message.get(name, _NO_VALUE)
    if value is _NO_VALUE or (value is None and default is not _NO_VALUE):
        if default is _NO_VALUE:
            raise ProtocolError(f"{message['op']}: missing field '{name}'", message.get("id"))
        return default
    expected = kinds if isinstance(kinds, tuple) else (kinds,)
    if isinstance(value, bool) and bool not in expected:
        value = _NO_VALUE  # JSON true is not a number here
    if value is _NO_VALUE or not isinstance(value, expected):
        names = " or ".join(_KIND_NAMES[k] for k in expected)
        raise ProtocolError(f"{message['op']}: field '{name}' must be {names}", message.get("id"))
    return value


_KIND_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    dict: "an object",
    list: "a list",
}


def _non_negative_int(message: dict[str, Any], name: str) -> int:
    value = _get(message, name, int, 0)
    if value < 0:
        raise ProtocolError(f"{message['op']}: '{name}' must be >= 0", message.get("id"))
    return value


def _compression(message: dict[str, Any]) -> None:
    compression = _get(message, "compression", str, "none")
    if compression != "none":
        raise ProtocolError(
            f"{message['op']}: compression '{compression}' is not supported (only 'none')",
            message.get("id"),
        )


def _args(message: dict[str, Any]) -> dict[str, Any] | list[Any]:
    return _get(message, "args", (dict, list), {})


def parse_request(message: dict[str, Any]) -> Request:
    """A decoded message as one of the request dataclasses; raises ProtocolError."""
    op = message["op"]
    message_id = message.get("id")
    if op == "subscribe":
        _compression(message)
        _get(message, "fragment_size", int, 0)
        return Subscribe(
            message_id,
            _get(message, "topic", str),
            _get(message, "type", str, None),
            _non_negative_int(message, "throttle_rate"),
            _non_negative_int(message, "queue_length"),
        )
    if op == "unsubscribe":
        return Unsubscribe(message_id, _get(message, "topic", str))
    if op == "advertise":
        return Advertise(message_id, _get(message, "topic", str), _get(message, "type", str))
    if op == "unadvertise":
        return Unadvertise(message_id, _get(message, "topic", str))
    if op == "publish":
        return Publish(message_id, _get(message, "topic", str), _get(message, "msg", dict, {}))
    if op == "call_service":
        _compression(message)
        _get(message, "fragment_size", int, 0)
        timeout = _get(message, "timeout", (int, float), None)
        if timeout is not None and timeout <= 0:
            raise ProtocolError("call_service: 'timeout' must be > 0 seconds", message_id)
        return CallService(
            message_id,
            _get(message, "service", str),
            _get(message, "type", str, None),
            _args(message),
            None if timeout is None else float(timeout),
        )
    if op == "send_action_goal":
        _compression(message)
        _get(message, "fragment_size", int, 0)
        return SendActionGoal(
            message_id,
            _get(message, "action", str),
            _get(message, "action_type", str),
            _args(message),
            _get(message, "feedback", bool, False),
        )
    if op == "cancel_action_goal":
        if message_id is None:
            raise ProtocolError("cancel_action_goal: missing field 'id' (the goal's id)")
        return CancelActionGoal(message_id, _get(message, "action", str))
    raise ProtocolError(
        f"unknown op '{op}' (this bridge serves: {', '.join(CLIENT_OPS)})", message_id
    )


def positional_args(args: dict[str, Any] | list[Any], field_names: list[str]) -> dict[str, Any]:
    """rosbridge's `args` as a field dict: an object as is, or a list in field order.

    >>> positional_args([0.1, 0.2], ["x", "y", "z"])
    {'x': 0.1, 'y': 0.2}
    """
    if isinstance(args, dict):
        return args
    if len(args) > len(field_names):
        raise ValueError(f"{len(args)} positional args for {len(field_names)} fields")
    return dict(zip(field_names, args, strict=False))


# --- server messages ---------------------------------------------------------------------------


def _with_id(message: dict[str, Any], message_id: MessageId) -> dict[str, Any]:
    if message_id is not None:
        message["id"] = message_id
    return message


def status(level: str, text: str, message_id: MessageId = None) -> dict[str, Any]:
    """A `status` message (level: 'error', 'warning' or 'info')."""
    return _with_id({"op": "status", "level": level, "msg": text}, message_id)


def topic_message(topic: str, msg: dict[str, Any]) -> dict[str, Any]:
    return {"op": "publish", "topic": topic, "msg": msg}


def service_response(
    service: str, values: dict[str, Any] | str, result: bool, message_id: MessageId
) -> dict[str, Any]:
    return _with_id(
        {"op": "service_response", "service": service, "values": values, "result": result},
        message_id,
    )


def action_feedback(action: str, values: dict[str, Any], message_id: MessageId) -> dict[str, Any]:
    return _with_id({"op": "action_feedback", "action": action, "values": values}, message_id)


def action_result(
    action: str,
    values: dict[str, Any] | str,
    goal_status: int,
    result: bool,
    message_id: MessageId,
) -> dict[str, Any]:
    return _with_id(
        {
            "op": "action_result",
            "action": action,
            "values": values,
            "status": goal_status,
            "result": result,
        },
        message_id,
    )


#: action_msgs/GoalStatus STATUS_UNKNOWN, the status rosbridge gives a goal that got no result.
GOAL_STATUS_UNKNOWN = 0


def refusal(request: dict[str, Any] | None, text: str, message_id: MessageId) -> list[dict]:
    """What a refused client message gets: a `status` error, and for a service call or a goal
    also the failed `service_response` / `action_result` its client library is waiting for.

    >>> [m["op"] for m in refusal({"op": "call_service", "service": "x"}, "bad", 7)]
    ['status', 'service_response']
    """
    answers = [status("error", text, message_id)]
    if request is None:
        return answers
    op = request.get("op")
    if op == "call_service" and isinstance(request.get("service"), str):
        answers.append(service_response(request["service"], text, False, message_id))
    elif op == "send_action_goal" and isinstance(request.get("action"), str):
        answers.append(
            action_result(request["action"], text, GOAL_STATUS_UNKNOWN, False, message_id)
        )
    return answers


def encode(message: dict[str, Any]) -> str:
    """Compact JSON; raises ValueError on NaN/inf (convert.to_json has made them null)."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False)
