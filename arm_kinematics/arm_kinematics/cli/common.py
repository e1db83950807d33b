"""What the command-line clients share: their parser, the target options, the exit on a pipe.

No ROS import at module level, so that `--help` works fast and without a ROS environment.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

EXIT_BAD_COMMAND_LINE = 1
"""A wrong command line exits 1: the clients keep 2 for "no node answered"."""
EXIT_BROKEN_PIPE = 128 + 13
"""The reader of stdout went away: the code a shell shows for a tool killed by SIGPIPE."""


class ClientParser(argparse.ArgumentParser):
    """argparse, but a wrong command line exits with EXIT_BAD_COMMAND_LINE instead of 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_COMMAND_LINE, f"{self.prog}: error: {message}\n")


def add_target_arguments(parser: argparse.ArgumentParser, heading_help: str) -> None:
    """x, y (m), --z (m), --heading or --pitch (DEGREES) and --frame: a tip target in the base
    frame. Both angles are the request's TOOL_ANGLE: a planar arm's heading, a spatial arm's
    pitch; the two names keep a command line readable."""
    parser.add_argument("x", type=float, help="target x in the base frame, m")
    parser.add_argument("y", type=float, help="target y in the base frame, m")
    parser.add_argument(
        "--z",
        type=float,
        default=None,
        help="target z, m (default: the plane_z_m of --config; a spatial arm needs it)",
    )
    angle = parser.add_mutually_exclusive_group()
    angle.add_argument("--heading", type=float, default=None, help=heading_help)
    angle.add_argument(
        "--pitch",
        dest="heading",
        type=float,
        help="spatial arms: the tool's pitch above the horizontal at the target (TOOL_ANGLE), "
        "DEGREES (-90: pointing straight down)",
    )
    parser.add_argument(
        "--frame", default="", help="target frame_id (default empty: the node's base frame)"
    )


def parse_client_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse argv (argv[0] is the program) without its --ros-args blocks (those go to rclpy)."""
    from rclpy.utilities import remove_ros_args

    return parser.parse_args(remove_ros_args(list(argv))[1:])


def fill_target(request: Any, args: argparse.Namespace, plane_z: float) -> None:
    """Set a request's `target` (geometry_msgs/PoseStamped), `orientation_mode` and
    `tool_angle` (SolveIK.Request and MoveArm.Goal alike) from the target arguments.

    --heading (or --pitch) DEG is the TOOL_ANGLE in radians; without it the request is
    POSITION_ONLY. The
    target's orientation is the identity either way (the nodes read it only with
    FULL_ORIENTATION).
    """
    target = request.target
    target.header.frame_id = args.frame
    position = target.pose.position
    position.x, position.y = args.x, args.y
    position.z = plane_z if args.z is None else args.z
    target.pose.orientation.x = target.pose.orientation.y = target.pose.orientation.z = 0.0
    target.pose.orientation.w = 1.0
    if args.heading is None:
        request.orientation_mode = type(request).POSITION_ONLY
        request.tool_angle = 0.0
    else:
        request.orientation_mode = type(request).TOOL_ANGLE
        request.tool_angle = math.radians(args.heading)


def load_client_config(path: str | None, prog: str) -> Any:
    """The ArmConfig in `path` (None: the package's config/arm.yaml); None after one error line."""
    from arm_kinematics.config import ArmConfig, ConfigError

    try:
        return ArmConfig.from_file(path)
    except ConfigError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return None


def format_joint_state(msg: Any) -> str:
    """A sensor_msgs/JointState's names and positions, radians and degrees; "none" if empty."""
    if len(msg.name) == 0:
        return "none"
    return ", ".join(
        f"{name}={q:.6f} rad ({math.degrees(q):.3f} deg)"
        for name, q in zip(msg.name, msg.position, strict=False)
    )


def client_main(run: Callable[[list[str]], int], argv: Sequence[str] | None = None) -> NoReturn:
    """Exit with `run(argv)`'s code; a closed pipe (`| head`) ends quietly, as shell tools do."""
    try:
        code = run(list(sys.argv if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's documented recipe: point stdout at devnull so the flush at exit is silent.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_BROKEN_PIPE
    sys.exit(code)
