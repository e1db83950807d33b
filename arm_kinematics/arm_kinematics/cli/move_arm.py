"""`move_arm`: send a MoveArm goal to a running trajectory_node, print feedback and the result.

For people without ros2cli (`ros2 action send_goal`). Positions in metres in the arm's base
frame; the optional heading in DEGREES on this command line (the action speaks radians).

    move_arm 0.12 0.05                          # straight line at the configured speed
    move_arm 0.12 0.05 --speed 0.02             # 2 cm/s
    move_arm 0.12 0.05 --joint --speed 0.5      # joint-space move at half the joint limits
    move_arm 0.12 0.05 --heading 30             # 3R arm: tool heading 30 degrees at the goal
    move_arm --namespace arm1 0.1 0.0           # the trajectory_node of a namespaced arm

Ctrl-C while the arm moves cancels the goal (the arm stops at its last commanded point) and
prints the CANCELED result.

Exit code: 0 when the goal SUCCEEDED, 1 for any other result (or a wrong command line), 2 when
no action server answered within --timeout, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    add_target_arguments,
    cancel_after_interrupt,
    client_commander,
    client_main,
    format_joints,
    load_client_config,
    parse_client_args,
    run_commander,
    target_arguments,
)

EXIT_SUCCEEDED = 0
EXIT_FAILED = EXIT_BAD_COMMAND_LINE  # any result but SUCCEEDED, or a wrong command line


def build_parser() -> argparse.ArgumentParser:
    parser = ClientParser(
        prog="move_arm",
        description="Send a MoveArm goal to a running trajectory_node and print its feedback "
        "and result. Positions in metres in the arm's base frame; the HEADING ON THIS COMMAND "
        "LINE IS IN DEGREES (the action uses radians). Ctrl-C cancels the goal.",
        epilog="Exit code: 0 SUCCEEDED, 1 any other result or a bad command line, 2 no "
        "action server within --timeout, 130 interrupted (the goal is canceled).",
    )
    add_target_arguments(
        parser, heading_help="tool heading at the goal (TOOL_ANGLE), DEGREES about the base z"
    )
    parser.add_argument(
        "--joint",
        action="store_true",
        help="JOINT mode: interpolate the joints (the tool follows a curve); default LINEAR",
    )
    parser.add_argument(
        "--speed",
        type=float,
        default=0.0,
        help="LINEAR: tool speed, m/s; JOINT: fraction (0, 1] of the joint velocity limits; "
        "0 (default): the node's configured default",
    )
    parser.add_argument(
        "--max-step",
        type=float,
        default=0.0,
        help="LINEAR: metres between IK points; 0 (default): the node's configured default",
    )
    parser.add_argument(
        "--namespace",
        "-n",
        default="",
        help="namespace of the trajectory_node (e.g. arm1 for /arm1/move_arm); default: none",
    )
    parser.add_argument(
        "--timeout",
        "-t",
        type=float,
        default=10.0,
        help="seconds to wait for the action server and the goal's acceptance (default 10); "
        "the move itself may take longer",
    )
    parser.add_argument(
        "--feedback-period",
        type=float,
        default=0.5,
        help="seconds between printed feedback lines (default 0.5; 0 prints every one)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print no feedback")
    parser.add_argument(
        "--config",
        default=None,
        help="params file giving the arm's plane height (default: the package's config/arm.yaml)",
    )
    return parser


def format_feedback(feedback: Any) -> str:
    """One line per feedback: progress, tip and joints (degrees)."""
    joints = ", ".join(f"{name}={math.degrees(q):.2f}" for name, q in feedback.joints.items())
    x, y, _ = feedback.tip
    return (
        f"step {feedback.step}/{feedback.total_steps} ({100 * feedback.fraction:.0f}%) "
        f"tip x={x:.4f} y={y:.4f} m joints {joints} deg"
    )


def print_result(result: Any) -> None:
    print(f"status: {result.status} ({result.status_code})")
    print(f"message: {result.message}")
    if result.status in ("IK_FAILED", "JOINT_JUMP"):
        x, y, _ = result.failed_point
        print(
            f"failed step: {result.failed_step} of {result.total_steps} at "
            f"x={x:.4f} y={y:.4f} m (IK status {result.ik_status})"
        )
    print(f"feasible fraction: {result.feasible_fraction:.3f}")
    if result.total_setpoints:
        print(
            f"setpoints sent: {result.sent_setpoints} of {result.total_setpoints} "
            f"({result.total_steps} IK steps planned)"
        )
    print(f"final joints: {format_joints(result.final_joints)}")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)
    config = load_client_config(args.config, "move_arm")
    if config is None:
        return EXIT_FAILED
    return run_commander("move_arm", lambda: _move(args, argv, config))


def _move(args: argparse.Namespace, argv: list[str], config: Any) -> int:
    """Send the goal through the commander, print feedback and the result; the exit code."""
    with client_commander("move_arm", args, argv, config) as arm:
        try:
            arm.move_to_pose(
                **target_arguments(args, config.layout),
                mode="joint" if args.joint else "linear",
                speed=args.speed,
                max_step=args.max_step,
                on_feedback=feedback_printer(args),
            )
            result = arm.wait_for_task()
        except KeyboardInterrupt:
            return cancel_after_interrupt(arm, "move_arm", print_result)
    print_result(result)
    return EXIT_SUCCEEDED if result.succeeded else EXIT_FAILED


def feedback_printer(args: argparse.Namespace) -> Callable[[Any], None] | None:
    """Prints feedback at most every --feedback-period, and the last; None with --quiet."""
    if args.quiet:
        return None
    last_print = -math.inf

    def on_feedback(feedback: Any) -> None:
        nonlocal last_print
        now = time.monotonic()
        final = feedback.step == feedback.total_steps
        if final or now - last_print >= args.feedback_period:
            last_print = now
            print(format_feedback(feedback), flush=True)

    return on_feedback


if __name__ == "__main__":
    main()
