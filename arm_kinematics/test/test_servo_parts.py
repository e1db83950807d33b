"""The jog's ROS side without a ROS graph: messages as commands (`nodes/servo/commands.py`),
the status latch and the rule of who moves (`nodes/servo/control.py`) on a real `Admission`,
with a list for joint_commands and one for the statuses."""

from __future__ import annotations

import math
import threading
import uuid
from dataclasses import replace

import numpy as np
import pytest
from control_msgs.msg import JointJog
from ros_helpers import PACKAGE_DIR, wait_for
from trajectory_harness import twist

from arm_kinematics.config import ArmConfig, MountConfig
from arm_kinematics.kinematics.jog import JogCode, JointJogCommand, TwistCommand
from arm_kinematics.nodes.refusals import InvalidJoints, Refusal, WrongFrame
from arm_kinematics.nodes.servo.commands import JogInputs
from arm_kinematics.nodes.servo.control import JogControl, StatusLatch
from arm_kinematics.nodes.servo.interface import jog_limits
from arm_kinematics.nodes.servo.settings import ServoSettings
from arm_kinematics.nodes.trajectory.goals import Admission, Move, Result

KIT = ArmConfig.from_file(PACKAGE_DIR / "config" / "arm_desk_kit.yaml")


def test_a_twist_is_in_the_base_frame_or_the_tool_frame_by_its_frame_id():
    inputs = JogInputs(KIT, ServoSettings())
    assert inputs.twist(twist((0.01, 0.0, 0.0))) == TwistCommand((0.01, 0.0, 0.0), (0.0,) * 3)
    assert not inputs.twist(twist((0.01, 0.0, 0.0), frame="")).in_tool_frame
    assert inputs.twist(twist((0.01, 0.0, 0.0), frame="tool0")).in_tool_frame
    with pytest.raises(WrongFrame) as refused:
        inputs.twist(twist((0.01, 0.0, 0.0), frame="camera"))
    assert str(refused.value) == (
        "twist in frame 'camera': send it in 'base_link' (or ''), 'tool0' (the tool's axes)"
    )
    with pytest.raises(Refusal, match="every value must be finite"):
        inputs.twist(twist((math.nan, 0.0, 0.0)))


def test_a_twist_in_the_mount_frame_is_turned_into_the_base_frame():
    mounted = replace(KIT, mount=MountConfig("world", (1.0, 0.0, 0.5), (0.0, 0.0, math.pi / 2)))
    inputs = JogInputs(mounted, ServoSettings())
    command = inputs.twist(twist((0.0, 0.05, 0.0), (0.0, 0.0, 0.2), frame="world"))
    # The base is turned 90 degrees about z in the world: the world's +y is the base's +x.
    assert np.allclose(command.linear, (0.05, 0.0, 0.0))
    assert np.allclose(command.angular, (0.0, 0.0, 0.2))
    assert "'world'" in inputs.frames_words()


def test_units_and_caps_follow_moveit_servos_parameters():
    speed = JogInputs(KIT, ServoSettings(scale_linear=0.1, scale_rotational=1.0))
    capped = speed.twist(twist((0.3, 0.4, 0.0), (0.0, 0.0, 2.0)))
    assert capped.linear == pytest.approx((0.06, 0.08, 0.0))  # 0.5 m/s capped at 0.1
    assert capped.angular == pytest.approx((0.0, 0.0, 1.0))
    unitless = JogInputs(KIT, ServoSettings(command_in_type="unitless", scale_linear=0.05))
    assert unitless.twist(twist((0.5, 0.0, 0.0))).linear == pytest.approx((0.025, 0.0, 0.0))
    joints = unitless.joint_jog(JointJog(joint_names=["elbow"], velocities=[-1.0]))
    assert joints.velocities == (0.0, 0.0, -0.5, 0.0, 0.0)  # scale.joint 0.5 rad/s


def test_a_joint_jog_names_some_joints_in_any_order_within_their_limits():
    inputs = JogInputs(KIT, ServoSettings())
    command = inputs.joint_jog(
        JointJog(joint_names=["wrist_roll", "base_yaw"], velocities=[0.3, 9.0])
    )
    assert command == JointJogCommand((math.radians(90.0), 0.0, 0.0, 0.0, 0.3))  # yaw capped
    cases = {
        "unknown joint 'knee' (the arm's joints are base_yaw, shoulder": (["knee"], [0.1], []),
        "'gripper' is the gripper's joint": (["gripper"], [0.1], []),
        "joint 'elbow' is named twice": (["elbow", "elbow"], [0.1, 0.2], []),
        "names 2 joints but gives 1 velocities": (["elbow", "shoulder"], [0.1], []),
        "displacements are not supported": (["elbow"], [], [0.1]),
        "must be finite": (["elbow"], [math.inf], []),
    }
    for words, (names, velocities, displacements) in cases.items():
        message = JointJog(joint_names=names, velocities=velocities, displacements=displacements)
        with pytest.raises(Refusal) as refused:
            inputs.joint_jog(message)
        assert words in str(refused.value)
        assert isinstance(refused.value, InvalidJoints) == ("joint" in words and "'" in words)


