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


def frame_prefix_for(option: str | None, namespace: str) -> str | None:
    """The frame prefix of an arm started in `namespace`: `option` when given ('' for none),
    else the namespace's ('left_arm/' in /left_arm); None in the root namespace, where the
    params file's own `frame_prefix` stands (what `bringup` and `arm.launch.py` do).

    >>> frame_prefix_for(None, "/left_arm"), frame_prefix_for("", "/left_arm")
    ('left_arm/', '')
    """
    if option is not None:
        return option
    return namespace_frame_prefix(namespace) or None


def launch_frames(config_path: str, frame_prefix: str | None, namespace: str) -> tuple[str, str]:
    """(frame prefix, RViz fixed frame) of an arm launched from `config_path` in `namespace`.

    The prefix as `frame_prefix_for`, else the file's; the fixed frame is the mount's parent
    frame when the arm has a mount (the frame other arms and sensors share), else the arm's
    prefixed base frame.
    """
    from arm_kinematics.config import ArmConfig, load_parameters_file

    config = ArmConfig.from_file(config_path)
    prefix = frame_prefix_for(frame_prefix, namespace)
    if prefix is None:
        prefix = config.frame_prefix
    else:  # validated as the file's would be
        config = ArmConfig.from_parameters(
            {**load_parameters_file(config_path), "frame_prefix": prefix}
        )
    fixed = (
        config.mount.parent_frame if config.mount is not None else config.frame(config.base_frame)
    )
    return prefix, fixed
