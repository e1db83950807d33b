"""Jogging through MoveIt Servo's interface against the real nodes (HardwareNode on sim,
TrajectoryNode, and IkNode where a MoveArm goal is sent) in one process: streams of
TwistStamped and JointJog at 50 Hz as a teleop node sends them, the status topic, the stop
service, and who wins between a jog and a goal.

The desk kit (`arm_desk_kit.yaml`: a table at z = 0, its base column), with a keep-out box
beside the tool at home from a temporary params file; the 4-joint OpenManipulator-X for what
a 4-joint arm cannot do. Tool points are the URDF chain's (`urdf_chain.UrdfChain`), parsed
independently of the code under test. Every test starts its own stack at home.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from control_msgs.msg import JointJog
from geometry_msgs.msg import TwistStamped
from moveit_msgs.msg import ServoStatus
from moveit_msgs.srv import ServoCommandType
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_helpers import PACKAGE_DIR, RosGraph, file_parameters, ros_graph, wait_for
from std_srvs.srv import SetBool, Trigger
from trajectory_harness import Harness, twist
from urdf_chain import UrdfChain

from arm_kinematics.config import ArmConfig
from arm_kinematics.description import robot_description
from arm_kinematics.nodes.hardware_node import HardwareNode
from arm_kinematics.nodes.ik_node import IkNode
from arm_kinematics.nodes.trajectory_node import TrajectoryNode
from arm_kinematics_interfaces.action import MoveArm

pytestmark = pytest.mark.ros

CONFIGS = PACKAGE_DIR / "config"
KIT_FILE = CONFIGS / "arm_desk_kit.yaml"
OMX_FILE = CONFIGS / "arm_openmanipulator_x.yaml"
#: Beside the tool at home (0.188, 0, 0.175), to its left (+y): min x, y, z, max x, y, z.
BOX = (0.15, 0.10, 0.12, 0.23, 0.16, 0.23)
NAMESPACE = "kit"
PERIOD = 0.02  # the shipped command rate: 50 Hz


def kit_file(tmp_path: Path) -> Path:
    """The desk kit's params file with the keep-out box BOX."""
    text = KIT_FILE.read_text()
    box = ", ".join(f"{v:.3f}" for v in BOX)
    text = text.replace("    workspace:\n", f"    workspace:\n      keep_out_boxes_m: [{box}]\n")
    path = tmp_path / "desk_kit_with_a_box.yaml"
    path.write_text(text)
    return path


