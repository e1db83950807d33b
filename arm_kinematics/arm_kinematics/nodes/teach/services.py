"""The trajectory node's services of named poses and saved sequences (docs/sequences.md):

| service | type | what |
| --- | --- | --- |
| `named_poses/save` | SaveNamedPose | the arm's pose now (at rest, nothing else moving it) under a name |
| `named_poses/list` | ListNamedPoses | `home` and the file's poses, each with what would refuse it here |
| `named_poses/delete` | DeleteNamedPose | one pose out of the file |
| `sequences/save` | SaveSequence | a program, checked, as `<sequences.directory>/<name>.yaml` |
| `sequences/list` | ListSequences | the saved programs, by name, with their text |
| `sequences/delete` | DeleteSequence | one saved program |

Every answer has `success` and a message in words; nothing here moves the arm. A refusal
(`TeachError`, `Refusal`) is the answer's message, with a WARN line for a change refused.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node

from arm_kinematics.config import ArmConfig
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.teach.named import NamedPoses
from arm_kinematics.nodes.trajectory.streaming import JointStateMonitor
from arm_kinematics.teach.names import TeachError
from arm_kinematics.teach.poses import pose_at
from arm_kinematics.teach.program import Program, read_program
from arm_kinematics.teach.store import SequenceStore
from arm_kinematics_interfaces.srv import (
    DeleteNamedPose,
    DeleteSequence,
    ListNamedPoses,
    ListSequences,
    SaveNamedPose,
    SaveSequence,
)

SETTLE_S = 1.0
"""Seconds a save waits for joint_states that show the arm at rest (the same positions twice)."""


class TeachServices:
    """The six services on `node`. `monitor` has the latest joint_states, `start_pose(
    positions)` says where a motion would start from them (the last setpoint sent, when the
    arm is there), `moving()` the label of the motion that holds the arm (None: none),
    `resolve(program)` checks a program as a run would (a Refusal naming the step)."""

    def __init__(
        self,
        node: Node,
        config: ArmConfig,
        named: NamedPoses,
        store: SequenceStore,
        monitor: JointStateMonitor,
        start_pose: Callable[[tuple[float, ...]], tuple[float, ...]],
        moving: Callable[[], str | None],
        resolve: Callable[[Program], object],
        group: CallbackGroup,
    ) -> None:
        self._node = node
        self._config = config
        self._named = named
        self._store = store
        self._monitor = monitor
        self._start_pose = start_pose
        self._moving = moving
        self._resolve = resolve
        for kind, name, callback in (
            (SaveNamedPose, "named_poses/save", self._save_pose),
            (ListNamedPoses, "named_poses/list", self._list_poses),
            (DeleteNamedPose, "named_poses/delete", self._delete_pose),
            (SaveSequence, "sequences/save", self._save_sequence),
            (ListSequences, "sequences/list", self._list_sequences),
            (DeleteSequence, "sequences/delete", self._delete_sequence),
        ):
            node.create_service(kind, name, callback, callback_group=group)

    def _refused(self, response, what: str, error: Exception):
        response.success = False
        response.message = str(error)
        self._node.get_logger().warning(f"{what} refused: {error}")
        return response

    # --- named poses ------------------------------------------------------------------------

    def _save_pose(self, request, response):
        response.file = str(self._named.file.path)
        try:
            joints = self._pose_now()
            pose = pose_at(request.name, self._named.arm, self._config.joint_names, joints)
            self._named.joints(pose)  # a pose this arm cannot go to is not worth a name
            written = self._named.file.save(pose, request.overwrite)
        except (TeachError, Refusal) as error:
            return self._refused(response, f"named_poses/save '{request.name}'", error)
        response.success = True
        response.pose = self._named.message(pose, self._node.get_clock().now().to_msg())
        response.message = (
            f"{'saved' if written else 'already saved:'} the named pose '{pose.name}': the "
            f"tool at {self._named.describe(joints)} ({response.file})"
        )
        self._node.get_logger().info(f"named_poses/save: {response.message}")
        return response

    def _pose_now(self) -> tuple[float, ...]:
        """Where the arm is at rest: the last setpoint sent when joint_states agree with it.
        A move's goal succeeds within the goal tolerance of its end, the servos still settling:
        they are given SETTLE_S to come to rest."""
        running = self._moving()
        if running is not None:
            raise TeachError(f"a {running} moves the arm: save the pose once it has ended")
        timeout = self._config.trajectory.joint_state_timeout_s
        if self._monitor.age() > timeout:
            raise TeachError(f"no joint_states within {timeout:g} s (is the hardware node up?)")
        positions = self._monitor.wait_still(SETTLE_S)
        if positions is None:
            raise TeachError(
                f"the arm is moving (joint_states still changed after {SETTLE_S:g} s): save "
                "it once at rest"
            )
        return self._start_pose(positions)

    def _list_poses(self, _request, response):
        response.file = str(self._named.file.path)
        stamp = self._node.get_clock().now().to_msg()
        try:
            poses = self._named.all()
            response.success, response.message = True, f"{len(poses)} named poses"
        except TeachError as error:
            poses = self._named.all_builtin()
            response.success, response.message = False, str(error)
        response.poses = [self._named.message(pose, stamp) for pose in poses]
        response.problems = [self._named.problem(pose) for pose in poses]
        return response

    def _delete_pose(self, request, response):
        response.file = str(self._named.file.path)
        try:
            deleted = self._named.file.delete(request.name)
        except TeachError as error:
            return self._refused(response, f"named_poses/delete '{request.name}'", error)
        response.success = True
        response.message = (
            f"deleted the named pose '{request.name}' ({response.file})"
            if deleted
            else f"no named pose '{request.name}' in {response.file}: nothing to delete"
        )
        self._node.get_logger().info(f"named_poses/delete: {response.message}")
        return response

    # --- sequences --------------------------------------------------------------------------

    def _save_sequence(self, request, response):
        try:
            response.file = str(self._store.path(request.name))
            program = read_program(request.program, self._config, request.name)
            self._resolve(program)  # its named poses exist and are valid here, as a run's
            self._store.save(request.name, request.program, request.overwrite)
        except (TeachError, Refusal) as error:
            return self._refused(response, f"sequences/save '{request.name}'", error)
        response.success = True
        response.message = (
            f"saved the sequence '{request.name}' ({len(program.steps)} steps, repeat "
            f"{program.repeat}) as {response.file}"
        )
        self._node.get_logger().info(f"sequences/save: {response.message}")
        return response

    def _list_sequences(self, _request, response):
        response.directory = str(self._store.directory)
        try:
            names = self._store.names()
            response.programs = [self._store.read(name) for name in names]
        except (TeachError, OSError) as error:
            response.success, response.message = False, str(error)
            return response
        response.names = names
        response.success, response.message = True, f"{len(names)} saved sequences"
        return response

    def _delete_sequence(self, request, response):
        try:
            response.file = str(self._store.path(request.name))
            deleted = self._store.delete(request.name)
        except TeachError as error:
            return self._refused(response, f"sequences/delete '{request.name}'", error)
        response.success = True
        response.message = (
            f"deleted the sequence '{request.name}' ({response.file})"
            if deleted
            else f"no saved sequence '{request.name}' in {self._store.directory}: nothing to delete"
        )
        self._node.get_logger().info(f"sequences/delete: {response.message}")
        return response
