"""`ik_client`: call a running ik_node's solve_ik / compute_fk and print the answer.

For people without ros2cli. Degrees on the command line and in the printout next to radians;
the services themselves speak radians.

    ik_client solve 0.12 0.05                       # tip position in the base frame, metres
    ik_client solve 0.12 0.05 --heading 30 --branch elbow_up
    ik_client solve 0.12 0.05 --seed 10 40          # CLOSEST to this pose (degrees)
    ik_client fk --joints 30 45                     # or --joints shoulder=30 elbow=45
    ik_client --namespace arm1 solve 0.1 0.0        # the node of a namespaced arm

Exit code: 0 when solved (OK or SINGULAR), 1 when the node refused the request (or the command
line is wrong), 2 when no node answered within --timeout.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    add_target_arguments,
    client_commander,
    client_main,
    format_joints,
    load_client_config,
    parse_client_args,
    run_commander,
    target_arguments,
)
from arm_kinematics.kinematics.types import BRANCH_NAMES

EXIT_SOLVED = 0
EXIT_REFUSED = EXIT_BAD_COMMAND_LINE  # the node refused, or the command line is wrong


def _common_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """Options valid before or after the sub-command (defaults only on the main parser)."""

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    parser.add_argument(
        "--namespace",
        "-n",
        default=default(""),
        help="namespace of the ik_node (e.g. arm1 for /arm1/solve_ik); default: none",
    )
    parser.add_argument(
        "--timeout",
        "-t",
        type=float,
        default=default(10.0),
        help="seconds to wait for the service and its answer (default 10)",
    )
    parser.add_argument(
        "--config",
        default=default(None),
        help="params file giving the joint names for bare DEG values "
        "(default: the package's config/arm.yaml)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = ClientParser(
        prog="ik_client",
        description="Call a running ik_node's solve_ik or compute_fk and print the answer. "
        "Positions in metres in the arm's base frame; ANGLES ON THIS COMMAND LINE ARE DEGREES "
        "(the services use radians; the printout shows both).",
        epilog="Exit code: 0 solved (OK/SINGULAR), 1 refused or bad command line, "
        "2 no node answered within --timeout.",
    )
    _common_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ClientParser)

    solve = commands.add_parser(
        "solve", help="inverse kinematics: joints for a tip position (and heading)"
    )
    add_target_arguments(
        solve, heading_help="required tool heading (TOOL_ANGLE), DEGREES about the base z"
    )
    solve.add_argument(
        "--branch", choices=BRANCH_NAMES, default="closest", help="elbow branch (default closest)"
    )
    solve.add_argument(
        "--seed",
        nargs="+",
        metavar="DEG",
        help="current joints for closest, DEGREES: one value per joint in order, or NAME=DEG",
    )
    _common_options(solve, suppress=True)

    fk = commands.add_parser("fk", help="forward kinematics: tip and frame poses for joints")
    fk.add_argument(
        "--joints",
        nargs="+",
        metavar="DEG",
        required=True,
        help="joint angles, DEGREES: one value per joint in order, or NAME=DEG",
    )
    _common_options(fk, suppress=True)
    return parser


def parse_joint_values(
    values: Sequence[str], joint_names: Sequence[str]
) -> tuple[list[str], list[float]]:
    """Joint names and radians from `DEG ...` (configuration order) or `NAME=DEG ...` values.

    Raises ValueError with a message for a person.
    """
    names: list[str] = []
    degrees: list[float] = []
    for index, value in enumerate(values):
        name, sep, number = value.partition("=")
        if not sep:
            if index >= len(joint_names):
                raise ValueError(
                    f"{len(values)} values for {len(joint_names)} joints ({', '.join(joint_names)})"
                )
            name, number = joint_names[index], value
        if name in names:
            raise ValueError(f"joint '{name}' is given twice")
        try:
            degrees.append(float(number))
        except ValueError:
            raise ValueError(f"'{value}' is not DEG or NAME=DEG") from None
        names.append(name)
    # Which names, how many and finiteness are the node's to check: it answers with a status.
    return names, [math.radians(d) for d in degrees]


def _heading_words(orientation: Sequence[float]) -> tuple[float, float]:
    """(rad, deg) of a quaternion (x, y, z, w) that is a rotation about z; NaN otherwise."""
    from arm_kinematics.nodes.messages import heading_of_values

    try:
        heading = heading_of_values(orientation)
    except ValueError:
        heading = math.nan
    return heading, math.degrees(heading)


def print_solve_answer(answer: Any) -> None:
    print(f"status: {answer.status} ({answer.status_code})")
    print(f"solution: {format_joints(answer.joints)}")
    print(f"alternative: {format_joints(answer.alternative)}")
    print(f"manipulability: {answer.manipulability:.6g} m^2")
    print(f"message: {answer.message}")


def print_fk_answer(answer: Any) -> None:
    print(f"status: {answer.status} ({answer.status_code})")
    if answer.tip is not None:
        (x, y, z), (rad, deg) = answer.tip.position, _heading_words(answer.tip.orientation)
        print(
            f"tip: x={x:.6f} y={y:.6f} z={z:.6f} m heading={rad:.6f} rad ({deg:.3f} deg) "
            f"in '{answer.tip.frame_id}'"
        )
        for name, frame in answer.frames.items():
            (x, y, z), (_, deg) = frame.position, _heading_words(frame.orientation)
            print(f"frame {name}: x={x:.6f} y={y:.6f} z={z:.6f} m heading={deg:.3f} deg")
        print(f"within_limits: {str(answer.within_limits).lower()}")
        print(f"manipulability: {answer.manipulability:.6g} m^2")
    print(f"message: {answer.message}")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)
    config = load_client_config(args.config, "ik_client")
    if config is None:
        return EXIT_REFUSED
    values = args.joints if args.command == "fk" else args.seed  # seed: None when not given
    joints = None
    if values is not None:
        try:
            names, radians = parse_joint_values(values, config.joint_names)
        except ValueError as error:
            print(f"ik_client: {error}", file=sys.stderr)
            return EXIT_REFUSED
        joints = dict(zip(names, radians, strict=True))
    return run_commander("ik_client", lambda: _ask(args, argv, config, joints))


def _ask(args: argparse.Namespace, argv: list[str], config: Any, joints: Any) -> int:
    """Ask the running ik_node through the commander; print the answer; its exit code."""
    with client_commander("ik_client", args, argv, config) as arm:
        if args.command == "fk":
            answer = arm.fk(joints)
            print_fk_answer(answer)
            return EXIT_SOLVED if answer.status == "OK" else EXIT_REFUSED
        target = target_arguments(args, config.layout)
        answer = arm.solve(**target, branch=args.branch, seed=joints)
    print_solve_answer(answer)
    return EXIT_SOLVED if answer.solved else EXIT_REFUSED


if __name__ == "__main__":
    main()