class JogStack(Harness):
    """The nodes of one arm, a MoveArm client (`Harness`), the jog's topics and the stop."""

    def __init__(self, graph: RosGraph, path: Path, ik: bool = False) -> None:
        self.config = ArmConfig.from_file(path)
        self.chain = UrdfChain(
            robot_description(path), self.config.base_frame, self.config.tip_frame
        )
        params = file_parameters(path)  # joint_states at the shipped 50 Hz
        common = {"context": graph.context, "parameter_overrides": params}
        common["namespace"] = NAMESPACE
        if ik:
            graph.add(IkNode(**common))
        hardware = graph.add(HardwareNode(**common))
        self.trajectory = graph.add(TrajectoryNode(**common))
        super().__init__(graph, hardware, namespace=NAMESPACE)
        self.names = list(self.config.joint_names)
        self.statuses: list[ServoStatus] = []
        self.node.create_subscription(
            ServoStatus,
            "servo_node/status",
            self._on_status,
            QoSProfile(depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL),
        )
        self.twists = self.node.create_publisher(TwistStamped, "servo_node/delta_twist_cmds", 10)
        self.jogs = self.node.create_publisher(JointJog, "servo_node/delta_joint_cmds", 10)
        self.stop_client = self.node.create_client(Trigger, "stop")
        wait_for(lambda: self.twists.get_subscription_count() > 0, what="the twist subscription")
        wait_for(lambda: self.jogs.get_subscription_count() > 0, what="the joint jog subscription")
        wait_for(lambda: self.status_count() > 0, what="the first status")
        self.home = np.array(self.arm_joints(self.latest_joints()))

    def _on_status(self, msg: ServoStatus) -> None:
        with self.lock:
            self.statuses.append(msg)

    def status_count(self) -> int:
        with self.lock:
            return len(self.statuses)

    def wait_status(self, since: int, code: int, words: str = "") -> ServoStatus:
        """The first status after the first `since` with `code` and `words` in its message."""

        def found():
            with self.lock:
                later = self.statuses[since:]
            return next((s for s in later if s.code == code and words in s.message), None)

        return wait_for(found, what=f"status {code} '{words}'")

    def arm_joints(self, positions, names=None) -> list[float]:
        by_name = dict(zip(names or self.names_of_states(), positions, strict=True))
        return [by_name[name] for name in self.names]

    def names_of_states(self) -> list[str]:
        with self.lock:
            return list(self.states[-1].name)

    def tool(self, joints) -> np.ndarray:
        return self.chain.tip_transform(list(joints))[:3, 3]

    def states_since(self, index: int) -> list:
        """(stamp s, arm joints) of the joint_states after the first `index`."""
        with self.lock:
            states = self.states[index:]
        stamps = [s.header.stamp.sec + s.header.stamp.nanosec * 1e-9 for s in states]
        return [
            (t, self.arm_joints(s.position, s.name)) for t, s in zip(stamps, states, strict=True)
        ]

    def commands_since(self, index: int) -> np.ndarray:
        with self.lock:
            commands = self.commands[index:]
        return np.array([self.arm_joints(c.position, c.name) for c in commands])

    def state_count(self) -> int:
        with self.lock:
            return len(self.states)

    def wait_rest(self, count: int = 5) -> float:
        """Wait until `count` joint_states in a row are the same; the stamp (s, the nodes'
        clock) of the first one at that pose: when the arm came to rest."""

        def rest() -> float | None:
            with self.lock:
                states = list(self.states)
            final = tuple(states[-1].position) if states else None
            if len(states) < count or any(tuple(s.position) != final for s in states[-count:]):
                return None
            first = len(states) - count
            while first > 0 and tuple(states[first - 1].position) == final:
                first -= 1
            stamp = states[first].header.stamp
            return stamp.sec + stamp.nanosec * 1e-9

        return wait_for(rest, what="the arm at rest")

    def stop(self) -> Trigger.Response:
        return self.graph.call(self.stop_client, Trigger.Request())

    def close(self) -> None:
        """As the runner closes the nodes at the end: the motions stop, the jog at rest."""
        self.trajectory.close()


class Stream:
    """A command published every period by a timer of the test's node, as a teleop node does;
    the time of the last one sent (monotonic s)."""

    def __init__(self, node: Node, publisher, message) -> None:
        self._node, self._publisher, self.message = node, publisher, message
        self._lock = threading.Lock()
        self._stopped = False
        self.last_sent = math.nan  # the stamp of the last one sent (s, the nodes' clock)
        self._timer = node.create_timer(PERIOD, self._send)

    def _send(self) -> None:
        with self._lock:
            if self._stopped:
                return
            now = self._node.get_clock().now()
            self.message.header.stamp = now.to_msg()
            self._publisher.publish(self.message)
            self.last_sent = now.nanoseconds * 1e-9

    def stop(self) -> float:
        with self._lock:
            self._stopped = True
        self._timer.cancel()
        self._node.destroy_timer(self._timer)
        return self.last_sent


@pytest.fixture
def kit(tmp_path) -> Iterator[JogStack]:
    with ros_graph() as graph:
        stack = JogStack(graph, kit_file(tmp_path))
        yield stack
        stack.close()


@pytest.fixture
def kit_with_ik(tmp_path) -> Iterator[JogStack]:
    with ros_graph() as graph:
        stack = JogStack(graph, kit_file(tmp_path), ik=True)
        yield stack
        stack.close()


def assert_steps_within_limits(stack: JogStack, commands: np.ndarray, start=None) -> None:
    """The setpoints, one per command period, within the velocity and acceleration limits
    (finite differences); with `start`, from rest there (the joints before the first)."""
    series = commands if start is None else np.vstack((start, start, commands))
    velocities = np.diff(series, axis=0) / PERIOD
    accelerations = np.diff(velocities, axis=0) / PERIOD
    assert (np.abs(velocities) <= np.array(stack.config.max_velocities) * (1 + 1e-6)).all()
    assert (np.abs(accelerations) <= np.array(stack.config.max_accelerations) * (1 + 1e-6)).all()


def jog_until(stack: JogStack, message, code: int, words: str) -> tuple[Stream, ServoStatus]:
    since = stack.status_count()
    stream = Stream(stack.node, stack.twists, message)
    return stream, stack.wait_status(since, code, words)


