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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arm_kinematics.cli.common import (
    EXIT_BAD_COMMAND_LINE,
    ClientParser,
    client_main,
    parse_client_args,
)
from arm_kinematics.cli.spin import Spinner, client_node
from arm_kinematics.config import GRIPPER_END_PARAMETERS, GRIPPER_KIND_PARAMETERS
from arm_kinematics.names import absolute_namespace

EXIT_SUCCEEDED = 0
EXIT_FAILED = EXIT_BAD_COMMAND_LINE  # any result but SUCCEEDED, or a wrong command line
EXIT_NO_SERVER = 2
EXIT_INTERRUPTED = 130

ACTION = "gripper_controller/gripper_cmd"
HARDWARE_NODE = "hardware_node"
_CANCEL_WAIT_S = 10.0


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


@dataclass(frozen=True)
class GripperUnit:
    """The running gripper's unit and ends, from the hardware_node's parameters."""

    joint: str
    unit: str  # "opening_m" | "angle_rad"
    open: float  # the unit's value fully open (m or rad)
    closed: float

    @classmethod
    def from_parameters(cls, values: dict[str, Any]) -> GripperUnit | str:
        """From `gripper.*` values (None where not set), or why there is no usable gripper."""
        joint = values.get("gripper.joint")
        if not joint:
            return "this arm has no gripper (its hardware_node's gripper.joint is empty)"
        unit = values.get("gripper.position_unit")
        if unit == "opening_m":
            ends = (values.get("gripper.open_m"), values.get("gripper.closed_m"))
        elif unit == "angle_rad":
            ends = tuple(
                None if v is None else math.radians(v)
                for v in (values.get("gripper.open_deg"), values.get("gripper.closed_deg"))
            )
        else:
            return f"the hardware_node's gripper.position_unit {unit!r} is unknown"
        if any(v is None for v in ends):
            return "the hardware_node does not say where its gripper opens and closes"
        return cls(str(joint), unit, float(ends[0]), float(ends[1]))

    def goal_position(self, text: str) -> float | str:
        """The action's position (m or rad) for `open`, `close` or a number on the command
        line (m, or degrees); or why it is refused."""
        if text == "open":
            return self.open
        if text == "close":
            return self.closed
        try:
            number = float(text)
        except ValueError:
            return f"position {text!r} must be open, close or a number"
        if not math.isfinite(number):
            return f"position {text!r} must be a finite number"
        position = math.radians(number) if self.unit == "angle_rad" else number
        low, high = sorted((self.open, self.closed))
        slack = 1e-9 * (high - low)
        if not low - slack <= position <= high + slack:
            return (
                f"position {self.words(number)} is outside the gripper's range {self.range_words()}"
            )
        return min(max(position, low), high)

    def words(self, value: float) -> str:
        """A command-line value (m, or degrees) with its unit."""
        return f"{value:.4f} m" if self.unit == "opening_m" else f"{value:.2f} deg"

    def shown(self, position: float) -> str:
        """An action position (m or rad) as the command line speaks it."""
        if self.unit == "opening_m":
            return f"{position:.4f} m between the fingers"
        return f"{math.degrees(position):.2f} deg ({position:.6f} rad)"

    def range_words(self) -> str:
        low, high = sorted((self.open, self.closed))
        if self.unit == "opening_m":
            return f"[{low:g}, {high:g}] m between the fingers"
        return f"[{math.degrees(low):g}, {math.degrees(high):g}] deg"


def main(argv: Sequence[str] | None = None) -> None:
    client_main(run, argv)


def run(argv: list[str]) -> int:
    """The command for `argv` (argv[0] is the program); returns the exit code."""
    args = parse_client_args(build_parser(), argv)

    try:
        namespace = absolute_namespace(args.namespace)
    except ValueError as error:
        print(f"gripper: {error}", file=sys.stderr)
        return EXIT_FAILED
    with client_node("gripper", namespace, argv) as (node, spin):
        return _run(node, spin, args)


