"""Generic conversion between rclpy message instances and JSON values, as rosbridge does it.

Driven by each message class's own description (`get_fields_and_field_types()` and the
rosidl_parser types in `SLOT_TYPES`), never by a hand-written shape per message type: nested
messages, fixed arrays, bounded and unbounded sequences, bounded strings, builtin_interfaces
Time/Duration (plain `{"sec", "nanosec"}` messages) all follow from the definitions.

Rules (rosbridge's, except where said):

- `uint8[]` / `char[]` (and fixed `uint8[N]`) go out as a base64 string; coming in, a base64
  string or a list of integers is accepted.
- A non-finite float going out (e.g. the NaN rows of SolveIKBatch) becomes JSON `null`, so that
  the answer is valid JSON (`JSON.parse` refuses `NaN`). rosbridge does the same.
- Coming in, NaN/inf, integers out of their type's range, a float for an integer field, a bool
  for a number, an unknown field name, a wrong array length: `ConversionError` naming the field
  (e.g. `target.pose.position.x`). Nothing half-converted is ever returned.
- Fields left out keep the message's defaults.

>>> from geometry_msgs.msg import Point
>>> to_json(Point(x=1.5, y=float("nan")))
{'x': 1.5, 'y': None, 'z': 0.0}
>>> from_json(Point, {"x": 0.1, "y": 2}).y
2.0
>>> from_json(Point, {"x": float("inf")})
Traceback (most recent call last):
...
arm_kinematics.bridge.convert.ConversionError: field 'x': inf is not a finite number
"""

from __future__ import annotations

import base64
import binascii
import importlib
import math
from collections.abc import Callable
from functools import cache
from typing import Any

from rosidl_parser.definition import (
    AbstractGenericString,
    AbstractNestedType,
    AbstractSequence,
    Array,
    BasicType,
    BoundedSequence,
    BoundedString,
    BoundedWString,
    NamespacedType,
)

FLOAT32_MAX = 3.4028234663852886e38
_INTEGER_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
_FLOATS = {"float", "double", "long double"}
# msg `byte` is IDL `octet` (bytes of length 1 in Python); msg `char` is IDL `uint8`.
_BINARY = {"uint8", "octet"}