def test_a_twist_stream_moves_the_tool_at_its_speed_along_it_and_rests_within_0_3_s(kit):
    direction = np.array([0.0, 0.6, -0.8])  # sideways (the yaw turns) and down
    speed = 0.03
    states, commands = kit.state_count(), kit.command_count()
    start = kit.tool(kit.home)
    stream = Stream(kit.node, kit.twists, twist(tuple(speed * direction)))
    wait_for(
        lambda: np.linalg.norm(kit.tool(kit.arm_joints(kit.latest_joints())) - start) > 0.03,
        what="the tool 30 mm along",
    )
    last_sent = stream.stop()
    rested = kit.wait_rest()
    moved = kit.states_since(states)
    stamps = np.array([stamp for stamp, _ in moved])
    # 0.1 s without a command, then the brake: at rest within 0.3 s of the stack's own time. A
    # loaded machine runs its timers late: the joint_states' gaps past their period are not
    # the jog's, and are added (none on a quiet machine).
    state_period = 1.0 / kit.config.hardware.publish_rate_hz
    stopping = np.diff(stamps[(stamps >= last_sent - state_period) & (stamps <= rested)])
    late = float(np.clip(stopping - state_period, 0.0, None).sum())
    assert 0.0 < rested - last_sent <= 0.3 + late
    points = np.array([kit.tool(joints) for _, joints in moved])
    along = (points - start) @ direction
    off = np.linalg.norm(points - start - np.outer(along, direction), axis=1)
    assert off.max() < 1e-6  # on the line
    # Once accelerated (0.1 s at 0.3 m/s^2), until the stream stopped: the commanded speed.
    moving = np.flatnonzero(along > 0.0)
    first = moving[0] + 5  # 0.2 s of joint_states at 25 Hz after the first motion
    last = int(np.searchsorted(along, along.max() - 0.006))  # before the timeout and the stop
    measured = (along[last] - along[first]) / (stamps[last] - stamps[first])
    assert measured == pytest.approx(speed, rel=0.1)
    assert_steps_within_limits(kit, kit.commands_since(commands), kit.home)


def halt_and_back(kit: JogStack, toward, code: int, words: str, away, is_away) -> np.ndarray:
    """Jog `toward` until the status `code` says `words`; at rest, jog `away` until
    `is_away(joints)`. The first jog's setpoints, checked within the limits from home."""
    commands = kit.command_count()
    stream, status = jog_until(kit, toward, code, words)
    assert status.message == words
    stream.stop()
    kit.wait_rest()
    setpoints = kit.commands_since(commands)
    assert_steps_within_limits(kit, setpoints, kit.home)
    stream, _ = jog_until(kit, away, 0, "jogging")
    wait_for(lambda: is_away(kit.arm_joints(kit.latest_joints())), what="the arm jogged away")
    stream.stop()
    return setpoints


def test_the_table_stops_the_tool_short_of_it_and_up_jogs_again(kit):
    words = "stopped: the table in the way of the wrist (wrist_pitch)"
    setpoints = halt_and_back(
        kit,
        twist((0.0, 0.0, -0.08)),
        ServoStatus.HALT_FOR_COLLISION,
        words,
        twist((0.0, 0.0, 0.05)),
        lambda joints: kit.tool(joints)[2] > 0.035,
    )
    envelope = kit.config.make_envelope()
    assert all(envelope.check(q) is None for q in setpoints)
    low = kit.tool(setpoints[-1])[2]
    assert 0.02 - 1e-6 <= low <= 0.022  # the wrist (20 mm) at the table: the tool 20 mm up


def test_a_keep_out_box_stops_the_tool_before_it_and_jogging_away_works(kit):
    setpoints = halt_and_back(
        kit,
        twist((0.0, 0.05, 0.0)),
        ServoStatus.HALT_FOR_COLLISION,
        "stopped: keep-out box 1 in the way of the fingertips",
        twist((0.0, -0.05, 0.0)),
        lambda joints: kit.tool(joints)[1] < 0.03,
    )
    envelope = kit.config.make_envelope()
    assert all(envelope.check(q) is None for q in setpoints)
    # The fingertips (open: 27.5 mm beside the tool point, and 20 mm thick) at the box's face.
    stopped = kit.tool(setpoints[-1])[1]
    assert BOX[1] - 0.0475 - 0.003 <= stopped < BOX[1] - 0.0475 + 0.003


