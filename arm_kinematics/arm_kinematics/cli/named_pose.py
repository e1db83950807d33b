"""`named_pose`: save, list, delete and go to the arm's named poses (docs/sequences.md).

For people without ros2cli (`ros2 service call /named_poses/save ...`), on the commander:

    named_pose save above_box             # the arm's pose now (at rest) as `above_box`
    named_pose save above_box --overwrite # replace it
    named_pose list                       # home and the saved poses, joints in DEGREES here
    named_pose move above_box             # a straight line there (arriving at its joints)
    named_pose move above_box --joint     # the joints there
    named_pose delete above_box
    named_pose --namespace arm1 list      # the trajectory_node of a namespaced arm

The poses are kept by the trajectory node in a YAML file beside the arm's params file (its
parameter `named_poses.file`); every answer names it. Ctrl-C during `move` cancels the goal
(the arm decelerates along its path) and prints the CANCELED result.

Exit code: 0 done (a move SUCCEEDED), 1 refused (a bad or taken name, the arm moving, a move
that did not succeed) or a wrong command line, 2 when no trajectory_node answered within
--timeout, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    add_connection_arguments,
    cancel_after_interrupt,
    client_commander,
    client_main,
    parse_client_args,
    run_commander,
)
from arm_kinematics.cli.move_arm import feedback_printer, print_result

EXIT_DONE = 0
EXIT_FAILED = EXIT_BAD_COMMAND_LINE


def build_parser() -> argparse.ArgumentParser:
    parser = ClientParser(
        prog="named_pose",
        description="Save the arm's current pose under a name, list, delete, or move to a "
        "named pose, through the running trajectory_node (named_poses/save, list, delete and "
        "move_arm's named_pose). Joint angles are printed in DEGREES.",
        epilog="Exit code: 0 done, 1 refused, a move that did not succeed or a bad command "
        "line, 2 no trajectory_node within --timeout, 130 interrupted (a move is canceled).",
    )
    add_connection_arguments(parser, "trajectory_node", "a move")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    save = commands.add_parser("save", help="save the arm's pose now (at rest) under NAME")
    save.add_argument("name", help="a letter, then letters, digits, '_' or '-'")
    save.add_argument("--overwrite", action="store_true", help="replace a pose of that name")
    commands.add_parser("list", help="home and the saved poses, with what would refuse them")
    delete = commands.add_parser("delete", help="delete the named pose NAME")
    delete.add_argument("name")
    move = commands.add_parser("move", help="move to the named pose NAME")
    move.add_argument("name")
    move.add_argument(
        "--joint",
        action="store_true",
        help="JOINT mode: the joints to the pose's; default LINEAR (a straight line of the "
        "tool, arriving at the pose's joints)",
    )
    move.add_argument(
        "--speed",
        type=float,
        default=0.0,
        help="LINEAR: tool speed, m/s; JOINT: fraction (0, 1] of the joint velocity limits; "
        "0 (default): the node's configured default",
    )
    move.add_argument(
        "--feedback-period", type=float, default=0.5, help="seconds between feedback lines"
    )
    move.add_argument("--quiet", "-q", action="store_true", help="print no feedback")
    return parser


def format_pose(pose: Any) -> str:
    """One line: the name, its joints in degrees, the tool point, when saved, a problem."""
    joints = ", ".join(f"{name}={math.degrees(q):.2f}" for name, q in pose.joints.items())
    line = f"{pose.name}: {joints} deg"
    if pose.tool is not None:
        x, y, z = pose.tool.position
        line += f"; tool at ({x:.4f}, {y:.4f}, {z:.4f}) m"
    line += f"; saved {pose.saved_at}" if pose.saved_at else " (built in: joints.*.home_deg)"
    return line + (f"\n  NOT USABLE HERE: {pose.problem}" if pose.problem else "")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)
    return run_commander("named_pose", lambda: _command(args, argv))


def _command(args: argparse.Namespace, argv: list[str]) -> int:
    from arm_kinematics.commander import RequestRefusedError

    with client_commander("named_pose", args, argv) as arm:
        try:
            if args.command == "save":
                print(f"saved: {format_pose(arm.save_pose(args.name, overwrite=args.overwrite))}")
            elif args.command == "list":
                for pose in arm.list_poses():
                    print(format_pose(pose))
            elif args.command == "delete":
                print(arm.delete_pose(args.name))
            else:
                return _move(arm, args)
        except RequestRefusedError as error:
            print(f"named_pose {args.command}: {error}")
            return EXIT_FAILED
    return EXIT_DONE


def _move(arm: Any, args: argparse.Namespace) -> int:
    try:
        arm.move_to_named_pose(
            args.name,
            mode="joint" if args.joint else "linear",
            speed=args.speed,
            on_feedback=feedback_printer(args),
        )
        result = arm.wait_for_task()
    except KeyboardInterrupt:
        return cancel_after_interrupt(arm, "named_pose", print_result)
    print_result(result)
    return EXIT_DONE if result.succeeded else EXIT_FAILED


if __name__ == "__main__":
    main()
