"""Named poses and sequences on a live graph: one arm's nodes (IK, hardware on sim, trajectory)
with the named poses' file and the sequences' directory in a test's own folder, and a client of
their services and actions that records every joint_states and joint_commands message.

Used by test_named_poses.py, test_sequences.py and bench/bench_sequence.py.
"""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from ros_helpers import PACKAGE_DIR, RosGraph, file_parameters, wait_for
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics.planning.stream_limits import stream_excesses, with_rest
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics.rclpy_compat.action_client import ActionClient
from arm_kinematics_interfaces.action import MoveArm, RunSequence
from arm_kinematics_interfaces.srv import (
    DeleteNamedPose,
    DeleteSequence,
    ListNamedPoses,
    ListSequences,
    SaveNamedPose,
    SaveSequence,
)

KIT_FILE = PACKAGE_DIR / "config" / "arm_desk_kit.yaml"
EXAMPLE = PACKAGE_DIR / "sequences" / "desk_kit_pick_and_place.yaml"
SERVICES = {
    "save_pose": (SaveNamedPose, "named_poses/save"),
    "list_poses": (ListNamedPoses, "named_poses/list"),
    "delete_pose": (DeleteNamedPose, "named_poses/delete"),
    "save_sequence": (SaveSequence, "sequences/save"),
    "list_sequences": (ListSequences, "sequences/list"),
    "delete_sequence": (DeleteSequence, "sequences/delete"),
    "stop": (Trigger, "stop"),
}


@dataclass
class Ended:
    """A goal's end: its result, goal status, the feedback it sent and the joint_commands
    that came while it ran."""

    result: Any
    status: int
    feedback: list = field(default_factory=list)
    commands: list = field(default_factory=list)