def test_a_joint_limit_stops_the_roll_at_it_and_rolling_back_works(kit):
    setpoints = halt_and_back(
        kit,
        twist(angular=(1.0, 0.0, 0.0), frame="tool0"),  # about the tool's own axis
        ServoStatus.JOINT_BOUND,
        "stopped: the limit of wrist_roll",
        twist(angular=(-1.0, 0.0, 0.0), frame="tool0"),
        lambda joints: joints[4] < math.radians(80.0),
    )
    assert setpoints[:, 4].max() == pytest.approx(math.radians(90.0), abs=1e-3)
    assert np.abs(setpoints[:, :4] - kit.home[:4]).max() < 1e-9  # only the roll turned


def test_full_stretch_stops_short_of_it_and_jogging_back_works(kit):
    setpoints = halt_and_back(
        kit,
        twist((0.05, 0.0, 0.0)),
        ServoStatus.HALT_FOR_SINGULARITY,
        "stopped: the arm near full stretch (elbow nearly straight)",
        twist((-0.05, 0.0, 0.0)),
        lambda joints: kit.tool(joints)[0] < 0.25,
    )
    elbow = setpoints[:, 2]
    assert np.abs(np.sin(elbow)).min() >= kit.config.singularity_margin  # never SINGULAR
    assert kit.tool(setpoints[-1])[0] > 0.26  # out at the band's edge


def test_a_4_joint_arm_drops_what_it_cannot_do_and_says_so_once(tmp_path):
    with ros_graph() as graph:
        omx = JogStack(graph, OMX_FILE)
        start = omx.tool(omx.home)
        since = omx.status_count()
        stream = Stream(omx.node, omx.twists, twist((0.02, 0.0, 0.0), (0.0, 0.0, 0.5)))
        wait_for(
            lambda: omx.tool(omx.arm_joints(omx.latest_joints()))[0] > start[0] + 0.01,
            what="the tool 10 mm forward",
        )
        stream.stop()
        omx.wait_rest()
        end = omx.tool(omx.arm_joints(omx.latest_joints()))
        omx.close()
        assert np.abs(end[1:] - start[1:]).max() < 1e-6  # forward only: no turn, no yaw
        with omx.lock:
            said = [s.message for s in omx.statuses[since:]]
        dropped = [m for m in said if "dropped" in m]
        assert dropped == [
            "jogging; dropped: the turn out of the arm's vertical plane (no joint turns the tool "
            "that way: a sideways move turns the yaw, and the tool with the plane)"
        ]


def test_a_joint_jog_moves_only_its_joint(kit):
    commands = kit.command_count()
    message = JointJog(joint_names=["elbow"], velocities=[0.5])
    since = kit.status_count()
    stream = Stream(kit.node, kit.jogs, message)
    wait_for(
        lambda: kit.arm_joints(kit.latest_joints())[2] > kit.home[2] + 0.3, what="the elbow up"
    )
    stream.stop()
    kit.wait_rest()
    setpoints = kit.commands_since(commands)
    others = [0, 1, 3, 4]
    assert (setpoints[:, others] == kit.home[others]).all()
    assert setpoints[-1][2] > kit.home[2] + 0.3
    assert_steps_within_limits(kit, setpoints, kit.home)
    kit.wait_status(since, 0, "jogging")
    # A joint the arm does not have is refused, said, and moves nothing.
    since = kit.status_count()
    kit.jogs.publish(JointJog(joint_names=["knee"], velocities=[0.5]))
    refused = kit.wait_status(since, ServoStatus.INVALID, "knee")
    assert "the arm's joints are base_yaw, shoulder, elbow, wrist_pitch, wrist_roll" in (
        refused.message
    )


def test_a_twist_in_an_unknown_frame_is_refused_and_names_the_frames(kit):
    since = kit.status_count()
    commands = kit.command_count()
    kit.twists.publish(twist((0.01, 0.0, 0.0), frame="world"))
    refused = kit.wait_status(since, ServoStatus.INVALID, "world")
    assert refused.message == (
        "jog command refused: twist in frame 'world': send it in 'base_link' (or ''), "
        "'tool0' (the tool's axes)"
    )
    assert kit.command_count() == commands


def test_moveit_servos_switch_succeeds_for_both_kinds_and_pause_holds_the_jog(kit):
    switch = kit.node.create_client(ServoCommandType, "servo_node/switch_command_type")
    for kind, served in ((1, True), (0, True), (2, False)):
        answer = kit.graph.call(switch, ServoCommandType.Request(command_type=kind))
        assert answer.success == served
    pause = kit.node.create_client(SetBool, "servo_node/pause_servo")
    assert kit.graph.call(pause, SetBool.Request(data=True)).message == "jogging paused"
    since, commands, states = kit.status_count(), kit.command_count(), kit.state_count()
    stream = Stream(kit.node, kit.twists, twist((0.0, 0.0, 0.03)))
    kit.wait_status(since, ServoStatus.INVALID, "jog commands ignored: paused")
    wait_for(lambda: kit.state_count() >= states + 10, what="10 joint_states")
    assert kit.command_count() == commands
    assert kit.graph.call(pause, SetBool.Request(data=False)).message == "jogging on"
    wait_for(lambda: kit.command_count() > commands + 5, what="the jog once unpaused")
    stream.stop()


