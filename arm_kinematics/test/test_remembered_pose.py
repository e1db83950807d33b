"""The remembered pose without ROS (hardware/remembered_pose.py): its file, written atomically and
read back; every way a file can be unusable (missing, corrupt, another format or version,
another hardware, other joints, another channel, outside the limits), each refused whole with
its reason; a calibration changed meanwhile; the default path per node and hardware; when the
node saves (once per settled pose)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from pathlib import Path

import pytest

from arm_kinematics.config import ArmConfig, default_config_path
from arm_kinematics.hardware import ServoMap
from arm_kinematics.hardware.remembered_pose import (
    SETTLE_S,
    Owner,
    PoseFileError,
    PoseMemory,
    SavedPose,
    default_pose_path,
    read_pose,
    start_pose,
    write_pose,
)

D = math.radians
PLANAR = ServoMap.from_config(ArmConfig.from_file())  # shoulder ch0 (offset 90), elbow ch1 (-1)
MEARM = ServoMap.from_config(ArmConfig.from_file(default_config_path("arm_mearm.yaml")))
SIM = Owner("/hardware_node", "sim")
BOARD = Owner("/hardware_node", "pca9685@i2c-1:0x40")


def saved(servo_map: ServoMap, joints_deg: list[float], owner: Owner = SIM) -> SavedPose:
    positions = [D(q) for q in joints_deg]
    return SavedPose.of(servo_map, owner, servo_map.servo_angles(positions), positions)


def edited(path: Path, change) -> None:
    """The file at `path` after `change(data)` edits its JSON in place."""
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


ZERO = saved(PLANAR, [0.0, 0.0])


# --- the file ------------------------------------------------------------------------------------


def test_a_pose_round_trips_through_its_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "pose.json"
    pose = saved(PLANAR, [30.0, -60.0])
    write_pose(path, pose)
    assert read_pose(path) == pose
    data = json.loads(path.read_text())
    assert data["joints"][1] == {
        "name": "elbow",
        "channel": 1,
        "servo_deg": pytest.approx(150.0),  # mirrored: 90 - (-60)
        "joint_deg": pytest.approx(-60.0),
    }
    assert os.listdir(path.parent) == ["pose.json"]  # no temporary file left


def test_a_write_that_fails_leaves_the_old_file_whole(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "pose.json"
    write_pose(path, saved(PLANAR, [10.0, 10.0]))
    before = path.read_bytes()

    def power_cut(*_args) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError, match="No space left"):
        write_pose(path, saved(PLANAR, [50.0, 50.0]))
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["pose.json"]


def test_a_missing_file_is_not_an_error_of_the_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_pose(tmp_path / "none.json")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda p: p.write_text('{"format": "arm_kin'), "cannot be read (JSONDecodeError"),
        (lambda p: p.write_bytes(b"\xff\xfe\x00"), "cannot be read (UnicodeDecodeError"),
        (lambda p: p.write_text("[1, 2]"), "is not a remembered pose"),
        (lambda p: edited(p, lambda d: d.update(format="other")), "is not a remembered pose"),
        (lambda p: edited(p, lambda d: d.update(version=2)), "is version 2, this node reads 1"),
        (lambda p: edited(p, lambda d: d.pop("joints")), "is damaged (KeyError: 'joints')"),
        (
            lambda p: edited(p, lambda d: d["joints"][0].update(servo_deg="90")),
            "servo_deg '90' of joint 'shoulder' is not a finite number",
        ),
        (
            lambda p: edited(p, lambda d: d["joints"][0].update(servo_deg=math.nan)),
            "servo_deg nan of joint 'shoulder' is not a finite number",
        ),
        (
            lambda p: edited(p, lambda d: d["joints"][1].update(channel=True)),
            "channel True of joint 'elbow' is not a whole number",
        ),
        (lambda p: edited(p, lambda d: d["joints"][1].pop("name")), "is damaged (KeyError"),
    ],
)
def test_a_damaged_file_is_refused_saying_why(tmp_path: Path, damage, reason: str) -> None:
    path = tmp_path / "pose.json"
    write_pose(path, saved(PLANAR, [10.0, 20.0]))
    damage(path)
    with pytest.raises(PoseFileError) as caught:
        read_pose(path)
    assert reason in str(caught.value)


# --- the pose for the arm running now -------------------------------------------------------------


def test_the_pose_is_the_servo_angles_by_the_running_calibration() -> None:
    start = start_pose(saved(PLANAR, [30.0, -60.0]), PLANAR, SIM)
    assert start.positions == pytest.approx((D(30.0), D(-60.0)), abs=1e-12)
    assert start.calibration_changes == ()
    # A parallelogram arm (MeArm: the elbow servo sets the forearm's angle) and its gripper.
    pose = [20.0, 40.0, -70.0, 15.0]
    back = start_pose(saved(MEARM, pose), MEARM, SIM).positions
    assert back == pytest.approx([D(q) for q in pose], abs=1e-12)


def test_a_changed_calibration_keeps_the_servos_where_they_stood() -> None:
    # Saved with the shoulder's offset 90; the file now says 100 and mirrored (a new horn).
    old = saved(PLANAR, [20.0, 45.0])  # the shoulder servo at 110 deg
    shoulder, elbow = PLANAR.joints
    servo = replace(shoulder.servo, offset_deg=100.0, sign=-1)
    recalibrated = ServoMap([replace(shoulder, servo=servo), elbow])
    start = start_pose(old, recalibrated, SIM)
    assert start.positions == pytest.approx((D(-10.0), D(45.0)), abs=1e-12)
    assert recalibrated.servo_angles(start.positions)[0] == pytest.approx(110.0)
    assert start.calibration_changes == (
        "shoulder was 20.00 deg, the same servo angle 110.00 is -10.00 deg now",
    )


@pytest.mark.parametrize(
    ("pose", "servo_map", "owner", "reason"),
    [
        (
            saved(PLANAR, [0, 0], BOARD),
            PLANAR,
            SIM,
            "was saved on pca9685@i2c-1:0x40, this node drives sim",
        ),
        (
            saved(PLANAR, [0, 0], Owner("/left_arm/hardware_node", "sim")),
            PLANAR,
            SIM,
            "was saved by /left_arm/hardware_node, this node is /hardware_node",
        ),
        (saved(MEARM, [0, 0, 0, 0]), PLANAR, SIM, "names the joints base, shoulder, elbow, claw"),
        (
            SavedPose(SIM, "t", ZERO.servos[:1] * 2),
            PLANAR,
            SIM,
            "names the joints shoulder, shoulder; this arm drives shoulder, elbow",
        ),
        (
            SavedPose(SIM, "t", (ZERO.servos[0], replace(ZERO.servos[1], channel=7))),
            PLANAR,
            SIM,
            "has joint 'elbow' on channel 7, this arm on channel 1",
        ),
    ],
)  # fmt: skip
def test_a_pose_of_another_arm_or_hardware_is_refused(pose, servo_map, owner, reason) -> None:
    with pytest.raises(PoseFileError) as caught:
        start_pose(pose, servo_map, owner)
    assert reason in str(caught.value)


def test_a_pose_outside_the_limits_of_the_running_file_is_refused() -> None:
    pose = saved(PLANAR, [60.0, 0.0])
    shoulder, elbow = PLANAR.joints
    narrower = ServoMap([replace(shoulder, max_position=D(45.0)), elbow])
    with pytest.raises(PoseFileError) as caught:
        start_pose(pose, narrower, SIM)
    assert "is outside this arm's limits by its calibration: joint 'shoulder' = 1.0472 rad" in str(
        caught.value
    )
    # A parallelogram servo's travel counts too (MeArm's forearm servo: -60..45 deg): its servo
    # jogged from 130 to 160 in calibration mode puts the forearm at 70 deg (the elbow at -20).
    pose = saved(MEARM, [0.0, 90.0, -50.0, 0.0])
    jogged = replace(
        pose, servos=(*pose.servos[:2], replace(pose.servos[2], servo_deg=160.0), pose.servos[3])
    )
    with pytest.raises(PoseFileError, match=r"puts its link at 70 deg \(shoulder \+ elbow\)"):
        start_pose(jogged, MEARM, SIM)


# --- the default path ----------------------------------------------------------------------------


def test_the_default_path_is_per_namespace_and_hardware() -> None:
    env = {"XDG_STATE_HOME": "/state", "HOME": "/home/maker"}
    paths = {
        default_pose_path(Owner("/hardware_node", "sim"), env),
        default_pose_path(Owner("/left_arm/hardware_node", "sim"), env),
        default_pose_path(Owner("/right_arm/hardware_node", "sim"), env),
        default_pose_path(Owner("/left_arm/hardware_node", "pca9685@i2c-1:0x40"), env),
    }
    assert len(paths) == 4  # two arms, and the simulation beside the board, never share one
    assert Path("/state/arm_kinematics/left_arm/hardware_node/sim.json") in paths
    assert default_pose_path(SIM, {"HOME": "/home/maker"}) == Path(
        "/home/maker/.local/state/arm_kinematics/hardware_node/sim.json"
    )


# --- PoseMemory: start-up and when to save -------------------------------------------------------


def test_recall_says_what_start_up_does(tmp_path: Path) -> None:
    path = tmp_path / "pose.json"
    off = PoseMemory(None, PLANAR, SIM).recall()
    assert off.start is None
    assert "hardware.remember_pose is false" in off.message
    missing = PoseMemory(path, PLANAR, SIM).recall()
    assert missing.start is None
    assert not missing.warning
    assert f"no remembered pose in {path} yet: the servos go to home [0.0, 45.0] deg" in (
        missing.message
    )
    path.write_text("garbage")
    corrupt = PoseMemory(path, PLANAR, SIM).recall()
    assert corrupt.start is None
    assert corrupt.warning
    assert "is not used: it cannot be read" in corrupt.message
    assert "go to home [0.0, 45.0] deg" in corrupt.message
    write_pose(path, saved(PLANAR, [30.0, -60.0]))
    remembered = PoseMemory(path, PLANAR, SIM).recall()
    assert remembered.start is not None
    assert remembered.start.positions == pytest.approx((D(30.0), D(-60.0)))
    assert "start pose: the remembered pose from" in remembered.message
    assert "joints [30.0, -60.0] deg, servos [120.0, 150.0] servo deg" in remembered.message
    assert "Home [0.0, 45.0] deg is a move like any other" in remembered.message


def test_a_pose_is_saved_once_when_the_servos_have_stood_still(tmp_path: Path) -> None:
    memory = PoseMemory(tmp_path / "pose.json", PLANAR, SIM)
    q = [D(30.0), D(-60.0)]
    angles = PLANAR.servo_angles(q)
    assert memory.observe(angles, q, 10.0) is None  # first seen
    assert memory.observe(angles, q, 10.0 + SETTLE_S / 2) is None  # not yet settled
    pose = memory.observe(angles, q, 10.0 + SETTLE_S)
    assert pose is not None
    assert [s.servo_deg for s in pose.servos] == list(angles)
    memory.save(pose)
    assert read_pose(memory.path) == pose
    assert memory.observe(angles, q, 20.0) is None  # saved already
    assert memory.pose_to_save(angles, q) is None  # nor again at shutdown
    # Moving on: a new angle starts the count again.
    q2 = [D(31.0), D(-60.0)]
    angles2 = PLANAR.servo_angles(q2)
    assert memory.observe(angles2, q2, 20.1) is None
    assert memory.observe(angles2, q2, 20.1 + SETTLE_S) is not None
    assert memory.pose_to_save(angles2, q2) is not None
    # Nothing remembered: nothing to save.
    assert PoseMemory(None, PLANAR, SIM).observe(angles, q, 0.0) is None


def test_a_pose_that_cannot_be_written_is_not_tried_again_until_the_next(tmp_path: Path) -> None:
    blocked = tmp_path / "a file, not a directory"
    blocked.write_text("")
    memory = PoseMemory(blocked / "pose.json", PLANAR, SIM)
    q = [D(30.0), D(-60.0)]
    angles = PLANAR.servo_angles(q)
    memory.observe(angles, q, 0.0)
    pose = memory.observe(angles, q, SETTLE_S)
    assert pose is not None
    with pytest.raises(FileExistsError):  # its directory is a file
        memory.save(pose)
    assert memory.observe(angles, q, 2 * SETTLE_S) is None  # not every quarter second
    assert memory.pose_to_save(angles, q) is not None  # but again at shutdown
    q2 = [D(31.0), D(-60.0)]
    memory.observe(PLANAR.servo_angles(q2), q2, 3.0)
    assert memory.observe(PLANAR.servo_angles(q2), q2, 3.0 + SETTLE_S) is not None
