"""ROS name helpers shared by the nodes' entry points and the command-line clients."""

from __future__ import annotations


def absolute_namespace(namespace: str) -> str:
    """'left_arm' or '/left_arm/' -> '/left_arm'; '' or '/' -> '/'. Raises ValueError.

    >>> absolute_namespace("lab/arm_b/"), absolute_namespace("")
    ('/lab/arm_b', '/')
    """
    from rclpy.exceptions import InvalidNamespaceException
    from rclpy.validate_namespace import validate_namespace

    stripped = namespace.strip().rstrip("/")
    absolute = "/" + stripped.lstrip("/")
    try:
        validate_namespace(absolute)
    except InvalidNamespaceException as error:
        raise ValueError(f"invalid namespace {namespace!r}: {error}") from None
    return absolute


def namespace_frame_prefix(namespace: str) -> str:
    """The TF frame prefix of an arm in `namespace`: 'left_arm/' for '/left_arm' (or
    'left_arm'), '' for the root namespace. tf2 frame names never start with '/'.

    >>> namespace_frame_prefix("/lab/arm_b"), namespace_frame_prefix("/")
    ('lab/arm_b/', '')
    """
    stripped = namespace.strip().strip("/")
    return f"{stripped}/" if stripped else ""
