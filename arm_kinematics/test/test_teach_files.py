"""Named poses' files, sequence programs and the saved sequences without a ROS graph
(`arm_kinematics.teach`), and a sequence resolved and planned whole in this process through
the node's parts (`nodes/teach/sequence.py`) with the core's in-process IK (the same array
solve the IK node runs). The desk kit and the default planar arm.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from ros_helpers import PACKAGE_DIR
from teach_stack import EXAMPLE, KIT_FILE

from arm_kinematics.config import ArmConfig
from arm_kinematics.kinematics.planning.ik_answers import chain_solver
from arm_kinematics.nodes.refusals import Refusal
from arm_kinematics.nodes.teach.named import NamedPoses
from arm_kinematics.nodes.teach.sequence import (
    PlannedStep,
    SequenceOutcome,
    plan_sequence,
    resolve_sequence,
)
from arm_kinematics.nodes.teach.settings import TeachSettings
from arm_kinematics.nodes.teach.status import SequenceResult
from arm_kinematics.nodes.trajectory.goals import GoalRun, Result
from arm_kinematics.teach.names import TeachError
from arm_kinematics.teach.poses import NamedPose, PoseFile, check_pose, home_pose, pose_at
from arm_kinematics.teach.program import GripperStep, MoveStep, WaitStep, read_program
from arm_kinematics.teach.store import SequenceStore

KIT = ArmConfig.from_file(KIT_FILE)
KIT_ARM = KIT.make_arm()
PLANAR = ArmConfig.from_file(PACKAGE_DIR / "config" / "arm.yaml")
#: A pose of the kit away from home, inside its limits and envelope (rad).
AWAY = (0.3, 1.0, -1.2, -0.5, 0.1)


def kit_named(folder: Path) -> NamedPoses:
    return NamedPoses(KIT, KIT_ARM, PoseFile(folder / "kit.poses.yaml"))


# --- the named poses' file ------------------------------------------------------------------


def test_a_saved_pose_reads_back_with_its_joints_and_tool_and_leaves_no_temporary_file(tmp_path):
    file = PoseFile(tmp_path / "poses" / "kit.poses.yaml")
    saved = pose_at("above_box", KIT_ARM, KIT.joint_names, AWAY)
    assert file.save(saved) is True
    read = file.poses()["above_box"]
    assert [n for n, _ in read.joints] == list(KIT.joint_names)
    assert np.allclose([q for _, q in read.joints], AWAY, atol=math.radians(1e-4))
    assert np.allclose(read.tool[:3], KIT_ARM.tool_vector(AWAY)[:3], atol=1e-5)
    assert read.saved_at == saved.saved_at
    assert sorted(p.name for p in file.path.parent.iterdir()) == ["kit.poses.yaml"]


def test_comments_and_a_persons_edits_stay_when_a_pose_is_saved(tmp_path):
    path = tmp_path / "kit.poses.yaml"
    file = PoseFile(path)
    file.save(pose_at("first", KIT_ARM, KIT.joint_names, KIT.home))
    text = path.read_text().replace("poses:\n", "poses:  # taught on the desk, 3 May\n")
    text = text.replace("  first:\n", "  # over the parts tray\n  first:\n")
    path.write_text(text)
    file.save(pose_at("second", KIT_ARM, KIT.joint_names, AWAY))
    after = path.read_text()
    assert after.startswith(text)  # every line before it as it was, comments included
    assert "second:" in after.removeprefix(text)


def test_a_name_is_checked_and_a_taken_name_holding_other_joints_refused(tmp_path):
    file = PoseFile(tmp_path / "kit.poses.yaml")
    with pytest.raises(TeachError, match="'above box' is not a name for a named pose"):
        pose_at("above box", KIT_ARM, KIT.joint_names, AWAY)
    with pytest.raises(TeachError, match="'home' is the params file's joints"):
        file.save(pose_at("home", KIT_ARM, KIT.joint_names, AWAY))
    file.save(pose_at("spot", KIT_ARM, KIT.joint_names, AWAY))
    before = file.path.read_text()
    assert file.save(pose_at("spot", KIT_ARM, KIT.joint_names, AWAY)) is False  # same: one save
    with pytest.raises(TeachError, match=r"a named pose 'spot' exists .*overwrite it"):
        file.save(pose_at("spot", KIT_ARM, KIT.joint_names, KIT.home))
    assert file.path.read_text() == before
    assert file.save(pose_at("spot", KIT_ARM, KIT.joint_names, KIT.home), overwrite=True)
    assert np.allclose([q for _, q in file.poses()["spot"].joints], KIT.home)


def test_delete_removes_one_pose_and_a_second_delete_finds_nothing(tmp_path):
    file = PoseFile(tmp_path / "kit.poses.yaml")
    for name in ("a", "b"):
        file.save(pose_at(name, KIT_ARM, KIT.joint_names, AWAY))
    assert file.delete("a") is True
    assert list(file.poses()) == ["b"]
    assert file.delete("a") is False
    with pytest.raises(TeachError, match="'home' is built in"):
        file.delete("home")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("poses: [1, 2]\n", "line 1: 'poses' must be a mapping"),
        ("poses:\n  a:\n    joint_deg: {}\n", "line 2: named pose 'a': give it 'joints_deg"),
        ("poses:\n  a:\n    joints_deg: {elbow: .nan}\n", "joints_deg.elbow must be a finite"),
        ("poses:\n  home:\n    joints_deg: {elbow: 0}\n", "'home' is built in"),
        ("posse:\n  a: {}\n", "unknown key 'posse'"),
        ("poses: {a: [\n", "is not YAML: line 2"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line_and_the_fault(tmp_path, text, words):
    path = tmp_path / "kit.poses.yaml"
    path.write_text(text)
    with pytest.raises(TeachError, match=words):
        PoseFile(path).poses()


# --- a pose checked against the running config ----------------------------------------------


def test_a_pose_is_checked_against_the_joints_limits_envelope_and_geometry_of_the_config(
    tmp_path,
):
    envelope = KIT.make_envelope(KIT_ARM)
    good = pose_at("good", KIT_ARM, KIT.joint_names, AWAY)
    assert np.allclose(check_pose(good, KIT, KIT_ARM, envelope), AWAY)
    assert check_pose(home_pose(KIT, KIT_ARM), KIT, KIT_ARM, envelope) == KIT.home

    planar = pose_at("planar", PLANAR.make_arm(), PLANAR.joint_names, PLANAR.home)
    with pytest.raises(TeachError, match=r"has no angle for base_yaw.*saved for another arm"):
        check_pose(planar, KIT, KIT_ARM, envelope)

    beyond = NamedPose(
        "beyond", tuple(zip(KIT.joint_names, (0.0, 1.0, 0.5, 0.0, 0.0), strict=True))
    )
    with pytest.raises(TeachError, match=r"joint elbow at 28\.65 deg is outside its limits"):
        check_pose(beyond, KIT, KIT_ARM, envelope)

    # The forearm folded down to the desk: inside the joint limits, below the table.
    down = (0.0, 0.0, -1.2, 0.0, 0.0)
    assert KIT_ARM.within_limits(down)
    low = pose_at("low", KIT_ARM, KIT.joint_names, down)
    with pytest.raises(TeachError, match=r"outside the workspace envelope: .* below the table"):
        check_pose(low, KIT, KIT_ARM, envelope)

    # The kit with a forearm 10 mm longer: the same joints, the tool elsewhere.
    other = tmp_path / "kit_long_forearm.yaml"
    other.write_text(KIT_FILE.read_text().replace("[0.105, 0.098, 0.090]", "[0.105, 0.108, 0.090]"))
    longer = ArmConfig.from_file(other)
    longer_arm = longer.make_arm()
    with pytest.raises(TeachError, match=r"mm from where they did .*geometry changed"):
        check_pose(good, longer, longer_arm, longer.make_envelope(longer_arm))


# --- programs -------------------------------------------------------------------------------


def test_the_shipped_example_reads_into_its_steps():
    program = read_program(EXAMPLE.read_text(), KIT)
    assert program.repeat == 2
    assert len(program.steps) == 10
    kinds = [type(step) for step in program.steps]
    assert kinds.count(MoveStep) == 6
    assert kinds.count(GripperStep) == 3
    assert kinds.count(WaitStep) == 1
    grip = program.steps[4]
    assert isinstance(grip, GripperStep)
    assert grip.closing
    assert grip.position == 0.0
    down = program.steps[3]
    assert isinstance(down, MoveStep)
    assert down.mode == "linear"
    assert down.speed == 0.03
    assert down.pose == pytest.approx((0.14, 0.06, 0.04, math.radians(-75)))
    assert program.named_poses == ("home",)


def test_a_program_as_json_reads_as_the_same_yaml():
    document = {
        "repeat": 3,
        "steps": [
            {"move": "joint", "to": "home", "speed_fraction": 0.5},
            {"gripper_opening_m": 0.02},
            {"wait_s": 1},
        ],
    }
    program = read_program(json.dumps(document), KIT)
    assert program.repeat == 3
    assert program.steps[0] == MoveStep("joint to home", "joint", named="home", speed=0.5)
    assert program.steps[1] == GripperStep("gripper to 0.02 m", 0.02)
    assert program.steps[2] == WaitStep("wait 1 s", 1.0)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("steps: []", "needs 'steps:'"),
        ("stepz: [{wait_s: 1}]", "line 1: unknown key 'stepz' in the program"),
        ("repeat: 0\nsteps: [{wait_s: 1}]", "repeat = 0: a whole number 1..1000"),
        ("steps:\n  - wait_s: 1\n  - {move: joint}\n", "step 2 .line 3.: a move goes to"),
        ("steps: [{move: fast, to: home}]", "move: 'fast': linear or joint"),
        (
            "steps: [{move: joint, to: home, speed_fraction: 1.5}]",
            r"speed_fraction = 1.5: .*\(0, 1\]",
        ),
        ("steps: [{move: linear, pose: {x_m: 0.1, y_m: 0}}]", "missing z_m"),
        (
            "steps: [{move: linear, pose: {x_m: 0.1, y_m: 0, z_m: 0.1, roll_deg: 5}}]",
            "a roll_deg needs a pitch_deg too",
        ),
        ("steps: [{gripper: shut}]", "gripper: 'shut': open or close"),
        ("steps: [{gripper_opening_m: 0.2}]", r"outside the gripper's range \[0, 0.055\]"),
        ("steps: [{wait_s: 2, gripper: open}]", "it has gripper and wait"),
        ("steps: [{wait_s: 2, speed: 3}]", "unknown key 'speed' in a wait step"),
        ("steps: [{move: joint, to: 'a b'}]", "'a b' is not a name for a named pose"),
    ],
)
def test_a_program_that_is_not_one_is_refused_naming_its_step_and_fault(text, words):
    with pytest.raises(TeachError, match=words):
        read_program(text, KIT)


def test_a_planar_arm_takes_its_own_pose_keys_and_has_no_gripper():
    program = read_program(
        "steps: [{move: linear, pose: {x_m: 0.12, y_m: 0.05, heading_deg: 30}}]", PLANAR
    )
    assert program.steps[0].pose == pytest.approx((0.12, 0.05, math.radians(30)))
    with pytest.raises(TeachError, match=r"a planar arm's pose .*unknown z_m"):
        read_program("steps: [{move: linear, pose: {x_m: 0.1, y_m: 0, z_m: 0}}]", PLANAR)
    with pytest.raises(TeachError, match="this arm has no gripper"):
        read_program("steps: [{gripper: open}]", PLANAR)


def test_saved_sequences_are_files_by_name_and_a_second_save_or_delete_is_harmless(tmp_path):
    store = SequenceStore(tmp_path / "kit.sequences")
    assert store.names() == []
    path = store.save("pick", "steps: [{wait_s: 1}]")
    assert path == tmp_path / "kit.sequences" / "pick.yaml"
    assert store.save("pick", "steps: [{wait_s: 1}]\n") == path  # the same text: one save
    with pytest.raises(TeachError, match="a sequence 'pick' exists"):
        store.save("pick", "steps: [{wait_s: 2}]")
    store.save("pick", "steps: [{wait_s: 2}]", overwrite=True)
    assert store.read("pick") == "steps: [{wait_s: 2}]\n"
    with pytest.raises(TeachError, match="not a name for a sequence"):
        store.save("../escape", "steps: [{wait_s: 1}]")
    assert store.delete("pick") is True
    assert store.delete("pick") is False
    with pytest.raises(TeachError, match="no saved sequence 'pick'"):
        store.read("pick")


# --- a sequence resolved and planned whole ----------------------------------------------------


def plan(text: str, folder: Path, start=KIT.home):
    named = kit_named(folder)
    settings = TeachSettings(folder / "kit.poses.yaml", folder / "seq")
    sequence = resolve_sequence(read_program(text, KIT), KIT, named, settings)
    run = GoalRun(b"key", sequence, None)
    return sequence, plan_sequence(KIT_ARM, KIT, sequence, start, chain_solver(KIT_ARM), run)


def test_the_example_plans_every_step_from_the_end_of_the_one_before(tmp_path):
    _sequence, planned = plan(EXAMPLE.read_text(), tmp_path)
    assert isinstance(planned, list)
    assert len(planned) == 20
    previous = np.array(KIT.home)
    for step in planned:
        assert isinstance(step, PlannedStep)
        assert np.array_equal(step.start, previous)
        if step.setpoints is not None:
            previous = step.setpoints.joints[-1]
    down = planned[3]
    tool = KIT_ARM.tool_vector(down.setpoints.joints[-1])
    assert tool[:4] == pytest.approx((0.14, 0.06, 0.04, math.radians(-75)), abs=1e-9)


def test_the_first_move_eases_in_at_a_quarter_of_the_joint_limits(tmp_path):
    text = "steps: [{move: joint, to: there, speed_fraction: 1.0}, {move: joint, to: home}]"
    PoseFile(tmp_path / "kit.poses.yaml").save(pose_at("there", KIT_ARM, KIT.joint_names, AWAY))
    _sequence, planned = plan(text, tmp_path)
    period = 1.0 / KIT.trajectory.command_rate_hz
    first = np.vstack([KIT.home, planned[0].setpoints.joints])
    fastest = np.max(np.abs(np.diff(first, axis=0)) / period / KIT.max_velocities)
    assert 0.2 < fastest <= 0.25 + 1e-9  # the gentle fraction, not the step's 1.0
    back = np.vstack([AWAY, planned[1].setpoints.joints])
    fastest_back = np.max(np.abs(np.diff(back, axis=0)) / period / KIT.max_velocities)
    default = KIT.trajectory.default_joint_speed_fraction
    assert default - 0.05 < fastest_back <= default + 1e-9


def test_an_unreachable_third_step_refuses_the_sequence_naming_it(tmp_path):
    text = """