class TeachStack:
    """The nodes of the arm in `config_file` (namespace `namespace`) on `graph`, keeping named
    poses in `folder`/poses.yaml and sequences in `folder`/sequences, and a client of them.
    With `beside_params`, the params file is copied into `folder` and given to the nodes as
    `config_file` (as bringup does), the named poses and sequences left at their defaults:
    beside that copy."""

    def __init__(
        self,
        graph: RosGraph,
        folder: Path,
        config_file: Path = KIT_FILE,
        namespace: str = "kit",
        beside_params: bool = False,
        **overrides: Any,
    ) -> None:
        self.graph = graph
        self.config = ArmConfig.from_file(config_file)
        self.names = list(self.config.joint_names)
        if beside_params:
            copy = folder / config_file.name
            if not copy.exists():
                shutil.copyfile(config_file, copy)
            files = {"config_file": str(copy)}
            self.poses_file = folder / f"{copy.stem}.{namespace}.poses.yaml"
            self.sequences = folder / f"{copy.stem}.{namespace}.sequences"
        else:
            self.poses_file = folder / "poses.yaml"
            self.sequences = folder / "sequences"
            files = {
                "named_poses.file": str(self.poses_file),
                "sequences.directory": str(self.sequences),
            }
        params = file_parameters(config_file, **{**files, **overrides})
        common = {"context": graph.context, "parameter_overrides": params, "namespace": namespace}
        self.nodes = [
            graph.add(IkNode(**common)),
            graph.add(HardwareNode(**common)),
            graph.add(TrajectoryNode(**common)),
        ]
        self.client = graph.node("teach_test_client", namespace=namespace)
        self.lock = threading.Lock()
        self.states: list[JointState] = []
        self.commands: list[JointState] = []
        self.client.create_subscription(JointState, "joint_states", self._on_state, 100)
        self.client.create_subscription(JointState, "joint_commands", self._on_command, 1000)
        self.clients = {
            key: self.client.create_client(kind, name) for key, (kind, name) in SERVICES.items()
        }
        self.sequence_action = ActionClient(self.client, RunSequence, "run_sequence")
        self.move_action = ActionClient(self.client, MoveArm, "move_arm")
        for action in (self.sequence_action, self.move_action):
            wait_for(lambda a=action: a.wait_for_server(timeout_sec=0.1), what="action servers")
        wait_for(lambda: self.client.count_publishers("joint_commands") > 0, what="publisher")
        self.latest()

    def close(self) -> None:
        for node in [self.client, *reversed(self.nodes)]:
            if hasattr(node, "close"):
                node.close()
            self.graph.remove(node)

    def _on_state(self, msg: JointState) -> None:
        with self.lock:
            self.states.append(msg)

    def _on_command(self, msg: JointState) -> None:
        with self.lock:
            self.commands.append(msg)

    # --- what the arm does --------------------------------------------------------------------

    def latest(self, name: str | None = None) -> dict[str, float]:
        """{joint: rad} of the latest joint_states (waiting for the first); with `name`, that
        joint's position alone."""

        def state():
            with self.lock:
                return self.states[-1] if self.states else None

        msg = wait_for(state, what="joint_states")
        positions = dict(zip(msg.name, msg.position, strict=True))
        return positions[name] if name is not None else positions

    def arm_joints(self) -> np.ndarray:
        positions = self.latest()
        return np.array([positions[n] for n in self.names])

    def state_count(self) -> int:
        with self.lock:
            return len(self.states)

    def states_since(self, index: int) -> list[JointState]:
        with self.lock:
            return list(self.states[index:])

    def states_as_rows(self, since: int) -> np.ndarray:
        """The arm's joints in the joint_states after the first `since`, (K, n) rad."""
        rows = []
        for msg in self.states_since(since):
            by_name = dict(zip(msg.name, msg.position, strict=True))
            rows.append([by_name[n] for n in self.names])
        return np.array(rows).reshape(-1, len(self.names))

    def track(self, joint: str, since: int) -> np.ndarray:
        """The positions (rad) of `joint` in the joint_states after the first `since`."""
        return np.array(
            [dict(zip(s.name, s.position, strict=True))[joint] for s in self.states_since(since)]
        )

    def command_count(self) -> int:
        with self.lock:
            return len(self.commands)

    def commands_since(self, index: int) -> np.ndarray:
        """The arm's joint_commands after the first `index`, (K, n) rad in the arm's order."""
        with self.lock:
            commands = self.commands[index:]
        rows = []
        for msg in commands:
            by_name = dict(zip(msg.name, msg.position, strict=True))
            rows.append([by_name[n] for n in self.names])
        return np.array(rows).reshape(-1, len(self.names))

    def wait_at_rest(self, count: int = 5) -> np.ndarray:
        """The arm's joints once `count` joint_states in a row are equal."""

        def still():
            with self.lock:
                last = [tuple(s.position) for s in self.states[-count:]]
            return len(last) == count and all(p == last[0] for p in last)

        wait_for(still, what="the arm at rest")
        return self.arm_joints()

    # --- services and actions -----------------------------------------------------------------

    def call(self, key: str, **fields: Any) -> Any:
        kind, _name = SERVICES[key]
        return self.graph.call(self.clients[key], kind.Request(**fields))

    def send_sequence(self, program: str = "", name: str = "", feedback: list | None = None):
        """Send a RunSequence goal; its client goal handle once accepted."""
        callback = None if feedback is None else (lambda m: feedback.append(m.feedback))
        goal = RunSequence.Goal(program=program, name=name)
        future = self.sequence_action.send_goal_async(goal, feedback_callback=callback)
        wait_for(future.done, what="the sequence goal's acceptance")
        handle = future.result()
        assert handle.accepted
        return handle

    def wait_end(self, handle, timeout: float = 120.0) -> Any:
        future = handle.get_result_async()
        wait_for(future.done, timeout, "the goal's result")
        return future.result()

    def run_sequence(self, program: str = "", name: str = "", timeout: float = 120.0) -> Ended:
        """Run a sequence to its end: its result, status, feedback and joint_commands."""
        feedback: list = []
        before = self.command_count()
        answer = self.wait_end(self.send_sequence(program, name, feedback), timeout)
        with self.lock:
            commands = self.commands[before:]
        return Ended(answer.result, answer.status, feedback, commands)

    def move_named(self, name: str, mode: int = MoveArm.Goal.JOINT, timeout: float = 60.0):
        """A MoveArm goal to the named pose `name`; its result response."""
        goal = MoveArm.Goal(named_pose=name, mode=mode)
        future = self.move_action.send_goal_async(goal)
        wait_for(future.done, what="the MoveArm goal's acceptance")
        return self.wait_end(future.result(), timeout)


def limits_broken(start, commands: np.ndarray, config: ArmConfig) -> str:
    """'' when the stream of setpoints `commands` ((K, n) rad, one command period apart) from
    the joints `start` keeps every joint's velocity and acceleration limit, else the first
    excess in words: the project's one measure (`stream_limits`: finite differences with the
    rest before and after)."""
    period = 1.0 / config.trajectory.command_rate_hz
    stream = with_rest(start, np.asarray(commands, dtype=float))
    first, _worst = stream_excesses(stream, period, config.motion_limits())
    return "" if first is None else first.words(config.joint_names, period)
