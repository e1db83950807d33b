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
import sys
import time
from collections.abc import Sequence
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    add_target_arguments,
    client_main,
    fill_target,
    format_joint_state,
    load_client_config,
    parse_client_args,
)
from arm_kinematics.cli.spin import Spinner, client_node
from arm_kinematics.names import absolute_namespace

EXIT_SUCCEEDED = 0
EXIT_FAILED = EXIT_BAD_COMMAND_LINE  # any result but SUCCEEDED, or a wrong command line
EXIT_NO_SERVER = 2
EXIT_INTERRUPTED = 130

_CANCEL_WAIT_S = 10.0


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
    """One line per feedback message: progress, tip and joints (degrees)."""
    joints = ", ".join(
        f"{name}={math.degrees(q):.2f}"
        for name, q in zip(feedback.joints.name, feedback.joints.position, strict=False)
    )
    return (
        f"step {feedback.step}/{feedback.total_steps} ({100 * feedback.fraction:.0f}%) "
        f"tip x={feedback.tip.x:.4f} y={feedback.tip.y:.4f} m joints {joints} deg"
    )


def print_result(result: Any) -> None:
    from arm_kinematics.nodes.messages import solve_ik_status_name
    from arm_kinematics.nodes.trajectory.goals import status_name
    from arm_kinematics_interfaces.action import MoveArm

    print(f"status: {status_name(result.status)} ({result.status})")
    print(f"message: {result.message}")
    if result.status in (MoveArm.Result.IK_FAILED, MoveArm.Result.JOINT_JUMP):
        point = result.failed_point
        print(
            f"failed step: {result.failed_step} of {result.total_steps} at "
            f"x={point.x:.4f} y={point.y:.4f} m "
            f"(IK status {solve_ik_status_name(result.ik_status)})"
        )
    print(f"feasible fraction: {result.feasible_fraction:.3f}")
    if result.total_setpoints:
        print(
            f"setpoints sent: {result.sent_setpoints} of {result.total_setpoints} "
            f"({result.total_steps} IK steps planned)"
        )
    print(f"final joints: {format_joint_state(result.final_joints)}")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)

    # ROS imports after parsing so that --help works fast and without a ROS environment.
    from arm_kinematics.rclpy_compat.action_client import ActionClient
    from arm_kinematics_interfaces.action import MoveArm

    config = load_client_config(args.config, "move_arm")
    if config is None:
        return EXIT_FAILED

    goal = MoveArm.Goal(
        mode=MoveArm.Goal.JOINT if args.joint else MoveArm.Goal.LINEAR,
        speed=args.speed,
        max_step=args.max_step,
    )
    fill_target(goal, args, config.plane_z)

    try:
        namespace = absolute_namespace(args.namespace)
    except ValueError as error:
        print(f"move_arm: {error}", file=sys.stderr)
        return EXIT_FAILED
    with client_node("move_arm", namespace, argv) as (node, spin):
        client = ActionClient(node, MoveArm, "move_arm")
        server = node.resolve_topic_name("move_arm")  # as rcl_action resolves it
        return _send(spin, client, server, goal, args)


def _send(spin: Spinner, client: Any, server: str, goal: Any, args: argparse.Namespace) -> int:
    from arm_kinematics_interfaces.action import MoveArm

    deadline = time.monotonic() + args.timeout
    if not spin.until(client.server_is_ready, args.timeout):
        if spin.interrupted.is_set():
            return EXIT_INTERRUPTED
        print(
            f"move_arm: no {server} action server within {args.timeout:g} s "
            "(is trajectory_node running, in this namespace and ROS_DOMAIN_ID?)",
            file=sys.stderr,
        )
        return EXIT_NO_SERVER
    last_print = -math.inf

    def on_feedback(message: Any) -> None:
        nonlocal last_print
        feedback = message.feedback
        now = time.monotonic()
        final = feedback.step == feedback.total_steps
        if not args.quiet and (final or now - last_print >= args.feedback_period):
            last_print = now
            print(format_feedback(feedback), flush=True)

    sent = client.send_goal_async(goal, feedback_callback=on_feedback)
    # Not interruptible: a goal on its way must be known before it can be canceled.
    if not spin.until(sent.done, max(0.0, deadline - time.monotonic()), interruptible=False):
        print(
            f"move_arm: {server} did not accept the goal within {args.timeout:g} s",
            file=sys.stderr,
        )
        return EXIT_NO_SERVER
    handle = sent.result()
    if not handle.accepted:
        print(f"move_arm: {server} rejected the goal", file=sys.stderr)
        return EXIT_FAILED
    result_future = handle.get_result_async()
    if not spin.until(result_future.done, None):
        print("move_arm: canceling the goal...", file=sys.stderr, flush=True)
        handle.cancel_goal_async()
        if not spin.until(result_future.done, _CANCEL_WAIT_S, interruptible=False):
            print("move_arm: no result after the cancel request", file=sys.stderr)
            return EXIT_INTERRUPTED
    result = result_future.result().result
    print_result(result)
    if spin.interrupted.is_set():
        return EXIT_INTERRUPTED
    return EXIT_SUCCEEDED if result.status == MoveArm.Result.SUCCEEDED else EXIT_FAILED


if __name__ == "__main__":
    main()