def _read_gripper(node: Any, spin: Spinner, timeout: float) -> GripperUnit | str | None:
    """The gripper's unit from the hardware_node's parameters; None when it does not answer.

    Two requests (config `GRIPPER_KIND_PARAMETERS`, then the ends of that unit): a request
    naming a parameter the node has not declared gets no value at all."""
    from rcl_interfaces.srv import GetParameters
    from rclpy.parameter import parameter_value_to_python

    from arm_kinematics.rclpy_compat.service_call import call_idempotent

    client = node.create_client(GetParameters, f"{HARDWARE_NODE}/get_parameters")
    if not spin.until(client.service_is_ready, timeout):
        return None

    def spin_until_done(future: Any, seconds: float) -> bool:
        return spin.until(future.done, seconds)

    values: dict[str, Any] = {}
    names: tuple[str, ...] = GRIPPER_KIND_PARAMETERS
    while names:
        request = GetParameters.Request(names=list(names))
        response = call_idempotent(client, request, timeout, spin_until_done)
        if response is None:
            return None
        values.update(
            (name, parameter_value_to_python(value))
            for name, value in zip(names, response.values, strict=False)
        )
        ends = GRIPPER_END_PARAMETERS.get(values.get("gripper.position_unit"), ())
        names = () if set(ends) <= values.keys() else ends
    return GripperUnit.from_parameters(values)


def _run(node: Any, spin: Spinner, args: argparse.Namespace) -> int:
    from action_msgs.msg import GoalStatus
    from control_msgs.action import GripperCommand

    from arm_kinematics.rclpy_compat.action_client import ActionClient

    deadline = time.monotonic() + args.timeout
    hardware = node.get_namespace().rstrip("/") + "/" + HARDWARE_NODE
    gripper = _read_gripper(node, spin, args.timeout)
    if gripper is None:
        if spin.interrupted.is_set():
            return EXIT_INTERRUPTED
        print(
            f"gripper: no {hardware} answered within {args.timeout:g} s "
            "(is the arm running, in this namespace and ROS_DOMAIN_ID?)",
            file=sys.stderr,
        )
        return EXIT_NO_SERVER
    if isinstance(gripper, str):
        print(f"gripper: {gripper}", file=sys.stderr)
        return EXIT_FAILED
    position = gripper.goal_position(args.position)
    if isinstance(position, str):
        print(f"gripper: {position}; nothing was sent", file=sys.stderr)
        return EXIT_FAILED

    client = ActionClient(node, GripperCommand, ACTION)
    server = node.resolve_topic_name(ACTION)  # as rcl_action resolves it
    if not spin.until(client.server_is_ready, max(0.0, deadline - time.monotonic())):
        if spin.interrupted.is_set():
            return EXIT_INTERRUPTED
        print(f"gripper: no {server} action server within {args.timeout:g} s", file=sys.stderr)
        return EXIT_NO_SERVER
    goal = GripperCommand.Goal()
    goal.command.position = position
    goal.command.max_effort = args.max_effort
    print(f"goal: {gripper.shown(position)} ({gripper.joint})", flush=True)
    last_print = -math.inf

    def on_feedback(message: Any) -> None:
        nonlocal last_print
        now = time.monotonic()
        if not args.quiet and now - last_print >= args.feedback_period:
            last_print = now
            print(f"at {gripper.shown(message.feedback.position)}", flush=True)

    sent = client.send_goal_async(goal, feedback_callback=on_feedback)
    # Not interruptible: a goal on its way must be known before it can be canceled.
    if not spin.until(sent.done, max(0.0, deadline - time.monotonic()), interruptible=False):
        print(f"gripper: {server} did not accept the goal within {args.timeout:g} s",
              file=sys.stderr)  # fmt: skip
        return EXIT_NO_SERVER
    handle = sent.result()
    if not handle.accepted:
        print(f"gripper: {server} rejected the goal (the hardware_node's log says why: "
              "a hardware fault or its shutdown)", file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    result_future = handle.get_result_async()
    if not spin.until(result_future.done, None):
        print("gripper: canceling the goal...", file=sys.stderr, flush=True)
        handle.cancel_goal_async()
        if not spin.until(result_future.done, _CANCEL_WAIT_S, interruptible=False):
            print("gripper: no result after the cancel request", file=sys.stderr)
            return EXIT_INTERRUPTED
    answer = result_future.result()
    result = answer.result
    names = {
        GoalStatus.STATUS_SUCCEEDED: "SUCCEEDED",
        GoalStatus.STATUS_CANCELED: "CANCELED",
        GoalStatus.STATUS_ABORTED: "ABORTED",
    }
    print(f"status: {names.get(answer.status, str(answer.status))}")
    print(f"position: {gripper.shown(result.position)}")
    reached, stalled = str(result.reached_goal).lower(), str(result.stalled).lower()
    print(f"reached_goal: {reached}, stalled: {stalled}")
    print(f"effort: {result.effort:g} (hobby servos measure no force)")
    if spin.interrupted.is_set():
        return EXIT_INTERRUPTED
    succeeded = answer.status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal
    return EXIT_SUCCEEDED if succeeded else EXIT_FAILED


if __name__ == "__main__":
    main()
