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
import os
import sys
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
from arm_kinematics.kinematics.types import BRANCH_NAMES
from arm_kinematics.names import absolute_namespace

EXIT_SOLVED = 0
EXIT_REFUSED = EXIT_BAD_COMMAND_LINE  # the node refused, or the command line is wrong
EXIT_NO_ANSWER = 2


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
        try:
            degrees.append(float(number))
        except ValueError:
            raise ValueError(f"'{value}' is not DEG or NAME=DEG") from None
        names.append(name)
    # Names, counts and finiteness are the node's to check: it answers with a status.
    return names, [math.radians(d) for d in degrees]


def _heading_of(pose: Any) -> float:
    from arm_kinematics.nodes.messages import quaternion_to_heading

    try:
        return quaternion_to_heading(pose.orientation)
    except ValueError:
        return math.nan


def print_solve_response(response: Any) -> None:
    from arm_kinematics.nodes.messages import solve_ik_status_name

    print(f"status: {solve_ik_status_name(response.status)} ({response.status})")
    print(f"solution: {format_joint_state(response.solution)}")
    print(f"alternative: {format_joint_state(response.alternative)}")
    print(f"manipulability: {response.manipulability:.6g} m^2")
    print(f"message: {response.message}")


def print_fk_response(response: Any) -> None:
    from arm_kinematics.nodes.messages import COMPUTE_FK_STATUS_NAMES
    from arm_kinematics_interfaces.srv import ComputeFK

    name = COMPUTE_FK_STATUS_NAMES.get(response.status, f"UNKNOWN({response.status})")
    print(f"status: {name} ({response.status})")
    if response.status == ComputeFK.Response.OK:
        tip = response.tip
        heading = _heading_of(tip.pose)
        print(
            f"tip: x={tip.pose.position.x:.6f} y={tip.pose.position.y:.6f} "
            f"z={tip.pose.position.z:.6f} m heading={heading:.6f} rad "
            f"({math.degrees(heading):.3f} deg) in '{tip.header.frame_id}'"
        )
        for name, frame in zip(response.frame_names, response.frames, strict=True):
            heading = _heading_of(frame.pose)
            position = frame.pose.position
            print(
                f"frame {name}: x={position.x:.6f} y={position.y:.6f} z={position.z:.6f} m "
                f"heading={math.degrees(heading):.3f} deg"
            )
        print(f"within_limits: {str(response.within_limits).lower()}")
        print(f"manipulability: {response.manipulability:.6g} m^2")
    print(f"message: {response.message}")


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)

    # ROS imports after parsing so that --help works fast and without a ROS environment.
    import rclpy
    from rclpy.node import Node

    from arm_kinematics.nodes.messages import joint_state
    from arm_kinematics.rclpy_compat.service_call import call_idempotent
    from arm_kinematics_interfaces.srv import ComputeFK, SolveIK

    config = load_client_config(args.config, "ik_client")
    if config is None:
        return EXIT_REFUSED
    try:
        if args.command == "solve":
            service_type, service_name = SolveIK, "solve_ik"
            request = SolveIK.Request()
            fill_target(request, args, config.plane_z)
            request.branch = BRANCH_NAMES.index(args.branch)
            if args.seed:
                request.seed = joint_state(*parse_joint_values(args.seed, config.joint_names))
        else:
            service_type, service_name = ComputeFK, "compute_fk"
            request = ComputeFK.Request(
                joints=joint_state(*parse_joint_values(args.joints, config.joint_names))
            )
    except ValueError as error:
        print(f"ik_client: {error}", file=sys.stderr)
        return EXIT_REFUSED

    try:
        namespace = absolute_namespace(args.namespace)
    except ValueError as error:
        print(f"ik_client: {error}", file=sys.stderr)
        return EXIT_REFUSED
    rclpy.init(args=argv)
    try:
        node = Node(f"ik_client_{os.getpid()}", namespace=namespace)
        client = node.create_client(service_type, service_name)
        full_name = node.resolve_service_name(service_name)
        if not client.wait_for_service(timeout_sec=args.timeout):
            print(
                f"ik_client: no {full_name} service within {args.timeout:g} s "
                "(is ik_node running, in this namespace and ROS_DOMAIN_ID?)",
                file=sys.stderr,
            )
            return EXIT_NO_ANSWER

        # One call per process: spin_until_future_complete is fine here (it only slows down
        # when a client loops on it). Both services only compute: a request whose response
        # Fast DDS dropped is sent again.
        def spin_until_done(future: Any, seconds: float) -> bool:
            rclpy.spin_until_future_complete(node, future, timeout_sec=seconds)
            return future.done()

        response = call_idempotent(client, request, args.timeout, spin_until_done)
        if response is None:
            print(
                f"ik_client: {full_name} did not answer within {args.timeout:g} s",
                file=sys.stderr,
            )
            return EXIT_NO_ANSWER
    except KeyboardInterrupt:
        return 130
    finally:
        rclpy.try_shutdown()

    if args.command == "solve":
        print_solve_response(response)
        return (
            EXIT_SOLVED
            if response.status in (SolveIK.Response.OK, SolveIK.Response.SINGULAR)
            else EXIT_REFUSED
        )
    print_fk_response(response)
    return EXIT_SOLVED if response.status == ComputeFK.Response.OK else EXIT_REFUSED


if __name__ == "__main__":
    main()