def start_a_slow_goal(kit: JogStack):
    """A LINEAR MoveArm goal down to (0.188, 0, 0.10) at 2 cm/s, once it streams: its handle
    and the goal."""
    target = MoveArm.Goal(mode=MoveArm.Goal.LINEAR, speed=0.02)
    target.target.header.frame_id = "base_link"
    target.target.pose.position.x, target.target.pose.position.z = 0.188, 0.10
    target.target.pose.orientation.w = 1.0
    commands = kit.command_count()
    handle = kit.send(target)
    wait_for(lambda: kit.command_count() > commands + 10, what="the goal moving")
    return handle, target


def test_stop_ends_a_goal_and_a_jog_and_nothing_moves_until_a_new_command(kit_with_ik):
    kit = kit_with_ik
    handle, _ = start_a_slow_goal(kit)  # stopped on its way
    answer = kit.stop()
    assert answer.success
    assert answer.message == "stopped: goal"
    response = kit.wait_result(handle)
    assert response.result.status == MoveArm.Result.PREEMPTED
    assert response.result.message.startswith("stopped by the stop service (/kit/stop)")
    assert response.status == GoalStatus.STATUS_ABORTED
    kit.wait_rest()
    # A jog, stopped while its commands keep coming: it decelerates and they are ignored.
    commands, start = kit.command_count(), kit.arm_joints(kit.latest_joints())
    stream, _ = jog_until(kit, twist((0.0, 0.03, 0.0)), 0, "jogging")
    wait_for(lambda: kit.command_count() > commands + 10, what="the jog moving")
    since = kit.status_count()
    assert kit.stop().message == "stopped: jog"
    kit.wait_status(since, ServoStatus.INVALID, "jog commands ignored: the jog was stopped")
    kit.wait_rest()
    still, states = kit.command_count(), kit.state_count()
    resting = kit.latest_joints()
    wait_for(lambda: kit.state_count() >= states + 10, what="10 more joint_states")
    assert kit.latest_joints() == resting
    assert kit.command_count() == still
    assert_steps_within_limits(kit, kit.commands_since(commands), start)
    stream.stop()
    # A zero command (the stick let go): a new stream jogs again.
    kit.twists.publish(twist())
    stream, _ = jog_until(kit, twist((0.0, -0.03, 0.0)), 0, "jogging")
    wait_for(lambda: kit.command_count() > still + 5, what="jogging again")
    stream.stop()
    assert kit.stop().message in ("stopped: jog", "nothing was moving")


def test_a_jog_preempts_a_goal_and_a_new_goal_ends_a_jog_smoothly(kit_with_ik):
    kit = kit_with_ik
    handle, target = start_a_slow_goal(kit)
    stream, _ = jog_until(kit, twist((0.0, 0.03, 0.0)), 0, "jogging")
    response = kit.wait_result(handle)
    assert response.result.status == MoveArm.Result.PREEMPTED
    assert response.result.message.startswith("preempted by a newer jog")
    wait_for(lambda: kit.tool(kit.arm_joints(kit.latest_joints()))[1] > 0.005, what="jogged")
    # A goal while the stream goes on: the jog decelerates within the limits, the goal runs to
    # its end, the stream is ignored (the goal is newer) and does not take the arm back.
    target.speed = 0.05
    outcome = kit.run(target)
    assert outcome.result.status == MoveArm.Result.SUCCEEDED, outcome.result.message
    stream.stop()
    setpoints = np.array([kit.arm_joints(c.position, c.name) for c in outcome.commands])
    rest = next(i for i in range(1, len(setpoints)) if (setpoints[i] == setpoints[i - 1]).all())
    braking = setpoints[: rest + 1]  # the jog's last setpoints, to rest
    assert len(braking) >= 3
    assert_steps_within_limits(kit, braking)
    final_joints = outcome.result.final_joints
    final = kit.tool(kit.arm_joints(final_joints.position, list(final_joints.name)))
    assert final == pytest.approx([0.188, 0.0, 0.10], abs=1e-3)