class ConversionError(ValueError):
    """A JSON value that does not fit the message; `field` is its dotted path."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"field '{field}': {reason}" if field else reason)


def type_name(message_class: type) -> str:
    """'pkg/msg/Name' (or srv/action) of a generated message class.

    >>> from sensor_msgs.msg import JointState
    >>> type_name(JointState)
    'sensor_msgs/msg/JointState'
    """
    package, kind = message_class.__module__.split(".")[:2]
    return f"{package}/{kind}/{message_class.__name__}"


@cache
def _fields(message_class: type) -> tuple[tuple[str, Any], ...]:
    names = message_class.get_fields_and_field_types().keys()
    return tuple(zip(names, message_class.SLOT_TYPES, strict=True))


def _nested_class(namespaced: NamespacedType) -> type:
    return _class_named(tuple(namespaced.namespaces), namespaced.name)


@cache
def _class_named(namespaces: tuple[str, ...], name: str) -> type:
    return getattr(importlib.import_module(".".join(namespaces)), name)


def _join(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


# --- message -> JSON ---------------------------------------------------------------------------


def to_json(message: Any) -> dict[str, Any]:
    """A message instance as a JSON-ready dict (finite floats, NaN/inf as None, base64 bytes)."""
    return {name: _out(getattr(message, name), slot) for name, slot in _fields(type(message))}


def _out_float(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _out(value: Any, slot: Any) -> Any:
    if isinstance(slot, NamespacedType):
        return to_json(value)
    if isinstance(slot, BasicType):
        if slot.typename in _FLOATS:
            return _out_float(value)
        if slot.typename == "octet":
            return value[0]
        return value
    if isinstance(slot, AbstractGenericString):
        return value
    if isinstance(slot, AbstractNestedType):
        item = slot.value_type
        if isinstance(item, BasicType):
            if item.typename in _BINARY:
                raw = value if isinstance(value, bytes | bytearray) else _to_bytes(value)
                return base64.b64encode(raw).decode("ascii")
            if item.typename in _FLOATS:
                return [_out_float(float(v)) for v in value]
            return [v.item() if hasattr(v, "item") else v for v in value]
        return [_out(v, item) for v in value]
    raise TypeError(f"unsupported rosidl type {slot!r}")


def _to_bytes(value: Any) -> bytes:
    if hasattr(value, "tobytes"):  # numpy array, array.array
        return value.tobytes()
    return b"".join(v if isinstance(v, bytes) else bytes([v]) for v in value)


# --- JSON -> message ---------------------------------------------------------------------------


def from_json(
    message_class: type,
    data: Any,
    path: str = "",
    *,
    stamp_now: Callable[[], Any] | None = None,
) -> Any:
    """A new `message_class` instance from a JSON object; raises ConversionError.

    `stamp_now` (publish only): when the message has a top-level std_msgs/Header `header` and
    the client left out the header or its stamp, the stamp is `stamp_now()` (rosbridge's rule).
    """
    if not isinstance(data, dict):
        raise ConversionError(path, f"expected an object for {type_name(message_class)}")
    fields = dict(_fields(message_class))
    for name in data:
        if name not in fields:
            raise ConversionError(
                _join(path, str(name)), f"no such field in {type_name(message_class)}"
            )
    values = {name: _in(value, fields[name], _join(path, name)) for name, value in data.items()}
    message = message_class(**values)
    if stamp_now is not None and _has_header(fields):  # the top level only: nested calls pass none
        header = data.get("header")
        if not isinstance(header, dict) or "stamp" not in header:
            message.header.stamp = stamp_now()
    return message


def _has_header(fields: dict[str, Any]) -> bool:
    slot = fields.get("header")
    return isinstance(slot, NamespacedType) and slot.namespaced_name() == (
        "std_msgs",
        "msg",
        "Header",
    )


def _in(value: Any, slot: Any, path: str) -> Any:
    if isinstance(slot, NamespacedType):
        return from_json(_nested_class(slot), value, path)
    if isinstance(slot, BasicType):
        return _in_basic(value, slot.typename, path)
    if isinstance(slot, AbstractGenericString):
        if not isinstance(value, str):
            raise ConversionError(path, f"expected a string, got {_json_kind(value)}")
        if isinstance(slot, BoundedString | BoundedWString) and len(value) > slot.maximum_size:
            raise ConversionError(
                path, f"string of {len(value)} characters, at most {slot.maximum_size} allowed"
            )
        return value
    if isinstance(slot, AbstractNestedType):
        return _in_array(value, slot, path)
    raise ConversionError(path, f"unsupported rosidl type {slot!r}")


def _in_array(value: Any, slot: AbstractNestedType, path: str) -> Any:
    item = slot.value_type
    binary = isinstance(item, BasicType) and item.typename in _BINARY
    if binary and isinstance(value, str):
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ConversionError(path, "expected a list or a base64 string") from None
        items: list[Any] = list(raw)
    elif isinstance(value, list):
        items = value
    else:
        raise ConversionError(path, f"expected a list, got {_json_kind(value)}")
    if isinstance(slot, Array) and len(items) != slot.size:
        raise ConversionError(path, f"expected exactly {slot.size} items, got {len(items)}")
    if isinstance(slot, BoundedSequence) and len(items) > slot.maximum_size:
        raise ConversionError(path, f"at most {slot.maximum_size} items, got {len(items)}")
    converted = [_in(v, item, _join(path, i)) for i, v in enumerate(items)]
    if binary and item.typename == "octet" and isinstance(slot, AbstractSequence):
        return b"".join(converted)
    return converted


def _in_basic(value: Any, typename: str, path: str) -> Any:
    if typename == "boolean":
        if not isinstance(value, bool):
            raise ConversionError(path, f"expected true or false, got {_json_kind(value)}")
        return value
    if typename in _FLOATS:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConversionError(path, f"expected a number, got {_json_kind(value)}")
        number = float(value)
        if not math.isfinite(number):
            raise ConversionError(path, f"{number} is not a finite number")
        if typename == "float" and abs(number) > FLOAT32_MAX:
            raise ConversionError(path, f"{number} is out of range for float32")
        return number
    if typename in _INTEGER_RANGES or typename == "octet":
        low, high = _INTEGER_RANGES.get(typename, (0, 255))
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConversionError(
                path, f"expected an integer ({typename}), got {_json_kind(value)}"
            )
        if not low <= value <= high:
            raise ConversionError(path, f"{value} is out of range for {typename} [{low}, {high}]")
        return bytes([value]) if typename == "octet" else value
    if typename in ("char", "wchar"):
        if not isinstance(value, str) or len(value) != 1:
            raise ConversionError(path, "expected a string of one character")
        return value
    raise ConversionError(path, f"unsupported basic type {typename}")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
