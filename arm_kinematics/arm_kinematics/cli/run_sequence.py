"""`run_sequence`: run a taught sequence on the running trajectory_node (docs/sequences.md).

    run_sequence arm_kinematics/sequences/desk_kit_pick_and_place.yaml   # a program file
    run_sequence --saved pick_and_place                                 # one saved on the node
    run_sequence --namespace arm1 my_program.yaml                       # a namespaced arm

The file is read here and sent whole; the trajectory node plans every step from the arm's
pose before anything moves, so a step it cannot plan is refused with its number and why, and
nothing moves. A line is printed as each step begins (its number, name and repeat), and the
result at the end. Ctrl-C cancels the sequence: the arm decelerates along its path (the
gripper brakes), and the CANCELED result names the step and where the arm stopped.

Exit code: 0 SUCCEEDED, 1 any other result or a wrong command line, 2 no trajectory_node
within --timeout, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    add_connection_arguments,
    cancel_after_interrupt,
    client_commander,
    client_main,
    format_joints,
    parse_client_args,
    run_commander,
)

EXIT_SUCCEEDED = 0
EXIT_FAILED = EXIT_BAD_COMMAND_LINE


def build_parser() -> argparse.ArgumentParser:
    parser = ClientParser(
        prog="run_sequence",
        description="Run a taught sequence (a YAML program of moves, gripper steps and waits) "
        "through the trajectory_node's run_sequence action: planned whole before the arm "
        "moves, then step after step. Ctrl-C cancels it.",
        epilog="Exit code: 0 SUCCEEDED, 1 any other result or a bad command line, 2 no "
        "trajectory_node within --timeout, 130 interrupted (the sequence is canceled).",
    )
    program = parser.add_mutually_exclusive_group(required=True)
    program.add_argument("file", nargs="?", help="the program's YAML file")
    program.add_argument("--saved", help="the name of a sequence saved on the node")
    add_connection_arguments(parser, "trajectory_node", "the sequence")
    parser.add_argument("--quiet", "-q", action="store_true", help="print no step lines")
    return parser


def format_step(feedback: Any) -> str:
    """The line of a step that begins."""
    repeat = f", repeat {feedback.repeat}/{feedback.total_repeats}"
    return (
        f"step {feedback.step}/{feedback.total_steps}"
        + (repeat if feedback.total_repeats > 1 else "")
        + f": {feedback.step_name} ({feedback.step_kind}; {100 * feedback.fraction:.0f}% done)"
    )


def print_result(result: Any) -> None:
    print(f"status: {result.status} ({result.status_code})")
    print(f"message: {result.message}")
    if result.step:
        repeat = f", repeat {result.repeat} of {result.total_repeats}"
        print(
            f"ended in step {result.step} of {result.total_steps} ({result.step_name})"
            + (repeat if result.total_repeats > 1 else "")
        )
    if result.status in ("PLAN_FAILED", "STEP_FAILED") and result.move_status != "SUCCEEDED":
        x, y, z = result.failed_point
        print(
            f"move: {result.move_status}, IK status {result.ik_status}"
            + (f" at ({x:.4f}, {y:.4f}, {z:.4f}) m" if result.status == "PLAN_FAILED" else "")
        )
    print(f"planning: {result.planning_time * 1000:.0f} ms; running: {result.run_time:.2f} s")
    print(f"final joints: {format_joints(result.final_joints)}")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)
    return run_commander("run_sequence", lambda: _run(args, argv))


def _run(args: argparse.Namespace, argv: list[str]) -> int:
    with client_commander("run_sequence", args, argv) as arm:
        try:
            if args.saved is not None:
                arm.run_sequence(saved=args.saved, on_feedback=_step_printer(args))
            else:
                arm.run_sequence(args.file, on_feedback=_step_printer(args))
            result = arm.wait_for_task()
        except KeyboardInterrupt:
            return cancel_after_interrupt(arm, "run_sequence", print_result)
    print_result(result)
    return EXIT_SUCCEEDED if result.succeeded else EXIT_FAILED


def _step_printer(args: argparse.Namespace) -> Callable[[Any], None] | None:
    """Prints a line as each step begins; None with --quiet."""
    if args.quiet:
        return None
    last = None

    def on_feedback(feedback: Any) -> None:
        nonlocal last
        at = (feedback.repeat, feedback.step)
        if at != last:
            last = at
            print(format_step(feedback), flush=True)

    return on_feedback


if __name__ == "__main__":
    main()
