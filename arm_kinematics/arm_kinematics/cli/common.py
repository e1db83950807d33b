"""What the command-line clients share: their parser, the target options, their exit codes
(a commander error, Ctrl-C, a closed pipe).

The clients are written on the commander (`arm_kinematics.commander`): no rclpy plumbing here.
No ROS import at module level, so that `--help` works fast and without a ROS environment.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

EXIT_BAD_COMMAND_LINE = 1
"""A wrong command line exits 1: the clients keep 2 for "no node answered"."""
EXIT_NO_SERVER = 2
"""No node or server answered within --timeout."""
EXIT_INTERRUPTED = 128 + 2
"""Ctrl-C (or SIGTERM): the code a shell shows for a tool killed by SIGINT."""
EXIT_BROKEN_PIPE = 128 + 13
"""The reader of stdout went away: the code a shell shows for a tool killed by SIGPIPE."""
CANCEL_WAIT_S = 10.0
"""Seconds a client waits for its goal's result after Ctrl-C canceled it."""


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


def add_connection_arguments(parser: argparse.ArgumentParser, node: str, what: str) -> None:
    """--namespace (the arm's) and --timeout (the waits for `node` and its answer or the
    goal's acceptance; not `what` itself, which may take longer)."""
    parser.add_argument(
        "--namespace",
        "-n",
        default="",
        help=f"namespace of the {node} (e.g. arm1 for an arm started with --namespace arm1); "
        "default: none",
    )
    parser.add_argument(
        "--timeout",
        "-t",
        type=float,
        default=10.0,
        help=f"seconds to wait for the {node} and its answer (default 10); {what} may take longer",
    )


def parse_client_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse argv (argv[0] is the program) without its --ros-args blocks (those go to rclpy)."""
    from rclpy.utilities import remove_ros_args

    return parser.parse_args(remove_ros_args(list(argv))[1:])


def target_arguments(args: argparse.Namespace, layout: str) -> dict[str, Any]:
    """The commander's target arguments from the command line's: x, y, z (m), --heading or
    --pitch DEG as the arm's tool angle in radians (`heading` for a planar arm, `pitch` for a
    spatial one: both are the request's TOOL_ANGLE) and the frame. Without --z, z is left to
    the commander (a planar arm's plane; a spatial arm needs one)."""
    arguments: dict[str, Any] = {"x": args.x, "y": args.y, "z": args.z, "frame": args.frame}
    if args.heading is not None:
        angle = "heading" if layout == "planar" else "pitch"
        arguments[angle] = math.radians(args.heading)
    return arguments


def load_client_config(path: str | None, prog: str) -> Any:
    """The ArmConfig in `path` (None: the package's config/arm.yaml); None after one error line."""
    from arm_kinematics.config import ArmConfig, ConfigError

    try:
        return ArmConfig.from_file(path)
    except ConfigError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return None


def format_joints(joints: Mapping[str, float] | None) -> str:
    """Joints {name: rad} in radians and degrees; "none" for None or no joints."""
    if not joints:
        return "none"
    return ", ".join(
        f"{name}={q:.6f} rad ({math.degrees(q):.3f} deg)" for name, q in joints.items()
    )


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt, as Ctrl-C does, until the block ends: a client ends
    the same way on both (it cancels its goal). The commander runs every rclpy call that
    sends or cancels a goal on its own thread, so the interrupt never cuts one in half."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def client_commander(
    prog: str, args: argparse.Namespace, argv: Sequence[str], config: Any = None
) -> Any:
    """The client's ArmCommander: --namespace, --timeout, the arm of --config (None: the
    running nodes say), a node named `<prog>_<pid>`, and argv's --ros-args for its context."""
    from arm_kinematics.commander import ArmCommander

    return ArmCommander(
        args.namespace,
        config=config,
        timeout_s=args.timeout,
        node_name=f"{prog}_{os.getpid()}",
        args=argv,
    )


def run_commander(prog: str, work: Callable[[], int]) -> int:
    """`work()`'s exit code; a CommanderError it raises as one line on stderr and exit code
    EXIT_NO_SERVER (no server or answer within the timeout) or EXIT_BAD_COMMAND_LINE (the
    rest), Ctrl-C or SIGTERM as EXIT_INTERRUPTED."""
    from arm_kinematics.commander import CommanderError, ServerUnavailableError

    try:
        with sigterm_as_interrupt():
            return work()
    except ServerUnavailableError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_NO_SERVER
    except CommanderError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_BAD_COMMAND_LINE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def cancel_after_interrupt(arm: Any, prog: str, print_result: Callable[[Any], None]) -> int:
    """After Ctrl-C: cancel the commander's task if one was sent (its acceptance may still be
    on its way), print its result, and return EXIT_INTERRUPTED."""
    from arm_kinematics.commander import TaskTimeoutError

    if arm.is_task_complete():
        return EXIT_INTERRUPTED
    print(f"{prog}: canceling the goal...", file=sys.stderr, flush=True)
    try:
        result = arm.cancel_task(CANCEL_WAIT_S)
    except TaskTimeoutError:
        print(f"{prog}: no result after the cancel request", file=sys.stderr)
        return EXIT_INTERRUPTED
    if result is not None:
        print_result(result)
    return EXIT_INTERRUPTED


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