def test_the_status_latch_says_a_change_once_at_most_every_interval_and_a_note_once():
    said: list[tuple[int, str]] = []
    now = [0.0]
    latch = StatusLatch(lambda code, words: said.append((code, words)), 0.2, lambda: now[0])
    latch.update(0, "jogging", note="the linear z")
    latch.update(0, "jogging")
    latch.update(4, "slowing down")  # 0.0 s after the last: waits
    now[0] = 0.1
    latch.update(0, "jogging")  # back to what was said: nothing waits any more
    latch.update(5, "stopped")
    latch.flush()
    now[0] = 0.25
    latch.flush()
    latch.update(5, "stopped")
    assert said == [(0, "jogging; dropped: the linear z"), (5, "stopped")]
    latch.update(-1, "refused", force=True)
    assert said[-1] == (-1, "refused")


class Recorder:
    """joint_commands and statuses of a JogControl, and its log lines."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.setpoints: list[tuple[float, ...]] = []
        self.statuses: list[tuple[int, str]] = []
        self.lines: list[str] = []

    def publish(self, joints) -> None:
        with self.lock:
            self.setpoints.append(tuple(joints))

    def say(self, code: int, words: str) -> None:
        with self.lock:
            self.statuses.append((code, words))

    def info(self, message: str) -> None:
        self.lines.append(message)

    warning = error = info

    def said(self, code: int, words: str) -> bool:
        with self.lock:
            return any(c == code and words in w for c, w in self.statuses)


def control_of(admission: Admission, recorder: Recorder) -> JogControl:
    arm = KIT.make_arm()
    return JogControl(
        arm,
        jog_limits(KIT),
        KIT.make_envelope(arm),
        ServoSettings(),
        admission,
        lambda wake: KIT.home,
        recorder.publish,
        recorder.say,
        recorder,
    )


def test_a_goal_ends_a_jog_and_the_jogs_stream_is_ignored_until_it_pauses():
    admission, recorder = Admission(), Recorder()
    control = control_of(admission, recorder)
    up = TwistCommand((0.0, 0.0, 0.03), (0.0, 0.0, 0.0))
    keep = threading.Event()

    def stream() -> None:  # a stick held, at 50 Hz
        while True:
            control.put(up)
            if keep.wait(0.02):
                return

    sender = threading.Thread(target=stream, daemon=True)
    sender.start()
    try:
        wait_for(lambda: len(recorder.setpoints) > 5, what="the jog moving")
        goal = admission.admit(uuid.uuid4().bytes, Move(0, (0.2, 0.0, 0.1), 0.05, 0.001), "goal")
        # The goal takes the arm once the jog has stopped; the stream does not take it back.
        assert admission.take_motion(goal)
        assert not control.running
        wait_for(lambda: recorder.said(JogCode.INVALID, "jog commands ignored"), what="ignored")
        assert recorder.said(JogCode.INVALID, "the jog was stopped (preempted by a newer goal)")
        count = len(recorder.setpoints)
        assert goal.stop_status is None
        admission.release_motion()
        admission.finish(goal)
    finally:
        keep.set()
        sender.join()
    assert len(recorder.setpoints) == count  # nothing moved after the goal took the arm
    # The braking within the limits: the last setpoints slow down to rest.
    steps = np.linalg.norm(np.diff(np.array(recorder.setpoints), axis=0), axis=1)
    assert steps[-1] == 0.0
    # A zero command (the stick let go), then a push: a new jog.
    control.put(TwistCommand((0.0,) * 3, (0.0,) * 3))
    control.put(up)
    wait_for(lambda: len(recorder.setpoints) > count + 3, what="a new jog")
    for run in admission.stop_all("the test ends"):
        assert run.label == "jog"
    control.join(5.0)
    assert not control.running


def test_a_jog_is_refused_while_calibration_holds_the_motions():
    admission, recorder = Admission(), Recorder()
    admission.hold("the hardware node is in calibration mode")
    control = control_of(admission, recorder)
    control.put(JointJogCommand((0.5, 0.0, 0.0, 0.0, 0.0)))
    assert recorder.said(JogCode.INVALID, "jog refused: the hardware node is in calibration mode")
    assert not control.running
    assert recorder.setpoints == []
    assert admission.stop_all("nothing") == []
    assert Result.CALIBRATING != Result.PREEMPTED