steps:
  - {move: joint, to: home}
  - {name: above the part, move: joint, pose: {x_m: 0.14, y_m: 0.06, z_m: 0.10, pitch_deg: -75}}
  - {name: too far, move: linear, pose: {x_m: 0.30, y_m: 0.06, z_m: 0.10, pitch_deg: -75}}
  - {gripper: close}
"""
    _sequence, planned = plan(text, tmp_path)
    assert isinstance(planned, SequenceOutcome)
    assert planned.sequence_status == SequenceResult.PLAN_FAILED
    assert planned.status == Result.IK_FAILED
    assert planned.step_number == 3
    assert planned.step_name == "too far"
    assert planned.message.startswith(
        "step 3 of 4 (too far) cannot be planned from the end of step 2: "
    )
    assert "nothing moved" in planned.message


def test_a_named_pose_unknown_or_outside_the_limits_refuses_the_sequence_before_planning(tmp_path):
    with pytest.raises(Refusal, match=r"step 2 \(joint to nowhere\): no named pose 'nowhere'"):
        plan("steps: [{wait_s: 0}, {move: joint, to: nowhere}]", tmp_path)
    path = tmp_path / "kit.poses.yaml"
    PoseFile(path).save(pose_at("spot", KIT_ARM, KIT.joint_names, AWAY))
    path.write_text(path.read_text().replace("elbow: -68.7549", "elbow: 40.0"))
    with pytest.raises(Refusal, match=r"step 1 .*joint elbow at 40.00 deg is outside its limits"):
        plan("steps: [{move: linear, to: spot}]", tmp_path)
