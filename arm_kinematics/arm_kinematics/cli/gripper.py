"""`gripper`: send a GripperCommand goal to a running hardware_node, print feedback and the result.

`move_arm`'s sibling, for people without ros2cli (`ros2 action send_goal
gripper_controller/gripper_cmd control_msgs/action/GripperCommand ...`).

    gripper open                    # fully open (the file's gripper.open_deg)
    gripper close                   # closed (gripper.closed_deg): stops on what it holds
    gripper 0.03                    # 30 mm between the fingers (position_unit: opening_m)
    gripper 25                      # 25 DEGREES on the command line (position_unit: angle_rad)
    gripper --namespace arm1 open   # the hardware_node of a namespaced arm

The position is in the gripper's configured unit, read from the running hardware_node's
parameters (so the command needs no params file): metres between the fingers, or for an
angle-configured gripper its joint angle, given here in degrees (the action speaks radians).
A position outside [closed, open] is refused before anything is sent. Ctrl-C while it moves
cancels the goal (the gripper stops where it is) and prints the CANCELED result.

Exit code: 0 when the goal SUCCEEDED (reached), 1 for any other result (stalled, replaced,
canceled, rejected) or a wrong command line, 2 when no hardware_node (or no gripper action)
answered within --timeout, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    cancel_after_interrupt,
    client_commander,
    client_main,
    parse_client_args,
    run_commander,
)

EXIT_SUCCEEDED = 0
EXIT_FAILED = EXIT_BAD_COMMAND_LINE  # any result but SUCCEEDED, or a wrong command line

ACTION = "gripper_controller/gripper_cmd"


def build_parser() -> argparse.ArgumentParser:
    parser = ClientParser(
        prog="gripper",
        description="Open, close or set the arm's gripper through the hardware_node's "
        f"{ACTION} action (control_msgs/GripperCommand) and print its feedback and result. "
        "A number is in the gripper's configured unit: metres between the fingers, or, for a "
        "gripper configured by angle, DEGREES ON THIS COMMAND LINE (the action uses radians). "
        "Ctrl-C cancels the goal.",
        epilog="Exit code: 0 reached, 1 any other result or a bad command line, 2 no "
        "hardware_node or gripper action within --timeout, 130 interrupted (the goal is "
        "canceled).",
    )
    parser.add_argument(
        "position",
        help="open | close | a position: metres between the fingers (opening_m), or degrees "
        "(angle_rad)",
    )
    parser.add_argument(
        "--max-effort",
        type=float,
        default=0.0,
        help="the goal's max_effort, N (accepted but not applied: hobby servos have no effort "
        "control); default 0",
    )
    parser.add_argument(
        "--namespace",
        "-n",
        default="",
        help="namespace of the hardware_node (e.g. arm1 for /arm1/gripper_controller/"
        "gripper_cmd); default: none",
    )
    parser.add_argument(
        "--timeout",
        "-t",
        type=float,
        default=10.0,
        help="seconds to wait for the hardware_node, its action server and the goal's "
        "acceptance (default 10); the motion itself may take longer",
    )
    parser.add_argument(
        "--feedback-period",
        type=float,
        default=0.2,
        help="seconds between printed feedback lines (default 0.2; 0 prints every one)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print no feedback")
    return parser


def goal_position(unit: Any, text: str) -> float | str:
    """The goal's position (m or rad) for `open`, `close` or a number on the command line (m,
    or degrees for an angle); or why the text is not one. The range is the commander's to
    check."""
    if text == "open":
        return unit.open
    if text == "close":
        return unit.closed
    try:
        number = float(text)
    except ValueError:
        return f"position {text!r} must be open, close or a number"
    if not math.isfinite(number):
        return f"position {text!r} must be a finite number"
    return math.radians(number) if unit.unit == "angle_rad" else number


def print_result(unit: Any, result: Any) -> None:
    print(f"status: {result.status}")
    print(f"position: {unit.shown(result.position)}")
    reached, stalled = str(result.reached_goal).lower(), str(result.stalled).lower()
    print(f"reached_goal: {reached}, stalled: {stalled}")
    print(f"effort: {result.effort:g} (hobby servos measure no force)")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)
    return run_commander("gripper", lambda: _grip(args, argv))


def _grip(args: argparse.Namespace, argv: list[str]) -> int:
    """Read the gripper's unit, send the goal, print feedback and the result; the exit code."""
    with client_commander("gripper", args, argv) as arm:
        unit = arm.gripper_unit()
        position = goal_position(unit, args.position)
        if isinstance(position, str):
            print(f"gripper: {position}; nothing was sent", file=sys.stderr)
            return EXIT_FAILED
        position = unit.check(position)
        print(f"goal: {unit.shown(position)} ({unit.joint})", flush=True)
        try:
            arm.set_gripper(
                position, max_effort=args.max_effort, on_feedback=_feedback_printer(args, unit)
            )
            result = arm.wait_for_task()
        except KeyboardInterrupt:
            return cancel_after_interrupt(arm, "gripper", lambda r: print_result(unit, r))
    print_result(unit, result)
    return EXIT_SUCCEEDED if result.succeeded else EXIT_FAILED


def _feedback_printer(args: argparse.Namespace, unit: Any) -> Callable[[Any], None] | None:
    """Prints the position at most every --feedback-period; None with --quiet."""
    if args.quiet:
        return None
    last_print = -math.inf

    def on_feedback(feedback: Any) -> None:
        nonlocal last_print
        now = time.monotonic()
        if now - last_print >= args.feedback_period:
            last_print = now
            print(f"at {unit.shown(feedback.position)}", flush=True)

    return on_feedback


if __name__ == "__main__":
    main()
