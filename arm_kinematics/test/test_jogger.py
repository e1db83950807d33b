"""The jog engine without ROS (`kinematics/jog/`): a twist or joint velocities, one command
period at a time, on the shipped arms, within the joints' velocity and acceleration limits,
the tool's acceleration limit, the SINGULAR band and the workspace envelope.

Every series is checked by finite differences of the commanded joints, the arm at rest before
the first step: what the hardware node is sent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from ros_helpers import PACKAGE_DIR

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics import Envelope
from arm_kinematics.kinematics.jog import (
    JogCode,
    Jogger,
    JogLimits,
    JointJogCommand,
    TwistCommand,
    singular_ratio,
)
from arm_kinematics.kinematics.jog.axes import OUT_OF_PLANE, PLANAR_Z, SPATIAL_PITCH

CONFIGS = PACKAGE_DIR / "config"
DESK = ArmConfig.from_file(CONFIGS / "arm_desk_kit.yaml")
OMX = ArmConfig.from_file(CONFIGS / "arm_openmanipulator_x.yaml")
MEARM = ArmConfig.from_file(CONFIGS / "arm_mearm.yaml")
PLANAR = ArmConfig.from_file(CONFIGS / "arm.yaml")
ZERO = (0.0, 0.0, 0.0)


def limits_of(config: ArmConfig) -> JogLimits:
    trajectory = config.trajectory
    return JogLimits(
        1.0 / trajectory.command_rate_hz,
        config.max_velocities,
        config.max_accelerations,
        trajectory.max_tool_acceleration,
        trajectory.max_joint_step,
    )


def jogger_of(config: ArmConfig, joints=None, envelope: Envelope | None = None) -> Jogger:
    arm = config.make_arm()
    envelope = config.make_envelope(arm) if envelope is None else envelope
    return Jogger(arm, limits_of(config), config.home if joints is None else joints, envelope)


def twist(linear=ZERO, angular=ZERO, tool=False) -> TwistCommand:
    return TwistCommand(tuple(map(float, linear)), tuple(map(float, angular)), tool)


def run(jogger: Jogger, command, steps: int) -> list:
    return [jogger.step(command) for _ in range(steps)]


def joints_of(start, steps) -> np.ndarray:
    return np.array([start, *(step.joints for step in steps)])


def assert_within_joint_limits(series: np.ndarray, config: ArmConfig) -> None:
    """Velocity and acceleration of the commanded series (rest before it) within the limits."""
    period = 1.0 / config.trajectory.command_rate_hz
    velocities = np.diff(np.vstack((series[:1], series)), axis=0) / period
    accelerations = np.diff(velocities, axis=0) / period
    assert (np.abs(velocities) <= np.array(config.max_velocities) * (1 + 1e-6)).all()
    assert (np.abs(accelerations) <= np.array(config.max_accelerations) * (1 + 1e-6)).all()
    lows, highs = np.array(config.joint_limits).T
    assert ((series >= lows - 1e-9) & (series <= highs + 1e-9)).all()


def tool_points(config: ArmConfig, series: np.ndarray) -> np.ndarray:
    arm = config.make_arm()
    return np.array([arm.forward(tuple(q)).position for q in series])


def test_a_twist_moves_the_tool_on_its_line_at_its_speed_within_every_limit():
    jogger = jogger_of(DESK)
    direction = np.array([0.6, 0.0, -0.8])  # forward and down, 0.03 m/s
    steps = run(jogger, twist(0.03 * direction), 60)
    series = joints_of(DESK.home, steps)
    assert_within_joint_limits(series, DESK)
    points = tool_points(DESK, series)
    moved = points - points[0]
    along = moved @ direction
    off_line = np.linalg.norm(moved - np.outer(along, direction), axis=1)
    assert off_line.max() < 1e-9
    speeds = np.diff(along) * DESK.trajectory.command_rate_hz
    # The tool accelerates at its limit, 0.3 m/s^2: 0.006 m/s more each 20 ms, 0.1 s to 0.03.
    assert speeds[:5] == pytest.approx([0.006, 0.012, 0.018, 0.024, 0.03], abs=1e-9)
    assert speeds[5:] == pytest.approx(np.full(len(speeds) - 5, 0.03), abs=1e-9)
    assert {step.code for step in steps} == {JogCode.NO_WARNING}
    # The tool's pitch and roll stay as they were: only the position was commanded.
    arm = DESK.make_arm()
    assert arm.forward(steps[-1].joints).pitch == pytest.approx(0.0, abs=1e-9)


def test_without_a_command_the_arm_comes_to_rest_within_its_limits():
    jogger = jogger_of(DESK)
    moving = run(jogger, twist((0.0, 0.04, 0.0)), 30)
    stopping = []
    while jogger.moving:
        stopping.append(jogger.step(None))
        assert len(stopping) < 50
    # From 0.04 m/s at 0.3 m/s^2: 0.133 s, here 7 periods of 20 ms.
    assert len(stopping) == 7
    series = joints_of(DESK.home, moving + stopping)
    assert_within_joint_limits(series, DESK)
    points = tool_points(DESK, series)
    steps = np.linalg.norm(np.diff(points, axis=0), axis=1)
    tool_acceleration = np.abs(np.diff(steps)) * DESK.trajectory.command_rate_hz**2
    assert tool_acceleration.max() <= DESK.trajectory.max_tool_acceleration * (1 + 1e-6)
    assert stopping[-1].velocities == (0.0,) * 5
    assert jogger.step(None).joints == stopping[-1].joints  # at rest, it stays


def halt_and_back(jogger: Jogger, toward, away, steps=400):
    """Jog `toward` until halted (every step returned), push on (the arm stays, it does not
    creep closer), then jog `away` for 20 steps."""
    series = []
    for _ in range(steps):
        series.append(jogger.step(toward))
        if series[-1].halted:
            break
    assert series[-1].halted, [s.code.name for s in series[-3:]]
    pushed = run(jogger, toward, 10)
    assert all(step.halted for step in pushed)
    assert len({step.joints for step in pushed[5:]}) == 1  # at rest, it stays
    assert np.abs(np.subtract(pushed[-1].joints, series[-1].joints)).max() < 0.01
    back = run(jogger, away, 20)
    return series, back


def test_the_table_stops_the_tool_short_of_it_and_up_works_again():
    jogger = jogger_of(DESK)
    envelope = DESK.make_envelope()
    down, up = halt_and_back(jogger, twist((0.0, 0.0, -0.05)), twist((0.0, 0.0, 0.05)))
    series = joints_of(DESK.home, down)
    assert all(envelope.check(q) is None for q in series)
    assert_within_joint_limits(series, DESK)
    codes = [step.code for step in down]
    assert JogCode.DECELERATE_FOR_COLLISION in codes
    assert down[-1].code == JogCode.HALT_FOR_COLLISION
    assert down[-1].words == "stopped: the table in the way of the wrist (wrist_pitch)"
    # The wrist, 20 mm in radius, stops touching the table: the tool 20 mm above it.
    tool_z = tool_points(DESK, series)[-1][2]
    assert 0.020 - 1e-9 <= tool_z <= 0.021
    rise = tool_points(DESK, joints_of(down[-1].joints, up))[:, 2]
    assert rise[-1] > tool_z + 0.005
    assert up[-1].code == JogCode.NO_WARNING


def test_a_keep_out_box_stops_the_tool_before_it():
    arm = DESK.make_arm()
    box = (0.24, -0.05, 0.12, 0.30, 0.05, 0.23)
    envelope = Envelope(arm, link_radius=0.02, table_z=0.0, keep_out_boxes=[box])
    jogger = Jogger(arm, limits_of(DESK), DESK.home, envelope)
    forward, back = halt_and_back(jogger, twist((0.05, 0.0, 0.0)), twist((-0.05, 0.0, 0.0)))
    series = joints_of(DESK.home, forward)
    assert all(envelope.check(q) is None for q in series)
    assert forward[-1].code == JogCode.HALT_FOR_COLLISION
    assert forward[-1].words == "stopped: keep-out box 1 in the way of the tool point"
    # The tool point's capsule (20 mm) stops at the box's face, x = 0.24.
    assert tool_points(DESK, series)[-1][0] == pytest.approx(0.22, abs=0.001)
    assert tool_points(DESK, joints_of(forward[-1].joints, back))[-1][0] < 0.21


def test_a_joint_limit_stops_the_roll_at_it_and_rolling_back_works():
    jogger = jogger_of(DESK)
    roll = twist(angular=(1.0, 0.0, 0.0), tool=True)  # about the tool's own axis, 1 rad/s
    forward, back = halt_and_back(jogger, roll, twist(angular=(-1.0, 0.0, 0.0), tool=True))
    series = joints_of(DESK.home, forward)
    assert_within_joint_limits(series, DESK)
    assert forward[-1].code == JogCode.JOINT_BOUND
    assert forward[-1].words == "stopped: the limit of wrist_roll"
    assert series[-1][4] == pytest.approx(math.radians(90.0), abs=1e-3)
    assert np.abs(series[:, :4] - DESK.home[:4]).max() < 1e-12  # only the roll turned
    assert back[-1].joints[4] < series[-1][4] - 0.1


def test_full_stretch_stops_short_of_the_singular_band_and_back_works():
    arm = DESK.make_arm()
    jogger = jogger_of(DESK)
    out, back = halt_and_back(jogger, twist((0.05, 0.0, 0.0)), twist((-0.05, 0.0, 0.0)))
    series = joints_of(DESK.home, out)
    assert_within_joint_limits(series, DESK)
    ratios = [singular_ratio(arm, q, arm.forward(q).position[:2]).ratio for q in series]
    assert min(ratios) >= 1.0  # never inside the SINGULAR band
    assert ratios[-1] < 1.5  # ... and stopped near its edge
    assert out[-1].code == JogCode.HALT_FOR_SINGULARITY
    assert out[-1].words == "stopped: the arm near full stretch (elbow nearly straight)"
    assert JogCode.DECELERATE_FOR_APPROACHING_SINGULARITY in {s.code for s in out}
    assert arm.forward(back[-1].joints).x < arm.forward(series[-1]).x - 0.002


def test_a_jog_leaves_a_singular_pose_it_starts_in():
    arm = PLANAR.make_arm()
    jogger = jogger_of(PLANAR, joints=(0.0, 0.0))  # full stretch along x
    steps = run(jogger, twist((-0.03, 0.0, 0.0)), 40)
    assert steps[0].code == JogCode.DECELERATE_FOR_LEAVING_SINGULARITY
    series = joints_of((0.0, 0.0), steps)
    assert_within_joint_limits(series, PLANAR)
    assert arm.forward(steps[-1].joints)[0] < 0.18 - 0.005
    assert singular_ratio(arm, steps[-1].joints, (0.0, 0.0)).ratio > 1.0


def test_a_sideways_move_turns_the_yaw_and_keeps_the_line():
    jogger = jogger_of(DESK)
    steps = run(jogger, twist((0.0, 0.03, 0.0)), 40)
    series = joints_of(DESK.home, steps)
    points = tool_points(DESK, series)
    assert np.abs(points[:, [0, 2]] - points[0, [0, 2]]).max() < 1e-9
    assert points[-1][1] > 0.02
    assert series[-1][0] > 0.1  # the yaw turned
    assert steps[-1].dropped == ()


def test_a_4_joint_arm_drops_the_turn_out_of_its_plane_and_says_so():
    arm = OMX.make_arm()
    jogger = jogger_of(OMX)
    steps = run(jogger, twist((0.02, 0.0, 0.0), (0.0, 0.0, 0.5)), 20)
    assert steps[0].dropped == (OUT_OF_PLANE,)
    series = joints_of(OMX.home, steps)
    points = tool_points(OMX, series)
    assert points[-1][0] > points[0][0] + 0.003  # the forward part moved
    assert np.abs(points[:, 1:] - points[0, 1:]).max() < 1e-9
    assert arm.forward(steps[-1].joints).pitch == pytest.approx(0.0, abs=1e-9)
    # A command that is nothing but the impossible turn moves nothing.
    still = jogger_of(OMX)
    turns = run(still, twist(angular=(0.0, 0.0, 0.5)), 10)
    assert all(step.joints == OMX.home for step in turns)
    assert turns[0].dropped == (OUT_OF_PLANE,)


def test_a_3_joint_arm_drops_a_pitch_and_a_planar_arm_a_rise():
    pitch = twist((0.01, 0.0, 0.0), (0.0, -0.5, 0.0))  # about -y at yaw 0: the pitch rate
    assert jogger_of(MEARM).step(pitch).dropped == (SPATIAL_PITCH,)
    assert jogger_of(PLANAR).step(twist((0.01, 0.0, 0.01))).dropped == (PLANAR_Z,)


def test_a_joint_jog_moves_only_its_joint_and_stops_at_its_limit():
    jogger = jogger_of(DESK)
    elbow = JointJogCommand((0.0, 0.0, 1.0, 0.0, 0.0))
    steps = []
    for _ in range(200):
        steps.append(jogger.step(elbow))
        if steps[-1].halted:
            break
    series = joints_of(DESK.home, steps)
    assert_within_joint_limits(series, DESK)
    others = [0, 1, 3, 4]
    assert (series[:, others] == np.array(DESK.home)[others]).all()
    assert steps[-1].code == JogCode.JOINT_BOUND
    assert steps[-1].words == "stopped: the limit of elbow"
    assert series[-1][2] == pytest.approx(math.radians(10.0), abs=1e-3)


def test_a_command_of_the_other_kind_first_brings_the_arm_to_rest():
    jogger = jogger_of(DESK)
    rising = run(jogger, twist((0.0, 0.0, 0.03)), 20)
    switch = run(jogger, JointJogCommand((0.5, 0.0, 0.0, 0.0, 0.0)), 15)
    rested = next(i for i, step in enumerate(switch) if not step.moving)
    assert rested > 0
    assert_within_joint_limits(joints_of(DESK.home, rising + switch), DESK)
    after = np.array([step.joints for step in switch[rested + 1 :]])
    assert (after[:, 1:] == after[0, 1:]).all()
    assert after[-1][0] > after[0][0]


def test_a_planar_arm_never_flips_its_elbow():
    jogger = jogger_of(PLANAR)
    steps = run(jogger, twist((-0.05, 0.0, 0.0)), 150)
    series = joints_of(PLANAR.home, steps)
    assert_within_joint_limits(series, PLANAR)
    assert (series[:, 1] > 0.0).all()  # elbow down all the way
    assert steps[-1].code == JogCode.JOINT_BOUND
